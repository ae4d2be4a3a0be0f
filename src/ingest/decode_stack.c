// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stack records -> the store's stack table (see decode_stack.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "decode-local.h"
#include "lib/evformat.h"
#include "lib/evspec.h"

bool dstack_fmt_init(struct tep_event *ev, int long_size, struct dstack_fmt *f)
{
	struct tep_format_field *n, *c;
	bool user;

	if (!ev || !ev->system || strcmp(ev->system, "ftrace"))
		return false;
	if (!strcmp(ev->name, "kernel_stack"))
		user = false;
	else if (!strcmp(ev->name, "user_stack"))
		user = true;
	else
		return false;
	n = tep_find_field(ev, user ? "tgid" : "size");
	c = tep_find_field(ev, "caller");
	if (!n || !c || n->size != 4 || (long_size != 4 && long_size != 8) ||
	    !evformat_field_fits(n, UINT16_MAX) || !evformat_field_fits(c, UINT16_MAX))
		return false;	/* no such event here, or a corrupt format */
	memset(f, 0, sizeof(*f));
	f->off_n = n->offset;
	f->off_caller = c->offset;
	f->lsize = long_size;
	f->part = user ? DSTK_USER : DSTK_KERN;
	f->ncaller = user ? c->size / long_size : 0;
	return true;
}

/* The addresses of the record into @out, leaf first. Return: how many. */
static unsigned int dstack_read(const struct dstack_fmt *f, const uint8_t *p, int size,
				uint64_t *out, uint32_t *tgid)
{
	unsigned int n, max;
	int32_t v;

	if (size < f->off_caller || size < f->off_n + 4)
		return 0;
	max = (size - f->off_caller) / f->lsize;
	memcpy(&v, p + f->off_n, 4);
	if (f->part == DSTK_USER) {
		*tgid = (uint32_t)v;
		n = f->ncaller;
	} else {
		*tgid = 0;
		n = v > 0 ? (unsigned int)v : 0;
	}
	if (n > max)
		n = max;
	if (n > STACK_MAX_FRAMES)
		n = STACK_MAX_FRAMES;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a;

		if (f->lsize == 8) {
			memcpy(&a, p + f->off_caller + 8 * i, 8);
			if (a == UINT64_MAX)
				return i;
		} else {
			uint32_t a32;

			memcpy(&a32, p + f->off_caller + 4 * i, 4);
			if (a32 == UINT32_MAX)
				return i;
			a = a32;
		}
		/* a user stack ends at its first 0: the rest of the array is unused */
		if (!a && f->part == DSTK_USER)
			return i;
		out[i] = a;
	}
	return n;
}

uint32_t dstack_combine(struct dstack *ds, struct stacks *sk, const struct dstack_fmt *f,
			const void *data, int size, uint32_t old, bool *dup)
{
	struct stack_info si = { 0 };
	unsigned int n;
	uint32_t tgid;

	*dup = false;
	n = dstack_read(f, data, size, ds->buf, &tgid);
	if (!n)
		return old;
	if (old && stacks_get(sk, old, &si))
		old = 0;
	if (f->part == DSTK_KERN) {
		if (si.nkern) {
			*dup = true;
			return old;
		}
		return stacks_intern(sk, ds->buf, n, si.frames + si.nkern, si.nuser, si.tgid, 0,
				     &ds->cache);
	}
	if (si.nuser) {
		*dup = true;
		return old;
	}
	return stacks_intern(sk, si.frames, si.nkern, ds->buf, n, tgid, 0, &ds->cache);
}

unsigned int dstack_parts(const struct stacks *sk, uint32_t id)
{
	struct stack_info si;

	if (!id || stacks_get(sk, id, &si))
		return 0;
	return (si.nkern ? DSTK_KERN : 0) | (si.nuser ? DSTK_USER : 0);
}

/* ---- the decoder's side (decode-local.h) ------------------------------------ */

/* A stack record's type: read by decoder_stack(), never a row. Return: 0 or -ENOMEM. */
int dtype_stack(struct decode_ctx *dc, struct dtype *t)
{
	struct dstack_fmt f;

	if (!dstack_fmt_init(t->event, dc->long_size == KBUFFER_LSIZE_4 ? 4 : 8, &f))
		return 0;
	t->stk = malloc(sizeof(*t->stk));
	if (!t->stk)
		return -ENOMEM;
	*t->stk = f;
	t->post = DPOST_STACK;
	t->min_size = f.off_caller;
	return 0;
}

/* The decoder's stack state. Return: it, or NULL on ENOMEM. */
static struct dstack *decoder_dstack(struct decoder *d)
{
	if (!d->stk)
		d->stk = calloc(1, sizeof(*d->stk));
	return d->stk;
}

/* decoder_record() of a stack record: the stack of the event decoded before. */
int decoder_record_stack(struct decoder *d, struct dtype *t, const void *data, int size,
			 uint64_t ts, struct ktop_event *out)
{
	bool dup;

	if (!decoder_dstack(d))
		return -ENOMEM;
	d->stk->rec_stack = dstack_combine(d->stk, store_stacks(d->dc->st), t->stk, data, size,
					   d->stk->rec_stack, &dup);
	memset(out, 0, sizeof(*out));
	out->ts = ts;
	out->cpu = d->cpu;
	out->stack = d->stk->rec_stack;
	return DECODE_RECORD_STACK;
}

/* Return: the type of a stack record, NULL for anything else. */
struct dtype *decoder_stack_type(struct decoder *d, const void *data, int size)
{
	const struct decode_ctx *dc = d->dc;
	struct dtype *t;
	uint64_t id;

	if (size < dc->common_min)
		return NULL;
	id = load_slot((const uint8_t *)data + dc->c_type.off, dc->c_type.op);
	if (id >= dc->nids || !(t = dc->by_id[id]) || t->post != DPOST_STACK)
		return NULL;
	return t;
}

/* A stack record @t: it becomes the stack of the window's last row. */
__attribute__((noinline)) void
decoder_stack(struct decoder *d, struct dwin *w, struct dtype *t, const void *data, int size,
	      struct decode_stats *stats)
{
	struct store_brow *row;
	struct dtype *lt = w->lt;
	unsigned int part = t->stk->part;
	uint32_t id;
	bool dup;

	if (!w->n || !decoder_dstack(d) || (d->dc->stack_filter && lt && !(lt->want & part))) {
		/* no event of this page before it (not held), or not asked for */
		if (stats)
			stats->stack_dropped++;
		return;
	}
	row = &w->w.row[w->n - 1];
	if (d->stk->grow != row) {
		d->stk->grow = row;
		d->stk->got = 0;
	}
	d->stk->got |= part;
	id = dstack_combine(d->stk, store_stacks(d->dc->st), t->stk, data, size, row->stack,
			    &dup);
	if (dup) {
		if (stats)
			stats->stack_dropped++;
		return;
	}
	/* id 0: no frame to add (a kernel thread's user stack), or the table is full */
	if (id)
		row->stack = id;
	if (lt && !(atomic_load_explicit(&lt->stacked, memory_order_relaxed) & part))
		atomic_fetch_or_explicit(&lt->stacked, part, memory_order_relaxed);
	if (stats)
		stats->stacks++;
}

/*
 * The page's last row, when its type carries stacks and it lacks a part:
 * held back (not committed) for the next page, whose first record may be
 * its stack. Return: the window without it.
 */
struct dwin decoder_hold(struct decoder *d, struct dwin w)
{
	const struct dtype *lt = w.lt;
	struct store_brow *row;
	unsigned int want, got = 0;

	if (!w.n || !lt)
		return w;
	want = atomic_load_explicit(&lt->stacked, memory_order_relaxed) | lt->want;
	if (d->dc->stack_filter)
		want &= lt->want;
	row = &w.w.row[w.n - 1];
	if (d->stk) {
		got = d->stk->grow == row ? d->stk->got : 0;
		d->stk->grow = NULL;	/* the next page's rows are elsewhere */
	}
	if (!want || !(want & ~(got | dstack_parts(store_stacks(d->dc->st), row->stack))) ||
	    !decoder_dstack(d))
		return w;
	d->stk->held = true;
	d->stk->hrow = *row;
	d->stk->ht = lt;
	memcpy(d->stk->hargs, &w.w.args[row->aoff], row->nargs * sizeof(uint64_t));
	w.a = row->aoff;
	w.n--;
	if (w.n)
		w.last = w.w.row[w.n - 1].ts;
	return w;
}

/* The row decoder_hold() kept, as the window's first. */
struct dwin decoder_unhold(struct decoder *d, struct dwin w, struct decode_stats *stats)
{
	struct dstack *ds = d->stk;
	struct store_brow *row;

	if (!ds || !ds->held)
		return w;
	ds->held = false;
	w = decoder_refill(d, w, ds->hrow.ts, stats);
	if (!w.nmax) {
		if (stats)
			stats->bad++;
		return w;
	}
	row = &w.w.row[0];
	*row = ds->hrow;
	row->aoff = w.a;
	if (row->ts < w.last)
		row->ts = w.last;
	memcpy(&w.w.args[w.a], ds->hargs, row->nargs * sizeof(uint64_t));
	w.a += row->nargs;
	w.n = 1;
	w.last = row->ts;
	w.lt = (struct dtype *)ds->ht;
	return w;
}

bool decoder_held(const struct decoder *d)
{
	return d->stk && d->stk->held;
}

int decoder_flush(struct decoder *d, bool stopped, struct decode_stats *stats)
{
	struct dwin w = { 0 };

	if (!d->stk || !d->stk->held)
		return 0;
	/* held: it lacks a part its type carries (decoder_hold()) */
	if (stopped && stats)
		stats->stack_cut++;
	w = decoder_unhold(d, w, stats);
	w = decoder_commit(d, w, stats);
	store_publish(d->dc->st, d->cpu);
	if (stats)
		stats->events += w.appended;
	return (int)w.appended;
}

int decode_ctx_want_stacks(struct decode_ctx *dc, const char *spec, unsigned int parts)
{
	int n = 0;

	for (unsigned int i = 0; i < dc->nids; i++) {
		struct dtype *t = dc->by_id[i];

		if (!t || t->post == DPOST_STACK || !t->event ||
		    !evspec_match(spec, t->event->system, t->event->name))
			continue;
		t->want |= parts;
		n++;
	}
	return n;
}

void decode_ctx_stack_filter(struct decode_ctx *dc, bool on)
{
	dc->stack_filter = on;
}

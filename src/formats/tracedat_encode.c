// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The store's events back into ring-buffer pages, for the trace.dat writer:
 * each event laid out as its kernel format says (field offsets and sizes from
 * the format text, strings back into their __data_loc tails, symbols back to
 * their addresses from kallsyms), then packed into pages as the kernel packs
 * them (src/rb_page.h): deltas, time extends, length words, and the
 * missed-events flag (with the count when there is room) on the page after a
 * loss.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "intern.h"
#include "rb_page.h"
#include "schema.h"
#include "store.h"
#include "symbols.h"
#include "tracedat.h"
#include "tracedat-local.h"

#define ENC_NTYPES	65536

static void put_int(uint8_t *p, unsigned int size, uint64_t v)
{
	for (unsigned int i = 0; i < size && i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Hex text (how the decoder keeps arrays) back into bytes. Return: bytes. */
static size_t unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (n < max && hexval(s[0]) >= 0 && hexval(s[1]) >= 0) {
		out[n++] = (uint8_t)(hexval(s[0]) << 4 | hexval(s[1]));
		s += 2;
	}
	return n;
}

int tdat_encoder_init(struct tdat_encoder *e, struct tep_handle *tep, struct store *st,
		      const char *kallsyms)
{
	memset(e, 0, sizeof(*e));
	e->tep = tep;
	e->st = st;
	e->sc = store_schema(st);
	e->in = store_strings(st);
	e->ev_of_type = calloc(ENC_NTYPES, sizeof(*e->ev_of_type));
	e->have = calloc(ENC_NTYPES, 1);
	if (!e->ev_of_type || !e->have)
		return -ENOMEM;
	if (kallsyms && *kallsyms)
		e->syms = symbols_parse(kallsyms, strlen(kallsyms), SYMBOLS_BY_NAME);
	return 0;
}

void tdat_encoder_fini(struct tdat_encoder *e)
{
	free(e->ev_of_type);
	free(e->have);
	symbols_free(e->syms);
	memset(e, 0, sizeof(*e));
}

static struct tep_event *encoder_event(struct tdat_encoder *e, uint16_t type)
{
	const struct ktop_schema_type *t;

	if (e->have[type] == 1)
		return e->ev_of_type[type];
	if (e->have[type] == 2)
		return NULL;
	t = schema_get(e->sc, type);
	e->ev_of_type[type] = t ? tep_find_event_by_name(e->tep, t->system, t->name) : NULL;
	e->have[type] = e->ev_of_type[type] ? 1 : 2;
	return e->ev_of_type[type];
}

bool tdat_encodable(struct tdat_encoder *e, uint16_t type)
{
	return encoder_event(e, type) && schema_get(e->sc, type);
}

static void put_common(struct tep_event *tev, uint8_t *rec, const char *name, uint64_t v)
{
	struct tep_format_field *f = tep_find_common_field(tev, name);

	if (f && f->offset + f->size <= TDAT_REC_MAX)
		put_int(rec + f->offset, f->size, v);
}

/* A string argument into its field: fixed char[N], __data_loc/__rel_loc, or hex bytes. */
static int encode_str(struct tdat_encoder *e, const struct tep_format_field *f, uint8_t *rec,
		      int size, uint64_t arg)
{
	const char *s = intern_str(e->in, (uint32_t)arg);
	size_t len = strlen(s);

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t off = size, loc;
		size_t n;

		if (f->flags & TEP_FIELD_IS_STRING) {
			if (size + len + 1 > TDAT_REC_MAX)
				return size;
			memcpy(rec + size, s, len + 1);
			n = len + 1;
		} else {
			n = unhex(s, rec + size, TDAT_REC_MAX - size);
		}
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off -= f->offset + f->size;
		loc = (uint32_t)(n << 16) | (off & 0xffff);
		put_int(rec + f->offset, 4, loc);
		return size + (int)n;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		if (f->size > 0)
			memcpy(rec + f->offset, s, len < (size_t)f->size - 1 ? len : (size_t)f->size - 1);
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		unhex(s, rec + f->offset, f->size);
	}
	return size;
}

int tdat_encode(struct tdat_encoder *e, const struct ktop_event *ev, uint8_t *rec)
{
	const struct ktop_schema_type *t = schema_get(e->sc, ev->type);
	struct tep_event *tev = encoder_event(e, ev->type);
	struct tep_format_field *f;
	int size = 0;

	if (!tev || !t)
		return 0;
	for (f = tev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	for (f = tev->format.fields; f; f = f->next)
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	if (size <= 0 || size > TDAT_REC_MAX / 2)
		return 0;
	memset(rec, 0, size);
	put_common(tev, rec, "common_type", tev->id);
	put_common(tev, rec, "common_flags", ev->flags);
	put_common(tev, rec, "common_preempt_count", ev->pc);
	put_common(tev, rec, "common_pid", (uint32_t)ev->pid);
	for (unsigned int k = 0; k < ev->nargs && k < t->nfields; k++) {
		const char *spec = t->fields[k].name, *br = strchr(spec, '[');
		enum ktop_field_kind kind = t->fields[k].kind;
		unsigned int idx = 0;
		char name[64];

		snprintf(name, sizeof(name), "%.*s", br ? (int)(br - spec) : (int)strlen(spec), spec);
		if (br)
			idx = strtoul(br + 1, NULL, 10);
		f = tep_find_field(tev, name);
		if (!f)
			continue;
		if (br) {
			unsigned int esz = f->elementsize ? f->elementsize :
					   (f->arraylen ? f->size / f->arraylen : 0);

			if (esz && (idx + 1) * esz <= (unsigned int)f->size)
				put_int(rec + f->offset + idx * esz, esz, ev->args[k]);
		} else if (kind == KTOP_FK_STR) {
			size = encode_str(e, f, rec, size, ev->args[k]);
		} else if (kind == KTOP_FK_SYM) {
			put_int(rec + f->offset, f->size,
				symbols_addr(e->syms, intern_str(e->in, (uint32_t)ev->args[k])));
		} else {
			put_int(rec + f->offset, f->size, ev->args[k]);
		}
	}
	return size;
}

/* ---- pages -------------------------------------------------------------------- */

static void pager_close(struct tdat_pager *p)
{
	uint64_t commit = p->used;

	if (!p->open)
		return;
	if (p->missed) {
		commit |= RB_MISSED_EVENTS;
		if (p->missed != UINT64_MAX && p->hdr + p->used + p->long_size <= p->psize) {
			put_int(p->page + p->hdr + p->used, p->long_size, p->missed);
			commit |= RB_MISSED_STORED;
		}
	}
	put_int(p->page + 8, p->long_size, commit);
	if (!p->err)
		p->err = p->emit(p->arg, p->page);
	p->open = false;
	p->missed = 0;
}

static void pager_open(struct tdat_pager *p, uint64_t ts)
{
	memset(p->page, 0, p->psize);
	put_int(p->page, 8, ts);
	p->used = 0;
	p->last_ts = ts;
	p->open = true;
}

int tdat_pager_init(struct tdat_pager *p, size_t psize, unsigned int long_size,
		    int (*emit)(void *arg, const uint8_t *page), void *arg)
{
	memset(p, 0, sizeof(*p));
	p->psize = psize;
	p->long_size = long_size == 4 ? 4 : 8;
	p->hdr = RB_PAGE_HDR(p->long_size);
	p->emit = emit;
	p->arg = arg;
	p->page = malloc(psize);
	return p->page ? 0 : -ENOMEM;
}

void tdat_pager_lost(struct tdat_pager *p, uint64_t ts, uint64_t count)
{
	/* the kernel flags the first page after the loss: start one (or add to it) */
	if (!p->open || p->used) {
		pager_close(p);
		pager_open(p, ts);
	}
	if (!count || p->missed == UINT64_MAX)
		p->missed = UINT64_MAX;		/* some, number unknown */
	else
		p->missed += count;
}

void tdat_pager_add(struct tdat_pager *p, uint64_t ts, const uint8_t *rec, int size)
{
	size_t len = ((size_t)size + 3) & ~(size_t)3, need;
	uint64_t delta;
	uint8_t *w;

	need = RB_EVENT_HDR + len + (len > RB_MAX_SMALL_DATA ? 4 : 0);
	if (!p->open)
		pager_open(p, ts);
	delta = ts - p->last_ts;
	if (delta >= (1ull << RB_TS_SHIFT))
		need += 8;
	/* keep room for a stored missed count */
	if (p->hdr + p->used + need + p->long_size > p->psize) {
		pager_close(p);
		pager_open(p, ts);
		delta = 0;
		need = RB_EVENT_HDR + len + (len > RB_MAX_SMALL_DATA ? 4 : 0);
		if (p->hdr + need > p->psize)
			return;	/* cannot happen for TDAT_REC_MAX/2 records and 4 KiB pages */
	}
	w = p->page + p->hdr + p->used;
	if (delta >= (1ull << RB_TS_SHIFT)) {
		put_int(w, 4, RB_TYPE_TIME_EXTEND |
			(uint32_t)((delta & ((1u << RB_TS_SHIFT) - 1)) << RB_TYPE_BITS));
		put_int(w + 4, 4, delta >> RB_TS_SHIFT);
		w += 8;
		p->used += 8;
		delta = 0;
	}
	if (len <= RB_MAX_SMALL_DATA && len) {
		put_int(w, 4, (uint32_t)(len / 4) | (uint32_t)(delta << RB_TYPE_BITS));
		memcpy(w + 4, rec, size);
		p->used += 4 + len;
	} else {
		put_int(w, 4, (uint32_t)(delta << RB_TYPE_BITS));
		put_int(w + 4, 4, len + 4);
		memcpy(w + 8, rec, size);
		p->used += 8 + len;
	}
	p->last_ts = ts;
}

int tdat_pager_finish(struct tdat_pager *p)
{
	pager_close(p);
	free(p->page);
	p->page = NULL;
	return p->err;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/* Incremental aggregation for the CPU and top panes. No curses here. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/clock.h"
#include "lib/hashmap.h"
#include "lib/intern.h"
#include "stats.h"
#include "store/store.h"
#include "lib/syscalls.h"

#define PID_SLOTS	65536u
/* Live and further behind than this: skip ahead rather than fall behind forever. */
#define BACKLOG_MAX	(4u << 20)
#define CHUNK		2048u

int ui_stats_init(struct ui_stats *s, struct store *st)
{
	memset(s, 0, sizeof(*s));
	s->st = st;
	s->ncpus = store_ncpus(st);
	s->narrow.pid = s->narrow.cpu = -1;
	s->cpu = calloc(s->ncpus, sizeof(*s->cpu));
	s->top_seq = calloc(s->ncpus, sizeof(*s->top_seq));
	s->rescan_end = calloc(s->ncpus, sizeof(*s->rescan_end));
	s->comm_match = calloc(PID_SLOTS, sizeof(*s->comm_match));
	s->comm_pid = calloc(PID_SLOTS, sizeof(*s->comm_pid));
	s->sys = calloc(PID_SLOTS, sizeof(*s->sys));
	s->cap = 1024;
	s->tab = calloc(s->cap, sizeof(*s->tab));
	s->buf = calloc(CHUNK, sizeof(*s->buf));
	if (!s->cpu || !s->top_seq || !s->rescan_end || !s->comm_match || !s->comm_pid ||
	    !s->sys || !s->tab || !s->buf || hmap_reserve(&s->index, s->cap)) {
		ui_stats_destroy(s);
		return -ENOMEM;
	}
	for (unsigned int c = 0; c < s->ncpus; c++) {
		uint64_t first, end;

		store_cpu_range(st, c, &first, &end);
		s->cpu[c].seq = s->top_seq[c] = first;
	}
	s->last_tick_ns = clock_mono_ns();
	return 0;
}

void ui_stats_destroy(struct ui_stats *s)
{
	free(s->cpu);
	free(s->top_seq);
	free(s->rescan_end);
	free(s->comm_match);
	free(s->comm_pid);
	free(s->sys);
	free(s->tab);
	hmap_destroy(&s->index);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* The row of @key, added (zeroed) when new. Return: NULL on ENOMEM. */
static struct ui_top_ent *tab_get(struct ui_stats *s, uint64_t key)
{
	uint64_t *i;
	bool added;

	i = hmap_put(&s->index, key, &added);
	if (!i)
		return NULL;
	if (added) {
		if (s->n == s->cap) {
			struct ui_top_ent *nt = realloc(s->tab, 2 * s->cap * sizeof(*nt));

			if (!nt) {
				hmap_del(&s->index, key, NULL);
				return NULL;
			}
			s->tab = nt;
			s->cap *= 2;
		}
		*i = s->n;
		memset(&s->tab[s->n], 0, sizeof(s->tab[0]));
		s->tab[s->n++].key = key;
	}
	return &s->tab[*i];
}

static void add_dur(struct ui_stats *s, uint64_t key, uint64_t d)
{
	struct ui_top_ent *e = tab_get(s, key);

	if (!e)
		return;
	e->dur_total += d;
	e->dur_n++;
	if (d > e->dur_max)
		e->dur_max = d;
}

static bool narrow_match(struct ui_stats *s, const struct ktop_event *ev)
{
	const struct ui_narrow *n = &s->narrow;
	unsigned int slot;

	if (n->pid >= 0 && ev->pid != n->pid)
		return false;
	if (n->cpu >= 0 && ev->cpu != n->cpu)
		return false;
	if (!n->comm[0])
		return true;
	slot = (uint32_t)ev->pid & (PID_SLOTS - 1);
	if (s->comm_pid[slot] != ev->pid || !s->comm_match[slot]) {
		const char *c = ev->pid ? store_comm(s->st, ev->pid) : "<idle>";

		s->comm_pid[slot] = ev->pid;
		s->comm_match[slot] = c && !strcmp(c, n->comm) ? 2 : 1;
	}
	return s->comm_match[slot] == 2;
}

/* An entry: remember it until its exit. Return: its sub-id (nr, vector). */
static uint32_t span_open(struct ui_open_span *sp, const struct ktop_event *ev)
{
	sp->ts = ev->ts;
	sp->id = (uint32_t)ev->args[0];
	return sp->id;
}

/* An exit: the time since its entry, when one is open, goes to the entry's row. */
static void span_close(struct ui_stats *s, struct ui_open_span *sp, enum ktop_type entry_type,
		       const struct ktop_event *ev)
{
	if (sp->ts && ev->ts >= sp->ts)
		add_dur(s, UI_TOP_KEY(entry_type, sp->id), ev->ts - sp->ts);
	sp->ts = 0;
}

static void top_add(struct ui_stats *s, const struct ktop_event *ev)
{
	struct ui_cpu_stat *cs = &s->cpu[ev->cpu < s->ncpus ? ev->cpu : 0];
	unsigned int slot = (uint32_t)ev->pid & (PID_SLOTS - 1);
	uint32_t sub = 0;
	struct ui_top_ent *e;

	if (!narrow_match(s, ev))
		return;
	switch (ev->type) {
	case KTOP_T_FUNCTION:
	case KTOP_T_FGRAPH_ENTRY:
		sub = (uint32_t)ev->args[0];
		break;
	case KTOP_T_FGRAPH_EXIT:
		if (ev->args[3] >= ev->args[2])
			add_dur(s, UI_TOP_KEY(KTOP_T_FGRAPH_ENTRY, (uint32_t)ev->args[0]),
				ev->args[3] - ev->args[2]);
		return;
	case KTOP_T_SYS_ENTER:
		s->sys[slot].pid = ev->pid;
		sub = span_open(&s->sys[slot].span, ev);
		break;
	case KTOP_T_SYS_EXIT:
		/* the slot's entry is another pid's: not this exit's */
		if (s->sys[slot].pid != ev->pid)
			s->sys[slot].span.ts = 0;
		span_close(s, &s->sys[slot].span, KTOP_T_SYS_ENTER, ev);
		break;
	case KTOP_T_IRQ_HANDLER_ENTRY:
		sub = span_open(&cs->irq, ev);
		break;
	case KTOP_T_IRQ_HANDLER_EXIT:
		span_close(s, &cs->irq, KTOP_T_IRQ_HANDLER_ENTRY, ev);
		break;
	case KTOP_T_SOFTIRQ_ENTRY:
		sub = span_open(&cs->softirq, ev);
		break;
	case KTOP_T_SOFTIRQ_EXIT:
		span_close(s, &cs->softirq, KTOP_T_SOFTIRQ_ENTRY, ev);
		break;
	default:
		break;
	}
	e = tab_get(s, UI_TOP_KEY(ev->type, sub));
	if (e)
		e->count++;
}

static void flags_add(struct ui_cpu_stat *cs, const struct ktop_event *ev)
{
	unsigned int b;

	cs->events++;
	if (!ktop_ctx_recorded(ev->pc)) {
		cs->cur_unrec++;
		return;
	}
	b = ui_flag_bits(ev->flags, ev->pc);
	for (int i = 0; i < UI_FLAG_NR; i++)
		cs->cur[i] += (b >> i) & 1;
	cs->cur_total++;
}

void ui_stats_count(struct ui_stats *s, const struct ktop_event *ev)
{
	top_add(s, ev);
	if (ev->cpu < s->ncpus)
		flags_add(&s->cpu[ev->cpu], ev);
	s->examined++;
}

/* Read events [from, to) of @cpu into s->buf. Return: how many slots (failed reads: type 0). */
static uint32_t read_batch(struct ui_stats *s, unsigned int cpu, uint64_t from, uint64_t to)
{
	return (uint32_t)store_get_range(s->st, cpu, from, to, s->buf);
}

static void lock(pthread_mutex_t *m)
{
	if (m)
		pthread_mutex_lock(m);
}

static void unlock(pthread_mutex_t *m)
{
	if (m)
		pthread_mutex_unlock(m);
}

/*
 * One step for @cpu: reading from the store (the slow part) happens without
 * @m, only the bookkeeping and the counting hold it. A reset of the top view
 * in between (s->gen changes) discards what was read for it.
 * Return: events read.
 */
static uint64_t ingest_cpu(struct ui_stats *s, unsigned int c, pthread_mutex_t *m)
{
	struct ui_cpu_stat *cs = &s->cpu[c];
	uint64_t first, end, from, to, gen;
	bool top_only, rescan;
	uint32_t n;

	lock(m);
	store_cpu_range(s->st, c, &first, &end);
	if (cs->seq < first) {
		cs->skipped += first - cs->seq;
		cs->seq = first;
	}
	if (s->top_seq[c] < first)
		s->top_seq[c] = first;
	rescan = s->top_seq[c] < s->rescan_end[c];
	if (s->live_skip && !rescan && end - cs->seq > BACKLOG_MAX) {
		cs->skipped += end - BACKLOG_MAX / 2 - cs->seq;
		cs->seq = end - BACKLOG_MAX / 2;
		if (s->top_seq[c] < cs->seq)
			s->top_seq[c] = cs->seq;
	}
	/* the top view catching up after a reset comes first */
	top_only = s->top_seq[c] < cs->seq;
	from = top_only ? s->top_seq[c] : cs->seq;
	to = top_only ? cs->seq : end;
	if (to - from > CHUNK)
		to = from + CHUNK;
	gen = s->gen;
	unlock(m);
	if (from >= to)
		return 0;

	n = read_batch(s, c, from, to);

	lock(m);
	if (top_only) {
		if (gen == s->gen && s->top_seq[c] == from) {
			for (uint32_t i = 0; i < n; i++)
				if (s->buf[i].type != KTOP_T_NONE)
					top_add(s, &s->buf[i]);
			s->top_seq[c] = to;
		}
	} else if (cs->seq == from) {
		bool top = gen == s->gen && s->top_seq[c] == from;

		for (uint32_t i = 0; i < n; i++) {
			if (s->buf[i].type == KTOP_T_NONE)
				continue;
			flags_add(cs, &s->buf[i]);
			if (top)
				top_add(s, &s->buf[i]);
		}
		cs->seq = to;
		if (top)
			s->top_seq[c] = to;
		/* each event once: a recount's reads (top_only) are not new */
		s->examined += n;
	}
	unlock(m);
	return n;
}

uint64_t ui_stats_ingest(struct ui_stats *s, uint64_t budget_ns, pthread_mutex_t *m)
{
	uint64_t t0 = clock_mono_ns(), n = 0;
	bool progress = true, over = false;

	while (progress && !over) {
		progress = false;
		for (unsigned int c = 0; c < s->ncpus && !over; c++) {
			uint64_t k = ingest_cpu(s, c, m);

			n += k;
			progress |= k > 0;
			if (budget_ns && clock_mono_ns() - t0 > budget_ns)
				over = true;
			/*
			 * On the helper thread, give the CPU to a reader that is
			 * waiting for it after each step (a few hundred us at
			 * most). The kernel does not take the CPU from this
			 * thread for a reader's wake-up before the next tick
			 * under lazy preemption (4 ms at HZ=250), and at -b 256
			 * the ring buffer fills in less than that.
			 */
			if (m && k)
				sched_yield();
		}
	}
	lock(m);
	s->rescanning = false;
	for (unsigned int c = 0; c < s->ncpus; c++)
		if (s->top_seq[c] < s->rescan_end[c])
			s->rescanning = true;
	s->last_ingest_ns = clock_mono_ns() - t0;
	unlock(m);
	return n;
}

bool ui_stats_behind(struct ui_stats *s)
{
	for (unsigned int c = 0; c < s->ncpus; c++) {
		uint64_t first, end;

		store_cpu_range(s->st, c, &first, &end);
		if (s->cpu[c].seq < end || s->top_seq[c] < s->cpu[c].seq)
			return true;
	}
	return false;
}

void ui_stats_tick(struct ui_stats *s, uint64_t now_ns)
{
	double dt = (double)(now_ns - s->last_tick_ns) / 1e9;
	double span = (double)s->span_ns / 1e9;

	if (dt <= 0)
		return;
	for (unsigned int c = 0; c < s->ncpus; c++) {
		struct ui_cpu_stat *cs = &s->cpu[c];
		struct store_stats ss;

		store_get_cpu_stats(s->st, c, &ss);
		if (s->span_ns)
			cs->rate = (double)(s->fed ? cs->events : ss.appended) / span;
		else if (s->fed)
			cs->rate = (double)(cs->events - cs->events_prev) / dt;
		else if (s->last_tick_ns && ss.appended >= cs->appended_prev)
			cs->rate = (double)(ss.appended - cs->appended_prev) / dt;
		cs->events_prev = cs->events;
		cs->appended_prev = ss.appended;
		cs->lost = ss.lost;
		if (cs->cur_total || cs->cur_unrec) {
			memcpy(cs->shown, cs->cur, sizeof(cs->shown));
			cs->shown_total = cs->cur_total;
			cs->shown_unrec = cs->cur_unrec;
			memset(cs->cur, 0, sizeof(cs->cur));
			cs->cur_total = cs->cur_unrec = 0;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ui_top_ent *e = &s->tab[i];

		e->rate = s->span_ns ? (double)e->count / span :
			  (double)(e->count - e->count_prev) / dt;
		e->count_prev = e->count;
	}
	s->rates_valid = !s->rescanning;
	s->last_tick_ns = now_ns;
}

void ui_stats_reset_top(struct ui_stats *s)
{
	hmap_clear(&s->index);
	s->n = 0;
	memset(s->comm_match, 0, PID_SLOTS * sizeof(*s->comm_match));
	memset(s->sys, 0, PID_SLOTS * sizeof(*s->sys));
	for (unsigned int c = 0; c < s->ncpus; c++) {
		uint64_t first, end;

		store_cpu_range(s->st, c, &first, &end);
		s->top_seq[c] = first;
		s->rescan_end[c] = s->cpu[c].seq;
		s->cpu[c].irq.ts = s->cpu[c].softirq.ts = 0;
	}
	s->rescanning = true;
	s->rates_valid = false;
	s->gen++;
}

void ui_stats_set_narrow(struct ui_stats *s, const struct ui_narrow *n)
{
	s->narrow = *n;
	ui_stats_reset_top(s);
}

const char *ui_top_name(struct ui_stats *s, uint64_t key, char *buf, size_t len)
{
	uint16_t type = UI_TOP_TYPE(key);
	uint32_t sub = UI_TOP_SUB(key);
	const char *name = ui_event_name(s->st, type);

	switch (type) {
	case KTOP_T_FUNCTION:
	case KTOP_T_FGRAPH_ENTRY:
		snprintf(buf, len, "%s", intern_str(store_strings(s->st), sub));
		break;
	case KTOP_T_SYS_ENTER:
		/* the name where this architecture has one; the event list keeps the number */
		if (syscall_name(sub))
			snprintf(buf, len, "%s %s", name, syscall_name(sub));
		else
			snprintf(buf, len, "%s id=%d", name, (int32_t)sub);
		break;
	case KTOP_T_IRQ_HANDLER_ENTRY:
		snprintf(buf, len, "%s irq=%d", name, (int32_t)sub);
		break;
	case KTOP_T_SOFTIRQ_ENTRY:
		snprintf(buf, len, "%s %s", name, ui_softirq_name(sub));
		break;
	default:
		snprintf(buf, len, "%s", name);
		break;
	}
	return buf;
}

const char *ui_sort_name(enum ui_sort k)
{
	static const char *const names[UI_SORT_NR] = {
		[UI_SORT_COUNT] = "count", [UI_SORT_RATE] = "rate", [UI_SORT_TOTAL] = "total",
		[UI_SORT_AVG] = "avg", [UI_SORT_MAX] = "max", [UI_SORT_NAME] = "name",
	};

	return (unsigned int)k < UI_SORT_NR ? names[k] : "?";
}

struct sort_ctx {
	struct ui_stats	*s;
	enum ui_sort	key;
};

static double sort_val(const struct ui_top_ent *e, enum ui_sort k)
{
	switch (k) {
	case UI_SORT_RATE:
		return e->rate;
	case UI_SORT_TOTAL:
		return (double)e->dur_total;
	case UI_SORT_AVG:
		return e->dur_n ? (double)e->dur_total / (double)e->dur_n : 0;
	case UI_SORT_MAX:
		return (double)e->dur_max;
	default:
		return (double)e->count;
	}
}

static int sort_cmp(const void *a, const void *b, void *arg)
{
	const struct ui_top_ent *x = *(const struct ui_top_ent *const *)a;
	const struct ui_top_ent *y = *(const struct ui_top_ent *const *)b;
	const struct sort_ctx *ctx = arg;
	double vx, vy;

	if (ctx->key == UI_SORT_NAME) {
		char bx[128], by[128];

		return strcmp(ui_top_name(ctx->s, x->key, bx, sizeof(bx)),
			      ui_top_name(ctx->s, y->key, by, sizeof(by)));
	}
	vx = sort_val(x, ctx->key);
	vy = sort_val(y, ctx->key);
	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->key < y->key ? -1 : (x->key > y->key);
}

size_t ui_stats_sorted(struct ui_stats *s, enum ui_sort key, const struct ui_top_ent **out,
		       size_t max)
{
	const struct ui_top_ent **all;
	struct sort_ctx ctx = { s, key };
	size_t n = 0;

	all = malloc((s->n + 1) * sizeof(*all));
	if (!all)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->tab[i].count)
			all[n++] = &s->tab[i];
	qsort_r(all, n, sizeof(*all), sort_cmp, &ctx);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

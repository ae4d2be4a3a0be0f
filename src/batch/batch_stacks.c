// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Top stacks" and "Off-CPU stacks" of --batch/--json (batch_stacks.h).
 *
 * The events of an interval are read once, per CPU from the sequence number
 * the previous summary stopped at, and only when the store has stacks at
 * all: a session without stacks pays one look at the table's size.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "batch-local.h"
#include "batch_stacks.h"
#include "bpfstats/bpf_offcpu.h"
#include "ingest/consumer.h"
#include "lib/hashmap.h"
#include "lib/intern.h"
#include "lib/jsonw.h"
#include "store/schema.h"
#include "kernel/session.h"
#include "store/stacks.h"
#include "model/stacktree.h"
#include "store/store.h"
#include "view/viewfilter.h"

#define TOP_TEXT	10
#define TOP_JSON	50
#define TEXT_FRAMES	12	/* frames on a text line; JSON has them all */
#define READ_BATCH	1024

struct skey {
	uint64_t	key;		/* type << 32 | stack */
	uint64_t	count;
};

struct batch_stacks {
	struct app		*a;
	unsigned int		ncpus;
	uint64_t		*next;		/* per CPU: the next seq to read */
	struct ktop_event	*evs;
	struct hmap		counts;		/* this interval's, by type << 32 | stack */
	struct skey		*top;		/* the same, sorted by top_sorted() */
	uint64_t		with, without;	/* events of stacked types this interval */
	uint64_t		with_total;
	/* from the readers (live): stack records tied and dropped so far */
	uint64_t		tied, dropped;
	uint64_t		cut, cut_seen;	/* stop-cut stacks: this interval, so far */
	uint8_t			stacked[65536 / 8];	/* types seen with a stack */
	struct stack_set	off;		/* off-CPU totals, by stack */
	bool			offline_off;	/* off: from a snapshot */
	bool			any;		/* a section to print */
};

struct batch_stacks *batch_stacks_new(struct app *a)
{
	struct batch_stacks *bs = calloc(1, sizeof(*bs));

	if (!bs)
		return NULL;
	bs->a = a;
	bs->ncpus = store_ncpus(a->st);
	bs->next = calloc(bs->ncpus, sizeof(*bs->next));
	bs->evs = malloc(READ_BATCH * sizeof(*bs->evs));
	if (!bs->next || !bs->evs) {
		batch_stacks_free(bs);
		return NULL;
	}
	bs->any = a->opts.so.nstacks || a->opts.offcpu;
	return bs;
}

void batch_stacks_free(struct batch_stacks *bs)
{
	if (!bs)
		return;
	free(bs->next);
	free(bs->evs);
	hmap_destroy(&bs->counts);
	free(bs->top);
	stack_set_free(&bs->off);
	free(bs);
}

static void scan_cpu(struct batch_stacks *bs, struct store *st, unsigned int cpu)
{
	struct viewfilter *vf = app_view(bs->a);
	uint64_t first, end, seq;

	store_cpu_range(st, cpu, &first, &end);
	seq = bs->next[cpu] < first ? first : bs->next[cpu];
	while (seq < end) {
		uint64_t to = end - seq > READ_BATCH ? seq + READ_BATCH : end;
		size_t n = store_get_range(st, cpu, seq, to, bs->evs);

		for (size_t i = 0; i < n; i++) {
			const struct ktop_event *ev = &bs->evs[i];

			if (vf && !viewfilter_match(vf, ev))
				continue;	/* --view: the summary counts what it shows */
			if (ev->stack) {
				bs->stacked[ev->type / 8] |= 1u << (ev->type % 8);
				uint64_t *c = hmap_put(&bs->counts,
						       (uint64_t)ev->type << 32 | ev->stack, NULL);

				if (c)
					(*c)++;
				bs->with++;
			} else if (bs->stacked[ev->type / 8] & (1u << (ev->type % 8))) {
				bs->without++;
			}
		}
		if (!n)
			break;
		seq += n;
	}
	bs->next[cpu] = end;
}

/*
 * What the readers counted of stacks: the records tied and dropped, and the
 * events of this interval whose stack a stop of tracing cut off
 * (decoder_flush(): in a CPU's last event).
 */
static void reader_counts(struct batch_stacks *bs)
{
	uint64_t cut = 0;

	if (!app_consumer(bs->a))
		return;
	bs->tied = bs->dropped = 0;
	for (unsigned int cpu = 0; cpu < bs->ncpus; cpu++) {
		struct consumer_cpu_stats cs;

		consumer_get_stats(app_consumer(bs->a), cpu, &cs);
		bs->tied += cs.stacks;
		bs->dropped += cs.stack_dropped;
		cut += cs.stack_cut;
	}
	bs->cut = cut - bs->cut_seen;
	bs->cut_seen = cut;
}

void batch_stacks_update(struct batch_stacks *bs)
{
	struct store *st;

	if (!bs)
		return;
	st = bs->a->st;
	hmap_clear(&bs->counts);
	bs->with = bs->without = 0;
	for (unsigned int cpu = 0; cpu < bs->ncpus; cpu++) {
		if (!stacks_count(store_stacks(st))) {
			/* nothing to look for yet: skip what is there */
			uint64_t first;

			store_cpu_range(st, cpu, &first, &bs->next[cpu]);
			continue;
		}
		scan_cpu(bs, st, cpu);
	}
	bs->with_total += bs->with;
	bs->any |= bs->with > 0;
	reader_counts(bs);
	/* live, polled now; from a snapshot, what it carries */
	if ((app_offcpu(bs->a) && !app_offcpu_poll(bs->a)) ||
	    (!(app_flags(bs->a) & SOURCE_KERNEL) && stacks_weights_get(store_stacks(st), STACKS_W_OFFCPU, NULL, 0, NULL))) {
		struct stack_query q;

		/* --view: the totals of its tasks (they are by task, not events) */
		stack_query_all(&q);
		viewfilter_stack_query(app_view(bs->a), &q);
		stack_set_free(&bs->off);
		if (!stack_set_from_offcpu(st, true, &q, &bs->off))
			stack_set_merge(st, &bs->off, true, true);
		bs->offline_off = !app_offcpu(bs->a);
		bs->any = true;
	}
}

static int skey_cmp(const void *x, const void *y)
{
	const struct skey *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/*
 * One row per event type and distinct list of frames (two stacks that differ
 * only in addresses within the same functions are one: stack_set_merge()).
 * Return: the rows left in bs->top (@n unchanged when out of memory).
 */
static size_t top_merge(struct batch_stacks *bs, size_t n)
{
	struct stack_set set = { .n = n };

	set.v = malloc((n ? n : 1) * sizeof(*set.v));
	if (!set.v)
		return n;
	for (size_t i = 0; i < n; i++)
		set.v[i] = (struct stack_weight){ .stack = (uint32_t)bs->top[i].key,
						  .pid = (int32_t)(bs->top[i].key >> 32),
						  .count = bs->top[i].count };
	/* the event type rides in pid: rows of different types stay apart */
	if (!stack_set_merge(bs->a->st, &set, true, false)) {
		for (size_t i = 0; i < set.n; i++)
			bs->top[i] = (struct skey){ (uint64_t)(uint32_t)set.v[i].pid << 32 |
						    set.v[i].stack, set.v[i].count };
		n = set.n;
	}
	stack_set_free(&set);
	return n;
}

/* The interval's counts in bs->top, by count. Return: how many (0 when out of memory). */
static size_t top_sorted(struct batch_stacks *bs)
{
	size_t n = 0, pos = 0;
	struct skey *top;

	top = realloc(bs->top, (hmap_count(&bs->counts) + 1) * sizeof(*top));
	if (!top)
		return 0;
	bs->top = top;
	while (hmap_next(&bs->counts, &pos, &top[n].key, &top[n].count))
		n++;
	qsort(top, n, sizeof(*top), skey_cmp);
	return top_merge(bs, n);
}

/*
 * What both reports start with: the store, and the interval's counts sorted
 * in bs->top (*@n of them). Return: NULL when the run records no stacks.
 */
static struct store *top_prepare(struct batch_stacks *bs, size_t *n)
{
	if (!bs || !bs->any)
		return NULL;
	*n = top_sorted(bs);
	return bs->a->st;
}

static const char *type_name(struct store *st, uint16_t type, char *buf, size_t len)
{
	const struct ktop_schema_type *t = schema_get(store_schema(st), type);

	if (!t)
		snprintf(buf, len, "type %u", type);
	else
		snprintf(buf, len, "%s:%s", t->system, t->name);
	return buf;
}

/*
 * The frames of a stack on one line, leaf first. The text skips the frames
 * of the tracing code itself at the leaf (the stack is walked from inside
 * the tracepoint: stacks_shown_names()); JSON keeps every frame.
 */
static void text_frames(struct store *st, uint32_t id, FILE *o)
{
	uint32_t names[TEXT_FRAMES];
	int n = stacks_shown_names(store_stacks(st), id, names, TEXT_FRAMES, NULL);

	for (int k = 0; k < n && k < TEXT_FRAMES; k++) {
		const char *s = names[k] ? intern_str(store_strings(st), names[k]) : "";

		fprintf(o, "%s%s", k ? " <- " : "", s[0] ? s : "[unknown]");
	}
	if (n > TEXT_FRAMES)
		fprintf(o, " <- ... (%d more)", n - TEXT_FRAMES);
}

static void json_frames(struct store *st, uint32_t id, struct jsonw *w)
{
	struct stacks *sk = store_stacks(st);
	struct stack_frame f;

	jsonw_arr_open(w);
	for (unsigned int i = 0; !stacks_frame(sk, id, i, &f); i++)
		jsonw_str(w, f.name);
	jsonw_arr_close(w);
}

void batch_stacks_text(struct batch_stacks *bs, FILE *o)
{
	struct store *st;
	char name[160];
	size_t n;

	st = top_prepare(bs, &n);
	if (!st)
		return;
	fprintf(o, "Top stacks (this interval: %" PRIu64 " events with a stack, %" PRIu64
		" without; frames leaf first)\n", bs->with, bs->without);
	if (app_session(bs->a) && session_stack_note(app_session(bs->a))[0])
		fprintf(o, "  (%s)\n", session_stack_note(app_session(bs->a)));
	if (bs->cut)
		fprintf(o, "  (%" PRIu64 " the last event of a CPU: tracing stopped between it and "
			"its stack, which the kernel then no longer wrote)\n", bs->cut);
	fprintf(o, "%10s  %-24s %s\n", "COUNT", "EVENT", "STACK");
	for (size_t i = 0; i < n && i < TOP_TEXT; i++) {
		fprintf(o, "%10" PRIu64 "  %-24s ", bs->top[i].count,
			type_name(st, (uint16_t)(bs->top[i].key >> 32), name, sizeof(name)));
		text_frames(st, (uint32_t)bs->top[i].key, o);
		fputc('\n', o);
	}
	if (!n)
		fprintf(o, "%10s  (none this interval)\n", "-");
	fputc('\n', o);
	if (!bs->a->opts.offcpu && !bs->offline_off)
		return;
	if (!app_offcpu(bs->a) && !bs->offline_off) {
		fprintf(o, "Off-CPU stacks: %s\n\n", app_offcpu_why(bs->a));
		return;
	}
	fprintf(o, "Off-CPU stacks (BPF, since start: %" PRIu64 " ms off CPU in %zu places",
		bs->off.value / 1000000, bs->off.n);
	if (app_offcpu(bs->a)) {
		struct bpf_offcpu_stats os;

		bpf_offcpu_last(app_offcpu(bs->a), &os);
		if (os.lost_stacks)
			fprintf(o, "; %" PRIu64 " places, %" PRIu64 " ms, lost their stack: the "
				"stack map was full or collided", os.lost_stacks,
				os.lost_ns / 1000000);
	}
	fputs(")\n", o);
	fprintf(o, "%10s %8s %8s  %-16s %s\n", "MS", "SWITCHES", "PID", "COMM", "STACK");
	for (size_t i = 0; i < bs->off.n && i < TOP_TEXT; i++) {
		const struct stack_weight *w = &bs->off.v[i];
		const char *comm = store_comm(st, w->pid);

		fprintf(o, "%10.1f %8" PRIu64 " %8d  %-16s ", (double)w->value / 1e6, w->count,
			w->pid, comm ? comm : "-");
		text_frames(st, w->stack, o);
		fputc('\n', o);
	}
	fputc('\n', o);
}

static void json_offcpu(struct batch_stacks *bs, struct store *st, struct jsonw *w)
{
	jsonw_obj_open(w);
	if (!app_offcpu(bs->a) && !bs->offline_off) {
		jsonw_key(w, "error");
		jsonw_str(w, app_offcpu_why(bs->a));
		jsonw_obj_close(w);
		return;
	}
	jsonw_key(w, "ns_total");
	jsonw_u64(w, bs->off.value);
	jsonw_key(w, "switches_total");
	jsonw_u64(w, bs->off.count);
	if (app_offcpu(bs->a)) {
		struct bpf_offcpu_stats os;

		bpf_offcpu_last(app_offcpu(bs->a), &os);
		jsonw_key(w, "lost_stacks");
		jsonw_u64(w, os.lost_stacks);
		jsonw_key(w, "lost_stack_ns");
		jsonw_u64(w, os.lost_ns);
	}
	jsonw_key(w, "top");
	jsonw_arr_open(w);
	for (size_t i = 0; i < bs->off.n && i < TOP_JSON; i++) {
		const struct stack_weight *e = &bs->off.v[i];
		const char *comm = store_comm(st, e->pid);

		jsonw_obj_open(w);
		jsonw_key(w, "pid");
		jsonw_i64(w, e->pid);
		jsonw_key(w, "comm");
		jsonw_str(w, comm ? comm : "");
		jsonw_key(w, "ns");
		jsonw_u64(w, e->value);
		jsonw_key(w, "switches");
		jsonw_u64(w, e->count);
		jsonw_key(w, "stack");
		json_frames(st, e->stack, w);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

void batch_stacks_json(struct batch_stacks *bs, FILE *o)
{
	struct stacks_stats ss;
	struct store *st;
	struct jsonw w;
	char name[160];
	size_t n;

	st = top_prepare(bs, &n);
	if (!st)
		return;
	stacks_get_stats(store_stacks(st), &ss);
	jsonw_init_buf(&w);
	jsonw_obj_open(&w);
	jsonw_key(&w, "events_with_stack");
	jsonw_u64(&w, bs->with);
	jsonw_key(&w, "events_without_stack");
	jsonw_u64(&w, bs->without);
	jsonw_key(&w, "events_cut_by_stop");
	jsonw_u64(&w, bs->cut);
	jsonw_key(&w, "events_with_stack_total");
	jsonw_u64(&w, bs->with_total);
	jsonw_key(&w, "distinct");
	jsonw_u64(&w, ss.stacks);
	jsonw_key(&w, "table_bytes");
	jsonw_u64(&w, ss.bytes);
	jsonw_key(&w, "dropped");
	jsonw_u64(&w, ss.dropped);
	jsonw_key(&w, "note");
	jsonw_str(&w, app_session(bs->a) ? session_stack_note(app_session(bs->a)) : "");
	if (app_consumer(bs->a)) {
		jsonw_key(&w, "records_tied");
		jsonw_u64(&w, bs->tied);
		jsonw_key(&w, "records_dropped");
		jsonw_u64(&w, bs->dropped);
	}
	jsonw_key(&w, "top");
	jsonw_arr_open(&w);
	for (size_t i = 0; i < n && i < TOP_JSON; i++) {
		jsonw_obj_open(&w);
		jsonw_key(&w, "event");
		jsonw_str(&w, type_name(st, (uint16_t)(bs->top[i].key >> 32), name, sizeof(name)));
		jsonw_key(&w, "count");
		jsonw_u64(&w, bs->top[i].count);
		jsonw_key(&w, "stack");
		json_frames(st, (uint32_t)bs->top[i].key, &w);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	batch_json_member(o, "stacks", &w);
	if (!bs->a->opts.offcpu && !bs->offline_off)
		return;
	jsonw_init_buf(&w);
	json_offcpu(bs, st, &w);
	batch_json_member(o, "offcpu", &w);
}

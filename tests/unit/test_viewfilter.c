// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * View filters on stores filled from the recorded fixtures (tests/fixtures):
 *
 *  - field expressions against libtraceevent's own filter (tep_filter_*) on
 *    the same raw records, record by record, and against the kernel's text
 *    (trace.txt) for sched_switch states and names;
 *  - every clause kind, alone and combined, against an event-by-event
 *    evaluation written here (store_iter over every event), on stores that
 *    replay a fixture many times with the tasks changed per round, so that
 *    chunks differ in what their dictionaries hold: the index (which decides
 *    chunks from their dictionaries) must give the same events, in the same
 *    order, from both ends and from any position, the same counts and the
 *    same count_by tallies;
 *  - widening back, incremental updates as events arrive, eviction;
 *  - children from fork events;
 *  - errors with the offset of the bad token.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <traceevent/event-parse.h>

#include "ingest/decode.h"
#include "lib/err.h"
#include "lib/globmatch.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "lib/hashmap.h"
#include "store/schema.h"
#include "store/store.h"
#include "model/taskrel.h"
#include "test.h"
#include "view/viewfilter.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define REPS 8	/* rounds 4-7 hold whole chunks of other tasks */
#else
#define REPS 24
#endif

struct fx {
	struct fixture	*fx;
	struct store	*st;
};

static bool fx_open(struct fx *f, const char *name, size_t mem)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	f->fx = fixture_open(dir);
	f->st = f->fx ? store_new(mem, fixture_ncpus(f->fx)) : NULL;
	if (!f->st || fixture_decode(f->fx, f->st, NULL)) {
		printf("# cannot load fixture %s\n", dir);
		return false;
	}
	return true;
}

static void fx_close(struct fx *f)
{
	store_free(f->st);
	fixture_close(f->fx);
}

/*
 * A bigger store: @src's events replayed @reps times (more for a small
 * fixture), shifted in time; in every other group of G rounds (G: 4, or
 * enough rounds for two chunks per CPU) every pid and pid argument is moved
 * up by 100000 * (round / G), so that those rounds' chunks hold other tasks:
 * rounds G..2G-1 have the tasks of round 0 plus 100000. Strings are
 * interned again in the copy. Return: the copy.
 */
static struct store *replay(struct store *src, int reps, size_t mem)
{
	unsigned int ncpus = store_ncpus(src);
	struct store *dst = store_new(mem, ncpus);
	const struct schema *sc = store_schema(src);
	struct store_stats ss;
	uint64_t span;
	int group;

	if (!dst)
		return NULL;
	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(sc); id++) {
		const struct ktop_schema_type *t = schema_get(sc, (uint16_t)id);

		if (t)
			schema_add(store_schema(dst), t->system, t->name, t->nfields, t->fields);
	}
	store_get_stats(src, &ss);
	span = ss.last_ts - ss.first_ts + 1000;
	group = (int)((2ull * STORE_CHUNK_EVENTS * ncpus + ss.events - 1) / (ss.events + 1));
	group = group < 4 ? 4 : group;
	reps = reps < 4 * group ? 4 * group : reps;
	for (int r = 0; r < reps; r++) {
		int32_t shift = (r / group) % 2 ? 100000 * (r / group) : 0;

		for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
			uint64_t first, end;

			store_cpu_range(src, cpu, &first, &end);
			for (uint64_t q = first; q < end; q++) {
				const struct ktop_schema_type *t;
				struct ktop_event ev;

				if (store_get(src, cpu, q, &ev))
					continue;
				t = schema_get(sc, ev.type);
				ev.ts += (uint64_t)r * span;
				for (unsigned int k = 0; t && k < ev.nargs && k < t->nfields; k++) {
					const char *fn = t->fields[k].name;

					if (t->fields[k].kind == KTOP_FK_STR ||
					    t->fields[k].kind == KTOP_FK_SYM) {
						const char *s = intern_str(store_strings(src),
									   (uint32_t)ev.args[k]);

						ev.args[k] = intern_id(store_strings(dst), s, strlen(s));
					} else if (shift && strstr(fn, "pid") && ev.args[k]) {
						ev.args[k] += shift;
					}
				}
				if (ev.pid && shift) {
					const char *c = store_comm(src, ev.pid);

					ev.pid += shift;
					if (c)
						store_set_comm(dst, ev.pid, c, 0);
				} else if (ev.pid && store_comm(src, ev.pid)) {
					store_set_comm(dst, ev.pid, store_comm(src, ev.pid), 0);
				}
				if (store_append(dst, &ev)) {
					store_free(dst);
					return NULL;
				}
			}
			store_publish(dst, cpu);
		}
	}
	return dst;
}

/* ---- reference: event by event --------------------------------------------------- */

typedef bool (*ref_fn)(struct store *st, const struct ktop_event *ev, const void *arg);

struct hit {
	uint64_t	ts, seq;
	uint32_t	cpu;
};

/* Every matching event in time order (ts, cpu, seq). Return: how many; *@out: free it. */
static size_t ref_list(struct store *st, ref_fn fn, const void *arg, struct hit **out,
		       uint64_t *total)
{
	struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
	size_t n = 0, cap = 1024;
	struct hit *v = malloc(cap * sizeof(*v));
	struct ktop_event ev;
	uint64_t seq;

	*total = 0;
	while (it && v && store_iter_next(it, &ev, &seq)) {
		++*total;
		if (!fn(st, &ev, arg))
			continue;
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		if (v)
			v[n++] = (struct hit){ .ts = ev.ts, .seq = seq, .cpu = ev.cpu };
	}
	store_iter_free(it);
	*out = v;
	return n;
}

static int hit_cmp(const struct hit *h, const struct ktop_event *ev, uint64_t seq)
{
	return h->ts == ev->ts && h->cpu == ev->cpu && h->seq == seq ? 0 : 1;
}

static char fail_msg[512];

/* Everything the filter answers, against the reference. Return: 0, or a failing check's line. */
static int check_against(struct store *st, struct viewfilter *vf, ref_fn fn, const void *arg)
{
	struct viewfilter_counts vc;
	struct viewfilter_walk *w;
	struct ktop_event *page;
	struct hit *ref;
	uint64_t total, seq, seqs[100];
	size_t n = ref_list(st, fn, arg, &ref, &total), k, got;
	struct ktop_event ev;
	int line = 0;

	page = malloc(100 * sizeof(*page));
	if (!ref || !page)
		return __LINE__;
	/* the first page, before any full pass: from the newest end and from the oldest */
	got = viewfilter_page(vf, &VIEWFILTER_POS_END, -1, false, page, seqs, 100);
	if (got != (n < 100 ? n : 100)) {
		line = __LINE__;
		goto out;
	}
	for (k = 0; k < got; k++)
		if (hit_cmp(&ref[n - got + k], &page[k], seqs[k])) {
			line = __LINE__;
			goto out;
		}
	got = viewfilter_page(vf, &VIEWFILTER_POS_START, 1, true, page, seqs, 100);
	for (k = 0; k < got; k++)
		if (k >= n || hit_cmp(&ref[k], &page[k], seqs[k])) {
			line = __LINE__;
			goto out;
		}
	/* counts */
	viewfilter_update(vf, 0);
	viewfilter_counts(vf, &vc);
	if (vc.matched != n || vc.held != total || vc.evaluated != total) {
		snprintf(fail_msg, sizeof(fail_msg), "matched %llu held %llu evaluated %llu, "
			 "reference %zu of %llu", (unsigned long long)vc.matched,
			 (unsigned long long)vc.held, (unsigned long long)vc.evaluated, n,
			 (unsigned long long)total);
		line = __LINE__;
		goto out;
	}
	/* the whole walk, forwards */
	w = viewfilter_walk_new(vf, &VIEWFILTER_POS_START, 1, true);
	for (k = 0; w && viewfilter_walk_next(w, &ev, &seq); k++)
		if (k >= n || hit_cmp(&ref[k], &ev, seq))
			break;
	viewfilter_walk_free(w);
	if (k != n) {
		snprintf(fail_msg, sizeof(fail_msg), "forward walk differs at %zu of %zu", k, n);
		line = __LINE__;
		goto out;
	}
	/* backwards from the newest */
	w = viewfilter_walk_new(vf, &VIEWFILTER_POS_END, -1, false);
	for (k = n; w && k > 0 && viewfilter_walk_next(w, &ev, &seq); k--)
		if (hit_cmp(&ref[k - 1], &ev, seq))
			break;
	viewfilter_walk_free(w);
	if (k) {
		snprintf(fail_msg, sizeof(fail_msg), "backward walk differs at %zu of %zu", k, n);
		line = __LINE__;
		goto out;
	}
	/* and from the middle, both ways, with and without the event itself */
	if (n) {
		const struct hit *m = &ref[n / 2];
		struct viewfilter_pos pos = { .ts = m->ts, .seq = m->seq, .cpu = m->cpu };

		w = viewfilter_walk_new(vf, &pos, -1, false);
		for (k = n / 2; w && k > 0 && viewfilter_walk_next(w, &ev, &seq); k--)
			if (hit_cmp(&ref[k - 1], &ev, seq))
				break;
		if (!w || k != 0 || viewfilter_walk_next(w, &ev, &seq))
			line = __LINE__;
		viewfilter_walk_free(w);
		w = viewfilter_walk_new(vf, &pos, 1, true);
		if (!w || !viewfilter_walk_next(w, &ev, &seq) || hit_cmp(m, &ev, seq))
			line = __LINE__;
		viewfilter_walk_free(w);
	}
out:
	free(ref);
	free(page);
	return line;
}

/* count_by under the filter against the reference's tallies. Return: 0 or a line. */
static int check_count_by(struct store *st, struct viewfilter *vf, ref_fn fn, const void *arg)
{
	static const enum store_key keys[] = { STORE_KEY_TYPE, STORE_KEY_PID, STORE_KEY_CPU };
	struct store_count out[512];
	struct hmap want[3] = { { 0 } };
	struct hit *ref;
	uint64_t total;
	size_t n = ref_list(st, fn, arg, &ref, &total);
	int line = 0;

	for (size_t j = 0; j < n; j++) {
		struct ktop_event ev;

		if (store_get(st, ref[j].cpu, ref[j].seq, &ev))
			return __LINE__;
		++*hmap_put(&want[0], ev.type, NULL);
		++*hmap_put(&want[1], (uint64_t)(int64_t)ev.pid, NULL);
		++*hmap_put(&want[2], ev.cpu, NULL);
	}
	for (size_t k = 0; k < 3 && !line; k++) {
		size_t nk = viewfilter_count_by(vf, keys[k], -1, 0, UINT64_MAX, out, 512);
		uint64_t sum = 0;

		if (nk != hmap_count(&want[k]))
			line = __LINE__;
		for (size_t i = 0; i < nk && i < 512 && !line; i++) {
			uint64_t *w = hmap_get(&want[k], out[i].key);

			sum += out[i].count;
			if (!w || *w != out[i].count)
				line = __LINE__;
		}
		if (!line && nk <= 512 && sum != n)
			line = __LINE__;
	}
	for (size_t k = 0; k < 3; k++)
		hmap_destroy(&want[k]);
	free(ref);
	return line;
}

/* ---- reference predicates ---------------------------------------------------------- */

struct pidset {
	const int32_t	*pids;
	size_t		n;
};

static bool ref_pids(struct store *st, const struct ktop_event *ev, const void *arg)
{
	const struct pidset *p = arg;

	for (size_t i = 0; i < p->n; i++)
		if (ev->pid == p->pids[i])
			return true;
	return false;
}

static bool ref_cpu1(struct store *st, const struct ktop_event *ev, const void *arg)
{
	return ev->cpu == 1;
}

static bool ref_not_syscalls(struct store *st, const struct ktop_event *ev, const void *arg)
{
	return ev->type != KTOP_T_SYS_ENTER && ev->type != KTOP_T_SYS_EXIT;
}

static bool ref_comm_glob(struct store *st, const struct ktop_event *ev, const void *arg)
{
	const char *c = ev->pid ? store_comm(st, ev->pid) : "<idle>";

	return glob_match(arg, c ? c : "<...>");
}

/* prev_state & 2 || (next_comm ~ "kworker*" && prev_prio < 120) */
static bool ref_expr1(struct store *st, const struct ktop_event *ev, const void *arg)
{
	if (ev->type != KTOP_T_SCHED_SWITCH)
		return false;
	return (ev->args[3] & 2) ||
	       (glob_match("kworker*", intern_str(store_strings(st), (uint32_t)ev->args[4])) &&
		(int64_t)ev->args[2] < 120);
}

/* cpu:0 && !event:raw_syscalls:* && comm:*sh* */
static bool ref_combo(struct store *st, const struct ktop_event *ev, const void *arg)
{
	return ev->cpu == 0 && ref_not_syscalls(st, ev, NULL) && ref_comm_glob(st, ev, "*sh*");
}

static uint64_t chunks_by_dict(struct viewfilter *vf)
{
	struct viewfilter_counts vc;

	viewfilter_counts(vf, &vc);
	return vc.by_dict;
}

/* the busiest task of @st but the idle tasks (pid 0 is in every chunk) */
static int32_t busiest_pid(struct store *st)
{
	struct store_count c[2];

	store_count_by(st, STORE_KEY_PID, NULL, c, 2);
	return (int32_t)(c[0].key ? c[0].key : c[1].key);
}

#define CHECK_OK(expr)							\
	do {								\
		int _l = (expr);					\
		if (_l) {						\
			printf("FAIL %s:%d: %s (test line %d) %s\n", __FILE__, __LINE__, \
			       #expr, _l, fail_msg);			\
			test_failed_now = 1;				\
			fail_msg[0] = 0;				\
			return;						\
		}							\
	} while (0)

/* Each clause kind and combinations on replayed stores, with and without '!'. */
TEST(viewfilter_clauses_match_event_by_event)
{
	static const char *const names[] = { "host-sched", "host-overrun", "rt-sched-irq" };

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		struct viewfilter *vf;
		struct store *st;
		struct fx fx;
		int32_t pids[2];
		struct pidset ps = { pids, 2 };

		if (!fx_open(&fx, names[f], 0)) {
			fx_close(&fx);
			continue;
		}
		st = replay(fx.st, REPS, 1ull << 30);
		CHECK(st);
		vf = viewfilter_new(st, NULL);
		CHECK(vf);
		pids[0] = busiest_pid(fx.st);
		pids[1] = pids[0] + 100000;	/* the same task in the first shifted rounds */
		{
			char buf[64];

			snprintf(buf, sizeof(buf), "pid:%d,%d", pids[0], pids[1]);
			CHECK(!viewfilter_push(vf, buf, NULL));
			CHECK_OK(check_against(st, vf, ref_pids, &ps));
			CHECK_OK(check_count_by(st, vf, ref_pids, &ps));
			/* the other rounds' chunks hold neither task: skipped whole */
			CHECK(chunks_by_dict(vf) > 0);
			viewfilter_clear(vf);
		}
		CHECK(!viewfilter_push(vf, "cpu:1", NULL));
		CHECK_OK(check_against(st, vf, ref_cpu1, NULL));
		CHECK(!viewfilter_pop(vf));
		CHECK(!viewfilter_push(vf, "!event:raw_syscalls:*", NULL));
		CHECK_OK(check_against(st, vf, ref_not_syscalls, NULL));
		CHECK_OK(check_count_by(st, vf, ref_not_syscalls, NULL));
		viewfilter_clear(vf);
		CHECK(!viewfilter_push(vf, "comm:*sh*", NULL));
		CHECK_OK(check_against(st, vf, ref_comm_glob, "*sh*"));
		viewfilter_clear(vf);
		CHECK(!viewfilter_push(vf, "prev_state & 2 || (next_comm ~ \"kworker*\" && "
				       "prev_prio < 120)", NULL));
		CHECK_OK(check_against(st, vf, ref_expr1, NULL));
		CHECK_OK(check_count_by(st, vf, ref_expr1, NULL));
		viewfilter_clear(vf);
		CHECK(!viewfilter_push(vf, "cpu:0", NULL));
		CHECK(!viewfilter_push(vf, "!event:raw_syscalls", NULL));
		CHECK(!viewfilter_push(vf, "comm:*sh*", NULL));
		CHECK_OK(check_against(st, vf, ref_combo, NULL));
		CHECK_OK(check_count_by(st, vf, ref_combo, NULL));
		/* widen back: the two first clauses again */
		CHECK(!viewfilter_pop(vf));
		CHECK_EQ_U64(viewfilter_nclauses(vf), 2);
		CHECK(!viewfilter_remove(vf, 0));
		CHECK_OK(check_against(st, vf, ref_not_syscalls, NULL));
		viewfilter_free(vf);
		store_free(st);
		fx_close(&fx);
	}
}

/* viewfilter_match (event by event, no index) against the index, for expressions. */
struct vfm {
	struct viewfilter	*vf;
};

static bool ref_vfmatch(struct store *st, const struct ktop_event *ev, const void *arg)
{
	const struct vfm *m = arg;

	return viewfilter_match(m->vf, ev);
}

TEST(viewfilter_index_equals_per_event)
{
	static const char *const exprs[] = {
		"next_pid == 0 || prev_pid == 0",
		"!(common_pid == 0) && CPU == 1",
		"id == 0 || id == 1",
		"ret < 0",
		"comm ~ \"*cat*\"",
		"prio > 100 && prio <= 120",
		"sched_switch,sched_wakeup: common_flags & 1",
		"irq:*: vec == 9 || vec == 7",
	};
	struct viewfilter *vf, *one;
	struct store *st;
	struct fx fx;
	struct vfm m;

	CHECK(fx_open(&fx, "host-sched", 0));
	st = replay(fx.st, REPS, 1ull << 30);
	CHECK(st);
	vf = viewfilter_new(st, NULL);
	one = viewfilter_new(st, NULL);
	CHECK(vf && one);
	m.vf = one;
	for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		struct err_pos err;

		if (viewfilter_push(vf, exprs[i], &err) || viewfilter_push(one, exprs[i], &err)) {
			printf("# %s: %s at %d\n", exprs[i], err.msg, err.offset);
			CHECK(0);
		}
		CHECK_OK(check_against(st, vf, ref_vfmatch, &m));
		viewfilter_clear(vf);
		viewfilter_clear(one);
	}
	viewfilter_free(vf);
	viewfilter_free(one);
	store_free(st);
	fx_close(&fx);
}

/* ---- libtraceevent's filter on the raw records --------------------------------------- */

struct tepcmp {
	struct tep_event_filter	*filter;
	struct viewfilter	*vf;
	struct store		*st;
	uint64_t		seq, records, matches, differ;
};

static int tep_rec(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct tepcmp *t = arg;
	struct tep_record r = {
		.ts = ts, .cpu = (int)cpu, .data = data, .size = size, .record_size = size,
	};
	struct ktop_event ev;
	bool want, got;

	/* the decoder appends every record of a CPU in ring order */
	if (store_get(t->st, cpu, t->seq, &ev) || ev.ts != ts) {
		t->differ++;
		return 1;
	}
	t->seq++;
	want = tep_filter_match(t->filter, &r) == TEP_ERRNO__FILTER_MATCH;
	got = viewfilter_match(t->vf, &ev);
	t->records++;
	t->matches += want;
	t->differ += want != got;
	if (want != got && t->differ < 4)
		printf("# cpu %u seq %llu type %u: libtraceevent %d, ktop %d\n", cpu,
		       (unsigned long long)t->seq - 1, ev.type, want, got);
	return 0;
}

TEST(viewfilter_expr_equals_libtraceevent)
{
	/* ktop's form, then libtraceevent's (its ~ is a regex: =~) */
	static const char *const pairs[][2] = {
		{ "prev_state & 2", "prev_state & 2" },
		{ "prev_state & 1 && next_comm ~ \"*cat*\"", "prev_state & 1 && next_comm =~ \".*cat.*\"" },
		{ "next_pid == 0 || prev_pid == 0", "next_pid == 0 || prev_pid == 0" },
		{ "!(common_pid == 0) && CPU == 1", "!(common_pid == 0) && CPU == 1" },
		{ "prio > 100 && prio <= 120", "prio > 100 && prio <= 120" },
		/*
		 * libtraceevent compares signed fields unsigned (sys_exit's id -1
		 * would pass "id >= 200"), the kernel signed, as ktop does: the
		 * upper bound keeps both readings equal here; the kernel text test
		 * below checks "id < 0".
		 */
		{ "id == 0 || (id >= 200 && id != 202 && id < 1000)",
		  "id == 0 || (id >= 200 && id != 202 && id < 1000)" },
		{ "vec == 9 || irq == 11", "vec == 9 || irq == 11" },
		/* (a lower-case comm of an event without one is the task's name in the
		 * kernel and in ktop, an unknown field in libtraceevent: not compared) */
		{ "prev_comm == \"swapper/1\" || next_comm != \"sh\"",
		  "prev_comm == \"swapper/1\" || next_comm != \"sh\"" },
		{ "target_cpu < 1", "target_cpu < 1" },
	};
	static const char *const names[] = { "host-sched", "host-irq", "rt-sched-irq",
					     "rt612-sched-irq" };
	uint64_t matched = 0;

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		struct fx fx;

		if (!fx_open(&fx, names[f], 0)) {
			fx_close(&fx);
			continue;
		}
		for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
			struct tepcmp t = { .st = fx.st };
			char buf[512];
			struct err_pos err;
			int ret;

			t.vf = viewfilter_new(fx.st, NULL);
			t.filter = tep_filter_alloc(fixture_tep(fx.fx));
			CHECK(t.vf && t.filter);
			snprintf(buf, sizeof(buf), ".*: %s", pairs[i][1]);
#ifdef __SANITIZE_ADDRESS__
			/* libtraceevent 1.7.1 leaks a string per event that lacks a field */
			__lsan_disable();
#endif
			ret = tep_filter_add_filter_str(t.filter, buf);
#ifdef __SANITIZE_ADDRESS__
			__lsan_enable();
#endif
			if (ret || viewfilter_push(t.vf, pairs[i][0], &err)) {
				/* a field no event of this fixture has: both must say so */
				CHECK(ret && viewfilter_push(t.vf, pairs[i][0], &err) == -EINVAL);
				tep_filter_free(t.filter);
				viewfilter_free(t.vf);
				continue;
			}
			for (unsigned int cpu = 0; cpu < fixture_ncpus(fx.fx); cpu++) {
				t.seq = 0;
				fixture_for_each_record(fx.fx, cpu, tep_rec, &t);
			}
			if (t.differ)
				printf("# %s, %s: %llu of %llu records differ\n", names[f],
				       pairs[i][0], (unsigned long long)t.differ,
				       (unsigned long long)t.records);
			CHECK_EQ_U64(t.differ, 0);
			matched += t.matches;
			tep_filter_free(t.filter);
			viewfilter_free(t.vf);
		}
		fx_close(&fx);
	}
	CHECK(matched > 100);	/* the expressions select something */
}

/* sched_switch states and next_comm against the kernel's own text for the same records. */
TEST(viewfilter_expr_equals_kernel_text)
{
	static const struct {
		const char	*expr;
		const char	*event;		/* ": NAME: " in a line of trace.txt */
		const char	*needle;	/* ... and this in the same line */
	} cases[] = {
		{ "prev_state & 1", ": sched_switch: ", "prev_state=S " },
		{ "prev_state & 2", ": sched_switch: ", "prev_state=D " },
		{ "prev_state == 0", ": sched_switch: ", "prev_state=R " },
		{ "prev_state & 256", ": sched_switch: ", "prev_state=R+ " },
		{ "next_comm ~ \"kworker*\"", ": sched_switch: ", "next_comm=kworker" },
		{ "next_comm == \"cat\"", ": sched_switch: ", "next_comm=cat next_pid" },
		/* signed, as the kernel compares: sys_exit's NR -1 (libtraceevent: unsigned) */
		{ "sys_exit: id < 0", ": sys_exit: ", "NR -" },
		{ "sys_exit: ret > 0 && ret <= 14200", ": sys_exit: ", "" },
	};
	struct viewfilter *vf;
	size_t len;
	struct fx fx;
	char *text;

	CHECK(fx_open(&fx, "host-sched", 0));
	text = fixture_read_file(fixture_path(fx.fx, "trace.txt"), &len);
	CHECK(text);
	vf = viewfilter_new(fx.st, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct viewfilter_counts vc;
		uint64_t want = 0;

		for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			size_t ll = strcspn(l, "\n");
			char line[1024];

			snprintf(line, sizeof(line), "%.*s", (int)(ll < 1023 ? ll : 1023), l);
			if (!strstr(line, cases[i].event) || !strstr(line, cases[i].needle))
				continue;
			if (!strcmp(cases[i].event, ": sys_exit: ") && !*cases[i].needle) {
				long ret = atol(strstr(line, " = ") + 3);

				want += ret > 0 && ret <= 14200;
				continue;
			}
			want++;
		}
		CHECK(!viewfilter_push(vf, cases[i].expr, NULL));
		viewfilter_update(vf, 0);
		viewfilter_counts(vf, &vc);
		if (vc.matched != want)
			printf("# %s: %llu, the kernel's text says %llu\n", cases[i].expr,
			       (unsigned long long)vc.matched, (unsigned long long)want);
		CHECK_EQ_U64(vc.matched, want);
		viewfilter_clear(vf);
	}
	viewfilter_free(vf);
	free(text);
	fx_close(&fx);
}

/* ---- children --------------------------------------------------------------------- */

/* The fixture's own fork lines: is @pid @root or forked, transitively, from it? */
static bool text_descends(const char *text, int32_t pid, int32_t root)
{
	for (int depth = 0; depth < 64; depth++) {
		char needle[64];
		const char *p;

		if (pid == root)
			return true;
		snprintf(needle, sizeof(needle), "child_pid=%d\n", pid);
		p = strstr(text, needle);
		if (!p)
			return false;
		while (p > text && p[-1] != '\n')
			p--;
		p = strstr(p, "sched_process_fork: comm=");
		p = p ? strstr(p, " pid=") : NULL;
		if (!p)
			return false;
		pid = atoi(p + 5);
	}
	return false;
}

struct kids {
	const char	*text;
	int32_t		root;
};

static bool ref_kids(struct store *st, const struct ktop_event *ev, const void *arg)
{
	const struct kids *k = arg;

	return text_descends(k->text, ev->pid, k->root);
}

TEST(viewfilter_children_from_forks)
{
	static const char *const names[] = { "host-rename", "host-sched" };

	for (size_t f = 0; f < 2; f++) {
		struct taskrel *tr;
		struct viewfilter *vf;
		struct kids k;
		struct fx fx;
		char buf[64], *text, *p;
		size_t len, nkids = 0;

		CHECK(fx_open(&fx, names[f], 0));
		text = fixture_read_file(fixture_path(fx.fx, "trace.txt"), &len);
		CHECK(text);
		/* the first forking task of the text */
		p = strstr(text, "sched_process_fork: comm=");
		CHECK(p);
		p = strstr(p, " pid=");
		k.text = text;
		k.root = atoi(p + 5);
		for (p = text; (p = strstr(p, "child_pid=")); p++)
			nkids += text_descends(text, atoi(p + 10), k.root);
		CHECK(nkids > 0);
		tr = taskrel_new(fx.st);
		vf = viewfilter_new(fx.st, tr);
		snprintf(buf, sizeof(buf), "pid:%d+", k.root);
		CHECK(!viewfilter_push(vf, buf, NULL));
		CHECK_OK(check_against(fx.st, vf, ref_kids, &k));
		CHECK(taskrel_source(tr, atoi(strstr(text, "child_pid=") + 10)) & TASKREL_TRACE);
		viewfilter_free(vf);
		taskrel_free(tr);
		free(text);
		fx_close(&fx);
	}
}

/*
 * A fork learned after its child's events were evaluated: host-sched's sh
 * forks on CPU 1 and one child (cat) runs on CPU 0 too. CPU 0 is decoded,
 * published and evaluated first; CPU 1's forks must then re-evaluate it.
 */
TEST(viewfilter_children_learned_late)
{
	struct decode_ctx *dc;
	struct taskrel *tr;
	struct viewfilter *vf;
	struct store *st;
	struct kids k;
	struct fx fx;
	char buf[64], *text, *p;
	size_t len;

	CHECK(fx_open(&fx, "host-sched", 0));
	text = fixture_read_file(fixture_path(fx.fx, "trace.txt"), &len);
	CHECK(text);
	p = strstr(text, "sched_process_fork: comm=");
	CHECK(p && strstr(p, " pid="));
	k.text = text;
	k.root = atoi(strstr(p, " pid=") + 5);
	st = store_new(0, fixture_ncpus(fx.fx));
	dc = st ? decode_ctx_new(fixture_tep(fx.fx), st, NULL) : NULL;
	CHECK(dc);
	tr = taskrel_new(st);
	vf = viewfilter_new(st, tr);
	snprintf(buf, sizeof(buf), "pid:%d+", k.root);
	CHECK(!viewfilter_push(vf, buf, NULL));
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx.fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(fx.fx, cpu); i++)
			decoder_page(d, fixture_page(fx.fx, cpu, i), fixture_page_size(fx.fx), NULL);
		decoder_free(d);
		store_publish(st, cpu);
		CHECK(viewfilter_update(vf, 0));
	}
	CHECK_OK(check_against(st, vf, ref_kids, &k));
	viewfilter_free(vf);
	taskrel_free(tr);
	decode_ctx_free(dc);
	store_free(st);
	free(text);
	fx_close(&fx);
}

/* ---- incremental updates and eviction ---------------------------------------------------- */

TEST(viewfilter_incremental_and_eviction)
{
	struct viewfilter *vf;
	struct store *src, *st;
	struct fx fx;
	struct viewfilter_counts vc;
	unsigned int updates = 0;
	struct vfm m;

	CHECK(fx_open(&fx, "host-sched", 0));
	src = replay(fx.st, 48, 1ull << 30);
	CHECK(src);
	/* small enough to evict (the open chunks' buffers count too): the newest chunks stay */
	st = store_new(700u << 10, store_ncpus(src));
	CHECK(st);
	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(store_schema(src)); id++) {
		const struct ktop_schema_type *t = schema_get(store_schema(src), (uint16_t)id);

		if (t)
			schema_add(store_schema(st), t->system, t->name, t->nfields, t->fields);
	}
	vf = viewfilter_new(st, NULL);
	CHECK(!viewfilter_push(vf, "prev_state & 1 || common_flags & 8", NULL));
	m.vf = viewfilter_new(st, NULL);
	CHECK(!viewfilter_push(m.vf, "prev_state & 1 || common_flags & 8", NULL));
	for (unsigned int cpu = 0; cpu < store_ncpus(src); cpu++) {
		uint64_t first, end;

		store_cpu_range(src, cpu, &first, &end);
		for (uint64_t q = first; q < end; q++) {
			struct ktop_event ev;
			const char *s;

			CHECK(!store_get(src, cpu, q, &ev));
			/* the strings again, in the new store's table */
			if (ev.type == KTOP_T_SCHED_SWITCH || ev.type == KTOP_T_SCHED_WAKEUP) {
				s = intern_str(store_strings(src), (uint32_t)ev.args[0]);
				ev.args[0] = intern_id(store_strings(st), s, strlen(s));
			}
			if (ev.type == KTOP_T_SCHED_SWITCH) {
				s = intern_str(store_strings(src), (uint32_t)ev.args[4]);
				ev.args[4] = intern_id(store_strings(st), s, strlen(s));
			}
			CHECK(!store_append(st, &ev));
			/* publish and update in steps, as a live session does */
			if (q % 777 == 0) {
				store_publish(st, cpu);
				viewfilter_update(vf, 0);
				viewfilter_counts(vf, &vc);
				CHECK(vc.evaluated == vc.held);
				CHECK(vc.matched <= vc.held);
				updates++;
			}
		}
		store_publish(st, cpu);
	}
	CHECK_OK(check_against(st, vf, ref_vfmatch, &m));
	{
		struct store_stats ss;

		store_get_stats(st, &ss);
		CHECK(ss.evicted > 0);
		CHECK(updates > 10);
	}
	viewfilter_free(m.vf);
	viewfilter_free(vf);
	store_free(st);
	store_free(src);
	fx_close(&fx);
}

/*
 * A writer appends (and the store evicts) while the view is updated, walked and
 * counted in another thread, as in a live session; at the end the view must
 * equal an event-by-event evaluation. Run under TSan too.
 */
struct writer {
	struct store		*src, *dst;
	_Atomic bool		done;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	for (unsigned int cpu = 0; cpu < store_ncpus(w->src); cpu++) {
		uint64_t first, end;

		store_cpu_range(w->src, cpu, &first, &end);
		for (uint64_t q = first; q < end; q++) {
			struct ktop_event ev;

			if (store_get(w->src, cpu, q, &ev))
				continue;
			/* string ids differ between the stores: compare numbers only */
			store_append(w->dst, &ev);
			if (q % 97 == 0)
				store_publish(w->dst, cpu);
		}
		store_publish(w->dst, cpu);
	}
	atomic_store(&w->done, true);
	return NULL;
}

TEST(viewfilter_concurrent_writer)
{
	struct ktop_event page[100];
	struct viewfilter *vf;
	struct writer w = { 0 };
	struct store_count cnt[16];
	struct fx fx;
	pthread_t th;
	unsigned int rounds = 0;
	struct vfm m;

	CHECK(fx_open(&fx, "host-sched", 0));
	w.src = replay(fx.st, REPS, 1ull << 30);
	w.dst = store_new(900u << 10, store_ncpus(w.src));
	CHECK(w.src && w.dst);
	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(store_schema(w.src)); id++) {
		const struct ktop_schema_type *t = schema_get(store_schema(w.src), (uint16_t)id);

		if (t)
			schema_add(store_schema(w.dst), t->system, t->name, t->nfields, t->fields);
	}
	vf = viewfilter_new(w.dst, NULL);
	CHECK(!viewfilter_push(vf, "prev_state & 1 || irq == 11 || vec == 7", NULL));
	CHECK(!pthread_create(&th, NULL, writer_main, &w));
	while (!atomic_load(&w.done)) {
		viewfilter_update(vf, 2000000);
		viewfilter_page(vf, &VIEWFILTER_POS_END, -1, false, page, NULL, 100);
		viewfilter_count_by(vf, STORE_KEY_TYPE, -1, 0, UINT64_MAX, cnt, 16);
		rounds++;
	}
	pthread_join(th, NULL);
	m.vf = viewfilter_new(w.dst, NULL);
	CHECK(!viewfilter_push(m.vf, "prev_state & 1 || irq == 11 || vec == 7", NULL));
	CHECK_OK(check_against(w.dst, vf, ref_vfmatch, &m));
	printf("# %u rounds while the writer ran\n", rounds);
	viewfilter_free(m.vf);
	viewfilter_free(vf);
	store_free(w.dst);
	store_free(w.src);
	fx_close(&fx);
}

/* ---- errors ------------------------------------------------------------------------------ */

TEST(viewfilter_errors_have_positions)
{
	static const struct {
		const char	*text;
		int		offset;
		const char	*msg;
	} cases[] = {
		{ "prev_stat & 2", 0, "no event has a field 'prev_stat'" },
		{ "prev_state & 2 && next_comm ~ kworker* ||", 41, "expected a field name" },
		{ "prev_state & 2 next_comm", 15, "unexpected 'next_comm'" },
		{ "prev_state 2", 11, "expected an operator" },
		{ "(prev_state & 2", 15, "expected ')'" },
		{ "next_comm < 3", 10, "is a string" },
		{ "prev_pid ~ \"1*\"", 9, "'~' matches strings" },
		{ "prev_pid == \"x\"", 12, "is a number, not \"x\"" },
		{ "prev_pid == bash", 12, "is a number, not 'bash'" },
		{ "next_comm == \"kworker", 13, "unterminated string" },
		{ "  pid:12,x", 9, "pid: wants task ids" },
		{ "cpu:0-", 6, "cpu: wants a CPU list" },
		{ "cpu:7", 4, "no CPU 7 here" },
		{ "event:sched:nosuch*", 6, "no event here matches 'sched:nosuch*'" },
		{ "sched_switch: prev_pid = 1", 23, "expected an operator" },
		{ "", 0, "empty filter" },
	};
	struct viewfilter *vf;
	struct fx fx;

	CHECK(fx_open(&fx, "host-sched", 0));
	vf = viewfilter_new(fx.st, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err_pos err = { 0 };
		char buf[1024];

		if (viewfilter_push(vf, cases[i].text, &err) != -EINVAL ||
		    err.offset != cases[i].offset || !strstr(err.msg, cases[i].msg)) {
			printf("# '%s': %s at %d\n", cases[i].text, err.msg, err.offset);
			CHECK(0);
		}
		viewfilter_error_format(cases[i].text, &err, buf, sizeof(buf));
		CHECK(strstr(buf, "^"));
	}
	CHECK_EQ_U64(viewfilter_nclauses(vf), 0);
	/* the syntax alone, as the command line checks before anything starts */
	CHECK(!viewfilter_check("prev_stat & 2", NULL));
	CHECK(viewfilter_check("prev_state &", NULL) == -EINVAL);
	viewfilter_free(vf);
	fx_close(&fx);
}

TEST(viewfilter_typed_pushes_and_text)
{
	struct viewfilter *vf;
	struct fx fx;
	char buf[256];

	CHECK(fx_open(&fx, "host-sched", 0));
	vf = viewfilter_new(fx.st, NULL);
	CHECK(!viewfilter_push_pid(vf, 42, VIEWFILTER_KIDS));
	CHECK(!viewfilter_push_cpu(vf, 1, VIEWFILTER_NOT));
	CHECK(!viewfilter_push_type(vf, KTOP_T_SCHED_SWITCH, 0));
	CHECK_STR(viewfilter_describe(vf, buf, sizeof(buf)),
		  "pid:42+ && !cpu:1 && event:sched:sched_switch");
	CHECK(!viewfilter_pop(vf));
	CHECK_STR(viewfilter_describe(vf, buf, sizeof(buf)), "pid:42+ && !cpu:1");
	viewfilter_free(vf);
	fx_close(&fx);
}

/* What figures by task and CPU cannot honour: every clause but pid:, comm:, cpu:, buffer:. */
TEST(viewfilter_event_clauses_described_apart)
{
	struct viewfilter *vf;
	struct fx fx;
	char buf[256];

	CHECK(fx_open(&fx, "host-sched", 0));
	vf = viewfilter_new(fx.st, NULL);
	CHECK(!viewfilter_push(vf, "comm:sh*", NULL));
	CHECK_STR(viewfilter_describe_events(vf, buf, sizeof(buf)), "");
	CHECK(!viewfilter_push(vf, "sched_switch: prev_state == 1", NULL));
	CHECK(!viewfilter_push(vf, "!buffer:top", NULL));
	CHECK(!viewfilter_push_pid(vf, 42, 0));
	CHECK(!viewfilter_push(vf, "!event:irq", NULL));
	CHECK_STR(viewfilter_describe_events(vf, buf, sizeof(buf)),
		  "sched_switch: prev_state == 1 && !event:irq");
	/* the task and CPU clauses still answer (!buffer:top: none of the top buffer's CPUs) */
	CHECK(!viewfilter_task_ok(vf, 41) && !viewfilter_cpu_ok(vf, 0));
	viewfilter_free(vf);
	fx_close(&fx);
}

TEST_MAIN()

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event search (src/view/evsearch.h) on a store of 9 M events shaped like
 * a real recording: the demo recording (tests/fixtures/demo.ktop: rt guests'
 * scheduler, irq, osnoise, timerlat and function_graph events) and copies of
 * it shifted forward in time, the copies without its five sched_process_exec
 * events. Those five are then the only matches of a search for execs, and
 * they lie at the oldest end: more events before them than the event list's
 * search used to read before it said "no older match" (8 M).
 *
 * Each search is checked against a plain walk over every event.
 */
#include <errno.h>
#include <stdlib.h>
#include "test.h"
#include "formats/format.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "store/store.h"
#include "view/evsearch.h"
#include "view/viewfilter.h"

#define BIG_EVENTS	9000000ull
#define MAX_EXECS	16

static struct store *big;
static struct ktop_event execs[MAX_EXECS];	/* every exec held, oldest first */
static uint64_t exec_seq[MAX_EXECS];
static int nexec;

/* The demo recording, then copies of it without its execs, to BIG_EVENTS events. */
static struct store *big_store(void)
{
	static uint64_t first[64], end[64];
	const char *fx = getenv("KTOP_FIXTURES");
	struct store_stats ss;
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t n, span, shift = 0, seq;
	unsigned int ncpus;
	char path[4096], err[256];

	if (big)
		return big;
	snprintf(path, sizeof(path), "%s/demo.ktop", fx && *fx ? fx : "tests/fixtures");
	if (format_load(path, 1ull << 30, &big, NULL, err, sizeof(err))) {
		printf("%s\n", err);
		return NULL;
	}
	store_get_stats(big, &ss);
	n = ss.events;
	span = ss.last_ts - ss.first_ts + 1000;
	ncpus = store_ncpus(big);
	for (unsigned int cpu = 0; cpu < ncpus && cpu < 64; cpu++)
		store_cpu_range(big, cpu, &first[cpu], &end[cpu]);
	while (n < BIG_EVENTS) {
		shift += span;
		for (unsigned int cpu = 0; cpu < ncpus && cpu < 64; cpu++) {
			for (uint64_t i = first[cpu]; i < end[cpu] && n < BIG_EVENTS; i++) {
				if (store_get(big, cpu, i, &ev) ||
				    ev.type == KTOP_T_SCHED_PROCESS_EXEC)
					continue;
				ev.ts += shift;
				if (store_append(big, &ev))
					return NULL;
				n++;
			}
			store_publish(big, cpu);
		}
	}
	for (unsigned int cpu = 0; cpu < ncpus; cpu++)
		store_seal_idle(big, cpu);
	/* the answers, from a plain walk in time order */
	it = store_iter_new(big, 0, UINT64_MAX, NULL);
	while (it && store_iter_next(it, &ev, &seq))
		if (ev.type == KTOP_T_SCHED_PROCESS_EXEC && nexec < MAX_EXECS) {
			exec_seq[nexec] = seq;
			execs[nexec++] = ev;
		}
	store_iter_free(it);
	return big;
}

struct pred {
	uint16_t	type;		/* events of this type match */
	bool		use_type_may;	/* tell the search so */
	bool		by_arg0;	/* and only those whose first argument is @arg0 */
	uint64_t	arg0;
	uint64_t	asked;
};

static bool p_type_may(void *arg, uint16_t type)
{
	return type == ((struct pred *)arg)->type;
}

static bool p_match(void *arg, const struct ktop_event *ev)
{
	struct pred *p = arg;

	p->asked++;
	return ev->type == p->type && (!p->by_arg0 || ev->args[0] == p->arg0);
}

static const struct evsearch_ops ops_plain = { .match = p_match };
static const struct evsearch_ops ops_typed = { .type_may = p_type_may, .match = p_match };

/*
 * Search from @from in @dir with steps of @budget_ns.
 * Return: the state it ended in; *@steps the steps it took.
 */
static int search(struct viewfilter *vf, struct pred *p, const struct viewfilter_pos *from,
		  int dir, uint64_t budget_ns, struct ktop_event *ev, struct viewfilter_pos *pos,
		  unsigned int *steps, struct evsearch_progress *pr)
{
	struct evsearch *s = evsearch_new(big, vf, from, dir, -1,
					  p->use_type_may ? &ops_typed : &ops_plain, p);
	int ret;

	if (!s)
		return -1;
	*steps = 0;
	do {
		ret = evsearch_step(s, budget_ns);
		++*steps;
	} while (ret == EVSEARCH_MORE);
	if (ret == EVSEARCH_FOUND)
		evsearch_hit(s, ev, pos);
	if (pr)
		evsearch_progress(s, pr);
	evsearch_free(s);
	return ret;
}

static bool same_event(const struct ktop_event *a, const struct ktop_event *b)
{
	return a->ts == b->ts && a->cpu == b->cpu && a->pid == b->pid && a->type == b->type &&
	       a->args[0] == b->args[0];
}

/*
 * From the newest end, with a budget far too small for the store (one
 * chunk a step), the search goes on until it reaches the oldest exec:
 * through every event, none left out.
 */
TEST(finds_the_oldest_match_past_any_budget)
{
	struct pred p = { .type = KTOP_T_SCHED_PROCESS_EXEC, .by_arg0 = true };
	struct evsearch_progress pr;
	struct viewfilter_pos pos;
	struct ktop_event ev;
	unsigned int steps;

	CHECK(big_store());
	CHECK(nexec == 5);
	/* the oldest exec's file (/bin/sh): no other exec has it */
	p.arg0 = execs[0].args[0];
	for (int i = 1; i < nexec; i++)
		CHECK(execs[i].args[0] != p.arg0);
	CHECK_EQ_U64(search(NULL, &p, &VIEWFILTER_POS_END, -1, 1, &ev, &pos, &steps, &pr),
		     EVSEARCH_FOUND);
	CHECK(same_event(&ev, &execs[0]));
	CHECK_EQ_U64(pos.seq, exec_seq[0]);
	CHECK_EQ_U64(pos.cpu, execs[0].cpu);
	/* sliced: many steps, and (no type hint) every event before it read */
	CHECK(steps > 1000);
	CHECK(pr.total >= BIG_EVENTS - 6000);
	CHECK(p.asked > 8000000);
	CHECK(pr.done + 6000 >= pr.total);
}

/*
 * n after n: each search starts at the match the last one found and finds
 * the next older one, to the oldest, then none; N the same way back. The
 * same whether the search knows which types may match (then it reads the
 * dictionaries of chunks, not their rows) and whatever the step.
 */
TEST(n_continues_past_the_last_match_found)
{
	static const uint64_t budgets[] = { 1, 20000000, 0 };

	CHECK(big_store());
	CHECK(nexec == 5);
	for (int typed = 0; typed < 2; typed++) {
		for (unsigned int b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
			struct pred p = { .type = KTOP_T_SCHED_PROCESS_EXEC,
					  .use_type_may = typed };
			struct viewfilter_pos at = VIEWFILTER_POS_END;
			struct evsearch_progress pr;
			struct ktop_event ev;
			unsigned int steps;

			for (int i = nexec - 1; i >= 0; i--) {
				CHECK_EQ_U64(search(NULL, &p, &at, -1, budgets[b], &ev, &at,
						    &steps, &pr), EVSEARCH_FOUND);
				CHECK(same_event(&ev, &execs[i]));
				CHECK_EQ_U64(at.seq, exec_seq[i]);
				/* a type hint skips the chunks without an exec unread */
				if (typed && i == nexec - 1)
					CHECK(pr.skipped * 100 >= pr.total * 99);
			}
			CHECK_EQ_U64(search(NULL, &p, &at, -1, budgets[b], &ev, &at, &steps, &pr),
				     EVSEARCH_NONE);
			for (int i = 1; i < nexec; i++) {
				CHECK_EQ_U64(search(NULL, &p, &at, 1, budgets[b], &ev, &at,
						    &steps, &pr), EVSEARCH_FOUND);
				CHECK(same_event(&ev, &execs[i]));
			}
			CHECK_EQ_U64(search(NULL, &p, &at, 1, budgets[b], &ev, &at, &steps, &pr),
				     EVSEARCH_NONE);
		}
	}
}

/* Under a view filter: only the events it keeps are searched. */
TEST(search_under_a_view_takes_only_what_it_keeps)
{
	struct pred p = { .type = KTOP_T_SCHED_PROCESS_EXEC, .use_type_may = true };
	struct viewfilter_pos at = VIEWFILTER_POS_END;
	struct err_pos fe;
	struct viewfilter *vf;
	struct ktop_event ev;
	unsigned int steps;
	int want = -1;

	CHECK(big_store());
	vf = viewfilter_new(big, NULL);
	CHECK(vf);
	CHECK(viewfilter_push(vf, "cpu:1", &fe) == 0);
	for (int i = nexec - 1; i >= 0 && want < 0; i--)
		if (execs[i].cpu == 1)
			want = i;
	CHECK(want >= 0);
	CHECK_EQ_U64(search(vf, &p, &at, -1, 1000000, &ev, &at, &steps, NULL), EVSEARCH_FOUND);
	CHECK(same_event(&ev, &execs[want]));
	/* one CPU's events (the event list's request for a CPU): the same */
	{
		struct evsearch *s = evsearch_new(big, NULL, &VIEWFILTER_POS_END, -1, 1,
						  &ops_typed, &p);

		CHECK(s);
		CHECK(evsearch_step(s, 0) == EVSEARCH_FOUND);
		CHECK(evsearch_hit(s, &ev, NULL));
		CHECK(same_event(&ev, &execs[want]));
		evsearch_free(s);
	}
	/* a changed view: the search stops with -ESTALE */
	{
		struct evsearch *s = evsearch_new(big, vf, &VIEWFILTER_POS_END, -1, -1,
						  &ops_plain, &p);

		CHECK(s);
		CHECK(viewfilter_push(vf, "cpu:0", &fe) == 0);
		CHECK(evsearch_step(s, 0) == -ESTALE);
		evsearch_free(s);
	}
	viewfilter_free(vf);
}

/* From a position between two events of the same time, on either side. */
TEST(search_from_a_position_excludes_it)
{
	struct pred p = { .type = KTOP_T_SCHED_PROCESS_EXEC };
	struct viewfilter_pos at = { .ts = execs[2].ts, .cpu = execs[2].cpu,
				     .seq = exec_seq[2] };
	struct ktop_event ev;
	unsigned int steps;

	CHECK(big_store());
	CHECK_EQ_U64(search(NULL, &p, &at, -1, 0, &ev, NULL, &steps, NULL), EVSEARCH_FOUND);
	CHECK(same_event(&ev, &execs[1]));
	CHECK_EQ_U64(search(NULL, &p, &at, 1, 0, &ev, NULL, &steps, NULL), EVSEARCH_FOUND);
	CHECK(same_event(&ev, &execs[3]));
}

TEST_MAIN()

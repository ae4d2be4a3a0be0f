// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tasks model (src/view/tasks.h): per-task counters fed from the store in time
 * order, rows sorted, searched and ordered as a tree on demand.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "bpfstats/bpfstats.h"
#include "lib/hashmap.h"
#include "store/store.h"
#include "model/taskrel.h"
#include "tasks.h"
#include "viewfilter.h"

struct task {
	int32_t		pid;
	int32_t		last_cpu;
	uint64_t	events, syscalls, switches;
	uint64_t	ev0, sc0, sw0;		/* at the last tick */
	double		er, sr, wr;		/* rates of the last closed interval */
	uint64_t	runq_ns, runq_n, offcpu_ns, offcpu_n;
	uint64_t	off_ts, wake_ts;
	uint64_t	last_ts;
	uint64_t	state;
	bool		state_known, exited;
};

struct tasks {
	struct store		*st;
	struct taskrel		*tr;
	struct viewfilter	*vf;
	struct bpfstats		*bs;
	const char		*selfdir;
	struct hmap		self;
	struct hmap		idx;		/* pid -> index in v */
	struct task		*v;
	size_t			n, cap;
	uint64_t		*next;		/* per CPU: the next seq to read */
	unsigned int		ncpus;
	uint64_t		t_done;		/* the newest time read */
	uint64_t		t_first, t_last;
	uint64_t		tick_ts;
	bool			ticked;
};

struct tasks *tasks_new(struct store *st, struct taskrel *tr)
{
	struct tasks *tm = calloc(1, sizeof(*tm));

	if (!tm)
		return NULL;
	tm->st = st;
	tm->tr = tr;
	tm->ncpus = store_ncpus(st);
	tm->next = calloc(tm->ncpus, sizeof(*tm->next));
	if (!tm->next) {
		free(tm);
		return NULL;
	}
	return tm;
}

void tasks_free(struct tasks *tm)
{
	if (!tm)
		return;
	hmap_destroy(&tm->self);
	hmap_destroy(&tm->idx);
	free(tm->v);
	free(tm->next);
	free(tm);
}

void tasks_reset(struct tasks *tm)
{
	hmap_clear(&tm->idx);
	tm->n = 0;
	memset(tm->next, 0, tm->ncpus * sizeof(*tm->next));
	tm->t_done = tm->t_first = tm->t_last = 0;
	tm->ticked = false;
}

void tasks_set_view(struct tasks *tm, struct viewfilter *vf)
{
	tm->vf = vf;
	tasks_reset(tm);
}

void tasks_set_bpf(struct tasks *tm, struct bpfstats *bs)
{
	tm->bs = bs;
}

int tasks_read_tids(const char *taskdir, struct hmap *out)
{
	struct dirent *de;
	DIR *d;

	hmap_clear(out);
	d = taskdir ? opendir(taskdir) : NULL;
	if (!d)
		return taskdir ? -errno : 0;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) &&
		    !hmap_put(out, (uint32_t)(int32_t)atoi(de->d_name), NULL))
			break;
	closedir(d);
	return 0;
}

static void self_scan(struct tasks *tm)
{
	tasks_read_tids(tm->selfdir, &tm->self);
}

void tasks_set_self(struct tasks *tm, const char *taskdir)
{
	tm->selfdir = taskdir;
	self_scan(tm);
}

bool tasks_is_self(const struct tasks *tm, int32_t pid)
{
	return hmap_get(&tm->self, (uint32_t)pid) != NULL;
}

static struct task *task_get(struct tasks *tm, int32_t pid)
{
	bool added;
	uint64_t *i = hmap_put(&tm->idx, (uint32_t)pid, &added);

	if (!i)
		return NULL;
	if (added) {
		if (array_grow((void **)&tm->v, &tm->cap, tm->n + 1, sizeof(*tm->v))) {
			*i = UINT64_MAX;	/* the slot exists: never index with it */
			return NULL;
		}
		*i = tm->n;
		tm->v[tm->n++] = (struct task){ .pid = pid, .last_cpu = -1 };
	}
	return *i == UINT64_MAX ? NULL : &tm->v[*i];
}

/* sched_switch: @prev goes off the CPU, @next comes on (as bpf/kstat.bpf.c counts). */
static void on_switch(struct tasks *tm, const struct ktop_event *ev)
{
	struct task *p = task_get(tm, (int32_t)ev->args[1]), *n;
	uint64_t off, wake;

	if (p) {
		p->switches++;
		p->state = ev->args[3];
		p->state_known = true;
		p->last_cpu = ev->cpu;
		if (p->pid)
			p->off_ts = ev->ts;
	}
	n = task_get(tm, (int32_t)ev->args[5]);
	if (!n)
		return;
	n->state = TASKS_RUNNING;
	n->state_known = true;
	n->last_cpu = ev->cpu;
	n->last_ts = ev->ts;
	if (!n->pid)
		return;
	off = n->off_ts;
	wake = n->wake_ts;
	n->off_ts = n->wake_ts = 0;
	/* a wakeup older than the last switch-out woke a task that was still running */
	if (wake && wake < off)
		wake = 0;
	if (off) {
		n->offcpu_ns += ev->ts - off;
		n->offcpu_n++;
	}
	if (wake) {
		n->runq_ns += ev->ts - wake;
		n->runq_n++;
	}
}

static void task_event(struct tasks *tm, const struct ktop_event *ev)
{
	struct task *t = task_get(tm, ev->pid);

	if (!t)
		return;
	if (!tm->vf || viewfilter_match(tm->vf, ev)) {
		t->events++;
		t->syscalls += ev->type == KTOP_T_SYS_ENTER;
	}
	t->last_ts = ev->ts;
	t->last_cpu = ev->cpu;
	switch (ev->type) {
	case KTOP_T_SCHED_SWITCH:
		if (ev->nargs >= 7)
			on_switch(tm, ev);
		break;
	case KTOP_T_SCHED_WAKEUP:
	case KTOP_T_SCHED_WAKEUP_NEW:
		t = ev->nargs >= 2 ? task_get(tm, (int32_t)ev->args[1]) : NULL;
		if (t)
			t->wake_ts = ev->ts;
		break;
	case KTOP_T_SCHED_PROCESS_EXIT:
		t = ev->nargs >= 2 ? task_get(tm, (int32_t)ev->args[1]) : NULL;
		if (t)
			t->exited = true;
		break;
	}
}

int64_t tasks_update(struct tasks *tm, uint64_t t_end)
{
	struct store_iter *it;
	struct ktop_event ev;
	int64_t n = 0;
	uint64_t seq;

	if (tm->selfdir)
		self_scan(tm);
	if (tm->tr)
		taskrel_update(tm->tr);
	it = store_iter_new(tm->st, tm->t_done, t_end, NULL);
	if (!it)
		return -ENOMEM;
	/* from the newest time read: what shares it is told apart by seq */
	while (store_iter_next(it, &ev, &seq)) {
		if (ev.cpu >= tm->ncpus || seq < tm->next[ev.cpu])
			continue;
		tm->next[ev.cpu] = seq + 1;
		task_event(tm, &ev);
		if (!tm->t_first || ev.ts < tm->t_first)
			tm->t_first = ev.ts;
		if (ev.ts > tm->t_last)
			tm->t_last = ev.ts;
		tm->t_done = ev.ts;
		n++;
	}
	store_iter_free(it);
	return n;
}

void tasks_tick(struct tasks *tm, uint64_t ts)
{
	uint64_t from = tm->ticked ? tm->tick_ts : tm->t_first;
	double dt = ts > from ? (double)(ts - from) / 1e9 : 0;

	for (size_t i = 0; i < tm->n; i++) {
		struct task *t = &tm->v[i];

		t->er = dt > 0 ? (double)(t->events - t->ev0) / dt : 0;
		t->sr = dt > 0 ? (double)(t->syscalls - t->sc0) / dt : 0;
		t->wr = dt > 0 ? (double)(t->switches - t->sw0) / dt : 0;
		t->ev0 = t->events;
		t->sc0 = t->syscalls;
		t->sw0 = t->switches;
	}
	tm->tick_ts = ts;
	tm->ticked = true;
}

/* ---- rows ------------------------------------------------------------------------ */

static const char *task_comm(const struct tasks *tm, int32_t pid)
{
	return store_task_name(tm->st, pid);
}

static void row_fill(struct tasks *tm, const struct task *t, struct tasks_row *r)
{
	double span = tm->t_last > tm->t_first ? (double)(tm->t_last - tm->t_first) / 1e9 : 0;
	struct bpfstats_task bt;

	*r = (struct tasks_row){
		.pid = t->pid, .tgid = -1, .parent = -1, .comm = task_comm(tm, t->pid),
		.events = t->events, .syscalls = t->syscalls, .switches = t->switches,
		.runq_ns = t->runq_ns, .runq_n = t->runq_n, .offcpu_ns = t->offcpu_ns,
		.offcpu_n = t->offcpu_n, .last_cpu = t->last_cpu, .last_ts = t->last_ts,
		.state = t->state, .state_known = t->state_known, .exited = t->exited,
		.self = tasks_is_self(tm, t->pid),
	};
	if (tm->ticked) {
		r->events_rate = t->er;
		r->syscalls_rate = t->sr;
		r->switches_rate = t->wr;
	} else if (span > 0) {
		r->events_rate = (double)t->events / span;
		r->syscalls_rate = (double)t->syscalls / span;
		r->switches_rate = (double)t->switches / span;
	}
	if (tm->tr) {
		r->tgid = taskrel_tgid(tm->tr, t->pid);
		r->parent = taskrel_up(tm->tr, t->pid);
	}
	if (tm->bs && t->pid && !bpfstats_task(tm->bs, (uint32_t)t->pid, &bt)) {
		r->runq_ns = bt.runq_ns;
		r->runq_n = bt.runq_n;
		r->offcpu_ns = bt.offcpu_ns;
		r->offcpu_n = bt.offcpu_n;
		r->bpf = true;
		if (r->tgid < 0)
			r->tgid = (int32_t)bt.tgid;
	}
}

static bool row_found(const struct tasks_row *r, const char *s)
{
	char pid[16];

	if (!s || !*s)
		return true;
	snprintf(pid, sizeof(pid), "%d", r->pid);
	return strstr(r->comm, s) || !strncmp(pid, s, strlen(s));
}

static int key_cmp(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int rate_cmp(double a, double b)
{
	return a < b ? -1 : a > b;
}

struct sort_by {
	enum tasks_sort	key;
	int		dir;
};

static int row_cmp(const void *x, const void *y, void *arg)
{
	const struct tasks_row *a = x, *b = y;
	const struct sort_by *by = arg;
	int c = 0;

	switch (by->key) {
	case TASKS_BY_COMM:
		c = strcmp(a->comm, b->comm);
		break;
	case TASKS_BY_EVENTS:
		c = key_cmp(a->events, b->events);
		break;
	/* by the figure the pane shows, the rate; the totals break ties */
	case TASKS_BY_SYSCALLS:
		c = rate_cmp(a->syscalls_rate, b->syscalls_rate);
		if (!c)
			c = key_cmp(a->syscalls, b->syscalls);
		break;
	case TASKS_BY_SWITCHES:
		c = rate_cmp(a->switches_rate, b->switches_rate);
		if (!c)
			c = key_cmp(a->switches, b->switches);
		break;
	case TASKS_BY_RUNQ:
		c = key_cmp(a->runq_ns, b->runq_ns);
		break;
	case TASKS_BY_OFFCPU:
		c = key_cmp(a->offcpu_ns, b->offcpu_ns);
		break;
	case TASKS_BY_CPU:
		c = a->last_cpu < b->last_cpu ? -1 : a->last_cpu > b->last_cpu;
		break;
	case TASKS_BY_STATE:
		c = key_cmp(a->state_known ? a->state : 0, b->state_known ? b->state : 0);
		break;
	case TASKS_BY_LAST:
		c = key_cmp(a->last_ts, b->last_ts);
		break;
	default:
		break;
	}
	c *= by->dir;
	return c ? c : (a->pid < b->pid ? -1 : a->pid > b->pid);
}

/* Reorder sorted @v as a tree: each row, then its children (sorted), depth first. */
static int tree_order(struct tasks_row *v, size_t n)
{
	struct hmap at = { 0 };
	size_t *first = malloc(n * sizeof(*first)), *nextsib = malloc(n * sizeof(*nextsib));
	size_t *last = malloc(n * sizeof(*last)), *stack = malloc(n * sizeof(*stack));
	struct tasks_row *out = malloc(n * sizeof(*out));
	size_t k = 0, sp;
	int ret = -ENOMEM;

	if (!first || !nextsib || !last || !stack || !out)
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		uint64_t *p = hmap_put(&at, (uint32_t)v[i].pid, NULL);

		if (!p)
			goto out_free;
		*p = i;
		first[i] = last[i] = nextsib[i] = SIZE_MAX;
	}
	/* children lists in sorted order; a parent not among the rows makes a root */
	for (size_t i = 0; i < n; i++) {
		uint64_t *p = v[i].parent >= 0 && v[i].parent != v[i].pid ?
			      hmap_get(&at, (uint32_t)v[i].parent) : NULL;

		if (!p)
			continue;
		if (last[*p] == SIZE_MAX)
			first[*p] = i;
		else
			nextsib[last[*p]] = i;
		last[*p] = i;
		v[i].depth = UINT16_MAX;	/* has a parent here: not a root */
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].depth == UINT16_MAX)
			continue;
		sp = 0;
		stack[sp++] = i;
		v[i].depth = 0;
		while (sp && k < n) {
			size_t j = stack[--sp], base = sp;

			out[k++] = v[j];
			for (size_t c = first[j]; c != SIZE_MAX && sp < n; c = nextsib[c]) {
				v[c].depth = (uint16_t)(v[j].depth + 1 < UINT16_MAX - 1 ?
							v[j].depth + 1 : UINT16_MAX - 1);
				stack[sp++] = c;
			}
			/* reversed, so that the first child comes out first */
			for (size_t a = base, b = sp; a + 1 < b; a++, b--) {
				size_t t = stack[a];

				stack[a] = stack[b - 1];
				stack[b - 1] = t;
			}
		}
	}
	/* rows in a parent loop (reused pids) were never reached: at the end */
	for (size_t i = 0; i < n && k < n; i++)
		if (v[i].depth == UINT16_MAX) {
			out[k] = v[i];
			out[k++].depth = 0;
		}
	memcpy(v, out, k * sizeof(*v));
	ret = 0;
out_free:
	hmap_destroy(&at);
	free(first);
	free(nextsib);
	free(last);
	free(stack);
	free(out);
	return ret;
}

size_t tasks_rows(struct tasks *tm, const struct tasks_query *q, struct tasks_row *out,
		  size_t max)
{
	struct tasks_row *v = malloc((tm->n ? tm->n : 1) * sizeof(*v));
	struct sort_by by;
	size_t n = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < tm->n; i++) {
		row_fill(tm, &tm->v[i], &v[n]);
		if (q->hide_self && v[n].self)
			continue;
		if (row_found(&v[n], q->search))
			n++;
	}
	/* names and ids read best ascending, figures descending */
	by.key = q->sort;
	by.dir = q->sort == TASKS_BY_PID || q->sort == TASKS_BY_COMM ? 1 : -1;
	if (q->reverse)
		by.dir = -by.dir;
	qsort_r(v, n, sizeof(*v), row_cmp, &by);
	if (q->tree)
		tree_order(v, n);
	if (out)
		memcpy(out, v, (n < max ? n : max) * sizeof(*out));
	free(v);
	return n;
}

const char *tasks_sort_name(enum tasks_sort s)
{
	static const char *const names[TASKS_SORT_NR] = {
		"pid", "comm", "events", "syscalls/s", "switches/s", "runq", "offcpu", "cpu",
		"state", "last",
	};

	return s < TASKS_SORT_NR ? names[s] : "?";
}

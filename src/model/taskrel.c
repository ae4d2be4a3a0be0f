// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Task relations from fork/newtask/exec events and /proc (src/model/taskrel.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "store/event.h"
#include "lib/file.h"
#include "lib/hashmap.h"
#include "store/schema.h"
#include "store/store.h"
#include "taskrel.h"

#define CLONE_THREAD_FLAG	0x00010000ull
#define TASKREL_MAX_DEPTH	256	/* tree walks stop here (a loop of reused pids) */

struct rel {
	int32_t		pid, ppid, tgid;
	uint8_t		src;
	uint64_t	birth;
};

/* A traced type that carries links, and the argument slots that hold them. */
struct reltype {
	int		id;		/* 0: not registered (yet) */
	int		a, b;		/* fork: parent_pid, child_pid; newtask: pid, clone_flags */
};

struct taskrel {
	struct store		*st;
	struct store_chunk_rd	*rd;
	struct hmap		idx;		/* pid -> index in v */
	struct rel		*v;
	size_t			n, cap;
	int32_t			*log;		/* pids that got a link, in order */
	size_t			nlog, caplog;
	uint64_t		*next;		/* per CPU: the next seq to read */
	struct reltype		fork, newtask;
};

struct taskrel *taskrel_new(struct store *st)
{
	struct taskrel *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return NULL;
	tr->st = st;
	tr->rd = store_chunk_rd_new(st);
	tr->next = calloc(store_ncpus(st), sizeof(*tr->next));
	if (!tr->rd || !tr->next) {
		taskrel_free(tr);
		return NULL;
	}
	return tr;
}

void taskrel_free(struct taskrel *tr)
{
	if (!tr)
		return;
	store_chunk_rd_free(tr->rd);
	hmap_destroy(&tr->idx);
	free(tr->v);
	free(tr->log);
	free(tr->next);
	free(tr);
}

static const struct rel *rel_find(const struct taskrel *tr, int32_t pid)
{
	uint64_t *i = hmap_get(&tr->idx, (uint32_t)pid);

	return i ? &tr->v[*i] : NULL;
}

static struct rel *rel_get(struct taskrel *tr, int32_t pid)
{
	bool added;
	uint64_t *i = hmap_put(&tr->idx, (uint32_t)pid, &added);

	if (!i)
		return NULL;
	if (added) {
		if (array_grow((void **)&tr->v, &tr->cap, tr->n + 1, sizeof(*tr->v))) {
			*i = UINT64_MAX;	/* the slot exists: never index with it */
			return NULL;
		}
		*i = tr->n;
		tr->v[tr->n++] = (struct rel){ .pid = pid, .ppid = -1, .tgid = -1 };
	}
	return *i == UINT64_MAX ? NULL : &tr->v[*i];
}

static void log_change(struct taskrel *tr, int32_t pid)
{
	if (array_grow((void **)&tr->log, &tr->caplog, tr->nlog + 1, sizeof(*tr->log)))
		return;
	tr->log[tr->nlog++] = pid;
}

/*
 * Set @pid's links from the trace (@birth: the fork's time) or /proc. -1
 * leaves a link as it is. Return: 1 when something changed, 0, or -ENOMEM.
 */
static int rel_set(struct taskrel *tr, int32_t pid, int32_t ppid, int32_t tgid, uint8_t src,
		   uint64_t birth)
{
	struct rel *r;
	bool changed = false;

	if (pid <= 0)
		return 0;
	r = rel_get(tr, pid);
	if (!r)
		return -ENOMEM;
	/* the trace's word stands over /proc's; a later fork (a reused pid) over an earlier one */
	if (src == TASKREL_PROC && (r->src & TASKREL_TRACE))
		return 0;
	if (src == TASKREL_TRACE && birth && r->birth > birth)
		return 0;
	if (ppid >= 0 && ppid != r->ppid) {
		r->ppid = ppid;
		changed = true;
	}
	if (tgid > 0 && tgid != r->tgid) {
		r->tgid = tgid;
		changed = true;
	}
	if (birth)
		r->birth = birth;
	r->src |= src;
	if (changed)
		log_change(tr, pid);
	return changed;
}

static void reltype_resolve(struct taskrel *tr, struct reltype *t, const char *sys,
			    const char *name, const char *fa, const char *fb)
{
	const struct schema *sc = store_schema(tr->st);
	const struct ktop_schema_type *ty;
	int id;

	if (t->id)
		return;
	id = schema_find(sc, sys, name);
	ty = id > 0 ? schema_get(sc, (uint16_t)id) : NULL;
	if (!ty)
		return;
	t->a = t->b = -1;
	for (unsigned int i = 0; i < ty->nfields; i++) {
		if (!strcmp(ty->fields[i].name, fa))
			t->a = (int)i;
		if (!strcmp(ty->fields[i].name, fb))
			t->b = (int)i;
	}
	if (t->a >= 0 && t->b >= 0)
		t->id = id;
}

static bool wanted(const struct taskrel *tr, uint16_t type)
{
	return type == KTOP_T_SCHED_PROCESS_EXEC || (tr->fork.id && type == tr->fork.id) ||
	       (tr->newtask.id && type == tr->newtask.id);
}

static int learn_row(struct taskrel *tr, const struct store_brow *w, const uint64_t *a)
{
	int32_t parent_tgid;

	if (w->type == KTOP_T_SCHED_PROCESS_EXEC) {
		/* the task leads its group from now on */
		return w->nargs > 1 ? rel_set(tr, (int32_t)a[1], -1, (int32_t)a[1], TASKREL_TRACE,
					      0) : 0;
	}
	if (w->type == tr->fork.id) {
		if (w->nargs <= tr->fork.a || w->nargs <= tr->fork.b)
			return 0;
		return rel_set(tr, (int32_t)a[tr->fork.b], (int32_t)a[tr->fork.a], -1,
			       TASKREL_TRACE, w->ts);
	}
	if (w->nargs <= tr->newtask.a || w->nargs <= tr->newtask.b)
		return 0;
	/* newtask runs in the parent: common_pid forked pid */
	parent_tgid = taskrel_tgid(tr, w->pid);
	if (a[tr->newtask.b] & CLONE_THREAD_FLAG)
		return rel_set(tr, (int32_t)a[tr->newtask.a], w->pid,
			       parent_tgid > 0 ? parent_tgid : -1, TASKREL_TRACE, w->ts);
	return rel_set(tr, (int32_t)a[tr->newtask.a], w->pid, (int32_t)a[tr->newtask.a],
		       TASKREL_TRACE, w->ts);
}

/* One chunk of @cpu from tr->next[cpu]. Return: new links, or a negative errno. */
static int learn_chunk(struct taskrel *tr, unsigned int cpu, const struct store_chunk_info *ci)
{
	struct store_chunk_dict d;
	struct store_chunk_rows r;
	int ret, got = 0;

	if (ci->sealed && !store_chunk_dict(tr->rd, cpu, ci->first_seq, &d)) {
		uint32_t t;

		for (t = 0; t < d.ntype && !wanted(tr, d.type[t]); t++)
			;
		if (t == d.ntype)
			return 0;
	}
	ret = store_chunk_rows(tr->rd, cpu, tr->next[cpu], STORE_COL_ALL, &r);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	for (uint32_t i = r.lo; i < r.n; i++) {
		if (!wanted(tr, r.row[i].type))
			continue;
		ret = learn_row(tr, &r.row[i], &r.args[r.row[i].aoff]);
		if (ret < 0)
			return ret;
		got += ret;
	}
	return got;
}

int taskrel_update(struct taskrel *tr)
{
	struct store_chunk_info ci[64];
	int got = 0;

	reltype_resolve(tr, &tr->fork, "sched", "sched_process_fork", "parent_pid", "child_pid");
	reltype_resolve(tr, &tr->newtask, "task", "task_newtask", "pid", "clone_flags");
	for (unsigned int cpu = 0; cpu < store_ncpus(tr->st); cpu++) {
		size_t n;

		while ((n = store_chunks(tr->st, cpu, tr->next[cpu], ci, 64))) {
			for (size_t k = 0; k < n; k++) {
				int ret;

				if (tr->next[cpu] < ci[k].first_seq)
					tr->next[cpu] = ci[k].first_seq;	/* evicted */
				ret = learn_chunk(tr, cpu, &ci[k]);
				if (ret < 0)
					return ret;
				got += ret;
				tr->next[cpu] = ci[k].first_seq + ci[k].n;
			}
			if (n < 64)
				break;
		}
	}
	return got;
}

/* "pid (comm) S ppid ...": the comm may hold spaces and parentheses. */
static int32_t stat_ppid(const char *path)
{
	char buf[1024], *p;
	int ppid;

	if (file_read_value(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

int taskrel_scan_proc(struct taskrel *tr, const char *procdir)
{
	struct dirent *de, *te;
	char path[512];
	int got = 0;
	DIR *d, *td;

	d = opendir(procdir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int32_t tgid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tgid = (int32_t)atoi(de->d_name);
		snprintf(path, sizeof(path), "%.200s/%.32s/task", procdir, de->d_name);
		td = opendir(path);
		if (!td)
			continue;	/* gone meanwhile */
		while ((te = readdir(td))) {
			int32_t tid, ppid;
			int ret;

			if (!isdigit((unsigned char)te->d_name[0]))
				continue;
			tid = (int32_t)atoi(te->d_name);
			snprintf(path, sizeof(path), "%.200s/%.32s/task/%.32s/stat", procdir, de->d_name,
				 te->d_name);
			ppid = stat_ppid(path);
			if (ppid < 0)
				continue;
			ret = rel_set(tr, tid, ppid, tgid, TASKREL_PROC, 0);
			if (ret < 0) {
				closedir(td);
				closedir(d);
				return ret;
			}
			got += ret;
		}
		closedir(td);
	}
	closedir(d);
	return got;
}

int32_t taskrel_ppid(const struct taskrel *tr, int32_t pid)
{
	const struct rel *r = rel_find(tr, pid);

	return r ? r->ppid : -1;
}

int32_t taskrel_tgid(const struct taskrel *tr, int32_t pid)
{
	const struct rel *r = rel_find(tr, pid);

	return r ? r->tgid : -1;
}

int32_t taskrel_up(const struct taskrel *tr, int32_t pid)
{
	const struct rel *r = rel_find(tr, pid);

	if (!r)
		return -1;
	if (r->tgid > 0 && r->tgid != pid)
		return r->tgid;
	return r->ppid;
}

unsigned int taskrel_source(const struct taskrel *tr, int32_t pid)
{
	const struct rel *r = rel_find(tr, pid);

	return r ? r->src : TASKREL_NONE;
}

uint64_t taskrel_birth(const struct taskrel *tr, int32_t pid)
{
	const struct rel *r = rel_find(tr, pid);

	return r ? r->birth : 0;
}

bool taskrel_descends(const struct taskrel *tr, int32_t pid, int32_t anc)
{
	for (int i = 0; i < TASKREL_MAX_DEPTH && pid > 0; i++) {
		if (pid == anc)
			return true;
		pid = taskrel_up(tr, pid);
	}
	return pid == anc;
}

uint64_t taskrel_gen(const struct taskrel *tr)
{
	return tr->nlog;
}

size_t taskrel_changes(const struct taskrel *tr, uint64_t *cursor, int32_t *out, size_t max)
{
	size_t n = 0;

	while (*cursor < tr->nlog && n < max)
		out[n++] = tr->log[(*cursor)++];
	return n;
}

size_t taskrel_pids(const struct taskrel *tr, int32_t *out, size_t max)
{
	for (size_t i = 0; i < tr->n && i < max; i++)
		out[i] = tr->v[i].pid;
	return tr->n;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The aggregation set's private definitions, shared by agg.c (the set, the
 * poller, the results) and its engines (agg_hist.c, agg_bpf.c).
 */
#ifndef KTOP_AGG_LOCAL_H
#define KTOP_AGG_LOCAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "agg.h"

struct agg_item;

/*
 * An engine: one table of operations (agg.c picks one per measure).
 * create makes the measure in the kernel, all or nothing; poll reads its
 * figures (@full: also the slow ones, such as the START and END hists'
 * totals); destroy removes it. Context: create and destroy under the set's
 * lock; poll on the poller thread (or the caller's, agg_set_poll), one at a time.
 */
struct agg_engine_ops {
	const char	*name;		/* "hist", "bpf" */
	int (*create)(struct agg_set *s, struct agg_item *it, bool sql, char *err,
		      size_t errlen);
	int (*poll)(struct agg_set *s, struct agg_item *it, struct agg_result *r, bool full,
		    char *err, size_t errlen);
	void (*destroy)(struct agg_set *s, struct agg_item *it);
};

extern const struct agg_engine_ops agg_engine_hist;
extern const struct agg_engine_ops agg_engine_bpf;

struct agg_item {
	struct agg_spec		spec;		/* --sql: filled from the synthetic event */
	char			sql[AGG_TEXT_MAX];
	unsigned int		idx;
	const struct agg_engine_ops *ops;
	void			*priv;		/* the engine's */
	char			why[256];
	unsigned int		unit_ns;	/* 1, or 1000 for an SQL latency in usecs */
	/* under the set's lock */
	struct agg_result	res;
	uint64_t		watched_max;	/* the max the watcher last heard of */
};

struct agg_set {
	struct agg_opts		o;
	char			tracefs[PATH_MAX];
	char			events_dir[PATH_MAX];
	char			clock[32];
	char			why[256];	/* which engines, and why */
	struct agg_formats	*fmts;
	bool			fed;		/* results fed from a recording, no kernel */
	pthread_mutex_t		lock;		/* items[], their results, the watcher */
	unsigned int		n;
	struct agg_item		*items[AGG_MAX_ITEMS];
	/* the hist engine's instance ktop-agg-<pid>, made with the first measure */
	char			inst[PATH_MAX];
	bool			inst_made;
	unsigned int		next_synth;	/* ktop_<pid>_<n> */
	/* the poller */
	pthread_t		thread;
	bool			started;
	int			wake[2];	/* a pipe: a byte stops the poller */
	unsigned int		npolls;
	void			(*watch)(void *arg, unsigned int i, const struct agg_worst *w);
	void			*watch_arg;
};

/*
 * The emergency list: what to write, in order, to put the kernel back
 * without allocating (agg_emergency). An engine adds each object as it makes
 * it and drops it as it removes it. Phases: triggers (last made first), the
 * instance, the synthetic events: an instance that goes with triggers on a
 * synthetic event leaves that event busy for good (6.12).
 */
enum agg_em_phase { AGG_EM_TRIGGER, AGG_EM_RMDIR, AGG_EM_SYNTH };

/* Return: a slot, or -1 when the list is full (the object is still made). */
int agg_em_add(enum agg_em_phase phase, const char *path, const char *line);
void agg_em_drop(int slot);

/* Append @line to the tracefs file @path. Return: 0 or a negative errno. */
int agg_tracefs_append(const char *path, const char *line);

/*
 * The kernel's error_log message and caret for the command @cmd it refused,
 * as "MESSAGE\n  CMD\n  ^" into @buf; the errno text when the log has none.
 */
void agg_error_log(const char *dir, const char *cmd, int ret, char *buf, size_t len);

/* The hist engine's instance: made with its first measure, removed by the set. */
int agg_hist_instance_make(struct agg_set *s, char *err, size_t errlen);
void agg_hist_instance_remove(struct agg_set *s);

/* The text of measure @it's key from the values in @kv/@key bytes (agg_bpf). */
void agg_key_text(const struct agg_field *f, unsigned int n, const uint8_t *bytes, char *buf,
		  size_t len);

#endif

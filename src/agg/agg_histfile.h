/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A parser of the kernel's events/SYS/EVENT/hist file: one table per hist
 * trigger on the event, as kernel/trace/trace_events_hist.c prints them
 * (tests/fixtures/hist-rt and hist-rt612 hold files read in the rt guests):
 *
 *	# event histogram
 *	#
 *	# trigger info: hist:keys=next_pid:vals=hitcount,lat:...:onmax($mx).save(te,lat) [active]
 *	#
 *
 *	{ next_pid:        195 } hitcount:          1  lat:      72909
 *		max:      72909  te: 56162512514  lat:      72909
 *	...
 *	Snapshot taken (see tracing/snapshot).  Details:
 *		triggering value { onmax($sn) }:   20929223	triggered by event with key: { ... }
 *
 *	Totals:
 *	    Hits: 1270
 *	    Entries: 13
 *	    Dropped: 0
 *
 * Keys are split by the names the trigger line gives (a padded comm may hold
 * ", "), log2 keys ("~ 2^14") and .execname keys ("cat  [  210]") read as
 * their numbers, strings trimmed. No libtracefs release parses this file.
 */
#ifndef KTOP_AGG_HISTFILE_H
#define KTOP_AGG_HISTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGG_HF_NAME	64
#define AGG_HF_TEXT	128
#define AGG_HF_KEYS	8
#define AGG_HF_VALS	8

enum agg_hf_kind {
	AGG_HF_NUM,		/* an integer (decimal or 0x hex) */
	AGG_HF_LOG2,		/* "~ 2^N": num is N */
	AGG_HF_TASK,		/* .execname "comm [pid]": text the comm, num the pid */
	AGG_HF_TEXT_ONLY,	/* anything else: strings, symbols, stacks */
};

struct agg_hf_kv {
	char		name[AGG_HF_NAME];
	char		text[AGG_HF_TEXT];	/* trimmed as printed */
	uint64_t	num;
	uint8_t		kind;			/* enum agg_hf_kind */
};

struct agg_hf_entry {
	unsigned int	nkey, nval, nsaved;
	struct agg_hf_kv key[AGG_HF_KEYS];
	struct agg_hf_kv val[AGG_HF_VALS];	/* hitcount first, then the vals */
	/* an onmax()/onchange() line: "max: N  saved: ..." */
	char		track[16];		/* "max", "changed"; "" for none */
	uint64_t	track_val;
	struct agg_hf_kv saved[AGG_HF_VALS];
};

struct agg_hf_table {
	char		trigger[1024];		/* the trigger info, without " [active]" */
	bool		paused;
	size_t		nent;
	struct agg_hf_entry *ent;
	bool		has_totals;
	uint64_t	hits, entries, dropped;
	/* an onmax().snapshot() that took one */
	bool		snapshot;
	uint64_t	snap_val;
	char		snap_key[256];
};

struct agg_histfile {
	size_t		ntab;
	struct agg_hf_table *tab;
};

/**
 * agg_histfile_parse - parse the text of a hist file
 * @out: filled (free with agg_histfile_free, also on failure)
 * @err: why the text is not a hist file, with its line
 * Return: 0, -EBADMSG (not a hist file, or a line it cannot read), -ENOMEM.
 */
int agg_histfile_parse(const char *text, struct agg_histfile *out, char *err, size_t errlen);
void agg_histfile_free(struct agg_histfile *h);

/* The first table whose trigger begins with @prefix, or NULL. */
const struct agg_hf_table *agg_histfile_find(const struct agg_histfile *h, const char *prefix);

/* @name's key, value or saved value (an onmax line's) in @e, or NULL. */
const struct agg_hf_kv *agg_hf_key(const struct agg_hf_entry *e, const char *name);
const struct agg_hf_kv *agg_hf_val(const struct agg_hf_entry *e, const char *name);
const struct agg_hf_kv *agg_hf_saved(const struct agg_hf_entry *e, const char *name);

#endif

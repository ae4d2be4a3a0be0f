/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an in-kernel aggregation measures, parsed and resolved against the
 * events' formats before anything is written to the kernel:
 *
 *   --latency 'START -> END [on SF = EF[, SF = EF]...] [by EF[,EF]...] [where FILTER]'
 *	the time from START to the next END whose match fields equal START's
 *	(without "on": the same task, common_pid = common_pid); "by" names the
 *	END fields the per-key breakdown is kept by (default: END's match
 *	fields); FILTER is the kernel's filter grammar, each top-level &&
 *	clause going to the event whose fields it names (start.F / end.F
 *	say which where both have F)
 *   --hist 'EVENT key=F[,F]... [val=F] [where FILTER]'
 *	counts (and the sum of F) by key, as bpftrace's @[k] = count() does
 *
 * Events are SYSTEM:EVENT (or SYSTEM/EVENT, SYSTEM.EVENT), or EVENT alone
 * when one system has it. Every error names what is wrong (the event, the
 * field and the fields it has, the two sizes that differ) with the position
 * of the mistake for a caret (agg_err_format).
 *
 * The resolved fields carry their offsets and sizes in the record, as the
 * format files give them: the BPF engine reads records at those offsets, so
 * one compiled program serves every spec (src/agg/agg_bpf.c).
 */
#ifndef KTOP_AGG_SPEC_H
#define KTOP_AGG_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGG_NAME_MAX	64
#define AGG_TEXT_MAX	512
#define AGG_MATCH_MAX	4	/* on: field pairs */
#define AGG_KEYF_MAX	4	/* by:, key=: fields */
#define AGG_PRED_MAX	8	/* where: clauses the BPF engine evaluates, per event */
#define AGG_STR_MAX	16	/* longest string the BPF engine compares or keys on */
#define AGG_KEY_BYTES	32	/* the BPF engine's key: match or by fields, packed */

struct tep_handle;

enum agg_kind {
	AGG_FT_UINT,		/* integers, pointers: compared and printed unsigned */
	AGG_FT_SINT,
	AGG_FT_STR,		/* char NAME[N] */
	AGG_FT_DSTR,		/* __data_loc char[] NAME */
	AGG_FT_OTHER,		/* other arrays */
};

struct agg_field {
	char		name[AGG_NAME_MAX];
	char		type[AGG_NAME_MAX];	/* as the format gives it: "pid_t", "char[16]" */
	uint16_t	offset;			/* in the record, common fields included */
	uint16_t	size;
	uint8_t		kind;			/* enum agg_kind */
};

struct agg_event {
	char		sys[AGG_NAME_MAX];
	char		name[AGG_NAME_MAX];
	int		id;
};

enum agg_op { AGG_OP_EQ, AGG_OP_NE, AGG_OP_LT, AGG_OP_LE, AGG_OP_GT, AGG_OP_GE, AGG_OP_AND };

/* One "FIELD OP VALUE" clause of a where, as the BPF engine evaluates it. */
struct agg_pred {
	struct agg_field f;
	uint8_t		op;			/* enum agg_op */
	uint64_t	val;			/* numbers (two's complement for signed) */
	char		str[AGG_STR_MAX + 1];	/* strings: == and != only */
};

/* One event's part of a where: the kernel's text, and the same as predicates. */
struct agg_filter {
	char		kernel[AGG_TEXT_MAX];	/* "" for none */
	unsigned int	npred;
	struct agg_pred	pred[AGG_PRED_MAX];
};

enum agg_spec_kind { AGG_LATENCY, AGG_HIST };

struct agg_spec {
	enum agg_spec_kind kind;
	char		text[AGG_TEXT_MAX];	/* as typed */
	/* AGG_LATENCY: ev[0] START, ev[1] END; AGG_HIST: ev[0] */
	struct agg_event ev[2];
	/* AGG_LATENCY: match[0][i] of START equals match[1][i] of END */
	unsigned int	nmatch;
	struct agg_field match[2][AGG_MATCH_MAX];
	bool		match_default;		/* no "on": common_pid = common_pid */
	/* the per-key breakdown (latency: END fields, "by"), or the --hist keys */
	unsigned int	nkey;
	struct agg_field key[AGG_KEYF_MAX];
	bool		key_default;		/* latency without "by": END's match fields */
	bool		has_val;		/* --hist val=F */
	struct agg_field val;
	struct agg_filter filt[2];		/* per event, as ev[] */
	/* why the BPF engine cannot measure this spec; "" when it can */
	char		bpf_no[256];
};

/*
 * Where the formats come from: the events/ directory of a tracefs mount, or
 * of a recorded fixture (format.gz read where there is no plain format).
 */
struct agg_formats;

/* Return: 0 and *@out (free with agg_formats_free), or -ENOMEM. */
int agg_formats_new(struct agg_formats **out, const char *events_dir);
void agg_formats_free(struct agg_formats *f);
/* The tep that holds the formats read so far (libtracefs' synth and sql take it). */
struct tep_handle *agg_formats_tep(struct agg_formats *f);

/**
 * agg_formats_event - find and parse an event's format
 * @sys: its system, or NULL/"" to look for @name in every system
 * @ev: filled (its system, name and id)
 * @err: on failure, why: no such event (with the systems that have one by
 *	 that name when it is ambiguous), an unreadable format
 * Return: 0, -ENOENT, -EEXIST (ambiguous), or another negative errno.
 */
int agg_formats_event(struct agg_formats *f, const char *sys, const char *name,
		      struct agg_event *ev, char *err, size_t errlen);

/**
 * agg_formats_field - @name's field of event @ev (common fields included)
 * Return: 0 and @out filled, or -ENOENT.
 */
int agg_formats_field(struct agg_formats *f, const struct agg_event *ev, const char *name,
		      struct agg_field *out);

/* "prev_comm, prev_pid, ..." (not the common fields) into @buf. Return: @buf. */
char *agg_formats_fields(struct agg_formats *f, const struct agg_event *ev, char *buf,
			 size_t len);

/* Where a parse failed: the message, and the byte of the spec it points at (-1: none). */
struct agg_err {
	int		pos;
	char		msg[768];
};

/**
 * agg_spec_parse - parse @text as a --latency (@kind AGG_LATENCY) or --hist spec
 * @f: the formats its events and fields are resolved against
 * @out: filled on success
 * Return: 0, or -EINVAL (-ENOENT for a missing event) with @e filled.
 */
int agg_spec_parse(enum agg_spec_kind kind, const char *text, struct agg_formats *f,
		   struct agg_spec *out, struct agg_err *e);

/*
 * "MSG" and, when @e->pos is set, @text with a caret under the mistake on the
 * next two lines, into @buf. Return: @buf.
 */
char *agg_err_format(const struct agg_err *e, const char *text, char *buf, size_t len);


/* "sched:sched_waking" into @buf. Return: @buf. */
char *agg_event_name(const struct agg_event *ev, char *buf, size_t len);

/* "sched:sched_waking -> sched:sched_switch on pid = next_pid" from the parse. */
char *agg_spec_title(const struct agg_spec *s, char *buf, size_t len);

#endif

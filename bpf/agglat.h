/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Types shared by bpf/agglat.bpf.c and src/agg/agg_bpf.c: the generic
 * aggregation program. Which fields of which records it reads is not
 * compiled in: user space fills struct agglat_cfg (rodata) from the events'
 * format files before the load, so one object serves every --latency and
 * --hist spec, with no compiler at run time.
 */
#ifndef KTOP_BPF_AGGLAT_H
#define KTOP_BPF_AGGLAT_H

#define AGGLAT_KEY_BYTES	32	/* match or key fields, packed (AGG_KEY_BYTES) */
#define AGGLAT_FIELDS		4	/* per key (AGG_MATCH_MAX, AGG_KEYF_MAX) */
#define AGGLAT_PREDS		8	/* where clauses per event (AGG_PRED_MAX) */
#define AGGLAT_STR_MAX		16	/* string compares (AGG_STR_MAX) */
#define AGGLAT_BUCKETS		64	/* ceil(log2(ns)): bucket b holds (2^(b-1), 2^b] */
#define AGGLAT_MAX_PENDING	16384	/* START timestamps waiting for their END */
#define AGGLAT_MAX_KEYS		4096	/* rows of the per-key breakdown */

enum agglat_mode { AGGLAT_LATENCY = 1, AGGLAT_HIST };
/*
 * AGGLAT_CURPID: common_pid read as the current task's pid (bpf_get_current_pid_tgid):
 * the kernel hands a BPF program on a syscalls:* event a record whose first 8
 * bytes, the common fields, hold a pt_regs pointer instead.
 */
enum agglat_kind { AGGLAT_UINT, AGGLAT_SINT, AGGLAT_STR, AGGLAT_CURPID };
enum agglat_op { AGGLAT_EQ, AGGLAT_NE, AGGLAT_LT, AGGLAT_LE, AGGLAT_GT, AGGLAT_GE, AGGLAT_AND };

struct agglat_field {
	__u16	off;		/* in the record (the tracepoint's context) */
	__u16	size;
	__u8	koff;		/* in the key */
	__u8	kind;		/* enum agglat_kind */
	__u8	pad[2];
};

struct agglat_pred {
	__u16	off;
	__u16	size;
	__u8	op;		/* enum agglat_op; strings: EQ, NE */
	__u8	kind;
	__u8	pad[2];
	__u64	val;
	char	str[AGGLAT_STR_MAX];
};

struct agglat_side {
	__u32			nf, np;
	struct agglat_field	f[AGGLAT_FIELDS];	/* the match fields */
	struct agglat_pred	p[AGGLAT_PREDS];	/* all must hold */
};

struct agglat_cfg {
	__u32			mode;		/* enum agglat_mode */
	__u32			nby;
	struct agglat_side	start, end;	/* AGGLAT_HIST: end only */
	struct agglat_field	by[AGGLAT_FIELDS];	/* per-key breakdown, END's fields */
	struct agglat_field	val;		/* AGGLAT_HIST: summed; size 0: none */
};

struct agglat_key {
	__u8	b[AGGLAT_KEY_BYTES];
};

/* Per CPU; user space sums the counts and takes the min and max over CPUs. */
struct agglat_total {
	__u64			starts;		/* START records that passed their filter */
	__u64			ends;		/* END records that passed theirs */
	__u64			pairs;		/* ENDs that found a START: the latencies */
	__u64			sum;
	__u64			min, max;	/* min: 0 until the first pair */
	__u64			max_te;		/* the max pair's END time (bpf_ktime_get_ns) */
	__u64			restarts;	/* a START for a key whose START was pending */
	__u64			start_full;	/* STARTs left out: AGGLAT_MAX_PENDING pending */
	__u64			key_full;	/* pairs left out of the breakdown: its map full */
	struct agglat_key	max_key;	/* the max pair's breakdown key */
	__u64			bucket[AGGLAT_BUCKETS];
};

/* A row of the breakdown (per CPU): latency pairs, or --hist counts. */
struct agglat_row {
	__u64	count;
	__u64	sum;		/* latencies; --hist: the val field */
	__u64	max;
	__u64	max_te;
};

#endif

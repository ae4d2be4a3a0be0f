/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Raw ring-buffer pages -> struct ktop_event -> store.
 *
 * decode_ctx holds what every CPU shares: the tep handle, the field offsets
 * of every event type resolved once, the symbol table. A decoder is per CPU
 * (per consumer thread): it owns a kbuffer and small caches, so decoding one
 * event is a few loads, never a name lookup.
 */
#ifndef KTOP_DECODE_H
#define KTOP_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/event.h"

struct tep_handle;
struct tep_event;
struct ktop_field;
struct store;
struct symbols;
struct decode_ctx;
struct decoder;

/**
 * decode_ctx_new - resolve offsets of all events known to @tep
 * @syms: may be NULL (addresses then print as hex)
 * Context: setup, before consumer threads start.
 * Return: the context (free with decode_ctx_free), or NULL with errno set.
 */
struct decode_ctx *decode_ctx_new(struct tep_handle *tep, struct store *st,
				  struct symbols *syms);
void decode_ctx_free(struct decode_ctx *dc);

/**
 * decode_ctx_set_kinds - how the integer fields of event @system:@name read
 * when its format cannot say: a probe event's x64 field is a plain u64 in
 * the format, its symbol field too (the probe's definition knows)
 * @fields: names and kinds (KTOP_FK_HEX, _INT, _UINT, _SYM); fields not in
 *	    the format, and strings, are left as they are
 *
 * Context: setup, before the decoders start.
 * Return: the number of fields set, or -ENOENT for an unknown event.
 */
int decode_ctx_set_kinds(struct decode_ctx *dc, const char *system, const char *name,
			 const struct ktop_field *fields, unsigned int n);

/**
 * decode_ctx_add_event - decode event @ev too: one defined after
 * decode_ctx_new() (a probe made while tracing), whose format was read into
 * the same tep since. The kernel gives a removed event's id to a later one:
 * then @ev takes the id over (the events stored before keep their type).
 * Context: no decoder may run (the caller stopped the readers).
 * Return: 0, or -EINVAL (an id out of range, a format libtraceevent could not
 * parse), -ENOMEM.
 */
int decode_ctx_add_event(struct decode_ctx *dc, struct tep_event *ev);

/*
 * Return: true when the formats carry common_preempt_lazy_count (the old
 * PREEMPT_RT lazy-preemption kernels, 6.1-rt): the latency column then has
 * two more letters, see flags_style_detect() in src/model/flags.h.
 */
bool decode_ctx_has_lazy_count(const struct decode_ctx *dc);

struct decoder *decoder_new(struct decode_ctx *dc, unsigned int cpu);
/* Commits and publishes the event decoder_flush() would (its store must still be there). */
void decoder_free(struct decoder *d);

/* Flag categories counted per decoded event (decode_stats.flags[]). */
enum decode_flag {
	DECODE_F_IRQS_OFF,	/* KTOP_KF_IRQS_OFF */
	DECODE_F_NEED_RESCHED,	/* KTOP_KF_NEED_RESCHED */
	DECODE_F_HARDIRQ,	/* KTOP_KF_HARDIRQ */
	DECODE_F_SOFTIRQ,	/* KTOP_KF_SOFTIRQ */
	DECODE_F_NMI,		/* KTOP_KF_NMI */
	DECODE_F_PREEMPT,	/* KTOP_PC_PREEMPT(pc) > 0 */
	DECODE_F_MIGRATE,	/* KTOP_PC_MIGRATE(pc) > 0 (migrate disabled) */
	DECODE_F_NR,
};

struct decode_stats {
	uint64_t	events;		/* decoded and appended */
	uint64_t	missed;		/* from kbuffer missed-events marks */
	uint64_t	missed_marks;	/* pages that carried a mark */
	uint64_t	pages;
	uint64_t	bad;		/* records that could not be decoded */
	uint64_t	stacks;		/* stack records tied to their event */
	uint64_t	stack_dropped;	/* stack records with no event to go to, not asked
					 * for, or a second of the same part */
	uint64_t	stack_cut;	/* events let go without their stack after tracing
					 * stopped (decoder_flush()) */
	/* appended events with each flag category, counted by decoder_page() */
	uint64_t	flags[DECODE_F_NR];
	/* appended events whose context was not recorded (ktop_ctx_recorded()): in no flags[] */
	uint64_t	flags_unrecorded;
};

/**
 * decoder_page - decode one raw ring-buffer page (as read from
 * trace_pipe_raw) and append its events to the store
 *
 * Missed-event marks on the page become store_add_lost() records.
 * Context: the thread owning @d.
 * Return: number of events appended, or a negative errno for a malformed page.
 */
int decoder_page(struct decoder *d, void *page, size_t len, struct decode_stats *stats);

/**
 * decoder_flush - commit and publish the event decoder_page() held back
 *
 * An event that ends a page, of a type that carries stacks, waits for the
 * next page of its CPU (its stack record may start it). The reader calls
 * this when no page came for a while, and before it stops.
 * @stopped: tracing is off. The kernel writes an event's stack as a record of
 * its own after the event, and refuses it once tracing_on is 0: a stop between
 * the two leaves the last event of a CPU without its stack. Such an event,
 * still held, is counted in @stats->stack_cut (it goes in all the same).
 * Context: the thread owning @d.
 * Return: events appended (0 or 1).
 */
int decoder_flush(struct decoder *d, bool stopped, struct decode_stats *stats);

/* An event is held back for its stack (decoder_flush() lets it go). Context: @d's thread. */
bool decoder_held(const struct decoder *d);

/**
 * decode_ctx_want_stacks - say which events carry stacks
 * @spec: "system:event", "system" or "event", globs allowed (as -e takes them)
 * @parts: 1 kernel stack, 2 user stack (or both)
 *
 * Events matched are held back at the end of a page until their stack came
 * (otherwise the decoder learns it from the first stacks it sees), and with
 * decode_ctx_stack_filter() only these parts are kept.
 * Context: setup, before the decoders run.
 * Return: the number of event types matched.
 */
int decode_ctx_want_stacks(struct decode_ctx *dc, const char *spec, unsigned int parts);

/*
 * Keep only the stack parts decode_ctx_want_stacks() asked for: a user
 * stack comes with every event of the instance (options/userstacktrace has
 * no per-event switch), a kernel stack too when the instance's
 * options/stacktrace stands in for refused triggers.
 */
void decode_ctx_stack_filter(struct decode_ctx *dc, bool on);

/* decoder_record(): the record was a stack, for the event decoded before it */
#define DECODE_RECORD_STACK	1

/*
 * Decode one event into @out without storing it (tests, tools). Like
 * decoder_page(), it still updates the store's comm table from sched_switch,
 * sched_wakeup(_new), sched_process_exec/exit and osnoise:thread_noise.
 * A stack record is not an event: it returns DECODE_RECORD_STACK with
 * @out->stack the new stack id of the event decoded just before (on this
 * decoder), which the caller gives that event.
 * Return: 0, DECODE_RECORD_STACK, -ENOENT for an event id the tep does not
 * know, -EINVAL for a record too short for its format.
 */
int decoder_record(struct decoder *d, const void *data, int size, uint64_t ts,
		   struct ktop_event *out);

#endif

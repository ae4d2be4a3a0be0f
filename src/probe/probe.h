/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktop's dynamic probe events: one probe_set per ktop, its events in the
 * group ktop_<pid>, defined through dynamic_events (or kprobe_events and
 * uprobe_events on kernels without it) and enabled only in ktop's own
 * instance. What the command line (--probe) and the probe prompt call:
 *
 *   probe_preview()	parse, resolve and generate; nothing is created
 *   probe_complete()	candidates for the word under the cursor
 *   probe_create()	define one (the prompt's Enter)
 *   probe_create_all()	define several, all or none (--probe ...)
 *   probe_enable()	on/off in an instance
 *   probe_remove()	undefine one; probe_set_free() undefines the rest
 *
 * Only events of ktop's own group are ever removed. Every exit path removes
 * them: probe_set_free() on the normal ones, probe_emergency() (from the
 * session's fatal-signal and atexit path) on the others, and a later ktop's
 * probe_reap_stale() after a SIGKILL.
 */
#ifndef KTOP_PROBE_H
#define KTOP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "probe_gen.h"

struct probe_set;

/**
 * probe_caps_read - what probe events this kernel offers, changing nothing
 * (the files there are, the README's syntax section, and for eprobes, whose
 * syntax line is there in any case, /proc/config.gz or kallsyms)
 * Return: 0, or a negative errno when tracefs cannot be read.
 */
int probe_caps_read(const char *tracefs, struct probe_caps *c);

/**
 * probe_example - a spec that works on a kernel with @c, for the messages
 * about an empty one: a kernel function where it has kprobes, a uprobe where
 * it has only uprobes, both when @c is NULL (tracefs unread) or says neither.
 * Return: the example(s), quoted, each saying what it is (a constant).
 */
const char *probe_example(const struct probe_caps *c);

/**
 * probe_set_new - ktop's probes, in group ktop_<pid>
 * @btf_path: the BTF to read, NULL: the running kernel's (tests point it
 *	      elsewhere)
 * Return: 0, or a negative errno with @err filled.
 */
int probe_set_new(struct probe_set **out, const char *tracefs, const char *btf_path,
		  char *err, size_t errlen);

/* Remove every probe of the set from the kernel, then free it. Accepts NULL. */
void probe_set_free(struct probe_set *ps);

/* One probe of a set as the kernel has it now (the probe list). */
struct probe_info {
	const struct probe_def	*def;		/* valid until the next create, remove */
	int			enabled;	/* 1, 0, or a negative errno: cannot tell */
	bool			have_hits;	/* the kernel counts its hits in @hits_from */
	uint64_t		hits;		/* times it fired since it was defined */
	const char		*hits_from;	/* "uprobe_profile", "kprobe_profile" */
};

const char *probe_set_group(const struct probe_set *ps);	/* "ktop_1234" */
const struct probe_caps *probe_set_caps(const struct probe_set *ps);
unsigned int probe_set_count(const struct probe_set *ps);
const struct probe_def *probe_set_get(const struct probe_set *ps, unsigned int i);

/**
 * probe_preview - the definition @spec would create, nothing written
 * @def: receives the line, the prototype, the fields
 * @err: the message for the user when the spec cannot be probed: bad syntax
 *	 (with a caret under it), unknown function (with close names), a
 *	 function that cannot be probed (and why), no BTF, a missing member
 *	 (with the struct's members), a binary without that symbol
 * Return: 0, or a negative errno.
 */
int probe_preview(struct probe_set *ps, const char *spec, struct probe_def *def, char *err,
		  size_t errlen);

/**
 * probe_create - define @spec's event in the kernel (not enabled)
 * A definition the kernel refuses gets the error_log's message with the
 * caret under the refused token in @err.
 * Return: 0 (@def filled when not NULL), or a negative errno, nothing defined.
 */
int probe_create(struct probe_set *ps, const char *spec, struct probe_def *def, char *err,
		 size_t errlen);

/**
 * probe_create_all - define every spec of @specs, or none: on a failure the
 * ones defined before it are removed again
 * Return: 0, or a negative errno with @err naming the spec.
 */
int probe_create_all(struct probe_set *ps, const char *const *specs, unsigned int n,
		     char *err, size_t errlen);

/**
 * probe_proto - the C prototype of kernel function @func from BTF, whether or
 * not this kernel can probe it (the prompt shows it as soon as it is typed)
 * Return: 0, -ENOENT (no BTF, or no such function in it).
 */
int probe_proto(struct probe_set *ps, const char *func, char *buf, size_t len);

/*
 * Undefine @event (first disabled in no instance: the caller disables it).
 * Its name is not given to a later probe of the set: the events recorded
 * under it keep their fields (the store knows an event type by its name).
 */
int probe_remove(struct probe_set *ps, const char *event, char *err, size_t errlen);

/* Enable or disable @event in the instance at @instance_dir. Return: 0 or -errno. */
int probe_enable(struct probe_set *ps, const char *instance_dir, const char *event, bool on);

/**
 * probe_complete - candidates for the word that ends at @cursor in @text:
 * function names (BTF), a binary's symbols, an event system's events,
 * parameter names, the members of the struct an expression points to, types
 * @out: receives malloc()ed words (free each); @start: where the word begins
 * Return: the number of candidates.
 */
int probe_complete(struct probe_set *ps, const char *text, size_t cursor, char **out,
		   size_t max, size_t *start);

/**
 * probe_reap_stale - undefine the probes of ktop_<pid> groups whose ktop is
 * dead (killed with SIGKILL); other groups are never touched
 * @tracefs: the mount point; NULL: the one libtracefs finds
 * @alive: tells a live ktop from a dead one
 * Return: the number of events removed.
 */
int probe_reap_stale(const char *tracefs, bool (*alive)(long pid));

/*
 * Undefine the live set's probes, without allocating: for the fatal-signal
 * and atexit paths, after the session's instance is gone.
 * Context: async-signal-safe.
 */
void probe_emergency(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The filter prompt's language: parsing a line, matching it against
 * available_filter_functions, the as-you-type preview and Tab completion.
 * Pure user space: nothing here touches tracefs (src/funcfilter/ftrace_filter.h applies
 * a line to the kernel).
 *
 * Grammar of one prompt line (at most FUNCFILTER_LINE_MAX bytes, UTF-8, no control
 * characters but tab):
 *
 *   line    := event-filter | [ '+' ] item { ws item }
 *   item    := [ '-n' ws | '-g' ws | '-l' ws ] term
 *            | 'pid:' [ PID { ',' PID } ]       set_ftrace_pid + set_event_pid
 *            | 'comm:' NAME                     the pids (tids) whose comm is NAME
 *   term    := [ '!' ] pattern [ ':mod:' MODULE ]
 *            | [ '!' ] ':mod:' MODULE           every function of MODULE
 *            | ':clear'                         empty the file (all functions)
 *   pattern := GLOB                  the kernel's glob: * ? [a-z] [!a-z] \x
 *            | '/' REGEX '/'         pcre2, unanchored; \/ for a slash
 *   event-filter := [ SYSTEM ':' ] EVENT ':' ws EXPR
 *                                    written as is to events/SYSTEM/EVENT/filter;
 *                                    EXPR '0' clears it
 *
 * Targets: a term without a flag is for set_ftrace_filter, after '-n' for
 * set_ftrace_notrace, after '-g' for set_graph_function (the flag binds to
 * the next term only, like ktop's command-line options).
 *
 * Meaning: for each target the line names, the new content is
 *     (line starts with '+' ? current content : empty)
 *     + every function a positive term matches - every function a '!' term matches
 * i.e. a plain line replaces the file like `echo ... > file`, a '+' line adds
 * to it like `echo ... >> file`. A '!'-only line removes from the current
 * content. Targets the line does not name are left alone. A term that
 * matches no function at all is an error, as is a line whose result would
 * be an empty set_ftrace_filter (the kernel reads empty as "every
 * function": say ':clear' for that).
 *
 * Examples:
 *   vfs_*                    trace vfs_* only
 *   + /^tcp_(send|recv)/     add the tcp send/receive functions
 *   *lock* !*unlock*         the lock functions, but not the unlock ones
 *   -n *spin*                never trace *spin*
 *   -g do_sys_open           graph roots
 *   :mod:ext4                every ext4 function (ext4 must be loaded)
 *   pid:1234,1235            only those tasks
 *   comm:bash                only the tasks named bash
 *   sched_switch: prev_pid == 1
 */
#ifndef KTOP_FUNCFILTER_H
#define KTOP_FUNCFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

#define FUNCFILTER_LINE_MAX		4096	/* bytes in one prompt line */
#define FUNCFILTER_MAX_PIDS		256
#define FUNCFILTER_PREVIEW_NAMES	16	/* names a preview holds */
#define FUNCFILTER_COMPLETE_MAX	64	/* candidates a completion holds */

/* The files a line can change. */
enum funcfilter_target {
	FUNCFILTER_T_FILTER,	/* set_ftrace_filter */
	FUNCFILTER_T_NOTRACE,	/* set_ftrace_notrace */
	FUNCFILTER_T_GRAPH,		/* set_graph_function */
	FUNCFILTER_T_NR,
};

/* Name of the tracefs file of @t ("set_ftrace_filter", ...). */
const char *funcfilter_target_file(enum funcfilter_target t);

/* ---- available_filter_functions ----------------------------------------- */

/*
 * The kernel's list of traceable functions, in the kernel's order: function
 * i (0-based) is line i + 1, the number the kernel's index form takes.
 */
struct funcfilter_funcs;

/**
 * funcfilter_funcs_parse - index the text of an available_filter_functions
 * @buf: the file's content ("name" or "name [module]" per line); copied
 *
 * Return: the list (free with funcfilter_funcs_free), or NULL on ENOMEM.
 */
struct funcfilter_funcs *funcfilter_funcs_parse(const char *buf, size_t len);

/**
 * funcfilter_funcs_load - read and index an available_filter_functions file
 * @path: the kernel's, or a recorded copy, plain or gzip'd
 * Return: 0, or a negative errno (-EPERM where the kernel forbids reading it).
 */
int funcfilter_funcs_load(struct funcfilter_funcs **out, const char *path);
void funcfilter_funcs_free(struct funcfilter_funcs *ff);

size_t funcfilter_funcs_count(const struct funcfilter_funcs *ff);
/* Return: the name of function @i (without its module), "" when out of range. */
const char *funcfilter_funcs_name(const struct funcfilter_funcs *ff, size_t i);
/* Return: the module of function @i, "" for the kernel image. */
const char *funcfilter_funcs_module(const struct funcfilter_funcs *ff, size_t i);
/* Return: true when some function carries the tag [@module]. */
bool funcfilter_funcs_has_module(const struct funcfilter_funcs *ff, const char *module);

/**
 * funcfilter_funcs_find_line - the functions a line of set_ftrace_filter names
 * @line: "name" or "name [module]", as the kernel prints them (no newline)
 * @first: receives the first index whose line is exactly @line
 *
 * Return: how many functions have that exact line (duplicates exist: static
 * functions of the same name), 0 when none. funcfilter_funcs_next_same() walks
 * the others.
 */
size_t funcfilter_funcs_find_line(const struct funcfilter_funcs *ff, const char *line, size_t len,
				  size_t *first);
/* Return: the next index with the same line as @i, or SIZE_MAX. */
size_t funcfilter_funcs_next_same(const struct funcfilter_funcs *ff, size_t i);

/* ---- sets of functions ----------------------------------------------------- */

/* A bitmap over the indexes of one funcfilter_funcs. */
struct funcfilter_set {
	uint64_t	*bits;
	size_t		nbits;
};

/* All clear. Return: 0 or -ENOMEM. */
int funcfilter_set_init(struct funcfilter_set *s, size_t nbits);
void funcfilter_set_destroy(struct funcfilter_set *s);
static inline bool funcfilter_set_test(const struct funcfilter_set *s, size_t i)
{
	return i < s->nbits && (s->bits[i / 64] >> (i % 64)) & 1;
}
static inline void funcfilter_set_add(struct funcfilter_set *s, size_t i)
{
	if (i < s->nbits)
		s->bits[i / 64] |= 1ull << (i % 64);
}
size_t funcfilter_set_count(const struct funcfilter_set *s);
/* Return: the first member >= @from, or SIZE_MAX. */
size_t funcfilter_set_next(const struct funcfilter_set *s, size_t from);

/* ---- parsing ---------------------------------------------------------------- */

/* One parsed line. Opaque; free with funcfilter_spec_free. */
struct funcfilter_spec;

/**
 * funcfilter_spec_parse - parse and compile one prompt line
 * @ff: the functions, to check :mod: names against (may be NULL: not checked)
 * @err: receives the message and offset on failure
 *
 * Checks everything that can be checked without the kernel: length,
 * encoding, syntax, regexes (pcre2 compile, JIT), :mod: of a loaded module
 * (tag in @ff or a line of /proc/modules), comm: names that exist.
 * Return: 0 and *out (free with funcfilter_spec_free), or -EINVAL / -ENOMEM /
 * -E2BIG (too long) / -ENOENT (module, comm) / -EILSEQ (encoding).
 */
int funcfilter_spec_parse(struct funcfilter_spec **out, const char *line,
			  const struct funcfilter_funcs *ff, struct err_pos *err);
void funcfilter_spec_free(struct funcfilter_spec *sp);

/* Does the line change @t? Does it add to (rather than replace) it? */
bool funcfilter_spec_has_target(const struct funcfilter_spec *sp, enum funcfilter_target t);
bool funcfilter_spec_appends(const struct funcfilter_spec *sp);
bool funcfilter_spec_clears(const struct funcfilter_spec *sp, enum funcfilter_target t);

/* pid:/comm: items: the pids, or -1 when the line has none (0 pids: clear). */
int funcfilter_spec_pids(const struct funcfilter_spec *sp, const int **pids);

/* Event filter lines: true and the parts ("" system when not given). */
bool funcfilter_spec_event(const struct funcfilter_spec *sp, const char **system,
			   const char **event, const char **expr);

/**
 * funcfilter_spec_resolve - the new content of @t
 * @current: the file's content now (NULL: empty); used by '+' and '!'-only lines
 * @out: initialised by the caller to funcfilter_funcs_count(ff) bits; receives the set
 *
 * Return: 0, -EINVAL with @err set when a term matches nothing or the result
 * would empty set_ftrace_filter, -ERANGE when a regex hit pcre2's match
 * limit (a catastrophic pattern).
 */
int funcfilter_spec_resolve(const struct funcfilter_spec *sp, const struct funcfilter_funcs *ff,
			    enum funcfilter_target t, const struct funcfilter_set *current,
			    struct funcfilter_set *out, struct err_pos *err);

/* ---- the prompt: preview and completion --------------------------------------- */

struct funcfilter_preview {
	bool		ok;		/* the line parses; false: see err */
	struct err_pos err;
	size_t		count;		/* functions the first function target would get */
	/* that target (FUNCFILTER_T_NR: no function target) */
	enum funcfilter_target target;
	size_t		nnames;
	/* the first of them, point into ff */
	const char	*names[FUNCFILTER_PREVIEW_NAMES];
	char		text[512];	/* one line for the prompt, ready to draw */
};

/**
 * funcfilter_preview_line - what the line would do, as the user types it
 * @ff: the functions (NULL: only syntax is checked)
 * @current: the current set_ftrace_filter (for '+' and '!' lines), or NULL
 *
 * Never touches the kernel. Return: 0 when the line is valid, else the
 * negative errno of the problem (pv->err says what and where).
 * Context: any thread; cost about 1-5 ms for 50k functions.
 */
int funcfilter_preview_line(const struct funcfilter_funcs *ff, const char *line,
			    const struct funcfilter_set *current, struct funcfilter_preview *pv);

struct funcfilter_completion {
	size_t		start;		/* the word being completed is line[start, cursor) */
	char		prefix[256];	/* the longest common prefix of the candidates,
					 * which replaces that word (keeps a leading '!') */
	size_t		ncand;		/* candidates in total */
	/* the first, sorted; point into ff */
	const char	*cand[FUNCFILTER_COMPLETE_MAX];
};

/**
 * funcfilter_complete - Tab: complete the function name before @cursor
 *
 * Return: the number of candidates (0: nothing to complete, c->prefix is the
 * word unchanged).
 */
size_t funcfilter_complete(const struct funcfilter_funcs *ff, const char *line, size_t cursor,
			   struct funcfilter_completion *c);

#endif

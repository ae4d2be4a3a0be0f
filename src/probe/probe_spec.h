/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe spec: one line that says where to probe and what to record,
 * shared by --probe and the probe prompt. Close to the kernel's
 * dynamic_events syntax and to perf probe's "FUNC ARG...":
 *
 *   [EVENT=]PLACE[%return] [ARG...]
 *
 *   PLACE  FUNC[+OFFS]            a kernel function (kprobe, or fprobe where the
 *                                 kernel has it)
 *          SYSTEM:EVENT           an eprobe on an existing trace event (also the
 *          SYSTEM.EVENT           kernel's own SYSTEM.EVENT)
 *          BINARY:SYMBOL[+OFFS]   a uprobe: BINARY is a path (has a '/'), a
 *          BINARY:0xOFFSET        library ("libc") or a program in $PATH
 *   ARG    [NAME=]EXPR[:TYPE]
 *   EXPR   PARAM{->MEMBER|.MEMBER|[N]}   a parameter by name (BTF), then members
 *          $argN{...} $retval{...}       the Nth argument (from 1), the return value
 *          FIELD{...}  $FIELD            a field of the event (eprobes)
 *          $comm $args                   the task's comm; every parameter
 *          +OFFS(EXPR) -OFFS(EXPR)       a dereference, as the kernel writes it
 *          +uOFFS(EXPR)                  (u: user memory)
 *          %REG @SYMBOL @ADDR $stackN    passed to the kernel as they are
 *   TYPE   u8..u64 s8..s64 x8..x64 hex char string ustring symbol symstr str,
 *          bN@M/S (bit fields), T[N] (arrays)
 *
 * A : or a . in PLACE is read as an event when that event exists, else as
 * a binary (:) or a kernel function (. as in "foo.isra.0"): the resolver
 * (src/probe/probe.c) decides; the parser only reads the syntax. Pure: no tracefs,
 * no BTF, no files.
 */
#ifndef KTOP_PROBE_SPEC_H
#define KTOP_PROBE_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#define PROBE_MAX_ARGS		13	/* + __probe_* fields: within KTOP_MAX_ARGS */
#define PROBE_MAX_STEPS		16
#define PROBE_NAME_MAX		64
#define PROBE_TEXT_MAX		4096

enum probe_place {
	PROBE_PLACE_FUNC,	/* FUNC[+OFFS]; maybe SYSTEM.EVENT */
	PROBE_PLACE_COLON,	/* A:B: an event, or a library/program and a symbol */
	PROBE_PLACE_BINARY,	/* /path:SYMBOL or /path:0xOFFSET */
};

enum probe_base {
	PROBE_BASE_NAME,	/* a parameter (BTF) or an event field */
	PROBE_BASE_FIELD,	/* $FIELD: an event field, the kernel's eprobe spelling */
	PROBE_BASE_ARGN,	/* $argN */
	PROBE_BASE_RETVAL,	/* $retval */
	PROBE_BASE_COMM,	/* $comm */
	PROBE_BASE_ARGS,	/* $args, $arg*: every parameter, one ARG each */
	PROBE_BASE_DEREF,	/* +OFFS(EXPR) */
	PROBE_BASE_RAW,		/* %REG, @SYM, $stackN: as written */
};

enum probe_step_kind {
	PROBE_STEP_ARROW,	/* ->member */
	PROBE_STEP_DOT,		/* .member */
	PROBE_STEP_INDEX,	/* [N] */
};

struct probe_step {
	enum probe_step_kind	kind;
	int			pos;		/* of its name or index in the spec */
	long			index;
	char			name[PROBE_NAME_MAX];
};

struct probe_expr {
	enum probe_base		base;
	int			pos;			/* where it starts in the spec */
	char			name[PROBE_NAME_MAX];	/* NAME, FIELD; RAW: the text */
	int			argn;			/* ARGN: from 1 */
	long			offset;			/* DEREF */
	bool			user;			/* DEREF: +uOFFS */
	struct probe_expr	*inner;			/* DEREF */
	unsigned int		nsteps;
	struct probe_step	steps[PROBE_MAX_STEPS];
};

struct probe_arg {
	char			name[PROBE_NAME_MAX];	/* NAME=, or "" */
	char			type[32];		/* :TYPE, or "" (the default) */
	struct probe_expr	expr;
	int			pos;			/* where it starts in the spec */
	int			len;
	int			type_pos;		/* where TYPE starts, or pos */
};

struct probe_spec {
	char			text[PROBE_TEXT_MAX];	/* as given */
	char			event[PROBE_NAME_MAX];	/* EVENT=, or "" */
	enum probe_place	place;
	char			target[4096];		/* FUNC, A of A:B, the path */
	char			symbol[256];		/* B of A:B: symbol or event */
	unsigned long		offset;			/* +OFFS, or :0xOFFSET */
	bool			has_offset;
	bool			ret;			/* %return */
	int			target_pos;		/* where PLACE starts */
	unsigned int		nargs;
	struct probe_arg	args[PROBE_MAX_ARGS];
};

/* What was wrong, and where (byte offset into the spec; -1: nowhere). */
struct probe_err {
	int	pos;
	char	msg[512];
};

/**
 * probe_spec_parse - read one probe spec
 * @text: the spec, e.g. "vfs_read file->f_path.dentry->d_name.name:string count"
 * @out: receives the spec (free with probe_spec_free)
 * @e: receives the message and position on failure
 *
 * Return: 0, or -EINVAL (bad syntax) / -ENOMEM with @e filled.
 */
int probe_spec_parse(const char *text, struct probe_spec **out, struct probe_err *e);
void probe_spec_free(struct probe_spec *s);

/* Is @type one of the TYPEs above? Return: true when so. */
bool probe_type_valid(const char *type);

/**
 * probe_err_format - "MSG" and, when @e->pos is set, the spec with a caret
 * under the offending character on the next lines
 * Return: @buf.
 */
char *probe_err_format(const struct probe_err *e, const char *text, char *buf, size_t len);


/* @e = msg at @pos; returns -EINVAL (for "return probe_err_set(...)"). */
int probe_err_set(struct probe_err *e, int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The expression as the user wrote it, without name and type, e.g.
 * "file->f_path.dentry". Return: @buf.
 */
char *probe_expr_text(const struct probe_expr *x, char *buf, size_t len);

#endif

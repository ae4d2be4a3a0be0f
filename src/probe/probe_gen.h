/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From a parsed probe spec to the line the kernel takes in dynamic_events,
 * chosen by what the running kernel offers (struct probe_caps):
 *
 *   f:GRP/EV vfs_read name=file->f_path.dentry->d_name.name:string
 *	fprobe events with BTF arguments (Linux 6.5+): names and -> as written
 *   p:GRP/EV vfs_read name=+0(+40(+152($arg1))):string
 *	kprobes elsewhere: the same spec, offsets computed from BTF, from $argN
 *	or (kernels without it, uprobes) the x86-64 argument registers
 *   e:GRP/EV sched.sched_switch next_pid=$next_pid:s32      eprobes
 *   p:GRP/EV /usr/bin/bash:0xb6c10 s=+0(%di):string         uprobes
 *
 * Pure: what the resolver (src/probe/probe.c) found is passed in, so the unit
 * tests can run every kernel's variant on any BTF.
 */
#ifndef KTOP_PROBE_GEN_H
#define KTOP_PROBE_GEN_H

#include <stdbool.h>
#include <stdio.h>
#include "probe_btf.h"
#include "probe_spec.h"
#include "store/schema.h"

/* What the kernel offers, from tracefs (see probe_caps_read in src/probe/probe.c). */
struct probe_caps {
	bool	dynamic_events;	/* the dynamic_events file (else kprobe/uprobe_events) */
	bool	kprobe;		/* kprobe events */
	bool	kretprobe;
	bool	fprobe;		/* f: events (CONFIG_FPROBE_EVENTS) */
	bool	btf_args;	/* argument names and -> in kprobe/fprobe events */
	bool	eprobe;		/* e: events (CONFIG_EPROBE_EVENTS) */
	bool	uprobe;
	bool	uretprobe;
	bool	kprobe_argn;	/* $argN in kprobes at function entry */
	bool	ret_argn;	/* $argN in kernel return probes too */
	bool	char_type;	/* the "char" type */
	bool	btf;		/* the kernel's BTF could be read */
	char	eprobe_why[96];	/* how eprobe support was told */
};

/**
 * probe_caps_from_readme - the probe kinds a kernel's tracefs README
 * describes (its dynamic events syntax section)
 * @c: kprobe/uprobe/dynamic_events presence must already be set from the
 *     files; this adds what the README says
 */
void probe_caps_from_readme(struct probe_caps *c, const char *readme);

/* "kprobe yes, kretprobe yes, fprobe no, ..." lines for ktop --features. */
void probe_caps_print(const struct probe_caps *c, FILE *fp);

enum probe_kind {
	PROBE_KPROBE,		/* p: on a kernel function */
	PROBE_KRETPROBE,	/* r: */
	PROBE_FPROBE,		/* f: */
	PROBE_FEXIT,		/* f: ...%return */
	PROBE_EPROBE,		/* e: */
	PROBE_UPROBE,		/* p: on PATH:OFFSET */
	PROBE_URETPROBE,	/* r: on PATH:OFFSET */
};

const char *probe_kind_name(enum probe_kind k);

/* A field of the event an eprobe attaches to (from its format file). */
struct probe_efield {
	char		name[PROBE_NAME_MAX];
	char		ctype[96];	/* "const char *", "char[16]", "__data_loc char[]" */
	int		size;
	bool		is_signed;
};

/* What the resolver found for the spec's place. */
struct probe_target {
	enum probe_kind			kind;
	char				place[4200];	/* "vfs_read", "/bin/x:0x12", "sched.sched_switch" */
	char				name[PROBE_NAME_MAX];	/* the function, symbol or event */
	const struct probe_func		*func;		/* BTF prototype, or NULL */
	const struct probe_efield	*efields;	/* eprobes */
	unsigned int			nefields;
	bool				user_ptrs;	/* eprobe on syscalls: user pointers */
};

#define PROBE_MAX_FIELDS	(PROBE_MAX_ARGS + 3)

struct probe_field {
	char			name[PROBE_NAME_MAX];
	enum ktop_field_kind	kind;
};

struct probe_def {
	enum probe_kind		kind;
	char			group[PROBE_NAME_MAX];
	char			event[PROBE_NAME_MAX];
	char			line[PROBE_TEXT_MAX];	/* written to dynamic_events */
	char			proto[512];	/* the C prototype, "" when not known */
	char			how[256];	/* how the place was found (uprobes) */
	char			spec[PROBE_TEXT_MAX];	/* as given (probe_create) */
	unsigned int		nfields;	/* the event's fields, __probe_* included */
	struct probe_field	fields[PROBE_MAX_FIELDS];
};

/**
 * probe_gen - the definition line for @sp at @tg
 * @btf: the kernel's BTF, or NULL (then only $argN, $retval, registers and
 *	 +OFFS(...) can be used)
 * @group: "ktop_1234"
 * @event: the event name to use (the caller made it unique in @group)
 * @def: receives the line and the fields' names and kinds
 * @e: receives what is wrong, positioned in the spec
 *
 * Return: 0, or -EINVAL/-ENOENT/-ENOTSUP with @e filled.
 */
int probe_gen(const struct probe_spec *sp, const struct probe_caps *caps,
	      const struct probe_btf *btf, const struct probe_target *tg, const char *group,
	      const char *event, struct probe_def *def, struct probe_err *e);

/**
 * probe_expr_type - the BTF type of expression @x at @tg (completion asks
 * what "file->f_path." is before listing its members)
 * @ptr_to: receives, for an eprobe field declared "struct x *", the struct
 * Return: the type id (0: void), or a negative errno.
 */
int probe_expr_type(const struct probe_btf *btf, const struct probe_target *tg,
		    const struct probe_expr *x, int *ptr_to);

/* The default event name of @sp: EVENT=, else the function/symbol/event (+__return). */
void probe_default_event(const struct probe_spec *sp, const char *name, char *buf, size_t len);

#endif

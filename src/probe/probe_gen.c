// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe definitions from specs (see probe_gen.h).
 *
 * An expression is walked once against BTF. The walk keeps either a value
 * (a fetcharg whose value is the expression: $arg1, %di, +8($arg1)) or a
 * location (a fetcharg holding a pointer, plus a byte offset: what ->m and
 * .m and [i] lead to), and turns a location into a value, "+OFF(BASE)",
 * only when something needs the value: the next "->", or the end. So
 * file->f_path.dentry becomes one load, +OFF(f_path)+OFF(dentry) from the
 * file pointer. Alongside, it keeps the text the kernel's own BTF argument
 * parser takes (file->f_path.dentry), used where the kernel has one.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/strutil.h"
#include "probe_gen.h"

/* x86-64 SysV: the first six integer arguments */
static const char *const arg_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

struct gen {
	const struct probe_spec		*sp;
	const struct probe_caps		*caps;
	const struct probe_btf		*btf;
	const struct probe_target	*tg;
	struct probe_err		*e;
	bool				user;		/* a uprobe */
	bool				ret;		/* a return probe */
	bool				entry;		/* at a function's first instruction */
	bool				btf_names;	/* the kernel takes names and -> here */
};

struct gval {
	char	text[1024];	/* value: the fetcharg; location: the base pointer's */
	char	pass[512];	/* the kernel's BTF spelling, "" when it cannot be used */
	bool	loc;
	long	off;		/* location: bytes from the base pointer */
	int	type;		/* BTF id; 0: void; -1: not known */
	int	ptr_to;		/* > 0: a pointer to this type (eprobe field "struct x *") */
	unsigned int	bit_off, bits;	/* a bit field in the location */
	bool	field_str;	/* an eprobe field that is a string already */
	bool	user_ptr;	/* points into user memory */
	bool	deref;		/* a +OFFS(...) as written: a string is read where it points */
	const struct probe_efield *ef;	/* an eprobe field as it is: its size and sign */
};

const char *probe_kind_name(enum probe_kind k)
{
	static const char *const n[] = {
		[PROBE_KPROBE] = "kprobe", [PROBE_KRETPROBE] = "kretprobe",
		[PROBE_FPROBE] = "fprobe", [PROBE_FEXIT] = "fprobe (return)",
		[PROBE_EPROBE] = "eprobe", [PROBE_UPROBE] = "uprobe",
		[PROBE_URETPROBE] = "uretprobe",
	};

	return k <= PROBE_URETPROBE ? n[k] : "?";
}

/* ---- capabilities -------------------------------------------------------- */

/* What follows @key in @text, blanks skipped; NULL when @key is not there. */
static const char *readme_after(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;

	if (!p)
		return NULL;
	p += strlen(key);
	return p + strspn(p, " ");
}

void probe_caps_from_readme(struct probe_caps *c, const char *readme)
{
	static const char retargs[] = "$retval, $arg<N>";
	const char *ret = readme_after(readme, "return probes support:");
	const char *fetch = readme ? strstr(readme, "fetcharg:") : NULL;

	if (!readme)
		return;
	c->kprobe = c->kprobe && strstr(readme, "place: [<module>:]<symbol>");
	c->kretprobe = c->kprobe && strstr(readme, "place (kretprobe)");
	c->uretprobe = c->uprobe && strstr(readme, "<path>:<offset>[%return]");
	c->fprobe = strstr(readme, "f[:[<group>/][<event>]]") != NULL;
	c->btf_args = strstr(readme, "<argname>") != NULL;
	/* the syntax line is there whether or not CONFIG_EPROBE_EVENTS is */
	c->eprobe = c->eprobe && strstr(readme, "e[:[<group>/][<event>]]");
	c->kprobe_argn = c->kprobe && fetch && strstr(fetch, "$arg<N>");
	c->ret_argn = ret && !strncmp(ret, retargs, sizeof(retargs) - 1);
	c->char_type = strstr(readme, " char, ") != NULL;
}

void probe_caps_print(const struct probe_caps *c, FILE *fp)
{
	const struct {
		const char	*name, *config, *yes, *no;
		bool		on;
	} k[] = {
		{ "kprobe", "CONFIG_KPROBE_EVENTS", "kprobe_events, tracefs README", "no kprobe_events",
		  c->kprobe },
		{ "kretprobe", "CONFIG_KPROBE_EVENTS", "tracefs README: place (kretprobe)",
		  "no kretprobe place in tracefs README", c->kretprobe },
		{ "fprobe", "CONFIG_FPROBE_EVENTS", "tracefs README: f[:[<group>/][<event>]]",
		  "no f: events in tracefs README", c->fprobe },
		{ "btf_args", "CONFIG_PROBE_EVENTS_BTF_ARGS", "tracefs README: <argname>[->field...]",
		  "no <argname> in tracefs README", c->btf_args },
		{ "eprobe", "CONFIG_EPROBE_EVENTS", c->eprobe_why, c->eprobe_why, c->eprobe },
		{ "uprobe", "CONFIG_UPROBE_EVENTS", "uprobe_events", "no uprobe_events", c->uprobe },
		{ "uretprobe", "CONFIG_UPROBE_EVENTS", "tracefs README: <path>:<offset>[%return]",
		  "no uprobe %return in tracefs README", c->uretprobe },
	};
	char state[96];

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (k[i].on)
			snprintf(state, sizeof(state), "available");
		else
			snprintf(state, sizeof(state), "not built in (%s)", k[i].config);
		fprintf(fp, "%-18s %-44s %s\n", k[i].name, state, k[i].on ? k[i].yes : k[i].no);
	}
}

/* ---- naming ---------------------------------------------------------------- */

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			*s = '_';
}

void probe_default_event(const struct probe_spec *sp, const char *name, char *buf, size_t len)
{
	if (sp->event[0]) {
		snprintf(buf, len, "%s", sp->event);
		return;
	}
	snprintf(buf, len, "%.40s%s", name && *name ? name : "probe", sp->ret ? "__return" : "");
	sanitize(buf);
	if (isdigit((unsigned char)buf[0]))
		buf[0] = '_';
}

/* The field name of an argument written without NAME=. */
static void arg_default_name(const struct probe_arg *a, unsigned int i, char *buf, size_t len)
{
	const struct probe_expr *x = &a->expr;

	if (a->name[0])
		snprintf(buf, len, "%s", a->name);
	else if (x->nsteps && x->steps[x->nsteps - 1].kind != PROBE_STEP_INDEX)
		snprintf(buf, len, "%s", x->steps[x->nsteps - 1].name);
	else if (x->base == PROBE_BASE_NAME || x->base == PROBE_BASE_FIELD)
		snprintf(buf, len, "%s", x->name);
	else if (x->base == PROBE_BASE_ARGN || x->base == PROBE_BASE_RETVAL ||
		 x->base == PROBE_BASE_COMM)
		snprintf(buf, len, "%s", x->name + 1);
	else
		snprintf(buf, len, "arg%u", i + 1);
}

static void unique_name(struct probe_def *d, char *name, size_t len)
{
	char base[PROBE_NAME_MAX];
	int n = 2;

	snprintf(base, sizeof(base), "%.50s", name);
	for (;;) {
		bool dup = false;

		for (unsigned int i = 0; i < d->nfields && !dup; i++)
			dup = !strcmp(d->fields[i].name, name);
		if (!dup && strncmp(name, "common_", 7) && strncmp(name, "__probe_", 8))
			return;
		str_fmt(name, len, "%s_%d", base, n++);
	}
}

/* ---- one expression ------------------------------------------------------- */

static char *type_text(const struct gen *g, int id, char *buf, size_t len)
{
	if (id < 0 || !g->btf)
		return snprintf(buf, len, "(no type information)"), buf;
	return probe_btf_decl(g->btf, id, "", buf, len);
}

static int gen_err(const struct gen *g, int pos, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int gen_err(const struct gen *g, int pos, int ret, const char *fmt, ...)
{
	va_list ap;

	g->e->pos = pos;
	va_start(ap, fmt);
	err_vset(g->e->msg, sizeof(g->e->msg), ret, fmt, ap);
	va_end(ap);
	return ret;
}

/* A location becomes the value stored there. */
static void materialize(const struct gen *g, struct gval *v)
{
	char t[sizeof(v->text)];

	if (!v->loc)
		return;
	str_fmt(t, sizeof(t), "%s%s%ld(%s)", v->off < 0 ? "-" : "+",
		 v->user_ptr && !g->user ? "u" : "", v->off < 0 ? -v->off : v->off, v->text);
	str_fmt(v->text, sizeof(v->text), "%s", t);
	v->loc = false;
	v->off = 0;
}

/* The value of argument @n (from 1) of the probed function. */
static int param_value(const struct gen *g, int n, int pos, struct gval *v)
{
	const struct probe_func *f = g->tg->func;
	bool kernel_ret = g->ret && !g->user && g->caps->ret_argn;

	if (g->tg->kind == PROBE_EPROBE)
		return gen_err(g, pos, -EINVAL, "an eprobe has the event's fields, not function "
			       "arguments: write FIELD or $FIELD");
	if (!g->entry && !kernel_ret)
		return gen_err(g, pos, -EINVAL, g->ret ? "arguments are not known at %%return "
			       "here (this kernel's return probes give $retval only)" :
			       "arguments are known at the function's entry only, not at +OFFS");
	v->type = f && n <= (int)f->nparams ? f->types[n - 1] : -1;
	if (f && n > (int)f->nparams)
		return gen_err(g, pos, -EINVAL, "%s has %u parameter%s, not %d", g->tg->name,
			       f->nparams, f->nparams == 1 ? "" : "s", n);
	if (!g->user && (g->caps->kprobe_argn || g->tg->kind == PROBE_FPROBE ||
			 g->tg->kind == PROBE_FEXIT || kernel_ret))
		snprintf(v->text, sizeof(v->text), "$arg%d", n);
	else if (n <= 6)
		snprintf(v->text, sizeof(v->text), "%s", arg_regs[n - 1]);
	else
		snprintf(v->text, sizeof(v->text), "$stack%d", n - 6);	/* after the return address */
	if (g->btf_names && f && f->names[n - 1] && *f->names[n - 1])
		snprintf(v->pass, sizeof(v->pass), "%s", f->names[n - 1]);
	return 0;
}

/* FIELD or $FIELD of an eprobe's event. */
static int field_value(const struct gen *g, const struct probe_expr *x, int pos, struct gval *v)
{
	const struct probe_efield *ef = NULL;
	char names[512];
	size_t n = 0;

	for (unsigned int i = 0; i < g->tg->nefields; i++)
		if (!strcmp(g->tg->efields[i].name, x->name))
			ef = &g->tg->efields[i];
	if (!ef) {
		names[0] = '\0';
		for (unsigned int i = 0; i < g->tg->nefields && n < sizeof(names); i++)
			n += snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				      g->tg->efields[i].name);
		return gen_err(g, pos, -ENOENT, "%s has no field '%s'; its fields: %s",
			       g->tg->name, x->name, names[0] ? names : "(none)");
	}
	snprintf(v->text, sizeof(v->text), "$%s", ef->name);
	v->type = -1;
	v->ef = ef;
	if (strchr(ef->ctype, '[')) {
		v->field_str = strstr(ef->ctype, "char") != NULL;
		return 0;
	}
	if (strchr(ef->ctype, '*')) {
		char sname[96];

		v->user_ptr = g->tg->user_ptrs;
		/* "struct file *", "const struct sk_buff *": typed by BTF when it knows the struct */
		if (g->btf && sscanf(strstr(ef->ctype, "struct ") ? strstr(ef->ctype, "struct ") :
				     "", "struct %95[A-Za-z0-9_]", sname) == 1)
			v->ptr_to = probe_btf_find_struct(g->btf, sname) > 0 ?
				    probe_btf_find_struct(g->btf, sname) : 0;
		if (!v->ptr_to && strstr(ef->ctype, "char"))
			v->ptr_to = -2;		/* a char pointer: a string by default */
		return 0;
	}
	return 0;
}

static int walk_expr(const struct gen *g, const struct probe_expr *x, int pos, struct gval *v);

static int base_value(const struct gen *g, const struct probe_expr *x, int pos, struct gval *v)
{
	const struct probe_func *f = g->tg->func;
	int ret;

	memset(v, 0, sizeof(*v));
	v->type = -1;
	switch (x->base) {
	case PROBE_BASE_ARGN:
		return param_value(g, x->argn, pos, v);
	case PROBE_BASE_RETVAL:
		if (!g->ret)
			return gen_err(g, pos, -EINVAL, "$retval is known at %%return only: "
				       "write %s%%return", g->sp->target);
		snprintf(v->text, sizeof(v->text), "$retval");
		v->type = f ? f->ret : -1;
		return 0;
	case PROBE_BASE_COMM:
		snprintf(v->text, sizeof(v->text), "$comm");
		return 0;
	case PROBE_BASE_RAW:
		if (g->tg->kind == PROBE_EPROBE && x->name[0] == '%')
			return gen_err(g, pos, -EINVAL, "an eprobe has no registers: use its fields");
		snprintf(v->text, sizeof(v->text), "%s", x->name);
		return 0;
	case PROBE_BASE_DEREF: {
		struct gval in;

		ret = walk_expr(g, x->inner, pos, &in);
		if (ret)
			return ret;
		materialize(g, &in);
		str_fmt(v->text, sizeof(v->text), "%s%s%ld(%s)", x->offset < 0 ? "-" : "+",
			 x->user ? "u" : "", x->offset < 0 ? -x->offset : x->offset, in.text);
		v->deref = true;
		return 0;
	}
	case PROBE_BASE_FIELD:
		if (g->tg->kind != PROBE_EPROBE)
			return gen_err(g, pos, -EINVAL, "$%s: $NAME is an event field, for eprobes; "
				       "a parameter is written without '$'", x->name);
		return field_value(g, x, pos, v);
	case PROBE_BASE_NAME:
		if (g->tg->kind == PROBE_EPROBE)
			return field_value(g, x, pos, v);
		if (g->user)
			return gen_err(g, pos, -EINVAL, "'%s': user programs have no type "
				       "information here: use $argN, $retval, %%REG, +OFFS(...)",
				       x->name);
		if (!f)
			return gen_err(g, pos, -ENOENT, "'%s': no prototype of %s (%s): use $argN",
				       x->name, g->tg->name, g->btf ? "not in the kernel's BTF" :
				       "this kernel has no BTF, CONFIG_DEBUG_INFO_BTF");
		for (unsigned int i = 0; i < f->nparams; i++)
			if (f->names[i] && !strcmp(f->names[i], x->name))
				return param_value(g, (int)i + 1, pos, v);
		{
			char proto[512];

			return gen_err(g, pos, -ENOENT, "%s has no parameter '%s': %s", g->tg->name,
				       x->name, probe_btf_proto(g->btf, g->tg->name, f, proto,
								sizeof(proto)));
		}
	case PROBE_BASE_ARGS:
		break;
	}
	return gen_err(g, pos, -EINVAL, "internal: unexpected expression");
}

static int step_member(const struct gen *g, struct gval *v, const struct probe_step *st,
		       const char *what, int pos)
{
	char tt[256], names[400];
	struct probe_member m;
	int sid, ret;

	if (st->kind == PROBE_STEP_ARROW) {
		int p = v->ptr_to > 0 ? v->ptr_to :
			v->type >= 0 ? probe_btf_pointee(g->btf, v->type) : -1;

		if (v->type < 0 && v->ptr_to <= 0)
			return gen_err(g, pos, -EINVAL, "%s has no type information: '->' needs "
				       "one (use +OFFS(...))", what);
		if (p <= 0)
			return gen_err(g, pos, -EINVAL, "%s is %s, not a pointer to a struct%s",
				       what, type_text(g, v->type, tt, sizeof(tt)),
				       probe_btf_is_composite(g->btf, v->type) ? ": use '.'" : "");
		materialize(g, v);
		sid = p;
		v->loc = true;
		v->off = 0;
	} else {
		if (!v->loc || v->type < 0)
			return gen_err(g, pos, -EINVAL, "%s is %s: '.' needs a struct reached "
				       "through '->'%s", what, type_text(g, v->type, tt, sizeof(tt)),
				       probe_btf_is_ptr(g->btf, v->type) ? " (it is a pointer: "
				       "use '->')" : "");
		sid = v->type;
	}
	if (!probe_btf_is_composite(g->btf, sid))
		return gen_err(g, pos, -EINVAL, "%s %s %s, which has no members", what,
			       st->kind == PROBE_STEP_ARROW ? "points to" : "is",
			       type_text(g, sid, tt, sizeof(tt)));
	ret = probe_btf_member(g->btf, sid, st->name, &m);
	if (ret) {
		probe_btf_members(g->btf, sid, "", names, sizeof(names));
		return gen_err(g, pos, -ENOENT, "%s has no member '%s'; its members: %s",
			       type_text(g, sid, tt, sizeof(tt)), st->name, names);
	}
	if (v->bits)
		return gen_err(g, pos, -EINVAL, "%s is a bit field", what);
	v->off += m.bit_off / 8;
	v->type = m.type;
	v->ptr_to = 0;
	v->bit_off = m.bit_off % 8;
	v->bits = m.bitfield;
	if (!m.bitfield && m.bit_off % 8)
		return gen_err(g, pos, -EINVAL, "'%s' is not byte aligned", st->name);
	return 0;
}

static int step_index(const struct gen *g, struct gval *v, const struct probe_step *st,
		      const char *what, int pos)
{
	unsigned int n;
	char tt[256];
	long sz;
	int elem;

	if (v->type >= 0 && v->loc && probe_btf_is_array(g->btf, v->type, &elem, &n)) {
		if (n && (unsigned long)st->index >= n)
			return gen_err(g, pos, -EINVAL, "%s has %u elements: [%ld] is past its end",
				       what, n, st->index);
	} else if (v->type >= 0 && probe_btf_is_ptr(g->btf, v->type)) {
		elem = probe_btf_pointee(g->btf, v->type);
		materialize(g, v);
		v->loc = true;
		v->off = 0;
	} else {
		return gen_err(g, pos, -EINVAL, "%s is %s: [N] needs an array or a pointer", what,
			       type_text(g, v->type, tt, sizeof(tt)));
	}
	sz = elem > 0 ? probe_btf_size(g->btf, elem) : -1;
	if (sz <= 0)
		return gen_err(g, pos, -EINVAL, "%s: elements of unknown size", what);
	v->off += st->index * sz;
	v->type = elem;
	return 0;
}

/* The whole expression: base, then its steps. */
static int walk_expr(const struct gen *g, const struct probe_expr *x, int pos, struct gval *v)
{
	char what[512];
	int ret;

	ret = base_value(g, x, x->pos ? x->pos : pos, v);
	if (ret)
		return ret;
	if (x->nsteps && !g->btf && !g->user)
		return gen_err(g, pos, -ENOENT, "%s: members need the kernel's BTF, and this "
			       "kernel has none (CONFIG_DEBUG_INFO_BTF): use +OFFS(...)", x->name);
	for (unsigned int i = 0; i < x->nsteps; i++) {
		const struct probe_step *st = &x->steps[i];
		struct probe_expr prefix = *x;

		prefix.nsteps = i;
		probe_expr_text(&prefix, what, sizeof(what));
		if (st->kind == PROBE_STEP_INDEX) {
			ret = step_index(g, v, st, what, st->pos);
			v->pass[0] = '\0';	/* the kernel's BTF syntax has no [N] */
		} else {
			ret = step_member(g, v, st, what, st->pos);
			if (v->pass[0] && strlen(v->pass) + strlen(st->name) + 3 < sizeof(v->pass))
				snprintf(v->pass + strlen(v->pass), sizeof(v->pass) - strlen(v->pass),
					 "%s%s", st->kind == PROBE_STEP_ARROW ? "->" : ".", st->name);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static enum ktop_field_kind kind_of(const char *type)
{
	if (!type[0] || strchr(type, '[') || strstr(type, "string") || !strcmp(type, "symstr"))
		return KTOP_FK_STR;
	if (!strcmp(type, "symbol"))
		return KTOP_FK_SYM;
	if (type[0] == 'x')
		return KTOP_FK_HEX;
	if (type[0] == 's')
		return KTOP_FK_INT;
	return KTOP_FK_UINT;
}

/* A string read from the value (a pointer) or the location (a char array). */
static int finish_string(const struct gen *g, const struct probe_arg *a, struct gval *v,
			 const char *type, char *out, size_t len)
{
	char tt[256];
	int elem;

	if (v->field_str) {
		snprintf(out, len, "%s:%s", v->text, type);
		return 0;
	}
	if (v->type >= 0 && v->loc && probe_btf_is_array(g->btf, v->type, &elem, NULL)) {
		if (!probe_btf_is_char(g->btf, elem))
			return gen_err(g, a->type_pos, -EINVAL, "a string needs a char array or pointer, "
				       "not %s", type_text(g, v->type, tt, sizeof(tt)));
		snprintf(out, len, "%s%ld(%s):%s", v->off < 0 ? "-" : "+",
			 v->off < 0 ? -v->off : v->off, v->text, type);
		return 0;
	}
	if (v->type >= 0 && !probe_btf_is_ptr(g->btf, v->type))
		return gen_err(g, a->type_pos, -EINVAL, "a string needs a char pointer or array, not %s",
			       type_text(g, v->type, tt, sizeof(tt)));
	if (v->pass[0] && !v->bits) {
		snprintf(out, len, "%s:%s", v->pass, type);
		return 0;
	}
	materialize(g, v);
	if (v->deref && !a->expr.nsteps)
		snprintf(out, len, "%s:%s", v->text, type);	/* +0($retval):string as written */
	else
		snprintf(out, len, "+0(%s):%s", v->text, type);
	return 0;
}

static int finish(const struct gen *g, const struct probe_arg *a, struct gval *v,
		  char *out, size_t len, enum ktop_field_kind *kind)
{
	const char *dflt = NULL;
	char type[40], tt[256], names[400];
	long sz = 8;

	if (a->expr.base == PROBE_BASE_COMM) {
		snprintf(out, len, "$comm");
		*kind = KTOP_FK_STR;
		return 0;
	}
	if (v->type >= 0 && v->type != 0)
		sz = probe_btf_size(g->btf, v->type);
	if (a->type[0]) {
		snprintf(type, sizeof(type), "%s", a->type);
	} else if (v->field_str || v->ptr_to == -2) {
		snprintf(type, sizeof(type), "string");
	} else if (v->bits) {
		snprintf(type, sizeof(type), "b%u@%u/%ld", v->bits,
			 (unsigned int)(v->off % (sz > 0 ? sz : 8)) * 8 + v->bit_off,
			 (sz > 0 ? sz : 8) * 8);
	} else if (v->ef && !strchr(v->ef->ctype, '*') && !a->expr.nsteps &&
		   (v->ef->size == 1 || v->ef->size == 2 || v->ef->size == 4 || v->ef->size == 8)) {
		/* an integer field of the event: its size and sign */
		snprintf(type, sizeof(type), "%c%d", v->ef->is_signed ? 's' : 'u', v->ef->size * 8);
	} else if (v->type < 0 || v->ptr_to) {
		snprintf(type, sizeof(type), "x64");
	} else {
		dflt = probe_btf_default_type(g->btf, v->type);
		if (!dflt && probe_btf_is_composite(g->btf, v->type)) {
			probe_btf_members(g->btf, v->type, "", names, sizeof(names));
			return gen_err(g, a->pos, -EINVAL, "%s is %s: pick a member (%s)",
				       probe_expr_text(&a->expr, tt, sizeof(tt)),
				       type_text(g, v->type, tt + 128, 128), names);
		}
		if (!dflt)
			return gen_err(g, a->pos, -EINVAL, "%s is %s: nothing to record",
				       probe_expr_text(&a->expr, tt, sizeof(tt)),
				       type_text(g, v->type, tt + 128, 128));
		snprintf(type, sizeof(type), "%s", dflt);
	}
	if (!strcmp(type, "str"))
		snprintf(type, sizeof(type), "string");
	if (!strcmp(type, "hex"))
		snprintf(type, sizeof(type), "x%ld", sz == 1 || sz == 2 || sz == 4 ? sz * 8 : 64);
	if (!strcmp(type, "char") && !g->caps->char_type)
		snprintf(type, sizeof(type), "u8");
	if (g->user && (!strcmp(type, "symbol") || !strcmp(type, "symstr")))
		return gen_err(g, a->type_pos, -EINVAL, "%s names kernel addresses: a uprobe's values "
			       "are user addresses (use x64)", type);
	if (!strcmp(type, "string") && v->user_ptr && !g->user && !v->field_str)
		snprintf(type, sizeof(type), "ustring");
	*kind = kind_of(type);
	if (!strcmp(type, "string") || !strcmp(type, "ustring"))
		return finish_string(g, a, v, type, out, len);
	if (v->bits) {
		/* the container is loaded; the type picks the bits out of it */
		v->off -= v->off % (sz > 0 ? sz : 8);
		v->bits = 0;
		v->pass[0] = '\0';
	}
	if (v->pass[0]) {
		snprintf(out, len, "%s:%s", v->pass, type);
	} else {
		materialize(g, v);
		snprintf(out, len, "%s:%s", v->text, type);
	}
	return 0;
}

/* Append NAME=FETCHARG for one argument (or, for $args, one per parameter). */
static int gen_arg(const struct gen *g, const struct probe_arg *a, unsigned int idx,
		   struct probe_def *d, size_t *n)
{
	enum ktop_field_kind kind = KTOP_FK_UINT;
	char name[PROBE_NAME_MAX], fetch[1200];
	struct gval v;
	int ret;

	if (a->expr.base == PROBE_BASE_ARGS) {
		const struct probe_func *f = g->tg->func;

		if (!f)
			return gen_err(g, a->pos, -ENOENT, "$args needs %s's prototype from BTF%s",
				       g->tg->name, g->btf ? "" : " (this kernel has none)");
		for (unsigned int i = 0; i < f->nparams; i++) {
			struct probe_arg one = { .pos = a->pos, .len = a->len };

			if (!probe_btf_default_type(g->btf, f->types[i]))
				continue;	/* a struct passed by value */
			/* the values: a pointer is not followed (it may be a user buffer) */
			if (probe_btf_is_ptr(g->btf, f->types[i]) &&
			    strcmp(probe_btf_default_type(g->btf, f->types[i]), "symbol"))
				snprintf(one.type, sizeof(one.type), "x64");
			one.expr.base = PROBE_BASE_ARGN;
			one.expr.argn = (int)i + 1;
			snprintf(one.expr.name, sizeof(one.expr.name), "$arg%u", i + 1);
			str_fmt(one.name, sizeof(one.name), "%s",
				 f->names[i] && *f->names[i] ? f->names[i] : one.expr.name + 1);
			ret = gen_arg(g, &one, idx, d, n);
			if (ret)
				return ret;
		}
		return 0;
	}
	if (d->nfields >= PROBE_MAX_FIELDS)
		return gen_err(g, a->pos, -E2BIG, "too many fields (at most %d per probe)",
			       PROBE_MAX_ARGS);
	ret = walk_expr(g, &a->expr, a->pos, &v);
	if (!ret)
		ret = finish(g, a, &v, fetch, sizeof(fetch), &kind);
	if (ret)
		return ret;
	arg_default_name(a, idx, name, sizeof(name));
	sanitize(name);
	unique_name(d, name, sizeof(name));
	snprintf(d->fields[d->nfields].name, sizeof(d->fields[0].name), "%s", name);
	d->fields[d->nfields++].kind = kind;
	*n += snprintf(d->line + *n, sizeof(d->line) - *n, " %s=%s", name, fetch);
	if (*n >= sizeof(d->line))
		return gen_err(g, a->pos, -E2BIG, "the definition is too long");
	return 0;
}

static void add_field(struct probe_def *d, const char *name, enum ktop_field_kind kind)
{
	snprintf(d->fields[d->nfields].name, sizeof(d->fields[0].name), "%s", name);
	d->fields[d->nfields++].kind = kind;
}

int probe_gen(const struct probe_spec *sp, const struct probe_caps *caps,
	      const struct probe_btf *btf, const struct probe_target *tg, const char *group,
	      const char *event, struct probe_def *def, struct probe_err *e)
{
	static const char letter[] = {
		[PROBE_KPROBE] = 'p', [PROBE_KRETPROBE] = 'r', [PROBE_FPROBE] = 'f',
		[PROBE_FEXIT] = 'f', [PROBE_EPROBE] = 'e', [PROBE_UPROBE] = 'p',
		[PROBE_URETPROBE] = 'r',
	};
	enum ktop_field_kind ak;
	struct gen g = {
		.sp = sp, .caps = caps, .btf = btf, .tg = tg, .e = e,
		.user = tg->kind == PROBE_UPROBE || tg->kind == PROBE_URETPROBE,
		.ret = tg->kind == PROBE_KRETPROBE || tg->kind == PROBE_FEXIT ||
		       tg->kind == PROBE_URETPROBE,
	};
	size_t n;
	int ret;

	memset(def, 0, sizeof(*def));
	e->pos = -1;
	e->msg[0] = '\0';
	g.entry = !g.ret && !sp->has_offset;
	if (tg->kind == PROBE_UPROBE && sp->place != PROBE_PLACE_FUNC)
		g.entry = !sp->has_offset || !sp->symbol[0];
	g.btf_names = caps->btf_args && !g.user && tg->kind != PROBE_EPROBE && tg->func &&
		      (g.entry || (g.ret && caps->ret_argn));
	def->kind = tg->kind;
	snprintf(def->group, sizeof(def->group), "%s", group);
	snprintf(def->event, sizeof(def->event), "%s", event);
	if (tg->func && btf)
		probe_btf_proto(btf, tg->name, tg->func, def->proto, sizeof(def->proto));
	n = snprintf(def->line, sizeof(def->line), "%c:%s/%s %s%s", letter[tg->kind], group, event,
		     tg->place, tg->kind == PROBE_FEXIT ? "%return" : "");
	ak = g.user ? KTOP_FK_HEX : KTOP_FK_SYM;
	if (g.ret) {
		add_field(def, "__probe_func", ak);
		add_field(def, "__probe_ret_ip", ak);
	} else if (tg->kind != PROBE_EPROBE) {
		add_field(def, "__probe_ip", ak);
	}
	for (unsigned int i = 0; i < sp->nargs; i++) {
		ret = gen_arg(&g, &sp->args[i], i, def, &n);
		if (ret)
			return ret;
	}
	if (tg->kind == PROBE_EPROBE && !sp->nargs)
		return gen_err(&g, -1, -EINVAL, "an eprobe records the fields it is given: name "
			       "some, e.g. '%s:%s %s'", sp->target, sp->symbol[0] ? sp->symbol :
			       "EVENT", tg->nefields ? tg->efields[0].name : "FIELD");
	return 0;
}

int probe_expr_type(const struct probe_btf *btf, const struct probe_target *tg,
		    const struct probe_expr *x, int *ptr_to)
{
	static const struct probe_caps caps = { .kprobe_argn = true, .ret_argn = true };
	struct probe_spec sp = { .nargs = 0 };
	struct probe_err e;
	struct gen g = {
		.sp = &sp, .caps = &caps, .btf = btf, .tg = tg, .e = &e, .entry = true,
		.user = tg->kind == PROBE_UPROBE || tg->kind == PROBE_URETPROBE,
		.ret = tg->kind == PROBE_KRETPROBE || tg->kind == PROBE_FEXIT ||
		       tg->kind == PROBE_URETPROBE,
	};
	struct gval v;
	int ret;

	if (!btf)
		return -ENOENT;
	ret = walk_expr(&g, x, 0, &v);
	if (ret)
		return ret;
	*ptr_to = v.ptr_to;
	return v.type;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * View filter field expressions: a recursive-descent parser of the kernel's
 * filter grammar into a node array, resolved against the schema once per event
 * type (each predicate's argument slot and kind, or "false" where the type
 * lacks the field or the field cannot take the operator), folded to a
 * constant where the type decides alone, and evaluated on decoded slots.
 * String predicates remember their answer per interned string id, so a glob
 * runs once per distinct string, not once per event.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/err.h"
#include "lib/globmatch.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "vfexpr.h"

#define VFX_MAX_NODES	1024
#define VFX_MAX_DEPTH	64

enum { N_PRED, N_AND, N_OR, N_NOT };
enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAND, OP_GLOB };

/* Where a predicate's value comes from for one type: an argument slot or these. */
enum {
	SF_FALSE = -1,	/* the type lacks the field, or it cannot take the operator */
	SF_PID = -2,
	SF_FLAGS = -3,
	SF_PC = -4,
	SF_CPU = -5,
	SF_COMM = -6,
};

struct node {
	uint8_t		kind, op;
	bool		quoted;		/* the value was a quoted string */
	bool		has_num;	/* the value reads as a number */
	int32_t		a, b;		/* children */
	int		pos, opos, vpos;	/* field, operator and value offsets */
	uint64_t	num;
	char		*field, *str;
	uint8_t		*memo;		/* string id -> 0 unknown, 1 false, 2 true */
	size_t		nmemo;
	int32_t		last_pid;	/* COMM: the last task asked, and its answer */
	const char	*last_comm;
	bool		last_res;
};

/* One type's resolution: per node, the predicate's source and kind. */
struct tinfo {
	uint8_t		verdict;	/* enum vfexpr_verdict */
	int16_t		*slot;		/* per node (predicates only) */
	uint8_t		*kind;
};

struct vfexpr {
	struct store	*st;
	struct node	*n;
	size_t		nn, cap;
	int32_t		root;
	bool		common;		/* reads COMM, pid or CPU */
	struct tinfo	**types;	/* by type id, allocated when first asked */
	size_t		ntypes;
	/* parsing */
	const char	*text;
	int		p;
	int		depth;
	struct err_pos *err;
};

/* ---- lexing and parsing ------------------------------------------------------ */

/* A refusal of the expression at byte @pos. */
#define vx_err(x, pos, ...)	err_pos_set((x)->err, pos, -EINVAL, __VA_ARGS__)

static void skip_ws(struct vfexpr *x)
{
	while (x->text[x->p] == ' ' || x->text[x->p] == '\t' || x->text[x->p] == '\n')
		x->p++;
}

static bool is_ident(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static int new_node(struct vfexpr *x, int kind, int pos)
{
	struct node *n;

	if (x->nn == VFX_MAX_NODES)
		return vx_err(x, pos, "expression too long (more than %d terms)", VFX_MAX_NODES);
	if (array_grow((void **)&x->n, &x->cap, x->nn + 1, sizeof(*x->n)))
		return -ENOMEM;
	n = &x->n[x->nn];
	memset(n, 0, sizeof(*n));
	n->kind = (uint8_t)kind;
	n->pos = pos;
	n->a = n->b = -1;
	n->last_pid = -1;
	return (int)x->nn++;
}

static int parse_or(struct vfexpr *x);

/* Read the operator at x->p. Return: its OP_ code, or -1. */
static int lex_op(struct vfexpr *x)
{
	const char *s = x->text + x->p;

	if (s[0] == '=' && s[1] == '=')
		return x->p += 2, OP_EQ;
	if (s[0] == '!' && s[1] == '=')
		return x->p += 2, OP_NE;
	if (s[0] == '<' && s[1] == '=')
		return x->p += 2, OP_LE;
	if (s[0] == '>' && s[1] == '=')
		return x->p += 2, OP_GE;
	if (s[0] == '<')
		return x->p += 1, OP_LT;
	if (s[0] == '>')
		return x->p += 1, OP_GT;
	if (s[0] == '&' && s[1] != '&')
		return x->p += 1, OP_BAND;
	if (s[0] == '~')
		return x->p += 1, OP_GLOB;
	return -1;
}

/* The value after an operator: a quoted string, or a word up to a space or parenthesis. */
static int parse_value(struct vfexpr *x, struct node *n)
{
	const char *s = x->text;
	int start = x->p, len = 0;
	char *end, *buf;

	n->vpos = start;
	if (s[start] == '"' || s[start] == '\'') {
		char q = s[start];
		int i = start + 1;

		buf = malloc(strlen(s + i) + 1);
		if (!buf)
			return -ENOMEM;
		for (; s[i] && s[i] != q; i++) {
			if (s[i] == '\\' && s[i + 1])
				i++;
			buf[len++] = s[i];
		}
		buf[len] = 0;
		if (!s[i]) {
			free(buf);
			return vx_err(x, start, "unterminated string: no closing %c", q);
		}
		x->p = i + 1;
		n->str = buf;
		n->quoted = true;
		return 0;
	}
	while (s[x->p] && !strchr(" \t\n()&|\"'", s[x->p]))
		x->p++;
	len = x->p - start;
	if (!len)
		return vx_err(x, start, "expected a value after the operator");
	n->str = strndup(s + start, len);
	if (!n->str)
		return -ENOMEM;
	errno = 0;
	if (n->str[0] == '-') {
		n->num = -strtoull(n->str + 1, &end, 0);
		n->has_num = n->str[1] >= '0' && n->str[1] <= '9';
	} else {
		n->num = strtoull(n->str, &end, 0);
		n->has_num = n->str[0] >= '0' && n->str[0] <= '9';
	}
	n->has_num = n->has_num && !*end;
	if (n->has_num && errno == ERANGE)
		return vx_err(x, start, "number out of range: %s", n->str);
	return 0;
}

static int parse_pred(struct vfexpr *x)
{
	const char *s = x->text;
	int start = x->p, idx, op, ret;
	struct node *n;

	if (!is_ident(s[x->p], true)) {
		if (!s[x->p])
			return vx_err(x, x->p, "expected a field name at the end");
		return vx_err(x, x->p, "expected a field name, not '%c'", s[x->p]);
	}
	while (is_ident(s[x->p], false))
		x->p++;
	/* args[0] */
	if (s[x->p] == '[') {
		int q = x->p + 1;

		while (s[q] >= '0' && s[q] <= '9')
			q++;
		if (q > x->p + 1 && s[q] == ']')
			x->p = q + 1;
	}
	idx = new_node(x, N_PRED, start);
	if (idx < 0)
		return idx;
	n = &x->n[idx];
	n->field = strndup(s + start, x->p - start);
	if (!n->field)
		return -ENOMEM;
	skip_ws(x);
	n->opos = x->p;
	op = lex_op(x);
	if (op < 0)
		return vx_err(x, n->opos, "expected an operator (== != < <= > >= & ~) after '%s'",
			      n->field);
	n->op = (uint8_t)op;
	skip_ws(x);
	ret = parse_value(x, n);
	return ret < 0 ? ret : idx;
}

static int parse_unary(struct vfexpr *x)
{
	int idx, a, pos;

	skip_ws(x);
	pos = x->p;
	if (++x->depth > VFX_MAX_DEPTH)
		return vx_err(x, pos, "expression nested too deeply");
	if (x->text[x->p] == '!' && x->text[x->p + 1] != '=') {
		x->p++;
		a = parse_unary(x);
		if (a < 0)
			return a;
		idx = new_node(x, N_NOT, pos);
		if (idx >= 0)
			x->n[idx].a = a;
	} else if (x->text[x->p] == '(') {
		x->p++;
		idx = parse_or(x);
		if (idx < 0)
			return idx;
		skip_ws(x);
		if (x->text[x->p] != ')')
			return vx_err(x, x->p, "expected ')' to close the '(' at %d", pos);
		x->p++;
	} else {
		idx = parse_pred(x);
	}
	x->depth--;
	return idx;
}

static int parse_bin(struct vfexpr *x, int kind)
{
	const char *tok = kind == N_OR ? "||" : "&&";
	int a, b, idx, pos;

	a = kind == N_OR ? parse_bin(x, N_AND) : parse_unary(x);
	for (;;) {
		if (a < 0)
			return a;
		skip_ws(x);
		pos = x->p;
		if (strncmp(x->text + x->p, tok, 2))
			return a;
		x->p += 2;
		b = kind == N_OR ? parse_bin(x, N_AND) : parse_unary(x);
		if (b < 0)
			return b;
		idx = new_node(x, kind, pos);
		if (idx < 0)
			return idx;
		x->n[idx].a = a;
		x->n[idx].b = b;
		a = idx;
	}
}

static int parse_or(struct vfexpr *x)
{
	return parse_bin(x, N_OR);
}

/* ---- resolution against the schema -------------------------------------------- */

/* The source and kind of @name in type @t (NULL: the common fields only). */
static int field_slot(const struct ktop_schema_type *t, const char *name, uint8_t *kind)
{
	static const struct {
		const char	*name;
		int		slot;
		uint8_t		kind;
	} common[] = {
		{ "common_pid", SF_PID, KTOP_FK_INT },
		{ "common_flags", SF_FLAGS, KTOP_FK_UINT },
		{ "common_preempt_count", SF_PC, KTOP_FK_UINT },
		{ "common_cpu", SF_CPU, KTOP_FK_UINT },
		{ "CPU", SF_CPU, KTOP_FK_UINT },
		{ "cpu", SF_CPU, KTOP_FK_UINT },
		{ "COMM", SF_COMM, KTOP_FK_STR },
		{ "comm", SF_COMM, KTOP_FK_STR },
	};

	for (unsigned int i = 0; t && i < t->nfields; i++) {
		if (!strcmp(t->fields[i].name, name)) {
			*kind = (uint8_t)t->fields[i].kind;
			return (int)i;
		}
	}
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		if (!strcmp(common[i].name, name)) {
			*kind = common[i].kind;
			return common[i].slot;
		}
	}
	return SF_FALSE;
}

static bool kind_is_str(uint8_t kind)
{
	return kind == KTOP_FK_STR || kind == KTOP_FK_SYM;
}

/* Can a field of @kind take @n's operator and value? */
static bool pred_fits(const struct node *n, uint8_t kind)
{
	if (kind_is_str(kind))
		return n->op == OP_EQ || n->op == OP_NE || n->op == OP_GLOB;
	return n->op != OP_GLOB && n->has_num && !n->quoted;
}

/* Say why predicate @n's operator or value does not fit its field (a string when @str). */
static int misfit(struct vfexpr *x, const struct node *n, bool str)
{
	if (str)
		return vx_err(x, n->opos, "'%s' is a string: compare it with ==, != or ~",
			      n->field);
	if (n->op == OP_GLOB)
		return vx_err(x, n->opos, "'%s' is a number: '~' matches strings", n->field);
	return vx_err(x, n->vpos, "'%s' is a number, not %s%s%s", n->field,
		      n->quoted ? "\"" : "'", n->str, n->quoted ? "\"" : "'");
}

/*
 * Every predicate's field must exist in some type (or in what @known accepts),
 * and fit its operator and value there; else the error names the part.
 */
static int check_fields(struct vfexpr *x, vfexpr_field_fn known, void *arg)
{
	const struct schema *sc = store_schema(x->st);
	unsigned int max = schema_max_id(sc);

	for (size_t i = 0; i < x->nn; i++) {
		struct node *n = &x->n[i];
		bool seen = false, fits = false, str = false;
		uint8_t kind;

		if (n->kind != N_PRED)
			continue;
		if (field_slot(NULL, n->field, &kind) != SF_FALSE) {
			seen = true;
			str = kind_is_str(kind);
			fits = pred_fits(n, kind);
		}
		for (unsigned int id = 1; id < max && !fits; id++) {
			const struct ktop_schema_type *t = schema_get(sc, (uint16_t)id);
			int s = t ? field_slot(t, n->field, &kind) : SF_FALSE;

			if (s < 0)
				continue;
			seen = true;
			str = kind_is_str(kind);
			fits = pred_fits(n, kind);
		}
		if (!seen && known && known(arg, n->field))
			continue;
		if (!seen)
			return vx_err(x, n->pos, "no event has a field '%s'", n->field);
		if (!fits)
			return misfit(x, n, str);
	}
	return 0;
}

int vfexpr_check_type(struct vfexpr *x, const char *text, const struct ktop_schema_type *t,
		      struct err_pos *err)
{
	char fields[160] = "";
	int ret = 0;

	x->text = text;
	x->err = err;
	for (unsigned int i = 0; i < t->nfields; i++)
		snprintf(fields + strlen(fields), sizeof(fields) - strlen(fields), "%s%s",
			 i ? ", " : "", t->fields[i].name);
	for (size_t i = 0; i < x->nn && !ret; i++) {
		const struct node *n = &x->n[i];
		uint8_t kind;

		if (n->kind != N_PRED)
			continue;
		if (field_slot(t, n->field, &kind) == SF_FALSE)
			ret = vx_err(x, n->pos, "%s:%s has no field '%s' (its fields: %s)",
				     t->system, t->name, n->field, fields[0] ? fields : "none");
		else if (!pred_fits(n, kind))
			ret = misfit(x, n, kind_is_str(kind));
	}
	x->text = NULL;
	x->err = NULL;
	return ret;
}

int vfexpr_parse(struct vfexpr **out, const char *text, struct store *st, vfexpr_field_fn known,
		 void *arg, struct err_pos *err)
{
	struct vfexpr *x = calloc(1, sizeof(*x));
	int ret;

	if (!x)
		return -ENOMEM;
	x->st = st;
	x->text = text;
	x->err = err;
	skip_ws(x);
	if (!text[x->p]) {
		ret = vx_err(x, x->p, "empty expression");
		goto out_free;
	}
	ret = parse_or(x);
	if (ret < 0)
		goto out_free;
	x->root = ret;
	skip_ws(x);
	if (text[x->p]) {
		ret = vx_err(x, x->p, "unexpected '%s' (join terms with && or ||)", text + x->p);
		goto out_free;
	}
	for (size_t i = 0; i < x->nn; i++) {
		uint8_t kind;
		int s = x->n[i].kind == N_PRED ? field_slot(NULL, x->n[i].field, &kind) : 0;

		x->common |= s == SF_PID || s == SF_CPU || s == SF_COMM;
	}
	if (st) {
		ret = check_fields(x, known, arg);
		if (ret)
			goto out_free;
	}
	x->text = NULL;
	x->err = NULL;
	*out = x;
	return 0;
out_free:
	vfexpr_free(x);
	return ret;
}

void vfexpr_free(struct vfexpr *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nn; i++) {
		free(x->n[i].field);
		free(x->n[i].str);
		free(x->n[i].memo);
	}
	for (size_t i = 0; i < x->ntypes; i++) {
		if (!x->types[i])
			continue;
		free(x->types[i]->slot);
		free(x->types[i]);
	}
	free(x->types);
	free(x->n);
	free(x);
}

bool vfexpr_uses_common(const struct vfexpr *x)
{
	return x->common;
}

/* ---- per type ------------------------------------------------------------------ */

enum { TRI_F, TRI_T, TRI_D };

static int fold(const struct vfexpr *x, const struct tinfo *ti, int32_t i)
{
	const struct node *n = &x->n[i];
	int a, b;

	switch (n->kind) {
	case N_NOT:
		a = fold(x, ti, n->a);
		return a == TRI_D ? TRI_D : a == TRI_T ? TRI_F : TRI_T;
	case N_AND:
		a = fold(x, ti, n->a);
		b = fold(x, ti, n->b);
		if (a == TRI_F || b == TRI_F)
			return TRI_F;
		return a == TRI_T && b == TRI_T ? TRI_T : TRI_D;
	case N_OR:
		a = fold(x, ti, n->a);
		b = fold(x, ti, n->b);
		if (a == TRI_T || b == TRI_T)
			return TRI_T;
		return a == TRI_F && b == TRI_F ? TRI_F : TRI_D;
	default:
		return ti->slot[i] == SF_FALSE ? TRI_F : TRI_D;
	}
}

static struct tinfo *tinfo_get(struct vfexpr *x, uint16_t type)
{
	const struct ktop_schema_type *t;
	struct tinfo *ti;

	if (type >= x->ntypes) {
		size_t n = (size_t)type + 64;
		struct tinfo **v = realloc(x->types, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + x->ntypes, 0, (n - x->ntypes) * sizeof(*v));
		x->types = v;
		x->ntypes = n;
	}
	if (x->types[type])
		return x->types[type];
	t = x->st ? schema_get(store_schema(x->st), type) : NULL;
	if (!t)
		return NULL;	/* not registered yet: ask again later */
	ti = calloc(1, sizeof(*ti));
	if (!ti)
		return NULL;
	ti->slot = malloc(x->nn * (sizeof(*ti->slot) + sizeof(*ti->kind)));
	if (!ti->slot) {
		free(ti);
		return NULL;
	}
	ti->kind = (uint8_t *)(ti->slot + x->nn);
	for (size_t i = 0; i < x->nn; i++) {
		const struct node *n = &x->n[i];
		uint8_t kind = 0;
		int s = SF_FALSE;

		if (n->kind == N_PRED) {
			s = field_slot(t, n->field, &kind);
			if (s != SF_FALSE && !pred_fits(n, kind))
				s = SF_FALSE;
		}
		ti->slot[i] = (int16_t)s;
		ti->kind[i] = kind;
	}
	switch (fold(x, ti, x->root)) {
	case TRI_F:
		ti->verdict = VFX_FALSE;
		break;
	case TRI_T:
		ti->verdict = VFX_TRUE;
		break;
	default:
		ti->verdict = VFX_EVAL;
	}
	x->types[type] = ti;
	return ti;
}

enum vfexpr_verdict vfexpr_type(struct vfexpr *x, uint16_t type)
{
	struct tinfo *ti = tinfo_get(x, type);

	return ti ? (enum vfexpr_verdict)ti->verdict : VFX_FALSE;
}

/* ---- evaluation ------------------------------------------------------------------ */

static bool str_test(const struct node *n, const char *s)
{
	switch (n->op) {
	case OP_EQ:
		return !strcmp(s, n->str);
	case OP_NE:
		return strcmp(s, n->str) != 0;
	default:
		return glob_match(n->str, s);
	}
}

/* A string predicate on the interned string @id, remembered per id. */
static bool str_pred(struct vfexpr *x, struct node *n, uint64_t id)
{
	bool r;

	if (id < n->nmemo && n->memo[id])
		return n->memo[id] == 2;
	r = str_test(n, intern_str(store_strings(x->st), (uint32_t)id));
	if (id >= n->nmemo && id < (1u << 26)) {
		size_t cap = n->nmemo ? n->nmemo : 256;
		uint8_t *m;

		while (cap <= id)
			cap *= 2;
		m = realloc(n->memo, cap);
		if (m) {
			memset(m + n->nmemo, 0, cap - n->nmemo);
			n->memo = m;
			n->nmemo = cap;
		}
	}
	if (id < n->nmemo)
		n->memo[id] = r ? 2 : 1;
	return r;
}

/* The task's name as libtraceevent's COMM gives it. */
static bool comm_pred(struct vfexpr *x, struct node *n, const struct vfexpr_ev *ev)
{
	int32_t pid = ev->pid;
	const char *c = store_task_name(x->st, pid);

	if (ev->comm)
		return str_test(n, ev->comm);	/* not cached: the caller's buffer */
	if (pid != n->last_pid || c != n->last_comm) {
		n->last_pid = pid;
		n->last_comm = c;
		n->last_res = str_test(n, c);
	}
	return n->last_res;
}

static bool num_pred(const struct node *n, uint64_t v, uint8_t kind)
{
	int64_t l = (int64_t)v, r = (int64_t)n->num;
	bool sgn = kind == KTOP_FK_INT;

	switch (n->op) {
	case OP_EQ:
		return v == n->num;
	case OP_NE:
		return v != n->num;
	case OP_LT:
		return sgn ? l < r : v < n->num;
	case OP_LE:
		return sgn ? l <= r : v <= n->num;
	case OP_GT:
		return sgn ? l > r : v > n->num;
	case OP_GE:
		return sgn ? l >= r : v >= n->num;
	default:
		return (v & n->num) != 0;
	}
}

static bool eval(struct vfexpr *x, const struct tinfo *ti, int32_t i, const struct vfexpr_ev *ev)
{
	struct node *n = &x->n[i];
	int s;
	uint64_t v;

	switch (n->kind) {
	case N_NOT:
		return !eval(x, ti, n->a, ev);
	case N_AND:
		return eval(x, ti, n->a, ev) && eval(x, ti, n->b, ev);
	case N_OR:
		return eval(x, ti, n->a, ev) || eval(x, ti, n->b, ev);
	}
	s = ti->slot[i];
	switch (s) {
	case SF_FALSE:
		return false;
	case SF_PID:
		v = (uint64_t)(int64_t)ev->pid;
		break;
	case SF_FLAGS:
		v = ev->flags;
		break;
	case SF_PC:
		v = ev->pc;
		break;
	case SF_CPU:
		v = ev->cpu;
		break;
	case SF_COMM:
		return comm_pred(x, n, ev);
	default:
		if (s >= ev->nargs)
			return false;
		v = ev->args[s];
	}
	if (kind_is_str(ti->kind[i]))
		return str_pred(x, n, v);
	return num_pred(n, v, ti->kind[i]);
}

bool vfexpr_eval(struct vfexpr *x, const struct vfexpr_ev *ev)
{
	struct tinfo *ti = tinfo_get(x, ev->type);

	if (!ti || ti->verdict == VFX_FALSE)
		return false;
	if (ti->verdict == VFX_TRUE)
		return true;
	return eval(x, ti, x->root, ev);
}

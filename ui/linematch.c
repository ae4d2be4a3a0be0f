// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A text search over the event list's lines (ui/linematch.h). No curses here.
 *
 * Formatting every event to look for the text costs about a microsecond an
 * event, so before it formats one the search asks what the line of such an
 * event could hold at all. The line ui_fmt_event() writes is a fixed layout
 * (rowfmt.c): the task's name right-aligned in 16 columns, "-", the pid,
 * " [CPU] ", the flags, the time, the event's name, ": ", its fields as
 * "name=value" of a known kind. Written as a pattern (literal text, runs
 * of characters of a class, strings of the store's string table), the
 * question "can a line of an event of this type (from this task) hold the
 * text?" is whether the text is a piece of some word the pattern makes: an
 * automaton walks the text through the pattern. "No" is certain, so the
 * search skips those events, and whole chunks of them (by their
 * dictionaries); "maybe" is settled by formatting the line.
 *
 * The patterns follow rowfmt.c: a change to the layout there must be made
 * here too. tests/unit/test_ui_linematch.c formats every event of the
 * recorded fixtures and checks that no piece of any line is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "draw/rowfmt.h"
#include "lib/hashmap.h"
#include "lib/intern.h"
#include "lib/syscalls.h"
#include "linematch.h"
#include "store/schema.h"
#include "store/store.h"

#define LM_INF		0xffff	/* a run of any length */
#define LM_PIECES	96	/* head, name and 16 fields of up to 4 pieces each */
#define LM_LIT		64	/* longest literal piece (longer ones are cut) */
#define LM_RUN		64	/* longest bounded run */

/* Character classes (what a run may hold). */
enum lm_class {
	LC_ANY,		/* a printable byte: richstr writes '?' for the others */
	LC_DIGIT,
	LC_DIGIT_SP,	/* "%5llu": digits after spaces */
	LC_PID,		/* "%-7d": a sign, digits, spaces after */
	LC_INT,		/* "%" PRId64 */
	LC_HEX,		/* lower-case hex digits */
	LC_STATE,	/* a task state: "R+", "S", "D|K" (and any future letters) */
	LC_IDENT,	/* a syscall's name */
	LC_SYSARGS,	/* "fd: 0x3, buf: 0x7ffd5e0c8e10" */
	LC_SYSRET,	/* "-2 ENOENT", "4096", "0x7f3a1c000000" */
	LC_HEXLIST,	/* "3, 7ffd5e0c8e10, 1000" */
	LC_NOSCHEMA,	/* "arg0=0x3 arg1=0x0" */
	LC_SOFTIRQ,	/* "TIMER", "NET_RX", "?" */
	LC_FLAGS,	/* the flags column: a class per column, LC_FLAGS + k */
	LC_NR = LC_FLAGS + FLAGS_COLUMN_MAX,
};

enum lm_kind { PK_LIT, PK_CLS, PK_SET };

struct lm_piece {
	uint8_t		kind;		/* enum lm_kind */
	uint8_t		cls;		/* PK_CLS: enum lm_class */
	uint16_t	min, max;	/* PK_CLS: run length */
	uint16_t	len;		/* PK_LIT */
	const char	*lit;		/* PK_LIT: printable bytes */
};

struct lm_pattern {
	struct lm_piece	p[LM_PIECES];
	unsigned int	n;
	char		text[1024];	/* the literals' bytes */
	size_t		used;
};

/* What the strings of the store's table (field values) can do with the text. */
struct lm_strings {
	bool		inside;				/* one holds the whole text */
	bool		pre[LINEMATCH_MAX + 1];		/* text[i..] begins one */
	bool		suf[LINEMATCH_MAX + 1];		/* text[..x) ends one */
	/* eq[i][x]: text[i..i + x) is one, whole */
	uint64_t	eq[LINEMATCH_MAX + 1][(LINEMATCH_MAX + 64) / 64];
};

struct lm_priv {
	uint64_t		cls[LC_NR][4];	/* 256-bit sets */
	int			flags_width;	/* of the flags column, in this style */
	struct lm_strings	str;
	bool			str_done;
	/*
	 * The walk's states seen, by the stamp of the walk that saw them:
	 * (i, piece, offset, mid) and (i, piece) entered.
	 */
	uint16_t		*seen;
	uint16_t		*entered;
	size_t			nseen, nentered;
	uint16_t		stamp;
	/* syscall events: (pid, entry or exit, nr, nargs) -> 1 no, 2 may */
	struct hmap		sys;
};

/* ---- building patterns ------------------------------------------------------------- */

static void cls_add(uint64_t *set, int lo, int hi)
{
	for (int c = lo; c <= hi; c++)
		set[c / 64] |= 1ull << (c % 64);
}

static void cls_chars(uint64_t *set, const char *s)
{
	for (; *s; s++)
		cls_add(set, (unsigned char)*s, (unsigned char)*s);
}

/*
 * The flags column of @style: each of its columns gets the class of what
 * flags_format_shown() writes there for any flags and preempt count.
 */
static void classes_flags(struct lm_priv *pv, enum flags_style style)
{
	/* the same for every search in a style: worked out once (UI thread) */
	static uint64_t cache[FLAGS_STYLE_RT_LAZY_COUNT + 1][FLAGS_COLUMN_MAX][4];
	static int width[FLAGS_STYLE_RT_LAZY_COUNT + 1];
	char buf[FLAGS_COLUMN_MAX];
	unsigned int si = (unsigned int)style;

	if (si > FLAGS_STYLE_RT_LAZY_COUNT)
		si = FLAGS_STYLE_LAZY;
	for (unsigned int f = 0; !width[si] && f < 256; f++) {
		for (unsigned int pc = 0; pc < 256; pc++) {
			int n = flags_format_shown(buf, style, (uint8_t)f, (uint8_t)pc, 0);

			for (int k = 0; k < n && k < FLAGS_COLUMN_MAX; k++)
				cls_add(cache[si][k], (unsigned char)buf[k], (unsigned char)buf[k]);
			if (f == 255 && pc == 255)
				width[si] = n < FLAGS_COLUMN_MAX ? n : FLAGS_COLUMN_MAX;
		}
	}
	pv->flags_width = width[si];
	for (int k = 0; k < FLAGS_COLUMN_MAX; k++)
		memcpy(pv->cls[LC_FLAGS + k], cache[si][k], sizeof(cache[si][k]));
}

static void classes_init(struct lm_priv *pv, enum flags_style style)
{
	memset(pv->cls, 0, sizeof(pv->cls));
	classes_flags(pv, style);
	cls_add(pv->cls[LC_ANY], 0x20, 0x7e);
	cls_add(pv->cls[LC_DIGIT], '0', '9');
	cls_add(pv->cls[LC_DIGIT_SP], '0', '9');
	cls_chars(pv->cls[LC_DIGIT_SP], " ");
	cls_add(pv->cls[LC_PID], '0', '9');
	cls_chars(pv->cls[LC_PID], "- ");
	cls_add(pv->cls[LC_INT], '0', '9');
	cls_chars(pv->cls[LC_INT], "-");
	cls_add(pv->cls[LC_HEX], '0', '9');
	cls_add(pv->cls[LC_HEX], 'a', 'f');
	for (int k = LC_STATE; k <= LC_SOFTIRQ; k++) {
		if (k == LC_HEXLIST)
			continue;
		cls_add(pv->cls[k], '0', '9');
		cls_add(pv->cls[k], 'a', 'z');
		cls_add(pv->cls[k], 'A', 'Z');
		cls_chars(pv->cls[k], "_");
	}
	cls_chars(pv->cls[LC_STATE], "+|");
	cls_chars(pv->cls[LC_SYSARGS], ":, ");
	/* "-2 ENOENT", "4096", "0x7f3a1c000000": no lower-case but hex digits */
	memset(pv->cls[LC_SYSRET], 0, sizeof(pv->cls[LC_SYSRET]));
	cls_add(pv->cls[LC_SYSRET], '0', '9');
	cls_add(pv->cls[LC_SYSRET], 'a', 'f');
	cls_add(pv->cls[LC_SYSRET], 'A', 'Z');
	cls_chars(pv->cls[LC_SYSRET], "-_ x");
	cls_add(pv->cls[LC_HEXLIST], '0', '9');
	cls_add(pv->cls[LC_HEXLIST], 'a', 'f');
	cls_chars(pv->cls[LC_HEXLIST], ", ");
	cls_chars(pv->cls[LC_NOSCHEMA], "= ");
	cls_chars(pv->cls[LC_SOFTIRQ], "?");
}

static void pat_lit(struct lm_pattern *pt, const char *s, size_t len)
{
	char *d = pt->text + pt->used;

	/* a long literal in pieces: an offset into one is at most LM_LIT */
	while (len > LM_LIT) {
		pat_lit(pt, s, LM_LIT);
		s += LM_LIT;
		len -= LM_LIT;
		d = pt->text + pt->used;
	}
	if (!len || pt->n >= LM_PIECES || pt->used + len > sizeof(pt->text))
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		d[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	pt->used += len;
	pt->p[pt->n++] = (struct lm_piece){ .kind = PK_LIT, .lit = d, .len = (uint16_t)len };
}

static void pat_str(struct lm_pattern *pt, const char *s)
{
	pat_lit(pt, s, strlen(s));
}

static void pat_cls(struct lm_pattern *pt, enum lm_class c, unsigned int min, unsigned int max)
{
	if (pt->n < LM_PIECES)
		pt->p[pt->n++] = (struct lm_piece){ .kind = PK_CLS, .cls = (uint8_t)c,
						    .min = (uint16_t)min, .max = (uint16_t)max };
}

static void pat_set(struct lm_pattern *pt)
{
	if (pt->n < LM_PIECES)
		pt->p[pt->n++] = (struct lm_piece){ .kind = PK_SET };
}

/*
 * The line up to the time, as ui_fmt_event() writes it: "%16s-%-7d [%03u] "
 * (the task's name right-aligned, cut on the left), the flags, the time
 * " %5llu.%06llu: ". With @pid >= 0 the task's name and pid are that task's.
 */
static void pat_head(struct lm_pattern *pt, const struct lm_priv *pv, struct store *st,
		     int32_t pid)
{
	if (pid >= 0) {
		const char *comm = store_task_name(st, pid);
		struct richstr rs;
		char b[16];

		richstr_clear(&rs);
		richstr_add_right(&rs, ROLE_TASK, comm, 16);
		snprintf(b, sizeof(b), "-%-7d", pid);
		richstr_add(&rs, ROLE_PID, b);
		richstr_add(&rs, ROLE_CPU, " [");
		pat_lit(pt, rs.ch, (size_t)rs.len);
	} else {
		pat_cls(pt, LC_ANY, 16, 16);
		pat_str(pt, "-");
		pat_cls(pt, LC_PID, 7, 12);
		pat_str(pt, " [");
	}
	pat_cls(pt, LC_DIGIT, 3, 5);
	pat_str(pt, "] ");
	for (int k = 0; k < pv->flags_width; k++)
		pat_cls(pt, (enum lm_class)(LC_FLAGS + k), 1, 1);
	pat_str(pt, " ");
	pat_cls(pt, LC_DIGIT_SP, 5, 20);
	pat_str(pt, ".");
	pat_cls(pt, LC_DIGIT, 6, 6);
	pat_str(pt, ": ");
}

/* A field value of kind @kind (rowfmt.c add_field). */
static void pat_value(struct lm_pattern *pt, enum ktop_field_kind kind)
{
	switch (kind) {
	case KTOP_FK_INT:
		pat_cls(pt, LC_INT, 1, 20);
		break;
	case KTOP_FK_UINT:
		pat_cls(pt, LC_DIGIT, 1, 20);
		break;
	case KTOP_FK_HEX:
		pat_str(pt, "0x");
		pat_cls(pt, LC_HEX, 1, 16);
		break;
	default:
		pat_set(pt);
		break;
	}
}

/* The layouts ui_fmt_fields() may write for @type: up to four. Return: how many. */
static unsigned int pat_fields(struct lm_pattern *alt, const struct lm_pattern *head,
			       struct store *st, uint16_t type)
{
	const struct ktop_schema_type *t = st ? schema_get(store_schema(st), type) : NULL;
	unsigned int n = 0;

	if (type == KTOP_T_SCHED_SWITCH) {
		struct lm_pattern *p = &alt[n++];

		*p = *head;
		pat_str(p, "prev_comm=");
		pat_set(p);
		pat_str(p, " prev_pid=");
		pat_cls(p, LC_INT, 1, 20);
		pat_str(p, " prev_prio=");
		pat_cls(p, LC_INT, 1, 20);
		pat_str(p, " prev_state=");
		pat_cls(p, LC_STATE, 0, LM_RUN);
		pat_str(p, " ==> next_comm=");
		pat_set(p);
		pat_str(p, " next_pid=");
		pat_cls(p, LC_INT, 1, 20);
		pat_str(p, " next_prio=");
		pat_cls(p, LC_INT, 1, 20);
	}
	if (type == KTOP_T_SYS_ENTER || type == KTOP_T_SYS_EXIT) {
		struct lm_pattern *p = &alt[n++], *q = &alt[n++];

		/* a number without a name, as raw_syscalls prints it */
		*p = *head;
		pat_str(p, "NR ");
		pat_cls(p, LC_INT, 1, 20);
		/* named: "read(fd: 0x3, ...)", "read -> 4096" */
		*q = *head;
		pat_cls(q, LC_IDENT, 1, LM_RUN);
		if (type == KTOP_T_SYS_EXIT) {
			pat_str(p, " = ");
			pat_cls(p, LC_INT, 1, 20);
			pat_str(q, " -> ");
			pat_cls(q, LC_SYSRET, 1, LM_RUN);
		} else {
			pat_str(p, " (");
			pat_cls(p, LC_HEXLIST, 0, LM_INF);
			pat_str(p, ")");
			pat_str(q, "(");
			pat_cls(q, LC_SYSARGS, 0, LM_INF);
			pat_str(q, ")");
		}
	}
	/* the general layout: fewer arguments than fields make a line it begins */
	alt[n] = *head;
	if (!t) {
		pat_cls(&alt[n++], LC_NOSCHEMA, 0, LM_INF);
		return n;
	}
	for (unsigned int i = 0; i < t->nfields; i++) {
		char name[128];

		snprintf(name, sizeof(name), "%s%s=", i ? " " : "", t->fields[i].name);
		pat_str(&alt[n], name);
		pat_value(&alt[n], t->fields[i].kind);
	}
	if (type == KTOP_T_SOFTIRQ_ENTRY || type == KTOP_T_SOFTIRQ_EXIT) {
		pat_str(&alt[n], " [action=");
		pat_cls(&alt[n], LC_SOFTIRQ, 1, 16);
		pat_str(&alt[n], "]");
	}
	return n + 1;
}

/* ---- the strings of the store's table ---------------------------------------------- */

static void eq_set(struct lm_strings *s, size_t i, size_t x)
{
	s->eq[i][x / 64] |= 1ull << (x % 64);
}

static bool eq_has(const struct lm_strings *s, size_t i, size_t x)
{
	return (s->eq[i][x / 64] >> (x % 64)) & 1;
}

/* What string @v (as a line shows it) can do with the text @t of @n bytes. */
static void str_one(struct lm_strings *s, const char *t, size_t n, const char *v, size_t len)
{
	if (!len) {
		for (size_t i = 0; i <= n; i++)
			eq_set(s, i, 0);
		return;
	}
	if (len >= n && memmem(v, len, t, n))
		s->inside = true;
	for (size_t i = 0; i < n; i++) {
		if (v[0] != t[i])
			continue;
		/* t[i..n) begins @v */
		if (len >= n - i && !memcmp(v, t + i, n - i))
			s->pre[i] = true;
		/* @v is t[i..i + len) */
		if (len <= n - i && !memcmp(v, t + i, len))
			eq_set(s, i, len);
	}
	for (size_t x = 1; x <= n && x <= len; x++)
		if (v[len - 1] == t[x - 1] && !memcmp(v + len - x, t, x))
			s->suf[x] = true;
}

/*
 * Every string of @st's table, as a field shows it (non-printable bytes as
 * '?'; add_field drops a final newline, sched_switch's comms do not: both).
 */
static void strings_scan(struct lm_strings *s, struct store *st, const char *t, size_t n)
{
	const struct intern *in = st ? store_strings(st) : NULL;
	uint32_t count = in ? intern_count(in) : 0;
	char buf[RICHSTR_MAX + 1];

	memset(s, 0, sizeof(*s));
	/* an unknown id shows as "", no table as "?" */
	str_one(s, t, n, "", 0);
	str_one(s, t, n, "?", 1);
	for (uint32_t id = 1; id < count; id++) {
		const char *v = intern_str(in, id);
		size_t len = strnlen(v, RICHSTR_MAX);
		bool odd = false;

		for (size_t k = 0; k < len && !odd; k++)
			odd = (unsigned char)v[k] < 0x20 || (unsigned char)v[k] >= 0x7f;
		if (odd) {
			for (size_t k = 0; k < len; k++)
				buf[k] = (unsigned char)v[k] < 0x20 ||
					 (unsigned char)v[k] >= 0x7f ? '?' : v[k];
			v = buf;
		}
		str_one(s, t, n, v, len);
		if (len && intern_str(in, id)[len - 1] == '\n')
			str_one(s, t, n, v, len - 1);
	}
}

/* ---- the walk ------------------------------------------------------------------------ */

#define LM_OFFS		(2 * (LM_LIT > LM_RUN ? LM_LIT + 1 : LM_RUN + 1))	/* (offset, mid) */

struct lm_walk {
	const struct lm_pattern	*pt;
	struct lm_priv		*pv;
	const char		*t;
	size_t			n;
};

/* Return: was state @k of @tab seen by this walk already? It is now. */
static bool seen_before(uint16_t *tab, uint16_t stamp, size_t k)
{
	bool was = tab[k] == stamp;

	tab[k] = stamp;
	return was;
}

static bool walk_state(struct lm_walk *w, size_t i, unsigned int j, unsigned int o, bool mid);

/* The text's byte @i is where piece @j begins. Return: the text fits (to its end). */
static bool walk_enter(struct lm_walk *w, size_t i, unsigned int j)
{
	const struct lm_piece *pc;

	if (i == w->n)
		return true;
	if (j >= w->pt->n)
		return false;		/* the line ends here */
	if (seen_before(w->pv->entered, w->pv->stamp, i * LM_PIECES + j))
		return false;
	pc = &w->pt->p[j];
	if (pc->kind != PK_SET)
		return walk_state(w, i, j, 0, false);
	if (w->pv->str.pre[i])
		return true;		/* the text ends inside a string */
	for (size_t x = 0; i + x <= w->n; x++)
		if (eq_has(&w->pv->str, i, x) && walk_enter(w, i + x, j + 1))
			return true;
	return false;
}

/* At text byte @i, @o bytes into piece @j (@mid: begun before the text). */
static bool walk_state(struct lm_walk *w, size_t i, unsigned int j, unsigned int o, bool mid)
{
	const struct lm_piece *pc = &w->pt->p[j];
	unsigned char c;

	if (i == w->n)
		return true;
	if (seen_before(w->pv->seen, w->pv->stamp, (i * LM_PIECES + j) * LM_OFFS + o * 2 + mid))
		return false;
	c = (unsigned char)w->t[i];
	if (pc->kind == PK_LIT) {
		if (pc->lit[o] != (char)c)
			return false;
		return o + 1 < pc->len ? walk_state(w, i + 1, j, o + 1, false) :
					 walk_enter(w, i + 1, j + 1);
	}
	/* a run: one more byte of it, or the next piece */
	if (o < pc->max && (w->pv->cls[pc->cls][c / 64] >> (c % 64)) & 1) {
		unsigned int next = o + 1;

		/* past its minimum a run's length matters only against its maximum */
		if (pc->max == LM_INF && next > pc->min)
			next = pc->min;
		if (walk_state(w, i + 1, j, next, mid))
			return true;
	}
	return (mid || o >= pc->min) && walk_enter(w, i, j + 1);
}

/* Can the text be a piece of a line of pattern @pt? */
static bool pattern_may(struct linematch *m, const struct lm_pattern *pt)
{
	struct lm_priv *pv = m->priv;
	struct lm_walk w = { .pt = pt, .pv = pv, .t = m->needle, .n = strlen(m->needle) };

	if (++pv->stamp == 0) {
		/* the stamps went round: forget them all */
		memset(pv->seen, 0, pv->nseen * sizeof(*pv->seen));
		memset(pv->entered, 0, pv->nentered * sizeof(*pv->entered));
		pv->stamp = 1;
	}
	/* the text begins anywhere: in any piece, at any byte of it */
	for (unsigned int j = 0; j < pt->n; j++) {
		const struct lm_piece *pc = &pt->p[j];

		switch (pc->kind) {
		case PK_LIT:
			for (unsigned int o = 0; o < pc->len; o++)
				if (walk_state(&w, 0, j, o, false))
					return true;
			break;
		case PK_CLS:
			if (walk_state(&w, 0, j, 0, true))
				return true;
			break;
		default:
			if (pv->str.inside)
				return true;
			for (size_t x = 1; x <= w.n; x++)
				if (pv->str.suf[x] && walk_enter(&w, x, j + 1))
					return true;
			break;
		}
	}
	return false;
}

/* Can a line of an event of @type (from task @pid; -1: any) hold the text? */
static bool line_may(struct linematch *m, uint16_t type, int32_t pid)
{
	struct lm_pattern *alt = malloc(5 * sizeof(*alt));
	bool may = false;
	unsigned int n;

	if (!alt)
		return true;
	alt[4].n = 0;
	alt[4].used = 0;
	pat_head(&alt[4], m->priv, m->st, pid);
	pat_str(&alt[4], ui_event_name(m->st, type));
	pat_str(&alt[4], ": ");
	n = pat_fields(alt, &alt[4], m->st, type);
	for (unsigned int i = 0; i < n && !may; i++)
		may = pattern_may(m, &alt[i]);
	free(alt);
	return may;
}

/*
 * A syscall's line as fmt_syscall() writes it for syscall @nr with @nargs
 * arguments: its name and its arguments' names are known, so the pattern
 * is nearly the line itself.
 */
static void pat_syscall(struct lm_pattern *pt, bool exit, uint64_t nr, unsigned int nargs)
{
	const char *name = nr <= UINT32_MAX ? syscall_name((uint32_t)nr) : NULL;
	const char *an[SYSCALL_MAX_ARGS];
	int n;

	if (!name) {
		pat_str(pt, "NR ");
		pat_cls(pt, LC_INT, 1, 20);
		if (exit) {
			pat_str(pt, " = ");
			pat_cls(pt, LC_INT, 1, 20);
		} else {
			pat_str(pt, " (");
			pat_cls(pt, LC_HEXLIST, 0, LM_INF);
			pat_str(pt, ")");
		}
		return;
	}
	pat_str(pt, name);
	if (exit) {
		pat_str(pt, " -> ");
		pat_cls(pt, LC_SYSRET, 1, LM_RUN);
		return;
	}
	n = syscall_args((uint32_t)nr, an);
	pat_str(pt, "(");
	for (int i = 0; i < (n < 0 ? SYSCALL_MAX_ARGS : n) && i + 1 < (int)nargs; i++) {
		char b[128];

		snprintf(b, sizeof(b), "%s%s%s0x", i ? ", " : "", n < 0 ? "" : an[i],
			 n < 0 ? "" : ": ");
		pat_str(pt, b);
		pat_cls(pt, LC_HEX, 1, 16);
	}
	pat_str(pt, ")");
}

/* Its layout depends on the syscall: the answer is kept per task, syscall and argument count. */
bool linematch_sys_may(struct linematch *m, const struct ktop_event *ev)
{
	bool exit = ev->type == KTOP_T_SYS_EXIT;
	struct lm_priv *pv = m->priv;
	struct lm_pattern *pt;
	uint64_t key, *v;

	if ((ev->type != KTOP_T_SYS_ENTER && !exit) || ev->nargs < 2 || ev->args[0] > 0xfffff ||
	    ev->pid < 0 || !pv)
		return true;
	key = (uint64_t)(uint32_t)ev->pid << 32 | (uint64_t)exit << 31 |
	      (uint64_t)(ev->nargs & 31) << 24 | ev->args[0];
	v = hmap_put(&pv->sys, key, NULL);
	if (!v)
		return true;
	if (*v)
		return *v == 2;
	pt = malloc(sizeof(*pt));
	if (!pt)
		return true;
	pt->n = 0;
	pt->used = 0;
	pat_head(pt, pv, m->st, ev->pid);
	pat_str(pt, ui_event_name(m->st, ev->type));
	pat_str(pt, ": ");
	pat_syscall(pt, exit, ev->args[0], ev->nargs);
	*v = pattern_may(m, pt) ? 2 : 1;
	free(pt);
	return *v == 2;
}

/* ---- the predicate ------------------------------------------------------------------- */

int linematch_init(struct linematch *m, struct store *st, enum flags_style style,
		   const char *needle)
{
	struct lm_priv *pv;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (!needle || !*needle)
		return -EINVAL;
	m->st = st;
	m->style = style;
	snprintf(m->needle, sizeof(m->needle), "%s", needle);
	n = strlen(m->needle);
	pv = calloc(1, sizeof(*pv));
	if (!pv)
		return -ENOMEM;
	pv->nseen = (n + 1) * LM_PIECES * LM_OFFS;
	pv->nentered = (n + 1) * LM_PIECES;
	pv->seen = calloc(pv->nseen, sizeof(*pv->seen));
	pv->entered = calloc(pv->nentered, sizeof(*pv->entered));
	if (!pv->seen || !pv->entered) {
		free(pv->seen);
		free(pv->entered);
		free(pv);
		return -ENOMEM;
	}
	classes_init(pv, style);
	m->priv = pv;
	return 0;
}

void linematch_destroy(struct linematch *m)
{
	struct lm_priv *pv = m->priv;

	if (!pv)
		return;
	hmap_destroy(&pv->sys);
	free(pv->seen);
	free(pv->entered);
	free(pv);
	m->priv = NULL;
}

static struct lm_priv *priv_ready(struct linematch *m)
{
	struct lm_priv *pv = m->priv;

	if (pv && !pv->str_done) {
		strings_scan(&pv->str, m->st, m->needle, strlen(m->needle));
		pv->str_done = true;
	}
	return pv;
}

bool linematch_type_may(struct linematch *m, uint16_t type)
{
	return !priv_ready(m) || line_may(m, type, -1);
}

bool linematch_task_may(struct linematch *m, int32_t pid, uint16_t type)
{
	return !priv_ready(m) || pid < 0 || line_may(m, type, pid);
}

bool linematch_line(struct linematch *m, const struct ktop_event *ev)
{
	if (!linematch_sys_may(m, ev))
		return false;
	ui_fmt_event(&m->line, m->st, m->style, ev);
	return strstr(m->line.ch, m->needle) != NULL;
}

static bool lm_type_may(void *arg, uint16_t type)
{
	return linematch_type_may(arg, type);
}

static bool lm_task_may(void *arg, int32_t pid, uint16_t type)
{
	return linematch_task_may(arg, pid, type);
}

static bool lm_match(void *arg, const struct ktop_event *ev)
{
	return linematch_line(arg, ev);
}

const struct evsearch_ops linematch_ops = {
	.type_may	= lm_type_may,
	.task_may	= lm_task_may,
	.match		= lm_match,
};

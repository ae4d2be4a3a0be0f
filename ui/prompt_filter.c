// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The filter prompt (F4, f): a thin layer over src/filter.h (the language,
 * the as-you-type preview, Tab completion) and src/ftrace_filter.h (apply to
 * the kernel with error_log and read-back, undo/redo, history). Tracing goes
 * on while it is open. It shows, as the user types, how many functions of
 * available_filter_functions the line selects and the first of them, or the
 * parse error (pcre2's message) with a caret at its offset; Enter applies and
 * shows the kernel's answer.
 *
 * Where the kernel refuses function filtering (EPERM, as on lockdown kernels)
 * the prompt says so and applies nothing to set_ftrace_filter; a recorded
 * function list named by $KTOP_FILTER_FUNCS (plain or .gz) still gives a
 * preview, labelled as not this kernel's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <curses.h>
#include <tracefs.h>
#include <zlib.h>
#include "app.h"
#include "filter.h"
#include "ftrace_filter.h"
#include "session.h"
#include "tracer_feed.h"
#include "ui-local.h"

#define CTRL(c)		((c) & 0x1f)
#define PF_ROWS		9	/* the overlay's height */

struct prompt_filter {
	struct ftrace_filter	*ff;		/* NULL: not live, or open failed (see why) */
	char			why[256];
	struct filter_funcs	*offline;	/* a recorded list, when the kernel's is refused */
	char			offline_name[128];
	struct filter_history	*hist;
	char			hist_why[256];
	struct filter_set	current;	/* set_ftrace_filter now, for '+' and '!' lines */
	bool			have_current;
	char			line[FILTER_LINE_MAX + 1];
	size_t			len, cursor;
	bool			overflow;	/* more was typed or pasted than a line holds */
	long			hist_idx;	/* -1: the line being edited */
	char			saved[FILTER_LINE_MAX + 1];
	bool			dirty;		/* preview out of date */
	int			pv_ret;
	struct filter_preview	pv;
	bool			show_comp;
	struct filter_completion comp;
	bool			have_res;
	struct ftrace_filter_result res;
};

static const struct filter_funcs *pf_funcs(const struct prompt_filter *pf)
{
	const struct filter_funcs *f = pf->ff ? ftrace_filter_funcs(pf->ff) : NULL;

	return f ? f : pf->offline;
}

/* Load a recorded available_filter_functions, plain or gzip'd. Return: NULL on failure. */
static struct filter_funcs *pf_load_offline(const char *path)
{
	struct filter_funcs *ff = NULL;
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	gzFile gz = gzopen(path, "rb");
	int n;

	if (!buf || !gz)
		goto out;
	while ((n = gzread(gz, buf + len, (unsigned int)(cap - len))) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				goto out;
			buf = nb;
			cap *= 2;
		}
	}
	if (n == 0)
		ff = filter_funcs_parse(buf, len);
out:
	if (gz)
		gzclose(gz);
	free(buf);
	return ff;
}

static void pf_refresh_current(struct prompt_filter *pf)
{
	if (pf->have_current)
		filter_set_destroy(&pf->current);
	pf->have_current = pf->ff && ftrace_filter_funcs(pf->ff) &&
			   !ftrace_filter_current(pf->ff, FILTER_T_FILTER, &pf->current);
}

/* Set up on first use: the kernel side, the offline list, the history. */
static struct prompt_filter *pf_get(struct ui *ui)
{
	struct prompt_filter *pf = ui->filter;
	struct app *a = ui->app;
	const char *env;
	int ret;

	if (pf)
		return pf;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->hist_idx = -1;
	pf->dirty = true;
	if (!a->live || !a->sess) {
		snprintf(pf->why, sizeof(pf->why), "viewing a snapshot: there is no live kernel "
			 "to filter");
	} else {
		ret = ftrace_filter_open(&pf->ff, session_instance(a->sess), pf->why,
					 sizeof(pf->why));
		if (ret) {
			pf->ff = NULL;
			if (!pf->why[0])
				snprintf(pf->why, sizeof(pf->why), "%s", strerror(-ret));
		} else {
			snprintf(pf->why, sizeof(pf->why), "%s", ftrace_filter_unavailable(pf->ff));
		}
	}
	env = getenv("KTOP_FILTER_FUNCS");
	if (!(pf->ff && ftrace_filter_funcs(pf->ff)) && env && *env) {
		pf->offline = pf_load_offline(env);
		snprintf(pf->offline_name, sizeof(pf->offline_name), "%s", env);
	}
	ret = filter_history_open(&pf->hist, NULL);
	if (ret) {
		pf->hist = NULL;
		snprintf(pf->hist_why, sizeof(pf->hist_why), "history: %s", strerror(-ret));
	}
	pf_refresh_current(pf);
	ui->filter = pf;
	return pf;
}

void prompt_filter_free(struct ui *ui)
{
	struct prompt_filter *pf = ui->filter;

	if (!pf)
		return;
	if (pf->have_current)
		filter_set_destroy(&pf->current);
	ftrace_filter_close(pf->ff);
	filter_funcs_free(pf->offline);
	filter_history_free(pf->hist);
	free(pf);
	ui->filter = NULL;
}

int prompt_filter_open(struct ui *ui)
{
	struct prompt_filter *pf = pf_get(ui);

	if (!pf) {
		ui_message(ui, "filter: out of memory");
		return UI_REDRAW;
	}
	pf->len = pf->cursor = 0;
	pf->line[0] = '\0';
	pf->overflow = false;
	pf->hist_idx = -1;
	pf->show_comp = false;
	pf->have_res = false;
	pf->dirty = true;
	pf_refresh_current(pf);
	ui->modal = MODAL_FILTER;
	return UI_REDRAW;
}

static void pf_set_line(struct prompt_filter *pf, const char *s)
{
	snprintf(pf->line, sizeof(pf->line), "%s", s);
	pf->len = pf->cursor = strlen(pf->line);
	pf->overflow = false;
	pf->dirty = true;
}

static void pf_insert(struct prompt_filter *pf, char c)
{
	if (pf->len >= FILTER_LINE_MAX) {
		pf->overflow = true;
		return;
	}
	memmove(pf->line + pf->cursor + 1, pf->line + pf->cursor, pf->len - pf->cursor + 1);
	pf->line[pf->cursor++] = c;
	pf->len++;
	pf->dirty = true;
}

static void pf_complete(struct prompt_filter *pf)
{
	const struct filter_funcs *funcs = pf_funcs(pf);
	struct filter_completion *c = &pf->comp;
	size_t plen, tail;

	pf->show_comp = false;
	if (!funcs)
		return;
	if (!filter_complete(funcs, pf->line, pf->cursor, c))
		return;
	plen = strlen(c->prefix);
	tail = pf->len - pf->cursor;
	if (c->start > pf->cursor || c->start + plen + tail > FILTER_LINE_MAX)
		return;
	memmove(pf->line + c->start + plen, pf->line + pf->cursor, tail + 1);
	memcpy(pf->line + c->start, c->prefix, plen);
	pf->cursor = c->start + plen;
	pf->len = c->start + plen + tail;
	pf->show_comp = c->ncand > 1;
	pf->dirty = true;
}

static void pf_history(struct prompt_filter *pf, int dir)
{
	long n = pf->hist ? (long)filter_history_count(pf->hist) : 0, i = pf->hist_idx + dir;
	const char *s;

	if (i < -1 || i >= n)
		return;
	if (pf->hist_idx == -1)
		snprintf(pf->saved, sizeof(pf->saved), "%s", pf->line);
	pf->hist_idx = i;
	s = i < 0 ? pf->saved : filter_history_get(pf->hist, (size_t)i);
	pf_set_line(pf, s ? s : "");
}

/*
 * Mark a change in the trace itself: the text goes to the trace_marker of
 * ktop's instance, so it lands in the ring buffer in time order between the
 * events before the change and those after it, and reaches the store (as an
 * ftrace print event) like any other event. No new kernel state.
 */
static void pf_mark(struct ui *ui, const struct ftrace_filter_result *r)
{
	char text[300];
	int ret;

	if (!r->changed || !ui->app->sess)
		return;
	snprintf(text, sizeof(text), "ktop: %.290s", r->marker[0] ? r->marker : r->msg);
	ret = ui_trace_marker(ui, text);
	if (ret && ret != -ENODEV)
		ui_message(ui, "filter changed; trace_marker not written: %s", strerror(-ret));
}

/* The status-bar line for a result: the message, the kernel's word, the count. */
static void pf_result_message(struct ui *ui, const struct ftrace_filter_result *r)
{
	struct prompt_filter *pf = ui->filter;
	char cnt[64] = "";

	if (!r->err && !r->all_functions && pf && pf->ff && ftrace_filter_funcs(pf->ff))
		snprintf(cnt, sizeof(cnt), " [set_ftrace_filter: %zu functions]",
			 r->count[FILTER_T_FILTER]);
	ui_message(ui, "%s%s%s%s", r->msg, cnt, r->kernel_error[0] ? "; error_log: " : "",
		   r->kernel_error);
}

static int pf_apply(struct ui *ui, struct prompt_filter *pf)
{
	char why[200];

	if (pf->overflow) {
		ui_message(ui, "filter: the line is longer than %d bytes; nothing applied",
			   FILTER_LINE_MAX);
		return UI_REDRAW;
	}
	if (!pf->len)
		return UI_REDRAW;
	if (pf->hist && filter_history_add(pf->hist, pf->line, why, sizeof(why)) < 0 &&
	    !pf->hist_why[0])	/* the first reason stays in the footer: said once */
		snprintf(pf->hist_why, sizeof(pf->hist_why), "history not saved: %s", why);
	pf->hist_idx = -1;
	if (!pf->ff) {
		memset(&pf->res, 0, sizeof(pf->res));
		pf->res.err = -EPERM;
		snprintf(pf->res.msg, sizeof(pf->res.msg), "nothing applied: %s", pf->why);
		pf->have_res = true;
		return UI_REDRAW;
	}
	ftrace_filter_apply(pf->ff, pf->line, &pf->res);
	pf_mark(ui, &pf->res);
	pf->have_res = true;
	pf_refresh_current(pf);
	pf->dirty = true;
	if (!pf->res.err) {
		/* applied: close, and say what the kernel now has */
		ui->modal = MODAL_NONE;
		pf_result_message(ui, &pf->res);
	}
	return UI_REDRAW;
}

int prompt_filter_undo(struct ui *ui, bool redo)
{
	struct prompt_filter *pf = pf_get(ui);
	int ret;

	if (!pf)
		return UI_REDRAW;
	if (!pf->ff) {
		ui_message(ui, "filter %s: %s", redo ? "redo" : "undo", pf->why);
		return UI_REDRAW;
	}
	ret = redo ? ftrace_filter_redo(pf->ff, &pf->res) : ftrace_filter_undo(pf->ff, &pf->res);
	if (ret == -ENOENT) {
		ui_message(ui, "no filter change to %s", redo ? "redo" : "undo");
		return UI_REDRAW;
	}
	pf_mark(ui, &pf->res);
	pf->have_res = true;
	pf_refresh_current(pf);
	pf->dirty = true;
	pf_result_message(ui, &pf->res);
	return UI_REDRAW;
}

int prompt_filter_toggle(struct ui *ui, const char *name)
{
	struct prompt_filter *pf = pf_get(ui);
	const struct filter_funcs *funcs;
	char line[300];
	size_t first, n;
	bool in = false;

	if (!pf)
		return UI_HANDLED | UI_REDRAW;
	funcs = pf->ff ? ftrace_filter_funcs(pf->ff) : NULL;
	if (!funcs) {
		ui_message(ui, "filter: %s; %s not added", pf->why[0] ? pf->why :
			   "no function list", name);
		return UI_HANDLED | UI_REDRAW;
	}
	pf_refresh_current(pf);
	n = filter_funcs_find_line(funcs, name, strlen(name), &first);
	for (size_t i = first; n && i != SIZE_MAX; i = filter_funcs_next_same(funcs, i))
		if (pf->have_current && filter_set_test(&pf->current, i))
			in = true;
	snprintf(line, sizeof(line), in ? "!%s" : "+ %s", name);
	ftrace_filter_apply(pf->ff, line, &pf->res);
	pf_mark(ui, &pf->res);
	pf->have_res = true;
	pf_refresh_current(pf);
	pf->dirty = true;
	pf_result_message(ui, &pf->res);
	return UI_HANDLED | UI_REDRAW;
}

int prompt_filter_key(struct ui *ui, int ch)
{
	struct prompt_filter *pf = ui->filter;

	if (!pf) {
		ui->modal = MODAL_NONE;
		return UI_REDRAW;
	}
	if (ch != '\t')
		pf->show_comp = false;
	switch (ch) {
	case 27:
		ui->modal = MODAL_NONE;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		return pf_apply(ui, pf);
	case '\t':
		pf_complete(pf);
		break;
	case KEY_UP:
		pf_history(pf, 1);
		break;
	case KEY_DOWN:
		pf_history(pf, -1);
		break;
	case KEY_LEFT:
		if (pf->cursor > 0)
			pf->cursor--;
		break;
	case KEY_RIGHT:
		if (pf->cursor < pf->len)
			pf->cursor++;
		break;
	case KEY_HOME:
	case CTRL('a'):
		pf->cursor = 0;
		break;
	case KEY_END:
	case CTRL('e'):
		pf->cursor = pf->len;
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (pf->cursor > 0) {
			memmove(pf->line + pf->cursor - 1, pf->line + pf->cursor,
				pf->len - pf->cursor + 1);
			pf->cursor--;
			pf->len--;
			pf->overflow = false;
			pf->dirty = true;
		}
		break;
	case KEY_DC:
		if (pf->cursor < pf->len) {
			memmove(pf->line + pf->cursor, pf->line + pf->cursor + 1,
				pf->len - pf->cursor);
			pf->len--;
			pf->overflow = false;
			pf->dirty = true;
		}
		break;
	case CTRL('u'):
		pf_set_line(pf, "");
		break;
	case CTRL('z'):
		return prompt_filter_undo(ui, false);
	case CTRL('y'):
		return prompt_filter_undo(ui, true);
	default:
		/* bytes of UTF-8 too: the parser checks the encoding and says where */
		if ((ch >= 0x20 && ch < 0x7f) || (ch >= 0x80 && ch <= 0xff))
			pf_insert(pf, (char)ch);
		break;
	}
	return UI_REDRAW;
}

/* ---- drawing ------------------------------------------------------------------------- */

static void pf_row(struct ui *ui, int y, int w, const struct richstr *rs)
{
	struct richstr r = *rs;

	richstr_truncate(&r, w - 2);
	ui_fill_row(ui, y, ROLE_OVERLAY, w);
	ui_draw_rs(ui, y, 1, &r, w - 2);
}

/* The input row: the tail of a long line, with the cursor as a reverse cell. */
static int pf_input_row(struct richstr *rs, const struct prompt_filter *pf, int w)
{
	int room = w - 6, from = 0;

	if ((int)pf->cursor > room)
		from = (int)pf->cursor - room;
	richstr_clear(rs);
	richstr_add(rs, ROLE_FKEY, "> ");
	richstr_addn(rs, ROLE_OVERLAY, pf->line + from, (int)pf->cursor - from);
	richstr_addn(rs, ROLE_SELECTED, pf->cursor < pf->len ? pf->line + pf->cursor : " ", 1);
	if (pf->cursor < pf->len)
		richstr_addn(rs, ROLE_OVERLAY, pf->line + pf->cursor + 1,
			     (int)(pf->len - pf->cursor - 1));
	return 2 - from;	/* column of line byte 0 within the row */
}

void prompt_filter_draw(struct ui *ui)
{
	struct prompt_filter *pf = ui->filter;
	const struct filter_funcs *funcs;
	int h = PF_ROWS, w = ui->cols, y, x0;
	struct richstr rs;
	char b[64];

	if (!pf)
		return;
	funcs = pf_funcs(pf);
	if (h > ui->rows - 2)
		h = ui->rows - 2;
	y = ui->rows - h;
	if (pf->dirty) {
		pf->pv_ret = filter_preview_line(funcs, pf->line,
						 pf->have_current ? &pf->current : NULL, &pf->pv);
		pf->dirty = false;
	}
	for (int r = 0; r < h; r++)
		ui_fill_row(ui, y + r, ROLE_OVERLAY, w);

	/* 0: what this prompt can do here */
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_FKEY, " Filter ");
	if (pf->ff && ftrace_filter_funcs(pf->ff)) {
		richstr_addf(&rs, ROLE_OK, " %s functions available to filter",
			     ui_fmt_count(b, sizeof(b), filter_funcs_count(funcs)));
		richstr_addf(&rs, ROLE_OVERLAY, "; set_ftrace_filter now: %s",
			     !pf->have_current ? "?" : filter_set_count(&pf->current) ?
			     ui_fmt_count(b, sizeof(b), filter_set_count(&pf->current)) :
			     "all functions");
		richstr_addf(&rs, ROLE_DIM, "; undo %zu redo %zu", ftrace_filter_undo_depth(pf->ff),
			     ftrace_filter_redo_depth(pf->ff));
	} else {
		richstr_addf(&rs, ROLE_WARN, " %s", pf->why[0] ? pf->why :
			     "function filtering is unavailable");
		if (pf->ff)
			richstr_add(&rs, ROLE_OVERLAY, "; pid and event filters still apply");
	}
	pf_row(ui, y, w, &rs);

	/* 1: the line */
	x0 = pf_input_row(&rs, pf, w);
	pf_row(ui, y + 1, w, &rs);

	/* 2: the preview, or the error with a caret at its offset */
	richstr_clear(&rs);
	if (pf->overflow) {
		richstr_addf(&rs, ROLE_ERROR, "the line is longer than %d bytes: cut short, "
			     "nothing will be applied", FILTER_LINE_MAX);
	} else if (!pf->len) {
		richstr_add(&rs, ROLE_DIM, "type a glob (vfs_*), /regex/, !pattern, :mod:NAME, "
			    "-n / -g PATTERN, pid:N, comm:NAME or SYSTEM:EVENT: EXPR");
	} else if (!pf->pv.ok) {
		int off = pf->pv.err.offset;

		if (off >= 0 && x0 + off >= 0 && x0 + off < w - 4) {
			richstr_pad(&rs, ROLE_OVERLAY, x0 + off);
			richstr_add(&rs, ROLE_ERROR, "^ ");
		}
		richstr_add(&rs, ROLE_ERROR, pf->pv.err.msg);
		if (off >= 0)
			richstr_addf(&rs, ROLE_ERROR, " (at offset %d)", off);
	} else {
		if (pf->offline && funcs == pf->offline)
			richstr_add(&rs, ROLE_WARN, "[recorded list] ");
		richstr_add(&rs, pf->pv.count || pf->pv.target == FILTER_T_NR ? ROLE_OK : ROLE_WARN,
			    pf->pv.text);
		if (!funcs && pf->pv.target != FILTER_T_NR)
			richstr_add(&rs, ROLE_DIM, "  (syntax checked only: no function list)");
	}
	pf_row(ui, y + 2, w, &rs);

	/* 3: the first names, or the completion candidates */
	richstr_clear(&rs);
	if (pf->show_comp) {
		richstr_addf(&rs, ROLE_DIM, "%zu candidates: ", pf->comp.ncand);
		for (size_t i = 0; i < pf->comp.ncand && i < FILTER_COMPLETE_MAX &&
		     rs.len < w; i++)
			richstr_addf(&rs, ROLE_OVERLAY, "%s ", pf->comp.cand[i]);
	} else if (pf->len && pf->pv.ok && pf->pv.nnames) {
		if (pf->offline && funcs == pf->offline)
			richstr_addf(&rs, ROLE_DIM, "[%s, not this kernel] ", pf->offline_name);
		for (size_t i = 0; i < pf->pv.nnames && rs.len < w; i++)
			richstr_addf(&rs, ROLE_OVERLAY, "%s ", pf->pv.names[i]);
		if (pf->pv.count > pf->pv.nnames)
			richstr_add(&rs, ROLE_DIM, "...");
	} else if (!funcs && !pf->offline_name[0]) {
		richstr_add(&rs, ROLE_DIM, "no function list to preview against: this kernel "
			    "refuses available_filter_functions (KTOP_FILTER_FUNCS=FILE names a "
			    "recorded one)");
	} else if (!funcs) {
		richstr_addf(&rs, ROLE_WARN, "could not read the function list %s",
			     pf->offline_name);
	}
	pf_row(ui, y + 3, w, &rs);

	/* 4-6: the last apply, undo or redo: the kernel's answer */
	if (pf->have_res) {
		const struct ftrace_filter_result *r = &pf->res;

		richstr_clear(&rs);
		richstr_add(&rs, r->err ? ROLE_ERROR : ROLE_OK, r->msg);
		if (r->apply_ms > 0)
			richstr_addf(&rs, ROLE_DIM, " (%.1f ms)", r->apply_ms);
		pf_row(ui, y + 4, w, &rs);
		richstr_clear(&rs);
		if (r->kernel_error[0]) {
			richstr_add(&rs, ROLE_WARN, "error_log: ");
			richstr_add(&rs, ROLE_OVERLAY, r->kernel_error);
		} else if (!r->err || r->changed) {
			richstr_add(&rs, ROLE_DIM, "error_log: nothing new");
		}
		pf_row(ui, y + 5, w, &rs);
		richstr_clear(&rs);
		if ((!r->err || r->changed) && pf->ff && ftrace_filter_funcs(pf->ff)) {
			richstr_addf(&rs, ROLE_OVERLAY, "read back: set_ftrace_filter %s",
				     r->all_functions ? "empty (all functions)" : "");
			if (!r->all_functions)
				richstr_addf(&rs, ROLE_OVERLAY, "%zu functions: %s",
					     r->count[FILTER_T_FILTER], r->effective);
		}
		pf_row(ui, y + 6, w, &rs);
	}

	/* last: the keys */
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_FKEY, "Enter");
	richstr_add(&rs, ROLE_OVERLAY, " apply ");
	richstr_add(&rs, ROLE_FKEY, "Tab");
	richstr_add(&rs, ROLE_OVERLAY, " complete ");
	richstr_add(&rs, ROLE_FKEY, "Up/Down");
	richstr_add(&rs, ROLE_OVERLAY, " history ");
	richstr_add(&rs, ROLE_FKEY, "^Z/^Y");
	richstr_add(&rs, ROLE_OVERLAY, " undo/redo ");
	richstr_add(&rs, ROLE_FKEY, "^U");
	richstr_add(&rs, ROLE_OVERLAY, " clear ");
	richstr_add(&rs, ROLE_FKEY, "Esc");
	richstr_add(&rs, ROLE_OVERLAY, " close");
	if (pf->hist_why[0])
		richstr_addf(&rs, ROLE_DIM, "  (%s)", pf->hist_why);
	pf_row(ui, y + h - 1, w, &rs);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe prompt (K, F7): a probe spec (src/probe/probe_spec.h, the syntax of
 * --probe) typed with the running kernel's help, and the probes of this run.
 *
 * As the user types it shows the function's prototype from BTF, the line it
 * will write to dynamic_events and the event's fields with their kinds, or
 * what is wrong (the library's message, with a caret under the spec); Tab
 * completes function names, a binary's symbols, parameter and member names
 * after -> and ., and types after :. Enter makes the probe (app_probe_add);
 * what the kernel refuses comes back with its error_log line and caret, and
 * the prompt stays open on the line. Below, the probes of this run: hits per
 * second (the kernel's uprobe_profile/kprobe_profile count, else the events
 * the top view counted), Up/Down select one, Ctrl-T turns it off and on,
 * Ctrl-D removes it.
 *
 * "Probe this": a pane sends UI_REQ_PROBE with its selected row's function or
 * event; the prompt opens on the function, an eprobe on the trace event, or
 * (one of ktop's probes) its spec.
 * The prompt edits and shows; the probes are the app's (src/app/app.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>
#include "app/app.h"
#include "lib/clock.h"
#include "lib/intern.h"
#include "probe/probe.h"
#include "rowsel.h"
#include "store/schema.h"
#include "store/store.h"
#include "ui-local.h"

#define PP_CANDS	64
#define PP_LIST		12	/* probes listed at most */
#define PP_TOP		8	/* rows above the list: status, line, prototype, 4 detail, cands */
#define PP_ERR		2048

/* The hit counts of one probe a second ago, for its rate. */
struct pp_rate {
	char		event[PROBE_NAME_MAX];
	uint64_t	hits, ns;
	double		rate;
	bool		valid;
};

struct prompt_probe {
	bool			dirty;		/* preview out of date */
	int			pv_ret;
	struct probe_def	pv;
	char			pv_err[PP_ERR];
	char			proto[512];
	/* Tab */
	char			*cand[PP_CANDS];
	int			ncand;
	bool			show_comp;
	/* the last Enter that failed */
	bool			have_res;
	char			res[PP_ERR];
	/* what the last Ctrl-T or Ctrl-D did (the footer is under the overlay) */
	char			note[512];
	bool			note_err;
	/* the list */
	int			sel;
	unsigned int		n;
	struct probe_info	info[PP_LIST];
	uint64_t		info_ns;
	struct pp_rate		rate[PP_LIST];
};

static void pp_free_cands(struct prompt_probe *pp)
{
	for (int i = 0; i < pp->ncand; i++)
		free(pp->cand[i]);
	pp->ncand = 0;
	pp->show_comp = false;
}

static void pp_destroy(struct prompt *pr)
{
	pp_free_cands(pr->priv);
}

/* The count and rate of @type's events in the top view (probes the kernel does not count). */
static bool pp_top_count(struct ui *ui, const struct probe_def *d, uint64_t *count, double *rate)
{
	int type = schema_find(store_schema(ui->st), d->group, d->event);
	const struct ui_stats *s = &ui->stats;

	*count = 0;
	*rate = 0;
	if (type < 0)
		return false;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->tab[i].key || UI_TOP_TYPE(s->tab[i].key) != type)
			continue;
		*count += s->tab[i].count;
		*rate += s->tab[i].rate;
	}
	return true;
}

/* Read the probe list again, at most once a second (or now, @force), with rates. */
static void pp_refresh(struct ui *ui, struct prompt_probe *pp, bool force)
{
	uint64_t now = clock_mono_ns();
	struct pp_rate old[PP_LIST];

	if (!force && pp->info_ns && now - pp->info_ns < 1000000000ull)
		return;
	memcpy(old, pp->rate, sizeof(old));
	pp->n = app_probe_list(ui->app, pp->info, PP_LIST);
	for (unsigned int i = 0; i < pp->n; i++) {
		const struct probe_info *in = &pp->info[i];
		struct pp_rate *r = &pp->rate[i];

		memset(r, 0, sizeof(*r));
		snprintf(r->event, sizeof(r->event), "%s", in->def->event);
		r->hits = in->hits;
		r->ns = now;
		for (unsigned int k = 0; k < PP_LIST && in->have_hits; k++) {
			if (!old[k].ns || strcmp(old[k].event, r->event))
				continue;
			if (now - old[k].ns < 500000000ull) {
				*r = old[k];	/* too soon for a rate: the last, from there */
			} else {
				r->rate = (double)(in->hits - old[k].hits) * 1e9 /
					  (double)(now - old[k].ns);
				r->valid = true;
			}
		}
	}
	pp->info_ns = now;
	pp->sel = (int)ui_rowsel_clamp(pp->sel, (long)pp->n);
}

static int pp_open(struct ui *ui, struct prompt *pr)
{
	struct prompt_probe *pp = pr->priv;
	const char *why = app_probe_why(ui->app);

	if (why) {
		ui_message(ui, "probe: %s", why);
		return UI_REDRAW;
	}
	ui_line_init(&pr->line, PROBE_TEXT_MAX - 1);
	pp_free_cands(pp);
	pp->have_res = false;
	pp->note[0] = '\0';
	pp->dirty = true;
	pp_refresh(ui, pp, true);
	return UI_HANDLED | UI_REDRAW;
}

/* ---- the preview ---------------------------------------------------------------- */

/* The kernel function the line names (its first word), or "" for the others. */
static void pp_func_of(const char *line, char *buf, size_t len)
{
	const char *w = line + strspn(line, " \t"), *eq;
	size_t n = strcspn(w, " \t");

	eq = memchr(w, '=', n);
	if (eq) {
		n -= (size_t)(eq + 1 - w);
		w = eq + 1;
	}
	snprintf(buf, len, "%.*s", (int)n, w);
	buf[strcspn(buf, "%+")] = '\0';
	if (strpbrk(buf, ":/"))
		buf[0] = '\0';
}

static void pp_preview(struct ui *ui, struct prompt *pr)
{
	struct prompt_probe *pp = pr->priv;
	char func[256];

	if (!pp->dirty)
		return;
	pp->dirty = false;
	pp->proto[0] = '\0';
	pp->pv_err[0] = '\0';
	memset(&pp->pv, 0, sizeof(pp->pv));
	if (!pr->line.len)
		return;
	pp_func_of(pr->line.text, func, sizeof(func));
	if (func[0] && app_probe_proto(ui->app, func, pp->proto, sizeof(pp->proto)))
		pp->proto[0] = '\0';
	pp->pv_ret = app_probe_preview(ui->app, pr->line.text, &pp->pv, pp->pv_err,
				       sizeof(pp->pv_err));
	if (!pp->proto[0] && pp->pv.proto[0])
		snprintf(pp->proto, sizeof(pp->proto), "%s", pp->pv.proto);
}

/* ---- keys --------------------------------------------------------------------- */

static int pp_complete(struct ui *ui, struct prompt *pr)
{
	struct prompt_probe *pp = pr->priv;
	size_t start;

	pp_free_cands(pp);
	pp->ncand = app_probe_complete(ui->app, pr->line.text, pr->line.cursor, pp->cand, PP_CANDS,
				       &start);
	if (pp->ncand <= 0) {
		pp->ncand = 0;
		ui_message(ui, "probe: nothing to complete here");
		return UI_REDRAW;
	}
	if (ui_line_complete(&pr->line, start, (const char *const *)pp->cand, pp->ncand))
		pp->dirty = true;
	pp->show_comp = pp->ncand > 1;
	return UI_REDRAW;
}

/* Enter: make the probe; the prompt closes when the kernel took it. */
static int pp_submit(struct ui *ui, struct prompt *pr, const char *line)
{
	struct prompt_probe *pp = pr->priv;
	struct probe_def *d;
	int ret;

	if (pr->line.overflow) {
		snprintf(pp->res, sizeof(pp->res), "the spec is longer than %d bytes: nothing made",
			 PROBE_TEXT_MAX - 1);
		pp->have_res = true;
		return UI_REDRAW;
	}
	if (!line[strspn(line, " \t")]) {
		/* as --probe '' says it: an example this kernel takes */
		snprintf(pp->res, sizeof(pp->res), "empty probe spec: give PLACE [ARG...], e.g. %s",
			 probe_example(app_probe_caps(ui->app)));
		pp->have_res = true;
		return UI_REDRAW;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return UI_REDRAW;
	ret = app_probe_add(ui->app, line, d, pp->res, sizeof(pp->res));
	pp_refresh(ui, pp, true);
	if (ret) {
		pp->have_res = true;
	} else {
		ui_prompt_close(ui);
		ui_message(ui, "probe %s/%s made (its events: event list 3, top view 2): %.150s",
			   d->group, d->event, d->line);
	}
	free(d);
	return UI_REDRAW;
}

/* Ctrl-T, Ctrl-D: the selected probe off or on, or removed. */
static int pp_list_key(struct ui *ui, struct prompt_probe *pp, int ch)
{
	const struct probe_info *in;
	char event[PROBE_NAME_MAX], err[512];
	int ret;

	pp_refresh(ui, pp, true);
	if (!pp->n) {
		ui_message(ui, "probe: no probes yet");
		return UI_REDRAW;
	}
	in = &pp->info[pp->sel];
	snprintf(event, sizeof(event), "%s", in->def->event);
	if (ch == UI_CTRL('t'))
		ret = app_probe_enable(ui->app, event, in->enabled != 1, err, sizeof(err));
	else
		ret = app_probe_remove(ui->app, event, err, sizeof(err));
	pp->note_err = ret != 0;
	if (ret)
		snprintf(pp->note, sizeof(pp->note), "%s", err);
	else
		snprintf(pp->note, sizeof(pp->note), "probe %s/%s %s",
			 app_probe_group(ui->app), event, ch != UI_CTRL('t') ?
			 "removed (its events stay in the event list)" :
			 in->enabled != 1 ? "on" : "off");
	pp_refresh(ui, pp, true);
	return UI_REDRAW;
}

static int pp_key(struct ui *ui, struct prompt *pr, int ch)
{
	struct prompt_probe *pp = pr->priv;
	bool changed;
	int ret;

	if (ch != '\t')
		pp->show_comp = false;
	pp->note[0] = '\0';
	switch (ch) {
	case KEY_UP:
	case KEY_DOWN:
		pp_refresh(ui, pp, false);
		pp->sel = (int)ui_rowsel_clamp(pp->sel + (ch == KEY_UP ? -1 : 1), (long)pp->n);
		return UI_REDRAW;
	case UI_CTRL('t'):
	case UI_CTRL('d'):
		return pp_list_key(ui, pp, ch);
	}
	ret = ui_prompt_stay_key(ui, pr, ch, &changed);
	if (changed) {
		pp->dirty = true;
		pp->have_res = false;
	}
	return ret;
}

/* ---- "probe this" ------------------------------------------------------------------ */

/* "func+0x1a [mod]" -> "func ": the arguments come next. Return: @buf, or NULL for none. */
static const char *pp_place_func(const char *func, char *buf, size_t len)
{
	if (!func || !*func || *func == '+' || *func == ' ')
		return NULL;
	snprintf(buf, len, "%.*s ", (int)strcspn(func, "+ "), func);
	return buf;
}

/*
 * What an event of @type names: a function event's function, an eprobe on a
 * trace event, or (one of ktop's probes) its spec, to change into another.
 * Return: @buf, or NULL for nothing (ftrace's own records, an unknown type).
 */
static const char *pp_place_event(struct ui *ui, uint16_t type, uint64_t arg0, char *buf,
				  size_t len)
{
	const struct ktop_schema_type *t;
	struct probe_info in[PP_LIST];
	unsigned int n;

	switch (type) {
	case KTOP_T_FUNCTION:
	case KTOP_T_FGRAPH_ENTRY:
	case KTOP_T_FGRAPH_EXIT:
	case KTOP_T_FUNC_REPEATS:
		return pp_place_func(intern_str(store_strings(ui->st), (uint32_t)arg0), buf, len);
	default:
		break;
	}
	t = schema_get(store_schema(ui->st), type);
	if (!t || !strcmp(t->system, "ftrace"))
		return NULL;
	if (strncmp(t->system, "ktop_", 5)) {
		snprintf(buf, len, "%s:%s ", t->system, t->name);
		return buf;
	}
	n = app_probe_why(ui->app) ? 0 : app_probe_list(ui->app, in, PP_LIST);
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(in[i].def->group, t->system) && !strcmp(in[i].def->event, t->name)) {
			snprintf(buf, len, "%s", in[i].def->spec);
			return buf;
		}
	return NULL;
}

/* UI_REQ_PROBE: open on what the pane's row names. */
static int pp_request(struct ui *ui, struct prompt *pr, const struct ui_req *r)
{
	struct prompt_probe *pp = pr->priv;
	const char *place;
	char *buf;
	int ret;

	if (r->kind != UI_REQ_PROBE)
		return 0;
	ret = ui_prompt_open(ui, "probe");
	if (!(ret & UI_HANDLED))
		return ret | UI_HANDLED;	/* it said why */
	buf = malloc(PROBE_TEXT_MAX);
	if (!buf)
		return ret;
	place = r->probe.event ? pp_place_event(ui, r->probe.type, r->probe.arg0, buf,
						PROBE_TEXT_MAX) :
		pp_place_func(r->probe.func, buf, PROBE_TEXT_MAX);
	if (place) {
		ui_line_set(&pr->line, place);
		pp->dirty = true;
	}
	free(buf);
	return ret;
}

/* ---- drawing ------------------------------------------------------------------------- */

/* Row 0: what this kernel can probe. */
static void pp_fmt_status(struct ui *ui, struct richstr *rs, const struct prompt_probe *pp)
{
	static const struct {
		const char	*name;
		size_t		off;
	} kinds[] = {
		{ "fprobe", offsetof(struct probe_caps, fprobe) },
		{ "kprobe", offsetof(struct probe_caps, kprobe) },
		{ "kretprobe", offsetof(struct probe_caps, kretprobe) },
		{ "eprobe", offsetof(struct probe_caps, eprobe) },
		{ "uprobe", offsetof(struct probe_caps, uprobe) },
		{ "uretprobe", offsetof(struct probe_caps, uretprobe) },
	};
	const struct probe_caps *c = app_probe_caps(ui->app);
	int no = 0;

	richstr_clear(rs);
	richstr_add(rs, ROLE_FKEY, " Probe ");
	if (!c)
		return;
	richstr_add(rs, ROLE_OVERLAY, " this kernel has:");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (*(const bool *)((const char *)c + kinds[i].off))
			richstr_addf(rs, ROLE_OK, " %s", kinds[i].name);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!*(const bool *)((const char *)c + kinds[i].off))
			richstr_addf(rs, ROLE_DIM, "%s%s", no++ ? " " : "; not ", kinds[i].name);
	richstr_addf(rs, c->btf ? ROLE_OVERLAY : ROLE_WARN, "; BTF %s", c->btf ? "yes" : "no");
	richstr_addf(rs, ROLE_OVERLAY, "; group %s, %u probe%s",
		     app_probe_group(ui->app), pp->n, pp->n == 1 ? "" : "s");
}

/*
 * @text's lines into rows @y.., at most @max, the first (the message) wrapped
 * to the width at blanks and the others (a spec and its caret) as they are, so that
 * the caret stays under its character. Return: rows used.
 */
static int pp_lines(struct ui *ui, int y, int w, int max, enum ui_role role, const char *text)
{
	int n = 0, rest = 0, room = w > 12 ? w - 3 : 10;
	struct richstr rs;
	size_t l, msg;

	msg = strcspn(text, "\n");
	for (const char *p = text; (p = strchr(p, '\n')); p++)
		rest++;
	while (n < max && *text) {
		l = strcspn(text, "\n");
		/* wrap the message at a blank; leave rows for the rest */
		if (msg && l > (size_t)room && max - n > rest + 1)
			l = (size_t)richstr_wrap_len(text, (int)l, room);
		richstr_clear(&rs);
		richstr_addn(&rs, role, text, (int)l);
		ui_overlay_row(&ui->screen, y + n++, w, &rs);
		msg -= msg ? l : 0;
		text += l;
		for (; msg && *text == ' '; msg--)
			text++;
		text += !msg && *text == '\n';
	}
	return n;
}

/* How a field of the event shows (enum ktop_field_kind). */
static const char *const kind_names[] = { "int", "uint", "hex", "string", "symbol" };

/* Rows 2-7: the prototype, then the definition and fields, or what is wrong, or Tab's words. */
static void pp_draw_detail(struct ui *ui, struct prompt *pr, int y, int w)
{
	const struct prompt_probe *pp = pr->priv;
	const struct probe_def *d = &pp->pv;
	struct richstr rs;

	richstr_clear(&rs);
	if (pp->proto[0])
		richstr_add(&rs, ROLE_FIELD, pp->proto);
	else if (!pr->line.len)
		richstr_addf(&rs, ROLE_DIM, "e.g. %s", probe_example(app_probe_caps(ui->app)));
	else if (d->how[0])
		richstr_add(&rs, ROLE_DIM, d->how);
	ui_overlay_row(&ui->screen, y, w, &rs);
	if (pp->have_res) {
		pp_lines(ui, y + 1, w, 4, ROLE_ERROR, pp->res);
	} else if (!pr->line.len && !pp->proto[0]) {
		pp_lines(ui, y + 1, w, 4, ROLE_DIM, "FUNC [ARG...], FUNC%return $retval, "
			 "SYSTEM:EVENT FIELD, BINARY:SYMBOL $arg1:string; ARG: [NAME=]EXPR[:TYPE], "
			 "EXPR: param->member");
	} else if (pr->line.len && pp->pv_ret) {
		pp_lines(ui, y + 1, w, 4, ROLE_ERROR, pp->pv_err);
	} else if (pr->line.len) {
		richstr_clear(&rs);
		richstr_add(&rs, ROLE_DIM, "writes ");
		richstr_add(&rs, ROLE_OK, d->line);
		ui_overlay_row(&ui->screen, y + 1, w, &rs);
		richstr_clear(&rs);
		richstr_addf(&rs, ROLE_DIM, "%s, fields:", probe_kind_name(d->kind));
		for (unsigned int i = 0; i < d->nfields; i++)
			richstr_addf(&rs, ROLE_OVERLAY, " %s:%s", d->fields[i].name,
				     kind_names[d->fields[i].kind <= KTOP_FK_SYM ?
						d->fields[i].kind : 0]);
		ui_overlay_row(&ui->screen, y + 2, w, &rs);
		if (d->proto[0] && d->how[0]) {
			richstr_clear(&rs);
			richstr_add(&rs, ROLE_DIM, d->how);
			ui_overlay_row(&ui->screen, y + 3, w, &rs);
		}
	}
	richstr_clear(&rs);
	if (pp->show_comp) {
		richstr_addf(&rs, ROLE_DIM, "%d%s candidates: ", pp->ncand,
			     pp->ncand == PP_CANDS ? "+" : "");
		for (int i = 0; i < pp->ncand && rs.len < w; i++)
			richstr_addf(&rs, ROLE_OVERLAY, "%s ", pp->cand[i]);
	} else if (pp->note[0]) {
		richstr_add(&rs, pp->note_err ? ROLE_ERROR : ROLE_OK, pp->note);
	}
	ui_overlay_row(&ui->screen, y + 5, w, &rs);
}

/* One probe of the list. */
static void pp_fmt_probe(struct ui *ui, struct richstr *rs, const struct prompt_probe *pp,
			 unsigned int i)
{
	const struct probe_info *in = &pp->info[i];
	const struct pp_rate *r = &pp->rate[i];
	char b[32], c[32];
	uint64_t count;
	double rate;

	richstr_clear(rs);
	richstr_addf(rs, ROLE_OVERLAY, "%s", (int)i == pp->sel ? "> " : "  ");
	richstr_add(rs, in->enabled == 1 ? ROLE_OK : ROLE_WARN,
		    in->enabled == 1 ? "on " : in->enabled == 0 ? "off" : "?  ");
	richstr_addf(rs, ROLE_EVENT, " %-24.64s", in->def->event);
	if (in->have_hits) {
		if (r->valid)
			snprintf(b, sizeof(b), "%.1f/s", r->rate);
		else
			snprintf(b, sizeof(b), "-");
		richstr_addf(rs, ROLE_OVERLAY, " %10s %8s hits", b,
			     ui_fmt_count(c, sizeof(c), in->hits));
	} else if (pp_top_count(ui, in->def, &count, &rate)) {
		snprintf(b, sizeof(b), "%.1f/s", rate);
		richstr_addf(rs, ROLE_OVERLAY, " %10s %8s evts", b, ui_fmt_count(c, sizeof(c), count));
	} else {
		richstr_addf(rs, ROLE_DIM, " %10s %8s     ", "-", "-");
	}
	richstr_add(rs, ROLE_DIM, "  ");
	richstr_add(rs, ROLE_OVERLAY, in->def->line);
	if ((int)i == pp->sel)
		richstr_set_role(rs, 0, 2, ROLE_SELECTED);
}

static void pp_draw(struct ui *ui, struct prompt *pr)
{
	static const struct richstr_key keys[] = {
		{ "Enter", " make  " }, { "Tab", " complete  " }, { "Up/Down", " select  " },
		{ "^T", " off/on  " }, { "^D", " remove  " }, { "^U", " clear  " },
		{ "Esc", " close" },
	};
	struct prompt_probe *pp = pr->priv;
	int list = pp->n ? (int)pp->n : 1, h = PP_TOP + 1 + list + 1, w = ui->screen.cols, y;
	struct richstr rs;

	pp_refresh(ui, pp, false);
	pp_preview(ui, pr);
	y = ui_overlay_bottom(&ui->screen, &h, w);
	pp_fmt_status(ui, &rs, pp);
	ui_overlay_row(&ui->screen, y, w, &rs);
	ui_overlay_line(&ui->screen, y + 1, w, &pr->line);
	pp_draw_detail(ui, pr, y + 2, w);
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_COLHDR, "   on  probe                     hits/s    total  definition");
	richstr_add(&rs, ROLE_DIM, pp->n ? "   (hits: the kernel's *probe_profile; evts: the "
		    "top view's count)" : "");
	ui_overlay_row(&ui->screen, y + PP_TOP, w, &rs);
	for (int i = 0; i < list && PP_TOP + 1 + i < h - 1; i++) {
		if (pp->n)
			pp_fmt_probe(ui, &rs, pp, (unsigned int)i);
		else {
			richstr_clear(&rs);
			richstr_add(&rs, ROLE_DIM, "  no probes yet: type a spec above and press Enter");
		}
		ui_overlay_row(&ui->screen, y + PP_TOP + 1 + i, w, &rs);
	}
	richstr_clear(&rs);
	richstr_add_keys(&rs, keys, sizeof(keys) / sizeof(keys[0]), ROLE_OVERLAY);
	ui_overlay_row(&ui->screen, y + h - 1, w, &rs);
}

const struct prompt_ops prompt_probe_ops = {
	.name		= "probe",
	.priv_size	= sizeof(struct prompt_probe),
	.destroy	= pp_destroy,
	.open		= pp_open,
	.key		= pp_key,
	.draw		= pp_draw,
	.submit		= pp_submit,
	.complete	= pp_complete,
	.request	= pp_request,
};

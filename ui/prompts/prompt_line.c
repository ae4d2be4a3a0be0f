// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one-line questions on the footer row: search (/), jump to a time (t),
 * narrow the top view (p, c, C), the latency pane's stop threshold (T) and
 * its new A->B latency (m).
 * Each turns what was typed into a typed request for the pane that acts on
 * it; what is wrong with the text is said here, and nothing changes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "store/store.h"
#include "ui-local.h"

#define SHORT_LINE	(sizeof(((struct ui *)0)->search) - 1)

static int search_open(struct ui *ui, struct prompt *pr)
{
	return ui_prompt_ask(ui, pr, ui_showing(ui, "graph") ? "search function names for:" :
			     ui_showing(ui, "tasks") ? "search tasks (name or pid) for:" :
			     ui_showing(ui, "stacks") ? "search frame names for:" :
			     "search older events for:", "", SHORT_LINE);
}

static int search_submit(struct ui *ui, struct prompt *pr, const char *s)
{
	if (!*s)
		return UI_REDRAW;
	snprintf(ui->search, sizeof(ui->search), "%s", s);
	return ui_search(ui, -1);
}

const struct prompt_ops prompt_search_ops = {
	.name	= "search",
	.open	= search_open,
	.submit	= search_submit,
};

static int jump_open(struct ui *ui, struct prompt *pr)
{
	return ui_prompt_ask(ui, pr, "jump to time (seconds as in TIMESTAMP, or -N: N s before "
			     "the newest):", "", SHORT_LINE);
}

/* "SECONDS[.frac]" as the TIMESTAMP column shows them, or "-N": N s before the newest. */
static int jump_submit(struct ui *ui, struct prompt *pr, const char *s)
{
	struct store_stats ss;
	char *end;
	double v;
	uint64_t ts;

	if (!*s)
		return UI_REDRAW;
	v = strtod(s, &end);
	if (end == s || *end) {
		ui_message(ui, "jump: not a time: '%s'", s);
		return UI_REDRAW;
	}
	store_get_stats(ui->st, &ss);
	if (s[0] == '-')
		ts = ss.last_ts > (uint64_t)(-v * 1e9) ? ss.last_ts - (uint64_t)(-v * 1e9) : 0;
	else	/* TIMESTAMP shows microseconds rounded: take all it covers */
		ts = (uint64_t)llround(v * 1e6) * 1000u + 499u;
	if (ts < ss.first_ts)
		ui_message(ui, "%.6f is before the oldest event held (%.6f)", (double)ts / 1e9,
			   (double)ss.first_ts / 1e9);
	else
		ui_message(ui, "at %.6f", (double)ts / 1e9);
	return ui_show_events(ui, &(struct ui_events_req){ .at = ts ? ts : 1 });
}

const struct prompt_ops prompt_jump_ops = {
	.name	= "jump",
	.open	= jump_open,
	.submit	= jump_submit,
};

/* ---- narrowing the top view ------------------------------------------------ */

static int narrow_open(struct ui *ui, struct prompt *pr)
{
	char label[64];

	snprintf(label, sizeof(label), "top view: narrow to %s:",
		 pr->ops == &prompt_cpu_ops ? "CPU" : pr->ops->name);
	return ui_prompt_ask(ui, pr, label, "", SHORT_LINE);
}

static int narrow_submit(struct ui *ui, struct prompt *pr, const char *s)
{
	struct ui_narrow n = ui->stats.narrow;
	char *end;
	long v;

	if (pr->ops == &prompt_comm_ops) {
		snprintf(n.comm, sizeof(n.comm), "%.31s", s);
	} else {
		v = strtol(s, &end, 10);
		if (!*s || *end || v < 0 || v > INT32_MAX) {
			ui_message(ui, "not a number: '%s'", s);
			return UI_REDRAW;
		}
		if (pr->ops == &prompt_pid_ops) {
			n.pid = (int32_t)v;
		} else if (v < (long)ui->stats.ncpus) {
			n.cpu = (int32_t)v;
		} else {
			ui_message(ui, "no CPU %ld (0-%u)", v, ui->stats.ncpus - 1);
			return UI_REDRAW;
		}
	}
	return ui_request(ui, &(struct ui_req){ .kind = UI_REQ_TOP, .top.narrow = &n });
}

const struct prompt_ops prompt_pid_ops = {
	.name	= "pid",
	.open	= narrow_open,
	.submit	= narrow_submit,
};

const struct prompt_ops prompt_comm_ops = {
	.name	= "comm",
	.open	= narrow_open,
	.submit	= narrow_submit,
};

const struct prompt_ops prompt_cpu_ops = {
	.name	= "cpu",
	.open	= narrow_open,
	.submit	= narrow_submit,
};

/* ---- the latency pane's stop threshold ---------------------------------------- */

static int threshold_open(struct ui *ui, struct prompt *pr)
{
	return ui_prompt_ask(ui, pr, "stop when a latency is above (us, off: never):", "",
			     SHORT_LINE);
}

static int threshold_submit(struct ui *ui, struct prompt *pr, const char *s)
{
	double us = 0;
	char *end;

	if (strcmp(s, "off") && *s) {
		us = strtod(s, &end);
		if (end == s || *end || us < 0 || us > 1e12) {
			ui_message(ui, "threshold: not a number of us: '%s'", s);
			return UI_HANDLED;
		}
	}
	return ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_LATENCY_STOP, .latency.stop_ns = (uint64_t)(us * 1000),
	});
}

const struct prompt_ops prompt_threshold_ops = {
	.name	= "threshold",
	.open	= threshold_open,
	.submit	= threshold_submit,
};

/* ---- the latency pane's new A->B latency ----------------------------------- */

#define AGG_LINE	1023

/* The text of a refused spec, offered again to be mended. */
struct agg_prompt {
	char	again[AGG_LINE + 1];
};

static int agg_open(struct ui *ui, struct prompt *pr)
{
	struct agg_prompt *ap = pr->priv;

	return ui_prompt_ask(ui, pr, "measure in the kernel: START -> END [on SF = EF] [by EF] "
			     "[where FILTER]:", ap->again, AGG_LINE);
}

/*
 * Make the measure (app_agg_add: all or nothing); the latency pane shows it,
 * or what is wrong with the text, with the caret, and m offers it again.
 */
static int agg_submit(struct ui *ui, struct prompt *pr, const char *s)
{
	struct agg_prompt *ap = pr->priv;
	char err[2048] = "";
	int ret;

	if (!*s)
		return UI_REDRAW;
	ret = app_agg_add(ui->app, APP_AGG_LATENCY, s, err, sizeof(err));
	if (ret < 0) {
		snprintf(ap->again, sizeof(ap->again), "%s", s);
		ui_message(ui, "latency refused (m: mend it): %.*s", (int)strcspn(err, "\n"), err);
	} else {
		ap->again[0] = '\0';
	}
	ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_LATENCY_AGG, .latency.agg_idx = ret < 0 ? -1 : ret,
		.latency.agg_err = ret < 0 ? err : NULL,
	});
	return UI_HANDLED | UI_REDRAW;
}

const struct prompt_ops prompt_agg_ops = {
	.name		= "agg",
	.priv_size	= sizeof(struct agg_prompt),
	.open		= agg_open,
	.submit		= agg_submit,
};

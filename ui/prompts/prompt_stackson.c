// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Y: stack traces for the selected row's event from now on, live, as --stack
 * (kernel stacks) or --ustack (kernel and user stacks) would have recorded
 * them: a one-key question, k or u (Esc: neither), then app_stacks_add()
 * (src/app/app.h), then the stacks pane as the request says (UI_REQ_STACKS).
 * A user stack costs more than a kernel one (the kernel copies it from the
 * task's memory at every event), so it is asked for, not given.
 */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "kernel/stacktrig.h"
#include "store/schema.h"
#include "store/store.h"
#include "ui-local.h"

struct stackson_state {
	struct ui_stacks_req	show;		/* what to show once they are on */
	char			spec[160];	/* the event: "sched:sched_switch" */
	char			what[200];	/* show.what's copy */
};

/* Turn on @parts (STACKTRIG_*) for the event, then show the stacks as asked. */
static int stackson_add(struct ui *ui, struct stackson_state *st, unsigned int parts)
{
	char note[512], err[512];

	if (app_stacks_add(ui->app, st->spec, parts, note, sizeof(note), err, sizeof(err))) {
		ui_message(ui, "stacks for %s: %s", st->spec, err);
		return UI_HANDLED | UI_REDRAW;
	}
	ui_message(ui, "%s stacks of %s from now on%s%s",
		   parts & STACKTRIG_USER ? "kernel and user" : "kernel", st->spec,
		   note[0] ? "; " : "", note);
	return ui_request(ui, &(struct ui_req){ .kind = UI_REQ_STACKS, .stacks = st->show }) |
	       UI_HANDLED | UI_REDRAW;
}

/* UI_REQ_STACKS_ON: ask, for the event of type r->type. */
static int stackson_request(struct ui *ui, struct prompt *pr, const struct ui_req *req)
{
	struct stackson_state *st = pr->priv;
	const struct ktop_schema_type *ty;
	char label[sizeof(pr->label)];

	if (req->kind != UI_REQ_STACKS_ON)
		return 0;
	ty = req->stacks.type >= 0 ?
	     schema_get(store_schema(ui->st), (uint16_t)req->stacks.type) : NULL;
	if (!ty || !ty->name) {
		ui_message(ui, "Y: select an event in the event list or the top view first");
		return UI_HANDLED | UI_REDRAW;
	}
	snprintf(st->spec, sizeof(st->spec), "%s:%s", ty->system ? ty->system : "*", ty->name);
	st->show = req->stacks;
	snprintf(st->what, sizeof(st->what), "%s", req->stacks.what ? req->stacks.what : "");
	st->show.what = st->what;
	if (!(app_flags(ui->app) & SOURCE_KERNEL))
		/* nothing to ask: the app says why (a recording) */
		return stackson_add(ui, st, STACKTRIG_KERN);
	snprintf(label, sizeof(label), "stack traces of %.50s from now on: k kernel, u kernel "
		 "and user (Esc: neither)?", st->spec);
	return ui_prompt_ask(ui, pr, label, "", 1);
}

/* The answer, one key: k or u; anything else asks nothing of the kernel. */
static int stackson_key(struct ui *ui, struct prompt *pr, int ch)
{
	struct stackson_state *st = pr->priv;

	if (ch < 0x20 || ch >= 0x7f)
		return ch == 27 ? ui_prompt_line_key(ui, pr, ch) : UI_REDRAW;
	ui_prompt_close(ui);
	if (ch != 'k' && ch != 'u') {
		ui_message(ui, "no stack traces turned on (k: kernel, u: kernel and user)");
		return UI_REDRAW;
	}
	return stackson_add(ui, st, STACKTRIG_KERN | (ch == 'u' ? STACKTRIG_USER : 0));
}

const struct prompt_ops prompt_stackson_ops = {
	.name		= "stackson",
	.priv_size	= sizeof(struct stackson_state),
	.key		= stackson_key,
	.request	= stackson_request,
};

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe prompt (ui/prompts/prompt_probe.c) without a terminal or root: keys in,
 * its overlay drawn into a text screen. Behind it, the probe library itself
 * (src/probe/probe.h) on a directory laid out like tracefs with a recorded kernel's
 * README (tests/fixtures/probe: the 6.12-rt guest's, with fprobes and BTF
 * arguments, or the 6.1-rt guest's, kprobes only) and this machine's kernel
 * BTF (/sys/kernel/btf/vmlinux) for prototypes, members and completion. The
 * app's actions are stand-ins that call the library on that directory, so
 * Enter really appends to its dynamic_events, and Ctrl-D removes again.
 *
 * Nothing here depends on this kernel's struct offsets: the kprobe lines are
 * matched up to the numbers, and test_probe_gen.c checks those numbers
 * against bpftool.
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <unistd.h>
#include <curses.h>
#include "test.h"

#include "app/app.h"
#include "fake_tracefs.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "probe/probe.h"
#include "store/store.h"
#include "ui-local.h"
#include "text_screen.h"

#define VMLINUX	"/sys/kernel/btf/vmlinux"

/* ---- the app's probe actions, on the fake tracefs ---------------------------------- */

static struct {
	struct probe_set	*ps;
	const char		*why;		/* not NULL: no kernel */
	bool			off[64];	/* by position: disabled */
	unsigned int		adds, enables;
} fk;

const char *app_probe_group(const struct app *a)
{
	return fk.ps ? probe_set_group(fk.ps) : "";
}

const char *app_probe_why(struct app *a)
{
	return fk.why;
}

const struct probe_caps *app_probe_caps(struct app *a)
{
	return fk.why ? NULL : probe_set_caps(fk.ps);
}

int app_probe_preview(struct app *a, const char *spec, struct probe_def *def, char *err,
		      size_t errlen)
{
	return probe_preview(fk.ps, spec, def, err, errlen);
}

int app_probe_proto(struct app *a, const char *func, char *buf, size_t len)
{
	return probe_proto(fk.ps, func, buf, len);
}

int app_probe_complete(struct app *a, const char *text, size_t cursor, char **out, size_t max,
		       size_t *start)
{
	return probe_complete(fk.ps, text, cursor, out, max, start);
}

int app_probe_add(struct app *a, const char *spec, struct probe_def *def, char *err,
		  size_t errlen)
{
	fk.adds++;
	return probe_create(fk.ps, spec, def, err, errlen);
}

int app_probe_remove(struct app *a, const char *event, char *err, size_t errlen)
{
	return probe_remove(fk.ps, event, err, errlen);
}

int app_probe_enable(struct app *a, const char *event, bool on, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < probe_set_count(fk.ps); i++)
		if (!strcmp(probe_set_get(fk.ps, i)->event, event))
			fk.off[i] = !on;
	fk.enables++;
	return 0;
}

unsigned int app_probe_list(struct app *a, struct probe_info *out, unsigned int max)
{
	unsigned int n = probe_set_count(fk.ps);

	for (unsigned int i = 0; i < n && i < max; i++)
		out[i] = (struct probe_info){
			.def = probe_set_get(fk.ps, i), .enabled = !fk.off[i],
		};
	return n < max ? n : max;
}

/* ---- the rig ---------------------------------------------------------------------- */

static int dummy_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	return 0;
}

static const struct pane_ops dummy_pane = { .name = "top", .label = "Top", .key = dummy_key };

static struct {
	struct app	app;
	struct ui	ui;
	char		group[64];
} rig;

/* A tracefs-like directory with kernel @readme's README; the prompt on it. */
static bool rig_open(const char *readme)
{
	static const struct pane_ops *const panes[] = { &dummy_pane };
	static const struct prompt_ops *const prompts[] = { &prompt_probe_ops };
	char path[300], err[512], *text;

	memset(&rig, 0, sizeof(rig));
	memset(&fk, 0, sizeof(fk));
	snprintf(fake_root, sizeof(fake_root), "/tmp/ktop-test-ui-probe.XXXXXX");
	if (!mkdtemp(fake_root))
		return false;
	snprintf(path, sizeof(path), "tests/fixtures/probe/%s", readme);
	text = fixture_read_file(path, NULL);
	if (!text)
		return false;
	fake_put("README", text);
	free(text);
	fake_put("dynamic_events", "");
	fake_put("kprobe_events", "");
	fake_put("uprobe_events", "");
	fake_put("events/header_page", "");
	if (probe_set_new(&fk.ps, fake_root, VMLINUX, err, sizeof(err))) {
		printf("  probe_set_new: %s\n", err);
		return false;
	}
	snprintf(rig.group, sizeof(rig.group), "%s", probe_set_group(fk.ps));
	rig.app.st = store_new(1 << 20, 1);
	rig.ui.app = &rig.app;
	rig.ui.st = rig.app.st;
	rig.ui.screen.rows = SCR_ROWS;
	rig.ui.screen.cols = SCR_COLS;
	return rig.app.st && !ui_views_init(&rig.ui, panes, 1, prompts, 1);
}

static void rig_close(void)
{
	ui_views_destroy(&rig.ui);
	store_free(rig.app.st);
	/* the fake's definitions: probe_set_free removes them there */
	probe_set_free(fk.ps);
	fake_remove();
}

/* A pane's "probe this" on function @func (NULL: none). */
static int open_on(const char *func)
{
	return ui_request(&rig.ui, &(struct ui_req){ .kind = UI_REQ_PROBE, .probe.func = func });
}

static void type(const char *s)
{
	for (; *s; s++)
		ui_prompt_key(&rig.ui, (unsigned char)*s);
}

static void draw(void)
{
	text_screen_clear();
	if (rig.ui.prompt && rig.ui.prompt->ops->draw)
		rig.ui.prompt->ops->draw(&rig.ui, rig.ui.prompt);
	if (getenv("KTOP_TEST_SHOW"))
		for (int i = 0; i < SCR_ROWS; i++)
			printf("|%.150s\n", scr[i]);
}

/* The screen row holding @needle, or -1. */
static int row_with(const char *needle)
{
	for (int r = 0; r < SCR_ROWS; r++)
		if (strstr(scr[r], needle))
			return r;
	return -1;
}

/* The screen row matching the extended regex @re, or -1. */
static int row_matching(const char *re)
{
	regex_t rx;
	int found = -1;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return -1;
	for (int r = 0; r < SCR_ROWS && found < 0; r++)
		if (!regexec(&rx, scr[r], 0, NULL, 0))
			found = r;
	regfree(&rx);
	return found;
}

/* Is there a caret on the row after the one with @line, under its @word? */
static bool caret_under(const char *line, const char *word)
{
	int r = row_with(line);
	const char *w = r >= 0 ? strstr(scr[r], word) : NULL;

	return w && r + 1 < SCR_ROWS && scr[r + 1][w - scr[r]] == '^';
}

static const char *dyn_events(void)
{
	return fake_get("dynamic_events");
}

/* ---- the cases -------------------------------------------------------------------------- */

TEST(preview_follows_the_typing_on_an_fprobe_kernel)
{
	char want[512];

	CHECK(rig_open("README-6.12-rt"));
	CHECK(open_on(NULL) & UI_HANDLED);
	CHECK(rig.ui.prompt && !strcmp(rig.ui.prompt->ops->name, "probe"));
	draw();
	CHECK(row_with("this kernel has: fprobe kprobe kretprobe") >= 0);
	CHECK(row_with("no probes yet") >= 0);
	/* the function alone: its prototype, an f: event with no argument */
	type("vfs_read");
	draw();
	CHECK(row_with("vfs_read(struct file *file") >= 0);
	snprintf(want, sizeof(want), "writes f:%s/vfs_read vfs_read", rig.group);
	CHECK(row_with(want) >= 0);
	/* a member that does not exist, as it is typed: the struct's message, a caret under it */
	type(" file->f_pa");
	draw();
	CHECK(row_with("writes ") < 0);
	CHECK(row_with("f_pa") >= 0 && row_with("f_path") >= 0);	/* the members offered */
	CHECK(caret_under("  vfs_read file->f_pa", "f_pa"));
	/* at 80 columns the message wraps, the caret stays under its character */
	rig.ui.screen.cols = 80;
	draw();
	CHECK(row_with("struct file has no member 'f_pa'") + 2 == row_with("  vfs_read file->f_pa"));
	CHECK(caret_under("  vfs_read file->f_pa", "f_pa"));
	rig.ui.screen.cols = SCR_COLS;
	type("th.dentry->d_name.name:string count");
	draw();
	snprintf(want, sizeof(want), "writes f:%s/vfs_read vfs_read "
		 "name=file->f_path.dentry->d_name.name:string count=count:u64", rig.group);
	CHECK(row_with(want) >= 0);
	CHECK(row_with("fprobe, fields: __probe_ip:symbol name:string count:uint") >= 0);
	CHECK(!strstr(dyn_events(), "vfs_read"));	/* a preview defines nothing */
	rig_close();
}

TEST(the_same_spec_is_a_kprobe_with_btf_offsets_on_6_1)
{
	CHECK(rig_open("README-6.1-rt"));
	open_on("vfs_read");
	type("file->f_path.dentry->d_name.name:string count");
	draw();
	CHECK(row_with("not fprobe") >= 0);
	CHECK(row_matching("writes p:ktop_[0-9]+/vfs_read vfs_read "
			   "name=\\+0\\(\\+[0-9]+\\(\\+[0-9]+\\(\\$arg1\\)\\)\\):string "
			   "count=\\$arg3:u64") >= 0);
	CHECK(row_with("kprobe, fields:") >= 0);
	rig_close();
}

TEST(tab_completes_functions_members_and_types)
{
	CHECK(rig_open("README-6.12-rt"));
	open_on(NULL);
	type("vfs_rea\t");
	CHECK_STR(rig.ui.prompt->line.text, "vfs_read");
	draw();
	/* several: the shared part goes in, the names are listed */
	CHECK(row_matching("candidates: .*vfs_read .*vfs_readv") >= 0);
	type(" fi\t");
	CHECK_STR(rig.ui.prompt->line.text, "vfs_read file");
	type("->f_pa\t");
	CHECK_STR(rig.ui.prompt->line.text, "vfs_read file->f_path");
	type(".dentr\t");
	CHECK_STR(rig.ui.prompt->line.text, "vfs_read file->f_path.dentry");
	type("->d_na\t.na\t");
	CHECK_STR(rig.ui.prompt->line.text, "vfs_read file->f_path.dentry->d_name.name");
	type(":st\t");
	CHECK_STR(rig.ui.prompt->line.text, "vfs_read file->f_path.dentry->d_name.name:string");
	/* nothing that fits: the line stays, and says so */
	type(" zzz_no_such\t");
	CHECK_STR(rig.ui.prompt->line.text,
		  "vfs_read file->f_path.dentry->d_name.name:string zzz_no_such");
	CHECK(strstr(rig.ui.message, "nothing to complete"));
	rig_close();
}

TEST(enter_makes_the_probe_and_the_list_turns_it_off_and_removes_it)
{
	char want[512];

	CHECK(rig_open("README-6.12-rt"));
	open_on(NULL);
	type("vfs_read%return $retval\n");
	CHECK_EQ_U64(fk.adds, 1);
	CHECK(rig.ui.prompt == NULL);		/* made: closed, and said so */
	CHECK(strstr(rig.ui.message, "vfs_read__return made"));
	snprintf(want, sizeof(want), "f:%s/vfs_read__return vfs_read%%return retval=$retval:s64",
		 rig.group);
	CHECK(strstr(dyn_events(), want));
	/* open again: the list has it, on */
	open_on(NULL);
	draw();
	CHECK(row_matching("> on +vfs_read__return .*f:ktop_[0-9]+/vfs_read__return") >= 0);
	CHECK(row_with("1 probe") >= 0);
	ui_prompt_key(&rig.ui, UI_CTRL('t'));
	CHECK_EQ_U64(fk.enables, 1);
	draw();
	CHECK(row_matching("> off +vfs_read__return") >= 0);
	ui_prompt_key(&rig.ui, UI_CTRL('d'));
	snprintf(want, sizeof(want), "-:%s/vfs_read__return", rig.group);
	CHECK(strstr(dyn_events(), want));
	CHECK_EQ_U64(probe_set_count(fk.ps), 0);
	draw();
	CHECK(row_with("no probes yet") >= 0);
	CHECK(row_with("vfs_read__return removed") >= 0);
	rig_close();
}

TEST(a_refused_spec_keeps_the_prompt_open_with_why_and_makes_nothing)
{
	CHECK(rig_open("README-6.12-rt"));
	open_on(NULL);
	type("vfs_raed count\n");
	CHECK_EQ_U64(fk.adds, 1);
	CHECK(rig.ui.prompt != NULL);
	draw();
	CHECK(row_with("unknown function 'vfs_raed'") >= 0);
	CHECK(row_with("vfs_read") >= 0);		/* the close names */
	CHECK_STR(dyn_events(), "");
	CHECK_EQ_U64(probe_set_count(fk.ps), 0);
	/* typing clears the old answer; the preview takes over */
	ui_prompt_key(&rig.ui, KEY_HOME);
	for (int i = 0; i < 8; i++)
		ui_prompt_key(&rig.ui, KEY_DC);
	type("vfs_read");
	draw();
	CHECK(row_with("unknown function") < 0);
	CHECK(row_with("writes f:") >= 0);
	rig_close();
}

TEST(probe_this_opens_on_the_function_or_the_event)
{
	uint32_t id;

	CHECK(rig_open("README-6.12-rt"));
	/* the graph's and the top view's function names, as they print them */
	CHECK(open_on("vfs_read+0x1a [kernel]") & UI_HANDLED);
	CHECK_STR(rig.ui.prompt->line.text, "vfs_read ");
	ui_prompt_close(&rig.ui);
	id = intern_id(store_strings(rig.app.st), "vfs_write", 9);
	ui_request(&rig.ui, &(struct ui_req){
		.kind = UI_REQ_PROBE, .probe.event = true, .probe.type = KTOP_T_FUNCTION,
		.probe.arg0 = id,
	});
	CHECK_STR(rig.ui.prompt->line.text, "vfs_write ");
	ui_prompt_close(&rig.ui);
	/* a trace event: an eprobe on it */
	ui_request(&rig.ui, &(struct ui_req){
		.kind = UI_REQ_PROBE, .probe.event = true, .probe.type = KTOP_T_SCHED_SWITCH,
	});
	CHECK_STR(rig.ui.prompt->line.text, "sched:sched_switch ");
	ui_prompt_close(&rig.ui);
	rig_close();
}

TEST(without_a_kernel_the_prompt_says_why_and_stays_closed)
{
	CHECK(rig_open("README-6.12-rt"));
	fk.why = "viewing a recording (x.ktop): there is no kernel to probe; probes need ktop "
		 "tracing live";
	open_on("vfs_read");
	CHECK(rig.ui.prompt == NULL);
	CHECK(strstr(rig.ui.message, "probe: viewing a recording (x.ktop)"));
	CHECK_EQ_U64(fk.adds, 0);
	rig_close();
}

TEST_MAIN()

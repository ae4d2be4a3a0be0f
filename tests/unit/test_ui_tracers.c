// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function graph and latency panes without a terminal: the panes run
 * against a store decoded from the rt fixtures and draw on the text screen
 * (text_screen.c). Expected values come from the kernel's text output of the
 * same recording (trace.txt), never typed.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include "test.h"

#include "app/app.h"
#include "fgraph_text.h"
#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "kernel/features.h"
#include "kernel/symbols.h"
#include "model/fgraph.h"
#include "model/latency.h"
#include "store/store.h"
#include "ui-local.h"
#include "panes/pane_graph-local.h"
#include "panes/pane_latency-local.h"
#include "panes/tracer_rows.h"

#define SCR_ROWS	60
#include "text_screen.h"

/* The screen's rows joined by spaces, as of the last rig_draw(): words a page wraps. */
static char screen_words[SCR_ROWS * (SCR_COLS + 1)];
/* what reached the event list, a stand-in here: the requests it got, the last one */
static struct {
	int			calls;
	struct ui_events_req	req;
} shown;

static void scr_clear(void)
{
	text_screen_clear();
	screen_words[0] = '\0';
}

/* Join the rows into screen_words, each without its trailing blanks. */
static void screen_join(void)
{
	size_t n = 0;

	for (int i = 0; i < SCR_ROWS; i++) {
		int len = SCR_COLS;

		while (len > 0 && scr[i][len - 1] == ' ')
			len--;
		n += (size_t)snprintf(screen_words + n, sizeof(screen_words) - n, "%s%.*s",
				      n ? " " : "", len, scr[i]);
	}
}

static int fake_events_request(struct ui *ui, struct pane *p, const struct ui_req *r)
{
	if (r->kind != UI_REQ_EVENTS)
		return 0;
	shown.calls++;
	shown.req = r->events;
	return UI_HANDLED;
}

static const struct pane_ops fake_events_ops = {
	.name = "events", .label = "Events", .request = fake_events_request,
};

/* ---- an offline app over a fixture ------------------------------------------ */


/* A stand-in for the live source: only its flags (events keep coming, a kernel to act on). */
static unsigned int fake_live_flags(const struct source *s)
{
	return SOURCE_KERNEL | SOURCE_GROWS;
}

static const struct source_ops fake_live_ops = { .name = "fake-live", .flags = fake_live_flags };
static struct source fake_live = { .ops = &fake_live_ops };

struct rig {
	struct app	app;
	struct ui	ui;
	struct pane	*pane;		/* the pane under test; an "events" stand-in next */
	struct fixture	*fx;
	char		*text;		/* the kernel's trace.txt */
};

static bool rig_open(struct rig *r, const char *name, const struct pane_ops *ops)
{
	char dir[512];
	struct symbols *syms;
	struct decode_ctx *dc;

	memset(r, 0, sizeof(*r));
	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	r->fx = fixture_open(dir);
	if (!r->fx)
		return false;
	r->text = fixture_read_file(fixture_path(r->fx, "trace.txt"), NULL);
	r->app.st = store_new(0, fixture_ncpus(r->fx));
	syms = symbols_load(fixture_path(r->fx, "kallsyms"));
	dc = decode_ctx_new(fixture_tep(r->fx), r->app.st, syms);
	for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(r->fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(r->fx, cpu); i++)
			decoder_page(d, fixture_page(r->fx, cpu, i), fixture_page_size(r->fx), NULL);
		decoder_free(d);
		store_publish(r->app.st, cpu);
	}
	decode_ctx_free(dc);
	symbols_free(syms);
	r->app.src = NULL;	/* like a snapshot: everything is there */
	r->ui.app = &r->app;
	r->ui.st = r->app.st;
	if (!r->text || ui_views_init(&r->ui, (const struct pane_ops *[]){ ops, &fake_events_ops },
				      2, (const struct prompt_ops *[]){ &prompt_threshold_ops }, 1))
		return false;
	r->pane = &r->ui.panes[0];
	return true;
}

static void rig_close(struct rig *r)
{
	ui_views_destroy(&r->ui);
	ui_fgraph_free(&r->ui);
	store_free(r->app.st);
	fixture_close(r->fx);
	free(r->text);
}

static void rig_draw(struct rig *r)
{
	scr_clear();
	r->pane->h = SCR_ROWS;
	r->pane->ops->draw(&r->ui, r->pane, 0, SCR_ROWS, SCR_COLS);
	screen_join();
	/* KTOP_TEST_SHOW=1: print each frame, to look at */
	if (getenv("KTOP_TEST_SHOW")) {
		for (int i = 0; i < SCR_ROWS; i++) {
			int n = SCR_COLS;

			while (n > 0 && scr[i][n - 1] == ' ')
				n--;
			printf("|%.*s\n", n, scr[i]);
		}
	}
}

static int screen_count(const char *needle)
{
	int n = 0;

	for (int i = 0; i < SCR_ROWS; i++)
		if (strstr(scr[i], needle))
			n++;
	return n;
}

/* ---- function graph ------------------------------------------------------------ */

/* A leaf line of the kernel's text, as "PREFIX|name": the CPU, marker and duration columns. */
struct leaf {
	char	key[160];
	bool	used;
};

static int kernel_leaves(const char *text, struct leaf **out)
{
	char *copy = strdup(text), *save = NULL;
	struct leaf *l = NULL;
	int n = 0, cap = 0;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ft_rec rec;
		const char *bar = strchr(line, '|');

		if (ft_parse_line(line, &rec) != 1 || rec.kind != FT_LEAF || !bar || !rec.has_dur)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			l = realloc(l, (size_t)cap * sizeof(*l));
		}
		snprintf(l[n].key, sizeof(l[n].key), "%.*s%s", (int)(bar - line + 1), line,
			 rec.func);
		l[n].used = false;
		n++;
	}
	free(copy);
	*out = l;
	return n;
}

/* Every complete leaf call of the timeline, as the pane formats it, is a line of the kernel's text. */
TEST(graph_rows_match_kernel_text)
{
	struct rig r;
	struct graph_state *gs;
	struct leaf *kl = NULL;
	int nk, matched = 0, leaves = 0, bad = 0;

	CHECK(rig_open(&r, "rt-fgraph", &pane_graph_ops));
	gs = r.pane->priv;
	rig_draw(&r);
	CHECK(gs->n > 0);
	nk = kernel_leaves(r.text, &kl);
	CHECK(nk > 10);
	for (long i = 0; i < gs->n; i++) {
		struct fgraph_info in;
		struct richstr rs;
		const char *bar;
		char key[160];

		if (fgraph_node(gs->g, FGRAPH_TIMELINE, gs->rows[i].id, &in) ||
		    in.kind != FGRAPH_K_CALL || in.nchildren ||
		    (in.flags & (FGRAPH_F_OPEN | FGRAPH_F_EXIT_MISSING | FGRAPH_F_ENTRY_MISSING)))
			continue;
		ui_fmt_graph_row(&rs, FGRAPH_TIMELINE, &in, gs->rows[i].level, false, false);
		leaves++;
		bar = strchr(rs.ch, '|');
		CHECK(bar != NULL);
		CHECK(strstr(rs.ch, "();") != NULL);
		/* the marker is coloured by its role */
		CHECK(rs.role[4] == ui_mark_role(rs.ch[4]));
		snprintf(key, sizeof(key), "%.*s%s", (int)(bar - rs.ch + 1), rs.ch, in.name);
		int k;

		for (k = 0; k < nk; k++)
			if (!kl[k].used && !strcmp(kl[k].key, key))
				break;
		if (k < nk) {
			kl[k].used = true;
			matched++;
		} else if (bad++ < 5) {
			printf("  not in the kernel text: \"%s\"\n", key);
		}
	}
	printf("  %d leaf rows, %d matched of %d kernel leaf lines\n", leaves, matched, nk);
	CHECK(leaves > 10);
	CHECK_EQ_U64(matched, leaves);
	free(kl);
	rig_close(&r);
}

/* The first row of @name on the screen, or -1. */
static int screen_row(const char *needle)
{
	for (int i = 2; i < SCR_ROWS; i++)
		if (strstr(scr[i], needle))
			return i;
	return -1;
}

static uint32_t sel_id(struct rig *r)
{
	struct graph_state *gs = r->pane->priv;

	return gs->vs[gs->view].sel;
}

static int key(struct rig *r, enum ui_action a)
{
	return r->pane->ops->key(&r->ui, r->pane, a);
}

/* Folding, moving, searching, and that fold state survives re-sorting and new calls. */
TEST(graph_keys_fold_move_search)
{
	struct rig r;
	struct graph_state *gs;
	struct fgraph_info in, child;
	long before, after;
	uint32_t id, hot;

	CHECK(rig_open(&r, "rt-fgraph", &pane_graph_ops));
	gs = r.pane->priv;
	rig_draw(&r);
	/* a vfs_read call: the root of the recording's graph (-g vfs_read) */
	CHECK(r.pane->ops->search(&r.ui, r.pane, "vfs_read", -1) & UI_REDRAW);
	id = sel_id(&r);
	CHECK(!fgraph_node(gs->g, FGRAPH_TIMELINE, id, &in));
	CHECK_STR(in.name, "vfs_read");
	CHECK(in.nchildren > 0);
	rig_draw(&r);
	before = gs->n;
	CHECK(screen_count("vfs_read() {") >= 1);
	/* Enter folds it: exactly its visible descendants go */
	key(&r, ACT_FOLD_TOGGLE);
	rig_draw(&r);
	after = gs->n;
	CHECK(after < before);
	CHECK(screen_row("+ vfs_read() { ... }") >= 2);
	/* a new sort and more data do not unfold it */
	key(&r, ACT_PANE_SORT);
	rig_draw(&r);
	CHECK(graph_folded(&gs->vs[gs->view], id));
	key(&r, ACT_PANE_SORT);
	key(&r, ACT_PANE_SORT);
	key(&r, ACT_PANE_SORT);
	key(&r, ACT_PANE_SORT);
	key(&r, ACT_PANE_SORT);
	CHECK(gs->sort == FGRAPH_SORT_ORDER);
	rig_draw(&r);
	CHECK_EQ_U64(gs->n, after);
	CHECK(sel_id(&r) == id);
	/* Enter unfolds, Down goes to the first child, P back up */
	key(&r, ACT_FOLD_TOGGLE);
	rig_draw(&r);
	CHECK_EQ_U64(gs->n, before);
	key(&r, ACT_DOWN);
	CHECK(sel_id(&r) == fgraph_first_child(gs->g, FGRAPH_TIMELINE, id));
	key(&r, ACT_PARENT);
	CHECK(sel_id(&r) == id);
	/* the hot path: the child with the longest duration */
	key(&r, ACT_HOT_PATH);
	hot = sel_id(&r);
	CHECK(!fgraph_node(gs->g, FGRAPH_TIMELINE, hot, &child));
	for (uint32_t k = fgraph_first_child(gs->g, FGRAPH_TIMELINE, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(gs->g, FGRAPH_TIMELINE, k)) {
		struct fgraph_info s;

		fgraph_node(gs->g, FGRAPH_TIMELINE, k, &s);
		CHECK(s.total <= child.total);
	}
	key(&r, ACT_PARENT);
	/* c folds the children, e unfolds them */
	key(&r, ACT_FOLD_CHILDREN);
	for (uint32_t k = fgraph_first_child(gs->g, FGRAPH_TIMELINE, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(gs->g, FGRAPH_TIMELINE, k))
		CHECK(graph_folded(&gs->vs[0], k));
	key(&r, ACT_UNFOLD_CHILDREN);
	for (uint32_t k = fgraph_first_child(gs->g, FGRAPH_TIMELINE, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(gs->g, FGRAPH_TIMELINE, k))
		CHECK(!graph_folded(&gs->vs[0], k));
	/* C folds everything: only the context rows remain; E brings all back */
	key(&r, ACT_FOLD_ALL);
	rig_draw(&r);
	{
		long nctx = 0;

		for (uint32_t k = fgraph_first_child(gs->g, FGRAPH_TIMELINE, FGRAPH_ROOT);
		     k != FGRAPH_NONE; k = fgraph_next_sibling(gs->g, FGRAPH_TIMELINE, k))
			nctx++;
		CHECK_EQ_U64(gs->n, nctx);
	}
	key(&r, ACT_UNFOLD_ALL);
	rig_draw(&r);
	CHECK_EQ_U64(gs->n, before);
	/* search finds a child of vfs_read and unfolds what hides it */
	key(&r, ACT_FOLD_ALL);
	CHECK(!fgraph_node(gs->g, FGRAPH_TIMELINE, fgraph_first_child(gs->g, FGRAPH_TIMELINE, id),
			   &child));
	CHECK(r.pane->ops->search(&r.ui, r.pane, child.name, -1) & UI_REDRAW);
	CHECK(!fgraph_node(gs->g, FGRAPH_TIMELINE, sel_id(&r), &in));
	CHECK_STR(in.name, child.name);
	rig_draw(&r);
	{
		char want[128];

		snprintf(want, sizeof(want), "%s(", child.name);
		CHECK(screen_row(want) >= 2);
	}
	/* next / previous sibling */
	{
		uint32_t s = sel_id(&r), nx = fgraph_next_sibling(gs->g, FGRAPH_TIMELINE, s);

		key(&r, ACT_NEXT_SIBLING);
		CHECK(sel_id(&r) == (nx == FGRAPH_NONE ? s : nx));
		key(&r, ACT_PREV_SIBLING);
		CHECK(sel_id(&r) == s);
	}
	/* the aggregated view: vfs_read's path, with count and total */
	key(&r, ACT_UNFOLD_ALL);
	key(&r, ACT_VIEW);
	CHECK(gs->view == FGRAPH_AGG);
	rig_draw(&r);
	CHECK(screen_count("CALL PATH") == 1);
	CHECK(screen_count("vfs_read() {") >= 1);
	rig_close(&r);
}

/* Does screen row @r show @name whole? */
static bool row_shows(int r, const char *name)
{
	const char *m = strstr(scr[r], name);

	return m && (m[strlen(name)] == '(' || m[strlen(name)] == ' ');
}

/*
 * Issue 18 #3.10: at 80 columns the merged call paths leave the names room
 * (the figures take their narrow layout), and Left/Right (h/l) scroll the
 * names sideways, the figures and the folds staying as they are.
 */
TEST(graph_narrow_layout_and_sideways_scroll)
{
	const int cols = 80;
	struct rig r;
	struct graph_state *gs;
	int deep_row = -1, fits = 0, cut = 0;
	unsigned int deep_level = 0;
	char figures[64], deep_name[128] = "";
	long n;

	CHECK(rig_open(&r, "rt-fgraph", &pane_graph_ops));
	gs = r.pane->priv;
	rig_draw(&r);
	key(&r, ACT_VIEW);
	key(&r, ACT_UNFOLD_ALL);
	scr_clear();
	r.pane->h = SCR_ROWS;
	r.pane->ops->draw(&r.ui, r.pane, 0, SCR_ROWS, cols);
	CHECK(gs->view == FGRAPH_AGG);
	/* the header's '|' is where the rows' is, in the narrow layout */
	CHECK(strchr(scr[1], '|') - scr[1] == 45);
	for (int i = 2; i < SCR_ROWS && gs->top_row + i - 2 < gs->n; i++) {
		struct fgraph_info in;
		unsigned int lv = gs->rows[gs->top_row + i - 2].level;

		if (fgraph_node(gs->g, gs->view, gs->rows[gs->top_row + i - 2].id, &in) ||
		    !in.name || in.kind != FGRAPH_K_CALL)
			continue;
		CHECK(strchr(scr[i], '|') - scr[i] == 45);
		/* what fits beside the figures is shown whole */
		if (48 + 2 * (int)lv + 2 + (int)strlen(in.name) + 2 <= cols) {
			fits++;
			if (!row_shows(i, in.name))
				printf("  row %d level %u: \"%s\" not whole in \"%.80s\"\n", i, lv,
				       in.name, scr[i]);
			CHECK(row_shows(i, in.name));
		} else {
			cut++;
		}
		if (lv > deep_level && !row_shows(i, in.name)) {
			deep_level = lv;
			deep_row = i;
			snprintf(deep_name, sizeof(deep_name), "%s", in.name);
		}
	}
	CHECK(fits > 0);
	/* the old layout left the names 16 columns: these rows would have been cut */
	if (cut || deep_row < 0)
		printf("  %d rows fit, %d do not; the deepest cut one: level %u %s\n", fits, cut,
		       deep_level, deep_name);
	CHECK(deep_row >= 2);
	if (deep_row < 2) {
		rig_close(&r);
		return;
	}
	/* Right scrolls its name into view; the figures and the folds stay */
	snprintf(figures, sizeof(figures), "%.45s", scr[deep_row]);
	n = gs->n;
	for (int k = 0; k < 30 && !row_shows(deep_row, deep_name); k++) {
		CHECK(key(&r, ACT_RIGHT) & UI_REDRAW);
		scr_clear();
		r.pane->ops->draw(&r.ui, r.pane, 0, SCR_ROWS, cols);
	}
	CHECK(row_shows(deep_row, deep_name));
	CHECK(!strncmp(scr[deep_row], figures, 45));
	CHECK(strstr(scr[0], "names scrolled") != NULL);
	CHECK_EQ_U64(gs->n, n);
	/* Left back to the start */
	for (int k = 0; k < 30 && gs->hscroll; k++)
		key(&r, ACT_LEFT);
	CHECK_EQ_U64(gs->hscroll, 0);
	rig_draw(&r);
	CHECK_EQ_U64(gs->n, n);
	/* wide: the full layout, as before */
	scr_clear();
	r.pane->ops->draw(&r.ui, r.pane, 0, SCR_ROWS, SCR_COLS);
	CHECK(strchr(scr[1], '|') - scr[1] == 61);
	CHECK(strstr(scr[1], "TOTAL us") != NULL);
	rig_close(&r);
}

/* New calls arriving keep the folds, the selection and the node at the top of the page. */
TEST(graph_fold_survives_new_calls)
{
	struct rig r;
	struct graph_state *gs;
	struct store_stats ss;
	struct fgraph_info in;
	uint64_t mid;
	uint32_t id, top;
	long n1;

	CHECK(rig_open(&r, "rt-fgraph", &pane_graph_ops));
	gs = r.pane->priv;
	store_get_stats(r.app.st, &ss);
	mid = ss.first_ts + (ss.last_ts - ss.first_ts) / 2;
	/* the first half, as a live frame would have read it */
	CHECK(fgraph_feed_store(gs->g, r.app.st, 0, mid) > 0);
	r.ui.fgraph.next = mid + 1;
	CHECK(r.pane->ops->search(&r.ui, r.pane, "vfs_read", -1) & UI_REDRAW);
	id = sel_id(&r);
	key(&r, ACT_FOLD_TOGGLE);
	/* a frame that reads nothing new (paused): the rows and the page's top now */
	r.ui.paused = true;
	rig_draw(&r);
	r.ui.paused = false;
	n1 = gs->n;
	top = gs->vs[0].top;
	/* the second half arrives with the next frame */
	rig_draw(&r);
	CHECK(gs->n > n1);
	CHECK(sel_id(&r) == id);
	CHECK(gs->vs[0].top == top);
	CHECK(graph_folded(&gs->vs[0], id));
	CHECK(!fgraph_node(gs->g, FGRAPH_TIMELINE, id, &in));
	CHECK(screen_row("+ vfs_read() { ... }") >= 2);
	rig_close(&r);
}

/* Without function_graph and without calls, the pane says why. */
TEST(graph_says_why)
{
	struct rig r;

	CHECK(rig_open(&r, "rt-timerlat", &pane_graph_ops));
	r.app.src = &fake_live;
	r.app.opts.so.tracer = "nop";
	r.app.ft.f[FEATURE_FUNCTION_GRAPH] = (struct feature){
		.name = "function_graph", .config = "CONFIG_FUNCTION_GRAPH_TRACER",
		.state = FEAT_NOT_BUILT };
	rig_draw(&r);
	CHECK(strstr(screen_words, "CONFIG_FUNCTION_GRAPH_TRACER is not set") != NULL);
	r.app.ft.f[FEATURE_FUNCTION_GRAPH].state = FEAT_NOT_PERMITTED;
	rig_draw(&r);
	CHECK(strstr(screen_words, "does not permit (EPERM)") != NULL);
	rig_close(&r);
}

/* ---- latency ------------------------------------------------------------------- */

struct ktxt {
	uint64_t	n[64][3], max[64][3];	/* timerlat per CPU and context */
	uint64_t	worst[64];		/* the largest of any context */
	double		worst_ts[64];		/* its time stamp as printed */
	uint64_t	os_n[64], os_single[64];
};

static void ktxt_parse(struct ktxt *t, const char *text)
{
	char *copy = strdup(text), *save = NULL;

	memset(t, 0, sizeof(*t));
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *b = strstr(line, " ["), *c;
		unsigned long long seq, v, rt, no, ms, x[5];
		double ts, pct;
		char ctx[16];
		int cpu, k;

		if (line[0] == '#' || !b || !isdigit((unsigned char)b[2]))
			continue;
		cpu = atoi(b + 2);
		c = strstr(b, ": ");
		if (!c || cpu < 0 || cpu >= 64)
			continue;
		{
			/* the TIMESTAMP column: the number just before ": " */
			const char *q = c;

			while (q > line && q[-1] != ' ')
				q--;
			ts = strtod(q, NULL);
		}
		if (sscanf(c + 2, "#%llu context %15s timer_latency %llu ns", &seq, ctx, &v) == 3) {
			k = !strcmp(ctx, "irq") ? 0 : !strcmp(ctx, "thread") ? 1 : 2;
			t->n[cpu][k]++;
			if (v > t->max[cpu][k])
				t->max[cpu][k] = v;
			if (v > t->worst[cpu]) {
				t->worst[cpu] = v;
				t->worst_ts[cpu] = ts;
			}
			continue;
		}
		if (sscanf(c + 2, "%llu %llu %lf %llu %llu %llu %llu %llu %llu", &rt, &no, &pct, &ms,
			   &x[0], &x[1], &x[2], &x[3], &x[4]) == 9) {
			t->os_n[cpu]++;
			if (ms * 1000 > t->os_single[cpu])
				t->os_single[cpu] = ms * 1000;
		}
	}
	free(copy);
}

/* The drawn table row of @cpu (after the two title rows), or NULL. */
static const char *table_row(int cpu)
{
	char want[16];

	snprintf(want, sizeof(want), "%5d ", cpu);
	for (int i = 2; i < SCR_ROWS; i++)
		if (!strncmp(scr[i], want, 6))
			return scr[i];
	return NULL;
}

TEST(latency_timerlat_table_and_jump)
{
	struct rig r;
	struct lat_state *ls;
	struct ktxt *t = calloc(1, sizeof(*t));
	int cpus = 0;

	CHECK(rig_open(&r, "rt-timerlat", &pane_latency_ops));
	ls = r.pane->priv;
	ktxt_parse(t, r.text);
	r.app.opts.so.tracer = "timerlat";
	rig_draw(&r);
	CHECK(screen_count("timerlat: per-CPU timer latency") == 1);
	CHECK(screen_row("  ALL ") >= 2);
	for (int cpu = 0; cpu < 64; cpu++) {
		const char *row = table_row(cpu);
		char n[32], mx[32];

		if (!t->n[cpu][0] && !t->n[cpu][1])
			continue;
		cpus++;
		CHECK(row != NULL);
		if (!row)
			continue;
		/* samples (IRQ activations) and the thread max, from the kernel's text */
		snprintf(n, sizeof(n), " %llu |", (unsigned long long)t->n[cpu][0]);
		snprintf(mx, sizeof(mx), " %llu.%03llu", (unsigned long long)t->max[cpu][1] / 1000,
			 (unsigned long long)t->max[cpu][1] % 1000);
		if (!strstr(row, n) || !strstr(row, mx))
			printf("  CPU %d row \"%.120s\" lacks \"%s\" or \"%s\"\n", cpu, row, n, mx);
		CHECK(strstr(row, n) != NULL);
		CHECK(strstr(row, mx) != NULL);
	}
	CHECK(cpus > 0);
	CHECK(screen_count("histogram (log2") == 1);
	CHECK(screen_count("max per second:") == 1);
	/* select each CPU in turn; Enter jumps to its worst sample's window */
	for (int i = 1; i <= cpus; i++) {
		int cpu;

		key(&r, ACT_DOWN);
		rig_draw(&r);
		cpu = ls->sel_cpu;
		CHECK(cpu >= 0 && cpu < 64);
		shown.calls = 0;
		CHECK(key(&r, ACT_JUMP_WORST) & UI_REDRAW);
		CHECK_EQ_U64(shown.calls, 1);
		/* a typed request: that CPU only, its window, no search left from elsewhere */
		CHECK(shown.req.one_cpu && shown.req.cpu == (unsigned int)cpu);
		CHECK(shown.req.search == NULL);
		CHECK(ui_showing(&r.ui, "events"));
		/* t1 is the worst sample's time stamp (the text has it in us) */
		CHECK((double)shown.req.t1 / 1e9 > t->worst_ts[cpu] - 1.5e-6 &&
		      (double)shown.req.t1 / 1e9 < t->worst_ts[cpu] + 1.5e-6);
		CHECK(shown.req.t0 + t->worst[cpu] <= shown.req.t1);
		CHECK(ui_show_pane(&r.ui, "latency") & UI_HANDLED);
	}
	/* sorting by max puts the CPU with the largest thread max first */
	while (ls->sort != UI_LAT_SORT_MAX)
		key(&r, ACT_PANE_SORT);
	rig_draw(&r);
	{
		int best = -1;

		for (int cpu = 0; cpu < 64; cpu++)
			if (t->n[cpu][1] && (best < 0 || t->max[cpu][1] > t->max[best][1]))
				best = cpu;
		CHECK(ls->rows[1] == best);
	}
	/* linear buckets */
	key(&r, ACT_HIST_MODE);
	rig_draw(&r);
	CHECK(screen_count("histogram (linear") == 1);
	free(t);
	rig_close(&r);
}

/* T: the threshold prompt, as typed; Enter sends the latency pane a typed request. */
static int threshold(struct rig *r, const char *spec)
{
	int ret = ui_prompt_open(&r->ui, "threshold");

	if (!(ret & UI_HANDLED) || r->ui.prompt != ui_prompt(&r->ui, "threshold"))
		return 0;
	for (const char *c = spec; *c; c++)
		ui_prompt_key(&r->ui, (unsigned char)*c);
	ret = ui_prompt_key(&r->ui, '\n');
	return r->ui.prompt ? 0 : ret;
}

TEST(latency_stop_threshold_freezes)
{
	struct rig r;
	struct lat_state *ls;
	struct ktxt *t = calloc(1, sizeof(*t));
	uint64_t worst = 0;

	CHECK(rig_open(&r, "rt-timerlat", &pane_latency_ops));
	ls = r.pane->priv;
	ktxt_parse(t, r.text);
	for (int cpu = 0; cpu < 64; cpu++)
		if (t->worst[cpu] > worst)
			worst = t->worst[cpu];
	r.app.opts.so.tracer = "timerlat";
	/* just under the worst sample: the view stops at the first sample above it */
	CHECK(threshold(&r, "0.001") & UI_HANDLED);
	CHECK_EQ_U64(ls->stop_ns, 1);
	{
		char spec[32];

		snprintf(spec, sizeof(spec), "%.3f", (double)(worst - 1) / 1e3);
		CHECK(threshold(&r, spec) & UI_HANDLED);
	}
	rig_draw(&r);
	CHECK(ls->stopped);
	CHECK(r.ui.paused);
	CHECK_EQ_U64(ls->stop_at.value, worst);
	CHECK(screen_count("STOPPED") == 1);
	CHECK(threshold(&r, "off") & UI_HANDLED);
	CHECK(!ls->stopped && !r.ui.paused);
	free(t);
	rig_close(&r);
}

TEST(latency_osnoise_table)
{
	struct rig r;
	struct ktxt *t = calloc(1, sizeof(*t));
	int cpus = 0;

	CHECK(rig_open(&r, "rt-osnoise", &pane_latency_ops));
	ktxt_parse(t, r.text);
	r.app.opts.so.tracer = "osnoise";
	rig_draw(&r);
	CHECK(screen_count("osnoise: per-CPU noise") == 1);
	CHECK(screen_count("THREAD") == 1);
	for (int cpu = 0; cpu < 64; cpu++) {
		const char *row = table_row(cpu);
		char n[32], ms[32];

		if (!t->os_n[cpu])
			continue;
		cpus++;
		CHECK(row != NULL);
		if (!row)
			continue;
		snprintf(n, sizeof(n), " %llu ", (unsigned long long)t->os_n[cpu]);
		snprintf(ms, sizeof(ms), " %llu.%03llu", (unsigned long long)t->os_single[cpu] / 1000,
			 (unsigned long long)t->os_single[cpu] % 1000);
		if (!strstr(row, n) || !strstr(row, ms))
			printf("  CPU %d row \"%.120s\" lacks \"%s\" or \"%s\"\n", cpu, row, n, ms);
		CHECK(strstr(row, n) != NULL);
		CHECK(strstr(row, ms) != NULL);
	}
	CHECK(cpus > 0);
	free(t);
	rig_close(&r);
}

/*
 * Draw @p until @needle is on the screen or 500 frames went by: the pane feeds
 * its model about 20 ms a frame, and a slow build (TSan) needs several frames
 * to reach a recording's samples. Return: whether it showed.
 */
static bool draw_until(struct ui *ui, struct pane *p, const char *needle)
{
	for (int i = 0; i < 500; i++) {
		scr_clear();
		p->ops->draw(ui, p, 0, SCR_ROWS, SCR_COLS);
		if (screen_count(needle))
			return true;
	}
	return false;
}

/*
 * Issue 18 #3.9: the demo (a recording with timerlat and osnoise records)
 * shows both: o switches the table, since there is no kernel to switch, and
 * the worst sample named is of the table shown.
 */
TEST(latency_recording_with_both_tracers_shows_both)
{
	static const struct pane_ops *const panes[] = { &pane_latency_ops, &fake_events_ops };
	struct app a = { .wake_fd = -1, .opts.memory = STORE_DEFAULT_MEMORY };
	static struct ui ui;
	char demo[600], err[256] = "";
	struct pane *p;

	snprintf(demo, sizeof(demo), "%s/demo.ktop", fixture_root());
	CHECK(app_open_snapshot(&a, demo, -1, APP_SNAP_SYNC, err, sizeof(err)) == 0);
	if (!a.st) {
		printf("  %s\n", err);
		return;
	}
	memset(&ui, 0, sizeof(ui));
	ui.app = &a;
	ui.st = a.st;
	CHECK(ui_views_init(&ui, panes, 2, NULL, 0) == 0);
	p = ui_pane(&ui, "latency");
	ui.active = p;
	p->h = SCR_ROWS;
	CHECK(draw_until(&ui, p, "timerlat: per-CPU timer latency"));
	CHECK(screen_count("timerlat: per-CPU timer latency") == 1);
	CHECK(screen_count("worst thread latency") + screen_count("worst IRQ latency") == 1);
	CHECK(p->ops->key(&ui, p, ACT_SWITCH_TRACER) & UI_REDRAW);
	if (!strstr(ui.message, "osnoise samples"))
		printf("  o said \"%s\"\n", ui.message);
	CHECK(strstr(ui.message, "osnoise samples") != NULL);
	CHECK(draw_until(&ui, p, "osnoise: per-CPU noise"));
	CHECK(screen_count("osnoise: per-CPU noise") == 1);
	CHECK(screen_count("THREAD") == 1);
	CHECK(screen_count("worst max single noise") + screen_count("worst noise") == 1);
	CHECK(screen_count("thread latency") == 0);
	/* and back */
	p->ops->key(&ui, p, ACT_SWITCH_TRACER);
	CHECK(draw_until(&ui, p, "timerlat: per-CPU timer latency"));
	CHECK(screen_count("timerlat: per-CPU timer latency") == 1);
	ui_views_destroy(&ui);
	app_stop(&a);
}

TEST(latency_says_why)
{
	struct rig r;

	CHECK(rig_open(&r, "rt-fgraph", &pane_latency_ops));
	r.app.src = &fake_live;
	r.app.opts.so.tracer = "nop";
	r.app.ft.f[FEATURE_OSNOISE] = (struct feature){ .name = "osnoise",
		.config = "CONFIG_OSNOISE_TRACER", .state = FEAT_NOT_BUILT };
	r.app.ft.f[FEATURE_TIMERLAT] = (struct feature){ .name = "timerlat",
		.config = "CONFIG_TIMERLAT_TRACER", .state = FEAT_NOT_BUILT };
	rig_draw(&r);
	CHECK(strstr(screen_words, "CONFIG_OSNOISE_TRACER") != NULL);
	CHECK(strstr(screen_words, "CONFIG_TIMERLAT_TRACER") != NULL);
	rig_close(&r);
}

/*
 * The counts of the histogram rows on the screen (after the "histogram ("
 * header), and the lowest and highest bound they show, in ns.
 */
static uint64_t screen_hist(int rows, uint64_t *lo, uint64_t *hi)
{
	uint64_t sum = 0;
	int r = screen_row("histogram (");

	*lo = UINT64_MAX;
	*hi = 0;
	for (r = r < 0 ? rows : r + 1; r < rows; r++) {
		double a, b;
		unsigned long long c;

		if (sscanf(scr[r], " %lf - %lf us %llu", &a, &b, &c) != 3)
			break;
		sum += c;
		if ((uint64_t)(a * 1e3 + 0.5) < *lo)
			*lo = (uint64_t)(a * 1e3 + 0.5);
		*hi = (uint64_t)(b * 1e3 + 0.5);
	}
	return sum;
}

/*
 * Issue 18 #3.3: a short pane shows every sample of the histogram (adjacent
 * buckets share a row, and the header says so), from the lowest bucket with
 * samples to the highest, for log2 and linear buckets, down to 3 rows.
 */
TEST(latency_histogram_keeps_every_sample_when_short)
{
	struct rig r;
	struct lat_state *ls;
	struct latency_row all;

	CHECK(rig_open(&r, "rt-timerlat", &pane_latency_ops));
	ls = r.pane->priv;
	r.app.opts.so.tracer = "timerlat";
	for (int mode = 0; mode < 2; mode++) {
		for (int h = SCR_ROWS; h >= 9; h -= 3) {
			uint64_t hist[128], lo, hi, sum, blo, bhi, x;
			int n, first = -1, last = -1;

			scr_clear();
			r.pane->h = h;
			r.pane->ops->draw(&r.ui, r.pane, 0, h, SCR_COLS);
			CHECK(!latency_row(ls->l, -1, &all));
			n = latency_hist(ls->l, -1, ls->series, hist, 128);
			for (int i = 0; i < n; i++) {
				if (hist[i] && first < 0)
					first = i;
				if (hist[i])
					last = i;
			}
			CHECK(first >= 0);
			if (h < 12) {
				/* the table leaves less than 3 rows: said, not hidden */
				CHECK(screen_count("need 3 more rows") == 1);
				continue;
			}
			sum = screen_hist(h, &lo, &hi);
			latency_hist_bounds(ls->l, (unsigned int)first, &blo, &x);
			latency_hist_bounds(ls->l, (unsigned int)last, &x, &bhi);
			if (sum != all.tl[ls->series].count || lo > blo || (hi < bhi && bhi != UINT64_MAX))
				printf("  %s, %d rows: %llu of %llu samples shown, %llu-%llu of "
				       "%llu-%llu ns\n", mode ? "linear" : "log2", h,
				       (unsigned long long)sum,
				       (unsigned long long)all.tl[ls->series].count,
				       (unsigned long long)lo, (unsigned long long)hi,
				       (unsigned long long)blo, (unsigned long long)bhi);
			CHECK_EQ_U64(sum, all.tl[ls->series].count);
			CHECK(lo <= blo);
			CHECK(hi >= bhi || bhi == UINT64_MAX);
			if (last - first + 1 > h - 6 - 3)
				CHECK(screen_count("buckets a row") == 1);
		}
		key(&r, ACT_HIST_MODE);
	}
	rig_close(&r);
}

TEST(spark_and_hist_rows)
{
	uint64_t v[5] = { 0, 1, 50, 100, 0 };
	struct richstr rs;

	richstr_clear(&rs);
	ui_fmt_spark(&rs, v, 5);
	CHECK_EQ_U64(rs.len, 5);
	CHECK(rs.ch[0] == ' ' && rs.ch[4] == ' ');
	CHECK(rs.ch[3] == '@');
	CHECK(rs.ch[1] != ' ' && rs.ch[2] != ' ');
	ui_fmt_hist_row(&rs, 1024, 2048, 10, 20, 20);
	CHECK(strstr(rs.ch, "1.024 -") != NULL);
	CHECK(strstr(rs.ch, "##########") != NULL);
	CHECK(strstr(rs.ch, "###########") == NULL);
	CHECK(ui_mark_role('+') == ROLE_DUR_US && ui_mark_role('#') == ROLE_DUR_MS &&
	      ui_mark_role('$') == ROLE_DUR_S && ui_mark_role(' ') == ROLE_DEFAULT);
}

TEST_MAIN()

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network pane ("net", tab 9, issue 25): connections and drops from the
 * network model (src/model/net.h), fed from the store on the UI thread in
 * time slices within a budget per frame (as the tasks pane), whatever the
 * source (live, a file, a stream).
 *
 * Two tables, d switches: the connections, one row per lifetime of a socket
 * (pid and comm at connect/listen, protocol, both ends, state, age, bytes each
 * way, retransmits, resets, drops, srtt with tcp_probe), sortable (F6, >, <,
 * I inverts, a click on a column), searchable (/, n, N), closed ones hidden
 * with c; the selected row's details (its transitions with their times, the
 * reasons) under the table; Enter narrows every pane to its timeline (a
 * conn: view clause: its events, its socket's sends, receives and drops, its
 * packets) and shows the event list. The drops: skb:kfree_skb by reason and
 * location (g: by reason, by location), count, rate, how many were tied to a
 * connection; Enter narrows to those events and lists them, y shows their
 * stacks (the stacks pane), Y turns stacks on for kfree_skb (live; it asks
 * kernel or kernel and user).
 * P turns tcp:tcp_probe on or off (live, --net): srtt and cwnd.
 * Left/Right scroll the columns after PID (80 columns show up to STATE).
 *
 * Under a view filter the model is fed the events the view keeps, as every
 * figure of ktop counts what the view keeps. The rows' order is computed
 * again when a key changes it, or at most every NET_REQUERY_NS while the
 * model changes (a sort of 100,000 rows: bench_net_pane); a frame otherwise
 * formats the visible rows only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "app/app.h"
#include "lib/clock.h"
#include "model/net.h"
#include "rowsel.h"
#include "store/schema.h"
#include "store/store.h"
#include "tracer_feed.h"
#include "ui-local.h"
#include "view/viewfilter.h"

#define NET_LAG_NS	(300ull * 1000 * 1000)	/* a live feed ends this far behind now */
#define NET_FEED_NS	(20ull * 1000 * 1000)	/* feeding a frame, at most about */
#define NET_REQUERY_NS	(250ull * 1000 * 1000)	/* the order again, at most this often */
#define NET_DROPS_MAX	4096
#define PID_W		8
#define DETAIL_H	2	/* the selected row's lines under the table */

struct net_state {
	struct net		*n;
	uint64_t		vgen;		/* the view the model was fed under */
	uint64_t		fed;		/* trace time read up to */
	uint64_t		slice;
	uint64_t		tick_ns;
	bool			drops;		/* the drops table is shown */
	struct net_query	q;
	uint64_t		*ids;		/* the rows, in the query's order */
	size_t			nids, cap;
	size_t			total;
	uint64_t		ids_gen;	/* the model's generation they are of */
	uint64_t		ids_ns;		/* when they were computed */
	bool			requery;	/* a key changed the order */
	long			sel, top;
	uint64_t		sel_id;		/* the selection follows its row */
	enum net_drop_group	dgroup;
	struct net_drop_row	*drows;
	size_t			nd;
	long			dsel, dtop;
	int			hscroll;
	int			width;
};

/* The connections' columns and the sort each stands for. */
static const struct {
	const char	*title;
	enum net_sort	sort;
	int		w;	/* right-aligned width; negative: left-aligned */
} cols[] = {
	{ "PID", NET_BY_PID, PID_W }, { " COMM", NET_BY_COMM, -16 },
	{ "LOCAL", NET_BY_LOCAL, -23 }, { "REMOTE", NET_BY_REMOTE, -23 },
	{ "STATE", NET_BY_STATE, -12 }, { "AGE", NET_BY_AGE, 8 },
	{ "SENT", NET_BY_SENT, 8 }, { "RECV", NET_BY_RECEIVED, 8 },
	{ "RETR", NET_BY_RETRANS, 6 }, { "RST", NET_BY_RESETS, 5 },
	{ "DROP", NET_BY_DROPS, 6 }, { "SRTT", NET_BY_SRTT, 9 },
	{ "  PROTO", NET_BY_LAST, -8 },
};

#define NCOLS	((int)(sizeof(cols) / sizeof(cols[0])))

static const char *const sort_names[NET_SORT_NR] = {
	[NET_BY_AGE] = "age", [NET_BY_LAST] = "last active", [NET_BY_SENT] = "bytes sent",
	[NET_BY_RECEIVED] = "bytes received", [NET_BY_BYTES] = "bytes",
	[NET_BY_RETRANS] = "retransmits", [NET_BY_RESETS] = "resets", [NET_BY_DROPS] = "drops",
	[NET_BY_SRTT] = "srtt", [NET_BY_STATE] = "state", [NET_BY_PID] = "pid",
	[NET_BY_COMM] = "command", [NET_BY_LOCAL] = "local end", [NET_BY_REMOTE] = "remote end",
};

static const char *const group_names[] = { "reason and location", "reason", "location" };

static int net_init(struct ui *ui, struct pane *p)
{
	struct net_state *ns = p->priv;

	(void)ui;
	ns->q.sort = NET_BY_LAST;
	ns->slice = 10000000;
	ns->requery = true;
	return 0;
}

static void net_destroy(struct pane *p)
{
	struct net_state *ns = p->priv;

	net_free(ns->n);
	free(ns->ids);
	free(ns->drows);
}

static bool keep_view(void *arg, const struct ktop_event *ev)
{
	return viewfilter_match(arg, ev);
}

static int feed_slice(struct ui *ui, void *ctx, uint64_t t0, uint64_t t1)
{
	struct net_state *ns = ctx;

	(void)ui;
	(void)t0;	/* the model reads on from where it stopped */
	return net_update(ns->n, t1) < 0 ? -1 : 0;
}

/* Read what was published since the last frame, within the budget. */
static void pn_feed(struct ui *ui, struct net_state *ns)
{
	uint64_t t1, t_in = clock_thread_ns(), now = clock_mono_ns();

	if (!ns->n) {
		ns->n = app_net_new(ui->app);
		if (!ns->n)
			return;
		ns->vgen = ~0ull;
	}
	if (ns->vgen != ui_view_gen(ui)) {
		net_set_keep(ns->n, ui_view(ui) ? keep_view : NULL, ui_view(ui));
		ns->vgen = ui_view_gen(ui);
		ns->fed = ns->tick_ns = 0;
		ns->requery = true;
	}
	if (ui->paused && ns->fed)
		return;
	t1 = ui_feed_window_end(ui, NET_LAG_NS);
	ui_feed_slices(ui, &ns->fed, t1, &ns->slice, t_in, NET_FEED_NS, feed_slice, ns);
	/*
	 * Rates: live (or a stream), over the trace time read in the last second;
	 * a file, over all of it, once it is read
	 */
	if (app_flags(ui->app) & SOURCE_GROWS) {
		if (now - ns->tick_ns >= 1000000000ull && ns->fed > 1) {
			net_tick(ns->n, ns->fed - 1);
			ns->tick_ns = now;
		}
	} else if (!ns->tick_ns && ns->fed > 1 && !app_loading(ui->app) && ns->fed >= t1) {
		net_tick(ns->n, ns->fed - 1);
		ns->tick_ns = now;
	}
}

/* The rows in the query's order (again when a key asked or the model changed). */
static void pn_layout(struct net_state *ns)
{
	uint64_t now = clock_mono_ns();
	struct net_totals t;
	int64_t sel_reason = 0;
	char sel_loc[256];
	bool had_sel = false;

	if (!ns->n)
		return;
	if (ns->requery || (net_gen(ns->n) != ns->ids_gen && now - ns->ids_ns >= NET_REQUERY_NS)) {
		net_totals(ns->n, &t);
		if (t.conns > ns->cap) {
			uint64_t *v = realloc(ns->ids, t.conns * sizeof(*v));

			if (!v)
				return;
			ns->ids = v;
			ns->cap = t.conns;
		}
		ns->total = net_conn_ids(ns->n, &ns->q, ns->ids, ns->cap);
		ns->nids = ns->total < ns->cap ? ns->total : ns->cap;
		ns->ids_gen = net_gen(ns->n);
		ns->ids_ns = now;
		ns->requery = false;
		for (size_t i = 0; ns->sel_id && i < ns->nids; i++) {
			if (ns->ids[i] == ns->sel_id) {
				ns->sel = (long)i;
				break;
			}
		}
		if (!ns->drows)
			ns->drows = calloc(NET_DROPS_MAX, sizeof(*ns->drows));
		/* the selection follows its group, as the counts reorder them */
		if (ns->nd && ns->dsel >= 0 && ns->dsel < (long)ns->nd) {
			sel_reason = ns->drows[ns->dsel].reason;
			snprintf(sel_loc, sizeof(sel_loc), "%s", ns->drows[ns->dsel].location);
			had_sel = true;
		}
		ns->nd = ns->drows ? net_drops(ns->n, ns->dgroup, ns->drows, NET_DROPS_MAX) : 0;
		if (ns->nd > NET_DROPS_MAX)
			ns->nd = NET_DROPS_MAX;
		for (size_t i = 0; had_sel && i < ns->nd; i++) {
			if (ns->drows[i].reason == sel_reason &&
			    !strcmp(ns->drows[i].location, sel_loc)) {
				ns->dsel = (long)i;
				break;
			}
		}
	}
	ns->sel = ui_rowsel_clamp(ns->sel, (long)ns->nids);
	ns->sel_id = ns->nids ? ns->ids[ns->sel] : 0;
	ns->dsel = ui_rowsel_clamp(ns->dsel, (long)ns->nd);
}

/* ---- rows ------------------------------------------------------------------------- */

static void col_header(const struct net_state *ns, struct richstr *rs)
{
	richstr_clear(rs);
	for (int i = 0; i < NCOLS; i++) {
		enum ui_role r = cols[i].sort == ns->q.sort && i != NCOLS - 1 ? ROLE_COLHDR_SORT :
				 ROLE_COLHDR;

		if (cols[i].w > 0) {
			richstr_add_right(rs, r, cols[i].title, cols[i].w);
		} else {
			int at = rs->len - cols[i].w;

			richstr_add(rs, r, cols[i].title);
			richstr_pad(rs, ROLE_COLHDR, at);
		}
	}
}

static void add_left(struct richstr *rs, enum ui_role role, const char *s, int w)
{
	int at = rs->len + w;

	richstr_addn(rs, role, s, w - 1);
	richstr_pad(rs, ROLE_DEFAULT, at);
}

static void add_num(struct richstr *rs, uint64_t v, int w, enum ui_role hot)
{
	char b[32];

	richstr_add_right(rs, v ? hot : ROLE_DIM, ui_fmt_count(b, sizeof(b), v), w);
}

static uint64_t row_age(const struct net_conn_row *r, const struct net_totals *t)
{
	uint64_t end = r->closed ? r->t_close : t->t_newest;

	return end > r->t_open ? end - r->t_open : 0;
}

static void fmt_row(const struct net_conn_row *r, const struct net_totals *t, struct richstr *rs)
{
	char b[NET_ADDR_STRLEN], st[8];

	richstr_clear(rs);
	if (r->pid >= 0) {
		snprintf(b, sizeof(b), "%d", r->pid);
		richstr_add_right(rs, ROLE_PID, b, PID_W);
	} else {
		richstr_add_right(rs, ROLE_DIM, "-", PID_W);
	}
	richstr_add(rs, ROLE_DEFAULT, " ");
	add_left(rs, ROLE_TASK, r->comm[0] ? r->comm : "-", 15);
	add_left(rs, ROLE_DEFAULT, net_endpoint_str(&r->local, b, sizeof(b)), 23);
	add_left(rs, r->listener ? ROLE_DIM : ROLE_DEFAULT,
		 r->listener ? "(listening)" : net_endpoint_str(&r->remote, b, sizeof(b)), 23);
	add_left(rs, r->closed ? ROLE_DIM : r->state == NET_TCP_ESTABLISHED ? ROLE_OK :
		 ROLE_DEFAULT, net_state_name(r->state, st, sizeof(st)), 12);
	richstr_add_right(rs, ROLE_TIME, ui_fmt_dur(b, sizeof(b), row_age(r, t)), 8);
	if (r->bytes_src) {
		richstr_add_right(rs, r->bytes_sent ? ROLE_DEFAULT : ROLE_DIM,
				  ui_fmt_bytes(b, sizeof(b), r->bytes_sent), 8);
		richstr_add_right(rs, r->bytes_received ? ROLE_DEFAULT : ROLE_DIM,
				  ui_fmt_bytes(b, sizeof(b), r->bytes_received), 8);
	} else {
		richstr_add_right(rs, ROLE_DIM, "-", 8);
		richstr_add_right(rs, ROLE_DIM, "-", 8);
	}
	add_num(rs, r->retransmits, 6, ROLE_WARN);
	add_num(rs, r->rst_sent + r->rst_received, 5, ROLE_ERROR);
	add_num(rs, r->drops, 6, ROLE_ERROR);
	if (r->probed)
		richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_dur(b, sizeof(b),
							       (uint64_t)r->srtt_us * 1000), 9);
	else
		richstr_add_right(rs, ROLE_DIM, "-", 9);
	richstr_add(rs, ROLE_DIM, "  ");
	richstr_add(rs, ROLE_DIM, net_proto_name(r->proto, b, sizeof(b)));
}

/* The selected row's two lines: its transitions, then what else it says. */
static void fmt_detail(const struct net_conn_row *r, int line, struct richstr *rs)
{
	char b[64], st[8], rb[32];

	richstr_clear(rs);
	if (!line) {
		/* the states it went to, each with its time since the first (fits 80 columns) */
		if (!r->seen_open)
			richstr_add(rs, ROLE_DIM, "(opened before the trace) ");
		for (unsigned int i = 0; i < r->ntrans && i < NET_MAX_TRANS; i++) {
			if (i == NET_MAX_TRANS - 1 && r->ntrans > NET_MAX_TRANS)
				richstr_addf(rs, ROLE_DIM, "... (%u) ", r->ntrans);
			richstr_add(rs, ROLE_DEFAULT, net_state_name(r->trans[i].to, st,
								    sizeof(st)));
			if (i)
				richstr_addf(rs, ROLE_TIME, " %s", ui_fmt_dur(b, sizeof(b),
									 r->trans[i].ts -
									 r->trans[0].ts));
			richstr_add(rs, ROLE_DEFAULT, " ");
		}
		if (!r->ntrans)
			richstr_add(rs, ROLE_DIM, "no state transition seen");
		return;
	}
	richstr_addf(rs, ROLE_DIM, "sent %llu received %llu bytes%s",
		     (unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_received,
		     r->bytes_src == NET_BYTES_PROBE ? " (tcp_probe)" : "");
	if (r->rst_sent + r->rst_received) {
		snprintf(rb, sizeof(rb), "%lld", (long long)r->rst_reason);
		richstr_addf(rs, ROLE_ERROR, "  resets %u sent %u received, %s", r->rst_sent,
			     r->rst_received, r->rst_reason_name ? r->rst_reason_name :
			     r->rst_reason >= 0 ? rb : "no reason given");
	}
	if (r->drops) {
		snprintf(rb, sizeof(rb), "%lld", (long long)r->drop_reason);
		richstr_addf(rs, ROLE_ERROR, "  drops %u, last %s", r->drops,
			     r->drop_reason_name ? r->drop_reason_name : rb);
	}
	if (r->probed)
		richstr_addf(rs, ROLE_DIM, "  cwnd %u ssthresh %u", r->cwnd, r->ssthresh);
	richstr_addf(rs, ROLE_DIM, "  sk %#llx gen %u", (unsigned long long)r->skaddr, r->gen);
	if (r->cookie)
		richstr_addf(rs, ROLE_DIM, " cookie %llu", (unsigned long long)r->cookie);
}

static void title(struct ui *ui, struct net_state *ns, struct richstr *rs)
{
	struct net_totals t;
	char b[32];

	richstr_clear(rs);
	if (!ns->n)
		return;
	net_totals(ns->n, &t);
	if (ns->drops) {
		richstr_addf(rs, ROLE_DEFAULT, "Drops: %s", ui_fmt_count(b, sizeof(b), t.drops));
		richstr_addf(rs, ROLE_DIM, "  by %s (g), %llu tied to a connection  d: connections",
			     group_names[ns->dgroup], (unsigned long long)t.drops_tied);
	} else {
		richstr_addf(rs, ROLE_DEFAULT, "Net: %s connections",
			     ui_fmt_count(b, sizeof(b), ns->total));
		richstr_addf(rs, ROLE_DIM, " (%llu open, %llu listening, %llu closed%s)",
			     (unsigned long long)t.open, (unsigned long long)t.listeners,
			     (unsigned long long)t.closed, ns->q.hide_closed ? ", hidden: c" : "");
		/* closed rows leave after NET_KEEP_CLOSED_NS of trace time, or for -m's bound */
		if (t.aged_out)
			richstr_addf(rs, ROLE_DIM, " %llu aged out", (unsigned long long)t.aged_out);
		if (t.bounded_out)
			richstr_addf(rs, ROLE_WARN, " %llu over -m", (unsigned long long)t.bounded_out);
		richstr_addf(rs, ROLE_DIM, "  by %s%s", sort_names[ns->q.sort],
			     ns->q.reverse ? ", inverted" : "");
		richstr_addf(rs, t.drops ? ROLE_WARN : ROLE_DIM, "  drops %s (d)",
			     ui_fmt_count(b, sizeof(b), t.drops));
	}
	if (ui_view(ui))
		richstr_add(rs, ROLE_WARN, "  of the events in the view");
	if (ns->hscroll)
		richstr_addf(rs, ROLE_WARN, "  columns scrolled %d (h/l)", ns->hscroll);
}

/* Why there is nothing to show, or NULL. */
static const char *empty_why(struct ui *ui, struct net_state *ns, char *buf, size_t len)
{
	struct net_totals t;

	net_totals(ns->n, &t);
	if (ns->drops) {
		if (ns->nd)
			return NULL;
		return t.have_drops ? "no drop (skb:kfree_skb) seen yet" :
		       "no skb:kfree_skb events in this run: ktop --net traces them";
	}
	if (ns->nids)
		return NULL;
	if (ns->total)
		return NULL;
	if (!t.have_state && !app_net_present(ui->app))
		snprintf(buf, len, "no network events in this run: start ktop with --net (and "
			 "--net=probe for srtt and cwnd); a recording shows the ones it holds");
	else if (ui_view(ui))
		snprintf(buf, len, "no connection in the events the view matches");
	else
		snprintf(buf, len, "no connection seen yet%s", ns->q.hide_closed ?
			 " (closed ones hidden: c)" : "");
	return buf;
}

static void draw_conns(struct ui *ui, struct net_state *ns, int y, int h, int w)
{
	int rows = h - 2 - DETAIL_H > 0 ? h - 2 - DETAIL_H : 1;
	struct net_conn_row r;
	struct net_totals t;
	struct richstr rs;

	net_totals(ns->n, &t);
	col_header(ns, &rs);
	richstr_cut(&rs, PID_W, ns->hscroll);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	ns->top = ui_rowsel_top(ns->sel, ns->top, rows);
	for (int k = 0; k < rows && ns->top + k < (long)ns->nids; k++) {
		if (net_conn_get(ns->n, ns->ids[ns->top + k], &r))
			continue;	/* aged out since the order was made */
		fmt_row(&r, &t, &rs);
		richstr_cut(&rs, PID_W, ns->hscroll);
		if (ns->top + k == ns->sel)
			ui_rowsel_mark(&rs, w);
		ui_draw_rs(&ui->screen, y + 2 + k, 0, &rs, w);
	}
	if (h > 2 + DETAIL_H && ns->nids && !net_conn_get(ns->n, ns->sel_id, &r)) {
		for (int line = 0; line < DETAIL_H; line++) {
			fmt_detail(&r, line, &rs);
			ui_draw_rs(&ui->screen, y + h - DETAIL_H + line, 0, &rs, w);
		}
	}
}

static void draw_drops(struct ui *ui, struct net_state *ns, int y, int h, int w)
{
	int rows = h - 2 > 0 ? h - 2 : 1;
	struct richstr rs;
	char b[32];

	richstr_clear(&rs);
	richstr_add_right(&rs, ROLE_COLHDR, "COUNT", 10);
	richstr_add_right(&rs, ROLE_COLHDR, "RATE/s", 10);
	richstr_add_right(&rs, ROLE_COLHDR, "TIED", 8);
	richstr_add(&rs, ROLE_COLHDR, "  ");
	if (ns->dgroup != NET_DROPS_BY_LOCATION)
		add_left(&rs, ROLE_COLHDR, "REASON", 26);
	if (ns->dgroup != NET_DROPS_BY_REASON)
		richstr_add(&rs, ROLE_COLHDR, "LOCATION");
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	ns->dtop = ui_rowsel_top(ns->dsel, ns->dtop, rows);
	for (int k = 0; k < rows && ns->dtop + k < (long)ns->nd; k++) {
		const struct net_drop_row *d = &ns->drows[ns->dtop + k];

		richstr_clear(&rs);
		richstr_add_right(&rs, ROLE_DEFAULT, ui_fmt_count(b, sizeof(b), d->count), 10);
		snprintf(b, sizeof(b), "%.1f", d->rate);
		richstr_add_right(&rs, d->rate > 0 ? ROLE_WARN : ROLE_DIM, b, 10);
		add_num(&rs, d->conns, 8, ROLE_DEFAULT);
		richstr_add(&rs, ROLE_DEFAULT, "  ");
		if (ns->dgroup != NET_DROPS_BY_LOCATION) {
			if (d->reason_name) {
				add_left(&rs, ROLE_ERROR, d->reason_name, 26);
			} else {
				snprintf(b, sizeof(b), "%lld", (long long)d->reason);
				add_left(&rs, ROLE_ERROR, d->reason < 0 ? "-" : b, 26);
			}
		}
		if (ns->dgroup != NET_DROPS_BY_REASON)
			richstr_add(&rs, ROLE_EVENT, d->location[0] ? d->location : "-");
		if (ns->dtop + k == ns->dsel)
			ui_rowsel_mark(&rs, w);
		ui_draw_rs(&ui->screen, y + 2 + k, 0, &rs, w);
	}
}

static void net_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct net_state *ns = p->priv;
	struct richstr rs;
	char why[256];
	const char *e;

	ns->width = w;
	pn_feed(ui, ns);
	pn_layout(ns);
	if (!ns->n) {
		ui_draw_text(&ui->screen, y, 0, ROLE_ERROR, "Net: out of memory", w);
		return;
	}
	title(ui, ns, &rs);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	e = empty_why(ui, ns, why, sizeof(why));
	if (e) {
		ui_draw_wrapped(&ui->screen, y + 2, h - 2, w, ROLE_DIM, e);
		return;
	}
	if (ns->drops)
		draw_drops(ui, ns, y, h, w);
	else
		draw_conns(ui, ns, y, h, w);
}

/* ---- keys ------------------------------------------------------------------------- */

static int net_search(struct ui *ui, struct pane *p, const char *needle, int dir)
{
	struct net_state *ns = p->priv;
	struct net_conn_row r;
	char text[256];

	pn_feed(ui, ns);
	pn_layout(ns);
	if (ns->drops) {
		for (long k = 1; k <= (long)ns->nd; k++) {
			long i = (ns->dsel + (dir < 0 ? k : -k) + 2 * (long)ns->nd) % (long)ns->nd;
			const struct net_drop_row *d = &ns->drows[i];

			if ((d->reason_name && strcasestr(d->reason_name, needle)) ||
			    strcasestr(d->location, needle)) {
				ns->dsel = i;
				return UI_HANDLED | UI_REDRAW;
			}
		}
		ui_message(ui, "\"%s\": no drop's reason or location has it", needle);
		return UI_HANDLED | UI_REDRAW;
	}
	/* n goes down the list (dir -1, as older in the event list), N up; around the end */
	for (long k = 1; k <= (long)ns->nids; k++) {
		long i = (ns->sel + (dir < 0 ? k : -k) + 2 * (long)ns->nids) % (long)ns->nids;

		if (!net_conn_get(ns->n, ns->ids[i], &r) &&
		    strcasestr(net_conn_text(&r, text, sizeof(text)), needle)) {
			ns->sel = i;
			ns->sel_id = ns->ids[i];
			return UI_HANDLED | UI_REDRAW;
		}
	}
	ui_message(ui, "\"%s\": no connection has it (comm, pid, address:port, state)", needle);
	return UI_HANDLED | UI_REDRAW;
}

/* Narrow every pane with @clause, then list the events. */
static int narrow_and_list(struct ui *ui, const char *clause)
{
	uint64_t gen;

	if (!ui->app->view) {
		ui_message(ui, "Enter: no view filter in this run");
		return UI_HANDLED | UI_REDRAW;
	}
	gen = ui_view_gen(ui);
	ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_NARROW, .view = { .what = UI_VIEW_CLAUSE, .text = clause },
	});
	if (ui_view_gen(ui) == gen)
		return UI_HANDLED | UI_REDRAW;	/* refused: the view prompt said why */
	return ui_show_events(ui, &(struct ui_events_req){ .at = UINT64_MAX - 1 }) | UI_REDRAW;
}

/* The view clause of a connection: conn: of its two ends, port: of a listener. */
static const char *conn_clause(const struct net_conn_row *r, char *buf, size_t len)
{
	char a[NET_ADDR_STRLEN], b[NET_ADDR_STRLEN];

	if (r->listener || !r->remote.port || !r->local.port)
		snprintf(buf, len, "port:%u", r->listener || !r->remote.port ? r->local.port :
			 r->remote.port);
	else
		snprintf(buf, len, "conn:%s-%s", net_endpoint_str(&r->local, a, sizeof(a)),
			 net_endpoint_str(&r->remote, b, sizeof(b)));
	return buf;
}

/* The view clause of a drop group: kfree_skb with that reason, at that location. */
static const char *drop_clause(const struct net_drop_row *d, char *buf, size_t len)
{
	int n = snprintf(buf, len, "skb:kfree_skb:");

	if (d->reason >= 0)
		n += snprintf(buf + n, len - (size_t)n, " reason == %lld", (long long)d->reason);
	if (d->location[0])
		snprintf(buf + n, len - (size_t)n, "%s location == \"%s\"",
			 d->reason >= 0 ? " &&" : "", d->location);
	else if (d->reason < 0)
		snprintf(buf, len, "event:skb:kfree_skb");
	return buf;
}

static int net_enter(struct ui *ui, struct net_state *ns)
{
	char clause[256];
	struct net_conn_row r;

	if (ns->drops) {
		if (!ns->nd)
			return UI_HANDLED;
		return narrow_and_list(ui, drop_clause(&ns->drows[ns->dsel], clause,
						       sizeof(clause)));
	}
	if (!ns->nids || net_conn_get(ns->n, ns->sel_id, &r))
		return UI_HANDLED;
	return narrow_and_list(ui, conn_clause(&r, clause, sizeof(clause)));
}

/* y, i, Y on a drop group: narrow to it, then its stacks (or turn them on). */
static int net_stacks(struct ui *ui, struct net_state *ns, enum ui_action act)
{
	int type = schema_find(store_schema(ui->st), "skb", "kfree_skb");
	char clause[256], what[160];
	const struct net_drop_row *d;

	if (!ns->drops) {
		ui_message(ui, "stacks: the drops table has them (d), by reason and location");
		return UI_HANDLED | UI_REDRAW;
	}
	if (!ns->nd || type < 0) {
		ui_message(ui, "stacks: no drop here");
		return UI_HANDLED | UI_REDRAW;
	}
	d = &ns->drows[ns->dsel];
	snprintf(what, sizeof(what), "%s drops%s%s", d->reason_name ? d->reason_name : "the",
		 d->location[0] ? " at " : "", d->location);
	if (act != ACT_STACK_ON && ui->app->view) {
		uint64_t gen = ui_view_gen(ui);

		ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_NARROW,
			.view = { .what = UI_VIEW_CLAUSE,
				  .text = drop_clause(d, clause, sizeof(clause)) },
		});
		if (ui_view_gen(ui) == gen)
			return UI_HANDLED | UI_REDRAW;
	}
	return ui_request(ui, &(struct ui_req){
		.kind = act == ACT_STACK_ON ? UI_REQ_STACKS_ON : UI_REQ_STACKS,
		.stacks = { .icicle = act == ACT_STACK_ICICLE, .src = SV_SRC_EVENTS, .type = type,
			    .what = what },
	}) | UI_REDRAW;
}

static int net_probe_toggle(struct ui *ui)
{
	char err[256];
	bool on;
	int ret;

	ret = app_net_probe(ui->app, &on, err, sizeof(err));
	if (ret)
		ui_message(ui, "tcp_probe: %s", err);
	else
		ui_message(ui, on ? "tcp:tcp_probe on: srtt and cwnd from the next segments (P: off)" :
			   "tcp:tcp_probe off (P: on)");
	return UI_HANDLED | UI_REDRAW;
}

static int net_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct net_state *ns = p->priv;
	long page = p->h > 3 + DETAIL_H ? p->h - 3 - DETAIL_H : 1;

	/* the rows as drawn (a key may come before the first draw) */
	pn_feed(ui, ns);
	pn_layout(ns);
	if (ui_rowsel_moves(act)) {
		if (ns->drops) {
			ns->dsel = ui_rowsel_move(ns->dsel, (long)ns->nd, page, act);
		} else {
			ns->sel = ui_rowsel_move(ns->sel, (long)ns->nids, page, act);
			ns->sel_id = ns->nids ? ns->ids[ns->sel] : 0;
		}
		return UI_HANDLED | UI_REDRAW;
	}
	switch (act) {
	case ACT_ENTER:
		return net_enter(ui, ns);
	case ACT_LEFT:
	case ACT_RIGHT:
		ns->hscroll = ui_rowsel_hscroll(ns->hscroll, act);
		break;
	case ACT_PANE_SORT:
	case ACT_SORT_PREV:
		ns->q.sort = (enum net_sort)((ns->q.sort + (act == ACT_PANE_SORT ? 1 :
							    NET_SORT_NR - 1)) % NET_SORT_NR);
		ui_message(ui, "connections sorted by %s", sort_names[ns->q.sort]);
		ns->requery = true;
		break;
	case ACT_SORT_INVERT:
		ns->q.reverse = !ns->q.reverse;
		ns->requery = true;
		break;
	case ACT_NET_DROPS:
		ns->drops = !ns->drops;
		ns->requery = true;
		break;
	case ACT_NET_CLOSED:
		ns->q.hide_closed = !ns->q.hide_closed;
		ui_message(ui, ns->q.hide_closed ? "closed connections hidden (c shows them)" :
			   "closed connections shown (kept 60 s of trace time)");
		ns->requery = true;
		break;
	case ACT_NET_GROUP:
		if (!ns->drops) {
			/* g is Home elsewhere: the connections' first row */
			ns->sel = ui_rowsel_move(ns->sel, (long)ns->nids, page, ACT_HOME);
			ns->sel_id = ns->nids ? ns->ids[ns->sel] : 0;
			break;
		}
		ns->dgroup = (enum net_drop_group)((ns->dgroup + 1) % 3);
		ui_message(ui, "drops by %s", group_names[ns->dgroup]);
		ns->requery = true;
		break;
	case ACT_NET_PROBE:
		return net_probe_toggle(ui);
	case ACT_STACK_CALLERS:
	case ACT_STACK_ICICLE:
	case ACT_STACK_ON:
		return net_stacks(ui, ns, act);
	default:
		return 0;
	}
	return UI_HANDLED | UI_REDRAW;
}

static int net_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct net_state *ns = p->priv;

	(void)ui;
	if (row == 1 && !ns->drops) {
		/* a column header: sort by it */
		col = col < PID_W ? col : col + ns->hscroll;
		for (int c = 0, x = 0; c < NCOLS; c++) {
			int w = cols[c].w < 0 ? -cols[c].w : cols[c].w;

			if (col < x + w) {
				ns->q.sort = cols[c].sort;
				ns->requery = true;
				break;
			}
			x += w;
		}
	} else if (row >= 2) {
		long i = ui_rowsel_click(ns->drops ? ns->dtop : ns->top, row, 2,
					 (long)(ns->drops ? ns->nd : ns->nids));

		if (i >= 0 && ns->drops) {
			ns->dsel = i;
		} else if (i >= 0) {
			ns->sel = i;
			ns->sel_id = ns->ids[i];
		}
	}
	return UI_HANDLED | UI_REDRAW;
}

static const char *net_footer(struct ui *ui, struct pane *p)
{
	struct net_state *ns = p->priv;

	(void)ui;
	return ns->drops ? "Enter events y stacks Y stacks on g group d connections / search" :
	       "Enter timeline F6 sort I invert c closed d drops P probe / search h/l scroll";
}

const struct pane_ops pane_net_ops = {
	.name		= "net",
	.label		= "Net",
	.priv_size	= sizeof(struct net_state),
	.init		= net_init,
	.destroy	= net_destroy,
	.draw		= net_draw,
	.key		= net_key,
	.click		= net_click,
	.footer		= net_footer,
	.search		= net_search,
};

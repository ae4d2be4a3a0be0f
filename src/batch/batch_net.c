// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Connections" and "Drops" of --batch/--json (batch_net.h): the network
 * model read up to the feed end each interval, its rows as text (the most
 * recently active first, up to NET_TEXT_ROWS) and as JSON (every held row,
 * up to NET_JSON_ROWS, with the total).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "app/app.h"
#include "batch-local.h"
#include "batch_net.h"
#include "lib/jsonw.h"
#include "model/net.h"
#include "store/event.h"
#include "view/viewfilter.h"

#define NET_LAG_NS	(300ull * 1000 * 1000)	/* how far behind "now" a window ends */
#define NET_TEXT_ROWS	20
#define NET_TEXT_DROPS	12
#define NET_JSON_ROWS	10000
#define NET_JSON_DROPS	1000

struct batch_net {
	struct app		*a;
	struct net		*n;
	struct viewfilter	*vf;
	struct net_conn_row	*rows;
	struct net_drop_row	*drops;
	int			err;
};

static bool keep_view(void *arg, const struct ktop_event *ev)
{
	return viewfilter_match(arg, ev);
}

struct batch_net *batch_net_new(struct app *a, struct viewfilter *vf)
{
	struct batch_net *bn;

	if (!app_net_present(a))
		return NULL;
	bn = calloc(1, sizeof(*bn));
	if (!bn)
		return NULL;
	bn->a = a;
	bn->vf = vf;
	bn->n = app_net_new(a);
	bn->rows = calloc(NET_JSON_ROWS, sizeof(*bn->rows));
	bn->drops = calloc(NET_JSON_DROPS, sizeof(*bn->drops));
	if (!bn->n || !bn->rows || !bn->drops) {
		batch_net_free(bn);
		return NULL;
	}
	if (vf)
		net_set_keep(bn->n, keep_view, vf);
	return bn;
}

void batch_net_free(struct batch_net *bn)
{
	if (!bn)
		return;
	net_free(bn->n);
	free(bn->rows);
	free(bn->drops);
	free(bn);
}

void batch_net_update(struct batch_net *bn, uint64_t t1)
{
	struct net_totals t;
	int64_t ret;

	if (!bn)
		return;
	if (!t1)
		t1 = app_feed_end(bn->a, NET_LAG_NS);
	if (!t1)
		return;
	ret = net_update(bn->n, t1);
	if (ret < 0 && !bn->err)
		bn->err = (int)ret;
	net_totals(bn->n, &t);
	if (t.t_newest)
		net_tick(bn->n, t.t_newest);
}

/* The row's age: from its first event to its end, or to the newest event read. */
static double age_s(const struct net_conn_row *r, const struct net_totals *t)
{
	uint64_t end = r->closed ? r->t_close : t->t_newest;

	return end > r->t_open ? (double)(end - r->t_open) / 1e9 : 0;
}

static const char *bytes_src_name(uint8_t src)
{
	switch (src) {
	case NET_BYTES_SOCK:
		return "sock_send_length/sock_recv_length";
	case NET_BYTES_PROBE:
		return "tcp_probe (acked sent, payload received)";
	default:
		return "none (no sock_send_length here: --net=probe estimates them)";
	}
}

static const char *reason_text(const char *name, int64_t v, char *buf, size_t len)
{
	if (name)
		return name;
	if (v < 0)
		return "-";
	snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

static size_t rows_by_last(struct batch_net *bn, size_t max)
{
	struct net_query q = { .sort = NET_BY_LAST };

	return net_conns(bn->n, &q, bn->rows, max);
}

void batch_net_text(struct batch_net *bn, FILE *o)
{
	struct net_totals t;
	size_t n, nd;

	if (!bn)
		return;
	net_totals(bn->n, &t);
	n = rows_by_last(bn, NET_TEXT_ROWS);
	fprintf(o, "\nConnections%s: %llu open (%llu listening), %llu closed; %llu opened, "
		"%llu aged out, %llu over the bound; bytes from %s\n",
		bn->vf ? " (of the events the view keeps)" : "", (unsigned long long)t.open,
		(unsigned long long)t.listeners, (unsigned long long)t.closed,
		(unsigned long long)t.opened, (unsigned long long)t.aged_out,
		(unsigned long long)t.bounded_out, bytes_src_name(t.bytes_src));
	if (bn->err)
		fprintf(o, "  (the model stopped: %s)\n", strerror(-bn->err));
	if (!n) {
		fprintf(o, "  (none%s)\n", t.have_state ? "" :
			": no sock:inet_sock_set_state events (--net traces them)");
	} else {
		fprintf(o, "%8s %-15s %-5s %-22s %-22s %-11s %8s %10s %10s %4s %4s %4s %7s\n",
			"PID", "COMM", "PROTO", "LOCAL", "REMOTE", "STATE", "AGE", "SENT", "RECV",
			"RETR", "RST", "DROP", "SRTT");
	}
	for (size_t i = 0; i < n && i < NET_TEXT_ROWS; i++) {
		const struct net_conn_row *r = &bn->rows[i];
		char l[NET_ADDR_STRLEN], rm[NET_ADDR_STRLEN], st[8], pr[8], srtt[16], pid[16];

		snprintf(pid, sizeof(pid), r->pid < 0 ? "-" : "%d", r->pid);
		snprintf(srtt, sizeof(srtt), r->probed ? "%uus" : "-", r->srtt_us);
		fprintf(o, "%8s %-15.15s %-5s %-22s %-22s %-11s %7.2fs %10llu %10llu %4u %4u %4u "
			"%7s\n", pid, r->comm[0] ? r->comm : "-", net_proto_name(r->proto, pr, 8),
			net_endpoint_str(&r->local, l, sizeof(l)),
			net_endpoint_str(&r->remote, rm, sizeof(rm)),
			net_state_name(r->state, st, sizeof(st)), age_s(r, &t),
			(unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_received,
			r->retransmits, r->rst_sent + r->rst_received, r->drops, srtt);
	}
	if (t.conns > n)
		fprintf(o, "  ... %llu more (--json lists them all)\n",
			(unsigned long long)(t.conns - n));
	nd = net_drops(bn->n, NET_DROPS_BY_REASON_LOCATION, bn->drops, NET_JSON_DROPS);
	fprintf(o, "\nDrops%s: %llu (%llu tied to a connection)%s\n",
		bn->vf ? " (of the events the view keeps)" : "", (unsigned long long)t.drops,
		(unsigned long long)t.drops_tied,
		t.have_drops ? "" : "; no skb:kfree_skb events (--net traces them)");
	if (nd)
		fprintf(o, "%10s %9s %6s  %-26s %s\n", "COUNT", "RATE/s", "TIED", "REASON",
			"LOCATION");
	for (size_t i = 0; i < nd && i < NET_TEXT_DROPS; i++) {
		const struct net_drop_row *d = &bn->drops[i];
		char rb[24];

		fprintf(o, "%10llu %9.1f %6llu  %-26s %s\n", (unsigned long long)d->count, d->rate,
			(unsigned long long)d->conns, reason_text(d->reason_name, d->reason, rb,
								  sizeof(rb)),
			d->location[0] ? d->location : "-");
	}
	if (nd > NET_TEXT_DROPS)
		fprintf(o, "  ... %zu more groups (--json lists them all)\n", nd - NET_TEXT_DROPS);
}

static const char *family_name(uint16_t f)
{
	return f == AF_INET ? "ipv4" : f == AF_INET6 ? "ipv6" : "unknown";
}

static void json_row(struct jsonw *w, const struct net_conn_row *r, const struct net_totals *t)
{
	char buf[NET_ADDR_STRLEN], st[8], rb[24];

	jsonw_obj_open(w);
	jsonw_kv_i64(w, "pid", r->pid);
	jsonw_kv_str(w, "comm", r->comm);
	jsonw_kv_str(w, "proto", net_proto_name(r->proto, buf, sizeof(buf)));
	jsonw_kv_str(w, "family", family_name(r->local.family));
	jsonw_kv_str(w, "saddr", net_addr_str(&r->local, buf, sizeof(buf)));
	jsonw_kv_u64(w, "sport", r->local.port);
	jsonw_kv_str(w, "daddr", net_addr_str(&r->remote, buf, sizeof(buf)));
	jsonw_kv_u64(w, "dport", r->remote.port);
	jsonw_kv_str(w, "state", net_state_name(r->state, st, sizeof(st)));
	jsonw_kv_double(w, "age_s", age_s(r, t), 6);
	jsonw_kv_u64(w, "bytes_sent", r->bytes_sent);
	jsonw_kv_u64(w, "bytes_received", r->bytes_received);
	jsonw_kv_u64(w, "retransmits", r->retransmits);
	jsonw_kv_u64(w, "resets", r->rst_sent + r->rst_received);
	jsonw_kv_u64(w, "drops", r->drops);
	/* more than the issue lists */
	jsonw_kv_u64(w, "id", r->id);
	jsonw_kv_str(w, "bytes_source", r->bytes_src == NET_BYTES_SOCK ? "sock" :
		     r->bytes_src == NET_BYTES_PROBE ? "tcp_probe" : "none");
	jsonw_kv_double(w, "rate_sent", r->rate_sent, 1);
	jsonw_kv_double(w, "rate_received", r->rate_received, 1);
	jsonw_kv_u64(w, "resets_sent", r->rst_sent);
	jsonw_kv_u64(w, "resets_received", r->rst_received);
	jsonw_kv_str(w, "reset_reason", reason_text(r->rst_reason_name, r->rst_reason, rb,
						    sizeof(rb)));
	jsonw_kv_str(w, "drop_reason", reason_text(r->drop_reason_name, r->drop_reason, rb,
						   sizeof(rb)));
	jsonw_kv_bool(w, "closed", r->closed);
	jsonw_kv_bool(w, "listener", r->listener);
	jsonw_kv_bool(w, "seen_open", r->seen_open);
	jsonw_kv_u64(w, "t_open", r->t_open);
	jsonw_kv_u64(w, "t_close", r->t_close);
	if (r->probed) {
		jsonw_kv_u64(w, "srtt_us", r->srtt_us);
		jsonw_kv_u64(w, "cwnd", r->cwnd);
		jsonw_kv_u64(w, "ssthresh", r->ssthresh);
	}
	snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)r->skaddr);
	jsonw_kv_str(w, "skaddr", buf);
	jsonw_kv_u64(w, "generation", r->gen);
	if (r->cookie)
		jsonw_kv_u64(w, "sock_cookie", r->cookie);
	jsonw_key(w, "transitions");
	jsonw_arr_open(w);
	for (unsigned int i = 0; i < r->ntrans && i < NET_MAX_TRANS; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "from", net_state_name(r->trans[i].from, st, sizeof(st)));
		jsonw_kv_str(w, "to", net_state_name(r->trans[i].to, buf, sizeof(buf)));
		jsonw_kv_u64(w, "ts", r->trans[i].ts);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

void batch_net_json(struct batch_net *bn, FILE *o)
{
	struct net_totals t;
	struct jsonw w;
	size_t n, nd;
	char rb[24];

	if (!bn)
		return;
	net_totals(bn->n, &t);
	n = rows_by_last(bn, NET_JSON_ROWS);
	jsonw_init_buf(&w);
	jsonw_arr_open(&w);
	for (size_t i = 0; i < n && i < NET_JSON_ROWS; i++)
		json_row(&w, &bn->rows[i], &t);
	jsonw_arr_close(&w);
	batch_json_member(o, "connections", &w);
	fprintf(o, ",\"connections_total\":%zu", n);
	nd = net_drops(bn->n, NET_DROPS_BY_REASON_LOCATION, bn->drops, NET_JSON_DROPS);
	jsonw_init_buf(&w);
	jsonw_arr_open(&w);
	for (size_t i = 0; i < nd && i < NET_JSON_DROPS; i++) {
		const struct net_drop_row *d = &bn->drops[i];

		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "reason", reason_text(d->reason_name, d->reason, rb, sizeof(rb)));
		jsonw_kv_str(&w, "location", d->location);
		jsonw_kv_u64(&w, "count", d->count);
		jsonw_kv_i64(&w, "reason_value", d->reason);
		jsonw_kv_double(&w, "rate", d->rate, 2);
		jsonw_kv_u64(&w, "tied", d->conns);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	batch_json_member(o, "drops", &w);
	jsonw_init_buf(&w);
	jsonw_obj_open(&w);
	jsonw_kv_u64(&w, "events", t.events);
	jsonw_kv_u64(&w, "open", t.open);
	jsonw_kv_u64(&w, "closed", t.closed);
	jsonw_kv_u64(&w, "listeners", t.listeners);
	jsonw_kv_u64(&w, "opened", t.opened);
	jsonw_kv_u64(&w, "aged_out", t.aged_out);
	jsonw_kv_u64(&w, "bounded_out", t.bounded_out);
	jsonw_kv_u64(&w, "retransmits", t.retransmits);
	jsonw_kv_u64(&w, "resets", t.resets);
	jsonw_kv_u64(&w, "drops", t.drops);
	jsonw_kv_u64(&w, "drops_tied", t.drops_tied);
	jsonw_kv_u64(&w, "bytes_untied", t.bytes_untied);
	jsonw_kv_str(&w, "bytes_source", t.bytes_src == NET_BYTES_SOCK ? "sock" :
		     t.bytes_src == NET_BYTES_PROBE ? "tcp_probe" : "none");
	jsonw_kv_bool(&w, "view", bn->vf != NULL);
	if (bn->err)
		jsonw_kv_str(&w, "error", strerror(-bn->err));
	jsonw_obj_close(&w);
	batch_json_member(o, "net", &w);
}

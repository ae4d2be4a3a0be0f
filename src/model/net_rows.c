// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network model's rows (src/model/net.h): a lifetime as a row, the rows a
 * query asks for in its order, the drop groups, and the names and addresses
 * printers and view filters share.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/hashmap.h"
#include "lib/intern.h"
#include "net-local.h"
#include "store/store.h"

/* ---- addresses -------------------------------------------------------------------- */

void net_endpoint_canon(const struct net_endpoint *in, struct net_endpoint *out)
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	*out = *in;
	if (in->family == AF_INET6 && !memcmp(in->addr, pre, 12)) {
		out->family = AF_INET;
		memmove(out->addr, in->addr + 12, 4);
		memset(out->addr + 4, 0, 12);
	} else if (in->family == AF_INET) {
		memset(out->addr + 4, 0, 12);
	}
}

static uint64_t end_hash(uint64_t h, const struct net_endpoint *e)
{
	struct net_endpoint c;
	uint8_t b[20];

	net_endpoint_canon(e, &c);
	memcpy(b, c.addr, 16);
	b[16] = (uint8_t)c.family;
	b[17] = (uint8_t)(c.family >> 8);
	b[18] = (uint8_t)c.port;
	b[19] = (uint8_t)(c.port >> 8);
	return hash_str(b, sizeof(b)) ^ (h * HMAP_GOLDEN);
}

uint64_t net_tuple_hash(const struct net_endpoint *local, const struct net_endpoint *remote)
{
	return end_hash(end_hash(1, local), remote);
}

uint64_t net_local_hash(const struct net_endpoint *local)
{
	return end_hash(2, local);
}

uint64_t net_pending_hash(const struct net_endpoint *local, const struct net_endpoint *remote)
{
	struct net_endpoint l = *local;

	l.port = 0;
	return end_hash(end_hash(3, &l), remote);
}

bool net_endpoint_eq(const struct net_endpoint *a, const struct net_endpoint *b)
{
	struct net_endpoint x, y;

	net_endpoint_canon(a, &x);
	net_endpoint_canon(b, &y);
	return x.family == y.family && x.port == y.port && !memcmp(x.addr, y.addr, 16);
}

const char *net_addr_str(const struct net_endpoint *e, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (e->family != AF_INET && e->family != AF_INET6) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (!inet_ntop(e->family, e->addr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

const char *net_endpoint_str(const struct net_endpoint *e, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	net_addr_str(e, a, sizeof(a));
	if (e->family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", a, e->port);
	else
		snprintf(buf, len, "%s:%u", a, e->port);
	return buf;
}

int net_addr_parse(const char *s, size_t len, struct net_endpoint *out, unsigned int *prefix)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long p;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(out, 0, sizeof(*out));
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, out->addr) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, out->addr) == 1)
		out->family = AF_INET6;
	else
		return -EINVAL;
	*prefix = out->family == AF_INET ? 32 : 128;
	if (!slash)
		return 0;
	if (!*slash || *slash == '-' || *slash == '+')
		return -EINVAL;
	p = strtoul(slash, &end, 10);
	if (*end || p > *prefix)
		return -EINVAL;
	*prefix = (unsigned int)p;
	return 0;
}

bool net_addr_match(const struct net_endpoint *net, unsigned int prefix,
		    const struct net_endpoint *e)
{
	struct net_endpoint a, b;
	unsigned int full, rest;

	net_endpoint_canon(net, &a);
	net_endpoint_canon(e, &b);
	if (a.family != b.family) {
		/* ::/0 takes everything, 0.0.0.0/0 every IPv4 address */
		return !prefix && a.family == AF_INET6;
	}
	if (net->family == AF_INET6 && a.family == AF_INET)
		prefix = prefix >= 96 ? prefix - 96 : 0;	/* a v4-mapped network */
	full = prefix / 8;
	rest = prefix % 8;
	if (memcmp(a.addr, b.addr, full))
		return false;
	return !rest || !((a.addr[full] ^ b.addr[full]) & (0xff << (8 - rest)));
}

/* ---- names ------------------------------------------------------------------------ */

static const char *const state_names[] = {
	[NET_TCP_ESTABLISHED] = "ESTABLISHED", [NET_TCP_SYN_SENT] = "SYN_SENT",
	[NET_TCP_SYN_RECV] = "SYN_RECV", [NET_TCP_FIN_WAIT1] = "FIN_WAIT1",
	[NET_TCP_FIN_WAIT2] = "FIN_WAIT2", [NET_TCP_TIME_WAIT] = "TIME_WAIT",
	[NET_TCP_CLOSE] = "CLOSE", [NET_TCP_CLOSE_WAIT] = "CLOSE_WAIT",
	[NET_TCP_LAST_ACK] = "LAST_ACK", [NET_TCP_LISTEN] = "LISTEN",
	[NET_TCP_CLOSING] = "CLOSING", [NET_TCP_NEW_SYN_RECV] = "NEW_SYN_RECV",
	[NET_TCP_BOUND_INACTIVE] = "BOUND_INACTIVE",
};

const char *net_state_name(uint8_t state, char *buf, size_t len)
{
	if (state < sizeof(state_names) / sizeof(state_names[0]) && state_names[state])
		return state_names[state];
	snprintf(buf, len, "%u", state);
	return buf;
}

const char *net_proto_name(uint16_t proto, char *buf, size_t len)
{
	switch (proto) {
	case 6:
		return "TCP";
	case 17:
		return "UDP";
	case 132:
		return "SCTP";
	case 262:
		return "MPTCP";
	default:
		snprintf(buf, len, "%u", proto);
		return buf;
	}
}

const char *net_conn_text(const struct net_conn_row *r, char *buf, size_t len)
{
	char l[NET_ADDR_STRLEN], rm[NET_ADDR_STRLEN], p[8], s[8];

	snprintf(buf, len, "%s %d %s %s %s %s", r->comm, r->pid, net_proto_name(r->proto, p, 8),
		 net_endpoint_str(&r->local, l, sizeof(l)),
		 net_endpoint_str(&r->remote, rm, sizeof(rm)), net_state_name(r->state, s, 8));
	return buf;
}

/* ---- rows ------------------------------------------------------------------------- */

static const char *reason_name(const struct net_symtab *t, int64_t v)
{
	return v >= 0 ? net_symtab_find(t, v) : NULL;
}

void net_row_fill(const struct net *n, const struct net_conn *c, struct net_conn_row *r)
{
	bool sock = n->have[NK_SEND_LEN] || n->have[NK_RECV_LEN];

	memset(r, 0, sizeof(*r));
	r->id = c->id;
	r->skaddr = c->skaddr;
	r->gen = c->gen;
	r->cookie = c->cookie;
	r->pid = c->pid;
	r->comm = c->comm;
	if (!r->comm && c->pid >= 0)
		r->comm = store_comm(n->st, c->pid);
	if (!r->comm)
		r->comm = "";
	r->proto = c->proto;
	r->local = c->local;
	r->remote = c->remote;
	r->state = c->state;
	r->closed = c->closed;
	r->seen_open = c->seen_open;
	r->listener = c->listener;
	r->t_open = c->t_open;
	r->t_close = c->t_close;
	r->t_last = c->t_last;
	if (sock) {
		r->bytes_src = NET_BYTES_SOCK;
		r->bytes_sent = c->sent;
		r->bytes_received = c->received;
		r->rate_sent = c->rate_sent;
		r->rate_received = c->rate_received;
	} else if (c->probed) {
		r->bytes_src = NET_BYTES_PROBE;
		r->bytes_sent = c->probe_tx;
		r->bytes_received = c->probe_rx;
	}
	r->retransmits = c->retrans;
	r->rst_sent = c->rst_sent;
	r->rst_received = c->rst_received;
	r->rst_reason = c->rst_reason >= 0 ? c->rst_reason : c->peer_reason;
	r->rst_reason_name = reason_name(&n->rst_reasons, r->rst_reason);
	r->drops = c->drops;
	r->drop_reason = c->drop_reason;
	r->drop_reason_name = reason_name(&n->drop_reasons, c->drop_reason);
	r->probed = c->probed;
	r->srtt_us = c->srtt_us;
	r->cwnd = c->cwnd;
	r->ssthresh = c->ssthresh;
	r->ntrans = c->ntrans;
	memcpy(r->trans, c->trans, sizeof(r->trans));
}

struct sort_ctx {
	const struct net	*n;
	enum net_sort		sort;
	bool			reverse;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_end(const struct net_endpoint *a, const struct net_endpoint *b)
{
	struct net_endpoint x, y;
	int r;

	net_endpoint_canon(a, &x);
	net_endpoint_canon(b, &y);
	if (x.family != y.family)
		return x.family < y.family ? -1 : 1;
	r = memcmp(x.addr, y.addr, 16);
	return r ? r : cmp_u64(x.port, y.port);
}

/* Natural order: ids, names, addresses and age ascending; figures descending. */
static int conn_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct net_conn *a = &sc->n->c[*(const uint64_t *)pa];
	const struct net_conn *b = &sc->n->c[*(const uint64_t *)pb];
	int r = 0;

	switch (sc->sort) {
	case NET_BY_AGE:
		r = cmp_u64(a->t_open, b->t_open);
		break;
	case NET_BY_LAST:
		r = -cmp_u64(a->t_last, b->t_last);
		break;
	case NET_BY_SENT:
		r = -cmp_u64(a->sent + a->probe_tx, b->sent + b->probe_tx);
		break;
	case NET_BY_RECEIVED:
		r = -cmp_u64(a->received + a->probe_rx, b->received + b->probe_rx);
		break;
	case NET_BY_BYTES:
		r = -cmp_u64(a->sent + a->received + a->probe_tx + a->probe_rx,
			     b->sent + b->received + b->probe_tx + b->probe_rx);
		break;
	case NET_BY_RETRANS:
		r = -cmp_u64(a->retrans, b->retrans);
		break;
	case NET_BY_RESETS:
		r = -cmp_u64(a->rst_sent + a->rst_received, b->rst_sent + b->rst_received);
		break;
	case NET_BY_DROPS:
		r = -cmp_u64(a->drops, b->drops);
		break;
	case NET_BY_SRTT:
		r = -cmp_u64(a->srtt_us, b->srtt_us);
		break;
	case NET_BY_STATE:
		r = cmp_u64(a->state, b->state);
		break;
	case NET_BY_PID:
		r = a->pid < b->pid ? -1 : a->pid > b->pid;
		break;
	case NET_BY_COMM:
		r = strcmp(a->comm ? a->comm : "", b->comm ? b->comm : "");
		break;
	case NET_BY_LOCAL:
		r = cmp_end(&a->local, &b->local);
		break;
	case NET_BY_REMOTE:
		r = cmp_end(&a->remote, &b->remote);
		break;
	default:
		break;
	}
	if (!r)
		r = cmp_u64(a->id, b->id);	/* a stable order among equals */
	return sc->reverse ? -r : r;
}

size_t net_conn_ids(struct net *n, const struct net_query *q, uint64_t *out, size_t max)
{
	uint64_t *slots = malloc((n->nc ? n->nc : 1) * sizeof(*slots));
	struct sort_ctx sc = { .n = n, .sort = q->sort, .reverse = q->reverse };
	bool need_row = q->keep || (q->search && *q->search);
	struct net_conn_row r;
	char text[256];
	size_t m = 0;

	if (!slots)
		return 0;
	for (size_t i = 0; i < n->nc; i++) {
		const struct net_conn *c = &n->c[i];

		if ((q->hide_closed && c->closed) || (q->hide_listeners && c->listener))
			continue;
		if (need_row) {
			net_row_fill(n, c, &r);
			if (q->keep && !q->keep(q->keep_arg, &r))
				continue;
			if (q->search && *q->search &&
			    !strcasestr(net_conn_text(&r, text, sizeof(text)), q->search))
				continue;
		}
		slots[m++] = i;
	}
	qsort_r(slots, m, sizeof(*slots), conn_cmp, &sc);
	for (size_t i = 0; i < m && i < max; i++)
		out[i] = n->c[slots[i]].id;
	free(slots);
	return m;
}

size_t net_conns(struct net *n, const struct net_query *q, struct net_conn_row *out,
		 size_t max)
{
	uint64_t *ids = malloc((max ? max : 1) * sizeof(*ids));
	size_t total, got;

	if (!ids)
		return 0;
	total = net_conn_ids(n, q, ids, max);
	got = total < max ? total : max;
	for (size_t i = 0; i < got; i++)
		net_conn_get(n, ids[i], &out[i]);
	free(ids);
	return total;
}

/* ---- drops ------------------------------------------------------------------------ */

static int drop_cmp(const void *pa, const void *pb)
{
	const struct net_drop_row *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->reason != b->reason)
		return a->reason < b->reason ? -1 : 1;
	return strcmp(a->location, b->location);
}

static void drop_name(const struct net *n, int64_t reason, struct net_drop_row *r)
{
	r->reason = reason;
	r->reason_name = reason >= 0 ? net_symtab_find(&n->drop_reasons, reason) : NULL;
}

size_t net_drops(const struct net *n, enum net_drop_group g, struct net_drop_row *out,
		 size_t max)
{
	struct net_drop_row *rows = calloc(n->nd ? n->nd : 1, sizeof(*rows));
	struct hmap idx = { 0 };
	size_t m = 0;

	if (!rows)
		return 0;
	for (size_t i = 0; i < n->nd; i++) {
		const struct net_drop *d = &n->d[i];
		uint64_t key = g == NET_DROPS_BY_REASON ? (uint64_t)(uint32_t)d->reason :
			       g == NET_DROPS_BY_LOCATION ? d->loc : i;
		bool added;
		uint64_t *v = hmap_put(&idx, key + 1, &added);
		struct net_drop_row *r;

		if (!v)
			break;
		if (added) {
			*v = m++;
			r = &rows[*v];
			drop_name(n, g == NET_DROPS_BY_LOCATION ? -1 : d->reason, r);
			r->location = g == NET_DROPS_BY_REASON ? "" : intern_str(n->strs, d->loc);
			r->first_ts = d->first_ts;
		}
		r = &rows[*v];
		r->count += d->count;
		r->conns += d->conns;
		r->rate += d->rate;
		if (d->first_ts < r->first_ts)
			r->first_ts = d->first_ts;
		if (d->last_ts > r->last_ts)
			r->last_ts = d->last_ts;
	}
	hmap_destroy(&idx);
	qsort(rows, m, sizeof(*rows), drop_cmp);
	if (out)
		memcpy(out, rows, (m < max ? m : max) * sizeof(*rows));
	free(rows);
	return m;
}

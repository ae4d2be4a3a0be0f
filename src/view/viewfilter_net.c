// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The view filter's network clauses (issue 25):
 *
 *   port:N[,N...]               an end of the event has port N
 *   addr:IP[/LEN]               an end's address is within IP/LEN (IPv4 or IPv6;
 *                               an IPv4-mapped IPv6 address is its IPv4 one)
 *   conn:IP:PORT-IP:PORT        the connection between these two ends, either
 *                               direction ([IPV6]:PORT for IPv6)
 *
 * An event matches by its own ends (the addresses and ports of tcp, sock and
 * skb events: src/model/net.h reads them by field name), and by joins, so
 * that a connection's timeline holds its whole story:
 *  - a socket (skaddr, sk, rx_sk) the events that matched named, from the
 *    first of them to the end of that lifetime (a transition to CLOSE,
 *    tcp_destroy_sock, or an event of the same socket with other ends: the
 *    address was reused), NET_JOIN_GRACE_NS after it: sock_send_length,
 *    sock_recv_length, a drop with rx_sk;
 *  - a packet an event that matched named (tcp_probe, a reset: its skb
 *    address): the events of the same packet's life, told apart from those of
 *    other packets at the same address (a freed skb's memory is soon another
 *    connection's): the skb's chain of events before it (net_dev_xmit,
 *    netif_receive_skb, ... within NET_JOIN_SKB_NS of it) since the address's
 *    last free (kfree_skb, consume_skb), last transmit, or last packet of any
 *    connection, and the free right after it (a kfree_skb with its reason).
 * The joins come from a walk of the store in time order (the join pass),
 * which a segment's evaluation first brings up to the segment's end; what a
 * later pass learns about time already evaluated (a CPU that published late)
 * makes viewfilter_update() evaluate those segments again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/array.h"
#include "lib/clock.h"
#include "lib/hashmap.h"
#include "model/net.h"
#include "store/store.h"
#include "viewfilter-local.h"

#define NET_JOIN_GRACE_NS	(1000ull * 1000)	/* a socket's events after its end */
#define NET_JOIN_SKB_NS		(1000ull * 1000)	/* a packet's events around its tie */
#define SPAN_OPEN		UINT64_MAX

/* One lifetime of a socket the clause's events named. */
struct net_span {
	uint64_t	t0, t1;		/* t1: SPAN_OPEN while it lasts */
	size_t		prev;		/* the same socket's earlier span, or SIZE_MAX */
};

/* A packet event joined to the clause: its time (exact). */
struct net_tie {
	uint64_t	ts;
	size_t		prev;		/* the same address's earlier one, or SIZE_MAX */
};

#define CHAIN_MAX	4

/* An skb address's events since the last boundary of its packets' lives. */
struct net_chain {
	uint64_t	ts[CHAIN_MAX];	/* the newest CHAIN_MAX */
	uint8_t		n;
	uint8_t		last;		/* enum net_pkt_kind of the last event, or CHAIN_TIE */
	uint16_t	last_type;
	bool		ours;		/* the last event was a packet of the clause's */
};

#define CHAIN_TIE	0xff

struct vf_net {
	uint8_t			what;		/* enum vf_net_what */
	uint16_t		*ports;		/* port: */
	size_t			nports, ports_cap;
	struct net_endpoint	net;		/* addr: */
	unsigned int		prefix;
	struct net_endpoint	ca, cb;		/* conn: */
	/* joins */
	struct hmap		socks;		/* sk -> its newest span's index + 1 */
	struct net_span		*spans;
	size_t			nspans, cap;
	struct hmap		skbs;		/* skb -> its newest joined event's index + 1 */
	struct net_tie		*ties;
	size_t			nties, tcap;
	struct hmap		chain_of;	/* skb -> its chain's index + 1 */
	struct net_chain	*chains;
	size_t			nchains, ccap;
};

enum vf_net_what { VN_PORT, VN_ADDR, VN_CONN };

/* ---- parsing ---------------------------------------------------------------------- */

static int parse_port(const char *s, size_t len, uint16_t *out)
{
	unsigned long v = 0;

	if (!len || len > 5)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (!v || v > 65535)
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

/* "IP:PORT" or "[IPV6]:PORT" of @len bytes. Return: 0 or -EINVAL (@bad: where). */
static int parse_end(const char *s, size_t len, struct net_endpoint *e, size_t *bad)
{
	const char *colon, *addr = s;
	size_t alen;
	unsigned int pl;

	if (len && s[0] == '[') {
		const char *rb = memchr(s, ']', len);

		if (!rb || rb + 1 >= s + len || rb[1] != ':') {
			*bad = rb ? (size_t)(rb - s) + 1 : len;
			return -EINVAL;
		}
		addr = s + 1;
		alen = (size_t)(rb - s) - 1;
		colon = rb + 1;
	} else {
		colon = NULL;
		for (const char *p = s; p < s + len; p++)
			if (*p == ':')
				colon = p;
		if (!colon) {
			*bad = len;
			return -EINVAL;
		}
		alen = (size_t)(colon - s);
	}
	if (net_addr_parse(addr, alen, e, &pl) || pl != (e->family == AF_INET ? 32u : 128u)) {
		*bad = (size_t)(addr - s);
		return -EINVAL;
	}
	if (parse_port(colon + 1, (size_t)(s + len - colon - 1), &e->port)) {
		*bad = (size_t)(colon - s) + 1;
		return -EINVAL;
	}
	return 0;
}

int vf_net_parse(struct vf_clause *c, unsigned int what, const char *s, int off,
		 struct err_pos *err)
{
	struct vf_net *n = calloc(1, sizeof(*n));
	size_t len = strlen(s), bad = 0;
	const char *dash;

	if (!n)
		return -ENOMEM;
	c->net = n;
	c->kind = VK_NET;
	n->what = (uint8_t)what;
	switch (what) {
	case VN_PORT:
		for (const char *p = s;; ) {
			size_t k = strcspn(p, ",");
			uint16_t port;

			if (parse_port(p, k, &port))
				return vf_err(err, off + (int)(p - s),
					      "port: wants port numbers (1-65535), comma separated");
			if (array_grow((void **)&n->ports, &n->ports_cap, n->nports + 1,
				       sizeof(*n->ports)))
				return -ENOMEM;
			n->ports[n->nports++] = port;
			if (!p[k])
				break;
			p += k + 1;
		}
		return 0;
	case VN_ADDR:
		if (net_addr_parse(s, len, &n->net, &n->prefix))
			return vf_err(err, off, "addr: wants an IPv4 or IPv6 address, with /LEN for "
				      "a network (10.0.0.0/8, fe80::/10)");
		return 0;
	default:
		/* the dash between the two ends: the first after a closing bracket or a port */
		dash = NULL;
		for (const char *p = s; *p; p++) {
			if (*p == '[') {
				p = strchr(p, ']');
				if (!p)
					break;
			} else if (*p == '-') {
				dash = p;
				break;
			}
		}
		if (!dash)
			return vf_err(err, off + (int)len, "conn: wants IP:PORT-IP:PORT ([IPV6]:PORT "
				      "for IPv6)");
		if (parse_end(s, (size_t)(dash - s), &n->ca, &bad))
			return vf_err(err, off + (int)bad, "conn: wants IP:PORT-IP:PORT, and this "
				      "end is not one ([IPV6]:PORT for IPv6)");
		if (parse_end(dash + 1, len - (size_t)(dash - s) - 1, &n->cb, &bad))
			return vf_err(err, off + (int)(dash + 1 - s) + (int)bad, "conn: wants "
				      "IP:PORT-IP:PORT, and this end is not one ([IPV6]:PORT for IPv6)");
		return 0;
	}
}

void vf_net_free(struct vf_clause *c)
{
	struct vf_net *n = c->net;

	if (!n)
		return;
	free(n->ports);
	hmap_destroy(&n->socks);
	hmap_destroy(&n->skbs);
	hmap_destroy(&n->chain_of);
	free(n->spans);
	free(n->ties);
	free(n->chains);
	free(n);
	c->net = NULL;
}

/* ---- matching --------------------------------------------------------------------- */

/*
 * An event's end is @want's: the same address, and the same port or none yet
 * (a connect's SYN_SENT transition: the local port is chosen after it).
 */
static bool end_is(const struct net_endpoint *e, const struct net_endpoint *want)
{
	struct net_endpoint x = *e;

	if (!x.port)
		x.port = want->port;
	return net_endpoint_eq(&x, want);
}

static bool ends_match(const struct vf_net *n, const struct net_ev_fields *f)
{
	switch (n->what) {
	case VN_PORT:
		for (size_t i = 0; i < n->nports; i++)
			if (f->a.port == n->ports[i] || f->b.port == n->ports[i])
				return true;
		return false;
	case VN_ADDR:
		return net_addr_match(&n->net, n->prefix, &f->a) ||
		       net_addr_match(&n->net, n->prefix, &f->b);
	default:
		return (end_is(&f->a, &n->ca) && end_is(&f->b, &n->cb)) ||
		       (end_is(&f->a, &n->cb) && end_is(&f->b, &n->ca));
	}
}

static bool sock_joined(const struct vf_net *n, uint64_t sk, uint64_t ts)
{
	uint64_t *v = hmap_get(&n->socks, sk);

	for (size_t i = v ? (size_t)*v - 1 : SIZE_MAX; i != SIZE_MAX; i = n->spans[i].prev) {
		const struct net_span *s = &n->spans[i];

		if (ts >= s->t0 && (s->t1 == SPAN_OPEN || ts <= s->t1 + NET_JOIN_GRACE_NS))
			return true;
		if (ts > s->t1)
			break;	/* older spans end earlier */
	}
	return false;
}

/* The packet event of @skb at @ts is one the join pass tied to the clause. */
static bool skb_joined(const struct vf_net *n, uint64_t skb, uint64_t ts)
{
	uint64_t *v = hmap_get(&n->skbs, skb);

	for (size_t i = v ? (size_t)*v - 1 : SIZE_MAX; i != SIZE_MAX; i = n->ties[i].prev) {
		uint64_t t = n->ties[i].ts;

		if (t == ts)
			return true;
		if (t + 2 * NET_JOIN_SKB_NS < ts)
			break;	/* added in time order, give or take a chain's span */
	}
	return false;
}

static int tie_add(struct vf_net *n, uint64_t skb, uint64_t ts)
{
	uint64_t *v = hmap_get(&n->skbs, skb);

	if (array_grow((void **)&n->ties, &n->tcap, n->nties + 1, sizeof(*n->ties)))
		return -ENOMEM;
	n->ties[n->nties] = (struct net_tie){ .ts = ts, .prev = v ? (size_t)*v - 1 : SIZE_MAX };
	if (hmap_set(&n->skbs, skb, n->nties + 1))
		return -ENOMEM;
	n->nties++;
	return 0;
}

static struct net_chain *chain_get(struct vf_net *n, uint64_t skb)
{
	uint64_t *v = hmap_get(&n->chain_of, skb);

	if (v)
		return &n->chains[*v - 1];
	if (array_grow((void **)&n->chains, &n->ccap, n->nchains + 1, sizeof(*n->chains)) ||
	    hmap_set(&n->chain_of, skb, n->nchains + 1))
		return NULL;
	memset(&n->chains[n->nchains], 0, sizeof(*n->chains));
	return &n->chains[n->nchains++];
}

static void chain_push(struct net_chain *c, uint64_t ts)
{
	if (c->n == CHAIN_MAX) {
		memmove(c->ts, c->ts + 1, (CHAIN_MAX - 1) * sizeof(*c->ts));
		c->n--;
	}
	c->ts[c->n++] = ts;
}

uint8_t vf_net_tclass(struct viewfilter *vf, const struct vf_clause *c, uint16_t type)
{
	(void)c;
	return net_fields_of(vf->netf, type) ? TC_EVAL : TC_NO;
}

bool vf_net_eval(struct viewfilter *vf, const struct vf_clause *c, const struct vfexpr_ev *e)
{
	const struct vf_net *n = c->net;
	struct net_ev_fields f;

	if (!net_fields_read(vf->netf, e->type, e->args, e->nargs, &f))
		return false;
	if ((f.has & NET_F_ENDS) && ends_match(n, &f))
		return true;
	if ((f.has & NET_F_SK) && sock_joined(n, f.sk, e->ts))
		return true;
	return (f.has & NET_F_SKB) && skb_joined(n, f.skb, e->ts);
}

/* ---- the join pass ---------------------------------------------------------------- */

static int span_open(struct vf_net *n, uint64_t sk, uint64_t ts)
{
	uint64_t *v = hmap_get(&n->socks, sk);
	size_t prev = v ? (size_t)*v - 1 : SIZE_MAX;

	if (prev != SIZE_MAX && n->spans[prev].t1 == SPAN_OPEN)
		return 0;	/* still the same lifetime */
	if (array_grow((void **)&n->spans, &n->cap, n->nspans + 1, sizeof(*n->spans)))
		return -ENOMEM;
	n->spans[n->nspans] = (struct net_span){ .t0 = ts, .t1 = SPAN_OPEN, .prev = prev };
	if (hmap_set(&n->socks, sk, n->nspans + 1))
		return -ENOMEM;
	n->nspans++;
	return 1;
}

static void dirty_from(struct viewfilter *vf, uint64_t ts)
{
	if (ts < vf->net_dirty)
		vf->net_dirty = ts;
}

/* The end of @sk's lifetime: what was evaluated while it lasted, again. */
static void span_close(struct viewfilter *vf, struct vf_net *n, uint64_t sk, uint64_t ts)
{
	uint64_t *v = hmap_get(&n->socks, sk);

	if (v && n->spans[*v - 1].t1 == SPAN_OPEN && ts >= n->spans[*v - 1].t0) {
		n->spans[*v - 1].t1 = ts;
		dirty_from(vf, ts + NET_JOIN_GRACE_NS);
	}
}

/*
 * A packet of the clause's (@ours) or another's at @skb, named at @ts: the
 * chain before it joins it (ours), and what comes after starts anew.
 */
static int chain_tie(struct viewfilter *vf, struct vf_net *n, uint64_t skb, uint64_t ts,
		     bool ours)
{
	struct net_chain *c = chain_get(n, skb);

	if (!c)
		return -ENOMEM;
	for (unsigned int i = 0; ours && i < c->n; i++) {
		if (c->ts[i] + NET_JOIN_SKB_NS < ts)
			continue;	/* too long before it to be the same packet */
		if (tie_add(n, skb, c->ts[i]))
			return -ENOMEM;
		dirty_from(vf, c->ts[i]);
	}
	c->n = 0;
	c->last = CHAIN_TIE;
	c->ours = ours;
	return 0;
}

/* A packet event (an skb, no ends) in @skb's chain. Return: 0, or -ENOMEM. */
static int chain_event(struct viewfilter *vf, struct vf_net *n, const struct ktop_event *ev,
		       uint64_t skb, uint8_t pkt)
{
	struct net_chain *c = chain_get(n, skb);
	bool go_on;

	if (!c)
		return -ENOMEM;
	switch (pkt) {
	case NET_PKT_XMIT:	/* a new transmission, but after its queueing */
		go_on = c->last == NET_PKT_OTHER;
		break;
	case NET_PKT_RECV:	/* a looped-back transmission, or another stage of it */
		go_on = c->last == NET_PKT_XMIT || c->last == NET_PKT_OTHER ||
			(c->last == NET_PKT_RECV && c->last_type != ev->type);
		break;
	case NET_PKT_FREE:	/* the end: of the packet just tied to the clause's? */
		if (c->last == CHAIN_TIE && c->ours) {
			if (tie_add(n, skb, ev->ts))
				return -ENOMEM;
			dirty_from(vf, ev->ts);
		}
		c->n = 0;
		c->last = NET_PKT_FREE;
		c->last_type = ev->type;
		c->ours = false;
		return 0;
	default:
		go_on = c->last != CHAIN_TIE && c->last != NET_PKT_FREE;
		break;
	}
	if (!go_on)
		c->n = 0;
	chain_push(c, ev->ts);
	c->last = pkt;
	c->last_type = ev->type;
	c->ours = false;
	return 0;
}

/* One event of the walk, for each net clause. Return: 0, or -ENOMEM. */
static int join_one(struct viewfilter *vf, const struct ktop_event *ev)
{
	struct net_ev_fields f;
	bool ends;

	if (!net_fields_read(vf->netf, ev->type, ev->args, ev->nargs, &f))
		return 0;
	ends = f.has & NET_F_ENDS;
	if (!ends && !(f.skb && f.pkt != NET_PKT_NONE))
		return 0;
	for (size_t i = 0; i < vf->nc; i++) {
		struct vf_net *n = vf->c[i].kind == VK_NET ? vf->c[i].net : NULL;
		bool match;
		int ret;

		if (!n)
			continue;
		if (!ends) {
			if (chain_event(vf, n, ev, f.skb, f.pkt))
				return -ENOMEM;
			continue;
		}
		match = ends_match(n, &f);
		if (f.skb && chain_tie(vf, n, f.skb, ev->ts, match))
			return -ENOMEM;
		if (!match) {
			/* the socket's address, now another's */
			if (f.sk)
				span_close(vf, n, f.sk, ev->ts);
			continue;
		}
		if (f.sk) {
			ret = span_open(n, f.sk, ev->ts);
			if (ret < 0)
				return ret;
			if (ret)
				dirty_from(vf, ev->ts);
			if (f.ends_life)
				span_close(vf, n, f.sk, ev->ts);
		}
	}
	return 0;
}

int vf_net_sync(struct viewfilter *vf, uint64_t t)
{
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t seq;
	int ret = 0;

	if (!vf->has_net)
		return 0;
	if (vf->feed_end && t > vf->feed_to) {
		/* asked again at most every VF_NET_FEED_ASK_NS (a match per event asks) */
		uint64_t now = clock_mono_ns();

		if (now - vf->feed_asked >= VF_NET_FEED_ASK_NS) {
			vf->feed_to = vf->feed_end(vf->feed_arg, VF_NET_LAG_NS);
			vf->feed_asked = now;
		}
		if (t > vf->feed_to)
			t = vf->feed_to;
	}
	if (!t || (vf->net_done && t < vf->net_done))
		return 0;
	it = store_iter_new(vf->st, vf->net_done, t, NULL);
	if (!it)
		return -ENOMEM;
	/* from the newest time walked: what shares it is told apart by seq */
	while (!ret && store_iter_next(it, &ev, &seq)) {
		if (ev.cpu >= vf->ncpus || seq < vf->net_next[ev.cpu])
			continue;
		vf->net_next[ev.cpu] = seq + 1;
		vf->net_done = ev.ts;
		if (net_fields_of(vf->netf, ev.type) & (NET_F_ENDS | NET_F_SKB))
			ret = join_one(vf, &ev);
	}
	store_iter_free(it);
	return ret;
}

void vf_net_reset(struct viewfilter *vf)
{
	for (size_t i = 0; i < vf->nc; i++) {
		struct vf_net *n = vf->c[i].kind == VK_NET ? vf->c[i].net : NULL;

		if (!n)
			continue;
		hmap_clear(&n->socks);
		hmap_clear(&n->skbs);
		hmap_clear(&n->chain_of);
		n->nspans = n->nties = n->nchains = 0;
	}
	if (vf->net_next)
		memset(vf->net_next, 0, vf->ncpus * sizeof(*vf->net_next));
	vf->net_done = 0;
	vf->net_dirty = UINT64_MAX;
}

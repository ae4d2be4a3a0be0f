// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network model (src/model/net.h): connection lifetimes and drops fed
 * from the store in time order, closed rows aged out, the row count bounded.
 *
 * Joins, from the cheapest to the loosest: a socket address (skaddr, sk,
 * rx_sk) names the open lifetime at that address (NET_GRACE_NS after its end
 * it still names the one just closed: tcp_destroy_sock and the last frees
 * come right after the -> CLOSE transition); a sock_cookie names the
 * lifetime that first carried it; addresses and ports name the open
 * connection with that local and remote end (a reset the local stack sent
 * without a socket), or the connect() in progress from that local address
 * (its port is known only once the SYN is answered); an skb address names the
 * row whose reset or retransmit named it last, on the same CPU, for
 * NET_SKB_TIE_NS and until the skb is freed (a dropped SYN answered by such a
 * reset: the reset and the drop come in one softirq, microseconds apart, 1.3
 * ms under the rt guests' emulation). Without consume_skb in the
 * trace (it fires for every packet) a freed skb is not seen, hence the time
 * bound; tcp_probe's skb (the incoming segment, consumed right after) is no
 * tie at all: its address is soon another packet's.
 *
 * A task's comm is followed in trace order (task_rename, sched_process_fork,
 * sched_switch, sched_wakeup, exec), so the name a row takes is the one the
 * task had at connect() or listen(); the store's comm table is the last name
 * decoded, whatever the order the CPUs were decoded in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kernel/symbols.h"
#include "lib/array.h"
#include "net-local.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"

#define NET_GRACE_NS		(1000ull * 1000000)	/* a closed row still takes events */
#define NET_SKB_TIE_NS		(10ull * 1000 * 1000)	/* an skb tie holds this long */
#define MSG_PEEK_FLAG		2

size_t net_max_conns_for(size_t memory)
{
	size_t n = memory / 8 / (sizeof(struct net_conn) + 96);

	return n < 1000 ? 1000 : n;
}

struct net *net_new(struct store *st, const struct net_config *cfg)
{
	struct net *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->st = st;
	n->sc = store_schema(st);
	n->strs = store_strings(st);
	if (cfg)
		n->cfg = *cfg;
	if (!n->cfg.max_conns)
		n->cfg.max_conns = NET_DEFAULT_MAX_CONNS;
	if (!n->cfg.keep_closed_ns)
		n->cfg.keep_closed_ns = NET_KEEP_CLOSED_NS;
	n->ncpus = store_ncpus(st);
	n->next = calloc(n->ncpus ? n->ncpus : 1, sizeof(*n->next));
	n->skb_ties = calloc(NET_SKB_TIES, sizeof(*n->skb_ties));
	if (!n->next || !n->skb_ties) {
		free(n->next);
		free(n->skb_ties);
		free(n);
		return NULL;
	}
	return n;
}

static void maps_destroy(struct net *n)
{
	hmap_destroy(&n->by_id);
	hmap_destroy(&n->live);
	hmap_destroy(&n->recent);
	hmap_destroy(&n->gens);
	hmap_destroy(&n->cookies);
	hmap_destroy(&n->tuples);
	hmap_destroy(&n->listeners);
	hmap_destroy(&n->pending);
	hmap_destroy(&n->skb_idx);
	hmap_destroy(&n->comms);
	hmap_destroy(&n->drop_idx);
}

void net_free(struct net *n)
{
	if (!n)
		return;
	maps_destroy(n);
	net_set_symbols(n, NULL, false);
	net_symtab_free(&n->drop_reasons);
	net_symtab_free(&n->rst_reasons);
	net_symtab_free(&n->states);
	free(n->tm);
	free(n->c);
	free(n->closed_q);
	free(n->skb_ties);
	free(n->d);
	free(n->next);
	free(n);
}

void net_reset(struct net *n)
{
	maps_destroy(n);
	n->nc = n->nd = 0;
	n->nclosed = n->nlisten = 0;
	n->cq_lo = n->cq_hi = 0;
	n->skb_next = 0;
	memset(n->skb_ties, 0, NET_SKB_TIES * sizeof(*n->skb_ties));
	memset(n->next, 0, (n->ncpus ? n->ncpus : 1) * sizeof(*n->next));
	n->t_done = n->t_first = n->t_newest = n->tick_ts = 0;
	n->ticked = false;
	memset(&n->tot, 0, sizeof(n->tot));
	n->gen++;
}

void net_set_keep(struct net *n, bool (*keep)(void *arg, const struct ktop_event *ev),
		  void *arg)
{
	n->keep = keep;
	n->keep_arg = arg;
	net_reset(n);
}

int net_load_format(struct net *n, const char *system, const char *name, const char *text)
{
	int ret = 0;

	if (!strcmp(system, "skb") && !strcmp(name, "kfree_skb")) {
		n->have[NK_KFREE_SKB] = true;
		ret = net_symtab_parse(text, "reason", &n->drop_reasons);
	} else if (!strcmp(system, "tcp") && !strcmp(name, "tcp_send_reset")) {
		n->have[NK_SEND_RESET] = true;
		ret = net_symtab_parse(text, "reason", &n->rst_reasons);
	} else if (!strcmp(system, "sock") && !strcmp(name, "inet_sock_set_state")) {
		n->have[NK_STATE] = true;
		ret = net_symtab_parse(text, "newstate", &n->states);
	} else if (!strcmp(system, "sock") && !strcmp(name, "sock_send_length")) {
		n->have[NK_SEND_LEN] = true;
	} else if (!strcmp(system, "sock") && !strcmp(name, "sock_recv_length")) {
		n->have[NK_RECV_LEN] = true;
	} else if (!strcmp(system, "tcp") && !strcmp(name, "tcp_probe")) {
		n->have[NK_PROBE] = true;
	}
	n->gen++;
	return ret < 0 ? ret : 0;
}

void net_set_symbols(struct net *n, struct symbols *syms, bool own)
{
	if (n->own_syms)
		symbols_free(n->syms);
	n->syms = syms;
	n->own_syms = own;
}

bool net_location_needs_symbols(const char *kfree_skb)
{
	const char *p = kfree_skb ? strstr(kfree_skb, "print fmt:") : NULL;

	return p && strstr(p, "location=%p") && !strstr(p, "location=%pS") &&
	       !strstr(p, "location=%pB");
}

const char *net_drop_reason_name(const struct net *n, int64_t v)
{
	return net_symtab_find(&n->drop_reasons, v);
}

/* ---- reading fields --------------------------------------------------------------- */

static const struct net_tmap *tmap_of(struct net *n, uint16_t type)
{
	static const struct net_tmap none = { .kind = NK_NONE };

	if (type >= n->ntm) {
		size_t cap = n->ntm, need = (size_t)type + 1;
		struct net_tmap *tm = n->tm;

		if (array_grow((void **)&tm, &cap, need, sizeof(*tm)))
			return &none;
		memset(&tm[n->ntm], 0, (cap - n->ntm) * sizeof(*tm));
		n->tm = tm;
		n->ntm = cap;
	}
	if (n->tm[type].kind == NK_UNKNOWN) {
		/* a type the schema does not know yet is asked again next time */
		if (!schema_get(n->sc, type))
			return &none;
		net_tmap_resolve(n->sc, type, false, &n->tm[type]);
		n->have[n->tm[type].kind] = true;
	}
	return &n->tm[type];
}

static bool process_ctx(const struct ktop_event *ev)
{
	return !(ev->flags & (KTOP_KF_HARDIRQ | KTOP_KF_SOFTIRQ | KTOP_KF_NMI));
}

/* ---- rows ------------------------------------------------------------------------- */

static struct net_conn *by_id(const struct net *n, uint64_t id)
{
	uint64_t *v = id ? hmap_get(&n->by_id, id) : NULL;

	return v ? &n->c[*v] : NULL;
}

static struct net_conn *live_of(const struct net *n, uint64_t sk)
{
	uint64_t *v = sk ? hmap_get(&n->live, sk) : NULL;

	return v ? by_id(n, *v) : NULL;
}

/* The open lifetime at @sk, or the one closed there just before @ts. */
static struct net_conn *sock_of(const struct net *n, uint64_t sk, uint64_t ts)
{
	struct net_conn *c = live_of(n, sk);
	uint64_t *v;

	if (c || !sk)
		return c;
	v = hmap_get(&n->recent, sk);
	c = v ? by_id(n, *v) : NULL;
	return c && c->t_close + NET_GRACE_NS >= ts ? c : NULL;
}

static struct net_conn *tuple_of(const struct net *n, const struct net_endpoint *local,
				 const struct net_endpoint *remote)
{
	uint64_t *v = hmap_get(&n->tuples, net_tuple_hash(local, remote));

	if (!v)
		v = hmap_get(&n->pending, net_pending_hash(local, remote));
	return v ? by_id(n, *v) : NULL;
}

static struct net_conn *conn_new(struct net *n, uint64_t sk, uint64_t ts)
{
	struct net_conn *c;
	uint64_t *g;

	if (n->nc == n->cap && array_grow((void **)&n->c, &n->cap, n->nc + 1, sizeof(*n->c)))
		return NULL;
	g = hmap_put(&n->gens, sk, NULL);
	if (!g)
		return NULL;
	c = &n->c[n->nc];
	memset(c, 0, sizeof(*c));
	c->id = ++n->next_id;
	c->skaddr = sk;
	c->gen = (uint32_t)++*g;
	c->pid = -1;
	c->rst_reason = c->peer_reason = c->drop_reason = -1;
	c->t_open = c->t_last = ts;
	c->proto = 6;
	if (hmap_set(&n->by_id, c->id, n->nc) || hmap_set(&n->live, sk, c->id)) {
		hmap_del(&n->by_id, c->id, NULL);
		return NULL;
	}
	n->nc++;
	return c;
}

static void tuple_unset(struct net *n, const struct net_conn *c)
{
	uint64_t k = net_tuple_hash(&c->local, &c->remote), *v = hmap_get(&n->tuples, k);

	if (v && *v == c->id)
		hmap_del(&n->tuples, k, NULL);
	k = net_local_hash(&c->local);
	v = hmap_get(&n->listeners, k);
	if (v && *v == c->id)
		hmap_del(&n->listeners, k, NULL);
	k = net_pending_hash(&c->local, &c->remote);
	v = hmap_get(&n->pending, k);
	if (v && *v == c->id)
		hmap_del(&n->pending, k, NULL);
}

static void tuple_set(struct net *n, struct net_conn *c)
{
	if (c->closed)
		return;
	if (c->listener) {
		hmap_set(&n->listeners, net_local_hash(&c->local), c->id);
		return;
	}
	if (c->local.port && c->remote.port)
		hmap_set(&n->tuples, net_tuple_hash(&c->local, &c->remote), c->id);
	else if (c->remote.port && c->state == NET_TCP_SYN_SENT)
		hmap_set(&n->pending, net_pending_hash(&c->local, &c->remote), c->id);
}

/* Take what @s and @d tell of the ends: ports when known, addresses when set. */
static void ends_take(struct net *n, struct net_conn *c, const struct net_endpoint *s,
		      const struct net_endpoint *d)
{
	bool first = !c->local.family;

	tuple_unset(n, c);
	if (first || !zero16(s->addr)) {
		c->local.family = s->family;
		memcpy(c->local.addr, s->addr, 16);
	}
	if (first || !zero16(d->addr)) {
		c->remote.family = d->family;
		memcpy(c->remote.addr, d->addr, 16);
	}
	if (s->port)
		c->local.port = s->port;
	if (d->port)
		c->remote.port = d->port;
	tuple_set(n, c);
}

static void conn_close(struct net *n, struct net_conn *c, uint64_t ts)
{
	uint64_t *v = hmap_get(&n->live, c->skaddr);

	if (c->closed)
		return;
	tuple_unset(n, c);
	if (v && *v == c->id)
		hmap_del(&n->live, c->skaddr, NULL);
	hmap_set(&n->recent, c->skaddr, c->id);
	c->closed = true;
	c->t_close = ts;
	n->nclosed++;
	n->nlisten -= c->listener;
	if (!array_fifo_room((void **)&n->closed_q, &n->cq_lo, &n->cq_hi, &n->cq_cap,
			     sizeof(*n->closed_q)))
		n->closed_q[n->cq_hi++] = c->id;
}

static void conn_remove(struct net *n, size_t slot)
{
	struct net_conn *c = &n->c[slot];
	uint64_t *v;

	tuple_unset(n, c);
	v = hmap_get(&n->live, c->skaddr);
	if (v && *v == c->id)
		hmap_del(&n->live, c->skaddr, NULL);
	v = hmap_get(&n->recent, c->skaddr);
	if (v && *v == c->id)
		hmap_del(&n->recent, c->skaddr, NULL);
	v = c->cookie ? hmap_get(&n->cookies, c->cookie) : NULL;
	if (v && *v == c->id)
		hmap_del(&n->cookies, c->cookie, NULL);
	hmap_del(&n->by_id, c->id, NULL);
	if (c->closed)
		n->nclosed--;
	else
		n->nlisten -= c->listener;
	if (slot != n->nc - 1) {
		*c = n->c[n->nc - 1];
		hmap_set(&n->by_id, c->id, slot);
	}
	n->nc--;
}

static void set_owner(struct net *n, struct net_conn *c, int32_t pid, bool weak)
{
	uint64_t *v = hmap_get(&n->comms, (uint32_t)pid);

	c->pid = pid;
	c->comm = v ? intern_str(n->strs, (uint32_t)*v) : store_comm(n->st, pid);
	c->owner_weak = weak;
}

/* A process-context event on @c: its task owns the socket when none is known for sure. */
static void owner_seen(struct net *n, struct net_conn *c, const struct ktop_event *ev)
{
	if (process_ctx(ev) && ev->pid > 0 && (c->pid < 0 || c->owner_weak))
		set_owner(n, c, ev->pid, false);
}

static void trans_add(struct net_conn *c, uint8_t from, uint8_t to, uint64_t ts)
{
	unsigned int i = c->ntrans < NET_MAX_TRANS ? c->ntrans : NET_MAX_TRANS - 1;

	c->trans[i] = (struct net_trans){ .from = from, .to = to, .ts = ts };
	if (c->ntrans < UINT8_MAX)
		c->ntrans++;
}

static void cookie_take(struct net *n, struct net_conn *c, uint64_t cookie)
{
	if (!cookie || c->cookie)
		return;
	c->cookie = cookie;
	hmap_set(&n->cookies, cookie, c->id);
}

/*
 * The row of @sk for an event that names a socket in the middle of its life:
 * a cookie other than its row's means another socket at the same address
 * (the end was missed); none at all, a socket opened before the trace.
 */
static struct net_conn *conn_of_sock(struct net *n, uint64_t sk, uint64_t cookie,
				     const struct ktop_event *ev, bool create)
{
	struct net_conn *c = live_of(n, sk);

	if (c && cookie && c->cookie && c->cookie != cookie) {
		conn_close(n, c, ev->ts);
		c = NULL;
	}
	if (!c && cookie) {
		uint64_t *v = hmap_get(&n->cookies, cookie);

		c = v ? by_id(n, *v) : NULL;
		if (c && c->closed && c->t_close + NET_GRACE_NS < ev->ts)
			c = NULL;
	}
	if (!c && sk)
		c = sock_of(n, sk, ev->ts);
	if (!c && sk && create)
		c = conn_new(n, sk, ev->ts);
	return c;
}

static void skb_tie(struct net *n, uint64_t skb, const struct net_conn *c,
		    const struct ktop_event *ev)
{
	struct net_skb_tie *t;
	uint64_t *v;

	if (!skb)
		return;
	t = &n->skb_ties[n->skb_next % NET_SKB_TIES];
	v = t->skb ? hmap_get(&n->skb_idx, t->skb) : NULL;
	if (v && *v == n->skb_next % NET_SKB_TIES)
		hmap_del(&n->skb_idx, t->skb, NULL);	/* the oldest tie goes */
	*t = (struct net_skb_tie){ .skb = skb, .id = c->id, .ts = ev->ts, .cpu = ev->cpu };
	hmap_set(&n->skb_idx, skb, n->skb_next % NET_SKB_TIES);
	n->skb_next++;
}

/* The row that named @skb on @ev's CPU within NET_SKB_TIE_NS before it; the tie goes. */
static struct net_conn *skb_untie(struct net *n, uint64_t skb, const struct ktop_event *ev)
{
	uint64_t ts = ev->ts;
	uint64_t *v = skb ? hmap_get(&n->skb_idx, skb) : NULL;
	struct net_skb_tie *t;
	struct net_conn *c;

	if (!v)
		return NULL;
	t = &n->skb_ties[*v];
	hmap_del(&n->skb_idx, skb, NULL);
	if (t->skb != skb || t->cpu != ev->cpu || t->ts + NET_SKB_TIE_NS < ts)
		return NULL;
	c = by_id(n, t->id);
	t->skb = 0;
	return c && (!c->closed || c->t_close + NET_GRACE_NS >= ts) ? c : NULL;
}

/* ---- events ----------------------------------------------------------------------- */

static struct net_conn *listener_of(struct net *n, const struct net_endpoint *local)
{
	struct net_endpoint any = { .family = local->family, .port = local->port };
	uint64_t *v = hmap_get(&n->listeners, net_local_hash(local));

	if (!v)
		v = hmap_get(&n->listeners, net_local_hash(&any));
	if (!v && local->family == AF_INET) {
		any.family = AF_INET6;	/* a dual-stack listener on :: */
		v = hmap_get(&n->listeners, net_local_hash(&any));
	}
	return v ? by_id(n, *v) : NULL;
}

static int on_state(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	uint64_t sk = arg(t, NF_SK, ev);
	uint8_t from = (uint8_t)arg(t, NF_OLDSTATE, ev), to = (uint8_t)arg(t, NF_NEWSTATE, ev);
	bool begin = (from == NET_TCP_CLOSE && to != NET_TCP_CLOSE) ||
		     (from == NET_TCP_LISTEN && to == NET_TCP_SYN_RECV);
	struct net_endpoint s, d;
	struct net_conn *c = live_of(n, sk);

	if (!sk)
		return 0;
	if (c && begin) {
		conn_close(n, c, ev->ts);	/* its end was missed */
		c = NULL;
	}
	if (!c) {
		if (to == NET_TCP_CLOSE && !begin && sock_of(n, sk, ev->ts))
			return 0;	/* a second -> CLOSE of one just closed */
		c = conn_new(n, sk, ev->ts);
		if (!c)
			return -ENOMEM;
		c->seen_open = begin;
		c->state = begin ? NET_TCP_CLOSE : from;
		n->tot.opened += begin;
	}
	if (has(t, NF_PROTO, ev))
		c->proto = (uint16_t)arg(t, NF_PROTO, ev);
	if (to == NET_TCP_LISTEN && !c->listener) {
		c->listener = true;
		n->nlisten++;
	}
	trans_add(c, from, to, ev->ts);
	c->state = to;
	if (net_ev_ends(n->strs, t, ev, &s, &d))
		ends_take(n, c, &s, &d);
	if ((to == NET_TCP_SYN_SENT || to == NET_TCP_LISTEN) && process_ctx(ev) && ev->pid > 0) {
		set_owner(n, c, ev->pid, false);
	} else if (from == NET_TCP_LISTEN && to == NET_TCP_SYN_RECV) {
		struct net_conn *l = listener_of(n, &c->local);

		if (l && l->pid >= 0)
			set_owner(n, c, l->pid, true);
	} else {
		owner_seen(n, c, ev);
	}
	if (to == NET_TCP_CLOSE)
		conn_close(n, c, ev->ts);
	c->t_last = ev->ts;
	return 0;
}

static int on_retrans(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	struct net_conn *c = conn_of_sock(n, arg(t, NF_SK, ev), 0, ev, true);
	struct net_endpoint s, d;

	n->tot.retransmits++;
	if (!c)
		return 0;
	if (!c->local.family && net_ev_ends(n->strs, t, ev, &s, &d)) {
		ends_take(n, c, &s, &d);
		if (has(t, NF_STATE, ev))
			c->state = (uint8_t)arg(t, NF_STATE, ev);
	}
	c->retrans++;
	c->t_last = ev->ts;
	skb_tie(n, arg(t, NF_SKB, ev), c, ev);
	return 0;
}

static int on_send_reset(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	int64_t reason = has(t, NF_REASON, ev) ? (int64_t)(uint32_t)arg(t, NF_REASON, ev) : -1;
	struct net_conn *c = live_of(n, arg(t, NF_SK, ev));
	struct net_endpoint s, d;

	n->tot.resets++;
	if (c) {
		c->rst_sent++;
		if (reason >= 0)
			c->rst_reason = reason;
	} else if (net_ev_ends(n->strs, t, ev, &s, &d)) {
		/* no full socket: the reset answers a packet from @d to @s */
		c = tuple_of(n, &d, &s);
		if (c && reason >= 0)
			c->peer_reason = reason;
	}
	if (!c)
		return 0;
	c->t_last = ev->ts;
	skb_tie(n, arg(t, NF_SKB, ev), c, ev);
	return 0;
}

static int on_recv_reset(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	struct net_conn *c = conn_of_sock(n, arg(t, NF_SK, ev), arg(t, NF_COOKIE, ev), ev, false);

	n->tot.resets++;
	if (!c)
		return 0;
	cookie_take(n, c, arg(t, NF_COOKIE, ev));
	c->rst_received++;
	c->t_last = ev->ts;
	return 0;
}

static int on_destroy(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	struct net_conn *c = sock_of(n, arg(t, NF_SK, ev), ev->ts);

	if (!c)
		return 0;
	cookie_take(n, c, arg(t, NF_COOKIE, ev));
	if (!c->closed)
		conn_close(n, c, ev->ts);
	return 0;
}

static int on_probe(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	uint64_t cookie = arg(t, NF_COOKIE, ev), sk = arg(t, NF_SK, ev);
	struct net_conn *c = conn_of_sock(n, sk, cookie, ev, false);
	struct net_endpoint s, d;
	bool ends = net_ev_ends(n->strs, t, ev, &s, &d);
	uint32_t una;

	if (!c && ends)
		c = tuple_of(n, &s, &d);
	if (!c && sk) {
		c = conn_new(n, sk, ev->ts);	/* opened before the trace */
		if (!c)
			return -ENOMEM;
		c->state = NET_TCP_ESTABLISHED;
	}
	if (!c)
		return 0;
	if (!c->local.family && ends)
		ends_take(n, c, &s, &d);
	cookie_take(n, c, cookie);
	c->probed = true;
	c->srtt_us = (uint32_t)arg(t, NF_SRTT, ev);
	c->cwnd = (uint32_t)arg(t, NF_CWND, ev);
	c->ssthresh = (uint32_t)arg(t, NF_SSTHRESH, ev);
	c->probe_rx += (uint16_t)arg(t, NF_DATA_LEN, ev);
	if (has(t, NF_SND_UNA, ev)) {
		una = (uint32_t)arg(t, NF_SND_UNA, ev);
		if (c->una_known && (int32_t)(una - c->una) > 0)
			c->probe_tx += una - c->una;
		c->una = una;
		c->una_known = true;
	}
	/*
	 * Its skb is no tie: the incoming segment, freed (consumed, untraced) right
	 * after, and its address soon another packet's.
	 */
	c->t_last = ev->ts;
	return 0;
}

static int on_length(struct net *n, const struct net_tmap *t, const struct ktop_event *ev,
		     bool send)
{
	int64_t ret = (int32_t)(uint32_t)arg(t, NF_RET, ev);
	uint64_t fam = arg(t, NF_FAMILY, ev);
	struct net_conn *c;

	if (fam != AF_INET && fam != AF_INET6)
		return 1;	/* not an inet socket: not ours */
	if (ret <= 0 || (!send && (arg(t, NF_FLAGS, ev) & MSG_PEEK_FLAG)))
		return 0;
	c = sock_of(n, arg(t, NF_SK, ev), ev->ts);
	if (!c) {
		n->tot.bytes_untied += (uint64_t)ret;
		return 0;
	}
	if (send)
		c->sent += (uint64_t)ret;
	else
		c->received += (uint64_t)ret;
	owner_seen(n, c, ev);
	c->t_last = ev->ts;
	return 0;
}

static uint32_t drop_loc(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	uint64_t addr, off = 0;
	const char *name;
	char buf[160];
	int len;

	if (!has(t, NF_LOCATION, ev))
		return 0;
	if (t->fk[NF_LOCATION] == KTOP_FK_SYM || t->fk[NF_LOCATION] == KTOP_FK_STR)
		return (uint32_t)arg(t, NF_LOCATION, ev);
	addr = arg(t, NF_LOCATION, ev);
	name = n->syms ? symbols_lookup(n->syms, addr, &off) : NULL;
	if (name && off)
		len = snprintf(buf, sizeof(buf), "%s+0x%llx", name, (unsigned long long)off);
	else if (name)
		len = snprintf(buf, sizeof(buf), "%s", name);
	else
		len = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	if (len < 0 || (size_t)len >= sizeof(buf))
		len = (int)sizeof(buf) - 1;
	return intern_id(n->strs, buf, (size_t)len);
}

static int on_kfree_skb(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	int64_t reason = has(t, NF_REASON, ev) ? (int64_t)(uint32_t)arg(t, NF_REASON, ev) : -1;
	uint64_t skb = arg(t, NF_SKB, ev), rx = arg(t, NF_RX_SK, ev), key, *v;
	uint32_t loc = drop_loc(n, t, ev);
	struct net_conn *c = rx ? sock_of(n, rx, ev->ts) : NULL;
	struct net_drop *d;
	bool added;

	if (loc == UINT32_MAX)
		loc = 0;
	if (c)
		skb_untie(n, skb, ev);	/* freed: the address is free again */
	else
		c = skb_untie(n, skb, ev);
	key = (uint64_t)(uint32_t)reason << 32 | loc;
	v = hmap_put(&n->drop_idx, key, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		if (n->nd == n->dcap &&
		    array_grow((void **)&n->d, &n->dcap, n->nd + 1, sizeof(*n->d))) {
			hmap_del(&n->drop_idx, key, NULL);
			return -ENOMEM;
		}
		*v = n->nd;
		d = &n->d[n->nd++];
		memset(d, 0, sizeof(*d));
		d->reason = reason;
		d->loc = loc;
		d->first_ts = ev->ts;
	}
	d = &n->d[*v];
	d->count++;
	d->last_ts = ev->ts;
	n->tot.drops++;
	if (c) {
		c->drops++;
		c->drop_reason = reason;
		c->t_last = ev->ts;
		d->conns++;
		n->tot.drops_tied++;
	}
	return 0;
}

static void comm_set(struct net *n, int64_t pid, uint64_t id)
{
	if (pid > 0 && id)
		hmap_set(&n->comms, (uint32_t)pid, id);
}

/* Follow the tasks' names in trace order (every event, kept by a view or not). */
static void comm_track(struct net *n, const struct net_tmap *t, const struct ktop_event *ev)
{
	const char *f, *b;

	switch (ev->type) {
	case KTOP_T_SCHED_SWITCH:
		comm_set(n, (int32_t)ev->args[1], ev->args[0]);
		comm_set(n, (int32_t)ev->args[5], ev->args[4]);
		return;
	case KTOP_T_SCHED_WAKEUP:
	case KTOP_T_SCHED_WAKEUP_NEW:
		comm_set(n, (int32_t)ev->args[1], ev->args[0]);
		return;
	case KTOP_T_SCHED_PROCESS_EXEC:
		/* the file's name, until a task_rename says otherwise */
		f = intern_str(n->strs, (uint32_t)ev->args[0]);
		b = strrchr(f, '/');
		b = b ? b + 1 : f;
		if (*b)
			comm_set(n, (int32_t)ev->args[1],
				 intern_id(n->strs, b, strnlen(b, 15)));
		return;
	default:
		break;
	}
	if ((t->kind == NK_RENAME || t->kind == NK_FORK) && t->fk[NF_COMM] == KTOP_FK_STR)
		comm_set(n, (int32_t)arg(t, NF_PID, ev), arg(t, NF_COMM, ev));
}

static int feed(struct net *n, const struct ktop_event *ev, bool kept)
{
	const struct net_tmap *t = tmap_of(n, ev->type);
	int ret;

	comm_track(n, t, ev);
	if (!kept)
		return 0;
	switch (t->kind) {
	case NK_STATE:
		ret = on_state(n, t, ev);
		break;
	case NK_RETRANS:
		ret = on_retrans(n, t, ev);
		break;
	case NK_SEND_RESET:
		ret = on_send_reset(n, t, ev);
		break;
	case NK_RECV_RESET:
		ret = on_recv_reset(n, t, ev);
		break;
	case NK_DESTROY:
		ret = on_destroy(n, t, ev);
		break;
	case NK_PROBE:
		ret = on_probe(n, t, ev);
		break;
	case NK_SEND_LEN:
	case NK_RECV_LEN:
		ret = on_length(n, t, ev, t->kind == NK_SEND_LEN);
		break;
	case NK_KFREE_SKB:
		ret = on_kfree_skb(n, t, ev);
		break;
	default:
		return 0;
	}
	if (ret > 0)
		return 0;	/* not a network event after all */
	n->tot.events++;
	n->gen++;
	if (ev->ts > n->t_newest)
		n->t_newest = ev->ts;
	if (!n->t_first || ev->ts < n->t_first)
		n->t_first = ev->ts;
	return ret;
}

int net_feed(struct net *n, const struct ktop_event *ev)
{
	return feed(n, ev, true);
}

/* ---- aging ------------------------------------------------------------------------ */

struct age_key {
	uint64_t	ts, id;
};

static int age_cmp(const void *a, const void *b)
{
	const struct age_key *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Drop the open rows idle longest until @want rows are left. */
static void evict_open(struct net *n, size_t want)
{
	struct age_key *k = malloc(n->nc * sizeof(*k));
	size_t m = 0;

	if (!k)
		return;
	for (size_t i = 0; i < n->nc; i++)
		k[m++] = (struct age_key){ n->c[i].t_last, n->c[i].id };
	qsort(k, m, sizeof(*k), age_cmp);
	for (size_t i = 0; i < m && n->nc > want; i++) {
		uint64_t *v = hmap_get(&n->by_id, k[i].id);

		if (v) {
			conn_remove(n, *v);
			n->tot.bounded_out++;
		}
	}
	free(k);
}

static void age(struct net *n)
{
	while (n->cq_lo < n->cq_hi) {
		uint64_t id = n->closed_q[n->cq_lo], *v = hmap_get(&n->by_id, id);
		struct net_conn *c = v ? &n->c[*v] : NULL;
		bool over = n->nc > n->cfg.max_conns;

		if (c && !over && c->t_close + n->cfg.keep_closed_ns > n->t_newest)
			break;
		n->cq_lo++;
		if (!c)
			continue;
		conn_remove(n, *v);
		if (over)
			n->tot.bounded_out++;
		else
			n->tot.aged_out++;
		n->gen++;
	}
	if (n->cq_lo == n->cq_hi)
		n->cq_lo = n->cq_hi = 0;
	if (n->nc > n->cfg.max_conns) {
		/* room for a sixteenth more, so that this scan is rare */
		evict_open(n, n->cfg.max_conns - n->cfg.max_conns / 16);
		n->gen++;
	}
}

int64_t net_update(struct net *n, uint64_t t_end)
{
	struct store_iter *it;
	struct ktop_event ev;
	int64_t cnt = 0;
	uint64_t seq;
	int ret = 0;

	if (t_end < n->t_done)
		return 0;
	it = store_iter_new(n->st, n->t_done, t_end, NULL);
	if (!it)
		return -ENOMEM;
	/* from the newest time read: what shares it is told apart by seq */
	while (store_iter_next(it, &ev, &seq)) {
		if (ev.cpu >= n->ncpus || seq < n->next[ev.cpu])
			continue;
		n->next[ev.cpu] = seq + 1;
		n->t_done = ev.ts;
		cnt++;
		ret = feed(n, &ev, !n->keep || n->keep(n->keep_arg, &ev));
		if (ret)
			break;
	}
	store_iter_free(it);
	age(n);
	return ret ? ret : cnt;
}

void net_tick(struct net *n, uint64_t ts)
{
	uint64_t from = n->ticked ? n->tick_ts : n->t_first;
	double dt = ts > from ? (double)(ts - from) / 1e9 : 0;

	for (size_t i = 0; i < n->nc; i++) {
		struct net_conn *c = &n->c[i];

		c->rate_sent = dt > 0 ? (double)(c->sent - c->sent0) / dt : 0;
		c->rate_received = dt > 0 ? (double)(c->received - c->received0) / dt : 0;
		c->sent0 = c->sent;
		c->received0 = c->received;
	}
	for (size_t i = 0; i < n->nd; i++) {
		struct net_drop *d = &n->d[i];

		d->rate = dt > 0 ? (double)(d->count - d->count0) / dt : 0;
		d->count0 = d->count;
	}
	n->tick_ts = ts;
	n->ticked = true;
	n->gen++;
}

uint64_t net_gen(const struct net *n)
{
	return n->gen;
}

void net_totals(const struct net *n, struct net_totals *out)
{
	*out = n->tot;
	out->conns = n->nc;
	out->closed = n->nclosed;
	out->listeners = n->nlisten;
	out->open = n->nc - n->nclosed;
	out->t_first = n->t_first;
	out->t_newest = n->t_newest;
	out->have_state = n->have[NK_STATE];
	out->have_drops = n->have[NK_KFREE_SKB];
	out->have_probe = n->have[NK_PROBE];
	out->bytes_src = n->have[NK_SEND_LEN] || n->have[NK_RECV_LEN] ? NET_BYTES_SOCK :
			 n->have[NK_PROBE] ? NET_BYTES_PROBE : NET_BYTES_NONE;
}

int net_conn_get(const struct net *n, uint64_t id, struct net_conn_row *out)
{
	const struct net_conn *c = by_id(n, id);

	if (!c)
		return -ENOENT;
	net_row_fill(n, c, out);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One event's network fields (src/model/net.h): the ends, the socket and the
 * skb of any event type, found by field name in its schema (net_format.c), so
 * that a view filter or a join reads tcp, sock, skb and net events of every
 * kernel alike.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "net-local.h"
#include "store/schema.h"
#include "store/store.h"

struct net_tinfo {
	bool		known;
	uint8_t		pkt;		/* enum net_pkt_kind */
	unsigned int	has;
	struct net_tmap	tm;
};

struct net_fields {
	struct store		*st;
	struct net_tinfo	*t;
	size_t			nt;
};

struct net_fields *net_fields_new(struct store *st)
{
	struct net_fields *nf = calloc(1, sizeof(*nf));

	if (nf)
		nf->st = st;
	return nf;
}

void net_fields_free(struct net_fields *nf)
{
	if (!nf)
		return;
	free(nf->t);
	free(nf);
}

/* What an skb event without ends is in a packet's life, by its name. */
static uint8_t pkt_kind(const struct ktop_schema_type *t)
{
	static const struct { const char *sys, *name; uint8_t kind; } k[] = {
		{ "net", "net_dev_xmit", NET_PKT_XMIT },
		{ "net", "netif_receive_skb", NET_PKT_RECV },
		{ "net", "netif_rx", NET_PKT_RECV },
		{ "net", "napi_gro_receive_entry", NET_PKT_RECV },
		{ "net", "netif_receive_skb_entry", NET_PKT_RECV },
		{ "skb", "kfree_skb", NET_PKT_FREE },
		{ "skb", "consume_skb", NET_PKT_FREE },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(t->system, k[i].sys) && !strcmp(t->name, k[i].name))
			return k[i].kind;
	return NET_PKT_OTHER;
}

static const struct net_tinfo *tinfo(struct net_fields *nf, uint16_t type)
{
	static const struct net_tinfo none;
	struct net_tinfo *ti;

	if (type >= nf->nt) {
		size_t cap = nf->nt;
		struct net_tinfo *t = nf->t;

		if (array_grow((void **)&t, &cap, (size_t)type + 1, sizeof(*t)))
			return &none;
		memset(&t[nf->nt], 0, (cap - nf->nt) * sizeof(*t));
		nf->t = t;
		nf->nt = cap;
	}
	ti = &nf->t[type];
	if (!ti->known) {
		if (!schema_get(store_schema(nf->st), type))
			return &none;	/* not registered yet: asked again next time */
		net_tmap_resolve(store_schema(nf->st), type, true, &ti->tm);
		/* kfree_skb's rx_sk is a socket to join on; its skb too */
		ti->has = 0;
		if (ti->tm.slot[NF_SADDR] >= 0 || ti->tm.slot[NF_SADDR6] >= 0)
			ti->has |= NET_F_ENDS;
		if (ti->tm.slot[NF_SK] >= 0 || ti->tm.slot[NF_RX_SK] >= 0)
			ti->has |= NET_F_SK;
		if (ti->tm.slot[NF_SKB] >= 0)
			ti->has |= NET_F_SKB;
		if ((ti->has & (NET_F_ENDS | NET_F_SKB)) == NET_F_SKB)
			ti->pkt = pkt_kind(schema_get(store_schema(nf->st), type));
		ti->known = true;
	}
	return ti;
}

unsigned int net_fields_of(struct net_fields *nf, uint16_t type)
{
	return tinfo(nf, type)->has;
}

unsigned int net_fields_read(struct net_fields *nf, uint16_t type, const uint64_t *args,
			     unsigned int nargs, struct net_ev_fields *out)
{
	const struct net_tinfo *ti = tinfo(nf, type);
	struct ktop_event ev;

	if (!ti->has)
		return 0;
	memset(out, 0, sizeof(*out));
	ev.type = type;
	ev.nargs = (uint8_t)(nargs < KTOP_MAX_ARGS ? nargs : KTOP_MAX_ARGS);
	memcpy(ev.args, args, ev.nargs * sizeof(*args));
	if ((ti->has & NET_F_ENDS) &&
	    net_ev_ends(store_strings(nf->st), &ti->tm, &ev, &out->a, &out->b))
		out->has |= NET_F_ENDS;
	out->sk = arg(&ti->tm, NF_SK, &ev);
	if (!out->sk)
		out->sk = arg(&ti->tm, NF_RX_SK, &ev);
	out->skb = arg(&ti->tm, NF_SKB, &ev);
	out->has |= (out->sk ? NET_F_SK : 0) | (out->skb ? NET_F_SKB : 0);
	out->pkt = ti->pkt;
	out->ends_life = ti->tm.kind == NK_DESTROY ||
			 (ti->tm.kind == NK_STATE && arg(&ti->tm, NF_NEWSTATE, &ev) == NET_TCP_CLOSE);
	return out->has;
}

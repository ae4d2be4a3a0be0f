/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network model's private types: src/model/net.c (feeding, lifetimes,
 * aging), src/model/net_format.c (the events' fields by name, the formats'
 * symbol tables), src/model/net_rows.c (rows, sorting, names, addresses).
 * Nothing else includes this.
 */
#ifndef KTOP_NET_LOCAL_H
#define KTOP_NET_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hashmap.h"
#include "net.h"
#include "store/event.h"

struct schema;
struct intern;

/* What an event is to the model. */
enum net_kind {
	NK_UNKNOWN = 0,		/* not resolved yet */
	NK_NONE,		/* not a network event */
	NK_STATE,		/* sock:inet_sock_set_state */
	NK_RETRANS,		/* tcp:tcp_retransmit_skb */
	NK_SEND_RESET,		/* tcp:tcp_send_reset */
	NK_RECV_RESET,		/* tcp:tcp_receive_reset */
	NK_DESTROY,		/* tcp:tcp_destroy_sock */
	NK_PROBE,		/* tcp:tcp_probe */
	NK_SEND_LEN,		/* sock:sock_send_length */
	NK_RECV_LEN,		/* sock:sock_recv_length */
	NK_KFREE_SKB,		/* skb:kfree_skb */
	NK_RENAME,		/* task:task_rename: a task's comm (pid, newcomm) */
	NK_FORK,		/* sched:sched_process_fork (child_pid, child_comm) */
	NK_NR,
};

/* The fields the model reads, found by name in each type's schema. */
enum net_field {
	NF_SK,		/* skaddr, or sk */
	NF_SKB,		/* skbaddr */
	NF_RX_SK,
	NF_OLDSTATE,
	NF_NEWSTATE,
	NF_STATE,
	NF_SPORT,
	NF_DPORT,
	NF_FAMILY,
	NF_PROTO,	/* protocol */
	NF_SADDR,	/* 4 bytes, or a 28-byte sockaddr_in/in6 */
	NF_DADDR,
	NF_SADDR6,	/* saddr_v6 */
	NF_DADDR6,
	NF_COOKIE,	/* sock_cookie */
	NF_REASON,
	NF_LOCATION,
	NF_RET,		/* sock_*_length: bytes, or -errno */
	NF_FLAGS,
	NF_DATA_LEN,
	NF_SND_UNA,
	NF_CWND,	/* snd_cwnd */
	NF_SSTHRESH,
	NF_SRTT,
	NF_PID,		/* task_rename's pid, sched_process_fork's child_pid */
	NF_COMM,	/* task_rename's newcomm, sched_process_fork's child_comm */
	NF_NR,
};

/* One type's map: its kind and the argument slot of each field (-1: none). */
struct net_tmap {
	uint8_t		kind;		/* enum net_kind */
	int8_t		slot[NF_NR];
	uint8_t		fk[NF_NR];	/* enum ktop_field_kind of each */
};

/* A value -> name table from a format's __print_symbolic(). */
struct net_symtab {
	size_t		n;
	int64_t		*val;		/* ascending */
	char		**name;
};

/* Are the 16 bytes at @a all zero (an address not given)? */
static inline bool zero16(const uint8_t *a)
{
	for (int i = 0; i < 16; i++)
		if (a[i])
			return false;
	return true;
}

static inline bool has(const struct net_tmap *t, enum net_field f, const struct ktop_event *ev)
{
	return t->slot[f] >= 0 && t->slot[f] < ev->nargs;
}

static inline uint64_t arg(const struct net_tmap *t, enum net_field f, const struct ktop_event *ev)
{
	return has(t, f, ev) ? ev->args[t->slot[f]] : 0;
}

/* net_format.c */
/*
 * Resolve type @id's map from @sc: its kind, and its fields by name (for a
 * type the model does not read, only with @any). Return: 0.
 */
int net_tmap_resolve(const struct schema *sc, uint16_t id, bool any, struct net_tmap *out);
/*
 * The event's two ends, as the socket sees them (saddr: local): a 28-byte
 * sockaddr_in/in6 pair, or 4- and 16-byte addresses with family and ports
 * (an IPv4-mapped pair is AF_INET). Return: false when it carries none.
 */
bool net_ev_ends(const struct intern *strs, const struct net_tmap *t,
		 const struct ktop_event *ev, struct net_endpoint *s, struct net_endpoint *d);
/*
 * The pairs of "__print_symbolic(REC->@field, { N, "NAME" }, ...)" in the
 * print fmt of format text @text into @t (replacing it). Pairs whose value is
 * not a number (an unresolved enum name) are left out.
 * Return: how many pairs, 0 when there is no such table, or -ENOMEM.
 */
int net_symtab_parse(const char *text, const char *field, struct net_symtab *t);
const char *net_symtab_find(const struct net_symtab *t, int64_t v);
void net_symtab_free(struct net_symtab *t);

/* One lifetime. */
struct net_conn {
	uint64_t		id;
	uint64_t		skaddr;
	uint64_t		cookie;
	uint32_t		gen;
	int32_t			pid;
	const char		*comm;
	uint16_t		proto;
	struct net_endpoint	local, remote;
	uint8_t			state;
	bool			closed, seen_open, listener;
	bool			owner_weak;	/* the listener's task: the first process-context
						 * event on it names the real one */
	bool			probed, una_known;
	uint64_t		t_open, t_close, t_last;
	uint64_t		sent, received;		/* sock_*_length */
	uint64_t		sent0, received0;	/* at the last tick */
	double			rate_sent, rate_received;
	uint64_t		probe_rx;		/* tcp_probe's data_len summed */
	uint64_t		probe_tx;		/* snd_una advanced */
	uint32_t		una;			/* the last snd_una seen */
	uint32_t		retrans, rst_sent, rst_received, drops;
	int64_t			rst_reason;		/* -1: none */
	int64_t			peer_reason;		/* a reset the local stack answered us with */
	int64_t			drop_reason;
	uint32_t		srtt_us, cwnd, ssthresh;
	uint8_t			ntrans;
	struct net_trans	trans[NET_MAX_TRANS];
};

/* An skb address an event of a row named (a ring: the oldest are overwritten). */
struct net_skb_tie {
	uint64_t	skb, id, ts;
	uint32_t	cpu;
};

#define NET_SKB_TIES	(1u << 14)

struct net_drop {
	int64_t		reason;
	uint32_t	loc;		/* interned location */
	uint64_t	count, count0, conns;
	double		rate;
	uint64_t	first_ts, last_ts;
};

struct net {
	struct store		*st;
	struct schema		*sc;
	struct intern		*strs;
	struct net_config	cfg;
	struct symbols		*syms;
	bool			own_syms;
	bool			(*keep)(void *arg, const struct ktop_event *ev);
	void			*keep_arg;
	/* type id -> map */
	struct net_tmap		*tm;
	size_t			ntm;
	bool			have[NK_NR];
	/* symbol tables from the formats */
	struct net_symtab	drop_reasons, rst_reasons, states;
	/* the rows */
	struct net_conn		*c;
	size_t			nc, cap;
	size_t			nclosed;	/* of c, closed */
	size_t			nlisten;	/* of c, open listeners */
	uint64_t		next_id;
	struct hmap		by_id;		/* id -> slot in c */
	struct hmap		live;		/* skaddr -> id of its open lifetime */
	struct hmap		recent;		/* skaddr -> id of its last closed lifetime */
	struct hmap		gens;		/* skaddr -> lifetimes seen */
	struct hmap		cookies;	/* cookie -> id */
	struct hmap		tuples;		/* hash of (local, remote) -> id, open rows */
	struct hmap		listeners;	/* hash of the local end -> id */
	struct hmap		pending;	/* hash of (local address, remote end) -> id: a
						 * connect whose local port is not known yet */
	struct hmap		skb_idx;	/* skbaddr -> its newest tie in skb_ties */
	struct net_skb_tie	*skb_ties;	/* NET_SKB_TIES */
	uint64_t		skb_next;
	struct hmap		comms;		/* pid -> interned comm, in trace order */
	uint64_t		*closed_q;	/* ids in the order they closed */
	size_t			cq_lo, cq_hi, cq_cap;
	/* drops */
	struct net_drop		*d;
	size_t			nd, dcap;
	struct hmap		drop_idx;	/* (reason, location) -> index in d */
	/* reading */
	uint64_t		*next;		/* per CPU: the next seq to read */
	unsigned int		ncpus;
	uint64_t		t_done, t_first, t_newest;
	uint64_t		tick_ts;
	bool			ticked;
	uint64_t		gen;
	struct net_totals	tot;
};

/* net_rows.c */
void net_row_fill(const struct net *n, const struct net_conn *c, struct net_conn_row *r);
uint64_t net_tuple_hash(const struct net_endpoint *local, const struct net_endpoint *remote);
uint64_t net_local_hash(const struct net_endpoint *local);
/* The local address (not its port) and the remote end. */
uint64_t net_pending_hash(const struct net_endpoint *local, const struct net_endpoint *remote);
/* An IPv4-mapped IPv6 endpoint as IPv4; others as they are. */
void net_endpoint_canon(const struct net_endpoint *in, struct net_endpoint *out);

#endif

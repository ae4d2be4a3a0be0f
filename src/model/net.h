/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network model (the Net pane, --batch's Connections and Drops, the PCP
 * export): connection lifetimes and packet drops, built from the kernel's
 * network trace events as the store holds them, on any source (live, .ktop,
 * trace.dat, stream).
 *
 * Connections. One row per lifetime of a socket, keyed by its kernel address
 * (skaddr) plus a generation, since the kernel reuses the memory of a freed
 * socket; where the kernel gives a sock_cookie (tcp_probe, tcp_destroy_sock,
 * tcp_receive_reset on 6.x), a different cookie at the same address starts a
 * new lifetime too. From:
 *
 *   sock:inet_sock_set_state  the lifetime (CLOSE -> SYN_SENT: a connect,
 *                             LISTEN -> SYN_RECV: a passive open, CLOSE ->
 *                             LISTEN: a listener; -> CLOSE: the end), the
 *                             addresses, the state and its transitions
 *   sock:sock_send_length,    bytes each way: what sendmsg/recvmsg returned
 *   sock:sock_recv_length     (MSG_PEEK reads not counted); kernels since 6.3
 *   tcp:tcp_probe             srtt, cwnd, ssthresh (--net=probe); where the
 *                             kernel has no sock_*_length, the bytes: the
 *                             acknowledged sequence space sent and the payload
 *                             received (tcp_probe fires per incoming segment)
 *   tcp:tcp_retransmit_skb    retransmits
 *   tcp:tcp_send_reset,       resets sent (with the kernel's reason where the
 *   tcp:tcp_receive_reset     format has one) and received; a reset the
 *                             local stack sent without a socket (a closed
 *                             port) is tied to the connection it answers by
 *                             its addresses, and gives that one's reason
 *   tcp:tcp_destroy_sock      the cookie, and the end when -> CLOSE was missed
 *   skb:kfree_skb             drops: tied to a connection by rx_sk where the
 *                             kernel fills it, else by the skb address one of
 *                             the connection's own events named
 *
 * The task of a connection is the one that ran connect() or listen() (the
 * SYN_SENT or LISTEN transition in process context); for a passive open it is
 * the listener's until a task sends, receives or closes on it in process
 * context (there is no accept tracepoint; the handshake runs in softirq
 * context, in whatever task it interrupted).
 *
 * Drops. skb:kfree_skb grouped by reason and location. Reason names come from
 * the kfree_skb format's own __print_symbolic table (net_load_format), so a
 * kernel that numbers them otherwise reads right; a value the table lacks is
 * printed as its number. The location is "function+0xoffset" as the decoder
 * named the field (src/kernel/symbols.h), as dropwatch and the kernel's %pS
 * print it, or its address where no symbol covers it.
 *
 * Every field is found by name in the event's schema (src/store/schema.h), as
 * the decoder kept it from the kernel's format: the field sets of 6.1, 6.12
 * and 6.18 differ (rx_sk, reason, sockaddr_in/in6 addresses with the port in
 * network order, or ports in host order beside 4- and 16-byte addresses).
 *
 * Closed connections stay NET_KEEP_CLOSED_NS of trace time after their end,
 * then age out; the number held is bounded (net_config.max_conns: the owner
 * derives it from -m), the oldest closed going first, then the longest idle.
 * Both are counted.
 *
 * Events are read once, in time order across CPUs, up to a horizon the caller
 * gives (app_feed_end()); each update reads only what came since. Under a
 * view filter the model is fed only the events it keeps.
 *
 * Context: one model belongs to one thread (the UI, the batch printer, an
 * exporter).
 */
#ifndef KTOP_NET_H
#define KTOP_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct ktop_event;
struct net;

#define NET_KEEP_CLOSED_NS	(60ull * 1000000000)	/* closed rows kept, trace time */
#define NET_MAX_TRANS		8			/* state transitions kept a row */
#define NET_ADDR_STRLEN		64			/* "[ffff:...:ffff]:65535" fits */

/* TCP states as every kernel numbers them (include/net/tcp_states.h). */
enum net_tcp_state {
	NET_TCP_ESTABLISHED = 1,
	NET_TCP_SYN_SENT,
	NET_TCP_SYN_RECV,
	NET_TCP_FIN_WAIT1,
	NET_TCP_FIN_WAIT2,
	NET_TCP_TIME_WAIT,
	NET_TCP_CLOSE,
	NET_TCP_CLOSE_WAIT,
	NET_TCP_LAST_ACK,
	NET_TCP_LISTEN,
	NET_TCP_CLOSING,
	NET_TCP_NEW_SYN_RECV,
	NET_TCP_BOUND_INACTIVE,
};

/* Where a connection's byte counts come from. */
enum net_bytes_src {
	NET_BYTES_NONE,		/* none known */
	NET_BYTES_SOCK,		/* sock:sock_send_length / sock_recv_length */
	NET_BYTES_PROBE,	/* tcp:tcp_probe: acked sequence space, payload received */
};

/* One end of a connection: family AF_INET (addr[0..3]) or AF_INET6. */
struct net_endpoint {
	uint16_t	family;
	uint16_t	port;		/* host order */
	uint8_t		addr[16];
};

struct net_trans {
	uint8_t		from, to;	/* enum net_tcp_state */
	uint64_t	ts;
};

struct net_conn_row {
	uint64_t		id;		/* stable while the row is held; never reused */
	uint64_t		skaddr;		/* the kernel's struct sock address */
	uint32_t		gen;		/* lifetime number at that address, from 1 */
	uint64_t		cookie;		/* sock_cookie, 0: not given */
	int32_t			pid;		/* -1: unknown */
	const char		*comm;		/* "" when unknown; valid until the store goes */
	uint16_t		proto;		/* IPPROTO_TCP, IPPROTO_SCTP, IPPROTO_MPTCP */
	struct net_endpoint	local, remote;
	uint8_t			state;		/* enum net_tcp_state, now */
	bool			closed;
	bool			seen_open;	/* its start is in the trace */
	bool			listener;
	uint64_t		t_open;		/* first event (the open when seen_open) */
	uint64_t		t_close;	/* 0: open */
	uint64_t		t_last;		/* newest event */
	uint64_t		bytes_sent, bytes_received;
	double			rate_sent, rate_received;	/* bytes/s, last tick */
	uint8_t			bytes_src;	/* enum net_bytes_src */
	uint32_t		retransmits;
	uint32_t		rst_sent, rst_received;
	int64_t			rst_reason;	/* -1: none known */
	const char		*rst_reason_name;	/* NULL: none known */
	uint32_t		drops;
	int64_t			drop_reason;	/* the last drop's, -1: none */
	const char		*drop_reason_name;
	bool			probed;		/* tcp_probe seen: srtt, cwnd */
	uint32_t		srtt_us, cwnd, ssthresh;
	uint8_t			ntrans;		/* transitions seen (more than kept: the
						 * first NET_MAX_TRANS - 1 and the last) */
	struct net_trans	trans[NET_MAX_TRANS];
};

struct net_drop_row {
	int64_t		reason;		/* the kernel's value; -1 when the event has none */
	const char	*reason_name;	/* from the format, else the number as text */
	const char	*location;	/* symbol, or "0x..."; "" in the by-reason grouping */
	uint64_t	count;
	double		rate;		/* per second, last tick */
	uint64_t	conns;		/* of count, tied to a connection */
	uint64_t	first_ts, last_ts;
};

struct net_totals {
	uint64_t	events;		/* network events read */
	uint64_t	conns;		/* rows held */
	uint64_t	open, closed, listeners;	/* of conns */
	uint64_t	opened;		/* lifetimes begun since the start */
	uint64_t	aged_out;	/* closed rows dropped after NET_KEEP_CLOSED_NS */
	uint64_t	bounded_out;	/* rows dropped for max_conns */
	uint64_t	retransmits, resets, drops;
	uint64_t	drops_tied;	/* of drops, tied to a connection */
	uint64_t	bytes_untied;	/* send/recv lengths on sockets without a row (UDP, ...) */
	uint8_t		bytes_src;	/* enum net_bytes_src the recording allows */
	uint64_t	t_first, t_newest;	/* the network events read span this */
	bool		have_state, have_drops, have_probe;
};

struct net_config {
	size_t		max_conns;	/* 0: NET_DEFAULT_MAX_CONNS */
	uint64_t	keep_closed_ns;	/* 0: NET_KEEP_CLOSED_NS */
};

#define NET_DEFAULT_MAX_CONNS	100000

/* The row budget for @memory bytes (-m): an eighth of it. */
size_t net_max_conns_for(size_t memory);

/**
 * net_new - an empty model over @st
 * @cfg: NULL for the defaults; copied
 * Return: the model (free with net_free), or NULL on ENOMEM.
 */
struct net *net_new(struct store *st, const struct net_config *cfg);
void net_free(struct net *n);

/**
 * net_load_format - learn the symbol tables of event @system:@name from its
 * format file text (events/SYS/NAME/format): kfree_skb's and
 * tcp_send_reset's reasons, inet_sock_set_state's states
 * Other events are ignored. Return: 0, or -ENOMEM.
 */
int net_load_format(struct net *n, const char *system, const char *name, const char *text);

struct symbols;
/*
 * Name drop locations the decoder kept as addresses (kernels whose kfree_skb
 * format prints the location with %p, not %pS: 6.1) from @syms (kallsyms:
 * the running kernel's, or a recording's). NULL: printed as addresses.
 * @own: the model frees the table; else it must outlive the model.
 */
void net_set_symbols(struct net *n, struct symbols *syms, bool own);

/*
 * Does format text @kfree_skb (skb:kfree_skb's) print the drop location as a
 * bare address, so that only kallsyms can name it? (NULL: no such event.)
 */
bool net_location_needs_symbols(const char *kfree_skb);

/* The events of interest, as "system:name", NULL-terminated (for loading their formats). */
extern const char *const net_event_names[];

/*
 * What --net traces, of what the kernel has: the events the model reads but
 * tcp_probe, the packets a connection's timeline joins by skb address
 * (net_dev_xmit, netif_receive_skb) and the tasks' names (fork, exec,
 * rename). NULL-terminated. NET_PROBE_EVENT (per incoming segment) only with
 * --net=probe.
 */
extern const char *const net_trace_events[];
#define NET_PROBE_EVENT		"tcp:tcp_probe"

/* Feed only the events @keep returns true for (NULL: all); forgets what was read. */
void net_set_keep(struct net *n, bool (*keep)(void *arg, const struct ktop_event *ev),
		  void *arg);

/* Forget everything read (the store was replaced, the view changed). */
void net_reset(struct net *n);

/**
 * net_update - read the events published since the last update, up to @t_end
 * Return: how many events were read, or a negative errno.
 */
int64_t net_update(struct net *n, uint64_t t_end);

/**
 * net_feed - one event, in time order (net_update's step; for tests and for
 * a caller that walks the store itself)
 * Return: 0, or -ENOMEM.
 */
int net_feed(struct net *n, const struct ktop_event *ev);

/* Close a rate interval at trace time @ts (rates are those of [last tick, @ts]). */
void net_tick(struct net *n, uint64_t ts);

/* A generation number: changes whenever a row or a drop count changes. */
uint64_t net_gen(const struct net *n);

void net_totals(const struct net *n, struct net_totals *out);

enum net_sort {
	NET_BY_AGE,		/* oldest first (natural) */
	NET_BY_LAST,		/* most recently active first */
	NET_BY_SENT,
	NET_BY_RECEIVED,
	NET_BY_BYTES,		/* both ways */
	NET_BY_RETRANS,
	NET_BY_RESETS,
	NET_BY_DROPS,
	NET_BY_SRTT,
	NET_BY_STATE,
	NET_BY_PID,
	NET_BY_COMM,
	NET_BY_LOCAL,		/* address then port */
	NET_BY_REMOTE,
	NET_SORT_NR,
};

struct net_query {
	enum net_sort	sort;
	bool		reverse;	/* against the natural order: names, ids, addresses
					 * and age ascending, figures descending */
	bool		hide_closed;
	bool		hide_listeners;
	const char	*search;	/* rows whose text (net_conn_text) contains it */
	/* row filter (a view's net, pid and comm clauses), NULL: all */
	bool		(*keep)(void *arg, const struct net_conn_row *r);
	void		*keep_arg;
};

/**
 * net_conn_ids - the ids of the rows @q asks for, in its order
 * @out: receives up to @max ids (net_conn_get reads each)
 * Return: how many rows match (may exceed @max).
 */
size_t net_conn_ids(struct net *n, const struct net_query *q, uint64_t *out, size_t max);

/* Row @id. Return: 0, or -ENOENT when it is no longer held. */
int net_conn_get(const struct net *n, uint64_t id, struct net_conn_row *out);

/*
 * net_conns - net_conn_ids() then net_conn_get() of each: up to @max rows.
 * Return: how many match (may exceed @max).
 */
size_t net_conns(struct net *n, const struct net_query *q, struct net_conn_row *out,
		 size_t max);

enum net_drop_group {
	NET_DROPS_BY_REASON_LOCATION,
	NET_DROPS_BY_REASON,
	NET_DROPS_BY_LOCATION,
};

/**
 * net_drops - the drops, grouped, by count (descending)
 * Return: how many groups there are (may exceed @max).
 */
size_t net_drops(const struct net *n, enum net_drop_group g, struct net_drop_row *out,
		 size_t max);

/* ---- one event's network fields (view filters, joins) ---- */

enum {
	NET_F_ENDS	= 1,	/* addresses and ports */
	NET_F_SK	= 2,	/* a socket address: skaddr, sk or rx_sk */
	NET_F_SKB	= 4,	/* an skb address: skbaddr */
};

struct net_ev_fields {
	unsigned int		has;		/* NET_F_*, of this event */
	uint64_t		sk, skb;	/* 0: none */
	struct net_endpoint	a, b;		/* the ends (a: the socket's, saddr) */
	bool			ends_life;	/* the socket's lifetime ends here: a
						 * transition to CLOSE, tcp_destroy_sock */
	uint8_t			pkt;		/* enum net_pkt_kind, of an skb event */
};

/* What an event with an skb address but no ends is in a packet's life. */
enum net_pkt_kind {
	NET_PKT_NONE,		/* no skb, or the ends too (tcp_probe, a reset) */
	NET_PKT_XMIT,		/* net:net_dev_xmit: handed to a device */
	NET_PKT_RECV,		/* net:netif_receive_skb, netif_rx, napi_gro_receive_entry */
	NET_PKT_FREE,		/* skb:kfree_skb, skb:consume_skb: the end of its life */
	NET_PKT_OTHER,		/* another event naming the skb (net_dev_queue, ...) */
};

/* Each type's fields by name, for reading any event of a store. */
struct net_fields;
struct net_fields *net_fields_new(struct store *st);	/* NULL: ENOMEM */
void net_fields_free(struct net_fields *nf);

/* What events of @type can carry, NET_F_* (0: nothing network). */
unsigned int net_fields_of(struct net_fields *nf, uint16_t type);

/**
 * net_fields_read - the ends, socket and skb of one event
 * @args, @nargs: its arguments as the store holds them
 * Return: what it has, NET_F_* (0: nothing network; @out then unset).
 */
unsigned int net_fields_read(struct net_fields *nf, uint16_t type, const uint64_t *args,
			     unsigned int nargs, struct net_ev_fields *out);

/* ---- names and addresses (also for view filters and printers) ---- */

/* "ESTABLISHED", "SYN_SENT", ...; the number as text for others (@buf). */
const char *net_state_name(uint8_t state, char *buf, size_t len);
/* "TCP", "SCTP", "MPTCP", "UDP", or the number (@buf). */
const char *net_proto_name(uint16_t proto, char *buf, size_t len);
/* The name of drop reason @v in the loaded table, or NULL. */
const char *net_drop_reason_name(const struct net *n, int64_t v);

/* "10.0.0.1" or "::1" (RFC 5952). Return: @buf. */
const char *net_addr_str(const struct net_endpoint *e, char *buf, size_t len);
/* "10.0.0.1:80" or "[::1]:80". Return: @buf. */
const char *net_endpoint_str(const struct net_endpoint *e, char *buf, size_t len);

/*
 * "comm pid proto local remote state", what a search looks in (and the
 * pane's search matches): lower case names as printed. Return: @buf.
 */
const char *net_conn_text(const struct net_conn_row *r, char *buf, size_t len);

/**
 * net_addr_parse - an address with an optional prefix length: "10.0.0.0/8",
 * "::1", "fe80::/10"
 * @prefix: receives the length (32 or 128 without one)
 * Return: 0, or -EINVAL.
 */
int net_addr_parse(const char *s, size_t len, struct net_endpoint *out, unsigned int *prefix);

/*
 * Is @e's address within @net/@prefix? An IPv4 address also matches as the
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) and the other way round.
 */
bool net_addr_match(const struct net_endpoint *net, unsigned int prefix,
		    const struct net_endpoint *e);

/* Same address and port (an IPv4-mapped IPv6 one equals its IPv4 one). */
bool net_endpoint_eq(const struct net_endpoint *a, const struct net_endpoint *b);

#endif

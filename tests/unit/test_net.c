// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network model (src/model/net.h) on the recorded network fixtures: this
 * host's 6.18 (host-net) and the rt guests' 6.1 and 6.12 (rt-net, rt612-net),
 * whose formats differ (sock_send_length only since 6.3, rx_sk, the reset
 * reasons, sockaddr fields). Each fixture's workload.out is netload's own
 * account of what it did (tests/tools/netload.c): every expectation comes from
 * there or from the kernel's text of the same records (trace.txt), never from
 * a number typed here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ingest/fixture.h"
#include "kernel/symbols.h"
#include "lib/hashmap.h"
#include "model/net.h"
#include "store/store.h"
#include "test.h"

#define MAXROWS	256

struct nfx {
	char		name[64];
	struct fixture	*fx;
	struct store	*st;
	struct symbols	*syms;
	struct net	*n;
	char		*work;		/* workload.out */
	char		*text;		/* trace.txt */
};

/* Load each network event's format from the fixture into @n. */
static void load_formats(struct nfx *f, struct net *n)
{
	for (int i = 0; net_event_names[i]; i++) {
		const char *ev = net_event_names[i], *colon = strchr(ev, ':');
		char sys[32], rel[128], *text;

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev), ev);
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, colon + 1);
		text = fixture_read_file(fixture_path(f->fx, rel), NULL);
		if (text)
			net_load_format(n, sys, colon + 1, text);
		free(text);
	}
}

static bool nfx_open(struct nfx *f, const char *name, const struct net_config *cfg)
{
	char dir[512];

	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	f->fx = fixture_open(dir);
	if (!f->fx)
		return false;
	f->st = store_new(0, fixture_ncpus(f->fx));
	f->syms = symbols_load(fixture_path(f->fx, "kallsyms"));
	if (!f->st || fixture_decode(f->fx, f->st, f->syms))
		return false;
	f->work = fixture_read_file(fixture_path(f->fx, "workload.out"), NULL);
	f->text = fixture_read_file(fixture_path(f->fx, "trace.txt"), NULL);
	f->n = net_new(f->st, cfg);
	if (!f->n || !f->work || !f->text)
		return false;
	net_set_symbols(f->n, f->syms, false);
	load_formats(f, f->n);
	return net_update(f->n, UINT64_MAX) > 0;
}

static void nfx_close(struct nfx *f)
{
	net_free(f->n);
	store_free(f->st);
	symbols_free(f->syms);
	fixture_close(f->fx);
	free(f->work);
	free(f->text);
}

/* The network fixtures present: host-net always; the rt ones once recorded. */
static const char *const fixtures[] = { "host-net", "rt-net", "rt612-net" };

static bool present(const char *name)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s/meta", fixture_root(), name);
	fp = fopen(path, "r");
	if (fp)
		fclose(fp);
	return fp != NULL;
}

static size_t rows_all(struct net *n, struct net_conn_row *out)
{
	struct net_query q = { .sort = NET_BY_AGE };

	return net_conns(n, &q, out, MAXROWS);
}

/* The row whose local port is @lport and remote port @rport, or NULL. */
static const struct net_conn_row *row_ports(const struct net_conn_row *r, size_t nr,
					    unsigned int lport, unsigned int rport)
{
	for (size_t i = 0; i < nr; i++)
		if (r[i].local.port == lport && r[i].remote.port == rport)
			return &r[i];
	return NULL;
}

/* Transitions as "SYN_SENT ESTABLISHED ..." (the states it went to). */
static const char *trans_text(const struct net_conn_row *r, char *buf, size_t len)
{
	size_t o = 0;
	char tmp[8];

	buf[0] = '\0';
	for (unsigned int i = 0; i < r->ntrans && i < NET_MAX_TRANS; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "",
				      net_state_name(r->trans[i].to, tmp, sizeof(tmp)));
	return buf;
}

/*
 * Every TCP transfer of workload.out is one pair of rows: the client's with
 * its bytes sent and received, states up to CLOSE, pid and comm; the
 * server's the other way round. Both families appear.
 */
static void check_transfers(struct nfx *f)
{
	static struct net_conn_row r[MAXROWS];
	size_t nr = rows_all(f->n, r);
	unsigned int v4 = 0, v6 = 0, transfers = 0;
	struct net_totals t;
	char buf[256];

	net_totals(f->n, &t);
	for (const char *l = f->work; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		int cpid, spid;
		unsigned int cport, sport;
		unsigned long long sent, recvd;
		const struct net_conn_row *c, *s;

		if (sscanf(l, "client %d %u server %d %u sent %llu received %llu", &cpid, &cport,
			   &spid, &sport, &sent, &recvd) != 6)
			continue;
		transfers++;
		c = row_ports(r, nr, cport, sport);
		s = row_ports(r, nr, sport, cport);
		if (!c || !s)
			printf("# %s: no row for %u <-> %u\n", f->name, cport, sport);
		CHECK(c && s);
		CHECK(c->closed && s->closed && c->seen_open && s->seen_open);
		CHECK_STR(trans_text(c, buf, sizeof(buf)),
			  "SYN_SENT ESTABLISHED FIN_WAIT1 FIN_WAIT2 CLOSE");
		CHECK_STR(trans_text(s, buf, sizeof(buf)),
			  "SYN_RECV ESTABLISHED CLOSE_WAIT LAST_ACK CLOSE");
		CHECK(c->pid == cpid && s->pid == spid);
		CHECK_STR(c->comm, "nl-client");
		CHECK_STR(s->comm, "nl-server");
		CHECK(net_endpoint_eq(&c->local, &s->remote) && net_endpoint_eq(&c->remote, &s->local));
		v4 += c->local.family == AF_INET;
		v6 += c->local.family == AF_INET6;
		if (t.bytes_src == NET_BYTES_SOCK) {
			CHECK_EQ_U64(c->bytes_src, NET_BYTES_SOCK);
			CHECK_EQ_U64(c->bytes_sent, sent);
			CHECK_EQ_U64(c->bytes_received, recvd);
			CHECK_EQ_U64(s->bytes_sent, recvd);
			CHECK_EQ_U64(s->bytes_received, sent);
		} else {
			/*
			 * 6.1: tcp_probe's payload received is exact; the acknowledged
			 * sequence space sent misses what was acknowledged after the
			 * last tcp_probe (a segment received in ESTABLISHED).
			 */
			CHECK_EQ_U64(c->bytes_src, NET_BYTES_PROBE);
			CHECK_EQ_U64(c->bytes_received, recvd);
			CHECK_EQ_U64(s->bytes_received, sent);
			CHECK(c->bytes_sent <= sent && s->bytes_sent <= recvd);
		}
	}
	CHECK(transfers >= 2);
	CHECK(v4 && v6);
}

/* A connect to a closed port: SYN_SENT -> CLOSE, a reset received, NO_SOCKET. */
static void check_refused(struct nfx *f)
{
	static struct net_conn_row r[MAXROWS];
	size_t nr = rows_all(f->n, r);
	unsigned int want = 0, seen = 0, port = 0;
	bool reasons = strstr(f->text, "tcp_send_reset: ") && strstr(f->text, " reason=");
	char buf[256];

	for (const char *l = f->work; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		want += sscanf(l, "refused %u", &port) == 1;
	CHECK(want >= 2);
	for (size_t i = 0; i < nr; i++) {
		if (r[i].remote.port != port || r[i].listener)
			continue;
		seen++;
		CHECK_STR(trans_text(&r[i], buf, sizeof(buf)), "SYN_SENT CLOSE");
		CHECK(r[i].closed);
		CHECK_EQ_U64(r[i].rst_received, 1);
		if (reasons) {
			/* the local stack said why it reset: the port has no socket */
			CHECK(r[i].rst_reason_name);
			CHECK_STR(r[i].rst_reason_name, "NO_SOCKET");
			CHECK_EQ_U64(r[i].drops, 1);
			CHECK_STR(r[i].drop_reason_name, "NO_SOCKET");
		}
	}
	CHECK_EQ_U64(seen, want);
}

/*
 * "location=FUNC+0x12/0x34 reason: NAME" of each kfree_skb line of the kernel's
 * text, as "NAME FUNC"; "NAME" alone with @by_reason (kernels that print the
 * location with %p: a hashed address, nothing to compare).
 */
static void text_drops(const char *text, struct strmap *m, char *keys, size_t klen,
		       uint64_t *total, bool by_reason)
{
	size_t ko = 0;

	*total = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *loc, *why, *eol = strchr(l, '\n');
		size_t fl, wl;
		uint64_t *v;

		if (!eol)
			eol = l + strlen(l);
		loc = strstr(l, " kfree_skb: ");
		if (!loc || loc > eol)
			continue;
		(*total)++;
		loc = strstr(loc, "location=");
		why = strstr(l, "reason: ");
		if (!loc || !why || why > eol)
			continue;
		loc += 9;
		/* "func+0xoff/0xsize": the decoder's name is "func+0xoff", "func" at +0x0 */
		fl = by_reason ? 0 : strcspn(loc, "/ \n");
		if (fl > 4 && !strncmp(loc + fl - 4, "+0x0", 4))
			fl -= 4;
		why += 8;
		wl = strcspn(why, " \n");
		if (ko + fl + wl + 2 > klen)
			continue;
		snprintf(keys + ko, klen - ko, "%.*s%s%.*s", (int)wl, why, fl ? " " : "", (int)fl,
			 loc);
		v = strmap_put(m, keys + ko, NULL);
		if (v && *v == 0)
			ko += fl + wl + 2;
		if (v)
			(*v)++;
	}
}

/*
 * The drops table against the kernel's own text: the same (reason name,
 * function) groups with the same counts. The text was printed by the kernel
 * with its own symbol table; the model names the numbers from the format's.
 */
static void check_drops_text(struct nfx *f)
{
	static struct net_drop_row d[MAXROWS];
	static char keys[65536];
	struct strmap m = { 0 };
	uint64_t total, sum = 0;
	bool hashed = strstr(f->text, " location=0000") != NULL;
	size_t nd = net_drops(f->n, hashed ? NET_DROPS_BY_REASON : NET_DROPS_BY_REASON_LOCATION,
			      d, MAXROWS);
	struct net_totals t;

	text_drops(f->text, &m, keys, sizeof(keys), &total, hashed);
	net_totals(f->n, &t);
	CHECK(nd > 0 && nd < MAXROWS);
	CHECK_EQ_U64(t.drops, total);
	CHECK_EQ_U64(nd, m.n);
	for (size_t i = 0; i < nd; i++) {
		char key[256];
		uint64_t *v;

		CHECK(d[i].reason_name);
		snprintf(key, sizeof(key), "%s%s%s", d[i].reason_name, hashed ? "" : " ",
			 d[i].location);
		v = strmap_get(&m, key, strlen(key));
		if (!v)
			printf("# %s: drop group '%s' is not in trace.txt\n", f->name, key);
		CHECK(v);
		CHECK_EQ_U64(d[i].count, *v);
		sum += d[i].count;
	}
	CHECK_EQ_U64(sum, total);
	strmap_destroy(&m);
	/* every location named from the recording's kallsyms */
	nd = net_drops(f->n, NET_DROPS_BY_LOCATION, d, MAXROWS);
	for (size_t i = 0; i < nd; i++) {
		if (!strncmp(d[i].location, "0x", 2))
			printf("# %s: drop location %s has no name\n", f->name, d[i].location);
		CHECK(strncmp(d[i].location, "0x", 2));
	}
}

/* "udp sent N": that many NO_SOCKET drops in the UDP receive paths. */
static void check_udp(struct nfx *f)
{
	static struct net_drop_row d[MAXROWS];
	size_t nd = net_drops(f->n, NET_DROPS_BY_REASON_LOCATION, d, MAXROWS);
	unsigned long long want = 0, got = 0, k;

	for (const char *l = f->work; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (sscanf(l, "udp sent %llu", &k) == 1)
			want += k;
	CHECK(want > 0);
	for (size_t i = 0; i < nd; i++)
		if (d[i].reason_name && !strcmp(d[i].reason_name, "NO_SOCKET") &&
		    strstr(d[i].location, "udp"))
			got += d[i].count;
	CHECK_EQ_U64(got, want);
}

static uint64_t text_count(const char *text, const char *what)
{
	uint64_t n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Totals against the kernel's text: transitions, retransmits, resets. */
static void check_totals_text(struct nfx *f)
{
	static struct net_conn_row r[MAXROWS];
	size_t nr = rows_all(f->n, r);
	uint64_t trans = 0, retrans = 0;
	struct net_totals t;

	net_totals(f->n, &t);
	for (size_t i = 0; i < nr; i++) {
		trans += r[i].ntrans;
		retrans += r[i].retransmits;
	}
	CHECK_EQ_U64(trans, text_count(f->text, " inet_sock_set_state: "));
	CHECK_EQ_U64(t.retransmits, text_count(f->text, " tcp_retransmit_skb: "));
	CHECK_EQ_U64(retrans, t.retransmits);
	CHECK_EQ_U64(t.resets, text_count(f->text, " tcp_send_reset: ") +
			       text_count(f->text, " tcp_receive_reset: "));
	CHECK_EQ_U64(t.conns, nr);
	CHECK_EQ_U64(t.open + t.closed, t.conns);
}

TEST(net_fixture_transfers)
{
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct nfx f;

		if (i && !present(fixtures[i]))
			continue;
		CHECK(nfx_open(&f, fixtures[i], NULL));
		printf("# %s\n", fixtures[i]);
		check_transfers(&f);
		check_refused(&f);
		nfx_close(&f);
		if (test_failed_now)
			return;
	}
}

TEST(net_fixture_drops)
{
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct nfx f;

		if (i && !present(fixtures[i]))
			continue;
		CHECK(nfx_open(&f, fixtures[i], NULL));
		check_drops_text(&f);
		check_udp(&f);
		check_totals_text(&f);
		nfx_close(&f);
		if (test_failed_now)
			return;
	}
}

/* The nftables rule of host-net: NETFILTER_DROP, and the retransmits it caused. */
TEST(net_netfilter_drop_retransmits)
{
	static struct net_conn_row r[MAXROWS];
	static struct net_drop_row d[MAXROWS];
	unsigned int port = 0, cport = 0, sport = 0;
	const struct net_conn_row *c;
	unsigned long long nf = 0;
	struct nfx f;
	size_t nr, nd;

	CHECK(nfx_open(&f, "host-net", NULL));
	for (const char *l = f.work; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		sscanf(l, "nft-drop %u", &port);
		if (port && sscanf(l, "client %*d %u server %*d %u", &cport, &sport) == 2 &&
		    sport == port)
			break;
	}
	CHECK(port && sport == port);
	nr = rows_all(f.n, r);
	c = row_ports(r, nr, cport, sport);
	CHECK(c);
	CHECK(c->retransmits > 0);
	nd = net_drops(f.n, NET_DROPS_BY_REASON, d, MAXROWS);
	for (size_t i = 0; i < nd; i++)
		if (d[i].reason_name && !strcmp(d[i].reason_name, "NETFILTER_DROP"))
			nf = d[i].count;
	CHECK(nf > 0);
	CHECK_EQ_U64(nf, text_count(f.text, "reason: NETFILTER_DROP"));
	nfx_close(&f);
}

/* Every value -> name pair the kernel's kfree_skb format gives, as the model reads it. */
TEST(net_drop_reason_table)
{
	const char *want[] = { "NO_SOCKET", "NETFILTER_DROP", "NOT_SPECIFIED" };
	struct nfx f;
	char *fmt;

	CHECK(nfx_open(&f, "host-net", NULL));
	fmt = fixture_read_file(fixture_path(f.fx, "events/skb/kfree_skb/format"), NULL);
	CHECK(fmt);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char key[64], *p;
		long v;

		snprintf(key, sizeof(key), "\"%s\" }", want[i]);
		p = strstr(fmt, key);
		CHECK(p);
		while (p > fmt && *p != '{')
			p--;
		v = strtol(p + 1, NULL, 10);
		CHECK_STR(net_drop_reason_name(f.n, v), want[i]);
	}
	/* a value the table lacks has no name (printers show the number) */
	CHECK(!net_drop_reason_name(f.n, 1000000));
	free(fmt);
	nfx_close(&f);
}

TEST(net_sort_and_search)
{
	static struct net_conn_row r[MAXROWS];
	struct net_query q = { .sort = NET_BY_SENT };
	struct nfx f;
	size_t n;

	CHECK(nfx_open(&f, "host-net", NULL));
	n = net_conns(f.n, &q, r, MAXROWS);
	CHECK(n > 4);
	for (size_t i = 1; i < n; i++)
		CHECK(r[i - 1].bytes_sent >= r[i].bytes_sent);
	q.reverse = true;
	n = net_conns(f.n, &q, r, MAXROWS);
	for (size_t i = 1; i < n; i++)
		CHECK(r[i - 1].bytes_sent <= r[i].bytes_sent);
	q = (struct net_query){ .sort = NET_BY_AGE, .search = "nl-server" };
	n = net_conns(f.n, &q, r, MAXROWS);
	CHECK(n >= 2);
	for (size_t i = 0; i < n; i++)
		CHECK_STR(r[i].comm, "nl-server");
	q = (struct net_query){ .sort = NET_BY_AGE, .search = "[::1]" };
	n = net_conns(f.n, &q, r, MAXROWS);
	CHECK(n >= 2);
	for (size_t i = 0; i < n; i++)
		CHECK(r[i].local.family == AF_INET6);
	q = (struct net_query){ .sort = NET_BY_AGE, .hide_listeners = true };
	n = net_conns(f.n, &q, r, MAXROWS);
	for (size_t i = 0; i < n; i++)
		CHECK(!r[i].listener);
	nfx_close(&f);
}

/* Closed rows age out after keep_closed_ns; the count is bounded by max_conns. */
TEST(net_aging_and_bound)
{
	struct net_config cfg = { .keep_closed_ns = 1 };
	struct net_totals all, t;
	struct nfx f;

	CHECK(nfx_open(&f, "host-net", NULL));
	net_totals(f.n, &all);
	nfx_close(&f);
	CHECK(all.closed > 3);
	CHECK(nfx_open(&f, "host-net", &cfg));
	net_totals(f.n, &t);
	/* every closed row but those closed at the newest event's time is gone */
	CHECK(t.aged_out > 0 && t.aged_out <= all.closed);
	CHECK_EQ_U64(t.conns + t.aged_out, all.conns);
	CHECK_EQ_U64(t.bounded_out, 0);
	nfx_close(&f);
	cfg = (struct net_config){ .max_conns = 3 };
	CHECK(nfx_open(&f, "host-net", &cfg));
	net_totals(f.n, &t);
	CHECK(t.conns <= 3);
	CHECK_EQ_U64(t.conns + t.bounded_out, all.conns);
	CHECK_EQ_U64(t.aged_out, 0);
	nfx_close(&f);
}

/* Only what a view keeps is fed: here, the events of CPU 0. */
static bool keep_cpu0(void *arg, const struct ktop_event *ev)
{
	(*(uint64_t *)arg)++;
	return ev->cpu == 0;
}

TEST(net_keep)
{
	struct net_totals all, t;
	uint64_t asked = 0;
	struct nfx f;

	CHECK(nfx_open(&f, "host-net", NULL));
	net_totals(f.n, &all);
	net_set_keep(f.n, keep_cpu0, &asked);
	CHECK(net_update(f.n, UINT64_MAX) > 0);
	net_totals(f.n, &t);
	CHECK(asked > 0);
	CHECK(t.events > 0 && t.events < all.events);
	CHECK(t.drops <= all.drops);
	nfx_close(&f);
}

/* Rates: bytes per second of trace time over the interval a tick closes. */
TEST(net_rates)
{
	static struct net_conn_row r[MAXROWS];
	struct net_query q = { .sort = NET_BY_SENT };
	struct nfx f;
	double dt;

	CHECK(nfx_open(&f, "host-net", NULL));
	CHECK(net_conns(f.n, &q, r, MAXROWS) > 0);
	net_tick(f.n, r[0].t_last);
	net_conns(f.n, &q, r, MAXROWS);
	CHECK(r[0].bytes_sent > 0 && r[0].rate_sent > 0);
	/* over [first network event, the tick]: no faster than the row's own life */
	dt = (double)(r[0].t_last - r[0].t_open) / 1e9;
	CHECK(r[0].rate_sent * dt <= (double)r[0].bytes_sent * 1.0001);
	nfx_close(&f);
}

TEST(net_addresses)
{
	struct net_endpoint a, e = { .family = AF_INET, .addr = { 10, 1, 2, 3 } }, m;
	unsigned int pl;
	char buf[NET_ADDR_STRLEN];

	CHECK(!net_addr_parse("10.0.0.0/8", 10, &a, &pl) && pl == 8 && a.family == AF_INET);
	CHECK(net_addr_match(&a, pl, &e));
	CHECK(!net_addr_parse("10.1.2.4", 8, &a, &pl) && pl == 32);
	CHECK(!net_addr_match(&a, pl, &e));
	CHECK(!net_addr_parse("10.1.2.3", 8, &a, &pl) && net_addr_match(&a, pl, &e));
	/* an IPv4-mapped IPv6 end is that IPv4 address */
	m = (struct net_endpoint){ .family = AF_INET6,
				   .addr = { [10] = 0xff, [11] = 0xff, 10, 1, 2, 3 } };
	CHECK(net_addr_match(&a, pl, &m));
	CHECK(!net_addr_parse("::ffff:10.1.0.0/112", 19, &a, &pl) && net_addr_match(&a, pl, &e));
	CHECK(!net_addr_parse("::1", 3, &a, &pl) && pl == 128 && a.family == AF_INET6);
	CHECK(!net_addr_match(&a, pl, &e));
	CHECK(!net_addr_parse("::/0", 4, &a, &pl) && net_addr_match(&a, pl, &e));
	CHECK(!net_addr_parse("fe80::/10", 9, &a, &pl) && pl == 10);
	m = (struct net_endpoint){ .family = AF_INET6, .addr = { 0xfe, 0xbf } };
	CHECK(net_addr_match(&a, pl, &m));
	m.addr[1] = 0xc0;
	CHECK(!net_addr_match(&a, pl, &m));
	CHECK(net_addr_parse("10.0.0.0/33", 11, &a, &pl) == -EINVAL);
	CHECK(net_addr_parse("10.0.0/8", 8, &a, &pl) == -EINVAL);
	CHECK(net_addr_parse("10.0.0.0/", 9, &a, &pl) == -EINVAL);
	CHECK(net_addr_parse("host", 4, &a, &pl) == -EINVAL);
	e.port = 80;
	CHECK_STR(net_endpoint_str(&e, buf, sizeof(buf)), "10.1.2.3:80");
	m = (struct net_endpoint){ .family = AF_INET6, .port = 443, .addr = { [15] = 1 } };
	CHECK_STR(net_endpoint_str(&m, buf, sizeof(buf)), "[::1]:443");
	CHECK(net_endpoint_eq(&e, &e) && !net_endpoint_eq(&e, &m));
}

TEST_MAIN()

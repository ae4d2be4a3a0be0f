// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The view filter's network clauses (port:, addr:, conn:; src/view/viewfilter_net.c)
 * on the recorded host-net fixture, against the kernel's own text of the same
 * records (trace.txt). A reader of the text here finds the lines whose ends
 * match, the sockets they name (the kernel hashes %p pointers, consistently
 * within a boot, so the text can join them too), the send/recv lengths and
 * drops of those sockets, and the packets a matching line named by their skb
 * address (the events of that packet's life, not of the address's next
 * packets): the view must hold exactly that many events. Then
 * negation, the per-event match against the chunk walk, and the refusals
 * with their carets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "ingest/fixture.h"
#include "kernel/symbols.h"
#include "lib/hashmap.h"
#include "store/store.h"
#include "test.h"
#include "view/viewfilter.h"

struct vfx {
	struct fixture	*fx;
	struct store	*st;
	char		*text;
	char		*work;
};

static bool vfx_open(struct vfx *f, const char *name)
{
	char dir[512];
	struct symbols *syms;
	int ret;

	memset(f, 0, sizeof(*f));
	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	f->fx = fixture_open(dir);
	if (!f->fx)
		return false;
	f->st = store_new(0, fixture_ncpus(f->fx));
	syms = symbols_load(fixture_path(f->fx, "kallsyms"));
	ret = f->st ? fixture_decode(f->fx, f->st, syms) : -ENOMEM;
	symbols_free(syms);
	f->text = fixture_read_file(fixture_path(f->fx, "trace.txt"), NULL);
	f->work = fixture_read_file(fixture_path(f->fx, "workload.out"), NULL);
	return !ret && f->text && f->work;
}

static void vfx_close(struct vfx *f)
{
	store_free(f->st);
	fixture_close(f->fx);
	free(f->text);
	free(f->work);
}

/* Events held that match @a (and @b, when not NULL). */
static uint64_t matched(struct store *st, const char *a, const char *b)
{
	struct viewfilter *vf = viewfilter_new(st, NULL);
	struct err_pos err = { 0 };
	struct viewfilter_counts vc;

	if (!vf)
		return UINT64_MAX;
	if (viewfilter_push(vf, a, &err) || (b && viewfilter_push(vf, b, &err))) {
		printf("# %s: %s\n", a, err.msg);
		viewfilter_free(vf);
		return UINT64_MAX;
	}
	viewfilter_update(vf, 0);
	viewfilter_counts(vf, &vc);
	viewfilter_free(vf);
	return vc.matched;
}

/* ---- a reader of the kernel's text ---------------------------------------------------- */

struct tline {
	const char	*p, *eol;
	uint64_t	us;		/* timestamp, microseconds */
};

/* The value after " KEY" up to a blank or comma, into @buf. */
static bool field(const struct tline *l, const char *key, char *buf, size_t len)
{
	char k[32];
	const char *p;
	size_t n;

	snprintf(k, sizeof(k), " %s", key);
	p = strstr(l->p, k);
	if (!p || p > l->eol)
		return false;
	p += strlen(k);
	n = strcspn(p, " ,\n");
	snprintf(buf, len, "%.*s", (int)n, p);
	return true;
}

static unsigned int port_of(const char *end)
{
	const char *c = strrchr(end, ':');

	return c ? (unsigned int)atoi(c + 1) : 0;
}

/* The ports of a line: sport=/dport=, or src=ADDR:PORT dest=ADDR:PORT. */
static bool line_ports(const struct tline *l, unsigned int *s, unsigned int *d)
{
	char a[80], b[80];

	if (field(l, "sport=", a, sizeof(a)) && field(l, "dport=", b, sizeof(b))) {
		*s = (unsigned int)atoi(a);
		*d = (unsigned int)atoi(b);
		return true;
	}
	if (field(l, "src=", a, sizeof(a)) && field(l, "dest=", b, sizeof(b))) {
		*s = port_of(a);
		*d = port_of(b);
		return true;
	}
	return false;
}

/* What a clause matches by a line's own ends (this fixture's v4 ends are all 127.0.0.1). */
struct want {
	unsigned int	port;		/* port:N */
	unsigned int	cport, sport;	/* conn: (0: not) */
};

static bool ends_match(const struct want *w, const struct tline *l)
{
	unsigned int s, d;

	if (!line_ports(l, &s, &d))
		return false;
	if (w->port)
		return s == w->port || d == w->port;
	/* a connect's first transition has no local port yet (a listener's has no remote) */
	return ((s == w->cport || !s) && d == w->sport) || (s == w->sport && d == w->cport);
}

static size_t text_lines(const char *text, struct tline *out, size_t max)
{
	size_t n = 0;

	for (const char *p = text; p && *p && n < max; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *eol = strchr(p, '\n'), *colon;
		unsigned long s, us;

		if (*p == '#')
			continue;
		if (!eol)
			eol = p + strlen(p);
		/* "... [001] ..s2.  1525.190002: event: ..." */
		colon = strstr(p, ": ");
		while (colon && colon < eol && !(colon[-1] >= '0' && colon[-1] <= '9'))
			colon = strstr(colon + 1, ": ");
		if (!colon || colon > eol)
			continue;
		{
			const char *t = colon;

			while (t > p && t[-1] != ' ')
				t--;
			if (sscanf(t, "%lu.%lu", &s, &us) != 2)
				continue;
		}
		out[n++] = (struct tline){ .p = p, .eol = eol, .us = s * 1000000ull + us };
	}
	return n;
}

/* What a line naming an skb is in a packet's life (net.h's enum net_pkt_kind). */
enum { P_NONE, P_XMIT, P_RECV, P_FREE, P_OTHER, P_TIE };

static int line_pkt(const struct tline *l, char *name, size_t len)
{
	const char *colon = strstr(l->p, ": ");
	const char *e, *p;

	/* "... 1525.190002: net_dev_xmit: skbaddr=..." */
	while (colon && colon < l->eol && !(colon[-1] >= '0' && colon[-1] <= '9'))
		colon = strstr(colon + 1, ": ");
	if (!colon || colon > l->eol)
		return P_NONE;
	p = colon + 2;
	e = strchr(p, ':');
	if (!e || e > l->eol)
		return P_NONE;
	snprintf(name, len, "%.*s", (int)(e - p), p);
	if (!strcmp(name, "net_dev_xmit"))
		return P_XMIT;
	if (!strcmp(name, "netif_receive_skb"))
		return P_RECV;
	if (!strcmp(name, "kfree_skb") || !strcmp(name, "consume_skb"))
		return P_FREE;
	return P_OTHER;
}

/* An skb address's lines since the last boundary of its packets' lives. */
struct tchain {
	size_t		line[4];
	unsigned int	n;
	int		last;
	char		last_name[32];
	bool		ours;
};

/*
 * The packet lines a clause keeps (@keep[i] set): a line with ends naming an
 * skb that matches (tcp_probe, a reset) takes the skb's lines before it
 * (within 1 ms) back to the skb's last free, last transmit (a receive right
 * after a transmit goes on with it: loopback), or last line with ends; and a
 * free right after it.
 */
static void text_packets(const struct tline *l, size_t n, const struct want *w, bool *keep)
{
	static char keys[1 << 18];
	static struct tchain ch[8192];
	struct strmap skbs = { 0 };
	size_t ko = 0, nch = 0;

	for (size_t i = 0; i < n; i++) {
		char skb[40], name[32];
		unsigned int s, d;
		struct tchain *c;
		uint64_t *v;
		bool go_on;
		int k;

		if (!field(&l[i], "skbaddr=", skb, sizeof(skb)))
			continue;
		v = strmap_get(&skbs, skb, strlen(skb));
		if (!v) {
			if (nch == 8192 || ko + 40 >= sizeof(keys))
				continue;
			strcpy(keys + ko, skb);
			v = strmap_put(&skbs, keys + ko, NULL);
			if (!v)
				continue;
			ko += strlen(skb) + 1;
			memset(&ch[nch], 0, sizeof(ch[0]));
			*v = ++nch;
		}
		c = &ch[*v - 1];
		if (line_ports(&l[i], &s, &d)) {
			bool match = ends_match(w, &l[i]);

			for (unsigned int j = 0; match && j < c->n; j++)
				if (l[c->line[j]].us + 1000 >= l[i].us)
					keep[c->line[j]] = true;
			c->n = 0;
			c->last = P_TIE;
			c->ours = match;
			continue;
		}
		k = line_pkt(&l[i], name, sizeof(name));
		if (k == P_FREE) {
			if (c->last == P_TIE && c->ours)
				keep[i] = true;
			c->n = 0;
			c->last = P_FREE;
			c->ours = false;
			continue;
		}
		if (k == P_XMIT)
			go_on = c->last == P_OTHER;
		else if (k == P_RECV)
			go_on = c->last == P_XMIT || c->last == P_OTHER ||
				(c->last == P_RECV && strcmp(c->last_name, name));
		else
			go_on = c->last != P_TIE && c->last != P_FREE;
		if (!go_on)
			c->n = 0;
		if (c->n == 4) {
			memmove(c->line, c->line + 1, 3 * sizeof(c->line[0]));
			c->n--;
		}
		c->line[c->n++] = i;
		c->last = k;
		snprintf(c->last_name, sizeof(c->last_name), "%s", name);
		c->ours = false;
	}
	strmap_destroy(&skbs);
}

/*
 * The lines a clause must keep: those whose ends match; the sock_*_length
 * and kfree_skb (rx_sk) lines of the sockets those name; the packet lines
 * joined to a matching line (text_packets; *@npkt counts them).
 */
static uint64_t text_oracle(const char *text, const struct want *w, uint64_t *npkt)
{
	static struct tline l[8192];
	static bool pkt[8192];
	struct strmap socks = { 0 };
	static char keys[1 << 16];
	size_t n = text_lines(text, l, 8192), ko = 0;
	uint64_t count = 0;

	for (size_t i = 0; i < n; i++) {
		char sk[40];

		if (!ends_match(w, &l[i]))
			continue;
		if (field(&l[i], "skaddr=", sk, sizeof(sk)) && strcmp(sk, "0000000000000000") &&
		    ko + 40 < sizeof(keys)) {
			strcpy(keys + ko, sk);
			if (strmap_put(&socks, keys + ko, NULL))
				ko += strlen(sk) + 1;
		}
	}
	memset(pkt, 0, sizeof(pkt));
	text_packets(l, n, w, pkt);
	for (size_t i = 0; i < n; i++) {
		const char *p = strstr(l[i].p, "sk address = ");
		char sk[40];
		bool keep = ends_match(w, &l[i]) || pkt[i];

		*npkt += pkt[i] && !ends_match(w, &l[i]);
		if (!keep && p && p < l[i].eol)
			keep = strmap_get(&socks, p + 13, strcspn(p + 13, ",")) != NULL;
		if (!keep && field(&l[i], "rx_sk=", sk, sizeof(sk)))
			keep = strmap_get(&socks, sk, strlen(sk)) != NULL;
		count += keep;
	}
	strmap_destroy(&socks);
	return count;
}

/* The transfer through the nftables rule: its port and its client's. */
static void nft_ports(const char *work, unsigned int *cport, unsigned int *sport)
{
	const char *p = strstr(work, "nft-drop ");

	*cport = *sport = 0;
	if (!p || sscanf(p, "nft-drop %u", sport) != 1 || !(p = strstr(p, "client ")))
		return;
	sscanf(p, "client %*d %u", cport);
}

TEST(port_and_conn_equal_the_text)
{
	struct want w = { 0 };
	uint64_t got, want, npkt = 0;
	char clause[128];
	struct vfx f;

	CHECK(vfx_open(&f, "host-net"));
	nft_ports(f.work, &w.cport, &w.sport);
	CHECK(w.cport && w.sport);
	w.port = w.sport;
	snprintf(clause, sizeof(clause), "port:%u", w.port);
	want = text_oracle(f.text, &w, &npkt);
	got = matched(f.st, clause, NULL);
	printf("# %s: %llu events, the text's reader: %llu (%llu packet events joined)\n", clause,
	       (unsigned long long)got, (unsigned long long)want, (unsigned long long)npkt);
	CHECK(want > 20);
	CHECK(npkt > 10);
	CHECK_EQ_U64(got, want);
	/* the connection alone: without the listener's events */
	w.port = 0;
	snprintf(clause, sizeof(clause), "conn:127.0.0.1:%u-127.0.0.1:%u", w.cport, w.sport);
	want = text_oracle(f.text, &w, &npkt);
	got = matched(f.st, clause, NULL);
	printf("# %s: %llu events, the text's reader: %llu\n", clause, (unsigned long long)got,
	       (unsigned long long)want);
	CHECK_EQ_U64(got, want);
	/* either direction */
	snprintf(clause, sizeof(clause), "conn:127.0.0.1:%u-127.0.0.1:%u", w.sport, w.cport);
	CHECK_EQ_U64(matched(f.st, clause, NULL), want);
	/* sends, receives and retransmits of the connection are in its timeline */
	CHECK(matched(f.st, clause, "event:sock:sock_send_length") > 0);
	CHECK(matched(f.st, clause, "event:sock:sock_recv_length") > 0);
	CHECK_EQ_U64(matched(f.st, clause, "event:tcp:tcp_retransmit_skb"),
		     matched(f.st, "event:tcp:tcp_retransmit_skb", NULL));
	vfx_close(&f);
}

/* A clause and its negation split what is held; the per-event match agrees with the index. */
TEST(negation_and_per_event_match)
{
	struct viewfilter *vf;
	struct store_stats ss;
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t a, b, seq, one = 0;
	struct vfx f;

	CHECK(vfx_open(&f, "host-net"));
	store_get_stats(f.st, &ss);
	a = matched(f.st, "port:7001", NULL);
	b = matched(f.st, "!port:7001", NULL);
	CHECK_EQ_U64(a + b, ss.events);
	CHECK_EQ_U64(matched(f.st, "addr:::1", NULL) + matched(f.st, "!addr:::1", NULL), ss.events);
	vf = viewfilter_new(f.st, NULL);
	CHECK(vf && !viewfilter_push(vf, "port:7001", NULL));
	it = store_iter_new(f.st, 0, UINT64_MAX, NULL);
	while (store_iter_next(it, &ev, &seq))
		one += viewfilter_match(vf, &ev);
	store_iter_free(it);
	viewfilter_free(vf);
	CHECK_EQ_U64(one, a);
	vfx_close(&f);
}

/* addr: by family: the state transitions of IPv6 sockets, of IPv4 ones. */
TEST(addr_by_family)
{
	struct vfx f;
	uint64_t v6 = 0, v4 = 0;

	CHECK(vfx_open(&f, "host-net"));
	for (const char *p = f.text; (p = strstr(p, " inet_sock_set_state: family=")); p++) {
		v6 += !strncmp(p + 29, "AF_INET6", 8);
		v4 += !strncmp(p + 29, "AF_INET ", 8);
	}
	CHECK(v6 > 0 && v4 > 0);
	CHECK_EQ_U64(matched(f.st, "addr:::1", "event:sock:inet_sock_set_state"), v6);
	CHECK_EQ_U64(matched(f.st, "addr:::/0", "event:sock:inet_sock_set_state"), v6 + v4);
	CHECK_EQ_U64(matched(f.st, "addr:127.0.0.0/8", "event:sock:inet_sock_set_state"), v4);
	CHECK_EQ_U64(matched(f.st, "addr:10.0.0.0/8", NULL), 0);
	vfx_close(&f);
}

/* Refusals: exit 2 on the command line, with the caret where the mistake is. */
TEST(refusals_point_at_the_mistake)
{
	static const struct {
		const char	*text;
		int		offset;
		const char	*says;
	} bad[] = {
		{ "port:0", 5, "1-65535" },
		{ "port:80,x", 8, "port numbers" },
		{ "port:", 5, "port numbers" },
		{ "addr:1.2.3", 5, "IPv4 or IPv6" },
		{ "addr:10.0.0.0/33", 5, "/LEN" },
		{ "conn:1.2.3.4:80", 15, "IP:PORT-IP:PORT" },
		{ "conn:1.2.3.4-5.6.7.8:9", 12, "this end" },
		{ "conn:[::1]:80-[::1]", 19, "this end" },
		{ "conn:1.2.3.4:80-5.6.7.8:70000", 24, "this end" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err_pos err = { 0 };

		CHECK(viewfilter_check(bad[i].text, &err) == -EINVAL);
		if (err.offset != bad[i].offset || !strstr(err.msg, bad[i].says))
			printf("# %s: offset %d '%s'\n", bad[i].text, err.offset, err.msg);
		CHECK(err.offset == bad[i].offset);
		CHECK(strstr(err.msg, bad[i].says));
	}
	CHECK(!viewfilter_check("port:22,443", NULL));
	CHECK(!viewfilter_check("!addr:fe80::/10", NULL));
	CHECK(!viewfilter_check("conn:[::1]:80-[::1]:5555", NULL));
	CHECK(!viewfilter_check("conn:10.0.0.1:80-10.0.0.2:5555", NULL));
}

TEST_MAIN()

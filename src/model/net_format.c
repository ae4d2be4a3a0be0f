// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network model's view of the events (src/model/net.h): each type's
 * fields found by name in its schema, as the decoder kept them from the
 * running kernel's format (6.1, 6.12 and 6.18 name and lay them out
 * differently), and the value -> name tables of the formats' print fmt.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>

#include "lib/intern.h"
#include "lib/strutil.h"
#include "net-local.h"
#include "store/schema.h"

const char *const net_event_names[] = {
	"sock:inet_sock_set_state", "sock:sock_send_length", "sock:sock_recv_length",
	"tcp:tcp_retransmit_skb", "tcp:tcp_send_reset", "tcp:tcp_receive_reset",
	"tcp:tcp_destroy_sock", "tcp:tcp_probe", "skb:kfree_skb", NULL,
};

const char *const net_trace_events[] = {
	"sock:inet_sock_set_state", "sock:sock_send_length", "sock:sock_recv_length",
	"tcp:tcp_retransmit_skb", "tcp:tcp_send_reset", "tcp:tcp_receive_reset",
	"tcp:tcp_destroy_sock", "skb:kfree_skb", "net:net_dev_xmit", "net:netif_receive_skb",
	"sched:sched_process_fork", "sched:sched_process_exec", "task:task_rename", NULL,
};

static const struct {
	const char	*system, *name;
	uint8_t		kind;
} kinds[] = {
	{ "sock", "inet_sock_set_state", NK_STATE },
	{ "tcp", "tcp_retransmit_skb", NK_RETRANS },
	{ "tcp", "tcp_send_reset", NK_SEND_RESET },
	{ "tcp", "tcp_receive_reset", NK_RECV_RESET },
	{ "tcp", "tcp_destroy_sock", NK_DESTROY },
	{ "tcp", "tcp_probe", NK_PROBE },
	{ "sock", "sock_send_length", NK_SEND_LEN },
	{ "sock", "sock_recv_length", NK_RECV_LEN },
	{ "skb", "kfree_skb", NK_KFREE_SKB },
	{ "task", "task_rename", NK_RENAME },
	{ "sched", "sched_process_fork", NK_FORK },
};

/* Field names, by enum net_field; a field may go by more than one name. */
static const char *const field_names[NF_NR][3] = {
	[NF_PID]	= { "child_pid", "pid" },	/* the fork's child, the renamed task */
	[NF_COMM]	= { "child_comm", "newcomm" },
	[NF_SK]		= { "skaddr", "sk" },
	[NF_SKB]	= { "skbaddr" },
	[NF_RX_SK]	= { "rx_sk" },
	[NF_OLDSTATE]	= { "oldstate" },
	[NF_NEWSTATE]	= { "newstate" },
	[NF_STATE]	= { "state" },
	[NF_SPORT]	= { "sport" },
	[NF_DPORT]	= { "dport" },
	[NF_FAMILY]	= { "family" },
	[NF_PROTO]	= { "protocol" },
	[NF_SADDR]	= { "saddr" },
	[NF_DADDR]	= { "daddr" },
	[NF_SADDR6]	= { "saddr_v6" },
	[NF_DADDR6]	= { "daddr_v6" },
	[NF_COOKIE]	= { "sock_cookie" },
	[NF_REASON]	= { "reason" },
	[NF_LOCATION]	= { "location" },
	[NF_RET]	= { "ret" },
	[NF_FLAGS]	= { "flags" },
	[NF_DATA_LEN]	= { "data_len" },
	[NF_SND_UNA]	= { "snd_una" },
	[NF_CWND]	= { "snd_cwnd" },
	[NF_SSTHRESH]	= { "ssthresh" },
	[NF_SRTT]	= { "srtt" },
};

int net_tmap_resolve(const struct schema *sc, uint16_t id, bool any, struct net_tmap *out)
{
	const struct ktop_schema_type *t = schema_get(sc, id);

	memset(out, 0, sizeof(*out));
	memset(out->slot, -1, sizeof(out->slot));
	out->kind = NK_NONE;
	if (!t)
		return 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(t->name, kinds[i].name) && !strcmp(t->system, kinds[i].system))
			out->kind = kinds[i].kind;
	if (out->kind == NK_NONE && !any)
		return 0;
	for (unsigned int f = 0; f < NF_NR; f++) {
		for (unsigned int k = 0; k < 3 && field_names[f][k]; k++) {
			for (unsigned int a = 0; a < t->nfields; a++) {
				if (strcmp(t->fields[a].name, field_names[f][k]))
					continue;
				out->slot[f] = (int8_t)a;
				out->fk[f] = (uint8_t)t->fields[a].kind;
				break;
			}
			if (out->slot[f] >= 0)
				break;
		}
	}
	return 0;
}

/* The bytes of an array field (kept as a hex string). Return: how many, 0: none. */
static size_t arg_bytes(const struct intern *strs, const struct net_tmap *t, enum net_field f,
			const struct ktop_event *ev, uint8_t *out, size_t max)
{
	const char *s;
	size_t len, i;

	if (!has(t, f, ev) || t->fk[f] != KTOP_FK_STR)
		return 0;
	s = intern_str(strs, (uint32_t)ev->args[t->slot[f]]);
	len = strlen(s);
	if (len % 2 || len / 2 > max)
		return 0;
	for (i = 0; i < len / 2; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return 0;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return len / 2;
}

/* A 28-byte sockaddr_in/in6 as the kernel copies it: family (host order), port (network). */
static bool sockaddr_end(const uint8_t *b, size_t len, struct net_endpoint *e)
{
	uint16_t fam = (uint16_t)(b[0] | b[1] << 8);

	if (len < 24)
		return false;
	memset(e, 0, sizeof(*e));
	e->port = (uint16_t)(b[2] << 8 | b[3]);
	if (fam == AF_INET) {
		e->family = AF_INET;
		memcpy(e->addr, b + 4, 4);
		return true;
	}
	if (fam == AF_INET6) {
		e->family = AF_INET6;
		memcpy(e->addr, b + 8, 16);
		return true;
	}
	return false;	/* AF_UNSPEC: nothing was stored */
}

static bool v4mapped(const uint8_t *a)
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(a, pre, 12);
}

bool net_ev_ends(const struct intern *strs, const struct net_tmap *t,
		 const struct ktop_event *ev, struct net_endpoint *s, struct net_endpoint *d)
{
	uint8_t sb[28], db[28], s6[16], d6[16];
	size_t sl = arg_bytes(strs, t, NF_SADDR, ev, sb, sizeof(sb));
	size_t dl = arg_bytes(strs, t, NF_DADDR, ev, db, sizeof(db));
	uint64_t fam = has(t, NF_FAMILY, ev) ? arg(t, NF_FAMILY, ev) : 0;

	memset(s, 0, sizeof(*s));
	memset(d, 0, sizeof(*d));
	if (sl >= 24 && dl >= 24) {
		if (!sockaddr_end(sb, sl, s) || !sockaddr_end(db, dl, d))
			return false;
	} else {
		bool six = arg_bytes(strs, t, NF_SADDR6, ev, s6, 16) == 16 &&
			   arg_bytes(strs, t, NF_DADDR6, ev, d6, 16) == 16;

		if (!fam && six)
			fam = (v4mapped(s6) || zero16(s6)) && (v4mapped(d6) || zero16(d6)) &&
			      sl == 4 ? AF_INET : AF_INET6;
		if (fam == AF_INET6 && six) {
			s->family = d->family = AF_INET6;
			memcpy(s->addr, s6, 16);
			memcpy(d->addr, d6, 16);
		} else if (sl == 4 && dl == 4) {
			s->family = d->family = AF_INET;
			memcpy(s->addr, sb, 4);
			memcpy(d->addr, db, 4);
		} else {
			return false;
		}
	}
	if (has(t, NF_SPORT, ev))
		s->port = (uint16_t)arg(t, NF_SPORT, ev);
	if (has(t, NF_DPORT, ev))
		d->port = (uint16_t)arg(t, NF_DPORT, ev);
	return true;
}

/* ---- symbol tables ---------------------------------------------------------------- */

void net_symtab_free(struct net_symtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t->val);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

const char *net_symtab_find(const struct net_symtab *t, int64_t v)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->val[mid] == v)
			return t->name[mid];
		if (t->val[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* A C string literal at @p (no escapes in these names). Return: past it, or NULL. */
static const char *str_lit(const char *p, const char **s, size_t *len)
{
	const char *e;

	if (*p != '"')
		return NULL;
	e = strchr(p + 1, '"');
	if (!e)
		return NULL;
	*s = p + 1;
	*len = (size_t)(e - p - 1);
	return e + 1;
}

static int sym_add(struct net_symtab *t, size_t *cap, int64_t v, const char *s, size_t len)
{
	size_t i;

	if (net_symtab_find(t, v))
		return 0;	/* the first name of a value wins */
	if (t->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		int64_t *nv = realloc(t->val, nc * sizeof(*nv));
		char **nn;

		if (!nv)
			return -ENOMEM;
		t->val = nv;
		nn = realloc(t->name, nc * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		t->name = nn;
		*cap = nc;
	}
	for (i = t->n; i > 0 && t->val[i - 1] > v; i--) {
		t->val[i] = t->val[i - 1];
		t->name[i] = t->name[i - 1];
	}
	t->name[i] = strndup(s, len);
	if (!t->name[i]) {
		memmove(&t->val[i], &t->val[i + 1], (t->n - i) * sizeof(*t->val));
		memmove(&t->name[i], &t->name[i + 1], (t->n - i) * sizeof(*t->name));
		return -ENOMEM;
	}
	t->val[i] = v;
	t->n++;
	return 0;
}

int net_symtab_parse(const char *text, const char *field, struct net_symtab *t)
{
	const char *p = text ? strstr(text, "print fmt:") : NULL;
	char key[96];
	size_t cap = 0;
	int ret;

	net_symtab_free(t);
	if (!p)
		return 0;
	snprintf(key, sizeof(key), "__print_symbolic(REC->%s,", field);
	p = strstr(p, key);
	if (!p)
		return 0;
	p += strlen(key);
	for (;;) {
		const char *s, *q;
		size_t len;
		char *end;
		long long v;

		p = skip_ws(p);
		if (*p != '{')
			break;
		p = skip_ws(p + 1);
		v = strtoll(p, &end, 0);
		q = skip_ws(end);
		if (end == p || *q != ',') {
			/* not a number (TCP_ESTABLISHED): skip the pair */
			q = strchr(p, '}');
			if (!q)
				break;
			p = skip_ws(q + 1);
			if (*p != ',')
				break;
			p++;
			continue;
		}
		q = skip_ws(q + 1);
		q = str_lit(q, &s, &len);
		if (!q)
			break;
		q = skip_ws(q);
		if (*q != '}')
			break;
		ret = sym_add(t, &cap, v, s, len);
		if (ret)
			return ret;
		p = skip_ws(q + 1);
		if (*p != ',')
			break;
		p++;
	}
	return (int)t->n;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff's network tables, from each side's network model (src/model/net.h,
 * made as the Net pane makes it: app_net_new): connections matched by task
 * and peer, drops by reason.
 *
 * A connection is named by what stays the same from one recording to the
 * next: the task's comm, the protocol, and the far end it connected to (a
 * client: "-> 10.0.0.2:443"), the local end it served on (a server:
 * "<- 10.0.0.1:80"), or the port it listened on. Ephemeral ports and socket
 * addresses are left out, so the connections of a workload run twice match.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "diff-local.h"
#include "model/net.h"

#define NET_ROWS_MAX	100000

static struct net *side_net(struct diff_side *s)
{
	if (!s->ready)
		return NULL;
	if (!s->net && !s->net_tried) {
		s->net_tried = true;
		if (!app_net_present(s->a))
			return NULL;
		s->net = app_net_new(s->a);
		if (s->net && s->vf)
			net_set_keep(s->net, diff_keep, s->vf);
	}
	if (s->net && net_update(s->net, s->t1) < 0)
		return NULL;
	return s->net;
}

static void net_prep(struct diff_side *s, void *arg)
{
	(void)arg;
	side_net(s);
}

static bool conn_active(const struct net_conn_row *c)
{
	for (unsigned int k = 0; k < c->ntrans && k < NET_MAX_TRANS; k++)
		if (c->trans[k].to == NET_TCP_SYN_SENT)
			return true;
	return false;
}

static void conn_key(const struct net_conn_row *c, char *buf, size_t len)
{
	char proto[16], ep[NET_ADDR_STRLEN];

	net_proto_name(c->proto, proto, sizeof(proto));
	if (c->listener)
		snprintf(buf, len, "%s %s listen :%u", c->comm && *c->comm ? c->comm : "?", proto,
			 c->local.port);
	else if (conn_active(c))
		snprintf(buf, len, "%s %s -> %s", c->comm && *c->comm ? c->comm : "?", proto,
			 net_endpoint_str(&c->remote, ep, sizeof(ep)));
	else
		snprintf(buf, len, "%s %s <- %s", c->comm && *c->comm ? c->comm : "?", proto,
			 net_endpoint_str(&c->local, ep, sizeof(ep)));
}

void diff_make_conns(struct diff *d, struct diff_build *b)
{
	struct net_query q = { .sort = NET_BY_AGE };

	diff_sides_run(d, net_prep, (void *[]){ NULL, NULL });
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct net *n = side_net(s);
		struct net_conn_row *rows;
		struct net_totals tot;
		struct diff_row *all;
		size_t nr;

		if (!n)
			continue;
		net_totals(n, &tot);
		nr = net_conns(n, &q, NULL, 0);
		if (nr > NET_ROWS_MAX)
			nr = NET_ROWS_MAX;
		rows = malloc((nr ? nr : 1) * sizeof(*rows));
		if (!rows) {
			b->err = -ENOMEM;
			return;
		}
		nr = net_conns(n, &q, rows, nr);
		if (nr > NET_ROWS_MAX)
			nr = NET_ROWS_MAX;
		all = diff_build_row(b, "(all)", 5, NULL);
		if (!all)
			break;
		all->in |= i == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
		all->v[i][0] = diff_rate(s, (double)tot.opened);
		all->v[i][3] = diff_rate(s, (double)tot.retransmits);
		all->v[i][4] = diff_rate(s, (double)tot.resets);
		all->v[i][5] = diff_rate(s, (double)tot.drops);
		for (size_t k = 0; k < nr; k++) {
			const struct net_conn_row *c = &rows[k];
			char key[256];
			struct diff_row *r;
			double *v;

			conn_key(c, key, sizeof(key));
			r = diff_build_row(b, key, strlen(key), NULL);
			if (!r)
				break;
			r->in |= i == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
			if (r->pid[i] < 0)
				r->pid[i] = c->pid;
			v = r->v[i];
			v[0] += diff_rate(s, c->seen_open ? 1 : 0);
			v[1] += diff_rate(s, (double)c->bytes_sent);
			v[2] += diff_rate(s, (double)c->bytes_received);
			v[3] += diff_rate(s, c->retransmits);
			v[4] += diff_rate(s, (double)c->rst_sent + c->rst_received);
			v[5] += diff_rate(s, c->drops);
			/* (all) is found again: adding rows may have moved it */
			all = diff_build_row(b, "(all)", 5, NULL);
			if (!all)
				break;
			all->v[i][1] += diff_rate(s, (double)c->bytes_sent);
			all->v[i][2] += diff_rate(s, (double)c->bytes_received);
		}
		b->t->have[i] = tot.events > 0;
		free(rows);
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither recording has network events (--net)");
	else
		snprintf(b->t->note, sizeof(b->t->note),
			 "connections closed over %llu s before a recording's end are in "
			 "(all) only", (unsigned long long)(NET_KEEP_CLOSED_NS / 1000000000));
}

void diff_make_drops(struct diff *d, struct diff_build *b)
{
	diff_sides_run(d, net_prep, (void *[]){ NULL, NULL });
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct net *n = side_net(s);
		struct net_drop_row *rows;
		struct net_totals tot;
		size_t nr;

		if (!n)
			continue;
		net_totals(n, &tot);
		nr = net_drops(n, NET_DROPS_BY_REASON, NULL, 0);
		rows = malloc((nr ? nr : 1) * sizeof(*rows));
		if (!rows) {
			b->err = -ENOMEM;
			return;
		}
		nr = net_drops(n, NET_DROPS_BY_REASON, rows, nr);
		for (size_t k = 0; k < nr; k++) {
			char num[32];
			const char *name = rows[k].reason_name;

			if (!name || !*name) {
				snprintf(num, sizeof(num), "%lld", (long long)rows[k].reason);
				name = num;
			}
			diff_build_add(b, i, name, 0, diff_rate(s, (double)rows[k].count));
		}
		b->t->have[i] = tot.have_drops;
		free(rows);
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither recording has skb:kfree_skb events (--net)");
}

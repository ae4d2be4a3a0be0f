/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network view of --batch/--json (issue 25): "Connections" and "Drops"
 * from the network model (src/model/net.h), fed from the store every
 * interval. Present when the run has network events (--net, or a recording
 * holding them); every call accepts NULL.
 */
#ifndef KTOP_BATCH_NET_H
#define KTOP_BATCH_NET_H

#include <stdint.h>
#include <stdio.h>

struct app;
struct viewfilter;
struct batch_net;

/* Return: the view, or NULL when the run has no network events (or on ENOMEM). */
struct batch_net *batch_net_new(struct app *a, struct viewfilter *vf);
void batch_net_free(struct batch_net *bn);

/*
 * Feed what arrived, up to a little behind the newest events (@t1 0), or up
 * to @t1. Under a view filter the model is fed only the events it keeps.
 * Context: the batch thread.
 */
void batch_net_update(struct batch_net *bn, uint64_t t1);

/* "Connections" and "Drops" as text. */
void batch_net_text(struct batch_net *bn, FILE *o);

/* ,"connections":[...],"connections_total":N,"drops":[...],"net":{...} */
void batch_net_json(struct batch_net *bn, FILE *o);

#endif

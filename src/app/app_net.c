// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network model of this run (src/model/net.h), for the Net pane, --batch
 * and the exporters: its row budget from -m, the symbol tables of the event
 * formats the events were recorded with (a recording's own, or the running
 * kernel's), and kallsyms where the kernel's kfree_skb format leaves the drop
 * location an address (6.1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "kernel/session.h"
#include "kernel/symbols.h"
#include "lib/err.h"
#include "lib/file.h"
#include "model/net.h"
#include "store/meta.h"

/* The format text of @sys:@name for this run (free it), or NULL. */
static char *app_format(const struct app *a, const char *sys, const char *name)
{
	const struct snapshot_meta *m = app_recording_meta(a);
	char path[512], *text = NULL;
	const char *t;

	if (m) {
		t = snapshot_meta_format(m, sys, name);
		return t ? strdup(t) : NULL;
	}
	if (!(app_flags(a) & SOURCE_KERNEL) || !a->ft.tracefs[0])
		return NULL;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", a->ft.tracefs, sys, name);
	if (file_read(path, FILE_NO_MAX, &text, NULL))
		return NULL;
	return text;
}

static struct symbols *app_kallsyms(const struct app *a)
{
	const struct snapshot_meta *m = app_recording_meta(a);

	if (m)
		return m->kallsyms ? symbols_parse(m->kallsyms, strlen(m->kallsyms), 0) : NULL;
	return symbols_load("/proc/kallsyms");
}

bool app_net_present(const struct app *a)
{
	const struct snapshot_meta *m = app_recording_meta(a);

	if (!m)
		return a->opts.net;
	for (unsigned int i = 0; net_event_names[i]; i++) {
		const char *ev = net_event_names[i], *colon = strchr(ev, ':');
		char sys[32];

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev), ev);
		if (snapshot_meta_format(m, sys, colon + 1))
			return true;
	}
	return false;
}

struct net *app_net_new(struct app *a)
{
	struct net_config cfg = { .max_conns = net_max_conns_for(a->opts.memory) };
	struct net *n = net_new(a->st, &cfg);
	bool syms = false;

	if (!n)
		return NULL;
	for (unsigned int i = 0; net_event_names[i]; i++) {
		const char *ev = net_event_names[i], *colon = strchr(ev, ':');
		char sys[32], *text;

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev), ev);
		text = app_format(a, sys, colon + 1);
		if (!text)
			continue;
		net_load_format(n, sys, colon + 1, text);
		if (!strcmp(ev, "skb:kfree_skb"))
			syms = net_location_needs_symbols(text);
		free(text);
	}
	if (syms)
		net_set_symbols(n, app_kallsyms(a), true);
	return n;
}

int app_net_probe(struct app *a, bool *on, char *err, size_t errlen)
{
	struct session *s = app_session(a);
	char path[600], *text = NULL;
	int ret;

	if (!s)
		return err_set(err, errlen, -ENODEV, "a recording: there is no kernel to ask");
	if (!a->opts.net)
		return err_set(err, errlen, -EINVAL, "start ktop with --net (or --net=probe): its "
			       "decoders know the tcp events then");
	snprintf(path, sizeof(path), "%s/events/tcp/tcp_probe/enable", session_dir(s));
	if (file_read(path, 64, &text, NULL))
		return err_set(err, errlen, -ENOENT, "this kernel has no tcp:tcp_probe");
	*on = text[0] != '1';
	free(text);
	ret = session_enable_event(s, "tcp", "tcp_probe", *on);
	if (ret)
		return err_set(err, errlen, ret, "cannot %s it in %s: %s", *on ? "enable" : "disable",
			       session_dir(s), strerror(-ret));
	return 0;
}

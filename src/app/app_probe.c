// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes made while tracing: the probe prompt's actions (see app.h). The
 * library (src/probe/probe.h) defines and removes; here a new probe joins the run:
 * its format goes into the session's tep, the decoders learn it with the
 * readers stopped (they index their table by the kernel's event id without a
 * lock, and the kernel may hand a removed probe's id to the next one), then it
 * is enabled in ktop's instance. A failure at any step takes the earlier ones
 * back: nothing is left half made.
 *
 * Hits per second in the probe list come from the kernel's own counts,
 * uprobe_profile and kprobe_profile, which count every hit, before the ring
 * buffer and whether ktop keeps up or not. fprobe and eprobe events have no
 * such file: the prompt counts their stored events instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "app.h"
#include "ingest/consumer.h"
#include "lib/debug.h"
#include "ingest/decode.h"
#include "lib/err.h"
#include "lib/file.h"
#include "probe/probe.h"
#include "store/schema.h"
#include "kernel/session.h"
#include "source/source_live.h"
#include "formats/format.h"
#include "lib/tuning.h"

/* the live source's state: valid once app_probe_why() said nothing against */
#define LS(a) live_src(a)

/* The format text of every probe made from the prompt, for saves after a removal. */
struct app_probe_log {
	unsigned int	n, cap;
	struct {
		char	*system;
		char	*text;
	}		*fmt;
};

const char *app_probe_why(struct app *a)
{
	if (live_src(a) && LS(a)->probes)
		return NULL;
	if (!live_src(a) || !LS(a)->sess) {
		if (a->opts.input && strcmp(a->opts.input, "-"))
			snprintf(a->probe_why, sizeof(a->probe_why), "viewing a recording (%s): "
				 "there is no kernel to probe; probes need ktop tracing live",
				 a->opts.input);
		else
			snprintf(a->probe_why, sizeof(a->probe_why), "viewing a %s: there is no "
				 "kernel to probe here; probes need ktop tracing live",
				 a->opts.input ? "stream" : "recording");
		return a->probe_why;
	}
	if (!a->probe_tried) {
		a->probe_tried = true;
		if (probe_set_new(&LS(a)->probes, a->ft.tracefs, tuning()->probe_btf, a->probe_why,
				  sizeof(a->probe_why))) {
			LS(a)->probes = NULL;
			return a->probe_why;
		}
		/* from the first definition on, a crash removes them too */
		session_set_emergency_hook(probe_emergency);
		return NULL;
	}
	return a->probe_why;
}

const char *app_probe_group(const struct app *a)
{
	struct live_src *ls = live_src(a);

	return ls && ls->probes ? probe_set_group(ls->probes) : "";
}

const struct probe_caps *app_probe_caps(struct app *a)
{
	return app_probe_why(a) ? NULL : probe_set_caps(LS(a)->probes);
}

int app_probe_preview(struct app *a, const char *spec, struct probe_def *def, char *err,
		      size_t errlen)
{
	const char *why = app_probe_why(a);

	if (why)
		return err_set(err, errlen, -ENODEV, "%s", why);
	return probe_preview(LS(a)->probes, spec, def, err, errlen);
}

int app_probe_proto(struct app *a, const char *func, char *buf, size_t len)
{
	return app_probe_why(a) ? -ENODEV : probe_proto(LS(a)->probes, func, buf, len);
}

int app_probe_complete(struct app *a, const char *text, size_t cursor, char **out, size_t max,
		       size_t *start)
{
	*start = cursor;
	return app_probe_why(a) ? 0 : probe_complete(LS(a)->probes, text, cursor, out, max, start);
}

void app_probe_kinds_one(struct app *a, const struct probe_def *d)
{
	struct ktop_field f[PROBE_MAX_FIELDS];

	for (unsigned int k = 0; k < d->nfields; k++) {
		f[k].name = d->fields[k].name;
		f[k].kind = d->fields[k].kind;
	}
	decode_ctx_set_kinds(LS(a)->dc, d->group, d->event, f, d->nfields);
}

/* Keep @d's format text for saves (best effort: a save then misses it). */
static void log_format(struct app *a, const struct probe_def *d)
{
	char path[1024], *text;
	struct app_probe_log *l;

	if (!a->probe_log)
		a->probe_log = calloc(1, sizeof(*a->probe_log));
	l = a->probe_log;
	if (!l)
		return;
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 8;
		void *nf = realloc(l->fmt, cap * sizeof(*l->fmt));

		if (!nf)
			return;
		l->fmt = nf;
		l->cap = cap;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", a->ft.tracefs, d->group, d->event);
	file_read(path, FILE_NO_MAX, &text, NULL);	/* NULL when unreadable */
	l->fmt[l->n].system = strdup(d->group);
	l->fmt[l->n].text = text;
	if (!text || !l->fmt[l->n].system) {
		free(text);
		free(l->fmt[l->n].system);
		return;
	}
	l->n++;
}

/*
 * The format of @d's event, defined after the session opened, into the
 * session's tep. A later probe may take a removed one's id: both formats stay
 * there, found by name (the readers use the decoders' table, not the tep's).
 * Return: the tep's event, or NULL with errno set.
 */
static struct tep_event *tep_add_probe(struct app *a, const struct probe_def *d)
{
	struct tep_handle *tep = session_tep(LS(a)->sess);
	struct tep_event *ev;
	char path[1024];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", a->ft.tracefs, d->group, d->event);
	errno = -file_read(path, FILE_NO_MAX, &buf, &len);
	if (!buf)
		return NULL;
	errno = EINVAL;
	ev = tep_parse_event(tep, buf, len, d->group) ? NULL :
		tep_find_event_by_name(tep, d->group, d->event);
	free(buf);
	return ev;
}

/* The readers take the new event: its format into the tep, then the decoders. */
static int probe_decode(struct app *a, const struct probe_def *d, char *err, size_t errlen)
{
	struct tep_event *ev;
	int ret;

	ev = tep_add_probe(a, d);
	if (!ev)
		return err_set(err, errlen, errno ? -errno : -EINVAL, "cannot read the format of "
			       "%s/%s: %s", d->group, d->event, strerror(errno ? errno : EINVAL));
	app_readers_stop(a);
	ret = decode_ctx_add_event(LS(a)->dc, ev);
	if (ret)
		err_set(err, errlen, ret, "cannot decode %s/%s: %s", d->group, d->event,
			strerror(-ret));
	else
		app_probe_kinds_one(a, d);
	return app_readers_start(a, err, errlen) ?: ret;
}

int app_probe_add(struct app *a, const char *spec, struct probe_def *def, char *err,
		  size_t errlen)
{
	const char *why = app_probe_why(a);
	struct probe_def *d;
	char rb[256], *mark;
	int ret;

	err[0] = '\0';
	if (why)
		return err_set(err, errlen, -ENODEV, "%s", why);
	d = calloc(1, sizeof(*d));
	if (!d)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	debug_step("probe: the prompt's Enter");
	ret = probe_create(LS(a)->probes, spec, d, err, errlen);
	debug_step("probe: defined");
	if (ret)
		goto out;
	ret = probe_decode(a, d, err, errlen);
	debug_step("probe: readers stopped and started");
	if (!ret) {
		ret = session_enable_event(LS(a)->sess, d->group, d->event, true);
		debug_step("probe: enabled");
		if (ret)
			err_set(err, errlen, ret, "cannot enable %s/%s in %s: %s", d->group,
				d->event, session_dir(LS(a)->sess), strerror(-ret));
	}
	if (ret) {
		session_enable_event(LS(a)->sess, d->group, d->event, false);
		if (probe_remove(LS(a)->probes, d->event, rb, sizeof(rb)))
			snprintf(err + strlen(err), errlen - strlen(err), "; %s", rb);
		goto out;
	}
	log_format(a, d);
	mark = malloc(PROBE_TEXT_MAX + 64);
	if (mark) {
		probe_fmt(mark, PROBE_TEXT_MAX + 64, "ktop: probe %s/%s: %s", d->group, d->event,
			  d->line);
		app_mark(a, mark);
		free(mark);
	}
	if (def)
		*def = *d;
out:
	free(d);
	return ret;
}

int app_probe_remove(struct app *a, const char *event, char *err, size_t errlen)
{
	const char *why = app_probe_why(a);
	int ret;

	if (why)
		return err_set(err, errlen, -ENODEV, "%s", why);
	ret = session_enable_event(LS(a)->sess, probe_set_group(LS(a)->probes), event, false);
	if (ret && ret != -ENOENT)
		return err_set(err, errlen, ret, "cannot disable %s/%s: %s",
			       probe_set_group(LS(a)->probes), event, strerror(-ret));
	ret = probe_remove(LS(a)->probes, event, err, errlen);
	if (!ret) {
		char mark[160];

		snprintf(mark, sizeof(mark), "ktop: probe %s/%s removed",
			 probe_set_group(LS(a)->probes), event);
		app_mark(a, mark);
	}
	return ret;
}

int app_probe_enable(struct app *a, const char *event, bool on, char *err, size_t errlen)
{
	const char *why = app_probe_why(a);
	int ret;

	if (why)
		return err_set(err, errlen, -ENODEV, "%s", why);
	ret = session_enable_event(LS(a)->sess, probe_set_group(LS(a)->probes), event, on);
	if (ret)
		return err_set(err, errlen, ret, "cannot %s %s/%s: %s", on ? "enable" : "disable",
			       probe_set_group(LS(a)->probes), event, strerror(-ret));
	return 0;
}

/* ---- the probe list ---------------------------------------------------------- */

/*
 * Hits of @d in a profile file's text: uprobe_profile lines are
 * "  PATH EVENT HITS", kprobe_profile's "  EVENT HITS MISSES". Both name the
 * event without its group: a line of another group's event of the same name
 * (and, for uprobes, the same file) makes it ambiguous, and then no count.
 */
static bool profile_hits(const char *text, const struct probe_def *d, bool user, uint64_t *hits)
{
	char path[PROBE_TEXT_MAX] = "", file[PROBE_TEXT_MAX], name[PROBE_NAME_MAX];
	char full[2 * PROBE_NAME_MAX + 2];
	const char *place = strchr(d->line, ' ');
	int found = 0;

	if (user && place) {
		snprintf(path, sizeof(path), "%.*s", (int)strcspn(place + 1, " "), place + 1);
		if (strrchr(path, ':'))
			*strrchr(path, ':') = '\0';
	}
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		unsigned long long h;
		int n;

		if (user)
			n = sscanf(p, "%4095s %63s %llu", file, name, &h) == 3 && !strcmp(file, path);
		else
			n = sscanf(p, "%63s %llu", name, &h) == 2;
		if (!n)
			continue;
		snprintf(full, sizeof(full), "%s/%s", d->group, d->event);
		if (!strcmp(name, d->event) || !strcmp(name, full)) {
			*hits = h;
			found++;
		}
	}
	return found == 1;
}

/* Return: 1 when @d's event is enabled in the session's directory, 0 when not, -errno. */
static int event_enabled(struct app *a, const struct probe_def *d)
{
	char path[1024], text[16];
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", session_dir(LS(a)->sess), d->group,
		 d->event);
	ret = file_read_value(path, text, sizeof(text));
	return ret ? ret : text[0] == '1';
}

unsigned int app_probe_list(struct app *a, struct app_probe_info *out, unsigned int max)
{
	unsigned int n = live_src(a) ? probe_set_count(LS(a)->probes) : 0, i;
	char path[512], *prof[2] = { NULL, NULL };
	static const char *const files[2] = { "kprobe_profile", "uprobe_profile" };

	if (n > max)
		n = max;
	for (i = 0; n && i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", a->ft.tracefs, files[i]);
		file_read(path, FILE_NO_MAX, &prof[i], NULL);	/* NULL when unreadable */
	}
	for (i = 0; i < n; i++) {
		const struct probe_def *d = probe_set_get(LS(a)->probes, i);
		bool user = d->kind == PROBE_UPROBE || d->kind == PROBE_URETPROBE;
		bool kern = d->kind == PROBE_KPROBE || d->kind == PROBE_KRETPROBE;

		memset(&out[i], 0, sizeof(out[i]));
		out[i].def = d;
		out[i].enabled = live_src(a) && LS(a)->sess ? event_enabled(a, d) : -ENODEV;
		if ((user || kern) && prof[user]) {
			out[i].have_hits = profile_hits(prof[user], d, user, &out[i].hits);
			out[i].hits_from = files[user];
		}
	}
	free(prof[0]);
	free(prof[1]);
	return n;
}

void app_probe_forget(struct app *a)
{
	struct app_probe_log *l = a->probe_log;

	for (unsigned int i = 0; l && i < l->n; i++) {
		free(l->fmt[i].system);
		free(l->fmt[i].text);
	}
	if (l)
		free(l->fmt);
	free(l);
	a->probe_log = NULL;
	a->probe_tried = false;
}

void app_probe_formats(const struct app *a, struct snapshot_meta *m)
{
	const struct app_probe_log *l = a->probe_log;

	for (unsigned int i = 0; l && i < l->n; i++) {
		bool have = false;

		for (size_t f = 0; f < m->nformats && !have; f++)
			have = !strcmp(m->formats[f].text, l->fmt[i].text);
		if (!have)
			snapshot_meta_add_format(m, l->fmt[i].system, l->fmt[i].text);
	}
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live source's probes (source.h: struct source_probe_ops; app.h says
 * what each action does): --probe's, made before the session opens, and the
 * probe prompt's, made while tracing. The library (src/probe/probe.h)
 * defines and removes; here a new probe joins the run:
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

#include "ingest/consumer.h"
#include "lib/debug.h"
#include "ingest/decode.h"
#include "lib/err.h"
#include "lib/file.h"
#include "lib/strutil.h"
#include "probe/probe.h"
#include "store/schema.h"
#include "kernel/session.h"
#include "live-local.h"
#include "store/meta.h"
#include "lib/tuning.h"

/* The format text of every probe made from the prompt, for saves after a removal. */
struct live_probe_log {
	unsigned int	n, cap;
	struct {
		char	*system;
		char	*text;
	}		*fmt;
};

/* ktop's probe set; from its first definition on, a crash removes them too. */
static int make_set(struct live_src *ls, char *err, size_t errlen)
{
	int ret = probe_set_new(&ls->probes, ls->ft.tracefs, tuning()->probe_btf, err, errlen);

	if (ret) {
		ls->probes = NULL;
		return ret;
	}
	session_set_emergency_hook(probe_emergency);
	return 0;
}

/*
 * --probe: ktop's probe events, all defined or none, before the session
 * enables their group in its instance (and reads their formats with the
 * others'). Return: 0, or a negative errno with @err naming the spec.
 */
int live_probe_start(struct live_src *ls, char *err, size_t errlen)
{
	struct session_opts *so = &ls->so;
	int ret;

	/* a SIGKILLed ktop's probes: its instance went with session_reap_stale() */
	probe_reap_stale(ls->ft.tracefs, session_ktop_alive);
	if (!ls->args.nprobes)
		return 0;
	if (so->nevents >= SESSION_MAX_LIST)
		return err_set(err, errlen, -E2BIG, "too many -e options to add the probes' group");
	ret = make_set(ls, err, errlen);
	if (ret)
		return ret;
	ret = probe_create_all(ls->probes, ls->args.probes, ls->args.nprobes, err, errlen);
	if (ret) {
		probe_set_free(ls->probes);
		ls->probes = NULL;
		return ret;
	}
	so->events[so->nevents++] = probe_set_group(ls->probes);
	return 0;
}

static const char *probe_why(struct source *s)
{
	struct live_src *ls = LS(s);

	if (ls->probes)
		return NULL;
	if (!ls->probe_tried) {
		ls->probe_tried = true;
		return make_set(ls, ls->probe_why, sizeof(ls->probe_why)) ? ls->probe_why : NULL;
	}
	return ls->probe_why;
}

static const char *probe_group(const struct source *s)
{
	return LS(s)->probes ? probe_set_group(LS(s)->probes) : "";
}

static const struct probe_caps *probe_caps(struct source *s)
{
	return probe_why(s) ? NULL : probe_set_caps(LS(s)->probes);
}

static int probe_preview_spec(struct source *s, const char *spec, struct probe_def *def,
			      char *err, size_t errlen)
{
	const char *why = probe_why(s);

	if (why)
		return err_set(err, errlen, -ENODEV, "%s", why);
	return probe_preview(LS(s)->probes, spec, def, err, errlen);
}

static int probe_proto_of(struct source *s, const char *func, char *buf, size_t len)
{
	return probe_why(s) ? -ENODEV : probe_proto(LS(s)->probes, func, buf, len);
}

static int probe_complete_at(struct source *s, const char *text, size_t cursor, char **out,
			     size_t max, size_t *start)
{
	*start = cursor;
	return probe_why(s) ? 0 : probe_complete(LS(s)->probes, text, cursor, out, max, start);
}

/* Tell the decoders the kinds of @d's fields its format cannot say (hex, symbol). */
static void probe_kinds_one(struct live_src *ls, const struct probe_def *d)
{
	struct ktop_field f[PROBE_MAX_FIELDS];

	for (unsigned int k = 0; k < d->nfields; k++) {
		f[k].name = d->fields[k].name;
		f[k].kind = d->fields[k].kind;
	}
	decode_ctx_set_kinds(ls->dc, d->group, d->event, f, d->nfields);
}

/* What the probes' definitions say their fields are: x64 is hex, symbol a symbol. */
void live_probe_kinds(struct live_src *ls)
{
	for (unsigned int i = 0; i < probe_set_count(ls->probes); i++)
		probe_kinds_one(ls, probe_set_get(ls->probes, i));
}

/* Keep @d's format text for saves (best effort: a save then misses it). */
static void log_format(struct live_src *ls, const struct probe_def *d)
{
	char path[1024], *text;
	struct live_probe_log *l;

	if (!ls->probe_log)
		ls->probe_log = calloc(1, sizeof(*ls->probe_log));
	l = ls->probe_log;
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
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", ls->ft.tracefs, d->group, d->event);
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
static struct tep_event *tep_add_probe(struct live_src *ls, const struct probe_def *d)
{
	struct tep_handle *tep = session_tep(ls->sess);
	struct tep_event *ev;
	char path[1024];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", ls->ft.tracefs, d->group, d->event);
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
static int probe_decode(struct live_src *ls, const struct probe_def *d, char *err,
			size_t errlen)
{
	struct tep_event *ev;
	int ret;

	ev = tep_add_probe(ls, d);
	if (!ev)
		return err_set(err, errlen, errno ? -errno : -EINVAL, "cannot read the format of "
			       "%s/%s: %s", d->group, d->event, strerror(errno ? errno : EINVAL));
	live_readers_stop(ls);
	ret = decode_ctx_add_event(ls->dc, ev);
	if (ret)
		err_set(err, errlen, ret, "cannot decode %s/%s: %s", d->group, d->event,
			strerror(-ret));
	else
		probe_kinds_one(ls, d);
	return live_readers_start(ls, err, errlen) ?: ret;
}

static int probe_add(struct source *s, const char *spec, struct probe_def *def, char *err,
		     size_t errlen)
{
	struct live_src *ls = LS(s);
	const char *why = probe_why(s);
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
	ret = probe_create(ls->probes, spec, d, err, errlen);
	debug_step("probe: defined");
	if (ret)
		goto out;
	ret = probe_decode(ls, d, err, errlen);
	debug_step("probe: readers stopped and started");
	if (!ret) {
		ret = session_enable_event(ls->sess, d->group, d->event, true);
		debug_step("probe: enabled");
		if (ret)
			err_set(err, errlen, ret, "cannot enable %s/%s in %s: %s", d->group,
				d->event, session_dir(ls->sess), strerror(-ret));
	}
	if (ret) {
		session_enable_event(ls->sess, d->group, d->event, false);
		if (probe_remove(ls->probes, d->event, rb, sizeof(rb)))
			snprintf(err + strlen(err), errlen - strlen(err), "; %s", rb);
		goto out;
	}
	log_format(ls, d);
	mark = malloc(PROBE_TEXT_MAX + 64);
	if (mark) {
		str_fmt(mark, PROBE_TEXT_MAX + 64, "ktop: probe %s/%s: %s", d->group, d->event,
			  d->line);
		live_mark_text(ls, mark);
		free(mark);
	}
	if (def)
		*def = *d;
out:
	free(d);
	return ret;
}

static int probe_remove_event(struct source *s, const char *event, char *err, size_t errlen)
{
	struct live_src *ls = LS(s);
	const char *why = probe_why(s);
	int ret;

	if (why)
		return err_set(err, errlen, -ENODEV, "%s", why);
	ret = session_enable_event(ls->sess, probe_set_group(ls->probes), event, false);
	if (ret && ret != -ENOENT)
		return err_set(err, errlen, ret, "cannot disable %s/%s: %s",
			       probe_set_group(ls->probes), event, strerror(-ret));
	ret = probe_remove(ls->probes, event, err, errlen);
	if (!ret) {
		char mark[160];

		snprintf(mark, sizeof(mark), "ktop: probe %s/%s removed",
			 probe_set_group(ls->probes), event);
		live_mark_text(ls, mark);
	}
	return ret;
}

static int probe_enable_event(struct source *s, const char *event, bool on, char *err,
			      size_t errlen)
{
	struct live_src *ls = LS(s);
	const char *why = probe_why(s);
	int ret;

	if (why)
		return err_set(err, errlen, -ENODEV, "%s", why);
	ret = session_enable_event(ls->sess, probe_set_group(ls->probes), event, on);
	if (ret)
		return err_set(err, errlen, ret, "cannot %s %s/%s: %s", on ? "enable" : "disable",
			       probe_set_group(ls->probes), event, strerror(-ret));
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
static int event_enabled(struct live_src *ls, const struct probe_def *d)
{
	char path[1024], text[16];
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", session_dir(ls->sess), d->group,
		 d->event);
	ret = file_read_value(path, text, sizeof(text));
	return ret ? ret : text[0] == '1';
}

static unsigned int probe_list(struct source *s, struct probe_info *out, unsigned int max)
{
	struct live_src *ls = LS(s);
	unsigned int n = probe_set_count(ls->probes), i;
	char path[512], *prof[2] = { NULL, NULL };
	static const char *const files[2] = { "kprobe_profile", "uprobe_profile" };

	if (n > max)
		n = max;
	for (i = 0; n && i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", ls->ft.tracefs, files[i]);
		file_read(path, FILE_NO_MAX, &prof[i], NULL);	/* NULL when unreadable */
	}
	for (i = 0; i < n; i++) {
		const struct probe_def *d = probe_set_get(ls->probes, i);
		bool user = d->kind == PROBE_UPROBE || d->kind == PROBE_URETPROBE;
		bool kern = d->kind == PROBE_KPROBE || d->kind == PROBE_KRETPROBE;

		memset(&out[i], 0, sizeof(out[i]));
		out[i].def = d;
		out[i].enabled = ls->sess ? event_enabled(ls, d) : -ENODEV;
		if ((user || kern) && prof[user]) {
			out[i].have_hits = profile_hits(prof[user], d, user, &out[i].hits);
			out[i].hits_from = files[user];
		}
	}
	free(prof[0]);
	free(prof[1]);
	return n;
}

void live_probe_stop(struct live_src *ls)
{
	struct live_probe_log *l = ls->probe_log;

	probe_set_free(ls->probes);
	ls->probes = NULL;

	for (unsigned int i = 0; l && i < l->n; i++) {
		free(l->fmt[i].system);
		free(l->fmt[i].text);
	}
	if (l)
		free(l->fmt);
	free(l);
	ls->probe_log = NULL;
	ls->probe_tried = false;
}

void live_probe_formats(const struct live_src *ls, struct snapshot_meta *m)
{
	const struct live_probe_log *l = ls->probe_log;

	for (unsigned int i = 0; l && i < l->n; i++) {
		bool have = false;

		for (size_t f = 0; f < m->nformats && !have; f++)
			have = !strcmp(m->formats[f].text, l->fmt[i].text);
		if (!have)
			snapshot_meta_add_format(m, l->fmt[i].system, l->fmt[i].text);
	}
}

const struct source_probe_ops live_probe_ops = {
	.why		= probe_why,
	.group		= probe_group,
	.caps		= probe_caps,
	.preview	= probe_preview_spec,
	.proto		= probe_proto_of,
	.complete	= probe_complete_at,
	.add		= probe_add,
	.remove		= probe_remove_event,
	.enable		= probe_enable_event,
	.list		= probe_list,
};

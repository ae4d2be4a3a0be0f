// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hist engine (agg.h): a latency becomes a synthetic event and hist
 * triggers, made as sqlhist makes them but written by ktop into its own
 * instance ktop-agg-<pid> (libtracefs 1.6.4's tracefs_synth_create would
 * write them at the top level, where other tools trace):
 *
 *   synthetic  ktop_<pid>_<n>: the match fields, lat, te (END's timestamp)
 *   START      hist:keys=M:clock=C:size=16384:TS=common_timestamp [if F]
 *   END        hist:keys=M:clock=C:size=16384:...,LAT=common_timestamp-$TS,...
 *              :onmatch(START).trace(ktop_<pid>_<n>,...) [if F]
 *   T1         hist:keys=lat.log2:vals=hitcount,lat:MN=2^62-lat:onmax($MN).save(lat)
 *              on the synthetic event: the buckets, each with its smallest latency
 *   T2         hist:keys=K:vals=hitcount,lat:size=2048:MX=lat:onmax($MX).save(te,lat)
 *              the per-key counts, sums and maxima with their END times
 *
 * The START and END strings come from libtracefs (tracefs_synth_echo_cmd, or
 * tracefs_sql for --sql); ktop adds clock= (a trigger with timestamps
 * otherwise switches the instance to its default clock, global) and size=
 * (a START entry stays for every key ever seen: 2048 fill in a busy
 * machine's minute). Nothing is sorted by the kernel: the listing of a
 * "sort=lat.log2" reads back as an "Invalid sort modifier", and the reaper
 * removes a dead ktop's triggers from their listing. A --hist is one
 * trigger: hist:keys=K:vals=hitcount[,V]:size=16384:ID=common_pid [if F],
 * ID only there to tell it from another one.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "agg-local.h"
#include "agg_histfile.h"
#include "kernel/session.h"
#include "lib/err.h"
#include "lib/file.h"
#include "lib/strutil.h"

#define START_SIZE	16384	/* START and END hists: keys ever seen */
#define KEYS_SIZE	2048	/* the per-key breakdown's rows */
#define MIN_BIAS	"4611686018427387904"	/* 2^62: onmax(2^62 - lat) is the min */
#define TRIG_MAX	1600
#define NTRIG		5

struct trig {
	char	file[PATH_MAX];		/* the trigger file */
	char	text[TRIG_MAX];		/* as written */
	char	sig[AGG_NAME_MAX + 4];	/* "NAME=": a variable only it defines, "" none */
	int	em;			/* emergency slot */
};

struct hist_priv {
	char		synth[AGG_NAME_MAX];	/* "" for a --hist */
	int		em_synth;
	char		lat[AGG_NAME_MAX];	/* the synthetic event's latency field */
	bool		has_te;
	char		keys[AGG_TEXT_MAX];	/* T2's (or the --hist's) key list */
	unsigned int	ntrig;
	struct trig	t[NTRIG];		/* START, END, T1, T2; a --hist: one */
};

/* ---- the instance ---------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX + 64];

	str_fmt(path, sizeof(path), "%s/%s", dir, name);
	return file_write_str(path, val, O_TRUNC);
}

static int em_inst = -1;

/*
 * The events ktop-agg-<pid> has triggers on, one "SYS/EVENT" a line in the
 * run directory, so that a successor that finds the instance of a killed
 * ktop reads only those trigger files: all ~2300 of them took minutes under
 * emulation.
 */
static void state_path(char *buf, size_t len, long pid)
{
	const char *dir = session_run_dir();

	if (dir)
		str_fmt(buf, len, "%s/agg-%ld.events", dir, pid);
	else
		buf[0] = '\0';
}

static void state_add(const char *sys, const char *ev)
{
	char path[PATH_MAX], line[2 * AGG_NAME_MAX + 2];
	int fd;

	state_path(path, sizeof(path), getpid());
	if (!path[0])
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	str_fmt(line, sizeof(line), "%s/%s\n", sys, ev);
	if (file_write_all(fd, line, strlen(line))) {
		/* the reaper then reads every trigger file */
	}
	close(fd);
}

int agg_hist_instance_make(struct agg_set *s, char *err, size_t errlen)
{
	int ret;

	if (s->inst_made)
		return 0;
	if (mkdir(s->inst, 0750))
		return err_set(err, errlen, -errno, "cannot make the instance %s: %s", s->inst,
			       strerror(errno));
	em_inst = agg_em_add(AGG_EM_RMDIR, s->inst, "");
	s->inst_made = true;
	/* its buffer records nothing: the triggers work without it */
	write_file(s->inst, "buffer_size_kb", "4");
	ret = write_file(s->inst, "trace_clock", s->clock);
	if (ret) {
		agg_hist_instance_remove(s);
		return err_set(err, errlen, ret, "cannot set %s/trace_clock to %s: %s", s->inst,
			       s->clock, strerror(-ret));
	}
	return 0;
}

void agg_hist_instance_remove(struct agg_set *s)
{
	if (!s->inst_made)
		return;
	char path[PATH_MAX];

	write_file(s->inst, "tracing_on", "0");
	rmdir(s->inst);
	state_path(path, sizeof(path), getpid());
	if (path[0])
		unlink(path);
	agg_em_drop(em_inst);
	em_inst = -1;
	s->inst_made = false;
}

/* ---- writing and removing --------------------------------------------------------- */

static int trig_write(struct agg_set *s, struct hist_priv *hp, const char *sys, const char *ev,
		      const char *text, char *err, size_t errlen)
{
	struct trig *t = &hp->t[hp->ntrig];
	char rm[TRIG_MAX + 1];
	const char *colon;
	int ret;

	if (hp->ntrig == NTRIG || strlen(text) >= sizeof(t->text))
		return err_set(err, errlen, -E2BIG, "a trigger too long for ktop: %.80s...", text);
	str_fmt(t->file, sizeof(t->file), "%s/events/%s/%s/trigger", s->inst, sys, ev);
	snprintf(t->text, sizeof(t->text), "%s", text);
	/* the first variable it defines tells its table from the others */
	t->sig[0] = '\0';
	colon = strchr(text + 10, ':');
	while (colon) {
		size_t n = strcspn(colon + 1, "=:");

		if (colon[1 + n] == '=' && strncmp(colon + 1, "vals", n) &&
		    strncmp(colon + 1, "clock", n) && strncmp(colon + 1, "size", n) &&
		    strncmp(colon + 1, "keys", n) && n < AGG_NAME_MAX) {
			str_fmt(t->sig, sizeof(t->sig), "%.*s=", (int)n, colon + 1);
			break;
		}
		colon = strchr(colon + 1, ':');
	}
	state_add(sys, ev);
	ret = agg_tracefs_append(t->file, text);
	if (ret) {
		char path[PATH_MAX];

		str_fmt(path, sizeof(path), "%s", s->inst);
		agg_error_log(path, text, ret, err, errlen);
		return ret;
	}
	str_fmt(rm, sizeof(rm), "!%s", text);
	t->em = agg_em_add(AGG_EM_TRIGGER, t->file, rm);
	hp->ntrig++;
	return 0;
}

static void undo(struct agg_set *s, struct hist_priv *hp)
{
	while (hp->ntrig) {
		struct trig *t = &hp->t[--hp->ntrig];
		char rm[TRIG_MAX + 1];

		str_fmt(rm, sizeof(rm), "!%s", t->text);
		agg_tracefs_append(t->file, rm);
		agg_em_drop(t->em);
	}
	if (hp->synth[0] && hp->em_synth != -2) {
		char path[PATH_MAX + 32], rm[AGG_NAME_MAX + 2];

		str_fmt(path, sizeof(path), "%s/synthetic_events", s->tracefs);
		str_fmt(rm, sizeof(rm), "!%s", hp->synth);
		agg_tracefs_append(path, rm);
		agg_em_drop(hp->em_synth);
		hp->em_synth = -2;
	}
}

/* ---- from libtracefs' strings ------------------------------------------------------- */

/* "echo 'TEXT' >> PATH" lines: TEXT and PATH of line @n (0-based). */
static int echo_line(const char *buf, int n, char *text, size_t tlen, char *path, size_t plen)
{
	const char *p = buf, *q, *end;

	while (n-- && p)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	if (!p || strncmp(p, "echo '", 6))
		return -EINVAL;
	end = p + strcspn(p, "\n");
	for (q = end; q > p && strncmp(q, "' >> ", 5); q--)
		;
	if (q <= p + 6)
		return -EINVAL;
	str_fmt(text, tlen, "%.*s", (int)(q - p - 6), p + 6);
	str_fmt(path, plen, "%.*s", (int)(end - q - 5), q + 5);
	return 0;
}

/* ".../events/SYS/EVENT/trigger" -> SYS, EVENT */
static int path_event(const char *path, char *sys, char *ev)
{
	const char *e = strstr(path, "/events/");

	if (!e || sscanf(e + 8, "%63[^/]/%63[^/]/trigger", sys, ev) != 2)
		return -EINVAL;
	return 0;
}

/* Insert ":clock=C:size=N" after the keys of hist trigger @t. */
static void add_attrs(char *t, size_t len, const char *clock, unsigned int size)
{
	char rest[TRIG_MAX], *p = strchr(t + 10, ':');
	size_t at = p ? (size_t)(p - t) : strcspn(t, " ");

	str_fmt(rest, sizeof(rest), "%s", t + at);
	str_fmt(t + at, len - at, ":clock=%s:size=%u%s", clock, size, rest);
}

static void add_filter(char *t, size_t len, const char *filter)
{
	size_t n = strlen(t);

	if (filter[0])
		str_fmt(t + n, len - n, " if %s", filter);
}

/* The synthetic field's name for END field @f: common_ dropped, kept apart from lat, te. */
static void synth_name(const char *f, char names[][AGG_NAME_MAX], unsigned int n, char *out)
{
	const char *base = strncmp(f, "common_", 7) ? f : f + 7;
	bool clash = !strcmp(base, "lat") || !strcmp(base, "te");

	for (unsigned int i = 0; i < n; i++)
		clash |= !strcmp(names[i], base);
	str_fmt(out, AGG_NAME_MAX, "%s%s", clash ? "k_" : "", base);
}

/* Load the formats of the events @sql names, so tracefs_sql finds them in the tep. */
static void sql_preload(struct agg_set *s, const char *sql)
{
	const char *p = sql;

	while (*p) {
		char word[2 * AGG_NAME_MAX], sys[AGG_NAME_MAX] = "", ev[AGG_NAME_MAX];
		struct agg_event e;
		size_t n = 0;

		while (*p && !isalnum((unsigned char)*p) && *p != '_')
			p++;
		while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.')
			n++;
		if (!n)
			break;
		str_fmt(word, sizeof(word), "%.*s", (int)n, p);
		p += n;
		if (sscanf(word, "%63[^.].%63s", sys, ev) == 2)
			agg_formats_event(s->fmts, sys, ev, &e, NULL, 0);
		else if (!strchr(word, '.'))
			agg_formats_event(s->fmts, NULL, word, &e, NULL, 0);
	}
}

/*
 * An SQL latency: the synthetic field computed as END's timestamp minus
 * START's (the END trigger's "V=common_timestamp[.usecs]-$W" passed to the
 * event), and the unit. Return: 0, or -ENOENT when the SELECT has none.
 */
static int sql_latency(const char *end_trig, const char *def, char *lat, unsigned int *unit)
{
	const char *p = end_trig, *params;
	char var[AGG_NAME_MAX];
	int idx = -1, k = 0;

	while ((p = strstr(p, "=common_timestamp"))) {
		const char *v = p;

		while (v > end_trig && (isalnum((unsigned char)v[-1]) || v[-1] == '_'))
			v--;
		str_fmt(var, sizeof(var), "%.*s", (int)(p - v), v);
		p += 17;
		*unit = !strncmp(p, ".usecs", 6) ? 1000 : 1;
		p += *unit == 1000 ? 6 : 0;
		if (*p == '-' && p[1] == '$')
			break;
		var[0] = '\0';
	}
	if (!p || !var[0])
		return -ENOENT;
	/* its place in the action's parameters: ".trace(NAME,$a,$b)" or ".NAME($a,$b)" */
	params = strstr(end_trig, ".trace(");
	if (params)
		params = strchr(params, ',');
	else if ((params = strstr(end_trig, ":onmatch(")))
		params = strchr(strchr(params, ')') + 1, '(');
	if (!params)
		return -ENOENT;
	for (p = params + 1; *p && *p != ')'; k++) {
		size_t n = strcspn(p, ",)");

		if (*p == '$' && (size_t)strlen(var) == n - 1 && !strncmp(p + 1, var, n - 1))
			idx = k;
		p += n + (p[n] == ',');
	}
	if (idx < 0)
		return -ENOENT;
	/* the idx-th field of "s:NAME type a; type b; ..." */
	p = strchr(def, ' ');
	for (k = 0; p && k <= idx; k++) {
		const char *semi = strchr(p + 1, ';'), *sp;

		if (!semi)
			semi = p + strlen(p);
		if (k == idx) {
			for (sp = semi; sp > p && !isspace((unsigned char)sp[-1]); sp--)
				;
			str_fmt(lat, AGG_NAME_MAX, "%.*s", (int)(semi - sp), sp);
			/* "char name[16]" */
			lat[strcspn(lat, "[")] = '\0';
			return 0;
		}
		p = *semi ? semi + 1 : NULL;
	}
	return -ENOENT;
}

/* The synthetic event's fields other than the latency: the SQL measure's keys. */
static void sql_keys(struct agg_set *s, struct agg_item *it, const char *lat)
{
	struct tep_event *te = tep_find_event_by_name(agg_formats_tep(s->fmts), "synthetic",
						      it->spec.ev[1].name);

	it->spec.nkey = 0;
	for (struct tep_format_field *f = te ? te->format.fields : NULL; f; f = f->next) {
		if (!strcmp(f->name, lat) || it->spec.nkey == AGG_KEYF_MAX)
			continue;
		agg_formats_field(s->fmts, &it->spec.ev[1], f->name, &it->spec.key[it->spec.nkey]);
		if (it->spec.key[it->spec.nkey].kind != AGG_FT_OTHER)
			it->spec.nkey++;
	}
}

static int hist_create_latency(struct agg_set *s, struct agg_item *it, struct hist_priv *hp,
			       bool sql, char *err, size_t errlen)
{
	struct tep_handle *tep = agg_formats_tep(s->fmts);
	struct agg_spec *sp = &it->spec;
	char def[TRIG_MAX], trig[2][TRIG_MAX], path[PATH_MAX], file[PATH_MAX + 32];
	char names[AGG_MATCH_MAX + AGG_KEYF_MAX][AGG_NAME_MAX], keyn[AGG_KEYF_MAX][AGG_NAME_MAX];
	char sys[2][AGG_NAME_MAX], ev[2][AGG_NAME_MAX], t[TRIG_MAX], *sqlerr = NULL;
	char def_file[64];
	struct tracefs_synth *syn = NULL;
	struct trace_seq seq;
	unsigned int nn = 0, nk = 0;
	int ret = -EINVAL;

	trace_seq_init(&seq);
	str_fmt(hp->synth, sizeof(hp->synth), "ktop_%d_%u", getpid(), s->next_synth++);
	if (sql) {
		sql_preload(s, it->sql);
		syn = tracefs_sql(tep, hp->synth, it->sql, &sqlerr);
		if (!syn) {
			ret = err_set(err, errlen, -EINVAL, "--sql: %s", sqlerr ? sqlerr :
				      strerror(errno));
			goto out;
		}
	} else {
		for (unsigned int i = 0; i < sp->nmatch; i++) {
			synth_name(sp->match[1][i].name, names, nn, names[nn]);
			if (!i)
				syn = tracefs_synth_alloc(tep, hp->synth, sp->ev[0].sys, sp->ev[0].name,
							  sp->ev[1].sys, sp->ev[1].name,
							  sp->match[0][0].name, sp->match[1][0].name,
							  names[nn]);
			else if (syn && tracefs_synth_add_match_field(syn, sp->match[0][i].name,
								      sp->match[1][i].name,
								      names[nn]))
				goto synth_fail;
			if (!syn)
				goto synth_fail;
			nn++;
		}
		if (tracefs_synth_add_compare_field(syn, TRACEFS_TIMESTAMP, TRACEFS_TIMESTAMP,
						    TRACEFS_SYNTH_DELTA_END, "lat") ||
		    tracefs_synth_add_end_field(syn, TRACEFS_TIMESTAMP, "te"))
			goto synth_fail;
		for (unsigned int i = 0; i < sp->nkey; i++) {
			unsigned int m;

			for (m = 0; m < sp->nmatch; m++)
				if (!strcmp(sp->match[1][m].name, sp->key[i].name))
					break;
			if (m < sp->nmatch) {
				snprintf(keyn[nk++], AGG_NAME_MAX, "%s", names[m]);
				continue;
			}
			synth_name(sp->key[i].name, names, nn, names[nn]);
			if (tracefs_synth_add_end_field(syn, sp->key[i].name, names[nn]))
				goto synth_fail;
			snprintf(keyn[nk++], AGG_NAME_MAX, "%s", names[nn++]);
		}
		snprintf(hp->lat, sizeof(hp->lat), "lat");
		hp->has_te = true;
	}
	if (tracefs_synth_echo_cmd(&seq, syn))
		goto synth_fail;
	trace_seq_terminate(&seq);
	if (echo_line(seq.buffer, 0, def, sizeof(def), path, sizeof(path)) ||
	    !strrchr(path, '/') || str_fmt(def_file, sizeof(def_file), "%s",
					   strrchr(path, '/') + 1) < 0 ||
	    echo_line(seq.buffer, 1, trig[0], sizeof(trig[0]), path, sizeof(path)) ||
	    path_event(path, sys[0], ev[0]) ||
	    echo_line(seq.buffer, 2, trig[1], sizeof(trig[1]), path, sizeof(path)) ||
	    path_event(path, sys[1], ev[1])) {
		ret = err_set(err, errlen, -EINVAL, "libtracefs gave commands ktop cannot read:\n%s",
			      seq.buffer);
		goto out;
	}
	if (sql) {
		it->unit_ns = 1;
		if (sql_latency(trig[1], def, hp->lat, &it->unit_ns)) {
			ret = err_set(err, errlen, -EINVAL, "--sql: the SELECT computes no latency: "
				      "name one as (end.TIMESTAMP - start.TIMESTAMP) AS lat");
			goto out;
		}
	}
	add_attrs(trig[0], sizeof(trig[0]), s->clock, START_SIZE);
	add_attrs(trig[1], sizeof(trig[1]), s->clock, START_SIZE);
	if (!sql) {
		add_filter(trig[0], sizeof(trig[0]), sp->filt[0].kernel);
		add_filter(trig[1], sizeof(trig[1]), sp->filt[1].kernel);
	}

	ret = agg_hist_instance_make(s, err, errlen);
	if (ret)
		goto out;
	/* the event: "s:NAME ..." to dynamic_events, or "NAME ..." to synthetic_events */
	str_fmt(file, sizeof(file), "%s/%s", s->tracefs, def_file);
	ret = agg_tracefs_append(file, def);
	if (ret) {
		agg_error_log(s->tracefs, def, ret, err, errlen);
		goto out;
	}
	{
		char rm[AGG_NAME_MAX + 2];

		str_fmt(file, sizeof(file), "%s/synthetic_events", s->tracefs);
		str_fmt(rm, sizeof(rm), "!%s", hp->synth);
		hp->em_synth = agg_em_add(AGG_EM_SYNTH, file, rm);
	}
	if (sql) {
		/* the measure's events and keys, from the triggers and the new event */
		struct agg_event e;

		agg_formats_event(s->fmts, sys[0], ev[0], &sp->ev[0], NULL, 0);
		if (agg_formats_event(s->fmts, "synthetic", hp->synth, &e, err, errlen)) {
			ret = -ENOENT;
			goto undo;
		}
		sp->ev[1] = e;
		sql_keys(s, it, hp->lat);
		agg_formats_event(s->fmts, sys[1], ev[1], &sp->ev[1], NULL, 0);
		for (unsigned int i = 0; i < sp->nkey; i++)
			snprintf(keyn[nk++], AGG_NAME_MAX, "%s", sp->key[i].name);
		hp->has_te = false;
	}
	ret = trig_write(s, hp, sys[0], ev[0], trig[0], err, errlen);
	if (!ret)
		ret = trig_write(s, hp, sys[1], ev[1], trig[1], err, errlen);
	if (ret)
		goto undo;
	/* the synthetic event's tables */
	str_fmt(t, sizeof(t), "hist:keys=%s.log2:vals=hitcount,%s:__ktop_mn=" MIN_BIAS "-%s:"
		"onmax($__ktop_mn).save(%s)", hp->lat, hp->lat, hp->lat, hp->lat);
	ret = trig_write(s, hp, "synthetic", hp->synth, t, err, errlen);
	if (ret)
		goto undo;
	hp->keys[0] = '\0';
	for (unsigned int i = 0, n = 0; i < nk; i++)
		n += snprintf(hp->keys + n, sizeof(hp->keys) - n, "%s%s", i ? "," : "", keyn[i]);
	if (!nk)
		snprintf(hp->keys, sizeof(hp->keys), "common_pid");
	str_fmt(t, sizeof(t), "hist:keys=%s:vals=hitcount,%s:size=%d:__ktop_mx=%s:"
		"onmax($__ktop_mx).save(%s%s)", hp->keys, hp->lat, KEYS_SIZE, hp->lat,
		hp->has_te ? "te," : "", hp->lat);
	ret = trig_write(s, hp, "synthetic", hp->synth, t, err, errlen);
	if (ret)
		goto undo;
	str_fmt(it->res.kobj, sizeof(it->res.kobj), "synthetic:%s", hp->synth);
	ret = 0;
	goto out;
synth_fail:
	ret = err_set(err, errlen, errno ? -errno : -EINVAL, "libtracefs could not build the "
		      "synthetic event: %s", strerror(errno ? errno : EINVAL));
	goto out;
undo:
	undo(s, hp);
out:
	free(sqlerr);
	tracefs_synth_free(syn);
	trace_seq_destroy(&seq);
	return ret;
}

static int hist_create_hist(struct agg_set *s, struct agg_item *it, struct hist_priv *hp,
			    char *err, size_t errlen)
{
	const struct agg_spec *sp = &it->spec;
	char t[TRIG_MAX];
	size_t n = 0;
	int ret;

	for (unsigned int i = 0; i < sp->nkey; i++)
		n += snprintf(hp->keys + n, sizeof(hp->keys) - n, "%s%s", i ? "," : "",
			      sp->key[i].name);
	str_fmt(t, sizeof(t), "hist:keys=%s:vals=hitcount%s%s:size=%d:__ktop_h%u=common_pid",
		hp->keys, sp->has_val ? "," : "", sp->has_val ? sp->val.name : "", START_SIZE,
		s->next_synth++);
	add_filter(t, sizeof(t), sp->filt[0].kernel);
	ret = agg_hist_instance_make(s, err, errlen);
	if (!ret)
		ret = trig_write(s, hp, sp->ev[0].sys, sp->ev[0].name, t, err, errlen);
	return ret;
}

static int hist_create(struct agg_set *s, struct agg_item *it, bool sql, char *err,
		       size_t errlen)
{
	struct hist_priv *hp = calloc(1, sizeof(*hp));
	int ret;

	if (!hp)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	hp->em_synth = -2;
	if (it->spec.kind == AGG_HIST)
		ret = hist_create_hist(s, it, hp, err, errlen);
	else
		ret = hist_create_latency(s, it, hp, sql, err, errlen);
	if (ret) {
		free(hp);
		return ret;
	}
	it->priv = hp;
	return 0;
}

static void hist_destroy(struct agg_set *s, struct agg_item *it)
{
	struct hist_priv *hp = it->priv;

	if (!hp)
		return;
	undo(s, hp);
	free(hp);
	it->priv = NULL;
}

/* ---- reading the tables --------------------------------------------------------------- */

static int read_hist(struct agg_set *s, const char *sys, const char *ev, struct agg_histfile *h,
		     char *err, size_t errlen)
{
	char path[PATH_MAX + 64], *text;
	int ret;

	str_fmt(path, sizeof(path), "%s/events/%s/%s/hist", s->inst, sys, ev);
	text = file_read_text(path);
	if (!text)
		return err_set(err, errlen, -errno ? -errno : -EIO, "cannot read %s: %s", path,
			       strerror(errno));
	ret = agg_histfile_parse(text, h, err, errlen);
	free(text);
	return ret;
}

/* The table of our trigger @t in @h: the one that defines its variable. */
static const struct agg_hf_table *our_table(const struct agg_histfile *h, const struct trig *t)
{
	for (size_t i = 0; i < h->ntab; i++) {
		const char *p = t->sig[0] ? strstr(h->tab[i].trigger, t->sig) : NULL;

		if (p && (p == h->tab[i].trigger || p[-1] == ':' || p[-1] == ','))
			return &h->tab[i];
	}
	return NULL;
}

/* A key's text as agg_key_text makes it from BPF's bytes: both engines' rows compare. */
static void row_key(const struct agg_spec *sp, const struct agg_hf_entry *e, char *buf,
		    size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < e->nkey && at < len; i++) {
		const struct agg_hf_kv *kv = &e->key[i];
		const struct agg_field *f = i < sp->nkey ? &sp->key[i] : NULL;

		if (i)
			at += snprintf(buf + at, len - at, ", ");
		if (at >= len)
			break;
		if (kv->kind == AGG_HF_NUM && f && f->kind == AGG_FT_SINT) {
			uint64_t v = kv->num;

			if (f->size < 8) {
				unsigned int sh = 64 - 8 * f->size;

				v = (uint64_t)((int64_t)(v << sh) >> sh);
			}
			at += snprintf(buf + at, len - at, "%lld", (long long)v);
		} else if (kv->kind == AGG_HF_NUM) {
			at += snprintf(buf + at, len - at, "%llu", (unsigned long long)kv->num);
		} else {
			at += snprintf(buf + at, len - at, "%s", kv->text);
		}
	}
}

static int poll_rows(const struct agg_spec *sp, const struct agg_hf_table *t, const char *lat,
		     unsigned int unit, struct agg_result *r)
{
	r->rows = calloc(t->nent ? t->nent : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (size_t i = 0; i < t->nent; i++) {
		const struct agg_hf_entry *e = &t->ent[i];
		const struct agg_hf_kv *v = lat ? agg_hf_val(e, lat) : (e->nval > 1 ? &e->val[1] :
									 NULL);
		const struct agg_hf_kv *te = agg_hf_saved(e, "te");
		struct agg_row *row = &r->rows[r->nrows++];

		row_key(sp, e, row->key, sizeof(row->key));
		row->count = e->val[0].num;
		row->sum = (v ? v->num : 0) * unit;
		if (e->track[0]) {
			row->max = e->track_val * unit;
			row->max_te = te ? te->num : 0;
		}
	}
	return 0;
}

static int hist_poll(struct agg_set *s, struct agg_item *it, struct agg_result *r, bool full,
		     char *err, size_t errlen)
{
	struct hist_priv *hp = it->priv;
	struct agg_histfile h;
	const struct agg_hf_table *t1 = NULL, *t2;
	unsigned int unit = it->unit_ns;
	char pre[AGG_TEXT_MAX];
	int ret;

	if (it->spec.kind == AGG_HIST) {
		ret = read_hist(s, it->spec.ev[0].sys, it->spec.ev[0].name, &h, err, errlen);
		t2 = ret ? NULL : our_table(&h, &hp->t[0]);
		if (!ret && !t2)
			ret = err_set(err, errlen, -ENOENT, "its table is gone from the hist file");
		if (!ret) {
			ret = poll_rows(&it->spec, t2, it->spec.has_val ? it->spec.val.name : NULL, 1,
					r);
			r->count = t2->hits;
			r->ends = t2->hits;
			r->dropped = t2->dropped;
			for (size_t i = 0; i < r->nrows; i++)
				r->sum_ns += r->rows[i].sum;
		}
		agg_histfile_free(&h);
		return ret;
	}
	ret = read_hist(s, "synthetic", hp->synth, &h, err, errlen);
	if (ret) {
		agg_histfile_free(&h);
		return ret;
	}
	str_fmt(pre, sizeof(pre), "hist:keys=%s.log2:vals=hitcount,%s:", hp->lat, hp->lat);
	t1 = agg_histfile_find(&h, pre);
	str_fmt(pre, sizeof(pre), "hist:keys=%s:vals=hitcount,%s:", hp->keys, hp->lat);
	t2 = agg_histfile_find(&h, pre);
	if (!t1 || !t2) {
		agg_histfile_free(&h);
		return err_set(err, errlen, -ENOENT, "its tables are gone from %s's hist file",
			       hp->synth);
	}
	for (size_t i = 0; i < t1->nent; i++) {
		const struct agg_hf_entry *e = &t1->ent[i];
		const struct agg_hf_kv *v = agg_hf_val(e, hp->lat), *mn = agg_hf_saved(e, hp->lat);
		uint64_t b = e->key[0].num;

		if (e->key[0].kind != AGG_HF_LOG2 || b >= AGG_BUCKETS)
			continue;
		r->bucket[b] += e->val[0].num;
		r->count += e->val[0].num;
		r->sum_ns += (v ? v->num : 0) * unit;
		if (mn && (!r->min_ns || mn->num * unit < r->min_ns))
			r->min_ns = mn->num * unit;
	}
	ret = poll_rows(&it->spec, t2, hp->lat, unit, r);
	for (size_t i = 0; !ret && i < r->nrows; i++) {
		if (r->rows[i].max >= r->max_ns && r->rows[i].count) {
			r->max_ns = r->rows[i].max;
			r->worst.lat_ns = r->rows[i].max;
			r->worst.te_ns = r->rows[i].max_te;
			snprintf(r->worst.key, sizeof(r->worst.key), "%s", r->rows[i].key);
		}
	}
	r->keys_dropped = t2->dropped;
	agg_histfile_free(&h);
	if (ret || !full)
		return ret;
	/* the START and END tables: pairs their full maps lost, records seen */
	for (int k = 0; k < 2; k++) {
		char sys[AGG_NAME_MAX], ev[AGG_NAME_MAX];
		const struct agg_hf_table *t;

		if (path_event(hp->t[k].file, sys, ev) || read_hist(s, sys, ev, &h, err, errlen)) {
			agg_histfile_free(&h);
			continue;
		}
		t = our_table(&h, &hp->t[k]);
		if (t) {
			r->dropped += t->dropped;
			*(k ? &r->ends : &r->starts) = t->hits;
		}
		agg_histfile_free(&h);
	}
	return 0;
}

const struct agg_engine_ops agg_engine_hist = {
	.name		= "hist",
	.create		= hist_create,
	.poll		= hist_poll,
	.destroy	= hist_destroy,
};

/* ---- a killed ktop's ----------------------------------------------------------------------- */

/* Remove every trigger listed in @tp. Return: how many; *@left: how many it could not. */
static int strip_file(const char *tp, int *left)
{
	char *text = file_read_text(tp), *p;
	int n = 0;

	for (p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		char line[TRIG_MAX + 2];
		size_t len = strcspn(p, "\n");

		if (*p == '#' || !len || len >= TRIG_MAX)
			continue;
		str_fmt(line, sizeof(line), "!%.*s", (int)len, p);
		len = strlen(line);
		if (len > 9 && (!strcmp(line + len - 9, " [active]") ||
				!strcmp(line + len - 9, " [paused]")))
			line[len - 9] = '\0';
		if (agg_tracefs_append(tp, line))
			(*left)++;
		else
			n++;
	}
	free(text);
	return n;
}

/*
 * Remove the triggers of instance @dir: on the events its state file @state
 * names, else (no file) on every event. Return: how many; *@left: how many
 * it could not (an END trigger still holding START's variable: again).
 */
static int strip_triggers(const char *dir, const char *state, int *left)
{
	char tp[PATH_MAX + 300], *list = state[0] ? file_read_text(state) : NULL, *p;
	struct dirent *sd, *ed;
	int n = 0;
	DIR *d, *e;

	*left = 0;
	if (list) {
		for (p = list; *p; p += strcspn(p, "\n"), p += *p == '\n') {
			size_t len = strcspn(p, "\n");

			if (!len || memchr(p, '.', len))
				continue;
			str_fmt(tp, sizeof(tp), "%s/events/%.*s/trigger", dir, (int)len, p);
			n += strip_file(tp, left);
		}
		free(list);
		return n;
	}
	str_fmt(tp, sizeof(tp), "%s/events", dir);
	d = opendir(tp);
	while (d && (sd = readdir(d))) {
		if (sd->d_name[0] == '.')
			continue;
		str_fmt(tp, sizeof(tp), "%s/events/%s", dir, sd->d_name);
		e = opendir(tp);
		while (e && (ed = readdir(e))) {
			if (ed->d_name[0] == '.')
				continue;
			str_fmt(tp, sizeof(tp), "%s/events/%s/%s/trigger", dir, sd->d_name,
				ed->d_name);
			n += strip_file(tp, left);
		}
		if (e)
			closedir(e);
	}
	if (d)
		closedir(d);
	return n;
}

int agg_reap_stale(const char *tracefs, bool (*alive)(long pid))
{
	char path[PATH_MAX], state[PATH_MAX + 300], *text, *p;
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (!tracefs)
		tracefs = tracefs_tracing_dir();
	if (!tracefs)
		return 0;
	str_fmt(path, sizeof(path), "%s/instances", tracefs);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char dir[PATH_MAX + 300], *end;
		long pid;
		int left = 1;

		if (strncmp(de->d_name, "ktop-agg-", 9))
			continue;
		pid = strtol(de->d_name + 9, &end, 10);
		if (*end || pid <= 0 || alive(pid))
			continue;
		str_fmt(dir, sizeof(dir), "%s/%s", path, de->d_name);
		state_path(state, sizeof(state), pid);
		if (state[0] && access(state, F_OK))
			state[0] = '\0';
		/* END triggers hold START's variables: a second pass takes what they kept */
		for (int pass = 0; pass < 4 && left; pass++)
			n += strip_triggers(dir, state, &left);
		write_file(dir, "tracing_on", "0");
		n += !rmdir(dir);
		if (state[0])
			unlink(state);
	}
	if (d)
		closedir(d);
	/* state files whose instance went (an emergency exit removes it) */
	d = session_run_dir() ? opendir(session_run_dir()) : NULL;
	while (d && (de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, "agg-", 4))
			continue;
		pid = strtol(de->d_name + 4, &end, 10);
		if (strcmp(end, ".events") || pid <= 0 || alive(pid))
			continue;
		str_fmt(state, sizeof(state), "%s/instances/ktop-agg-%ld", tracefs, pid);
		if (!access(state, F_OK))
			continue;
		str_fmt(state, sizeof(state), "%s/%s", session_run_dir(), de->d_name);
		unlink(state);
	}
	if (d)
		closedir(d);
	str_fmt(path, sizeof(path), "%s/synthetic_events", tracefs);
	text = file_read_text(path);
	for (p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		char name[AGG_NAME_MAX], rm[AGG_NAME_MAX + 2], *end;
		long pid;

		if (sscanf(p, "%63s", name) != 1 || strncmp(name, "ktop_", 5))
			continue;
		pid = strtol(name + 5, &end, 10);
		if (*end != '_' || pid <= 0 || alive(pid))
			continue;
		str_fmt(rm, sizeof(rm), "!%s", name);
		n += !agg_tracefs_append(path, rm);
	}
	free(text);
	return n;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hist file parser (agg_histfile.h): line by line, each table opened by
 * "# event histogram", each entry a "{ keys } vals" line (a stacktrace key
 * spans lines up to the "}" that closes it), an onmax/onchange line after
 * its entry, the snapshot details and the totals at the end of the table.
 * Lines it does not know are skipped, so a kernel that prints more still
 * reads; an entry line it cannot read is an error naming it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg_histfile.h"
#include "lib/array.h"
#include "lib/err.h"

struct names {
	unsigned int	n;
	char		v[AGG_HF_KEYS][AGG_HF_NAME];
};

void agg_histfile_free(struct agg_histfile *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->ntab; i++)
		free(h->tab[i].ent);
	free(h->tab);
	h->tab = NULL;
	h->ntab = 0;
}

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* "a,b.log2,c" (up to @end) into names without their modifiers. */
static void names_of(const char *list, size_t len, struct names *out)
{
	const char *p = list, *end = list + len;

	out->n = 0;
	while (p < end && out->n < AGG_HF_KEYS) {
		size_t n = strcspn(p, ",):");

		if (p + n > end)
			n = end - p;
		snprintf(out->v[out->n], AGG_HF_NAME, "%.*s", (int)strcspn(p, "."), p);
		if (strcspn(p, ".") > n)
			out->v[out->n][n] = '\0';
		out->n++;
		p += n;
		if (*p != ',')
			break;
		p++;
	}
}

/* The key names ("keys=") and the saved names ("save(...)") of a trigger line. */
static void trigger_names(const char *trig, struct names *keys, struct names *saved)
{
	const char *k = strstr(trig, "keys="), *s = strstr(trig, ".save(");

	keys->n = saved->n = 0;
	if (k) {
		k += 5;
		names_of(k, strcspn(k, ": "), keys);
	}
	if (s) {
		s += 6;
		names_of(s, strcspn(s, ")"), saved);
	}
}

static void trim_copy(char *dst, size_t len, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	snprintf(dst, len, "%.*s", (int)n, s);
}

/* Fill @kv's kind and number from its text. */
static void kv_classify(struct agg_hf_kv *kv)
{
	const char *t = kv->text, *lb = strrchr(t, '[');
	char *end;

	kv->kind = AGG_HF_TEXT_ONLY;
	kv->num = 0;
	if (!strncmp(t, "~ 2^", 4)) {
		kv->num = strtoull(t + 4, &end, 10);
		if (!*end && t[4])
			kv->kind = AGG_HF_LOG2;
		return;
	}
	if (*t && t[strlen(t) - 1] == ']' && lb && lb > t && isspace((unsigned char)lb[-1])) {
		kv->num = strtoull(lb + 1, &end, 10);
		if (*end == ']') {
			size_t n = lb - t;

			kv->kind = AGG_HF_TASK;
			while (n && isspace((unsigned char)t[n - 1]))
				n--;
			kv->text[n] = '\0';
		}
		return;
	}
	if (!*t)
		return;
	errno = 0;
	kv->num = *t == '-' ? (uint64_t)strtoll(t, &end, 0) : strtoull(t, &end, 0);
	if (!*end && !errno && (isdigit((unsigned char)*t) || *t == '-'))
		kv->kind = AGG_HF_NUM;
	else
		kv->num = 0;
}

/*
 * "name: value, name: value" into @kv: split where the next known name (or,
 * without names, the next ", IDENT:") starts. Return: how many.
 */
static unsigned int split_pairs(const char *s, size_t len, const struct names *names,
				const char *sep, struct agg_hf_kv *kv, unsigned int max)
{
	const char *p = s, *end = s + len;
	unsigned int n = 0;

	while (p < end && n < max) {
		const char *colon, *next = end, *q;
		size_t seplen = strlen(sep);

		while (p < end && (isspace((unsigned char)*p) || *p == ','))
			p++;
		if (p >= end)
			break;
		colon = memchr(p, ':', end - p);
		if (!colon)
			return n;
		trim_copy(kv[n].name, sizeof(kv[n].name), p, colon - p);
		/* where the next pair starts */
		for (q = colon + 1; q < end; q++) {
			const char *w;

			if (seplen ? strncmp(q, sep, seplen) : !isspace((unsigned char)*q))
				continue;
			w = q + (seplen ? seplen : 1);
			while (w < end && isspace((unsigned char)*w))
				w++;
			if (names && n + 1 < names->n) {
				size_t nl = strlen(names->v[n + 1]);

				if (!strncmp(w, names->v[n + 1], nl) && w[nl] == ':') {
					next = q;
					break;
				}
				continue;
			}
			if (names && names->n)
				continue;
			{
				const char *id = w;

				while (id < end && is_ident((unsigned char)*id))
					id++;
				if (id > w && id < end && *id == ':' && !isdigit((unsigned char)*w)) {
					next = q;
					break;
				}
			}
		}
		trim_copy(kv[n].text, sizeof(kv[n].text), colon + 1, next - colon - 1);
		kv_classify(&kv[n]);
		n++;
		p = next;
	}
	return n;
}

/* "hitcount:   175  lat:  1627203" */
static unsigned int parse_vals(const char *s, struct agg_hf_kv *kv, unsigned int max)
{
	unsigned int n = 0;

	while (*s && n < max) {
		size_t w;

		while (isspace((unsigned char)*s))
			s++;
		w = 0;
		while (is_ident((unsigned char)s[w]))
			w++;
		if (!w || s[w] != ':')
			break;
		trim_copy(kv[n].name, sizeof(kv[n].name), s, w);
		s += w + 1;
		while (isspace((unsigned char)*s))
			s++;
		w = strcspn(s, " \t\n");
		trim_copy(kv[n].text, sizeof(kv[n].text), s, w);
		kv_classify(&kv[n]);
		n++;
		s += w;
	}
	return n;
}

static int table_add(struct agg_histfile *h, size_t *cap)
{
	if (array_grow((void **)&h->tab, cap, h->ntab + 1, sizeof(*h->tab)))
		return -ENOMEM;
	memset(&h->tab[h->ntab], 0, sizeof(h->tab[0]));
	h->ntab++;
	return 0;
}

struct pstate {
	struct agg_histfile	*h;
	size_t			tcap, ecap;
	struct names		keys, saved;
	int			lineno;
};

static int entry_line(struct pstate *ps, const char *body, size_t blen, const char *vals,
		      char *err, size_t errlen)
{
	struct agg_hf_table *t = &ps->h->tab[ps->h->ntab - 1];
	struct agg_hf_entry *e;

	if (array_grow((void **)&t->ent, &ps->ecap, t->nent + 1, sizeof(*t->ent)))
		return -ENOMEM;
	e = &t->ent[t->nent];
	memset(e, 0, sizeof(*e));
	e->nkey = split_pairs(body, blen, &ps->keys, ",", e->key, AGG_HF_KEYS);
	e->nval = parse_vals(vals, e->val, AGG_HF_VALS);
	if (!e->nkey || !e->nval)
		return err_set(err, errlen, -EBADMSG, "line %d: an entry without %s", ps->lineno,
			       e->nkey ? "values" : "keys");
	t->nent++;
	return 0;
}

static void track_line(struct pstate *ps, const char *s, size_t len)
{
	struct agg_hf_table *t = &ps->h->tab[ps->h->ntab - 1];
	struct agg_hf_entry *e = &t->ent[t->nent - 1];
	size_t w = 0;
	char *end;

	while (is_ident((unsigned char)s[w]))
		w++;
	snprintf(e->track, sizeof(e->track), "%.*s", (int)(w < sizeof(e->track) ? w :
		 sizeof(e->track) - 1), s);
	e->track_val = strtoull(s + w + 1, &end, 10);
	if (end > s + len)
		return;
	e->nsaved = split_pairs(end, s + len - end, &ps->saved, "", e->saved, AGG_HF_VALS);
}

/* "\ttriggering value { onmax($sn) }:   20929223\ttriggered by event with key: { ... }" */
static void snapshot_line(struct agg_hf_table *t, const char *s)
{
	const char *v = strstr(s, "}:"), *k = strstr(s, "key: {");

	if (!v)
		return;
	t->snapshot = true;
	t->snap_val = strtoull(v + 2, NULL, 10);
	if (k) {
		k += 6;
		trim_copy(t->snap_key, sizeof(t->snap_key), k, strcspn(k, "}"));
	}
}

int agg_histfile_parse(const char *text, struct agg_histfile *out, char *err, size_t errlen)
{
	struct pstate ps = { .h = out };
	const char *p = text;
	bool snap_next = false;
	int ret;

	memset(out, 0, sizeof(*out));
	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *line = p, *next = p + len + (p[len] == '\n');
		struct agg_hf_table *t = out->ntab ? &out->tab[out->ntab - 1] : NULL;

		ps.lineno++;
		if (!strncmp(line, "# event histogram", 17)) {
			ret = table_add(out, &ps.tcap);
			if (ret)
				return ret;
			ps.ecap = 0;
			ps.keys.n = ps.saved.n = 0;
		} else if (!strncmp(line, "# trigger info: ", 16) && t) {
			size_t n = len - 16;
			const char *tr = line + 16;

			if (n > 9 && !strncmp(tr + n - 9, " [active]", 9)) {
				n -= 9;
			} else if (n > 9 && !strncmp(tr + n - 9, " [paused]", 9)) {
				n -= 9;
				t->paused = true;
			}
			trim_copy(t->trigger, sizeof(t->trigger), tr, n);
			trigger_names(t->trigger, &ps.keys, &ps.saved);
		} else if (line[0] == '{' && t) {
			const char *close = NULL, *q;

			/* a stacktrace key: up to the line that starts with "}" */
			for (q = line; q < line + len; q++)
				if (*q == '}')
					close = q;
			while (!close && *next) {
				size_t nl = strcspn(next, "\n");

				ps.lineno++;
				if (next[0] == '}')
					close = next;
				len = next + nl - line;
				next += nl + (next[nl] == '\n');
			}
			if (!close)
				return err_set(err, errlen, -EBADMSG, "line %d: an entry without its "
					       "closing }", ps.lineno);
			ret = entry_line(&ps, line + 1, close - line - 1, close + 1, err, errlen);
			if (ret)
				return ret;
		} else if (line[0] == '\t' && t && t->nent && is_ident((unsigned char)line[1]) &&
			   strchr(line, ':') && !snap_next &&
			   strcspn(line + 1, ":") < strcspn(line + 1, " ")) {
			track_line(&ps, line + 1, len - 1);
		} else if (!strncmp(line, "Snapshot taken", 14) && t) {
			snap_next = true;
			p = next;
			continue;
		} else if (snap_next && t) {
			snapshot_line(t, line);
		} else if (!strncmp(line, "Totals:", 7) && t) {
			t->has_totals = true;
		} else if (t && t->has_totals) {
			const char *s = line;

			while (isspace((unsigned char)*s))
				s++;
			if (!strncmp(s, "Hits: ", 6))
				t->hits = strtoull(s + 6, NULL, 10);
			else if (!strncmp(s, "Entries: ", 9))
				t->entries = strtoull(s + 9, NULL, 10);
			else if (!strncmp(s, "Dropped: ", 9))
				t->dropped = strtoull(s + 9, NULL, 10);
		} else if (!t && len && line[0] != '#') {
			return err_set(err, errlen, -EBADMSG, "line %d: not a hist file ('%.40s')",
				       ps.lineno, line);
		}
		snap_next = false;
		p = next;
	}
	if (!out->ntab && *text)
		return err_set(err, errlen, -EBADMSG, "not a hist file (no '# event histogram')");
	return 0;
}

const struct agg_hf_table *agg_histfile_find(const struct agg_histfile *h, const char *prefix)
{
	for (size_t i = 0; i < h->ntab; i++)
		if (!strncmp(h->tab[i].trigger, prefix, strlen(prefix)))
			return &h->tab[i];
	return NULL;
}

static const struct agg_hf_kv *kv_find(const struct agg_hf_kv *kv, unsigned int n,
				      const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(kv[i].name, name))
			return &kv[i];
	return NULL;
}

const struct agg_hf_kv *agg_hf_key(const struct agg_hf_entry *e, const char *name)
{
	return kv_find(e->key, e->nkey, name);
}

const struct agg_hf_kv *agg_hf_val(const struct agg_hf_entry *e, const char *name)
{
	return kv_find(e->val, e->nval, name);
}

const struct agg_hf_kv *agg_hf_saved(const struct agg_hf_entry *e, const char *name)
{
	return kv_find(e->saved, e->nsaved, name);
}

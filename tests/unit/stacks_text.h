/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's own text of the stacks-* fixtures (trace.txt: the stacktrace
 * trigger's <stack trace> and options/userstacktrace's <user stack trace>
 * records after each event), read independently of ktop's decoder, and a
 * store decoded from the same fixture with its frames named as that text
 * names them (kernel frames by the fixture's kallsyms, user frames as
 * "<hex>"). Shared by tests/unit/test_stacks_text.c (the data side) and
 * tests/unit/test_ui_stacks.c (the stacks pane).
 */
#ifndef KTOP_TEST_STACKS_TEXT_H
#define KTOP_TEST_STACKS_TEXT_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/stacks.h"
#include "store/store.h"
#include "kernel/symbols.h"

#define MAX_FRAMES	600
#define SEP		"\x1f"

/* ---- the text, read independently --------------------------------------- */

struct tev {
	char		name[64];
	unsigned int	cpu;
	char		*frames[MAX_FRAMES];	/* kernel frames, then user frames: leaf first */
	unsigned int	nk, nu;
	char		*user[16];
	unsigned int	skip;	/* the tracepoint's own frames at the kernel leaf */
};

struct text {
	struct tev	*ev;
	size_t		n, cap;
};

static inline void text_free(struct text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (unsigned int k = 0; k < t->ev[i].nk; k++)
			free(t->ev[i].frames[k]);
		for (unsigned int k = 0; k < t->ev[i].nu; k++)
			free(t->ev[i].user[k]);
	}
	free(t->ev);
}

/*
 * Lines: "TASK-PID [CPU] FLAGS TS: NAME: ..." for an event, "...: <stack
 * trace>" or "...: <user stack trace>" for a stack record, " => FRAME" for
 * each frame of the record above. A stack record belongs to the last event
 * of its CPU before it.
 */
static inline int text_read(const char *path, struct text *t)
{
	char *buf = fixture_read_file(path, NULL), *save = NULL;
	long last[64];
	struct tev *cur = NULL;
	int mode = 0;	/* 1: kernel frames follow, 2: user frames */

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 64; i++)
		last[i] = -1;
	if (!buf)
		return -1;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *br, *rest;
		unsigned int cpu;

		if (l[0] == '#')
			continue;
		if (!strncmp(l, " => ", 4)) {
			char *f = l + 4;

			while (*f == ' ')
				f++;
			if (!cur || !mode)
				continue;
			if (mode == 1 && cur->nk < MAX_FRAMES / 2)
				cur->frames[cur->nk++] = strdup(f);
			else if (mode == 2 && cur->nu < 16)
				cur->user[cur->nu++] = strdup(f);
			continue;
		}
		br = strstr(l, " [");
		if (!br || sscanf(br + 2, "%u]", &cpu) != 1 || cpu >= 64)
			continue;
		rest = strstr(br, ": ");
		if (!rest)
			continue;
		rest += 2;
		mode = 0;
		if (!strncmp(rest, "<stack trace>", 13) || !strncmp(rest, "<user stack trace>", 18)) {
			cur = last[cpu] >= 0 ? &t->ev[last[cpu]] : NULL;
			mode = rest[1] == 's' ? 1 : 2;
			/* a second stack of the same part would be refused: so here */
			if (cur && ((mode == 1 && cur->nk) || (mode == 2 && cur->nu)))
				mode = 0;
			continue;
		}
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 1024;
			t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
		}
		memset(&t->ev[t->n], 0, sizeof(t->ev[0]));
		sscanf(rest, "%63[^:]", t->ev[t->n].name);
		t->ev[t->n].cpu = cpu;
		last[cpu] = (long)t->n++;
		cur = NULL;
	}
	free(buf);
	/* the frames a view shows start below the tracepoint code the stack was taken in */
	for (size_t i = 0; i < t->n; i++) {
		struct tev *e = &t->ev[i];

		while (e->skip < e->nk && e->skip + 1 < e->nk + e->nu &&
		       (!strncmp(e->frames[e->skip], "trace_event_raw_event_", 22) ||
			!strncmp(e->frames[e->skip], "__traceiter_", 12)))
			e->skip++;
	}
	return 0;
}

/*
 * The chain of @e a view shows (leaf first, without the tracepoint's own
 * frames), joined with SEP; @root_first reverses it.
 */
static inline char *chain(const struct tev *e, bool root_first, unsigned int upto)
{
	const char *f[MAX_FRAMES];
	unsigned int n = 0;
	size_t len = 1;
	char *s;

	for (unsigned int k = e->skip; k < e->nk; k++)
		f[n++] = e->frames[k];
	for (unsigned int k = 0; k < e->nu; k++)
		f[n++] = e->user[k];
	if (upto > n)
		upto = n;
	for (unsigned int k = 0; k < upto; k++)
		len += strlen(f[root_first ? n - 1 - k : k]) + 1;
	s = calloc(1, len);
	for (unsigned int k = 0; k < upto; k++) {
		if (k)
			strcat(s, SEP);
		strcat(s, f[root_first ? n - 1 - k : k]);
	}
	return s;
}

/* The frames of @e a view shows. */
static inline unsigned int tev_frames(const struct tev *e)
{
	return e->nk - e->skip + e->nu;
}

/* Counts by key, sorted for lookups. */
struct kc {
	char		*key;
	uint64_t	n, self;
};

struct counts {
	struct kc	*v;
	size_t		n, cap;
};

static inline int kc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kc *)a)->key, ((const struct kc *)b)->key);
}

static inline void counts_add(struct counts *c, char *key, uint64_t n, uint64_t self)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n++] = (struct kc){ key, n, self };
}

/* Sort and merge equal keys. */
static inline void counts_done(struct counts *c)
{
	size_t o = 0;

	qsort(c->v, c->n, sizeof(*c->v), kc_cmp);
	for (size_t i = 0; i < c->n; i++) {
		if (o && !strcmp(c->v[o - 1].key, c->v[i].key)) {
			c->v[o - 1].n += c->v[i].n;
			c->v[o - 1].self += c->v[i].self;
			free(c->v[i].key);
			continue;
		}
		c->v[o++] = c->v[i];
	}
	c->n = o;
}

static inline struct kc *counts_find(const struct counts *c, const char *key)
{
	struct kc k = { (char *)key, 0, 0 };

	return bsearch(&k, c->v, c->n, sizeof(*c->v), kc_cmp);
}

static inline void counts_free(struct counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].key);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* Every frame path of the text's stacks (the tree's nodes), with counts. */
static inline void text_tree(const struct text *t, bool root_first, struct counts *c)
{
	for (size_t i = 0; i < t->n; i++) {
		unsigned int n = tev_frames(&t->ev[i]);

		for (unsigned int k = 1; k <= n; k++)
			counts_add(c, chain(&t->ev[i], root_first, k), 1, k == n);
	}
	counts_done(c);
}

/* ---- ktop's side ------------------------------------------------------------ */

struct res {
	struct symbols	*ksyms;
	struct intern	*in;
};

/* Kernel frames by kallsyms, user frames as the kernel prints them: <hex>. */
static inline uint32_t text_names(void *ctx, const struct stack_info *s, unsigned int i,
				  uint32_t *mod)
{
	struct res *r = ctx;
	const char *k;
	char buf[40];

	*mod = 0;
	if (i < s->nkern) {
		k = symbols_lookup(r->ksyms, s->frames[i], NULL);
		return k ? intern_id(r->in, k, strlen(k)) : 0;
	}
	snprintf(buf, sizeof(buf), "<%016llx>", (unsigned long long)s->frames[i]);
	return intern_id(r->in, buf, strlen(buf));
}

static inline struct store *fixture_stacks_store(const char *dir, struct res *r)
{
	struct fixture *fx = fixture_open(dir);
	struct decode_ctx *dc;
	struct store *st;
	char path[600];

	if (!fx)
		return NULL;
	st = store_new(0, fixture_ncpus(fx));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	r->ksyms = symbols_load(path);
	r->in = store_strings(st);
	stacks_set_resolver(store_stacks(st), text_names, NULL, r);
	dc = decode_ctx_new(fixture_tep(fx), st, r->ksyms);
	for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		decoder_flush(d, false, NULL);
		decoder_free(d);
	}
	decode_ctx_free(dc);
	fixture_close(fx);
	return st;
}

static inline int list_stack_fixtures(char names[][300], int max)
{
	DIR *d = opendir(fixture_root());
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) && n < max)
		if (!strncmp(de->d_name, "stacks-", 7))
			snprintf(names[n++], 300, "%s/%.200s", fixture_root(), de->d_name);
	if (d)
		closedir(d);
	return n;
}

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The view filter's stack clauses (src/view/viewfilter.h): "stack:PATH", the
 * events whose stack holds PATH, frames root first joined by ';' as the
 * folded export writes them. '^' before the first frame ties it to the root
 * (the outermost frame: a user stack's main, or the kernel's entry), '$'
 * after the last to the leaf (where the stack was taken). A frame with '*'
 * or '?' is a glob; any other is compared whole ("[unknown]" included).
 *
 *	stack:do_nanosleep                    through do_nanosleep
 *	stack:^main;stk_outer                 an icicle frame: these two from the root
 *	stack:schedule;__schedule$            a caller tree node: these end the stack
 *
 * A stack is read once per view (the verdict of every stack clause together
 * is kept by stack id), so the cost is per distinct stack, not per event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/globmatch.h"
#include "lib/intern.h"
#include "store/stacks.h"
#include "viewfilter-local.h"

void vf_stack_free(struct vf_clause *c)
{
	for (size_t i = 0; i < c->nframes; i++)
		free(c->frames[i]);
	free(c->frames);
	c->frames = NULL;
	c->nframes = 0;
}

int vf_stack_parse(struct vf_clause *c, const char *s, int off, struct err_pos *err)
{
	const char *p = s, *end = s + strlen(s);

	if (*p == '^') {
		c->root = true;
		p++;
	}
	if (end > p && end[-1] == '$') {
		c->leaf = true;
		end--;
	}
	if (p >= end)
		return vf_err(err, off + (int)(p - s), "stack: wants frames root first, joined "
			      "by ';' (stack:vfs_read, stack:^main;run, stack:schedule;__schedule$)");
	while (p <= end) {
		const char *q = memchr(p, ';', (size_t)(end - p)), *a = p, *b;
		char **v;

		if (!q)
			q = end;
		b = q;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (a == b)
			return vf_err(err, off + (int)(a - s), "stack: an empty frame name");
		v = realloc(c->frames, (c->nframes + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->frames = v;
		c->frames[c->nframes] = strndup(a, (size_t)(b - a));
		if (!c->frames[c->nframes])
			return -ENOMEM;
		c->nframes++;
		p = q + 1;
	}
	return 0;
}

static bool frame_match(const char *pat, const char *name)
{
	if (!*name)
		name = "[unknown]";	/* as the folded export and the trees name it */
	return strpbrk(pat, "*?") ? glob_match(pat, name) : !strcmp(pat, name);
}

/* Does the root-first chain @names (@n frames) hold clause @c's frames? */
static bool chain_match(const struct vf_clause *c, const char *const *names, size_t n)
{
	size_t m = c->nframes, lo = 0, hi;

	if (m > n)
		return false;
	hi = n - m;
	if (c->root)
		hi = 0;
	if (c->leaf)
		lo = n - m;
	for (size_t at = lo; at <= hi; at++) {
		size_t k = 0;

		while (k < m && frame_match(c->frames[k], names[at + k]))
			k++;
		if (k == m)
			return true;
	}
	return false;
}

/* Every stack clause on stack @id. */
static bool stack_eval(struct viewfilter *vf, uint32_t id)
{
	uint32_t ids[2 * STACK_MAX_FRAMES + 2];
	const char *names[2 * STACK_MAX_FRAMES + 2];
	int n = id ? stacks_shown_names(store_stacks(vf->st), id, ids, sizeof(ids) / sizeof(ids[0]),
					NULL) : 0;

	if (n < 0)
		n = 0;
	if (n > (int)(sizeof(ids) / sizeof(ids[0])))
		n = (int)(sizeof(ids) / sizeof(ids[0]));
	/* the table holds the leaf first */
	for (int k = 0; k < n; k++)
		names[n - 1 - k] = intern_str(store_strings(vf->st), ids[k]);
	for (size_t i = 0; i < vf->nc; i++) {
		const struct vf_clause *c = &vf->c[i];

		if (c->kind == VK_STACK &&
		    chain_match(c, names, (size_t)n) == !!(c->flags & VIEWFILTER_NOT))
			return false;
	}
	return true;
}

bool vf_stack_ok(struct viewfilter *vf, uint32_t id)
{
	if (!vf->has_stack)
		return true;
	if (id >= vf->nstk) {
		uint32_t n = stacks_count(store_stacks(vf->st)) + 1;
		uint8_t *m;

		if (id >= n)
			return stack_eval(vf, id);	/* not in the table: no frames */
		m = realloc(vf->stk, n);
		if (!m)
			return stack_eval(vf, id);
		memset(m + vf->nstk, 0, n - vf->nstk);
		vf->stk = m;
		vf->nstk = n;
	}
	if (!vf->stk[id])
		vf->stk[id] = stack_eval(vf, id) ? 2 : 1;
	return vf->stk[id] == 2;
}

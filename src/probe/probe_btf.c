// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * BTF for probe specs, over libbpf's BTF API. A kernel's BTF has ~100k
 * types; lookups by name go through libbpf (a linear scan, ~1 ms), and the
 * sorted list of function names the prompt completes from is built on first
 * use only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "probe_btf.h"

struct probe_btf {
	struct btf	*btf;
	const char	**funcs;	/* sorted, unique; NULL until first asked */
	size_t		nfuncs;
};

int probe_btf_open(struct probe_btf **out, const char *path)
{
	struct probe_btf *b;
	int ret;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->btf = path ? btf__parse_raw(path) : btf__load_vmlinux_btf();
	if (!b->btf) {
		ret = errno ? -errno : -ENOENT;
		free(b);
		return ret;
	}
	*out = b;
	return 0;
}

void probe_btf_free(struct probe_btf *b)
{
	if (!b)
		return;
	btf__free(b->btf);
	free(b->funcs);
	free(b);
}

const struct btf *probe_btf_raw(const struct probe_btf *b)
{
	return b->btf;
}

static const struct btf_type *type_of(const struct probe_btf *b, int id)
{
	return id > 0 ? btf__type_by_id(b->btf, id) : NULL;
}

int probe_btf_skip(const struct probe_btf *b, int id)
{
	const struct btf_type *t;

	for (int hops = 0; hops < 32 && (t = type_of(b, id)); hops++) {
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return id;
		id = t->type;
	}
	return id;
}

int probe_btf_func(const struct probe_btf *b, const char *name, struct probe_func *f)
{
	const struct btf_type *t, *p;
	const struct btf_param *par;
	int id;

	memset(f, 0, sizeof(*f));
	id = btf__find_by_name_kind(b->btf, name, BTF_KIND_FUNC);
	if (id <= 0)
		return -ENOENT;
	t = type_of(b, id);
	p = t ? type_of(b, t->type) : NULL;
	if (!p || !btf_is_func_proto(p))
		return -ENOENT;
	f->id = id;
	f->ret = p->type;
	par = btf_params(p);
	for (unsigned int i = 0; i < btf_vlen(p) && i < PROBE_BTF_MAX_PARAMS; i++) {
		/* a trailing void parameter means "..." */
		if (!par[i].type && !par[i].name_off)
			break;
		f->names[i] = btf__name_by_offset(b->btf, par[i].name_off);
		f->types[i] = par[i].type;
		f->nparams = i + 1;
	}
	return 0;
}

int probe_btf_find_struct(const struct probe_btf *b, const char *name)
{
	int id;

	if (!strncmp(name, "struct ", 7))
		return (id = btf__find_by_name_kind(b->btf, name + 7, BTF_KIND_STRUCT)) > 0 ?
		       id : -ENOENT;
	if (!strncmp(name, "union ", 6))
		return (id = btf__find_by_name_kind(b->btf, name + 6, BTF_KIND_UNION)) > 0 ?
		       id : -ENOENT;
	id = btf__find_by_name_kind(b->btf, name, BTF_KIND_STRUCT);
	if (id <= 0)
		id = btf__find_by_name_kind(b->btf, name, BTF_KIND_UNION);
	return id > 0 ? id : -ENOENT;
}

static int member_at(const struct probe_btf *b, int id, const char *name,
		     struct probe_member *m, unsigned int base, int depth)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));
	const struct btf_member *mem;

	if (!t || !btf_is_composite(t))
		return -EINVAL;
	if (depth > 8)
		return -ENOENT;
	mem = btf_members(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(b->btf, mem[i].name_off);
		unsigned int off = base + btf_member_bit_offset(t, i);

		if (n && *n) {
			if (strcmp(n, name))
				continue;
			m->type = mem[i].type;
			m->bit_off = off;
			m->bitfield = btf_member_bitfield_size(t, i);
			return 0;
		}
		/* an anonymous struct or union: its members are the outer one's */
		if (!member_at(b, mem[i].type, name, m, off, depth + 1))
			return 0;
	}
	return -ENOENT;
}

int probe_btf_member(const struct probe_btf *b, int id, const char *name,
		     struct probe_member *m)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));

	memset(m, 0, sizeof(*m));
	if (!t || !btf_is_composite(t))
		return -EINVAL;
	return member_at(b, id, name, m, 0, 0);
}

static int members_into(const struct probe_btf *b, int id, const char *prefix, char *buf,
			size_t len, size_t *n, int depth)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));
	const struct btf_member *mem;
	int count = 0;

	if (!t || !btf_is_composite(t) || depth > 8)
		return 0;
	mem = btf_members(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(b->btf, mem[i].name_off);

		if (!name || !*name) {
			count += members_into(b, mem[i].type, prefix, buf, len, n, depth + 1);
			continue;
		}
		if (strncmp(name, prefix, strlen(prefix)))
			continue;
		if (*n < len)
			*n += snprintf(buf + *n, len - *n, "%s%s", *n ? ", " : "", name);
		count++;
	}
	return count;
}

int probe_btf_members(const struct probe_btf *b, int id, const char *prefix, char *buf,
		      size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	return members_into(b, id, prefix ? prefix : "", buf, len, &n, 0);
}

struct dump_buf {
	char	*buf;
	size_t	len, n;
};

static void __attribute__((format(printf, 2, 0)))
dump_printf(void *ctx, const char *fmt, va_list args)
{
	struct dump_buf *d = ctx;
	int r;

	if (d->n >= d->len)
		return;
	r = vsnprintf(d->buf + d->n, d->len - d->n, fmt, args);
	if (r > 0)
		d->n = d->n + r < d->len ? d->n + r : d->len - 1;
}

char *probe_btf_decl(const struct probe_btf *b, int id, const char *var, char *buf, size_t len)
{
	struct dump_buf d = { .buf = buf, .len = len };
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = var ? var : "");
	struct btf_dump *dump;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!id) {
		snprintf(buf, len, "void%s%s", var && *var ? " " : "", var ? var : "");
		return buf;
	}
	dump = btf_dump__new(b->btf, dump_printf, &d, NULL);
	if (!dump) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (btf_dump__emit_type_decl(dump, id, &o))
		snprintf(buf, len, "?");
	btf_dump__free(dump);
	return buf;
}

char *probe_btf_proto(const struct probe_btf *b, const char *name, const struct probe_func *f,
		      char *buf, size_t len)
{
	char one[256];
	size_t n;

	probe_btf_decl(b, f->ret, "", one, sizeof(one));
	n = snprintf(buf, len, "%s%s%s(", one, one[0] && one[strlen(one) - 1] == '*' ? "" : " ",
		     name);
	for (unsigned int i = 0; i < f->nparams && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
			      probe_btf_decl(b, f->types[i], f->names[i], one, sizeof(one)));
	if (n < len)
		snprintf(buf + n, len - n, "%s)", f->nparams ? "" : "void");
	return buf;
}

long probe_btf_size(const struct probe_btf *b, int id)
{
	return btf__resolve_size(b->btf, id);
}

bool probe_btf_is_ptr(const struct probe_btf *b, int id)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));

	return t && btf_is_ptr(t);
}

int probe_btf_pointee(const struct probe_btf *b, int id)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));

	return t && btf_is_ptr(t) ? (int)t->type : -EINVAL;
}

bool probe_btf_is_array(const struct probe_btf *b, int id, int *elem, unsigned int *n)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));

	if (!t || !btf_is_array(t))
		return false;
	if (elem)
		*elem = btf_array(t)->type;
	if (n)
		*n = btf_array(t)->nelems;
	return true;
}

bool probe_btf_is_composite(const struct probe_btf *b, int id)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));

	return t && btf_is_composite(t);
}

bool probe_btf_is_char(const struct probe_btf *b, int id)
{
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));
	const char *name;

	if (!t || !btf_is_int(t) || t->size != 1)
		return false;
	name = btf__name_by_offset(b->btf, t->name_off);
	/* char, signed char, unsigned char; not u8/s8 typedefs, skipped to theirs */
	return (btf_int_encoding(t) & BTF_INT_CHAR) || (name && strstr(name, "char"));
}

const char *probe_btf_default_type(const struct probe_btf *b, int id)
{
	static const char *const u[] = { "u8", "u16", "u32", "u64" };
	static const char *const s[] = { "s8", "s16", "s32", "s64" };
	const struct btf_type *t = type_of(b, probe_btf_skip(b, id));
	int elem, lg;

	if (!t)
		return NULL;	/* void */
	if (btf_is_ptr(t))
		return probe_btf_is_char(b, t->type) ? "string" :
		       type_of(b, probe_btf_skip(b, t->type)) &&
		       btf_is_func_proto(type_of(b, probe_btf_skip(b, t->type))) ? "symbol" : "x64";
	if (probe_btf_is_array(b, id, &elem, NULL))
		return probe_btf_is_char(b, elem) ? "string" : NULL;
	if (!btf_is_int(t) && !btf_is_any_enum(t))
		return NULL;
	switch (t->size) {
	case 1:
		lg = 0;
		break;
	case 2:
		lg = 1;
		break;
	case 4:
		lg = 2;
		break;
	case 8:
		lg = 3;
		break;
	default:
		return NULL;	/* __int128 */
	}
	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED ? s[lg] : u[lg];
	return btf_kflag(t) ? s[lg] : u[lg];	/* enums: kflag set when signed */
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int funcs_build(struct probe_btf *b)
{
	unsigned int n = btf__type_cnt(b->btf);
	size_t k = 0;

	if (b->funcs)
		return 0;
	b->funcs = calloc(n ? n : 1, sizeof(*b->funcs));
	if (!b->funcs)
		return -ENOMEM;
	for (unsigned int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (t && btf_is_func(t))
			b->funcs[k++] = btf__name_by_offset(b->btf, t->name_off);
	}
	qsort(b->funcs, k, sizeof(*b->funcs), name_cmp);
	b->nfuncs = 0;
	for (size_t i = 0; i < k; i++)
		if (!b->nfuncs || strcmp(b->funcs[b->nfuncs - 1], b->funcs[i]))
			b->funcs[b->nfuncs++] = b->funcs[i];
	return 0;
}

int probe_btf_funcs(struct probe_btf *b, const char *prefix, const char **out, size_t max)
{
	size_t lo = 0, hi, plen = strlen(prefix);
	int n = 0;

	if (funcs_build(b))
		return 0;
	hi = b->nfuncs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(b->funcs[mid], prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < b->nfuncs && !strncmp(b->funcs[i], prefix, plen); i++) {
		if ((size_t)n < max)
			out[n] = b->funcs[i];
		n++;
	}
	return n;
}

int probe_edit_distance(const char *a, const char *b, int cap)
{
	int la = (int)strlen(a), lb = (int)strlen(b), row[128], prev, best;

	if (la > 120 || lb > 120 || abs(la - lb) > cap)
		return cap + 1;
	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		best = row[0];
		for (int j = 1; j <= lb; j++) {
			int cur = row[j], v = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb] > cap ? cap + 1 : row[lb];
}

int probe_btf_suggest(struct probe_btf *b, const char *name, const char **out, size_t max)
{
	int cap = strlen(name) < 8 ? 1 : strlen(name) < 16 ? 2 : 3, n = 0;
	size_t l = strlen(name);

	if (funcs_build(b) || !max)
		return 0;
	/*
	 * The closest first: the compiler's clones (name.isra.0, name.cold),
	 * then by edit distance, then longer names that start with @name.
	 */
	for (int d = 0; d <= cap + 1 && (size_t)n < max; d++) {
		for (size_t i = 0; i < b->nfuncs && (size_t)n < max; i++) {
			const char *f = b->funcs[i];
			int dist;

			if (!strcmp(f, name))
				continue;
			if (!strncmp(f, name, l) && f[l] == '.')
				dist = 0;
			else if (!strncmp(f, name, l))
				dist = cap + 1;
			else if ((dist = probe_edit_distance(f, name, cap)) == 0 || dist > cap)
				continue;
			if (dist == d)
				out[n++] = f;
		}
	}
	return n;
}

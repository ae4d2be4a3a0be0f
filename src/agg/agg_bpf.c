// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF engine (agg.h): the wrapper of bpf/agglat.bpf.c, the only file
 * that includes its skeleton. One object per measure: its rodata says where
 * the match, key, filter and value fields lie in the START and END records
 * (the format files' offsets, struct agglat_cfg), so the programs are
 * compiled once, at build time. They attach to the tracepoints by name
 * (SEC("tracepoint"): the context is the record as the format describes it).
 *
 * Cost: a START is a hash update; an END a lookup, a delete and two per-CPU
 * updates (tests/bench/agg_overhead.sh measures it per pair next to the hist
 * engine, bpftrace and streaming both events).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/agglat.h"
#include "agg-local.h"
#include "agglat.skel.h"
#include "lib/err.h"
#include "lib/strutil.h"

_Static_assert(AGGLAT_KEY_BYTES == AGG_KEY_BYTES && AGGLAT_FIELDS == AGG_MATCH_MAX &&
	       AGGLAT_FIELDS == AGG_KEYF_MAX && AGGLAT_PREDS == AGG_PRED_MAX &&
	       AGGLAT_STR_MAX == AGG_STR_MAX && AGGLAT_BUCKETS == AGG_BUCKETS,
	       "bpf/agglat.h and src/agg/agg_spec.h agree");

struct bpf_priv {
	struct agglat_bpf	*skel;
	struct bpf_link		*link[2];
	int			ncpus;
	struct agglat_total	*tot;	/* one per CPU */
	struct agglat_row	*row;
};

/*
 * libbpf's messages: the first is kept for the reason, and, of a verifier's
 * log, the line that says what it refused (the one before "processed N
 * insns"); never printed over the screen.
 */
static char agg_log[256], agg_vlog[256];

static int __attribute__((format(printf, 2, 0)))
agg_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg = NULL, *p, *q;

	if (vasprintf(&msg, fmt, ap) < 0)
		return 0;
	/* the verifier's log comes whole, between BEGIN and END PROG LOAD LOG lines */
	p = strstr(msg, "\nprocessed ");
	if (p && !agg_vlog[0]) {
		/* the line before, and the one before it unless that is an instruction */
		for (q = p; q > msg && q[-1] != '\n'; q--)
			;
		if (q > msg) {
			char *r = q - 1;

			for (; r > msg && r[-1] != '\n'; r--)
				;
			if (!isdigit((unsigned char)*r) && *r != ';')
				q = r;
		}
		str_fmt(agg_vlog, sizeof(agg_vlog), "%.*s", (int)(p - q), q);
		for (p = agg_vlog; (p = strchr(p, '\n')); )
			*p = ' ';
	}
	if (level != LIBBPF_DEBUG && !agg_log[0])
		str_fmt(agg_log, sizeof(agg_log), "%.*s", (int)strcspn(msg, "\n"), msg);
	free(msg);
	return 0;
}

static uint8_t kind_of(const struct agg_field *f)
{
	if (!strcmp(f->name, "common_pid") && f->size == 4)
		return AGGLAT_CURPID;
	return f->kind == AGG_FT_STR ? AGGLAT_STR : f->kind == AGG_FT_SINT ? AGGLAT_SINT :
	       AGGLAT_UINT;
}

/* @n fields packed into a key, in order. */
static void fields(const struct agg_field *f, unsigned int n, struct agglat_field *out)
{
	unsigned int koff = 0;

	for (unsigned int i = 0; i < n; i++) {
		out[i].off = f[i].offset;
		out[i].size = f[i].size;
		out[i].koff = koff;
		out[i].kind = kind_of(&f[i]);
		koff += f[i].size;
	}
}

static void preds(const struct agg_filter *af, struct agglat_side *sd)
{
	static const uint8_t op[] = {
		[AGG_OP_EQ] = AGGLAT_EQ, [AGG_OP_NE] = AGGLAT_NE, [AGG_OP_LT] = AGGLAT_LT,
		[AGG_OP_LE] = AGGLAT_LE, [AGG_OP_GT] = AGGLAT_GT, [AGG_OP_GE] = AGGLAT_GE,
		[AGG_OP_AND] = AGGLAT_AND,
	};

	sd->np = af->npred;
	for (unsigned int i = 0; i < af->npred; i++) {
		const struct agg_pred *p = &af->pred[i];

		sd->p[i].off = p->f.offset;
		sd->p[i].size = p->f.size;
		sd->p[i].op = op[p->op];
		sd->p[i].kind = kind_of(&p->f);
		sd->p[i].val = p->val;
		memcpy(sd->p[i].str, p->str, AGGLAT_STR_MAX);
	}
}

static void bpf_destroy(struct agg_set *s, struct agg_item *it)
{
	struct bpf_priv *bp = it->priv;

	if (!bp)
		return;
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(bp->link[i]);
	agglat_bpf__destroy(bp->skel);
	free(bp->tot);
	free(bp->row);
	free(bp);
	it->priv = NULL;
}

static int attach(struct bpf_priv *bp, int i, struct bpf_program *prog, const struct agg_event *ev,
		  char *err, size_t errlen)
{
	int ret;

	agg_log[0] = '\0';
	bp->link[i] = bpf_program__attach_tracepoint(prog, ev->sys, ev->name);
	ret = libbpf_get_error(bp->link[i]);
	if (!ret)
		return 0;
	bp->link[i] = NULL;
	return err_set(err, errlen, ret < 0 ? ret : -EINVAL, "BPF: cannot attach to %s:%s: %s%s%s",
		       ev->sys, ev->name, strerror(ret < 0 ? -ret : EINVAL), agg_log[0] ? ": " : "",
		       agg_log);
}

static int bpf_create(struct agg_set *s, struct agg_item *it, bool sql, char *err,
		      size_t errlen)
{
	const struct agg_spec *sp = &it->spec;
	struct agglat_cfg *cfg;
	struct bpf_priv *bp;
	int ret;

	if (sql)
		return err_set(err, errlen, -EOPNOTSUPP, "--sql needs the hist engine");
	bp = calloc(1, sizeof(*bp));
	if (!bp)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	bp->ncpus = libbpf_num_possible_cpus();
	if (bp->ncpus <= 0) {
		free(bp);
		return err_set(err, errlen, -EINVAL, "BPF: cannot count the CPUs");
	}
	bp->tot = calloc(bp->ncpus, sizeof(*bp->tot));
	bp->row = calloc(bp->ncpus, sizeof(*bp->row));
	it->priv = bp;
	libbpf_set_print(agg_print);
	agg_log[0] = agg_vlog[0] = '\0';
	bp->skel = agglat_bpf__open();
	if (!bp->tot || !bp->row || !bp->skel) {
		ret = err_set(err, errlen, -ENOMEM, "BPF: cannot open the aggregation object: %s",
			      strerror(errno ? errno : ENOMEM));
		goto fail;
	}
	cfg = (struct agglat_cfg *)&bp->skel->rodata->cfg;
	if (sp->kind == AGG_HIST) {
		cfg->mode = AGGLAT_HIST;
		preds(&sp->filt[0], &cfg->end);
		if (sp->has_val) {
			fields(&sp->val, 1, &cfg->val);
			cfg->val.kind = kind_of(&sp->val);
		}
		bpf_program__set_autoload(bp->skel->progs.ktop_agg_on_start, false);
	} else {
		cfg->mode = AGGLAT_LATENCY;
		cfg->start.nf = cfg->end.nf = sp->nmatch;
		fields(sp->match[0], sp->nmatch, cfg->start.f);
		fields(sp->match[1], sp->nmatch, cfg->end.f);
		preds(&sp->filt[0], &cfg->start);
		preds(&sp->filt[1], &cfg->end);
	}
	cfg->nby = sp->nkey;
	fields(sp->key, sp->nkey, cfg->by);
	ret = agglat_bpf__load(bp->skel);
	if (ret) {
		ret = err_set(err, errlen, ret, "BPF: the kernel refused the aggregation program: "
			      "%s%s%s", strerror(-ret), agg_vlog[0] ? "; the verifier: " :
			      agg_log[0] ? ": " : "", agg_vlog[0] ? agg_vlog : agg_log);
		goto fail;
	}
	/* END first: an event that is both ends pairs before it starts again */
	ret = attach(bp, 1, bp->skel->progs.ktop_agg_on_end, &sp->ev[sp->kind == AGG_HIST ? 0 : 1],
		     err, errlen);
	if (!ret && sp->kind == AGG_LATENCY)
		ret = attach(bp, 0, bp->skel->progs.ktop_agg_on_start, &sp->ev[0], err, errlen);
	if (ret)
		goto fail;
	return 0;
fail:
	bpf_destroy(s, it);
	return ret;
}

static int bpf_poll(struct agg_set *s, struct agg_item *it, struct agg_result *r, bool full,
		    char *err, size_t errlen)
{
	struct bpf_priv *bp = it->priv;
	const struct agg_spec *sp = &it->spec;
	struct agglat_key key, next, *prev = NULL;
	int fd, maxcpu = -1;
	uint32_t zero = 0;
	size_t cap = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(bp->skel->maps.ktop_agg_total), &zero, bp->tot))
		return err_set(err, errlen, -errno, "BPF: cannot read the totals: %s",
			       strerror(errno));
	for (int c = 0; c < bp->ncpus; c++) {
		const struct agglat_total *t = &bp->tot[c];

		r->starts += t->starts;
		r->ends += t->ends;
		r->count += t->pairs;
		r->sum_ns += t->sum;
		r->dropped += t->start_full;
		r->keys_dropped += t->key_full;
		for (int b = 0; b < AGGLAT_BUCKETS; b++)
			r->bucket[b] += t->bucket[b];
		if (!t->pairs)
			continue;
		if (!r->min_ns || t->min < r->min_ns)
			r->min_ns = t->min;
		if (maxcpu < 0 || t->max > bp->tot[maxcpu].max)
			maxcpu = c;
	}
	if (sp->kind == AGG_HIST) {
		r->count = r->ends;
		memset(r->bucket, 0, sizeof(r->bucket));
		r->min_ns = 0;
	} else if (maxcpu >= 0) {
		r->max_ns = bp->tot[maxcpu].max;
		r->worst.lat_ns = r->max_ns;
		r->worst.te_ns = bp->tot[maxcpu].max_te;
		agg_key_text(sp->key, sp->nkey, bp->tot[maxcpu].max_key.b, r->worst.key,
			     sizeof(r->worst.key));
	}
	fd = bpf_map__fd(bp->skel->maps.ktop_agg_keys);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct agg_row *row;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, bp->row))
			continue;
		if (r->nrows == cap) {
			void *n = realloc(r->rows, (cap ? cap * 2 : 64) * sizeof(*r->rows));

			if (!n)
				return err_set(err, errlen, -ENOMEM, "out of memory");
			r->rows = n;
			cap = cap ? cap * 2 : 64;
		}
		row = &r->rows[r->nrows++];
		memset(row, 0, sizeof(*row));
		agg_key_text(sp->key, sp->nkey, key.b, row->key, sizeof(row->key));
		for (int c = 0; c < bp->ncpus; c++) {
			const struct agglat_row *pr = &bp->row[c];

			row->count += pr->count;
			row->sum += pr->sum;
			if (pr->count && pr->max >= row->max) {
				row->max = pr->max;
				row->max_te = pr->max_te;
			}
		}
	}
	return 0;
}

const struct agg_engine_ops agg_engine_bpf = {
	.name		= "bpf",
	.create		= bpf_create,
	.poll		= bpf_poll,
	.destroy	= bpf_destroy,
};

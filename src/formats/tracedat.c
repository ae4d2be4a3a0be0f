// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.dat's entry in the table of formats (format.h): ktop's own reader
 * and writer (tracedat.h: tracedat_read.c, tracedat_file.c, tracedat_write.c,
 * tracedat_pager.c). A trace.dat is read whole by open(), from the mapped
 * file at 3-5 M events/s; next() has nothing left to read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tracedat.h"
#include "tracedat-local.h"
#include "store/store.h"

static bool tdat_detect(const void *head, size_t len)
{
	return len >= TDAT_MAGIC_LEN && !memcmp(head, TDAT_MAGIC, TDAT_MAGIC_LEN);
}

static int tdat_next(struct format_reader *r)
{
	return 0;
}

static void tdat_reader_free(struct format_reader *r)
{
	store_free(r->st);
	snapshot_meta_free(&r->meta);
	free(r);
}

static const struct format_reader_ops tdat_reader_ops = {
	.next	= tdat_next,
	.free	= tdat_reader_free,
};

static int tdat_open(const struct format_in *in, struct format_reader **out, char *err,
		     size_t errlen)
{
	struct tracedat_load_opts o = { .fd = in->fd, .mem_limit = in->mem_limit,
					.buffer = in->part };
	struct format_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return err_set_at(err, errlen, -ENOMEM, in->name, "out of memory");
	r->ops = &tdat_reader_ops;
	r->fmt = &format_tracedat;
	snprintf(r->name, sizeof(r->name), "%s", in->name);
	ret = tracedat_load(in->name, &o, &r->st, &r->meta, err, errlen);
	if (ret) {
		tdat_reader_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

static int tdat_save(const struct format_out *out, struct store *st,
		     const struct snapshot_meta *meta, const struct export_opts *opts,
		     struct export_stats *stats, char *err, size_t errlen)
{
	struct tracedat_save_opts o = { 0 };

	if (opts) {
		o.t0 = opts->t0;
		o.t1 = opts->t1;
		o.view = opts->view;
		o.file_flags = opts->file_flags;
		o.version = opts->dat_version;
		o.compress = (enum tracedat_compress)opts->dat_compress;
		o.cancel = opts->cancel;
	}
	return tracedat_save(out, st, meta, &o, stats, err, errlen);
}

static const char *const tdat_exts[] = { ".dat", NULL };

const struct format_ops format_tracedat = {
	.id	= FORMAT_TRACEDAT,
	.name	= "trace.dat",
	.exts	= tdat_exts,
	.parts	= true,
	.detect	= tdat_detect,
	.open	= tdat_open,
	.save	= tdat_save,
};

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Counts by event type, CPU, task or function, as the table panes show them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/viewfilter.h"


static void csv_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static int csv_save(const struct format_out *out, struct store *st,
		     const struct snapshot_meta *meta, const struct export_opts *opts,
		     struct export_stats *stats, char *err, size_t errlen)
{
	enum store_key key = opts ? opts->csv_key : STORE_KEY_TYPE;
	struct store_filter f = { .pid = -1, .cpu = -1 };
	struct export_stats s = { 0 };
	struct store_count *c;
	struct format_file o;
	uint64_t total = 0;
	size_t n, max = 65536;
	int ret;

	format_window(opts, &f.t0, &f.t1);
	c = calloc(max, sizeof(*c));
	if (!c)
		return err_set_at(err, errlen, -ENOMEM, out->path, "out of memory");
	n = opts && opts->view ? viewfilter_count_by(opts->view, key, -1, f.t0, f.t1, c, max) :
				 store_count_by(st, key, &f, c, max);
	if (n > max)
		n = max;
	ret = format_out_open(&o, out, opts ? opts->file_flags : 0, true, err, errlen);
	if (ret) {
		free(c);
		return ret;
	}
	for (size_t i = 0; i < n; i++)
		total += c[i].count;
	switch (key) {
	case STORE_KEY_CPU:
		fputs("cpu,events,percent\n", o.fp);
		break;
	case STORE_KEY_PID:
		fputs("pid,comm,events,percent\n", o.fp);
		break;
	case STORE_KEY_FUNC:
		fputs("function,calls,percent\n", o.fp);
		break;
	default:
		fputs("system,event,events,percent\n", o.fp);
	}
	for (size_t i = 0; i < n; i++) {
		double pct = total ? 100.0 * c[i].count / total : 0;

		switch (key) {
		case STORE_KEY_CPU:
			fprintf(o.fp, "%llu", (unsigned long long)c[i].key);
			break;
		case STORE_KEY_PID: {
			const char *comm = store_comm(st, (int32_t)c[i].key);

			fprintf(o.fp, "%lld,", (long long)(int32_t)c[i].key);
			csv_str(o.fp, comm ? comm : "");
			break;
		}
		case STORE_KEY_FUNC:
			csv_str(o.fp, intern_str(store_strings(st), (uint32_t)c[i].key));
			break;
		default: {
			const struct ktop_schema_type *t = schema_get(store_schema(st),
								      (uint16_t)c[i].key);

			csv_str(o.fp, t ? t->system : "");
			fputc(',', o.fp);
			csv_str(o.fp, t ? t->name : "");
		}
		}
		fprintf(o.fp, ",%llu,%.2f\n", (unsigned long long)c[i].count, pct);
		s.events += c[i].count;
	}
	free(c);
	ret = format_out_close(&o, 0, &s, err, errlen);
	if (stats)
		*stats = s;
	return ret;
}

static const char *const csv_exts[] = { ".csv", NULL };

const struct format_ops format_csv = {
	.id	= FORMAT_CSV,
	.name	= "csv",
	.exts	= csv_exts,
	.save	= csv_save,
};

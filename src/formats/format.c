// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table of formats (format.h) and what every format shares: finding one
 * by content, name or id; opening and reading an input whole; opening and
 * finishing an output file; export_write(), a save by the format's id.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/err.h"
#include "format.h"
#include "lib/output.h"
#include "store/store.h"

static const struct format_ops *const formats[FORMAT_NR] = {
	[FORMAT_KTOP]		= &format_ktop,
	[FORMAT_TRACEDAT]	= &format_tracedat,
	[FORMAT_JSON]		= &format_json,
	[FORMAT_TEXT]		= &format_text,
	[FORMAT_CSV]		= &format_csv,
	[FORMAT_FOLDED]		= &format_folded,
};

const struct format_ops *format_nth(unsigned int i)
{
	return i < FORMAT_NR ? formats[i] : NULL;
}

const struct format_ops *format_by_id(enum format_id id)
{
	return format_nth((unsigned int)id);
}

const struct format_ops *format_by_name(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return NULL;
	for (unsigned int i = 0; i < FORMAT_NR; i++)
		for (const char *const *e = formats[i] ? formats[i]->exts : NULL; e && *e; e++)
			if (!strcmp(dot, *e))
				return formats[i];
	return NULL;
}

const struct format_ops *format_detect(const void *head, size_t len)
{
	for (unsigned int i = 0; i < FORMAT_NR; i++)
		if (formats[i] && formats[i]->detect && formats[i]->detect(head, len))
			return formats[i];
	return NULL;
}

/* ---- reading ------------------------------------------------------------------ */

/* Look at the head of a file: which format reads it. Return: 0 or -errno (message in @err). */
static int format_sniff(const struct format_in *in, const struct format_ops **f, char *err,
			size_t errlen)
{
	uint8_t head[FORMAT_HEAD_MAX];
	struct stat sb;
	ssize_t n;

	if (!fstat(in->fd, &sb) && S_ISDIR(sb.st_mode))
		return err_set_at(err, errlen, -EISDIR, in->name, "is a directory, not a trace");
	n = pread(in->fd, head, sizeof(head), 0);
	if (n < 0)
		return err_set_at(err, errlen, -errno, in->name, "read: %s", strerror(errno));
	if (!n)
		return err_set_at(err, errlen, -EBADMSG, in->name, "empty file (0 bytes), not a "
				  "trace");
	*f = format_detect(head, (size_t)n);
	if (*f && (*f)->open)
		return 0;
	if (n < 8 && !memcmp(head, "KTOPSNAP", (size_t)n))
		return err_set_at(err, errlen, -ENOMSG, in->name, "truncated ktop snapshot "
				  "(%zd bytes)", n);
	return err_set_at(err, errlen, -ENOMSG, in->name, "not a trace (neither a ktop snapshot "
			  "nor a trace.dat file)");
}

bool format_split_part(const char *arg, char *file, size_t len, const char **part)
{
	const char *at = strrchr(arg, '@');
	struct stat sb;

	*part = NULL;
	if (!at || !stat(arg, &sb) || (size_t)(at - arg) >= len)
		return false;
	snprintf(file, len, "%.*s", (int)(at - arg), arg);
	if (stat(file, &sb))
		return false;
	*part = at + 1;
	return true;
}

int format_in_open(struct format_in *in, const char *arg, char *file, size_t len, char *err,
		   size_t errlen)
{
	const char *part = NULL;

	in->name = arg;
	in->part = NULL;
	in->path = arg;
	in->fd = open(arg, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0 && errno == ENOENT && format_split_part(arg, file, len, &part)) {
		in->path = file;
		in->part = part;
		in->fd = open(file, O_RDONLY | O_CLOEXEC);
	}
	if (in->fd < 0)
		return err_set_at(err, errlen, -errno, arg, "%s", strerror(errno));
	return 0;
}

int format_open(const struct format_in *in, struct format_reader **out, char *err,
		size_t errlen)
{
	const struct format_ops *f = &format_ktop;
	int ret;

	*out = NULL;
	err[0] = 0;
	/* a pipe cannot be looked at twice: only a stream format comes that way */
	if (in->path) {
		ret = format_sniff(in, &f, err, errlen);
		if (ret)
			return ret;
	}
	if (in->part && !f->parts)
		return err_set_at(err, errlen, -ENOENT, in->name, "no such file (a %s file has no "
				  "parts to choose with @)", f->name);
	ret = f->open(in, out, err, errlen);
	if (ret)
		*out = NULL;
	return ret;
}

int format_reader_next(struct format_reader *r)
{
	return r->ops->next(r);
}

struct store *format_reader_take_store(struct format_reader *r)
{
	struct store *st = r->st;

	r->st = NULL;
	return st;
}

void format_reader_free(struct format_reader *r)
{
	if (r)
		r->ops->free(r);
}

int format_load(const char *path, size_t mem_limit, struct store **out,
		struct snapshot_meta *meta, char *err, size_t errlen)
{
	bool is_stdin = !strcmp(path, "-");
	struct format_in in = {
		.fd = STDIN_FILENO, .path = is_stdin ? NULL : path,
		.name = is_stdin ? "standard input" : path, .mem_limit = mem_limit,
	};
	struct format_reader *r;
	char file[PATH_MAX];
	int ret;

	*out = NULL;
	if (meta)
		memset(meta, 0, sizeof(*meta));
	if (!is_stdin) {
		ret = format_in_open(&in, path, file, sizeof(file), err, errlen);
		if (ret)
			return ret;
		in.mem_limit = mem_limit;
	}
	ret = format_open(&in, &r, err, errlen);
	if (ret)
		goto out_close;
	while ((ret = format_reader_next(r)) > 0)
		;
	if (ret < 0) {
		snprintf(err, errlen, "%s", r->err);
	} else {
		if (meta) {
			*meta = r->meta;
			memset(&r->meta, 0, sizeof(r->meta));
		}
		*out = format_reader_take_store(r);
	}
	format_reader_free(r);
out_close:
	if (!is_stdin)
		close(in.fd);
	return ret;
}

/* ---- writing ------------------------------------------------------------------ */

int format_cancel_err(char *err, size_t errlen, const char *path)
{
	return err_set_at(err, errlen, -ECANCELED, path, "stopped before it was complete "
			  "(ktop is ending): nothing written");
}

void format_window(const struct export_opts *o, uint64_t *t0, uint64_t *t1)
{
	*t0 = o ? o->t0 : 0;
	*t1 = o && (o->t0 || o->t1) ? o->t1 : UINT64_MAX;
}

int format_out_open(struct format_file *f, const struct format_out *out, unsigned int flags,
		    bool stdio, char *err, size_t errlen)
{
	int ret, fd;

	f->fp = NULL;
	if (out->fd >= 0)
		ret = safefile_out_open_fd(&f->out, out->fd, out->path, flags, err, errlen);
	else
		ret = safefile_out_open(&f->out, out->path, flags, err, errlen);
	if (ret || !stdio)
		return ret;
	fd = fcntl(f->out.fd, F_DUPFD_CLOEXEC, 3);
	/* in place (standard output, a FIFO): a stop request must end a wait on its reader */
	f->fp = fd < 0 ? NULL : f->out.in_place ? output_fdopen(fd, true) : fdopen(fd, "w");
	if (!f->fp) {
		if (fd >= 0)
			close(fd);
		safefile_out_close(&f->out, false, err, errlen);
		return err_set_at(err, errlen, -ENOMEM, out->path, "out of memory");
	}
	setvbuf(f->fp, NULL, _IOFBF, 1 << 16);
	return 0;
}

int format_out_close(struct format_file *f, int ret, struct export_stats *stats, char *err,
		     size_t errlen)
{
	const char *path = f->out.path;
	off_t size = -1;

	if (f->fp) {
		if ((fflush(f->fp) || ferror(f->fp)) && !ret)
			ret = err_set_at(err, errlen, -EIO, path, "write: %s", strerror(errno));
		size = ftello(f->fp);
		if (fclose(f->fp) && !ret)
			ret = err_set_at(err, errlen, -EIO, path, "write: %s", strerror(errno));
		f->fp = NULL;
	} else if (f->out.fd >= 0) {
		struct stat sb;

		/* a writer may have seeked back (trace.dat's does): the size, not the offset */
		if (!fstat(f->out.fd, &sb) && S_ISREG(sb.st_mode))
			size = sb.st_size;
	}
	if (safefile_out_close(&f->out, !ret, err, errlen) && !ret)
		ret = -EIO;
	if (stats && size > 0)
		stats->bytes = (uint64_t)size;
	return ret;
}

int format_save(const struct format_ops *f, const struct format_out *out, struct store *st,
		const struct snapshot_meta *meta, const struct export_opts *opts,
		struct export_stats *stats, char *err, size_t errlen)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!f || !f->save)
		return err_set_at(err, errlen, -EOPNOTSUPP, out->path, "ktop cannot write %s files",
				  f ? f->name : "such");
	return f->save(out, st, meta, opts, stats, err, errlen);
}

/* ---- the names the rest of ktop uses (format.h) ----------------------------------- */

int format_id_by_name(const char *path)
{
	const struct format_ops *f = format_by_name(path);

	return f ? (int)f->id : -1;
}

const char *format_id_name(enum format_id fmt)
{
	const struct format_ops *f = format_by_id((enum format_id)fmt);

	return f ? f->name : "?";
}

int export_write(enum format_id fmt, const char *path, struct store *st,
		 const struct snapshot_meta *meta, const struct export_opts *opts,
		 struct export_stats *stats, char *err, size_t errlen)
{
	const struct format_out out = { .path = path, .fd = -1 };
	const struct format_ops *f = format_by_id((enum format_id)fmt);

	if (!f)
		return err_set_at(err, errlen, -EINVAL, path, "unknown export format");
	return format_save(f, &out, st, meta, opts, stats, err, errlen);
}

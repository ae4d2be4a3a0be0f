// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * filter_apply: drive src/funcfilter/ftrace_filter.c without the TUI, for the guest
 * scenario and the host EPERM test. Commands run in order in one process,
 * so undo/redo see the changes of the commands before them.
 *
 *   filter_apply [-i INSTANCE] [-d DIR] COMMAND...
 *
 *   apply LINE      apply a prompt line (src/funcfilter/funcfilter.h grammar)
 *   undo | redo     undo / redo the last change
 *   preview LINE    print the preview, change nothing
 *   show            print set_ftrace_filter's count and content
 *   save PATH       copy set_ftrace_filter's content to PATH
 *   savefile F PATH copy the instance's file F (set_ftrace_notrace...) to PATH
 *   echo TEXT       print "== TEXT" (to find a command's lines in the output)
 *   names           from now on write names, not indexes (the fallback path)
 *   bench LINE [N]  time applying LINE in the index form, then writing its
 *                   first N (200) names in one open and one by one
 *                   (open/append/close each, as shell scripts do),
 *                   extrapolated; puts the previous filter back
 *
 * For every command one line "result CMD rc=N changed=0|1 index=0|1
 * filter=N notrace=N graph=N all=0|1 ms=F" then "msg: ..." and, when the
 * kernel logged something, "kernel: ...". Exit status: 0 when every
 * command succeeded, 1 otherwise (the failing ones are in the output).
 * -i uses an existing instance; -d a directory (tests), default the top level.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "funcfilter/funcfilter.h"
#include "funcfilter/ftrace_filter.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void print_result(const char *cmd, const struct ftrace_filter_result *r)
{
	printf("result %s rc=%d changed=%d index=%d filter=%zu notrace=%zu graph=%zu all=%d "
	       "ms=%.2f write_ms=%.2f\n", cmd, r->err, r->changed, r->index_form,
	       r->count[FUNCFILTER_T_FILTER], r->count[FUNCFILTER_T_NOTRACE],
	       r->count[FUNCFILTER_T_GRAPH], r->all_functions, r->apply_ms, r->write_ms);
	printf("msg: %s\n", r->msg);
	if (r->err_offset >= 0)
		printf("offset: %d\n", r->err_offset);
	if (r->kernel_error[0])
		printf("kernel: %s\n", r->kernel_error);
	if (r->marker[0])
		printf("marker: %s\n", r->marker);
	fflush(stdout);
}

static int show(const char *dir)
{
	char path[4200], buf[4096];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/set_ftrace_filter", dir);
	f = fopen(path, "r");
	if (!f) {
		printf("show: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		printf("show: %s", buf);
		n++;
	}
	fclose(f);
	printf("show-lines: %d\n", n);
	return 0;
}

static int save(const char *dir, const char *file, const char *to)
{
	char path[4200], buf[65536];
	FILE *in, *out;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	in = fopen(path, "r");
	out = fopen(to, "w");
	if (!in || !out) {
		printf("save: %s: %s\n", in ? to : path, strerror(errno));
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return fclose(out) ? 1 : 0;
}

/* Names one by one, each its own open(O_APPEND)/write/close, like `echo f >> file`. */
static int one_by_one(const char *dir, const struct funcfilter_funcs *ff,
		      const struct funcfilter_set *s, size_t max, size_t *done, double *ms)
{
	char path[4200];
	double t0 = now_ms();
	const char *prev = NULL;

	snprintf(path, sizeof(path), "%s/set_ftrace_filter", dir);
	*done = 0;
	for (size_t i = funcfilter_set_next(s, 0); i != SIZE_MAX && *done < max;
	     i = funcfilter_set_next(s, i + 1)) {
		const char *nm = funcfilter_funcs_name(ff, i);
		int fd;

		if (prev && !strcmp(prev, nm))
			continue;
		prev = nm;
		fd = open(path, O_WRONLY | O_APPEND);
		if (fd < 0)
			return -errno;
		if (write(fd, nm, strlen(nm)) < 0 || write(fd, "\n", 1) < 0) {
			int ret = -errno;

			close(fd);
			return ret;
		}
		close(fd);
		(*done)++;
	}
	*ms = now_ms() - t0;
	return 0;
}

/* Names in one open (O_TRUNC), the first @max only. */
static int names_one_open(const char *dir, const struct funcfilter_funcs *ff,
			  const struct funcfilter_set *s, size_t max, size_t *done, double *ms)
{
	char path[4200];
	double t0 = now_ms();
	const char *prev = NULL;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/set_ftrace_filter", dir);
	*done = 0;
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	for (size_t i = funcfilter_set_next(s, 0); i != SIZE_MAX && *done < max;
	     i = funcfilter_set_next(s, i + 1)) {
		const char *nm = funcfilter_funcs_name(ff, i);

		if (prev && !strcmp(prev, nm))
			continue;
		prev = nm;
		if (write(fd, nm, strlen(nm)) < 0 || write(fd, " ", 1) < 0) {
			ret = -errno;
			break;
		}
		(*done)++;
	}
	close(fd);
	*ms = now_ms() - t0;
	return ret;
}

/*
 * Index form over the whole set through ftrace_filter_apply; names (in one
 * open, and one by one) over the first @sample names only, extrapolated:
 * each name costs a scan of every record in the kernel, which takes minutes
 * for 10k names under qemu TCG.
 */
static int bench(struct ftrace_filter *f, const char *dir, const char *line, size_t sample)
{
	const struct funcfilter_funcs *ff = ftrace_filter_funcs(f);
	struct ftrace_filter_result r;
	struct funcfilter_spec *sp;
	struct err_pos err;
	struct funcfilter_set set, cur;
	size_t n, done1 = 0, done2 = 0;
	double ms_idx, ms_write, ms_names = 0, ms_obo = 0;
	int ret;

	if (!ff) {
		printf("bench: %s\n", ftrace_filter_unavailable(f));
		return 1;
	}
	ret = funcfilter_spec_parse(&sp, line, ff, &err);
	if (ret) {
		printf("bench: %s\n", err.msg);
		return 1;
	}
	funcfilter_set_init(&set, funcfilter_funcs_count(ff));
	if (ftrace_filter_current(f, FUNCFILTER_T_FILTER, &cur) ||
	    funcfilter_spec_resolve(sp, ff, FUNCFILTER_T_FILTER, &cur, &set, &err)) {
		printf("bench: %s\n", err.msg);
		return 1;
	}
	funcfilter_set_destroy(&cur);
	funcfilter_spec_free(sp);
	n = funcfilter_set_count(&set);

	ret = ftrace_filter_apply(f, line, &r);
	print_result("bench-index", &r);
	ms_idx = r.apply_ms;
	ms_write = r.write_ms;
	if (ret)
		return 1;
	ret = names_one_open(dir, ff, &set, sample, &done1, &ms_names);
	if (!ret) {
		/* one by one appends: start from an empty filter like the others */
		close(open(strcat(strcpy((char[4200]){ 0 }, dir), "/set_ftrace_filter"),
			   O_WRONLY | O_TRUNC));
		ret = one_by_one(dir, ff, &set, sample, &done2, &ms_obo);
	}
	/* back to the filter before the index apply */
	if (ftrace_filter_undo(f, &r))
		ret = ret ? ret : -EIO;
	print_result("bench-restore", &r);
	if (ret) {
		printf("bench: names: %s\n", strerror(-ret));
		return 1;
	}
	printf("bench filter_apply.index %.1f ms (%zu functions in the index form, %s, "
	       "with error_log and read-back; the writes alone %.1f ms)\n", ms_idx, n, line,
	       ms_write);
	printf("bench filter_apply.names_one_open %.1f ms (extrapolated to %zu from %zu names "
	       "in %.1f ms)\n", done1 ? ms_names * (double)n / (double)done1 : 0, n, done1,
	       ms_names);
	printf("bench filter_apply.anchor %.1f ms (one by one, open+append+close per name as "
	       "shell scripts do; extrapolated to %zu from %zu names in %.1f ms)\n",
	       done2 ? ms_obo * (double)n / (double)done2 : 0, n, done2, ms_obo);
	funcfilter_set_destroy(&set);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracefs_instance *inst = NULL;
	const char *dir = NULL, *iname = NULL;
	struct ftrace_filter *f = NULL;
	struct ftrace_filter_result r;
	char err[512], *idir = NULL;
	int i = 1, ret, fails = 0;

	while (i + 1 < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-i"))
			iname = argv[i + 1];
		else if (!strcmp(argv[i], "-d"))
			dir = argv[i + 1];
		else
			break;
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: filter_apply [-i INSTANCE] [-d DIR] "
			"apply LINE|undo|redo|preview LINE|show|bench LINE...\n");
		return 2;
	}
	if (dir) {
		ret = ftrace_filter_open_dir(&f, dir, NULL, err, sizeof(err));
	} else {
		if (iname) {
			inst = tracefs_instance_alloc(NULL, iname);
			if (!inst || !tracefs_instance_exists(iname)) {
				fprintf(stderr, "filter_apply: no instance %s\n", iname);
				return 2;
			}
			idir = tracefs_instance_get_dir(inst);
		}
		double t0 = now_ms();

		ret = ftrace_filter_open(&f, inst, err, sizeof(err));
		dir = idir ? idir : tracefs_tracing_dir();
		printf("note: ftrace_filter_open took %.1f ms\n", now_ms() - t0);
	}
	if (ret) {
		fprintf(stderr, "filter_apply: %s\n", err);
		return 2;
	}
	if (*ftrace_filter_unavailable(f))
		printf("note: %s\n", ftrace_filter_unavailable(f));
	else
		printf("note: %zu functions available\n",
		       funcfilter_funcs_count(ftrace_filter_funcs(f)));
	for (; i < argc; i++) {
		const char *cmd = argv[i];

		if (!strcmp(cmd, "apply") && i + 1 < argc) {
			ret = ftrace_filter_apply(f, argv[++i], &r);
			print_result("apply", &r);
		} else if (!strcmp(cmd, "undo")) {
			ret = ftrace_filter_undo(f, &r);
			print_result("undo", &r);
		} else if (!strcmp(cmd, "redo")) {
			ret = ftrace_filter_redo(f, &r);
			print_result("redo", &r);
		} else if (!strcmp(cmd, "preview") && i + 1 < argc) {
			struct funcfilter_preview pv;
			double t0 = now_ms();

			ret = funcfilter_preview_line(ftrace_filter_funcs(f), argv[++i], NULL, &pv);
			printf("result preview rc=%d count=%zu ms=%.2f\n", ret, pv.count,
			       now_ms() - t0);
			printf("msg: %s\n", pv.text);
		} else if (!strcmp(cmd, "show")) {
			ret = show(dir);
		} else if (!strcmp(cmd, "names")) {
			ftrace_filter_set_index_form(f, false);
			ret = 0;
		} else if (!strcmp(cmd, "save") && i + 1 < argc) {
			ret = save(dir, "set_ftrace_filter", argv[++i]);
		} else if (!strcmp(cmd, "savefile") && i + 2 < argc) {
			ret = save(dir, argv[i + 1], argv[i + 2]);
			i += 2;
		} else if (!strcmp(cmd, "echo") && i + 1 < argc) {
			printf("== %s\n", argv[++i]);
			ret = 0;
		} else if (!strcmp(cmd, "bench") && i + 1 < argc) {
			ret = bench(f, dir, argv[i + 1], i + 2 < argc && atoi(argv[i + 2]) > 0 ?
				    (size_t)atoi(argv[i + 2]) : 200);
			i += 1 + (i + 2 < argc && atoi(argv[i + 2]) > 0);
		} else {
			fprintf(stderr, "filter_apply: bad command '%s'\n", cmd);
			ret = 2;
		}
		fails += ret != 0;
	}
	ftrace_filter_close(f);
	tracefs_put_tracing_file(idir);
	tracefs_instance_free(inst);
	return fails ? 1 : 0;
}

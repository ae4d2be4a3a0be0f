// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The filter language (src/funcfilter/funcfilter.c) against available_filter_functions
 * recorded from Debian's 6.1-rt and 6.12-rt kernels (tests/fixtures/rt-filter).
 * Every expected count comes from an independent matcher: fnmatch(3) for
 * globs, POSIX regcomp(3) for regexes, plain loops for prefixes.
 */
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "test.h"
#include "app/app.h"
#include "fake_tracefs.h"
#include "funcfilter/funcfilter.h"
#include "lib/globmatch.h"
#include "funcfilter/ftrace_filter.h"
#include "store/event.h"
#include "lib/intern.h"
#include "store/store.h"

static char *fx_text;
static size_t fx_len;
static struct funcfilter_funcs *fx;

static const char *fixtures_root(void)
{
	const char *e = getenv("KTOP_FIXTURES");

	return e && *e ? e : "tests/fixtures";
}

/* The recorded list of @tag ("rt" or "rt612"), decompressed. */
static struct funcfilter_funcs *load_tag(const char *tag, char **text, size_t *len)
{
	char path[512];
	size_t cap = 1 << 20;
	gzFile gz;
	int r;

	snprintf(path, sizeof(path), "%s/rt-filter/%s/available_filter_functions.gz",
		 fixtures_root(), tag);
	gz = gzopen(path, "rb");
	if (!gz) {
		printf("cannot open %s\n", path);
		return NULL;
	}
	*text = malloc(cap);
	*len = 0;
	while ((r = gzread(gz, *text + *len, (unsigned int)(cap - *len))) > 0) {
		*len += (size_t)r;
		if (*len == cap)
			*text = realloc(*text, cap *= 2);
	}
	gzclose(gz);
	return funcfilter_funcs_parse(*text, *len);
}

static struct funcfilter_funcs *funcs(void)
{
	if (!fx)
		fx = load_tag("rt", &fx_text, &fx_len);
	return fx;
}

/* The name of line @i of the fixture text, by a separate walk. */
static size_t oracle_names(char ***names)
{
	size_t n = 0, cap = 65536;
	char *p = fx_text, *end = fx_text + fx_len;

	*names = malloc(cap * sizeof(**names));
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (nl ? nl : end) - p;
		char *sp = memchr(p, ' ', l);

		if (l) {
			if (n == cap)
				*names = realloc(*names, (cap *= 2) * sizeof(**names));
			(*names)[n++] = strndup(p, sp ? (size_t)(sp - p) : l);
		}
		p += l + 1;
	}
	return n;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Resolve @line for set_ftrace_filter; return the count or a negative errno. */
static long resolve(const char *line, const struct funcfilter_set *cur, struct funcfilter_set *out,
		    struct err_pos *err)
{
	struct funcfilter_spec *sp;
	int ret = funcfilter_spec_parse(&sp, line, funcs(), err);

	if (ret)
		return ret;
	funcfilter_set_init(out, funcfilter_funcs_count(funcs()));
	ret = funcfilter_spec_resolve(sp, funcs(), FUNCFILTER_T_FILTER, cur, out, err);
	funcfilter_spec_free(sp);
	return ret ? ret : (long)funcfilter_set_count(out);
}

TEST(fixture_loads)
{
	size_t lines = 0;

	CHECK(funcs());
	for (size_t i = 0; i < fx_len; i++)
		lines += fx_text[i] == '\n';
	CHECK_EQ_U64(funcfilter_funcs_count(funcs()), lines);
	CHECK(funcfilter_funcs_count(funcs()) > 20000);
}

TEST(find_line_every_line)
{
	char **names;
	size_t n = oracle_names(&names), bad = 0;

	CHECK(funcs());
	for (size_t i = 0; i < n; i++) {
		size_t first, k, j, seen = 0;

		k = funcfilter_funcs_find_line(funcs(), names[i], strlen(names[i]), &first);
		for (j = first; j != SIZE_MAX; j = funcfilter_funcs_next_same(funcs(), j))
			seen += j == i;
		bad += !k || seen != 1 || strcmp(funcfilter_funcs_name(funcs(), i), names[i]);
	}
	free_names(names, n);
	CHECK_EQ_U64(bad, 0);
}

TEST(glob_like_fnmatch)
{
	static const char *const globs[] = {
		"vfs_*", "*lock*", "*_read", "tcp_*_v4*", "?fs_read", "[a-c]*_init", "[!a-z]*",
		"*spin*lock*irq*", "do_sys_open", "__x64_sys_*", "*.isra.*", "*[0-9]",
		"sched_*_task", "*", "no_such_function_at_all",
	};
	char **names;
	size_t n = oracle_names(&names);

	CHECK(funcs());
	for (size_t g = 0; g < sizeof(globs) / sizeof(globs[0]); g++) {
		size_t want = 0, got = 0;
		struct funcfilter_set set;
		struct err_pos err;
		long r;

		for (size_t i = 0; i < n; i++) {
			want += !fnmatch(globs[g], names[i], 0);
			got += glob_match(globs[g], names[i]);
		}
		if (want != got)
			printf("glob %s: fnmatch %zu, glob_match %zu\n", globs[g], want,
			       got);
		CHECK_EQ_U64(got, want);
		r = resolve(globs[g], NULL, &set, &err);
		funcfilter_set_destroy(&set);
		if (!want) {
			CHECK(r == -EINVAL);
			CHECK(strstr(err.msg, "matches no function"));
		} else {
			CHECK_EQ_U64(r, want);
		}
	}
	free_names(names, n);
}

TEST(regex_like_posix)
{
	static const char *const res[] = {
		"^tcp_(send|recv)", "^vfs_", "lock$", "^(ext4|jbd2)_.*write", "_[0-9]+$",
		"^sched_.*(fork|exec)",
	};
	char **names;
	size_t n = oracle_names(&names);

	CHECK(funcs());
	for (size_t k = 0; k < sizeof(res) / sizeof(res[0]); k++) {
		char line[256];
		struct funcfilter_set set;
		struct err_pos err;
		size_t want = 0;
		regex_t re;
		long r;

		CHECK(!regcomp(&re, res[k], REG_EXTENDED | REG_NOSUB));
		for (size_t i = 0; i < n; i++)
			want += !regexec(&re, names[i], 0, NULL, 0);
		regfree(&re);
		snprintf(line, sizeof(line), "/%s/", res[k]);
		r = resolve(line, NULL, &set, &err);
		funcfilter_set_destroy(&set);
		if (want)
			CHECK_EQ_U64(r, want);
		else
			CHECK(r == -EINVAL);
	}
	free_names(names, n);
}

TEST(negation_and_append)
{
	struct funcfilter_set a, b, cur;
	struct err_pos err;
	char **names;
	size_t n = oracle_names(&names), want = 0, want_app = 0, want_vfs = 0, first = SIZE_MAX;

	CHECK(funcs());
	for (size_t i = 0; i < n; i++) {
		bool m = !fnmatch("*lock*", names[i], 0) && fnmatch("*unlock*", names[i], 0);

		want += m;
		want_app += m || !fnmatch("vfs_*", names[i], 0);
		want_vfs += !fnmatch("vfs_*", names[i], 0);
	}
	free_names(names, n);
	CHECK_EQ_U64(resolve("*lock* !*unlock*", NULL, &a, &err), want);
	/* '+' adds to the current content; a plain line replaces it */
	CHECK_EQ_U64(resolve("+ vfs_*", &a, &b, &err), want_app);
	funcfilter_set_destroy(&b);
	CHECK_EQ_U64(resolve("vfs_*", &a, &b, &err), want_vfs);
	funcfilter_set_destroy(&b);
	/* '!' alone removes from the current content */
	first = funcfilter_set_next(&a, 0);
	funcfilter_set_init(&cur, funcfilter_funcs_count(funcs()));
	funcfilter_set_add(&cur, first);
	funcfilter_set_add(&cur, funcfilter_set_next(&a, first + 1));
	{
		char line[300];

		snprintf(line, sizeof(line), "!%s", funcfilter_funcs_name(funcs(), first));
		CHECK_EQ_U64(resolve(line, &cur, &b, &err), 1);
		funcfilter_set_destroy(&b);
		/* removing every function would mean "all functions" to the kernel */
		snprintf(line, sizeof(line), "%s !%s", funcfilter_funcs_name(funcs(), first),
			 funcfilter_funcs_name(funcs(), first));
		CHECK(resolve(line, NULL, &b, &err) == -EINVAL);
		CHECK(strstr(err.msg, "every function"));
		funcfilter_set_destroy(&b);
	}
	funcfilter_set_destroy(&cur);
	funcfilter_set_destroy(&a);
}

TEST(targets_and_items)
{
	struct funcfilter_spec *sp;
	struct err_pos err;
	const char *sys, *ev, *expr;
	const int *pids;

	CHECK(funcs());
	CHECK(!funcfilter_spec_parse(&sp, "vfs_* -n vfs_readv -g do_sys_open pid:12,34", funcs(),
				     &err));
	CHECK(funcfilter_spec_has_target(sp, FUNCFILTER_T_FILTER));
	CHECK(funcfilter_spec_has_target(sp, FUNCFILTER_T_NOTRACE));
	CHECK(funcfilter_spec_has_target(sp, FUNCFILTER_T_GRAPH));
	CHECK(funcfilter_spec_pids(sp, &pids) == 2 && pids[0] == 12 && pids[1] == 34);
	CHECK(!funcfilter_spec_appends(sp));
	funcfilter_spec_free(sp);

	CHECK(!funcfilter_spec_parse(&sp, "-n :clear", funcs(), &err));
	CHECK(funcfilter_spec_clears(sp, FUNCFILTER_T_NOTRACE));
	CHECK(!funcfilter_spec_has_target(sp, FUNCFILTER_T_FILTER));
	funcfilter_spec_free(sp);

	CHECK(!funcfilter_spec_parse(&sp, "sched_switch: prev_pid == 1 ", funcs(), &err));
	CHECK(funcfilter_spec_event(sp, &sys, &ev, &expr));
	CHECK_STR(sys, "");
	CHECK_STR(ev, "sched_switch");
	CHECK_STR(expr, "prev_pid == 1");
	funcfilter_spec_free(sp);
	CHECK(!funcfilter_spec_parse(&sp, "sched:sched_wakeup: comm ~ \"k*\"", funcs(), &err));
	CHECK(funcfilter_spec_event(sp, &sys, &ev, &expr));
	CHECK_STR(sys, "sched");
	CHECK_STR(ev, "sched_wakeup");
	funcfilter_spec_free(sp);
	CHECK(funcfilter_spec_parse(&sp, "sched_switch:", funcs(), &err) == -EINVAL);
	CHECK(funcfilter_spec_parse(&sp, "pid:12,x", funcs(), &err) == -EINVAL);
	CHECK(funcfilter_spec_parse(&sp, "-n", funcs(), &err) == -EINVAL);
}

TEST(comm_resolves_to_our_tid)
{
	char comm[32] = "", line[64];
	struct funcfilter_spec *sp;
	struct err_pos err;
	const int *pids;
	bool found = false;
	FILE *f = fopen("/proc/self/comm", "r");
	int n;

	CHECK(f && fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(line, sizeof(line), "comm:%s", comm);
	CHECK(!funcfilter_spec_parse(&sp, line, NULL, &err));
	n = funcfilter_spec_pids(sp, &pids);
	for (int i = 0; i < n; i++)
		found |= pids[i] == gettid();
	funcfilter_spec_free(sp);
	CHECK(found);
	CHECK(funcfilter_spec_parse(&sp, "comm:no-such-task-x", NULL, &err) == -ENOENT);
}

TEST(bad_input)
{
	struct funcfilter_spec *sp = NULL;
	struct err_pos err;
	struct funcfilter_set set;
	char *big;
	int ret;

	CHECK(funcs());
	/* unbalanced regex: pcre2's message and the offset inside the line */
	ret = funcfilter_spec_parse(&sp, "vfs_* /tcp_(send/", funcs(), &err);
	CHECK(ret == -EINVAL && !sp);
	CHECK(strstr(err.msg, "missing closing parenthesis"));
	CHECK(err.offset >= 7 && err.offset <= 17);
	CHECK(funcfilter_spec_parse(&sp, "/tcp_[a-/", funcs(), &err) == -EINVAL);
	CHECK(funcfilter_spec_parse(&sp, "/^tcp_", funcs(), &err) == -EINVAL);
	CHECK(strstr(err.msg, "unbalanced regex") && err.offset == 0);
	/* catastrophic: nested quantifiers hit pcre2's match limit, cleanly */
	CHECK(resolve("/^(\\w|\\w|_)*\\W/", NULL, &set, &err) == -ERANGE);
	funcfilter_set_destroy(&set);
	CHECK(strstr(err.msg, "too costly"));
	/* matches nothing */
	CHECK(resolve("no_such_function_*", NULL, &set, &err) == -EINVAL);
	funcfilter_set_destroy(&set);
	CHECK(strstr(err.msg, "matches no function"));
	/* a 100 KB paste */
	big = malloc(100 * 1024 + 1);
	memset(big, 'a', 100 * 1024);
	big[100 * 1024] = '\0';
	CHECK(funcfilter_spec_parse(&sp, big, funcs(), &err) == -E2BIG);
	free(big);
	CHECK(strstr(err.msg, "too long"));
	/* control characters, bytes that are not UTF-8 */
	CHECK(funcfilter_spec_parse(&sp, "vfs_\x1b[2Jread", funcs(), &err) == -EILSEQ);
	CHECK(err.offset == 4 && strstr(err.msg, "control character 0x1b"));
	CHECK(funcfilter_spec_parse(&sp, "vfs_read\xff", funcs(), &err) == -EILSEQ);
	CHECK(err.offset == 8 && strstr(err.msg, "not UTF-8"));
	CHECK(funcfilter_spec_parse(&sp, "vfs_\xc3", funcs(), &err) == -EILSEQ);
	CHECK(funcfilter_spec_parse(&sp, "vfs_\xed\xa0\x80", funcs(), &err) == -EILSEQ);
	/* valid UTF-8 passes the byte check, then is not a function name */
	CHECK(funcfilter_spec_parse(&sp, "vfs_\xc3\xa9", funcs(), &err) == -EINVAL);
	/* :mod: of a module that is not loaded (the guest had none) */
	CHECK(funcfilter_spec_parse(&sp, "*:mod:no_such_module", funcs(), &err) == -ENOENT);
	CHECK(strstr(err.msg, "not loaded"));
	CHECK(funcfilter_spec_parse(&sp, "vfs_read:foo", funcs(), &err) == -EINVAL);
	CHECK(funcfilter_spec_parse(&sp, "", funcs(), &err) == -EINVAL);
	CHECK(funcfilter_spec_parse(&sp, "tcp_$x", funcs(), &err) == -EINVAL);
}

TEST(preview)
{
	struct funcfilter_preview pv;
	char **names;
	size_t n = oracle_names(&names), want = 0, k = 0;
	regex_t re;

	CHECK(funcs());
	CHECK(!regcomp(&re, "^vfs_", REG_EXTENDED | REG_NOSUB));
	CHECK(!funcfilter_preview_line(funcs(), "/^vfs_/", NULL, &pv));
	CHECK(pv.ok && pv.target == FUNCFILTER_T_FILTER);
	for (size_t i = 0; i < n; i++) {
		if (regexec(&re, names[i], 0, NULL, 0))
			continue;
		/* the preview's names are the first matches in the kernel's order */
		if (k < pv.nnames)
			CHECK_STR(pv.names[k], names[i]);
		k++;
		want++;
	}
	regfree(&re);
	free_names(names, n);
	CHECK_EQ_U64(pv.count, want);
	CHECK(pv.nnames == (want < FUNCFILTER_PREVIEW_NAMES ? want : FUNCFILTER_PREVIEW_NAMES));
	CHECK(strstr(pv.text, "set_ftrace_filter: "));
	CHECK(funcfilter_preview_line(funcs(), "/tcp_(/", NULL, &pv) == -EINVAL);
	CHECK(!pv.ok && strstr(pv.text, "col ") && strstr(pv.text, "missing closing"));
}

TEST(complete)
{
	struct funcfilter_completion c;
	char **names;
	size_t n = oracle_names(&names), want = 0;
	char common[256] = "";
	const char *prev = NULL;

	CHECK(funcs());
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		if (strncmp(names[i], "vfs_rea", 7))
			continue;
		/* distinct names only */
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(names[j], names[i]);
		if (dup)
			continue;
		if (!want)
			snprintf(common, sizeof(common), "%s", names[i]);
		while (common[k] && common[k] == names[i][k])
			k++;
		common[k] = '\0';
		want++;
		prev = names[i];
	}
	(void)prev;
	free_names(names, n);
	CHECK(want > 0);
	CHECK_EQ_U64(funcfilter_complete(funcs(), "-n !vfs_rea", 11, &c), want);
	CHECK_EQ_U64(c.start, 3);
	CHECK(c.prefix[0] == '!' && !strcmp(c.prefix + 1, common));
	for (size_t i = 1; i < c.ncand && i < FUNCFILTER_COMPLETE_MAX; i++)
		CHECK(strcmp(c.cand[i - 1], c.cand[i]) < 0);
	CHECK_EQ_U64(funcfilter_complete(funcs(), "zzzz_no_such", 12, &c), 0);
	CHECK_STR(c.prefix, "zzzz_no_such");
	CHECK_EQ_U64(funcfilter_complete(funcs(), "/vfs_", 5, &c), 0);
}

TEST(second_kernel)
{
	char *text;
	size_t len, lines = 0;
	struct funcfilter_funcs *ff = load_tag("rt612", &text, &len);

	CHECK(ff);
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	CHECK_EQ_U64(funcfilter_funcs_count(ff), lines);
	funcfilter_funcs_free(ff);
	free(text);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, 1 << 16);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* error_log as the 6.1-rt and 6.12-rt kernels wrote it for 'prev_pid == ' */
TEST(error_log_recorded)
{
	static const char *const tags[] = { "rt", "rt612" };

	for (int k = 0; k < 2; k++) {
		char path[512], out[512], first[256], *text, *caret, *cmdl;
		long want_col;

		snprintf(path, sizeof(path), "%s/rt-filter/%s/error_log", fixtures_root(), tags[k]);
		text = read_text(path);
		CHECK(text && text[0] == '[');
		/* independent: the column is where the caret sits under the command */
		cmdl = strstr(text, "  Command: ");
		caret = strchr(cmdl, '\n') + 1;
		want_col = (long)(strchr(caret, '^') - caret) - (long)strlen("  Command: ") + 1;
		ftrace_filter_error_log_parse(text, "", out, sizeof(out));
		CHECK(strstr(out, "event filter parse error: error: "));
		snprintf(path, sizeof(path), "column %ld)", want_col);
		CHECK(strstr(out, path));
		CHECK(strstr(out, "(command 'prev_pid =="));
		CHECK(!strchr(out, '['));
		/* entries up to the mark are old news */
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(text, "\n"), text);
		ftrace_filter_error_log_parse(text, first, out, sizeof(out));
		CHECK_STR(out, "");
		free(text);
	}
}

/* the readback formats the kernel recorded: index writes of 1 2 3 and a glob */
TEST(readback_recorded)
{
	char path[512], *text;
	size_t first, n = 0;

	CHECK(funcs());
	snprintf(path, sizeof(path), "%s/rt-filter/rt/index_readback", fixtures_root());
	text = read_text(path);
	CHECK(text);
	/* "echo 1 2 3 > set_ftrace_filter" kept functions 1, 2, 3 (0-based 0, 1, 2) */
	for (char *p = text; *p; p += strcspn(p, "\n") + 1, n++) {
		CHECK(funcfilter_funcs_find_line(funcs(), p, strcspn(p, "\n"), &first) >= 1);
		CHECK_EQ_U64(first, n);
		if (!p[strcspn(p, "\n")])
			break;
	}
	CHECK_EQ_U64(n, 3);
	free(text);
}

TEST(history)
{
	char dir[] = "/tmp/ktop-test-hist.XXXXXX", path[128], why[256];
	struct funcfilter_history *h;

	CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a/b/filter_history", dir);
	CHECK(!funcfilter_history_open(&h, path));
	CHECK_EQ_U64(funcfilter_history_count(h), 0);
	CHECK(!funcfilter_history_add(h, "vfs_*", why, sizeof(why)));
	CHECK(!funcfilter_history_add(h, "/^tcp_/", why, sizeof(why)));
	CHECK(!funcfilter_history_add(h, "/^tcp_/", why, sizeof(why)));
	CHECK(funcfilter_history_add(h, "a\nb", why, sizeof(why)) == -EINVAL);
	funcfilter_history_free(h);
	CHECK(!funcfilter_history_open(&h, path));
	CHECK_EQ_U64(funcfilter_history_count(h), 2);
	CHECK_STR(funcfilter_history_get(h, 0), "/^tcp_/");
	CHECK_STR(funcfilter_history_get(h, 1), "vfs_*");
	CHECK(!funcfilter_history_get(h, 2));
	funcfilter_history_free(h);
	/* default place: $XDG_STATE_HOME/ktop */
	snprintf(path, sizeof(path), "%s/state", dir);
	setenv("XDG_STATE_HOME", path, 1);
	CHECK(!funcfilter_history_open(&h, NULL));
	CHECK(!funcfilter_history_add(h, "x", why, sizeof(why)));
	funcfilter_history_free(h);
	snprintf(path, sizeof(path), "%s/state/ktop/filter_history", dir);
	CHECK(!access(path, R_OK));
	CHECK(!test_rm_rf(dir));
}

/* the marker a filter change leaves in the store reads back as its text */
TEST(marker_event)
{
	struct store *st = store_new(1 << 20, 2);
	struct ktop_event ev, got;
	uint64_t first, end;

	CHECK(st);
	CHECK(!ftrace_filter_marker_event(st, "filter: vfs_*", 1000, 1, &ev));
	CHECK(ev.type == KTOP_T_MARKER && ev.cpu == 1 && ev.nargs == 1);
	CHECK(!store_append(st, &ev));
	store_publish(st, 1);
	store_cpu_range(st, 1, &first, &end);
	CHECK_EQ_U64(end - first, 1);
	CHECK(!store_get(st, 1, first, &got));
	CHECK(got.type == KTOP_T_MARKER && got.ts == 1000);
	CHECK_STR(intern_str(store_strings(st), (uint32_t)got.args[0]), "filter: vfs_*");
	store_free(st);
}

/* The live source's function filter as the header asks for it (source_ops.filter_held). */
static struct ftrace_filter *held_ff;

static const struct ftrace_filter *held_filter(const struct source *s)
{
	return held_ff;
}

static const struct source_ops held_ops = { .name = "test", .filter_held = held_filter };
static struct source held_src = { .ops = &held_ops };

/*
 * Issue 18 #3.6: the header's filter line says what the prompt left in the
 * files (read back), through undo and redo, and what the command line set
 * where the prompt has not changed it; "none" only when there is none. On a
 * directory laid out like an instance (pid and event filter files).
 */
TEST(filter_desc_follows_applies_undos_and_the_command_line)
{
	struct ftrace_filter_result res;
	struct app a = { .src = &held_src };
	char buf[256];

	snprintf(fake_root, sizeof(fake_root), "/tmp/ktop-test-filter.%d", (int)getpid());
	CHECK(mkdir(fake_root, 0700) == 0);
	fake_put("set_event_pid", "");
	fake_put("events/sched/sched_switch/filter", "none\n");
	fake_put("error_log", "");
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "none");
	CHECK(ftrace_filter_open_dir(&held_ff, fake_root, NULL, buf, sizeof(buf)) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "none");
	CHECK(ftrace_filter_apply(held_ff, "pid:1234,1235", &res) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "pid:1234 1235");
	CHECK(ftrace_filter_apply(held_ff, "sched_switch: prev_pid == 1", &res) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)),
		  "pid:1234 1235; sched_switch: prev_pid == 1");
	CHECK(ftrace_filter_undo(held_ff, &res) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "pid:1234 1235");
	CHECK(ftrace_filter_redo(held_ff, &res) == 0);
	CHECK(strstr(app_filter_desc(&a, buf, sizeof(buf)), "sched_switch: prev_pid == 1"));
	CHECK(ftrace_filter_undo(held_ff, &res) == 0);
	CHECK(ftrace_filter_undo(held_ff, &res) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "none");
	ftrace_filter_close(held_ff);
	/* the command line's (as the session wrote it), until the prompt changes those files */
	a.opts.so.filters[0] = "vfs_*";
	a.opts.so.filters[1] = "/^tcp_/";
	a.opts.so.nfilters = 2;
	a.opts.so.pids[0] = 42;
	a.opts.so.npids = 1;
	fake_put("set_event_pid", "42\n");
	CHECK(ftrace_filter_open_dir(&held_ff, fake_root, NULL, buf, sizeof(buf)) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "functions vfs_* /^tcp_/; pid:42");
	CHECK(ftrace_filter_apply(held_ff, "pid:7", &res) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "pid:7; functions vfs_* /^tcp_/");
	CHECK(ftrace_filter_undo(held_ff, &res) == 0);
	CHECK_STR(app_filter_desc(&a, buf, sizeof(buf)), "pid:42; functions vfs_* /^tcp_/");
	ftrace_filter_close(held_ff);
	CHECK(fake_remove() == 0);
}

TEST_MAIN()

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/lib/tuning.c: the KTOP_* variables read from the environment into struct
 * tuning, with their defaults, and a clear error for a wrong number; the
 * table itself (every field filled by one variable) and its listing; the
 * manual documents the same variables, and no other source reads one.
 */
#include <dirent.h>
#include <errno.h>

#include "lib/file.h"
#include "lib/tuning.h"
#include "test.h"

static void clear_env(void)
{
	for (size_t i = 0; i < tuning_nvars; i++)
		unsetenv(tuning_vars[i].name);
}

TEST(defaults)
{
	struct tuning t;
	char err[128] = "";

	clear_env();
	CHECK(tuning_read(&t, err, sizeof(err)) == 0 && !err[0]);
	CHECK_STR(t.fixtures, "tests/fixtures");
	CHECK(t.read_queue_mb == 32);
	CHECK(!t.test_top_level && !t.decode_thread && !t.no_splice && !t.decode_kbuffer_walk &&
	      !t.debug_start);
	CHECK(!t.filter_funcs && !t.ui_key_latency && !t.theme_dir);
}

TEST(values)
{
	struct tuning t;
	char err[128] = "";

	clear_env();
	setenv("KTOP_TEST_TOP_LEVEL", "1", 1);
	setenv("KTOP_DECODE_THREAD", "0", 1);
	setenv("KTOP_NO_SPLICE", "", 1);
	setenv("KTOP_DEBUG_START", "yes", 1);
	setenv("KTOP_READ_QUEUE_MB", "4096", 1);
	setenv("KTOP_THEME_DIR", "/tmp/themes", 1);
	setenv("KTOP_FIXTURES", "", 1);
	CHECK(tuning_read(&t, err, sizeof(err)) == 0);
	CHECK(t.test_top_level && !t.decode_thread && !t.no_splice && t.debug_start);
	CHECK(t.read_queue_mb == 4096);
	CHECK_STR(t.theme_dir, "/tmp/themes");
	CHECK_STR(t.fixtures, "tests/fixtures");
	setenv("KTOP_READ_QUEUE_MB", "0", 1);
	CHECK(tuning_read(&t, err, sizeof(err)) == 0 && t.read_queue_mb == 0);
	clear_env();
}

TEST(wrong_numbers_said_and_defaulted)
{
	static const char *const bad[] = {
		"4097", "abc", "12MB", "-1", " 5", "99999999999999999999",
	};
	struct tuning t;
	char err[128];

	clear_env();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[96];

		setenv("KTOP_READ_QUEUE_MB", bad[i], 1);
		err[0] = '\0';
		CHECK(tuning_read(&t, err, sizeof(err)) == -EINVAL);
		snprintf(want, sizeof(want),
			 "KTOP_READ_QUEUE_MB=%s: not a whole number from 0 to 4096", bad[i]);
		CHECK_STR(err, want);
		CHECK(t.read_queue_mb == 32);
	}
	clear_env();
}

TEST(process_tuning_read_again_by_init)
{
	char err[128];

	clear_env();
	CHECK(!tuning()->decode_kbuffer_walk);
	setenv("KTOP_DECODE_KBUFFER_WALK", "1", 1);
	CHECK(!tuning()->decode_kbuffer_walk);	/* read once */
	CHECK(tuning_init(err, sizeof(err)) == 0);
	CHECK(tuning()->decode_kbuffer_walk);
	unsetenv("KTOP_DECODE_KBUFFER_WALK");
	CHECK(tuning_init(err, sizeof(err)) == 0 && !tuning()->decode_kbuffer_walk);
}

/* Each variable has its own field and name, and is listed. */
TEST(table_and_listing)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	size_t fields = 0;

	CHECK(fp);
	tuning_print(fp);
	fclose(fp);
	for (size_t i = 0; i < tuning_nvars; i++) {
		const struct tuning_var *v = &tuning_vars[i];

		CHECK(!strncmp(v->name, "KTOP_", 5) && v->meaning && strlen(v->meaning) > 20);
		CHECK(v->offset < sizeof(struct tuning));
		CHECK(v->kind != TUNING_NUMBER || (v->min <= v->def && v->def <= v->max));
		for (size_t k = 0; k < i; k++)
			CHECK(strcmp(v->name, tuning_vars[k].name) &&
			      v->offset != tuning_vars[k].offset);
		CHECK(strstr(out, v->name));
		fields += v->kind == TUNING_PATH ? sizeof(const char *) :
			  v->kind == TUNING_NUMBER ? sizeof(unsigned int) : sizeof(bool);
	}
	CHECK(fields <= sizeof(struct tuning));
	/* lines fit a terminal */
	for (char *l = out; *l; l = strchr(l, '\n') + 1)
		CHECK(strcspn(l, "\n") < 80);
	free(out);
}

TEST(given)
{
	struct tuning t;

	clear_env();
	setenv("KTOP_FIXTURES", "", 1);
	setenv("KTOP_THEME_DIR", "/t", 1);
	CHECK(tuning_read(&t, NULL, 0) == 0);
	CHECK(!tuning_given(&t, "KTOP_FIXTURES") && tuning_given(&t, "KTOP_THEME_DIR"));
	CHECK(!tuning_given(&t, "KTOP_NOSUCH") && !tuning_given(&t, "KTOP_DEBUG_START"));
	clear_env();
}

/* man/ktop.1's ENVIRONMENT: a ".B KTOP_X" entry for each variable, and no other. */
TEST(manual_lists_the_table)
{
	char *man = NULL, *env, *end, *p;
	size_t entries = 0;

	CHECK(file_read("man/ktop.1", FILE_NO_MAX, &man, NULL) == 0);
	if (!man)
		return;
	env = strstr(man, "\n.SH ENVIRONMENT\n");
	CHECK(env);
	if (!env)
		goto out;
	end = strstr(env + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (size_t i = 0; i < tuning_nvars; i++) {
		char want[64];

		snprintf(want, sizeof(want), "\n.B %s\n", tuning_vars[i].name);
		if (!strstr(env, want))
			printf("FAIL manual: no entry for %s\n", tuning_vars[i].name);
		CHECK(strstr(env, want));
	}
	for (p = env; (p = strstr(p, "\n.B KTOP_")); p++) {
		size_t n = strcspn(p + 4, "\n"), i;

		for (i = 0; i < tuning_nvars; i++)
			if (strlen(tuning_vars[i].name) == n && !strncmp(p + 4, tuning_vars[i].name, n))
				break;
		if (i == tuning_nvars)
			printf("FAIL manual: %.*s is not in src/lib/tuning.c\n", (int)n, p + 4);
		CHECK(i < tuning_nvars);
		entries++;
	}
	CHECK(entries == tuning_nvars);
out:
	free(man);
}

/* Read every .c and .h below @dir (subsystem folders too); count them in @files. */
static void scan_sources(const char *dir, unsigned int *files)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	CHECK(d);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[512], *text;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			scan_sources(path, files);
			continue;
		}
		if (n < 3 || (strcmp(de->d_name + n - 2, ".c") && strcmp(de->d_name + n - 2, ".h")))
			continue;
		if (!strcmp(path, "src/lib/tuning.c") || file_read(path, FILE_NO_MAX, &text, NULL))
			continue;
		(*files)++;
		if (strstr(text, "getenv(\"KTOP_"))
			printf("FAIL %s reads a KTOP_ variable itself\n", path);
		CHECK(!strstr(text, "getenv(\"KTOP_"));
		free(text);
	}
	if (d)
		closedir(d);
}

/* Only src/lib/tuning.c reads a KTOP_* variable: no getenv("KTOP_...") elsewhere. */
TEST(sources_read_no_variable)
{
	unsigned int files = 0;

	scan_sources("src", &files);
	scan_sources("ui", &files);
	CHECK(files > 100);
}

TEST_MAIN()

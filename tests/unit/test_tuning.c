// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/tuning.c: the KTOP_* variables read from the environment into struct
 * tuning, with their defaults, and a clear error for a wrong number; the
 * table itself (every field filled by one variable) and its listing.
 */
#include <errno.h>

#include "tuning.h"
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

TEST_MAIN()

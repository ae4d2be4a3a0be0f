/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal unit-test harness. Each tests/unit/test_*.c defines test cases
 * with TEST(name) and ends with TEST_MAIN(). A run prints one line per case,
 * "ok NAME" or "FAIL NAME: file:line: expression", then "N passed, N failed".
 * The exit status is 1 when any case failed.
 */
#ifndef KTOP_TEST_H
#define KTOP_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

struct test_case {
	const char	*name;
	void		(*fn)(void);
};

#ifndef TEST_MAX
#define TEST_MAX 256	/* cases a program holds: one more fails the run (TEST_MAIN) */
#endif
extern struct test_case test_cases[TEST_MAX];
extern int test_ncases;
extern int test_failed_now;
extern int test_dropped;

#define TEST(name)							\
	static void test_##name(void);					\
	__attribute__((constructor)) static void test_reg_##name(void)	\
	{								\
		if (test_ncases < TEST_MAX)				\
			test_cases[test_ncases++] = (struct test_case){	\
				#name, test_##name };			\
		else							\
			test_dropped++;					\
	}								\
	static void test_##name(void)

#define CHECK(expr)							\
	do {								\
		if (!(expr)) {						\
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #expr); \
			test_failed_now = 1;				\
			return;						\
		}							\
	} while (0)

#define CHECK_EQ_U64(a, b)						\
	do {								\
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);	\
		if (_a != _b) {						\
			printf("FAIL %s:%d: %s == %s (%" PRIu64 " != %" PRIu64 ")\n", \
			       __FILE__, __LINE__, #a, #b, _a, _b);	\
			test_failed_now = 1;				\
			return;						\
		}							\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *_a = (a), *_b = (b);			\
		if (!_a || !_b || strcmp(_a, _b)) {			\
			printf("FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", \
			       __FILE__, __LINE__, #a, #b, _a ? _a : "(null)", \
			       _b ? _b : "(null)");			\
			test_failed_now = 1;				\
			return;						\
		}							\
	} while (0)

/* rm -rf DIR (a test's scratch directory). Return: system()'s status, 0 on success. */
static inline int test_rm_rf(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/*
 * The weights of a .folded file: the sum of each line's last number; *@lines:
 * the lines that end in one (0 when the file does not open).
 */
static inline uint64_t test_folded_sum(const char *path, size_t *lines)
{
	char line[8192];
	uint64_t sum = 0;
	FILE *fp = fopen(path, "r");

	*lines = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		const char *sp = strrchr(line, ' ');

		if (sp) {
			sum += strtoull(sp + 1, NULL, 10);
			(*lines)++;
		}
	}
	if (fp)
		fclose(fp);
	return sum;
}

#define TEST_MAIN()							\
	struct test_case test_cases[TEST_MAX];				\
	int test_ncases;						\
	int test_failed_now;						\
	int test_dropped;						\
	int main(int argc, char **argv)					\
	{								\
		int pass = 0, fail = 0;					\
		if (test_dropped) {					\
			printf("FAIL TEST_MAX: %d cases not run: this "	\
			       "program holds more than %d (tests/unit/test.h)\n", \
			       test_dropped, TEST_MAX);			\
			fail += test_dropped;				\
		}							\
		for (int i = 0; i < test_ncases; i++) {			\
			if (argc > 1 && !strstr(test_cases[i].name, argv[1])) \
				continue;				\
			test_failed_now = 0;				\
			test_cases[i].fn();				\
			if (test_failed_now) {				\
				printf("FAIL %s\n", test_cases[i].name); \
				fail++;					\
			} else {					\
				printf("ok %s\n", test_cases[i].name);	\
				pass++;					\
			}						\
			fflush(stdout);					\
		}							\
		printf("%d passed, %d failed\n", pass, fail);		\
		return fail ? 1 : 0;					\
	}

#endif

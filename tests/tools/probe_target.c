// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe_target: a user program with known functions, for the uprobe tests
 * and benchmarks.
 *
 *   probe_target COUNT [PAUSE_MS]
 *
 * Calls ktop_probe_word("word-<i>", i) and ktop_probe_name(i) for i = 0 ..
 * COUNT-1, PAUSE_MS apart (default 0), then prints "done SUM". So a probe
 * of ktop_probe_word must see exactly COUNT calls, the i-th with the string
 * "word-<i>" and n = i, returning strlen("word-<i>") * 1000 + i; and one of
 * ktop_probe_name's return, the string "name-<i>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __clang__
#define KNOWN	__attribute__((noinline, used))
#else
#define KNOWN	__attribute__((noipa, used))	/* no clones, no inlining: the symbol is the code */
#endif

KNOWN int ktop_probe_word(const char *word, int n);
KNOWN const char *ktop_probe_name(int i);

KNOWN int ktop_probe_word(const char *word, int n)
{
	return (int)strlen(word) * 1000 + n;
}

KNOWN const char *ktop_probe_name(int i)
{
	static char names[8][32];

	snprintf(names[i % 8], sizeof(names[0]), "name-%d", i);
	return names[i % 8];
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 10, pause = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { pause / 1000, (pause % 1000) * 1000000 };
	unsigned long sum = 0;

	for (long i = 0; i < count; i++) {
		char word[32];

		snprintf(word, sizeof(word), "word-%ld", i);
		sum += (unsigned long)ktop_probe_word(word, (int)i);
		sum += strlen(ktop_probe_name((int)i));
		if (pause)
			nanosleep(&ts, NULL);
	}
	printf("done %lu\n", sum);
	return 0;
}

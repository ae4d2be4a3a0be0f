// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/lib/syscalls.h: syscall numbers to names. The expected numbers come from
 * the C library's SYS_* constants, compiled here, not from the generated
 * table the code under test reads. Argument names come from the kernel's
 * syscall event formats recorded on this project's host
 * (tests/fixtures/host-syscalls).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "ingest/fixture.h"
#include "lib/syscalls.h"
#include "test.h"

TEST(known_numbers_have_their_names)
{
	CHECK_STR(syscall_name(SYS_read), "read");
	CHECK_STR(syscall_name(SYS_write), "write");
	CHECK_STR(syscall_name(SYS_openat), "openat");
	CHECK_STR(syscall_name(SYS_futex), "futex");
	CHECK_STR(syscall_name(SYS_exit_group), "exit_group");
	CHECK_STR(syscall_name(SYS_clock_nanosleep), "clock_nanosleep");
}

TEST(unknown_numbers_have_none)
{
	CHECK(syscall_name(100000) == NULL);
	CHECK(syscall_name(UINT32_MAX) == NULL);	/* id -1: an invalid syscall */
#ifdef __x86_64__
	CHECK(syscall_name(400) == NULL);		/* the gap between 334 and 424 */
#endif
}

TEST(every_name_is_a_plain_identifier)
{
	unsigned int n = 0;

	for (uint32_t nr = 0; nr < 4096; nr++) {
		const char *s = syscall_name(nr);

		if (!s)
			continue;
		n++;
		CHECK(*s);
		CHECK(strncmp(s, "sys_", 4));
		for (const char *c = s; *c; c++)
			CHECK(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_');
	}
	/* every architecture Linux runs on has a few hundred */
	CHECK(n > 250);
}

/* The kernel's own field list of @name's format, after __syscall_nr, as "a b c". */
static void kernel_fields(const char *name, char *out, size_t len)
{
	char path[600], line[256];
	bool after = false;
	size_t n = 0;
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/host-syscalls/events/syscalls/sys_enter_%s/format",
		 fixture_root(), name);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *semi = strchr(line, ';'), *b;

		if (!strncmp(line, "\tfield:", 7) && semi && after) {
			*semi = '\0';
			b = strrchr(line, ' ');
			b = b && (!strrchr(line, '*') || strrchr(line, '*') < b) ? b : strrchr(line, '*');
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", b + 1);
		}
		if (strstr(line, "__syscall_nr;"))
			after = true;
	}
	if (f)
		fclose(f);
}

TEST(argument_names_are_the_kernels)
{
	static const struct { int nr; const char *event; } sc[] = {
		{ SYS_read, "read" }, { SYS_openat, "openat" }, { SYS_mmap, "mmap" },
		{ SYS_futex, "futex" }, { SYS_execve, "execve" }, { SYS_fstat, "newfstat" },
		{ SYS_rt_sigreturn, "rt_sigreturn" }, { SYS_exit_group, "exit_group" },
	};
	const char *names[SYSCALL_MAX_ARGS];
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/host-syscalls", fixture_root());
	syscall_args_dir(dir);
	for (unsigned int i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		char want[256], got[256] = "";
		size_t n = 0;
		int k = syscall_args((uint32_t)sc[i].nr, names);

		kernel_fields(sc[i].event, want, sizeof(want));
		CHECK(k >= 0);
		for (int j = 0; j < k; j++)
			n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s", j ? " " : "", names[j]);
		if (strcmp(got, want))
			printf("  %s: \"%s\", the kernel's \"%s\"\n", sc[i].event, got, want);
		CHECK_STR(got, want);
	}
	CHECK_EQ_U64(syscall_args(SYS_read, names), 3);
	CHECK_STR(names[2], "count");
	CHECK_EQ_U64(syscall_args(SYS_rt_sigreturn, names), 0);
	/* not in the recording: not known; nor a number without a name */
	CHECK_EQ_U64(syscall_args(SYS_sendmsg, names), -ENOENT);
	CHECK_EQ_U64(syscall_args(100000, names), -ENOENT);
	/* a tracefs without syscall events */
	syscall_args_dir("/nonexistent");
	CHECK_EQ_U64(syscall_args(SYS_read, names), -ENOENT);
	syscall_args_dir(NULL);
}

TEST(parse_refuses_what_is_not_a_syscall_format)
{
	char names[SYSCALL_MAX_ARGS][SYSCALL_ARG_NAME_MAX];

	CHECK_EQ_U64(syscall_args_parse("name: sched_switch\nID: 316\n", names, 6), -EINVAL);
	CHECK_EQ_U64(syscall_args_parse("", names, 6), -EINVAL);
	CHECK_EQ_U64(syscall_args_parse("\tfield:int __syscall_nr;\toffset:8;\n"
					"\tfield:unsigned int fd;\toffset:16;\n"
					"\tfield:char * buf;\toffset:24;\n\nprint fmt: \"\"",
					names, 6), 2);
	CHECK_STR(names[0], "fd");
	CHECK_STR(names[1], "buf");
}

TEST_MAIN()

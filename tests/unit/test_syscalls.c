// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/syscalls.h: syscall numbers to names. The expected numbers come from
 * the C library's SYS_* constants, compiled here, not from the generated
 * table the code under test reads.
 */
#include <ctype.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"
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

TEST_MAIN()

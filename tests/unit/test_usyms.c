// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User-space symbols (src/kernel/usyms.h): this test's own functions (PIE, .symtab),
 * the C library's (a shared object, .dynsym), a process that has exited
 * since its maps were captured, addresses in no mapping.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "kernel/usyms.h"

static __attribute__((noinline, noipa)) int usyms_probe_function(int x)
{
	return x * 3 + 1;
}

TEST(own_and_library_functions)
{
	struct usyms *u = usyms_new("");
	char name[256], mod[256];
	uint64_t a = (uint64_t)(uintptr_t)usyms_probe_function;

	CHECK(u);
	CHECK(!usyms_capture(u, (uint32_t)getpid()));
	/* the start of the function, and a byte inside it */
	CHECK(!usyms_lookup(u, (uint32_t)getpid(), a, name, sizeof(name), mod, sizeof(mod)));
	CHECK_STR(name, "usyms_probe_function");
	CHECK_STR(mod, "test_usyms");
	CHECK(!usyms_lookup(u, (uint32_t)getpid(), a + 2, name, sizeof(name), mod, sizeof(mod)));
	CHECK_STR(name, "usyms_probe_function");
	/* a shared object at its own load address */
	a = (uint64_t)(uintptr_t)&getppid;
	CHECK(!usyms_lookup(u, (uint32_t)getpid(), a, name, sizeof(name), mod, sizeof(mod)));
	CHECK(strstr(name, "getppid"));
	CHECK(!strncmp(mod, "libc.so", 7));
	/* in no mapping */
	CHECK(usyms_lookup(u, (uint32_t)getpid(), 16, name, sizeof(name), mod, sizeof(mod)) ==
	      -ENOENT);
	CHECK(!name[0]);
	usyms_free(u);
}

TEST(exited_process_from_its_captured_maps)
{
	struct usyms *u = usyms_new("");
	char name[256], mod[256];
	uint64_t a = (uint64_t)(uintptr_t)usyms_probe_function;
	pid_t child = fork();

	CHECK(child >= 0);
	if (!child) {
		pause();
		_exit(0);
	}
	CHECK(!usyms_capture(u, (uint32_t)child));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* the same executable, mapped at the same place in the fork */
	CHECK(!usyms_lookup(u, (uint32_t)child, a, name, sizeof(name), mod, sizeof(mod)));
	CHECK_STR(name, "usyms_probe_function");
	/* a process never captured and gone: nothing */
	CHECK(usyms_lookup(u, (uint32_t)child + 1000000, a, name, sizeof(name), mod,
			   sizeof(mod)) == -ENOENT);
	usyms_free(u);
	CHECK(usyms_probe_function(1) == 4);
}

TEST_MAIN()

// SPDX-License-Identifier: GPL-2.0-or-later
/* Syscall names by number (see syscalls.h). */
#include <stddef.h>

#include "syscalls.h"

/* [nr] = "name", one line a syscall: generated, see the Makefile */
static const char *const syscall_names[] = {
#include "syscall_names.h"
};

const char *syscall_name(uint32_t nr)
{
	if (nr >= sizeof(syscall_names) / sizeof(syscall_names[0]))
		return NULL;
	return syscall_names[nr];
}

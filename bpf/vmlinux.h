/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The few kernel types ktop's BPF programs use, as CO-RE local definitions:
 * preserve_access_index makes every field access a relocation that libbpf
 * resolves against the running kernel's BTF at load time, so these layouts
 * need not match any kernel; only the names of the types and fields must.
 * Why this and not a full `bpftool btf dump` header: see bpf/README.
 */
#ifndef KTOP_VMLINUX_H
#define KTOP_VMLINUX_H

typedef unsigned char		__u8;
typedef unsigned short		__u16;
typedef unsigned int		__u32;
typedef unsigned long long	__u64;
typedef signed char		__s8;
typedef short			__s16;
typedef int			__s32;
typedef long long		__s64;
typedef __u16			__be16;
typedef __u32			__be32;
typedef __u32			__wsum;
typedef _Bool			bool;
typedef int			pid_t;
#define true	1
#define false	0

/* UAPI constants (include/uapi/linux/bpf.h): ABI, never renumbered. */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH		= 1,
	BPF_MAP_TYPE_ARRAY		= 2,
	BPF_MAP_TYPE_PERCPU_HASH	= 5,
	BPF_MAP_TYPE_PERCPU_ARRAY	= 6,
	BPF_MAP_TYPE_STACK_TRACE	= 7,
	BPF_MAP_TYPE_RINGBUF		= 27,
	BPF_MAP_TYPE_TASK_STORAGE	= 29,
};

enum {
	BPF_F_NO_PREALLOC		= 1,
	BPF_LOCAL_STORAGE_GET_F_CREATE	= 1,
};

/* bpf_get_stackid() flags */
enum {
	BPF_F_USER_STACK	= 1ULL << 8,
};

enum {
	BPF_ANY		= 0,
	BPF_NOEXIST	= 1,
	BPF_EXIST	= 2,
};

struct pt_regs;

struct task_struct {
	unsigned int	__state;
	unsigned int	flags;		/* PF_* (off-CPU stacks: PF_KTHREAD) */
	pid_t		pid;
	pid_t		tgid;
	char		comm[16];
} __attribute__((preserve_access_index));

/* Before v5.14 the field was "long state": a CO-RE flavour for it. */
struct task_struct___pre514 {
	long		state;
} __attribute__((preserve_access_index));

#endif

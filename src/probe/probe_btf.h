/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the probe specs need from the kernel's BTF (libbpf's BTF API): a
 * function's prototype (named, typed parameters), members of structs and
 * unions through typedefs and anonymous members with their offsets, the
 * probe type that fits a C type, C text for the preview, and the names a
 * prompt completes (functions by prefix, members of a struct).
 */
#ifndef KTOP_PROBE_BTF_H
#define KTOP_PROBE_BTF_H

#include <stdbool.h>
#include <stddef.h>

struct btf;
struct probe_btf;

#define PROBE_BTF_MAX_PARAMS	32

struct probe_func {
	int		id;		/* the BTF FUNC */
	int		ret;		/* return type id, 0: void */
	unsigned int	nparams;
	const char	*names[PROBE_BTF_MAX_PARAMS];	/* point into the BTF */
	int		types[PROBE_BTF_MAX_PARAMS];
};

struct probe_member {
	int		type;		/* its type id */
	unsigned int	bit_off;	/* from the start of the outer struct */
	unsigned int	bitfield;	/* bit-field width, 0: not a bit field */
};

/**
 * probe_btf_open - load BTF
 * @path: a raw BTF file such as /sys/kernel/btf/vmlinux; NULL: the running
 *	  kernel's, found as libbpf's btf__load_vmlinux_btf() finds it
 *
 * Return: 0, or a negative errno (-ENOENT: this kernel has no BTF).
 */
int probe_btf_open(struct probe_btf **out, const char *path);
void probe_btf_free(struct probe_btf *b);	/* accepts NULL */
const struct btf *probe_btf_raw(const struct probe_btf *b);

/* @id without typedefs, const, volatile, restrict and type tags. */
int probe_btf_skip(const struct probe_btf *b, int id);

/* Return: 0 with @f filled, or -ENOENT when BTF has no function @name. */
int probe_btf_func(const struct probe_btf *b, const char *name, struct probe_func *f);

/* The id of "struct NAME" or "union NAME" (NAME may carry the keyword), or -ENOENT. */
int probe_btf_find_struct(const struct probe_btf *b, const char *name);

/**
 * probe_btf_member - member @name of the struct or union @id (after
 * probe_btf_skip), looked for in anonymous members too
 * Return: 0, -ENOENT (no such member), -EINVAL (@id is not a struct/union).
 */
int probe_btf_member(const struct probe_btf *b, int id, const char *name,
		     struct probe_member *m);

/**
 * probe_btf_members - the member names of struct/union @id that start with
 * @prefix, anonymous members' own members included, comma-separated into
 * @buf (completion, and the list an unknown member's message shows)
 * Return: the number of names.
 */
int probe_btf_members(const struct probe_btf *b, int id, const char *prefix, char *buf,
		      size_t len);

/* C text of type @id, declaring @var ("struct file *file"); @var may be "". */
char *probe_btf_decl(const struct probe_btf *b, int id, const char *var, char *buf, size_t len);

/* "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)" */
char *probe_btf_proto(const struct probe_btf *b, const char *name, const struct probe_func *f,
		      char *buf, size_t len);

/* Type sizes: Return: bytes, or a negative errno. */
long probe_btf_size(const struct probe_btf *b, int id);

/*
 * The probe type that shows a value of type @id: a char pointer or array
 * "string", other pointers "x64", integers and enums "u8".."s64" by size
 * and sign, bool "u8". Return: the type, or NULL for a struct, union,
 * function or void (nothing to show as one value).
 */
const char *probe_btf_default_type(const struct probe_btf *b, int id);

/* Is @id (after skip) a pointer, an array, a struct or union, a char? */
bool probe_btf_is_ptr(const struct probe_btf *b, int id);
bool probe_btf_is_array(const struct probe_btf *b, int id, int *elem, unsigned int *n);
bool probe_btf_is_composite(const struct probe_btf *b, int id);
bool probe_btf_is_char(const struct probe_btf *b, int id);
int probe_btf_pointee(const struct probe_btf *b, int id);	/* 0: void *, <0: not a pointer */

/**
 * probe_btf_funcs - function names starting with @prefix, in order, for
 * completion
 * @out: receives pointers into the BTF; @max of them at most
 * Return: how many match (may be more than @max).
 */
int probe_btf_funcs(struct probe_btf *b, const char *prefix, const char **out, size_t max);

/**
 * probe_btf_suggest - function names close to @name (a typo, another
 * prefix): the closest first
 * Return: how many went into @out.
 */
int probe_btf_suggest(struct probe_btf *b, const char *name, const char **out, size_t max);

/* Edit distance between @a and @b, capped at @cap + 1. */
int probe_edit_distance(const char *a, const char *b, int cap);

#endif

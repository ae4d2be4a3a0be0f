// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe definitions from specs, on this machine's kernel BTF
 * (/sys/kernel/btf/vmlinux, readable without root), for every kind of
 * kernel: fprobe with BTF arguments (6.5+), kprobes with $argN (6.1),
 * kprobes with registers, uprobes, eprobes.
 *
 * The offsets are not written in here (they change with every kernel): an
 * oracle reads them from `bpftool btf dump file /sys/kernel/btf/vmlinux`,
 * a different reader of the same BTF, and works out member offsets,
 * anonymous members and typedefs on its own; the test checks that ktop's
 * lines use the same numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strutil.h"
#include "probe/probe_btf.h"
#include "probe/probe_gen.h"
#include "probe/probe_spec.h"
#include "test.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

/* ---- the oracle: bpftool's text dump --------------------------------------- */

struct omem {
	char	name[64];
	int	type;
	long	bits;
	int	bitfield;
};

struct otype {
	char		kind[16];
	char		name[64];
	int		type;		/* PTR, TYPEDEF, CONST, ..., FUNC, ARRAY elem */
	long		size;
	int		nmem;
	struct omem	*mem;
};

static struct otype *ot;
static int ont;

static int oracle_load(void)
{
	char line[512];
	FILE *fp;
	int cur = -1;

	if (ot)
		return 0;
	fp = popen("bpftool btf dump file " VMLINUX " 2>/dev/null", "r");
	if (!fp)
		return -1;
	ot = calloc(400000, sizeof(*ot));
	while (ot && fgets(line, sizeof(line), fp)) {
		int id;
		char kind[16], name[64];

		if (line[0] == '[' && sscanf(line, "[%d] %15s '%63[^']'", &id, kind, name) == 3 &&
		    id < 400000) {
			struct otype *t = &ot[id];
			char *p;

			cur = id;
			snprintf(t->kind, sizeof(t->kind), "%s", kind);
			snprintf(t->name, sizeof(t->name), "%s", name);
			if ((p = strstr(line, " type_id=")))
				t->type = atoi(p + 9);
			if ((p = strstr(line, "ret_type_id=")))
				t->type = atoi(p + 12);
			if ((p = strstr(line, " size=")))
				t->size = atol(p + 6);
			if ((p = strstr(line, "nr_elems=")))
				t->size = atol(p + 9);	/* arrays: element count */
			if (id >= ont)
				ont = id + 1;
		} else if (line[0] == '\t' && line[1] == '\'' && cur >= 0) {
			struct otype *t = &ot[cur];
			struct omem *m;
			char *p;

			t->mem = realloc(t->mem, (t->nmem + 1) * sizeof(*t->mem));
			m = &t->mem[t->nmem++];
			memset(m, 0, sizeof(*m));
			sscanf(line, "\t'%63[^']'", m->name);
			if ((p = strstr(line, "type_id=")))
				m->type = atoi(p + 8);
			if ((p = strstr(line, "bits_offset=")))
				m->bits = atol(p + 12);
			if ((p = strstr(line, "bitfield_size=")))
				m->bitfield = atoi(p + 14);
		}
	}
	pclose(fp);
	return ont > 1000 ? 0 : -1;
}

static int o_skip(int id)
{
	while (id > 0 && (!strcmp(ot[id].kind, "TYPEDEF") || !strcmp(ot[id].kind, "CONST") ||
			  !strcmp(ot[id].kind, "VOLATILE") || !strcmp(ot[id].kind, "RESTRICT") ||
			  !strcmp(ot[id].kind, "TYPE_TAG")))
		id = ot[id].type;
	return id;
}

static int o_find(const char *kind, const char *name)
{
	for (int id = 1; id < ont; id++)
		if (!strcmp(ot[id].kind, kind) && !strcmp(ot[id].name, name))
			return id;
	return -1;
}

/* bits offset of member @name in struct/union @id, anonymous members searched. */
static long o_member(int id, const char *name, int *type, int *bitfield)
{
	id = o_skip(id);
	for (int i = 0; i < ot[id].nmem; i++) {
		const struct omem *m = &ot[id].mem[i];
		long in;

		if (!strcmp(m->name, name)) {
			*type = m->type;
			if (bitfield)
				*bitfield = m->bitfield;
			return m->bits;
		}
		if (!strcmp(m->name, "(anon)") && (in = o_member(m->type, name, type, bitfield)) >= 0)
			return m->bits + in;
	}
	return -1;
}

/* the struct a pointer type points to */
static int o_pointee(int id)
{
	id = o_skip(id);
	return !strcmp(ot[id].kind, "PTR") ? ot[id].type : -1;
}

/* parameter @n (from 0) of function @fn: its name and type */
static int o_param(const char *fn, int n, char *name, size_t len)
{
	int f = o_find("FUNC", fn), proto;

	if (f < 0)
		return -1;
	proto = ot[f].type;
	if (n >= ot[proto].nmem)
		return -1;
	snprintf(name, len, "%s", ot[proto].mem[n].name);
	return ot[proto].mem[n].type;
}

/* ---- helpers ----------------------------------------------------------------- */

static struct probe_btf *btf;

static const struct probe_caps caps_612 = {
	.dynamic_events = true, .kprobe = true, .kretprobe = true, .fprobe = true,
	.btf_args = true, .eprobe = true, .uprobe = true, .uretprobe = true,
	.kprobe_argn = true, .ret_argn = true, .char_type = true, .btf = true,
};
static const struct probe_caps caps_61 = {
	.dynamic_events = true, .kprobe = true, .kretprobe = true, .eprobe = true,
	.uprobe = true, .uretprobe = true, .kprobe_argn = true, .char_type = true, .btf = true,
};
static const struct probe_caps caps_regs = {
	.dynamic_events = true, .kprobe = true, .kretprobe = true, .uprobe = true,
	.uretprobe = true, .btf = true,
};

static int setup(void)
{
	if (!btf && probe_btf_open(&btf, VMLINUX))
		return -1;
	return oracle_load();
}

/* Generate @spec for a kernel function target of @kind; 0 or the error. */
static int gen(const char *spec, const struct probe_caps *c, enum probe_kind kind,
	       struct probe_def *d, struct probe_err *e)
{
	struct probe_spec *sp;
	struct probe_target tg = { .kind = kind };
	struct probe_func f;
	char ev[PROBE_NAME_MAX];
	int ret;

	ret = probe_spec_parse(spec, &sp, e);
	if (ret)
		return ret;
	str_fmt(tg.name, sizeof(tg.name), "%s", sp->target);
	if (kind == PROBE_UPROBE || kind == PROBE_URETPROBE) {
		snprintf(tg.place, sizeof(tg.place), "/usr/bin/x:0x1234");
		str_fmt(tg.name, sizeof(tg.name), "%s", sp->symbol);
	} else {
		snprintf(tg.place, sizeof(tg.place), "%s", sp->target);
		if (!probe_btf_func(btf, sp->target, &f))
			tg.func = &f;
	}
	probe_default_event(sp, tg.name, ev, sizeof(ev));
	ret = probe_gen(sp, c, btf, &tg, "ktop_1", ev, d, e);
	if (ret)
		printf("# %s: %s\n", spec, e->msg);
	probe_spec_free(sp);
	return ret;
}

/* The bytes of file->f_path.dentry and of dentry->d_name.name, by the oracle. */
static void oracle_name_offsets(long *o1, long *o2)
{
	int t, file, dentry;

	file = o_pointee(o_param("vfs_read", 0, (char[64]){ 0 }, 64));
	*o1 = o_member(file, "f_path", &t, NULL) / 8;
	*o1 += o_member(t, "dentry", &t, NULL) / 8;
	dentry = o_pointee(t);
	*o2 = o_member(dentry, "d_name", &t, NULL) / 8;
	*o2 += o_member(t, "name", &t, NULL) / 8;
}

/* ---- tests -------------------------------------------------------------------- */

TEST(oracle_and_btf_load)
{
	CHECK(setup() == 0);
	CHECK(o_find("FUNC", "vfs_read") > 0);
}

TEST(prototype)
{
	struct probe_func f;
	char name[64], proto[512], want[128];

	CHECK(setup() == 0);
	CHECK(probe_btf_func(btf, "vfs_read", &f) == 0);
	for (int i = 0; i < 4; i++) {
		int t = o_param("vfs_read", i, name, sizeof(name));

		CHECK(t > 0);
		CHECK_STR(f.names[i], name);
		CHECK_EQ_U64(f.types[i], t);
	}
	CHECK_EQ_U64(f.nparams, 4);
	probe_btf_proto(btf, "vfs_read", &f, proto, sizeof(proto));
	/* size_t count: the typedef's name, as bpftool names it */
	snprintf(want, sizeof(want), "%s count", ot[o_param("vfs_read", 2, name, 64)].name);
	CHECK(strstr(proto, want));
	CHECK(strstr(proto, "vfs_read(struct file *file, "));
	CHECK(probe_btf_func(btf, "no_such_function_xyz", &f) == -ENOENT);
}

/*
 * vfs_read file->f_path.dentry->d_name.name:string + @more on a kprobe kernel
 * whose first argument reads as @arg1; @tail: the rest of the line wanted.
 */
static int check_name_kprobe(const struct probe_caps *c, const char *more, const char *arg1,
			     const char *tail, struct probe_def *d)
{
	struct probe_err e;
	char spec[256], want[512];
	long o1, o2;

	oracle_name_offsets(&o1, &o2);
	snprintf(spec, sizeof(spec), "vfs_read file->f_path.dentry->d_name.name:string %s", more);
	if (gen(spec, c, PROBE_KPROBE, d, &e))
		return -1;
	snprintf(want, sizeof(want), "p:ktop_1/vfs_read vfs_read name=+0(+%ld(+%ld(%s))):string %s",
		 o2, o1, arg1, tail);
	if (strcmp(d->line, want)) {
		printf("# got  %s\n# want %s\n", d->line, want);
		return -1;
	}
	return 0;
}

TEST(kprobe_argn_offsets)
{
	struct probe_def d;

	CHECK(setup() == 0);
	CHECK(check_name_kprobe(&caps_61, "count", "$arg1", "count=$arg3:u64", &d) == 0);
	CHECK_EQ_U64(d.nfields, 3);
	CHECK_STR(d.fields[0].name, "__probe_ip");
	CHECK(d.fields[0].kind == KTOP_FK_SYM);
	CHECK_STR(d.fields[1].name, "name");
	CHECK(d.fields[1].kind == KTOP_FK_STR);
	CHECK(d.fields[2].kind == KTOP_FK_UINT);
	CHECK(strstr(d.proto, "vfs_read(struct file *file"));
}

TEST(kprobe_registers)
{
	struct probe_def d;

	CHECK(setup() == 0);
	CHECK(check_name_kprobe(&caps_regs, "n=count:hex pos", "%di", "n=%dx:x64 pos=%cx:x64",
				&d) == 0);
	CHECK(d.fields[2].kind == KTOP_FK_HEX);
}

TEST(fprobe_btf_names)
{
	struct probe_def d;
	struct probe_err e;

	CHECK(setup() == 0);
	CHECK(gen("vfs_read file->f_path.dentry->d_name.name:string count", &caps_612,
		  PROBE_FPROBE, &d, &e) == 0);
	CHECK_STR(d.line, "f:ktop_1/vfs_read vfs_read name=file->f_path.dentry->d_name.name:string "
		  "count=count:u64");
	/* $argN becomes the parameter's name too */
	CHECK(gen("vfs_read $arg1->f_pos", &caps_612, PROBE_FPROBE, &d, &e) == 0);
	CHECK_STR(d.line, "f:ktop_1/vfs_read vfs_read f_pos=file->f_pos:s64");
	CHECK(gen("vfs_read%return $retval", &caps_612, PROBE_FEXIT, &d, &e) == 0);
	CHECK_STR(d.line, "f:ktop_1/vfs_read__return vfs_read%return retval=$retval:s64");
	CHECK_STR(d.fields[0].name, "__probe_func");
	CHECK_STR(d.fields[1].name, "__probe_ret_ip");
	CHECK(d.fields[2].kind == KTOP_FK_INT);
	/* an index is beyond the kernel's syntax: computed offsets instead */
	CHECK(gen("wake_up_process p->comm[1]:char", &caps_612, PROBE_FPROBE, &d, &e) == 0);
	CHECK(strstr(d.line, "(+0($arg1)):char") == NULL);
	CHECK(strstr(d.line, "($arg1):char"));
}

TEST(kretprobe_and_retval)
{
	struct probe_def d;
	struct probe_err e;

	CHECK(setup() == 0);
	CHECK(gen("vfs_read%return $retval", &caps_61, PROBE_KRETPROBE, &d, &e) == 0);
	CHECK_STR(d.line, "r:ktop_1/vfs_read__return vfs_read retval=$retval:s64");
	CHECK(gen("r=vfs_read%return v=$retval:x32 $comm", &caps_61, PROBE_KRETPROBE, &d, &e) == 0);
	CHECK_STR(d.line, "r:ktop_1/r vfs_read v=$retval:x32 comm=$comm");
	/* 6.1's return probes have no $argN; 6.12's do */
	CHECK(gen("vfs_read%return count", &caps_61, PROBE_KRETPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "not known at %return"));
	CHECK(gen("vfs_read%return count", &caps_612, PROBE_FEXIT, &d, &e) == 0);
	CHECK(strstr(d.line, " count=count:u64"));
}

TEST(char_arrays_and_bitfields)
{
	struct probe_def d;
	struct probe_err e;
	char want[256];
	int t, task, sock, bf = 0;
	long off, cont;

	CHECK(setup() == 0);
	task = o_pointee(o_param("wake_up_process", 0, (char[64]){ 0 }, 64));
	off = o_member(task, "comm", &t, NULL) / 8;
	CHECK(gen("wake_up_process p->comm", &caps_61, PROBE_KPROBE, &d, &e) == 0);
	snprintf(want, sizeof(want), "p:ktop_1/wake_up_process wake_up_process comm=+%ld($arg1):string",
		 off);
	CHECK_STR(d.line, want);
	/* the same through the kernel's BTF syntax would need its array support: computed */
	CHECK(gen("wake_up_process p->comm", &caps_612, PROBE_FPROBE, &d, &e) == 0);
	CHECK(strstr(d.line, "comm=+"));

	sock = o_pointee(o_param("sk_free", 0, (char[64]){ 0 }, 64));
	off = o_member(sock, "__sk_common", &t, NULL);
	off += o_member(t, "skc_reuse", &t, &bf);
	CHECK(bf > 0);
	cont = ot[o_skip(t)].size;	/* the bit field's container, bytes */
	CHECK(gen("sk_free sk->__sk_common.skc_reuse", &caps_61, PROBE_KPROBE, &d, &e) == 0);
	snprintf(want, sizeof(want), "skc_reuse=+%ld($arg1):b%d@%ld/%ld", off / 8 / cont * cont,
		 bf, off % (cont * 8), cont * 8);
	if (!strstr(d.line, want))
		printf("# want '%s' in '%s'\n", want, d.line);
	CHECK(strstr(d.line, want));
}

TEST(user_probes)
{
	struct probe_def d;
	struct probe_err e;

	CHECK(setup() == 0);
	CHECK(gen("/usr/bin/x:f $arg1:string $arg2 n=$arg3:s32 $arg8", &caps_regs, PROBE_UPROBE,
		  &d, &e) == 0);
	CHECK_STR(d.line, "p:ktop_1/f /usr/bin/x:0x1234 arg1=+0(%di):string arg2=%si:x64 "
		  "n=%dx:s32 arg8=$stack2:x64");
	CHECK(d.fields[0].kind == KTOP_FK_HEX);
	CHECK(gen("/usr/bin/bash:readline%return +0($retval):string $retval:s32", &caps_612,
		  PROBE_URETPROBE, &d, &e) == 0);
	CHECK_STR(d.line, "r:ktop_1/readline__return /usr/bin/x:0x1234 arg1=+0($retval):string "
		  "retval=$retval:s32");
	/* no BTF for user programs; no kernel symbols in their values */
	CHECK(gen("/usr/bin/x:f count", &caps_612, PROBE_UPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "use $argN"));
	CHECK(gen("/usr/bin/x:f $arg1:symbol", &caps_612, PROBE_UPROBE, &d, &e) == -EINVAL);
	/* the kernel refuses $argN on a uprobe even where it has them for kprobes */
	CHECK(gen("/usr/bin/x:f $arg1", &caps_612, PROBE_UPROBE, &d, &e) == 0);
	CHECK(strstr(d.line, "arg1=%di:x64"));
}

TEST(errors_say_what)
{
	struct probe_def d;
	struct probe_err e;

	CHECK(setup() == 0);
	CHECK(gen("vfs_read file->no_such_member", &caps_61, PROBE_KPROBE, &d, &e) == -ENOENT);
	CHECK(strstr(e.msg, "struct file has no member 'no_such_member'; its members: "));
	CHECK(strstr(e.msg, "f_pos") && strstr(e.msg, "f_path"));	/* anonymous ones too */
	CHECK_EQ_U64(e.pos, 15);	/* the caret under the member */
	CHECK(gen("vfs_read file->f_path", &caps_61, PROBE_KPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "file->f_path is ") && strstr(e.msg, "struct path: pick a member (") &&
	      strstr(e.msg, "dentry"));
	CHECK(gen("vfs_read file.f_pos", &caps_61, PROBE_KPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "(it is a pointer: use '->')"));
	CHECK(gen("vfs_read count->x", &caps_61, PROBE_KPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "not a pointer to a struct"));
	CHECK(gen("vfs_read counts", &caps_61, PROBE_KPROBE, &d, &e) == -ENOENT);
	CHECK(strstr(e.msg, "vfs_read has no parameter 'counts': "));
	CHECK(strstr(e.msg, "size_t count"));
	CHECK(gen("vfs_read $retval", &caps_61, PROBE_KPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "vfs_read%return"));
	CHECK(gen("vfs_read $arg5", &caps_61, PROBE_KPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "has 4 parameters"));
	CHECK(gen("vfs_read count:string", &caps_61, PROBE_KPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "string needs a char pointer"));
	CHECK_EQ_U64(e.pos, 15);	/* under the type */
	CHECK(gen("vfs_read file->f_path.x", &caps_61, PROBE_KPROBE, &d, &e) == -ENOENT);
	CHECK_EQ_U64(e.pos, 22);
	CHECK(gen("vfs_read nosuch->x", &caps_61, PROBE_KPROBE, &d, &e) == -ENOENT);
	CHECK_EQ_U64(e.pos, 9);
	CHECK(gen("vfs_read+4 count", &caps_61, PROBE_KPROBE, &d, &e) == -EINVAL);
	CHECK(strstr(e.msg, "entry only"));
}

TEST(args_expand)
{
	struct probe_def d;
	struct probe_err e;

	CHECK(setup() == 0);
	CHECK(gen("vfs_read $args", &caps_61, PROBE_KPROBE, &d, &e) == 0);
	/* values only: a pointer is not followed (buf is a user buffer) */
	CHECK_STR(d.line, "p:ktop_1/vfs_read vfs_read file=$arg1:x64 buf=$arg2:x64 "
		  "count=$arg3:u64 pos=$arg4:x64");
	CHECK(gen("vfs_read $args", &caps_612, PROBE_FPROBE, &d, &e) == 0);
	CHECK_STR(d.line, "f:ktop_1/vfs_read vfs_read file=file:x64 buf=buf:x64 "
		  "count=count:u64 pos=pos:x64");
}

TEST(eprobe_fields)
{
	static const struct probe_efield ef[] = {
		{ "__syscall_nr", "int", 4, true }, { "dfd", "int", 8, false },
		{ "filename", "const char *", 8, false }, { "flags", "int", 8, false },
	};
	struct probe_target tg = { .kind = PROBE_EPROBE, .efields = ef, .nefields = 4,
				   .user_ptrs = true };
	struct probe_spec *sp;
	struct probe_def d;
	struct probe_err e;

	snprintf(tg.place, sizeof(tg.place), "syscalls.sys_enter_openat");
	snprintf(tg.name, sizeof(tg.name), "sys_enter_openat");
	CHECK(probe_spec_parse("syscalls:sys_enter_openat filename $dfd:s32 fl=flags:x32 flags "
			       "__syscall_nr", &sp, &e) == 0);
	CHECK(probe_gen(sp, &caps_61, NULL, &tg, "ktop_1", "sys_enter_openat", &d, &e) == 0);
	CHECK_STR(d.line, "e:ktop_1/sys_enter_openat syscalls.sys_enter_openat "
		  "filename=+0($filename):ustring dfd=$dfd:s32 fl=$flags:x32 flags=$flags:u64 "
		  "__syscall_nr=$__syscall_nr:s32");
	CHECK_EQ_U64(d.nfields, 5);
	CHECK(d.fields[4].kind == KTOP_FK_INT);
	probe_spec_free(sp);
	CHECK(probe_spec_parse("syscalls:sys_enter_openat nosuch", &sp, &e) == 0);
	CHECK(probe_gen(sp, &caps_61, NULL, &tg, "ktop_1", "x", &d, &e) == -ENOENT);
	CHECK(strstr(e.msg, "its fields: __syscall_nr, dfd, filename, flags"));
	probe_spec_free(sp);
	CHECK(probe_spec_parse("syscalls:sys_enter_openat", &sp, &e) == 0);
	CHECK(probe_gen(sp, &caps_61, NULL, &tg, "ktop_1", "x", &d, &e) == -EINVAL);
	probe_spec_free(sp);
}

TEST(default_types)
{
	int pos_t, id;

	CHECK(setup() == 0);
	pos_t = o_param("vfs_read", 3, (char[64]){ 0 }, 64);	/* loff_t * */
	CHECK_STR(probe_btf_default_type(btf, pos_t), "x64");
	CHECK_STR(probe_btf_default_type(btf, o_param("vfs_read", 1, (char[64]){ 0 }, 64)),
		  "string");
	CHECK_STR(probe_btf_default_type(btf, o_pointee(pos_t)), "s64");	/* loff_t */
	id = o_find("STRUCT", "file");
	CHECK(probe_btf_default_type(btf, id) == NULL);
	id = o_find("TYPEDEF", "bool");
	CHECK(id > 0 && !strcmp(probe_btf_default_type(btf, id), "u8"));
}

TEST(completion_helpers)
{
	const char *out[64];
	char list[2048];
	int n, file;

	CHECK(setup() == 0);
	n = probe_btf_funcs(btf, "vfs_rea", out, 64);
	CHECK(n >= 2);
	for (int i = 0; i < n && i < 64; i++)
		CHECK(!strncmp(out[i], "vfs_rea", 7));
	CHECK(!strcmp(out[0], "vfs_read"));
	n = probe_btf_suggest(btf, "vfs_raed", out, 6);
	CHECK(n >= 1);
	CHECK(!strcmp(out[0], "vfs_read"));
	file = o_find("STRUCT", "file");
	CHECK(probe_btf_members(btf, file, "f_p", list, sizeof(list)) >= 2);
	CHECK(strstr(list, "f_path") && strstr(list, "f_pos"));
	CHECK(probe_edit_distance("kitten", "sitting", 5) == 3);
	CHECK(probe_edit_distance("abc", "abcdefgh", 2) == 3);
}

TEST(readme_caps)
{
	struct probe_caps c;
	char *text;
	static const struct {
		const char	*file;
		bool		fprobe, btf_args, kretprobe, kprobe_argn, ret_argn, chr;
	} k[] = {
		{ "tests/fixtures/probe/README-6.1-rt", false, false, true, true, false, false },
		{ "tests/fixtures/probe/README-6.12-rt", true, true, true, true, true, true },
		{ "tests/fixtures/probe/README-6.18-host", false, false, false, false, true, true },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		FILE *fp = fopen(k[i].file, "r");
		size_t n;

		CHECK(fp);
		text = calloc(1, 65536);
		n = fread(text, 1, 65535, fp);
		fclose(fp);
		CHECK(n > 1000);
		memset(&c, 0, sizeof(c));
		c.kprobe = i < 2;	/* the files: kprobe_events exists on the guests only */
		c.uprobe = c.eprobe = c.dynamic_events = true;
		probe_caps_from_readme(&c, text);
		free(text);
		if (c.fprobe != k[i].fprobe || c.btf_args != k[i].btf_args ||
		    c.kretprobe != k[i].kretprobe || c.kprobe_argn != k[i].kprobe_argn ||
		    c.ret_argn != k[i].ret_argn)
			printf("# %s: fprobe %d btf_args %d kretprobe %d argn %d ret_argn %d\n",
			       k[i].file, c.fprobe, c.btf_args, c.kretprobe, c.kprobe_argn,
			       c.ret_argn);
		CHECK(c.fprobe == k[i].fprobe);
		CHECK(c.btf_args == k[i].btf_args);
		CHECK(c.kretprobe == k[i].kretprobe);
		CHECK(c.kprobe_argn == k[i].kprobe_argn);
		CHECK(c.ret_argn == k[i].ret_argn);
		CHECK(c.uretprobe && c.eprobe);
		CHECK(c.char_type == k[i].chr);
	}
}

TEST_MAIN()

// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe spec parser: places, arguments, types, names, and the refusals with positions. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe_spec.h"
#include "test.h"

static struct probe_spec *parse_ok(const char *text)
{
	struct probe_spec *sp = NULL;
	struct probe_err e;

	if (probe_spec_parse(text, &sp, &e)) {
		printf("# unexpected error for '%s': %s (at %d)\n", text, e.msg, e.pos);
		return NULL;
	}
	return sp;
}

/* The error position of a spec that must fail, -2 when it parsed. */
static int parse_err(const char *text, char *msg, size_t len)
{
	struct probe_spec *sp = NULL;
	struct probe_err e;

	if (!probe_spec_parse(text, &sp, &e)) {
		probe_spec_free(sp);
		return -2;
	}
	snprintf(msg, len, "%s", e.msg);
	return e.pos;
}

TEST(kernel_function_and_members)
{
	struct probe_spec *sp = parse_ok("vfs_read file->f_path.dentry->d_name.name:string count");
	const struct probe_expr *x;
	char buf[256];

	CHECK(sp);
	CHECK(sp->place == PROBE_PLACE_FUNC);
	CHECK_STR(sp->target, "vfs_read");
	CHECK(!sp->ret && !sp->has_offset && !sp->event[0]);
	CHECK_EQ_U64(sp->nargs, 2);
	x = &sp->args[0].expr;
	CHECK(x->base == PROBE_BASE_NAME);
	CHECK_STR(x->name, "file");
	CHECK_EQ_U64(x->nsteps, 4);
	CHECK(x->steps[0].kind == PROBE_STEP_ARROW);
	CHECK_STR(x->steps[0].name, "f_path");
	CHECK(x->steps[1].kind == PROBE_STEP_DOT);
	CHECK_STR(x->steps[1].name, "dentry");
	CHECK(x->steps[2].kind == PROBE_STEP_ARROW);
	CHECK(x->steps[3].kind == PROBE_STEP_DOT);
	CHECK_STR(x->steps[3].name, "name");
	CHECK_STR(sp->args[0].type, "string");
	CHECK_EQ_U64(sp->args[0].pos, 9);
	CHECK_STR(probe_expr_text(x, buf, sizeof(buf)), "file->f_path.dentry->d_name.name");
	CHECK_STR(sp->args[1].expr.name, "count");
	CHECK(!sp->args[1].type[0]);
	probe_spec_free(sp);
}

TEST(return_and_specials)
{
	struct probe_spec *sp = parse_ok("vfs_read%return $retval");

	CHECK(sp);
	CHECK(sp->ret);
	CHECK_STR(sp->target, "vfs_read");
	CHECK(sp->args[0].expr.base == PROBE_BASE_RETVAL);
	probe_spec_free(sp);

	sp = parse_ok("  rd=do_sys_openat2+4  n=$arg2:ustring c=$comm $arg7:s32  ");
	CHECK(sp);
	CHECK_STR(sp->event, "rd");
	CHECK_STR(sp->target, "do_sys_openat2");
	CHECK(sp->has_offset && sp->offset == 4);
	CHECK_EQ_U64(sp->nargs, 3);
	CHECK_STR(sp->args[0].name, "n");
	CHECK(sp->args[0].expr.base == PROBE_BASE_ARGN && sp->args[0].expr.argn == 2);
	CHECK_STR(sp->args[0].type, "ustring");
	CHECK(sp->args[1].expr.base == PROBE_BASE_COMM);
	CHECK(sp->args[2].expr.argn == 7);
	probe_spec_free(sp);

	sp = parse_ok("vfs_read $args");
	CHECK(sp && sp->args[0].expr.base == PROBE_BASE_ARGS);
	probe_spec_free(sp);
	sp = parse_ok("vfs_read $arg*");
	CHECK(sp && sp->args[0].expr.base == PROBE_BASE_ARGS);
	probe_spec_free(sp);
}

TEST(user_places)
{
	struct probe_spec *sp = parse_ok("/usr/bin/bash:readline%return +0($retval):string");
	const struct probe_expr *x;
	char buf[128];

	CHECK(sp);
	CHECK(sp->place == PROBE_PLACE_BINARY);
	CHECK_STR(sp->target, "/usr/bin/bash");
	CHECK_STR(sp->symbol, "readline");
	CHECK(sp->ret);
	x = &sp->args[0].expr;
	CHECK(x->base == PROBE_BASE_DEREF && x->offset == 0 && !x->user);
	CHECK(x->inner && x->inner->base == PROBE_BASE_RETVAL);
	CHECK_STR(probe_expr_text(x, buf, sizeof(buf)), "+0($retval)");
	CHECK_STR(sp->args[0].type, "string");
	probe_spec_free(sp);

	sp = parse_ok("libc:malloc size=$arg1:u64");
	CHECK(sp && sp->place == PROBE_PLACE_COLON);
	CHECK_STR(sp->target, "libc");
	CHECK_STR(sp->symbol, "malloc");
	probe_spec_free(sp);

	sp = parse_ok("./build/x:0x1a2b -8(+u16(%sp)):x32");
	CHECK(sp && sp->place == PROBE_PLACE_BINARY);
	CHECK(!sp->symbol[0] && sp->has_offset && sp->offset == 0x1a2b);
	x = &sp->args[0].expr;
	CHECK(x->base == PROBE_BASE_DEREF && x->offset == -8);
	CHECK(x->inner->base == PROBE_BASE_DEREF && x->inner->user && x->inner->offset == 16);
	CHECK(x->inner->inner->base == PROBE_BASE_RAW);
	CHECK_STR(x->inner->inner->name, "%sp");
	CHECK_STR(probe_expr_text(x, buf, sizeof(buf)), "-8(+u16(%sp))");
	probe_spec_free(sp);

	sp = parse_ok("libstdc++:_Znwm $arg1");
	CHECK(sp && sp->place == PROBE_PLACE_COLON);
	probe_spec_free(sp);
}

TEST(event_places)
{
	struct probe_spec *sp = parse_ok("sched:sched_switch next_comm $prev_pid:x32 n=next_pid");

	CHECK(sp && sp->place == PROBE_PLACE_COLON);
	CHECK_STR(sp->target, "sched");
	CHECK_STR(sp->symbol, "sched_switch");
	CHECK(sp->args[0].expr.base == PROBE_BASE_NAME);
	CHECK(sp->args[1].expr.base == PROBE_BASE_FIELD);
	CHECK_STR(sp->args[1].expr.name, "prev_pid");
	probe_spec_free(sp);

	/* the kernel's spelling: one dot; the resolver tells it from a clone */
	sp = parse_ok("syscalls.sys_enter_openat filename:ustring");
	CHECK(sp && sp->place == PROBE_PLACE_FUNC);
	CHECK_STR(sp->target, "syscalls.sys_enter_openat");
	probe_spec_free(sp);
	sp = parse_ok("vfs_read.isra.0 $arg3");
	CHECK(sp && sp->place == PROBE_PLACE_FUNC);
	probe_spec_free(sp);
}

TEST(types)
{
	static const char *const good[] = {
		"u8", "s64", "x16", "hex", "string", "ustring", "symbol", "symstr", "char", "str",
		"b4@3/32", "b1@0/8", "u32[4]", "x8[16]", "char[8]", NULL
	};
	static const char *const bad[] = {
		"u128", "strin", "b0@0/32", "b9@0/8", "b4@30/32", "b4@3/24", "u32[0]", "u32[",
		"hex[2]", "[4]", "u32[4]x", "", NULL
	};

	for (int i = 0; good[i]; i++)
		CHECK(probe_type_valid(good[i]));
	for (int i = 0; bad[i]; i++) {
		if (probe_type_valid(bad[i]))
			printf("# '%s' accepted\n", bad[i]);
		CHECK(!probe_type_valid(bad[i]));
	}
}

TEST(errors_have_positions)
{
	static const struct {
		const char	*spec;
		int		pos;
		const char	*words;
	} t[] = {
		{ "vfs_read x:bogus", 11, "unknown type 'bogus'" },
		{ "vfs_read file->", 15, "member name expected after '->'" },
		{ "vfs_read file..x", 14, "member name expected after '.'" },
		{ "vfs_read file[x]", 14, "index" },
		{ "vfs_read file[2", 15, "']' expected" },
		{ "vfs_read $arg0", 9, "counts from 1" },
		{ "vfs_read $", 9, "$ must be followed" },
		{ "vfs_read +0($retval", 19, "')' expected" },
		{ "vfs_read +x($retval)", 10, "an offset expected" },
		{ "vfs_read +0($retval)->f", 20, "nothing may follow" },
		{ "vfs_read count:", 15, "a type expected" },
		{ "vfs_read $args:u32", 9, "$args takes no" },
		{ "vfs_read 9count", 9, "an argument expected" },
		{ "vfs_read %", 9, "register name" },
		{ ":readline", 0, "before ':'" },
		{ "/bin/bash:", 10, "after ':'" },
		{ "/bin/bash:0xzz", 10, "hex file offset" },
		{ "vfs_read+x", 9, "offset expected" },
		{ "9vfs_read", 0, "function or symbol name" },
		{ "vfs_read! count", 8, "unexpected '!'" },
		{ "li bc:malloc", 6, "unknown type 'malloc'" },
		{ "%return", 0, "function or symbol name" },
		{ "lib$c:malloc", 3, "'$' in a library" },
	};
	char msg[512];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int pos = parse_err(t[i].spec, msg, sizeof(msg));

		if (pos != t[i].pos || !strstr(msg, t[i].words))
			printf("# '%s': at %d (want %d): %s\n", t[i].spec, pos, t[i].pos, msg);
		CHECK_EQ_U64(pos, t[i].pos);
		CHECK(strstr(msg, t[i].words));
	}
	CHECK(parse_err("   ", msg, sizeof(msg)) == -1 && strstr(msg, "empty probe spec"));
}

TEST(too_many)
{
	char spec[1024] = "vfs_read";
	char msg[512];

	for (int i = 0; i < PROBE_MAX_ARGS; i++)
		strcat(spec, " count");
	CHECK(parse_err(spec, msg, sizeof(msg)) == -2);
	strcat(spec, " count");
	CHECK(parse_err(spec, msg, sizeof(msg)) > 0 && strstr(msg, "too many arguments"));
	CHECK(parse_err("f +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))))", msg, sizeof(msg)) > 0);
	CHECK(strstr(msg, "nested too deep"));
}

TEST(caret)
{
	struct probe_err e = { .pos = 11 };
	char buf[512];

	snprintf(e.msg, sizeof(e.msg), "unknown type 'bogus'");
	probe_err_format(&e, "vfs_read x:bogus", buf, sizeof(buf));
	CHECK_STR(buf, "unknown type 'bogus'\n  vfs_read x:bogus\n             ^");
	e.pos = -1;
	CHECK_STR(probe_err_format(&e, "vfs_read x:bogus", buf, sizeof(buf)),
		  "unknown type 'bogus'");
}

TEST_MAIN()

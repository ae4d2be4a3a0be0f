// SPDX-License-Identifier: GPL-2.0-or-later
/* Event schemas: the fixed types as tracefs names them, dynamic registration. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "store/schema.h"
#include "test.h"

TEST(schema_fixed)
{
	struct schema *sc = schema_new();
	const struct ktop_schema_type *t;

	CHECK(sc);
	CHECK(schema_max_id(sc) >= KTOP_T_NR_FIXED);
	CHECK(!schema_get(sc, KTOP_T_NONE));
	for (unsigned int id = 1; id < KTOP_T_NR_FIXED; id++) {
		t = schema_get(sc, id);
		CHECK(t);
		CHECK_EQ_U64(t->id, id);
		CHECK(t->system && t->name && t->nfields > 0 && t->nfields <= KTOP_MAX_ARGS);
		CHECK_EQ_U64(schema_find(sc, t->system, t->name), id);
		for (unsigned int f = 0; f < t->nfields; f++)
			CHECK(t->fields[f].name && t->fields[f].name[0]);
	}
	CHECK_EQ_U64(schema_find(sc, "ftrace", "function"), KTOP_T_FUNCTION);
	CHECK_EQ_U64(schema_find(sc, "ftrace", "funcgraph_entry"), KTOP_T_FGRAPH_ENTRY);
	CHECK_EQ_U64(schema_find(sc, "ftrace", "funcgraph_exit"), KTOP_T_FGRAPH_EXIT);
	CHECK_EQ_U64(schema_find(sc, "sched", "sched_switch"), KTOP_T_SCHED_SWITCH);
	CHECK_EQ_U64(schema_find(sc, "raw_syscalls", "sys_enter"), KTOP_T_SYS_ENTER);
	CHECK_EQ_U64(schema_find(sc, "raw_syscalls", "sys_exit"), KTOP_T_SYS_EXIT);
	CHECK_EQ_U64(schema_find(sc, "irq", "irq_handler_entry"), KTOP_T_IRQ_HANDLER_ENTRY);
	CHECK_EQ_U64(schema_find(sc, "irq", "softirq_exit"), KTOP_T_SOFTIRQ_EXIT);
	CHECK_EQ_U64(schema_find(sc, "ftrace", "osnoise"), KTOP_T_OSNOISE);
	CHECK_EQ_U64(schema_find(sc, "ftrace", "timerlat"), KTOP_T_TIMERLAT);
	CHECK_EQ_U64(schema_find(sc, "osnoise", "irq_noise"), KTOP_T_IRQ_NOISE);
	CHECK_EQ_U64(schema_find(sc, "osnoise", "sample_threshold"), KTOP_T_SAMPLE_THRESHOLD);
	CHECK_EQ_U64(schema_find(sc, "ktop", "marker"), KTOP_T_MARKER);
	CHECK_EQ_U64(schema_find(sc, "sched", "nope"), -ENOENT);

	t = schema_get(sc, KTOP_T_SCHED_SWITCH);
	CHECK_EQ_U64(t->nfields, 7);
	CHECK_STR(t->fields[0].name, "prev_comm");
	CHECK(t->fields[0].kind == KTOP_FK_STR);
	CHECK_STR(t->fields[5].name, "next_pid");
	CHECK(t->fields[5].kind == KTOP_FK_INT);
	t = schema_get(sc, KTOP_T_FUNCTION);
	CHECK_STR(t->fields[0].name, "ip");
	CHECK(t->fields[0].kind == KTOP_FK_SYM);
	CHECK_STR(t->fields[1].name, "parent_ip");
	t = schema_get(sc, KTOP_T_SYS_ENTER);
	CHECK_EQ_U64(t->nfields, 7);
	t = schema_get(sc, KTOP_T_FGRAPH_EXIT);
	CHECK_EQ_U64(t->nfields, 5);
	CHECK_STR(t->fields[4].name, "overrun");
	schema_free(sc);
	schema_free(NULL);
}

TEST(schema_dynamic)
{
	struct ktop_field f[3] = {
		{ "gfp_flags", KTOP_FK_HEX }, { "order", KTOP_FK_INT }, { "name", KTOP_FK_STR },
	};
	struct schema *sc = schema_new();
	const struct ktop_schema_type *t;
	int id, id2;

	CHECK(sc);
	id = schema_add(sc, "kmem", "mm_page_alloc", 3, f);
	CHECK(id >= KTOP_T_DYNAMIC);
	CHECK_EQ_U64(schema_max_id(sc), id + 1);
	t = schema_get(sc, id);
	CHECK(t);
	CHECK_STR(t->system, "kmem");
	CHECK_STR(t->name, "mm_page_alloc");
	CHECK_EQ_U64(t->nfields, 3);
	CHECK_STR(t->fields[1].name, "order");
	CHECK(t->fields[2].kind == KTOP_FK_STR);
	/* the caller's strings are copied */
	CHECK(t->fields[0].name != f[0].name);
	CHECK_EQ_U64(schema_find(sc, "kmem", "mm_page_alloc"), id);
	CHECK_EQ_U64(schema_add(sc, "kmem", "mm_page_alloc", 3, f), id);
	id2 = schema_add(sc, "kmem", "kfree", 0, NULL);
	CHECK_EQ_U64(id2, id + 1);
	CHECK_EQ_U64(schema_get(sc, id2)->nfields, 0);
	CHECK(schema_add(sc, "x", "y", KTOP_MAX_ARGS + 1, f) < 0);
	CHECK(!schema_get(sc, id2 + 1));
	CHECK(!schema_get(sc, 60000));
	schema_free(sc);
}

#define SC_THREADS	4
#define SC_TYPES	300

static void *sc_thread(void *p)
{
	struct schema *sc = p;
	struct ktop_field f = { "v", KTOP_FK_UINT };
	char name[32];

	for (int i = 0; i < SC_TYPES; i++) {
		int id;

		snprintf(name, sizeof(name), "ev%d", i);
		id = schema_add(sc, "dyn", name, 1, &f);
		if (id < KTOP_T_DYNAMIC || strcmp(schema_get(sc, id)->name, name))
			return (void *)1;
	}
	return NULL;
}

TEST(schema_concurrent)
{
	struct schema *sc = schema_new();
	pthread_t th[SC_THREADS];
	char name[32];
	void *r;

	CHECK(sc);
	for (int t = 0; t < SC_THREADS; t++)
		CHECK(!pthread_create(&th[t], NULL, sc_thread, sc));
	for (int t = 0; t < SC_THREADS; t++) {
		pthread_join(th[t], &r);
		CHECK(r == NULL);
	}
	CHECK_EQ_U64(schema_max_id(sc), KTOP_T_DYNAMIC + SC_TYPES);
	for (int i = 0; i < SC_TYPES; i++) {
		int id;

		snprintf(name, sizeof(name), "ev%d", i);
		id = schema_find(sc, "dyn", name);
		CHECK(id >= KTOP_T_DYNAMIC);
		CHECK_STR(schema_get(sc, id)->name, name);
	}
	schema_free(sc);
}

/*
 * Every dynamic id a file can name: registered and found again by name, each
 * lookup without a scan of all the others (65472 types took 42 s that way),
 * and the memory they take is counted for the store's limit.
 */
TEST(schema_all_dynamic_ids)
{
	struct schema *sc = schema_new();
	struct ktop_field f = { "x", KTOP_FK_INT };
	size_t before;
	char name[32];

	CHECK(sc);
	before = schema_bytes(sc);
	for (unsigned int id = KTOP_T_DYNAMIC; id <= UINT16_MAX; id++) {
		snprintf(name, sizeof(name), "t%u", id);
		CHECK_EQ_U64(schema_add(sc, "many", name, 1, &f), id);
	}
	CHECK_EQ_U64(schema_add(sc, "many", "one too many", 1, &f), -ENOSPC);
	for (unsigned int id = KTOP_T_DYNAMIC; id <= UINT16_MAX; id++) {
		snprintf(name, sizeof(name), "t%u", id);
		CHECK_EQ_U64(schema_find(sc, "many", name), id);
		CHECK_EQ_U64(schema_add(sc, "many", name, 1, &f), id);
	}
	CHECK_EQ_U64(schema_find(sc, "many", "t1"), -ENOENT);
	CHECK_EQ_U64(schema_find(sc, "ftrace", "function"), KTOP_T_FUNCTION);
	CHECK(schema_bytes(sc) > before + (UINT16_MAX - KTOP_T_DYNAMIC) * 32);
	schema_free(sc);
}

TEST_MAIN()

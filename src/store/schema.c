// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event schemas: the fixed types (names as in tracefs) and the dynamic ones.
 *
 * Lookups by id are lock-free: types live in pages reached through a directory
 * of atomic pointers, and a type is fully written before its slot is published.
 * Registration and lookups by name take a mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "schema.h"

#define SCHEMA_PAGE_SHIFT	8
#define SCHEMA_PAGE_SIZE	(1u << SCHEMA_PAGE_SHIFT)
#define SCHEMA_DIR_SIZE		(65536u >> SCHEMA_PAGE_SHIFT)

struct schema_page {
	_Atomic(struct ktop_schema_type *)	types[SCHEMA_PAGE_SIZE];
};

struct schema {
	pthread_mutex_t				lock;
	_Atomic unsigned int			max_id;
	unsigned int				next_dyn;
	_Atomic size_t				bytes;
	/* "system\x1fname" (schema_key) -> id, under lock; the keys are ours */
	struct strmap				by_name;
	_Atomic(struct schema_page *)		dir[SCHEMA_DIR_SIZE];
	struct ktop_schema_type			fixed[KTOP_T_NR_FIXED];
};

#define F(n, k)		{ .name = n, .kind = KTOP_FK_##k }
#define T(ID, SYS, NAME, ...)						\
	[ID] = { .system = SYS, .name = NAME, .id = ID,			\
		 .nfields = sizeof((struct ktop_field[]){ __VA_ARGS__ }) /	\
			    sizeof(struct ktop_field),			\
		 .fields = { __VA_ARGS__ } }

static const struct ktop_schema_type schema_fixed[KTOP_T_NR_FIXED] = {
	T(KTOP_T_FUNCTION, "ftrace", "function", F("ip", SYM), F("parent_ip", SYM)),
	T(KTOP_T_FGRAPH_ENTRY, "ftrace", "funcgraph_entry", F("func", SYM), F("depth", INT)),
	T(KTOP_T_FGRAPH_EXIT, "ftrace", "funcgraph_exit", F("func", SYM), F("depth", INT),
	  F("calltime", UINT), F("rettime", UINT), F("overrun", UINT)),
	T(KTOP_T_FUNC_REPEATS, "ftrace", "func_repeats", F("ip", SYM), F("parent_ip", SYM),
	  F("count", UINT), F("top_delta_ts", UINT)),
	T(KTOP_T_SCHED_SWITCH, "sched", "sched_switch", F("prev_comm", STR), F("prev_pid", INT),
	  F("prev_prio", INT), F("prev_state", HEX), F("next_comm", STR), F("next_pid", INT),
	  F("next_prio", INT)),
	T(KTOP_T_SCHED_WAKEUP, "sched", "sched_wakeup", F("comm", STR), F("pid", INT),
	  F("prio", INT), F("target_cpu", INT)),
	T(KTOP_T_SCHED_WAKEUP_NEW, "sched", "sched_wakeup_new", F("comm", STR), F("pid", INT),
	  F("prio", INT), F("target_cpu", INT)),
	T(KTOP_T_SCHED_PROCESS_EXEC, "sched", "sched_process_exec", F("filename", STR),
	  F("pid", INT), F("old_pid", INT)),
	T(KTOP_T_SCHED_PROCESS_EXIT, "sched", "sched_process_exit", F("comm", STR),
	  F("pid", INT), F("prio", INT)),
	T(KTOP_T_IRQ_HANDLER_ENTRY, "irq", "irq_handler_entry", F("irq", INT), F("name", STR)),
	T(KTOP_T_IRQ_HANDLER_EXIT, "irq", "irq_handler_exit", F("irq", INT), F("ret", INT)),
	T(KTOP_T_SOFTIRQ_ENTRY, "irq", "softirq_entry", F("vec", UINT)),
	T(KTOP_T_SOFTIRQ_EXIT, "irq", "softirq_exit", F("vec", UINT)),
	T(KTOP_T_SYS_ENTER, "raw_syscalls", "sys_enter", F("id", INT), F("args[0]", HEX),
	  F("args[1]", HEX), F("args[2]", HEX), F("args[3]", HEX), F("args[4]", HEX),
	  F("args[5]", HEX)),
	T(KTOP_T_SYS_EXIT, "raw_syscalls", "sys_exit", F("id", INT), F("ret", INT)),
	T(KTOP_T_OSNOISE, "ftrace", "osnoise", F("runtime", UINT), F("noise", UINT),
	  F("max_sample", UINT), F("hw_count", UINT), F("nmi_count", UINT),
	  F("irq_count", UINT), F("softirq_count", UINT), F("thread_count", UINT)),
	T(KTOP_T_TIMERLAT, "ftrace", "timerlat", F("seqnum", UINT), F("context", INT),
	  F("timer_latency", UINT)),
	T(KTOP_T_IRQ_NOISE, "osnoise", "irq_noise", F("start", UINT), F("duration", UINT),
	  F("desc", STR), F("vector", INT)),
	T(KTOP_T_SOFTIRQ_NOISE, "osnoise", "softirq_noise", F("start", UINT),
	  F("duration", UINT), F("vector", INT)),
	T(KTOP_T_NMI_NOISE, "osnoise", "nmi_noise", F("start", UINT), F("duration", UINT)),
	T(KTOP_T_THREAD_NOISE, "osnoise", "thread_noise", F("comm", STR), F("pid", INT),
	  F("start", UINT), F("duration", UINT)),
	T(KTOP_T_SAMPLE_THRESHOLD, "osnoise", "sample_threshold", F("start", UINT),
	  F("duration", UINT), F("interference", UINT)),
	T(KTOP_T_MARKER, "ktop", "marker", F("text", STR)),
};

#undef T
#undef F

/*
 * The name key of a type: "system\x1fname", in @buf when it fits, else
 * allocated (free it when it is not @buf). Return: the key, or NULL.
 */
static char *schema_key(const char *system, const char *name, char *buf, size_t len)
{
	size_t ls = strlen(system), ln = strlen(name);
	char *k = ls + ln + 2 <= len ? buf : malloc(ls + ln + 2);

	if (!k)
		return NULL;
	memcpy(k, system, ls);
	k[ls] = '\x1f';
	memcpy(k + ls + 1, name, ln + 1);
	return k;
}

/*
 * Called locked: index @id by its names. A file may bring 65536 types, so a
 * lookup by name must not scan them all (it did: 65472 types took 42 s).
 */
static int schema_index(struct schema *sc, unsigned int id, const struct ktop_schema_type *t)
{
	char *key = schema_key(t->system, t->name, NULL, 0);
	bool added;
	uint64_t *v;

	if (!key)
		return -ENOMEM;
	v = strmap_put(&sc->by_name, key, &added);
	if (!v) {
		free(key);
		return -ENOMEM;
	}
	if (!added) {
		/* names with a \x1f in them, from a hostile file: the first keeps the key */
		free(key);
		return 0;
	}
	*v = id;
	atomic_fetch_add_explicit(&sc->bytes, strlen(key) + 1 + sizeof(struct strmap_ent) +
				  2 * sizeof(struct hmap_slot), memory_order_relaxed);
	return 0;
}

/* Called locked, or at creation. */
static int schema_put(struct schema *sc, unsigned int id, struct ktop_schema_type *t)
{
	struct schema_page *p;

	p = atomic_load_explicit(&sc->dir[id >> SCHEMA_PAGE_SHIFT], memory_order_relaxed);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		atomic_fetch_add_explicit(&sc->bytes, sizeof(*p), memory_order_relaxed);
		atomic_store_explicit(&sc->dir[id >> SCHEMA_PAGE_SHIFT], p, memory_order_release);
	}
	atomic_store_explicit(&p->types[id & (SCHEMA_PAGE_SIZE - 1)], t, memory_order_release);
	if (schema_index(sc, id, t)) {
		atomic_store_explicit(&p->types[id & (SCHEMA_PAGE_SIZE - 1)], NULL,
				      memory_order_release);
		return -ENOMEM;
	}
	if (id + 1 > atomic_load_explicit(&sc->max_id, memory_order_relaxed))
		atomic_store_explicit(&sc->max_id, id + 1, memory_order_release);
	return 0;
}

struct schema *schema_new(void)
{
	struct schema *sc;

	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return NULL;
	pthread_mutex_init(&sc->lock, NULL);
	sc->next_dyn = KTOP_T_DYNAMIC;
	memcpy(sc->fixed, schema_fixed, sizeof(sc->fixed));
	for (unsigned int id = 1; id < KTOP_T_NR_FIXED; id++) {
		if (schema_put(sc, id, &sc->fixed[id])) {
			schema_free(sc);
			return NULL;
		}
	}
	return sc;
}

static void schema_type_free(struct ktop_schema_type *t)
{
	free((char *)t->system);
	free((char *)t->name);
	for (unsigned int i = 0; i < t->nfields; i++)
		free((char *)t->fields[i].name);
	free(t);
}

void schema_free(struct schema *sc)
{
	if (!sc)
		return;
	for (unsigned int d = 0; d < SCHEMA_DIR_SIZE; d++) {
		struct schema_page *p = atomic_load_explicit(&sc->dir[d], memory_order_relaxed);

		if (!p)
			continue;
		for (unsigned int i = 0; i < SCHEMA_PAGE_SIZE; i++) {
			unsigned int id = d * SCHEMA_PAGE_SIZE + i;
			struct ktop_schema_type *t;

			t = atomic_load_explicit(&p->types[i], memory_order_relaxed);
			if (t && id >= KTOP_T_DYNAMIC)
				schema_type_free(t);
		}
		free(p);
	}
	for (size_t i = 0; i < sc->by_name.n; i++)
		free((char *)sc->by_name.ent[i].key);
	strmap_destroy(&sc->by_name);
	pthread_mutex_destroy(&sc->lock);
	free(sc);
}

/* Called locked. */
static int schema_find_locked(const struct schema *sc, const char *system, const char *name)
{
	char buf[256], *key = schema_key(system, name, buf, sizeof(buf));
	const struct ktop_schema_type *t;
	uint64_t *v;

	if (!key)
		return -ENOMEM;
	v = strmap_get(&sc->by_name, key, strlen(key));
	if (key != buf)
		free(key);
	t = v ? schema_get(sc, (uint16_t)*v) : NULL;
	if (!t || strcmp(t->name, name) || strcmp(t->system, system))
		return -ENOENT;
	return (int)*v;
}

int schema_add(struct schema *sc, const char *system, const char *name,
	       unsigned int nfields, const struct ktop_field *fields)
{
	struct ktop_schema_type *t;
	size_t bytes;
	int ret;

	if (!system || !name || nfields > KTOP_MAX_ARGS)
		return -EINVAL;
	pthread_mutex_lock(&sc->lock);
	ret = schema_find_locked(sc, system, name);
	if (ret >= KTOP_T_DYNAMIC)
		goto out_unlock;	/* registered already: same id */
	if (sc->next_dyn > UINT16_MAX) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	ret = -ENOMEM;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out_unlock;
	t->system = strdup(system);
	t->name = strdup(name);
	t->nfields = nfields;
	t->id = sc->next_dyn;
	if (!t->system || !t->name)
		goto out_free;
	for (unsigned int i = 0; i < nfields; i++) {
		t->fields[i].kind = fields[i].kind;
		t->fields[i].name = strdup(fields[i].name ? fields[i].name : "");
		if (!t->fields[i].name)
			goto out_free;
	}
	ret = schema_put(sc, t->id, t);
	if (ret)
		goto out_free;
	bytes = sizeof(*t) + strlen(system) + strlen(name) + 2;
	for (unsigned int i = 0; i < nfields; i++)
		bytes += strlen(t->fields[i].name) + 1;
	atomic_fetch_add_explicit(&sc->bytes, bytes, memory_order_relaxed);
	ret = sc->next_dyn++;
out_unlock:
	pthread_mutex_unlock(&sc->lock);
	return ret;
out_free:
	schema_type_free(t);
	pthread_mutex_unlock(&sc->lock);
	return ret;
}

const struct ktop_schema_type *schema_get(const struct schema *sc, uint16_t id)
{
	struct schema_page *p;

	p = atomic_load_explicit(&((struct schema *)sc)->dir[id >> SCHEMA_PAGE_SHIFT],
				 memory_order_acquire);
	if (!p)
		return NULL;
	return atomic_load_explicit(&p->types[id & (SCHEMA_PAGE_SIZE - 1)],
				    memory_order_acquire);
}

int schema_find(const struct schema *sc, const char *system, const char *name)
{
	struct schema *s = (struct schema *)sc;
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = schema_find_locked(sc, system, name);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

unsigned int schema_max_id(const struct schema *sc)
{
	return atomic_load_explicit(&sc->max_id, memory_order_acquire);
}

size_t schema_bytes(const struct schema *sc)
{
	return atomic_load_explicit(&sc->bytes, memory_order_relaxed);
}

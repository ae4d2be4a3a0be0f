// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The columnar event store.
 *
 * Each CPU stream is a list of chunks of up to CHUNK_EVENTS events. The newest
 * chunk is open: plain fixed-size rows and an argument array that its single
 * writer fills in place. When it is full the writer seals it: each column is
 * encoded on its own, compactly, into one immutable allocation (time deltas,
 * run-length pid and type/flags/preempt dictionary indices, arguments with a
 * per-type codec: symbol and string ids as varints, timestamps relative to the
 * event's, pids through the chunk's pid dictionary, the rest as deltas from
 * the previous value of the same slot, per syscall for sys_enter), and the
 * raw buffer is recycled. Readers decode a sealed chunk on access into their
 * own buffer (store_get keeps the last one per thread); queries decode only
 * the columns they need. A sealed chunk also keeps how many events each entry
 * of its pid and meta dictionaries has, so that counting by type, pid or cpu
 * over a window decodes only the chunks at its two ends (store_count_by).
 * Events with a stack (src/store/stacks.h) give a chunk one more column: a
 * dictionary of the chunk's stack ids and run-length indices into it, so
 * the column costs a byte or two per stacked event and nothing in a chunk
 * without stacks.
 *
 * Visibility: the writer appends past the published end and moves pub_end
 * forward with a release store (store_publish); readers load it with acquire
 * and never look past it, so they always see a consistent prefix.
 *
 * Lifetime: the chunk list of a stream is guarded by a mutex that readers hold
 * only to find a chunk and take a reference on it (the writer takes it once
 * per chunk, to swap pointers). Chunks are reference counted: the list holds
 * one reference, readers one each while they decode or copy; eviction only
 * drops the list's reference, and whoever drops the last one frees the chunk,
 * so a reader never touches freed memory and never blocks the writer.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/clock.h"
#include "lib/intern.h"
#include "lib/taskstate.h"
#include "lostmarks.h"
#include "store-local.h"
#include "schema.h"
#include "stacks.h"
#include "store.h"

/* ---- chunks -------------------------------------------------------------- */

void stream_bytes_add(struct stream *sm, int64_t d)
{
	atomic_fetch_add_explicit(&sm->bytes, d, memory_order_relaxed);
	atomic_fetch_add_explicit(&sm->st->bytes, d, memory_order_relaxed);
}

static struct raw *raw_get(struct stream *sm)
{
	struct raw *r = atomic_exchange_explicit(&sm->spare, NULL, memory_order_acq_rel);
	void *base;

	if (r)
		return r;
	/* stagger the buffers of different CPUs across cache sets */
	base = malloc(sizeof(*r) + 4096);
	if (!base)
		return NULL;
	r = (struct raw *)((char *)base + (sm->cpu * 17 % 64) * 64);
	r->base = base;
	stream_bytes_add(sm, sizeof(*r) + 4096);
	return r;
}

static void raw_recycle(struct stream *sm, struct raw *r)
{
	r = atomic_exchange_explicit(&sm->spare, r, memory_order_acq_rel);
	if (r) {
		free(r->base);
		stream_bytes_add(sm, -(int64_t)(sizeof(*r) + 4096));
	}
}

void chunk_put(struct chunk *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (c->raw)
		raw_recycle(c->sm, c->raw);
	free(c);
}

void raw_to_event(const struct raw *r, uint32_t i, unsigned int cpu,
			 struct ktop_event *ev)
{
	const uint64_t *a = &r->args[r->row[i].aoff];
	unsigned int k, na = r->row[i].nargs;

	ev->ts = r->row[i].ts;
	ev->pid = r->row[i].pid;
	ev->stack = r->row[i].stack;
	ev->cpu = cpu;
	ev->type = r->row[i].type;
	ev->flags = r->row[i].flags;
	ev->pc = r->row[i].pc;
	ev->nargs = na;
	/* short variable copies: plain loops beat rep movs here */
	for (k = 0; k < na; k++)
		ev->args[k] = a[k];
	for (; k < KTOP_MAX_ARGS; k++)
		ev->args[k] = 0;
}

/* ---- store ----------------------------------------------------------------- */

struct store *store_new(size_t mem_limit, unsigned int ncpus)
{
	struct store *st;

	if (!ncpus)
		ncpus = 1;
	st = calloc(1, sizeof(*st) + ncpus * sizeof(st->sm[0]));
	if (!st)
		return NULL;
	st->ncpus = ncpus;
	st->limit = mem_limit ? mem_limit : STORE_DEFAULT_MEMORY;
	pthread_mutex_init(&st->evict_lock, NULL);
	pthread_mutex_init(&st->pool_lock, NULL);
	for (unsigned int i = 0; i < ncpus; i++) {
		struct stream *sm = &st->sm[i];

		pthread_mutex_init(&sm->lock, NULL);
		sm->cpu = i;
		sm->st = st;
		sm->on = CHUNK_EVENTS;	/* no open chunk */
		atomic_init(&sm->evict_tmin, UINT64_MAX);
	}
	st->strings = intern_new();
	st->schema = schema_new();
	st->lost = lostmarks_new();
	st->stacks = st->strings ? stacks_new(st->strings, 0) : NULL;
	if (!st->strings || !st->schema || !st->lost || !st->stacks) {
		store_free(st);
		return NULL;
	}
	return st;
}

void store_free(struct store *st)
{
	if (!st)
		return;
	for (unsigned int i = 0; i < st->ncpus; i++) {
		struct stream *sm = &st->sm[i];

		for (size_t k = sm->lo; k < sm->hi; k++)
			free(sm->v[k]);
		free(sm->v);
		if (sm->open) {
			free(sm->open->raw->base);
			free(sm->open);
		}
		if (atomic_load(&sm->spare))
			free(atomic_load(&sm->spare)->base);
		pthread_mutex_destroy(&sm->lock);
	}
	for (size_t i = 0; i < sizeof(st->comm) / sizeof(st->comm[0]); i++)
		free(atomic_load_explicit(&st->comm[i], memory_order_relaxed));
	lostmarks_free(st->lost);
	stacks_free(st->stacks);
	intern_free(st->strings);
	schema_free(st->schema);
	free(atomic_load(&st->tstates));
	pthread_mutex_destroy(&st->evict_lock);
	for (unsigned int i = 0; i < st->npool; i++)
		free(st->pool[i]);
	pthread_mutex_destroy(&st->pool_lock);
	free(st);
}

unsigned int store_ncpus(const struct store *st)
{
	return st->ncpus;
}

struct intern *store_strings(struct store *st)
{
	return st->strings;
}

struct schema *store_schema(struct store *st)
{
	return st->schema;
}

int store_set_task_states(struct store *st, const struct taskstate_fmt *f)
{
	struct taskstate_fmt *n = malloc(sizeof(*n)), *none = NULL;

	if (!n)
		return -ENOMEM;
	*n = *f;
	if (!atomic_compare_exchange_strong(&st->tstates, &none, n)) {
		free(n);
		return -EEXIST;
	}
	return 0;
}

const struct taskstate_fmt *store_task_states(const struct store *st)
{
	return st ? atomic_load_explicit(&((struct store *)st)->tstates, memory_order_acquire) :
		    NULL;
}

struct stacks *store_stacks(const struct store *st)
{
	return st->stacks;
}

uint64_t store_table_bytes(const struct store *st)
{
	struct stacks_stats ks;

	stacks_get_stats(st->stacks, &ks);
	return intern_bytes(st->strings) + schema_bytes(st->schema) + ks.bytes +
	       (uint64_t)atomic_load_explicit(&st->comm_bytes, memory_order_relaxed);
}

/* What counts against the limit: everything that grows with the input. */
bool store_over(const struct store *st)
{
	return (uint64_t)atomic_load_explicit(&st->bytes, memory_order_relaxed) +
	       lostmarks_bytes(st->lost) + store_table_bytes(st) > st->limit;
}

/*
 * Drop the oldest of what can go, across CPUs, until under the limit: sealed
 * chunks, and the lost-event marks older than them (marks alone, as a file of
 * nothing else brings, go oldest half first).
 */
void store_evict(struct store *st)
{
	pthread_mutex_lock(&st->evict_lock);
	while (store_over(st)) {
		struct stream *best = NULL;
		uint64_t best_t = UINT64_MAX, mark_t;
		struct chunk *c = NULL;

		for (unsigned int i = 0; i < st->ncpus; i++) {
			uint64_t t = atomic_load_explicit(&st->sm[i].evict_tmin,
							  memory_order_relaxed);

			if (t < best_t) {
				best_t = t;
				best = &st->sm[i];
			}
		}
		if (lostmarks_oldest(st->lost, &mark_t) && mark_t < best_t &&
		    lostmarks_evict(st->lost, best_t))
			continue;
		if (!best)
			break;
		pthread_mutex_lock(&best->lock);
		if (best->lo < best->hi) {
			c = best->v[best->lo++];
			atomic_store_explicit(&best->first_seq, c->first_seq + c->n,
					      memory_order_release);
			atomic_store_explicit(&best->evict_tmin, best->lo < best->hi ?
					      best->v[best->lo]->t_min : UINT64_MAX,
					      memory_order_relaxed);
		}
		pthread_mutex_unlock(&best->lock);
		if (!c)
			continue;
		atomic_fetch_add_explicit(&best->evicted, c->n, memory_order_relaxed);
		stream_bytes_add(best, -(int64_t)c->bytes);
		chunk_put(c);
	}
	pthread_mutex_unlock(&st->evict_lock);
}

/*
 * Per-thread scratch: the encoder of a writer thread (shared by the CPU
 * streams it writes, so it stays in cache), and a reader's decode cache.
 * Freed when the thread exits.
 */
struct tls_cache {
	uint64_t	uid;
	struct decbuf	d;
};

static __thread struct enc *tls_enc;
static __thread struct tls_cache *tls_cache;
static pthread_key_t tls_enc_key, tls_cache_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_keys_init(void)
{
	pthread_key_create(&tls_enc_key, free);
	pthread_key_create(&tls_cache_key, free);
}

static struct enc *tls_enc_get(void)
{
	if (tls_enc)
		return tls_enc;
	pthread_once(&tls_once, tls_keys_init);
	tls_enc = calloc(1, sizeof(*tls_enc) + ENC_BUF_SIZE);
	if (tls_enc)
		pthread_setspecific(tls_enc_key, tls_enc);
	return tls_enc;
}

static struct tls_cache *tls_cache_get(void)
{
	if (tls_cache)
		return tls_cache;
	pthread_once(&tls_once, tls_keys_init);
	tls_cache = malloc(sizeof(*tls_cache));
	if (tls_cache) {
		tls_cache->uid = 0;
		pthread_setspecific(tls_cache_key, tls_cache);
	}
	return tls_cache;
}

/*
 * Writer: add sealed chunk @c at the end of @sm's list (and count its bytes);
 * in the same step, so that readers see one or the other, the open chunk
 * leaves the list (it is @c's rows; the caller drops its reference).
 * Return: 0, or -ENOMEM (@c is not added).
 */
int stream_push(struct stream *sm, struct chunk *c)
{
	c->sm = sm;
	pthread_mutex_lock(&sm->lock);
	if (array_fifo_room((void **)&sm->v, &sm->lo, &sm->hi, &sm->cap, sizeof(*sm->v))) {
		pthread_mutex_unlock(&sm->lock);
		return -ENOMEM;
	}
	sm->v[sm->hi++] = c;
	if (sm->hi - sm->lo == 1)
		atomic_store_explicit(&sm->evict_tmin, c->t_min, memory_order_relaxed);
	sm->open = NULL;
	pthread_mutex_unlock(&sm->lock);
	stream_bytes_add(sm, c->bytes);
	return 0;
}

/* Writer: encode the open chunk and swap it for its sealed form. */
int stream_seal(struct stream *sm)
{
	struct chunk *o = sm->open, *c;
	struct enc *e = tls_enc_get();

	if (!e)
		return -ENOMEM;
	c = chunk_encode(sm->st, e, o->raw, sm->on, o->first_seq);
	if (!c)
		return -ENOMEM;
	if (stream_push(sm, c)) {
		free(c);
		return -ENOMEM;
	}
	chunk_put(o);
	sm->on = CHUNK_EVENTS;
	sm->oa = 0;
	sm->wraw = NULL;
	atomic_store_explicit(&sm->appended, sm->end, memory_order_relaxed);
	if (store_over(sm->st))
		store_evict(sm->st);
	return 0;
}

static int stream_open(struct stream *sm, uint64_t ts)
{
	struct chunk *o = malloc(sizeof(*o));

	if (!o)
		return -ENOMEM;
	memset(o, 0, sizeof(*o));
	o->raw = raw_get(sm);
	if (!o->raw) {
		free(o);
		return -ENOMEM;
	}
	atomic_init(&o->refs, 1);
	o->first_seq = sm->end;
	o->t_min = ts;
	o->sm = sm;
	o->bytes = 0;	/* the raw buffer is counted on its own */
	sm->wraw = o->raw;
	pthread_mutex_lock(&sm->lock);
	sm->open = o;
	pthread_mutex_unlock(&sm->lock);
	return 0;
}

/* Seal the full open chunk, if there is one, and open a new one starting at @ts. */
static int stream_next_chunk(struct stream *sm, uint64_t ts)
{
	int ret;

	if (sm->open) {
		ret = stream_seal(sm);
		if (ret)
			return ret;
	}
	return stream_open(sm, ts);
}

/*
 * Append @n rows to @sm, with the writer's position held in locals: the
 * stores into the chunk may alias anything as far as the compiler knows.
 * Return: how many were appended (fewer than @n when a new chunk could not be
 * had).
 */
static inline __attribute__((always_inline)) uint32_t
stream_append_rows(struct stream *sm, const struct store_brow *rows, const uint64_t *args,
		   uint32_t n)
{
	uint64_t last = sm->last_ts, end = sm->end, reordered = 0;
	uint32_t on = sm->on, oa = sm->oa, i;
	struct raw *r = sm->wraw;

	for (i = 0; i < n; i++) {
		const struct store_brow *b = &rows[i];
		unsigned int na = b->nargs < KTOP_MAX_ARGS ? b->nargs : KTOP_MAX_ARGS;
		const uint64_t *a = &args[b->aoff];
		uint64_t ts = b->ts;
		struct store_brow *row;

		if (__builtin_expect(ts < last, 0)) {
			ts = last;
			reordered++;
		}
		if (__builtin_expect(on == CHUNK_EVENTS || oa + na > CHUNK_ARGS, 0)) {
			/* full, or no open chunk (on starts at CHUNK_EVENTS) */
			sm->on = on;
			sm->oa = oa;
			sm->end = end;
			sm->last_ts = last;
			if (stream_next_chunk(sm, ts)) {
				/* a seal may have gone through: take its state */
				on = sm->on;
				oa = sm->oa;
				break;
			}
			on = 0;
			oa = 0;
			r = sm->wraw;
		}
		/* fixed-size copies are cheaper than a variable one; args[] has the slack */
		memcpy(&r->args[oa], a, 4 * sizeof(a[0]));
		if (na > 4)
			memcpy(&r->args[oa + 4], &a[4], 12 * sizeof(a[0]));
		row = &r->row[on];
		row->ts = ts;
		row->pid = b->pid;
		row->stack = b->stack;
		row->aoff = oa;
		row->type = b->type;
		row->flags = b->flags;
		row->pc = b->pc;
		row->nargs = na;
		on++;
		oa += na;
		end++;
		last = ts;
	}
	sm->on = on;
	sm->oa = oa;
	sm->end = end;
	sm->last_ts = last;
	if (reordered) {
		uint64_t v = atomic_load_explicit(&sm->reordered, memory_order_relaxed);

		/* one writer: no read-modify-write needed */
		atomic_store_explicit(&sm->reordered, v + reordered, memory_order_relaxed);
	}
	return i;
}

int store_append(struct store *st, const struct ktop_event *ev)
{
	struct store_brow b = {
		.ts = ev->ts, .pid = ev->pid, .aoff = 0, .type = ev->type,
		.flags = ev->flags, .pc = ev->pc, .nargs = ev->nargs,
		/* an id the table never gave out would name nothing, or another stack later */
		.stack = ev->stack <= stacks_count(st->stacks) ? ev->stack : 0,
	};

	if (ev->cpu >= st->ncpus)
		return -EINVAL;
	return stream_append_rows(&st->sm[ev->cpu], &b, ev->args, 1) ? 0 : -ENOMEM;
}

int store_reserve(struct store *st, unsigned int cpu, uint64_t ts, struct store_wbuf *w)
{
	struct stream *sm;
	int ret;

	if (cpu >= st->ncpus)
		return -EINVAL;
	sm = &st->sm[cpu];
	if (ts < sm->last_ts)
		ts = sm->last_ts;
	/*
	 * Full when an event of KTOP_MAX_ARGS would not fit: the writer knows
	 * an event's argument count only once it has decoded it in place.
	 */
	if (sm->on == CHUNK_EVENTS || sm->oa + KTOP_MAX_ARGS > CHUNK_ARGS) {
		ret = stream_next_chunk(sm, ts);
		if (ret)
			return ret;
		sm->on = 0;
		sm->oa = 0;
	}
	w->row = &sm->wraw->row[sm->on];
	w->args = sm->wraw->args;
	w->nrow = CHUNK_EVENTS - sm->on;
	w->aoff = sm->oa;
	w->aend = CHUNK_ARGS;
	w->last_ts = sm->last_ts;
	return 0;
}

void store_commit(struct store *st, unsigned int cpu, const struct store_wbuf *w, uint32_t n,
		  uint32_t aend, uint64_t last_ts, uint64_t reordered)
{
	struct stream *sm;

	if (cpu >= st->ncpus || !n)
		return;
	sm = &st->sm[cpu];
	if (!sm->on && w->row[0].ts != sm->open->t_min) {
		/*
		 * The chunk was opened at the time store_reserve() was given,
		 * for an event the writer then did not commit (a bad record):
		 * start it at its first row. Readers look at t_min under the lock.
		 */
		pthread_mutex_lock(&sm->lock);
		sm->open->t_min = w->row[0].ts;
		pthread_mutex_unlock(&sm->lock);
	}
	sm->on += n;
	sm->oa = aend;
	sm->end += n;
	sm->last_ts = last_ts;
	if (reordered) {
		uint64_t v = atomic_load_explicit(&sm->reordered, memory_order_relaxed);

		/* one writer: no read-modify-write needed */
		atomic_store_explicit(&sm->reordered, v + reordered, memory_order_relaxed);
	}
}

void store_publish(struct store *st, unsigned int cpu)
{
	struct stream *sm;

	if (cpu >= st->ncpus)
		return;
	sm = &st->sm[cpu];
	atomic_store_explicit(&sm->last_pub_ts, sm->last_ts, memory_order_relaxed);
	atomic_store_explicit(&sm->appended, sm->end, memory_order_relaxed);
	atomic_store_explicit(&sm->pub_end, sm->end, memory_order_release);
}

int store_seal_idle(struct store *st, unsigned int cpu)
{
	struct stream *sm;
	struct raw *r;
	int ret = 0;

	if (cpu >= st->ncpus)
		return -EINVAL;
	sm = &st->sm[cpu];
	if (sm->open && sm->on && sm->on <= CHUNK_EVENTS)
		ret = stream_seal(sm);
	r = atomic_exchange_explicit(&sm->spare, NULL, memory_order_acq_rel);
	if (r) {
		free(r->base);
		stream_bytes_add(sm, -(int64_t)(sizeof(*r) + 4096));
	}
	return ret;
}

const char *store_lost_why_name(unsigned int why)
{
	static const char *const names[STORE_LOST_NR] = {
		[STORE_LOST_KERNEL] = "kernel", [STORE_LOST_KTOP] = "ktop",
		[STORE_LOST_STREAM] = "stream", [STORE_LOST_UNSENT] = "unsent",
		[STORE_LOST_UNKNOWN] = "unknown",
	};

	return why < STORE_LOST_NR ? names[why] : NULL;
}

void store_add_lost(struct store *st, unsigned int cpu, uint64_t ts, uint64_t count,
		    enum store_lost_why why)
{
	struct store_lost m = { .ts = ts, .count = count, .cpu = (uint16_t)cpu };
	struct stream *sm;

	if (cpu >= st->ncpus)
		return;
	if ((unsigned int)why >= STORE_LOST_NR)
		why = STORE_LOST_UNKNOWN;
	m.why = (uint8_t)why;
	sm = &st->sm[cpu];
	/* counted even when there is no memory for the mark: the totals stay right */
	atomic_fetch_add_explicit(&sm->lost, count, memory_order_relaxed);
	atomic_fetch_add_explicit(&sm->lost_why[why], count, memory_order_relaxed);
	atomic_fetch_add_explicit(&sm->lost_marks, 1, memory_order_relaxed);
	lostmarks_add(st->lost, &m);
	if (store_over(st))
		store_evict(st);
}

/* ---- comm ------------------------------------------------------------------ */

/* Return: the comm page of @pid, made when @make; NULL when none (or no memory). */
static struct comm_page *comm_page(struct store *st, int32_t pid, bool make)
{
	struct comm_page *page, *exp = NULL;

	page = atomic_load_explicit(&st->comm[pid >> COMM_PAGE_SHIFT], memory_order_acquire);
	if (page || !make)
		return page;
	page = calloc(1, sizeof(*page));
	if (!page)
		return NULL;
	if (!atomic_compare_exchange_strong_explicit(&st->comm[pid >> COMM_PAGE_SHIFT], &exp, page,
						     memory_order_acq_rel, memory_order_acquire)) {
		free(page);
		return exp;
	}
	atomic_fetch_add_explicit(&st->comm_bytes, sizeof(*page), memory_order_relaxed);
	return page;
}

void store_set_comm_id(struct store *st, int32_t pid, uint32_t id, uint64_t ts)
{
	struct comm_page *page;
	_Atomic uint64_t *t;
	unsigned int spins = 0;
	uint64_t old;

	if (pid < 0 || (uint32_t)pid > COMM_MAX_PID || id == UINT32_MAX)
		return;
	page = comm_page(st, pid, true);
	if (!page)
		return;
	/* the entry's time has 63 bits: STORE_COMM_LAST stays above any trace time */
	if (ts == STORE_COMM_LAST)
		ts = COMM_TS_LOCK - 1;
	else if (ts >= COMM_TS_LOCK - 1)
		ts = COMM_TS_LOCK - 2;
	t = &page->ts[pid & (COMM_PAGE - 1)];
	old = atomic_load_explicit(t, memory_order_acquire);
	for (;;) {
		if (old & COMM_TS_LOCK) {
			/* another thread is writing the entry: two stores */
			if (++spins & 63)
				__asm__ __volatile__("" ::: "memory");
			else
				sched_yield();
			old = atomic_load_explicit(t, memory_order_acquire);
			continue;
		}
		if (ts < old)
			return;		/* a name seen later is kept */
		if (ts == old && atomic_load_explicit(&page->id1[pid & (COMM_PAGE - 1)],
						      memory_order_relaxed) == id + 1)
			return;
		if (atomic_compare_exchange_weak_explicit(t, &old, ts | COMM_TS_LOCK,
							  memory_order_acquire,
							  memory_order_acquire))
			break;
	}
	atomic_store_explicit(&page->id1[pid & (COMM_PAGE - 1)], id + 1, memory_order_release);
	atomic_store_explicit(t, ts, memory_order_release);
}

void store_set_comm(struct store *st, int32_t pid, const char *comm, uint64_t ts)
{
	if (pid < 0 || (uint32_t)pid > COMM_MAX_PID || !comm)
		return;
	store_set_comm_id(st, pid, intern_id(st->strings, comm, strlen(comm)), ts);
}

/* Return: the interned comm id + 1 of @pid, 0 when never seen. */
static uint32_t store_comm_id1(const struct store *st, int32_t pid)
{
	struct comm_page *page;

	if (pid < 0 || (uint32_t)pid > COMM_MAX_PID)
		return 0;
	page = comm_page((struct store *)st, pid, false);
	if (!page)
		return 0;
	return atomic_load_explicit(&page->id1[pid & (COMM_PAGE - 1)], memory_order_acquire);
}

const char *store_comm(const struct store *st, int32_t pid)
{
	uint32_t id1 = store_comm_id1(st, pid);

	return id1 ? intern_str(st->strings, id1 - 1) : NULL;
}

const char *store_comm_next(const struct store *st, int32_t *pid)
{
	uint32_t p = *pid < 0 ? 0 : (uint32_t)*pid;

	while (p <= COMM_MAX_PID) {
		struct comm_page *page = atomic_load_explicit(
			&((struct store *)st)->comm[p >> COMM_PAGE_SHIFT], memory_order_acquire);
		uint32_t end = (p | (COMM_PAGE - 1)) + 1;

		if (page) {
			for (; p < end && p <= COMM_MAX_PID; p++) {
				uint32_t id1 = atomic_load_explicit(
					&page->id1[p & (COMM_PAGE - 1)], memory_order_acquire);

				if (id1) {
					*pid = (int32_t)p;
					return intern_str(st->strings, id1 - 1);
				}
			}
		}
		p = end;
	}
	return NULL;
}

const char *store_task_name(const struct store *st, int32_t pid)
{
	const char *c = !pid ? "<idle>" : st ? store_comm(st, pid) : NULL;

	return c && *c ? c : "<...>";
}

/* ---- stats ----------------------------------------------------------------- */

static void stream_stats(const struct store *st, unsigned int cpu, struct store_stats *o)
{
	struct stream *sm = (struct stream *)&st->sm[cpu];
	uint64_t pub, first, t_first = 0;

	pthread_mutex_lock(&sm->lock);
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	first = atomic_load_explicit(&sm->first_seq, memory_order_relaxed);
	if (pub > first) {
		if (sm->lo < sm->hi)
			t_first = sm->v[sm->lo]->t_min;
		else if (sm->open)
			t_first = sm->open->t_min;
	}
	pthread_mutex_unlock(&sm->lock);
	if (pub > first) {
		uint64_t last = atomic_load_explicit(&sm->last_pub_ts, memory_order_relaxed);

		o->events += pub - first;
		if (!o->first_ts || t_first < o->first_ts)
			o->first_ts = t_first;
		if (last > o->last_ts)
			o->last_ts = last;
	}
	o->appended += atomic_load_explicit(&sm->appended, memory_order_relaxed);
	o->evicted += atomic_load_explicit(&sm->evicted, memory_order_relaxed);
	o->lost += atomic_load_explicit(&sm->lost, memory_order_relaxed);
	for (unsigned int w = 0; w < STORE_LOST_NR; w++)
		o->lost_why[w] += atomic_load_explicit(&sm->lost_why[w], memory_order_relaxed);
	o->lost_marks += atomic_load_explicit(&sm->lost_marks, memory_order_relaxed);
	o->reordered += atomic_load_explicit(&sm->reordered, memory_order_relaxed);
	o->bytes += atomic_load_explicit(&sm->bytes, memory_order_relaxed);
}

void store_get_stats(const struct store *st, struct store_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < st->ncpus; i++)
		stream_stats(st, i, out);
	out->limit = st->limit;
	out->lost_bytes = lostmarks_bytes(st->lost);
	out->tables = store_table_bytes(st);
	out->marks_evicted = lostmarks_evicted(st->lost);
}

void store_get_cpu_stats(const struct store *st, unsigned int cpu, struct store_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->limit = st->limit;
	if (cpu < st->ncpus)
		stream_stats(st, cpu, out);
}

uint64_t store_feed_end(const struct store *st, uint64_t lag_ns)
{
	uint64_t now = clock_mono_ns(), newest = 0, oldest = UINT64_MAX;
	unsigned int n = store_ncpus(st);

	for (unsigned int cpu = 0; cpu < n; cpu++) {
		struct store_stats ss;

		store_get_cpu_stats(st, cpu, &ss);
		if (!ss.last_ts)
			continue;
		if (ss.last_ts > newest)
			newest = ss.last_ts;
		if (ss.last_ts < oldest)
			oldest = ss.last_ts;
	}
	if (!newest)
		return 0;
	/* the same clock as ours: within a minute of now */
	if (newest <= now + 60000000000ull && newest + 60000000000ull >= now)
		return now > lag_ns ? now - lag_ns : 0;
	return oldest;
}

size_t store_lost_marks(const struct store *st, uint64_t t0, uint64_t t1,
			struct store_lost *out, size_t max)
{
	return lostmarks_copy(st->lost, t0, t1, out, max);
}

size_t store_lost_marks_from(const struct store *st, uint64_t *seq, struct store_lost *out,
			     size_t max)
{
	return lostmarks_from(st->lost, seq, out, max);
}

void store_cpu_range(const struct store *st, unsigned int cpu, uint64_t *first, uint64_t *end)
{
	const struct stream *sm;

	*first = *end = 0;
	if (cpu >= st->ncpus)
		return;
	sm = &st->sm[cpu];
	*end = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	*first = atomic_load_explicit(&sm->first_seq, memory_order_acquire);
	if (*end < *first)
		*end = *first;
}

/* ---- reading ----------------------------------------------------------------- */

size_t stream_sealed_after(const struct stream *sm, uint64_t seq)
{
	size_t lo = sm->lo, hi = sm->hi;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->v[mid]->first_seq + sm->v[mid]->n <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Called locked. Return: the chunk holding @seq, or NULL. */
static struct chunk *stream_find_locked(const struct stream *sm, uint64_t seq)
{
	size_t i;

	if (sm->open && seq >= sm->open->first_seq)
		return sm->open;
	i = stream_sealed_after(sm, seq);
	return i < sm->hi && sm->v[i]->first_seq <= seq ? sm->v[i] : NULL;
}

/*
 * Take a reference on the chunk holding @*seq; when @clamp, an evicted @*seq
 * moves up to the oldest held event. Return: the chunk, or NULL.
 */
struct chunk *stream_ref(const struct stream *csm, uint64_t *seq, bool clamp)
{
	struct stream *sm = (struct stream *)csm;
	struct chunk *c;

	pthread_mutex_lock(&sm->lock);
	if (clamp) {
		uint64_t first = atomic_load_explicit(&sm->first_seq, memory_order_relaxed);

		if (*seq < first)
			*seq = first;
	}
	c = stream_find_locked(sm, *seq);
	if (c)
		atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&sm->lock);
	return c;
}

/*
 * The rows of a referenced chunk: its raw buffer while it is open, else this
 * thread's decode of it, kept until the thread reads another chunk.
 * Return: NULL when the thread's decode buffer cannot be allocated.
 */
static const struct raw *chunk_rows(const struct chunk *c)
{
	struct tls_cache *tc;

	if (c->raw)
		return c->raw;
	tc = tls_cache_get();
	if (!tc)
		return NULL;
	if (tc->uid != c->uid) {
		chunk_decode(c, &tc->d, DEC_ALL);
		tc->uid = c->uid;
	}
	return &tc->d.r;
}

size_t store_get_range(const struct store *st, unsigned int cpu, uint64_t from, uint64_t to,
		       struct ktop_event *out)
{
	const struct stream *sm;
	uint64_t pub, q = from;
	size_t n = 0;

	if (cpu >= st->ncpus)
		return 0;
	sm = &st->sm[cpu];
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	if (to > pub)
		to = pub;
	while (q < to) {
		uint64_t seq = q, end;
		const struct raw *r;
		struct chunk *c = stream_ref(sm, &seq, false);

		if (!c) {	/* evicted meanwhile */
			memset(&out[n], 0, sizeof(out[n]));
			out[n].type = KTOP_T_NONE;
			n++;
			q++;
			continue;
		}
		r = chunk_rows(c);
		if (!r) {
			chunk_put(c);
			break;
		}
		end = c->first_seq + c->n;
		if (c->raw || end > to)
			end = to;	/* an open chunk's n is not kept up to date */
		for (; q < end; q++)
			raw_to_event(r, (uint32_t)(q - c->first_seq), cpu, &out[n++]);
		chunk_put(c);
	}
	return n;
}

int store_get(const struct store *st, unsigned int cpu, uint64_t seq, struct ktop_event *out)
{
	const struct stream *sm;
	const struct raw *r;
	struct chunk *c;
	int ret = 0;

	if (cpu >= st->ncpus)
		return -ENOENT;
	sm = &st->sm[cpu];
	if (seq >= atomic_load_explicit(&sm->pub_end, memory_order_acquire))
		return -ENOENT;
	c = stream_ref(sm, &seq, false);
	if (!c)
		return -ENOENT;
	r = chunk_rows(c);
	if (r)
		raw_to_event(r, seq - c->first_seq, cpu, out);
	else
		ret = -ENOMEM;
	chunk_put(c);
	return ret;
}

static uint32_t row_lower_bound(const struct store_brow *row, uint32_t n, uint64_t t)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (row[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t ts_lower_bound(const uint64_t *ts, uint32_t n, uint64_t t)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t store_seek(const struct store *st, unsigned int cpu, uint64_t ts)
{
	struct stream *sm;
	uint64_t pub, first, seq;
	struct chunk *c = NULL;
	size_t lo, hi;

	if (cpu >= st->ncpus)
		return 0;
	sm = (struct stream *)&st->sm[cpu];
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	pthread_mutex_lock(&sm->lock);
	first = atomic_load_explicit(&sm->first_seq, memory_order_relaxed);
	/* the first sealed chunk ending at or after @ts, else the open one */
	lo = sm->lo;
	hi = sm->hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->v[mid]->t_max < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	c = lo < sm->hi ? sm->v[lo] : sm->open;
	if (c)
		atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&sm->lock);
	if (pub < first)
		pub = first;
	if (!c)
		return pub;
	if (c->first_seq >= pub) {
		seq = pub;
	} else if (c->raw) {
		seq = c->first_seq + row_lower_bound(c->raw->row, pub - c->first_seq, ts);
	} else {
		uint64_t tsv[CHUNK_EVENTS];

		/* only the time column is decoded */
		chunk_decode_ts(c, tsv, 1);
		seq = c->first_seq + ts_lower_bound(tsv, c->n, ts);
	}
	chunk_put(c);
	if (seq > pub)
		seq = pub;
	if (seq < first)
		seq = first;
	return seq;
}

/*
 * Decode buffers of iterators and queries are big (~200 KiB): keep a few for
 * the next user rather than fault fresh pages in for every screen refresh.
 */
struct decbuf *decbuf_get(struct store *st)
{
	struct decbuf *d = NULL;

	pthread_mutex_lock(&st->pool_lock);
	if (st->npool)
		d = st->pool[--st->npool];
	pthread_mutex_unlock(&st->pool_lock);
	return d ? d : malloc(sizeof(*d));
}

void decbuf_put(const struct store *cst, struct decbuf *d)
{
	struct store *st = (struct store *)cst;

	if (!d)
		return;
	pthread_mutex_lock(&st->pool_lock);
	if (st->npool < DECBUF_POOL) {
		st->pool[st->npool++] = d;
		d = NULL;
	}
	pthread_mutex_unlock(&st->pool_lock);
	free(d);
}

/* A reader's position in one CPU stream, with its own decoded copy. */
struct cursor {
	uint64_t	bfirst;		/* seq of buffer index 0 */
	uint32_t	pos, end;	/* valid buffer indices [pos, end) */
	uint64_t	next;		/* seq of the next event to return */
	bool		off;		/* excluded, or past the window */
	struct decbuf	*d;
};

/* Refill @cu from @next. Return: true when events are available. */
static bool cursor_load(const struct stream *sm, struct cursor *cu, unsigned int mask)
{
	uint64_t pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	uint64_t seq = cu->next;
	struct chunk *c;

	if (seq >= pub)
		return false;
	if (!cu->d) {
		cu->d = decbuf_get(sm->st);
		if (!cu->d)
			return false;
	}
	c = stream_ref(sm, &seq, true);
	if (!c)
		return false;
	/*
	 * @seq was evicted meanwhile and moved on to the oldest chunk held, which
	 * may start past the end published when @pub was read: nothing to read
	 * in this snapshot yet (and pub - first_seq would wrap).
	 */
	if (seq >= pub) {
		chunk_put(c);
		return false;
	}
	cu->bfirst = c->first_seq;
	cu->pos = seq - c->first_seq;
	if (c->raw) {
		uint32_t a0, a1, end = pub - c->first_seq;
		const struct raw *r = c->raw;

		a0 = r->row[cu->pos].aoff;
		a1 = r->row[end - 1].aoff + r->row[end - 1].nargs;
		memcpy(&cu->d->r.row[cu->pos], &r->row[cu->pos],
		       (end - cu->pos) * sizeof(r->row[0]));
		memcpy(&cu->d->r.args[a0], &r->args[a0], (a1 - a0) * sizeof(r->args[0]));
		cu->end = end;
	} else {
		chunk_decode(c, cu->d, mask);
		cu->end = c->n;
		if (cu->bfirst + cu->end > pub)
			cu->end = pub - cu->bfirst;
	}
	cu->next = seq;
	chunk_put(c);
	return cu->pos < cu->end;
}

static inline bool cursor_ready(const struct stream *sm, struct cursor *cu, unsigned int mask)
{
	return cu->pos < cu->end || cursor_load(sm, cu, mask);
}

static inline void cursor_advance(struct cursor *cu)
{
	cu->pos++;
	cu->next++;
}

struct store_iter {
	const struct store	*st;
	uint64_t		t0, t1;
	struct cursor		cu[];
};

struct store_iter *store_iter_new(const struct store *st, uint64_t t0, uint64_t t1,
				  const uint64_t *cpus)
{
	struct store_iter *it;

	it = calloc(1, sizeof(*it) + st->ncpus * sizeof(it->cu[0]));
	if (!it)
		return NULL;
	it->st = st;
	it->t0 = t0;
	it->t1 = t1;
	for (unsigned int i = 0; i < st->ncpus; i++) {
		if (cpus && !(cpus[i / 64] & (1ull << (i % 64))))
			it->cu[i].off = true;
		else
			it->cu[i].next = store_seek(st, i, t0);
	}
	return it;
}

bool store_iter_next(struct store_iter *it, struct ktop_event *out, uint64_t *seq)
{
	const struct store *st = it->st;
	struct cursor *best = NULL;
	uint64_t best_ts = UINT64_MAX;
	unsigned int best_cpu = 0;

	for (unsigned int i = 0; i < st->ncpus; i++) {
		struct cursor *cu = &it->cu[i];
		uint64_t t;

		if (cu->off || !cursor_ready(&st->sm[i], cu, DEC_ALL))
			continue;
		t = cu->d->r.row[cu->pos].ts;
		if (t < it->t0) {
			/* evicted under us and clamped: skip to the window */
			while (cursor_ready(&st->sm[i], cu, DEC_ALL) &&
			       cu->d->r.row[cu->pos].ts < it->t0)
				cursor_advance(cu);
			if (cu->pos >= cu->end)
				continue;
			t = cu->d->r.row[cu->pos].ts;
		}
		if (t > it->t1) {
			cu->off = true;
			continue;
		}
		if (!best || t < best_ts) {
			best = cu;
			best_ts = t;
			best_cpu = i;
		}
	}
	if (!best)
		return false;
	raw_to_event(&best->d->r, best->pos, best_cpu, out);
	if (seq)
		*seq = best->next;
	cursor_advance(best);
	return true;
}

void store_iter_free(struct store_iter *it)
{
	if (!it)
		return;
	for (unsigned int i = 0; i < it->st->ncpus; i++)
		decbuf_put(it->st, it->cu[i].d);
	free(it);
}


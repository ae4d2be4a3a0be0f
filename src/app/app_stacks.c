// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The app's stacks: which events carry them, the names of their frames, and
 * the BPF off-CPU stacks (app.h, "stacks").
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "app.h"
#include "bpfstats/bpf_offcpu.h"
#include "ingest/decode.h"
#include "kernel/session.h"
#include "source/source_live.h"
#include "kernel/stacksym.h"
#include "store/store.h"

/* The off-CPU object is polled by whoever prints or saves: one at a time. */
static pthread_mutex_t offcpu_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Which events carry stacks (the decoders hold such an event back at the end
 * of a page until its stack came, and keep only the parts asked: the
 * kernel's options/userstacktrace gives every event a user stack), and the
 * names of the frames (kallsyms; /proc/PID/maps and ELF symbols for user
 * frames, captured when a process's first user stack is seen).
 */
int app_stacks_start(struct app *a, struct decode_ctx *dc, struct symbols *syms, char *err,
		     size_t errlen)
{
	const struct session_opts *so = &a->opts.so;

	for (unsigned int i = 0; i < so->nstacks; i++)
		decode_ctx_want_stacks(dc, so->stacks[i].spec, so->stacks[i].parts);
	if (so->nstacks)
		decode_ctx_stack_filter(dc, true);
	a->ssyms = stack_syms_new(a->st, syms, true);
	if (!a->ssyms) {
		snprintf(err, errlen, "out of memory (stack symbols)");
		return -ENOMEM;
	}
	return 0;
}

/*
 * The readers stop while the decoders learn that @spec's events carry stacks
 * (they read the flag without a lock), then start again: what the buffers
 * hold meanwhile waits there, as when the latency tracer is switched.
 */
int app_stacks_add(struct app *a, const char *spec, unsigned int parts, char *note,
		   size_t notelen, char *err, size_t errlen)
{
	struct stacktrig_req req = { .spec = spec, .parts = parts };
	struct live_src *ls = live_src(a);
	int ret, r2;

	note[0] = err[0] = '\0';
	if (!ls || !ls->sess || !ls->cons) {
		snprintf(err, errlen, "stack traces need a live session: this is a recording "
			 "(record one with --stack %s)", spec);
		return -ENODEV;
	}
	app_readers_stop(a);
	ret = session_stack_add(ls->sess, &req, 1, note, notelen, err, errlen);
	if (!ret) {
		decode_ctx_want_stacks(ls->dc, spec, parts);
		decode_ctx_stack_filter(ls->dc, true);
	}
	r2 = app_readers_start(a, err, errlen);
	return r2 ? r2 : ret;
}

void app_stacks_stop(struct app *a)
{
	stack_syms_free(a->ssyms);
	a->ssyms = NULL;
}

void app_offcpu_start(struct app *a, struct symbols *syms)
{
	struct bpf_offcpu_opts o = {
		.ksyms = syms, .pids = a->opts.so.pids, .npids = a->opts.so.npids,
	};

	if (!a->opts.offcpu)
		return;
	if (bpf_offcpu_open(&a->offcpu, &o, a->offcpu_why, sizeof(a->offcpu_why)))
		a->offcpu = NULL;
}

struct bpf_offcpu *app_offcpu(const struct app *a)
{
	return a->offcpu;
}

const char *app_offcpu_why(const struct app *a)
{
	return a->offcpu_why;
}

void app_offcpu_stop(struct app *a)
{
	pthread_mutex_lock(&offcpu_lock);
	bpf_offcpu_destroy(a->offcpu);
	a->offcpu = NULL;
	pthread_mutex_unlock(&offcpu_lock);
}

int app_offcpu_poll(struct app *a)
{
	int ret = -ENODEV;

	pthread_mutex_lock(&offcpu_lock);
	if (a->offcpu && a->st)
		ret = bpf_offcpu_poll(a->offcpu, a->st, NULL);
	pthread_mutex_unlock(&offcpu_lock);
	return ret;
}

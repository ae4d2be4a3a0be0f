// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live source's stacks (source.h: struct source_stacks_ops; app.h says
 * what each action does): which events carry them, the names of their
 * frames, stacks turned on while tracing, and the BPF off-CPU stacks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "bpfstats/bpf_offcpu.h"
#include "ingest/decode.h"
#include "kernel/session.h"
#include "kernel/stacksym.h"
#include "live-local.h"
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
int live_stacks_start(struct live_src *ls, char *err, size_t errlen)
{
	const struct session_opts *so = &ls->so;

	for (unsigned int i = 0; i < so->nstacks; i++)
		decode_ctx_want_stacks(ls->dc, so->stacks[i].spec, so->stacks[i].parts);
	if (so->nstacks)
		decode_ctx_stack_filter(ls->dc, true);
	ls->ssyms = stack_syms_new(ls->st, ls->syms, true);
	if (!ls->ssyms) {
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
static int stacks_add(struct source *s, const char *spec, unsigned int parts, char *note,
		      size_t notelen, char *err, size_t errlen)
{
	struct stacktrig_req req = { .spec = spec, .parts = parts };
	struct live_src *ls = LS(s);
	int ret, r2;

	note[0] = err[0] = '\0';
	if (!ls->sess || !ls->cons)
		return -ENODEV;		/* app.h says why */
	live_readers_stop(ls);
	ret = session_stack_add(ls->sess, &req, 1, note, notelen, err, errlen);
	if (!ret) {
		decode_ctx_want_stacks(ls->dc, spec, parts);
		decode_ctx_stack_filter(ls->dc, true);
	}
	r2 = live_readers_start(ls, err, errlen);
	return r2 ? r2 : ret;
}

void live_stacks_stop(struct live_src *ls)
{
	stack_syms_free(ls->ssyms);
	ls->ssyms = NULL;
}

void live_offcpu_start(struct live_src *ls)
{
	struct bpf_offcpu_opts o = {
		.ksyms = ls->syms, .pids = ls->so.pids, .npids = ls->so.npids,
	};

	if (!ls->args.offcpu)
		return;
	if (bpf_offcpu_open(&ls->offcpu, &o, ls->offcpu_why, sizeof(ls->offcpu_why)))
		ls->offcpu = NULL;
}

void live_offcpu_stop(struct live_src *ls)
{
	pthread_mutex_lock(&offcpu_lock);
	bpf_offcpu_destroy(ls->offcpu);
	ls->offcpu = NULL;
	pthread_mutex_unlock(&offcpu_lock);
}

static struct bpf_offcpu *stacks_offcpu(const struct source *s, const char **why)
{
	if (why)
		*why = LS(s)->offcpu_why;
	return LS(s)->offcpu;
}

static int stacks_offcpu_poll(struct source *s)
{
	struct live_src *ls = LS(s);
	int ret = -ENODEV;

	pthread_mutex_lock(&offcpu_lock);
	if (ls->offcpu && ls->st)
		ret = bpf_offcpu_poll(ls->offcpu, ls->st, NULL);
	pthread_mutex_unlock(&offcpu_lock);
	return ret;
}

const struct source_stacks_ops live_stacks_ops = {
	.add		= stacks_add,
	.offcpu		= stacks_offcpu,
	.offcpu_poll	= stacks_offcpu_poll,
};

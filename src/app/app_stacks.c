// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stacks while tracing and the BPF off-CPU stacks (app.h, "stacks"): the
 * source's stacks facility (src/source/source.h: the live source's
 * live_stacks.c), refused where the source has none (a recording).
 */
#include <errno.h>
#include <stdio.h>

#include "app.h"
#include "source/source.h"

static const struct source_stacks_ops *stacks_ops(const struct app *a)
{
	return a->src ? a->src->ops->stacks : NULL;
}

int app_stacks_add(struct app *a, const char *spec, unsigned int parts, char *note,
		   size_t notelen, char *err, size_t errlen)
{
	const struct source_stacks_ops *ops = stacks_ops(a);
	int ret;

	note[0] = err[0] = '\0';
	ret = ops ? ops->add(a->src, spec, parts, note, notelen, err, errlen) : -ENODEV;
	if (ret == -ENODEV && !err[0])
		snprintf(err, errlen, "stack traces need a live session: this is a recording "
			 "(record one with --stack %s)", spec);
	return ret;
}

struct bpf_offcpu *app_offcpu(const struct app *a)
{
	const struct source_stacks_ops *ops = stacks_ops(a);

	return ops ? ops->offcpu(a->src, NULL) : NULL;
}

const char *app_offcpu_why(const struct app *a)
{
	const struct source_stacks_ops *ops = stacks_ops(a);
	const char *why = "";

	if (ops)
		ops->offcpu(a->src, &why);
	return why;
}

int app_offcpu_poll(struct app *a)
{
	const struct source_stacks_ops *ops = stacks_ops(a);

	return ops ? ops->offcpu_poll(a->src) : -ENODEV;
}

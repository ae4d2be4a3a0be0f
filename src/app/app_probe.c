// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes while tracing: the probe prompt's actions (app.h). The source's
 * probe facility does them (src/source/source.h: the live source's
 * live_probe.c); where the source has none (a recording, a stream) each
 * refuses with -ENODEV and app_probe_why() says why.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "lib/err.h"
#include "source/source.h"

static const struct source_probe_ops *probe_ops(const struct app *a)
{
	return a->src ? a->src->ops->probe : NULL;
}

const char *app_probe_why(struct app *a)
{
	const struct source_probe_ops *ops = probe_ops(a);

	if (ops)
		return ops->why(a->src);
	if (a->opts.input && strcmp(a->opts.input, "-"))
		snprintf(a->probe_why, sizeof(a->probe_why), "viewing a recording (%s): there is "
			 "no kernel to probe; probes need ktop tracing live", a->opts.input);
	else
		snprintf(a->probe_why, sizeof(a->probe_why), "viewing a %s: there is no kernel to "
			 "probe here; probes need ktop tracing live",
			 a->opts.input ? "stream" : "recording");
	return a->probe_why;
}

const char *app_probe_group(const struct app *a)
{
	const struct source_probe_ops *ops = probe_ops(a);

	return ops ? ops->group(a->src) : "";
}

const struct probe_caps *app_probe_caps(struct app *a)
{
	const struct source_probe_ops *ops = probe_ops(a);

	return ops ? ops->caps(a->src) : NULL;
}

int app_probe_preview(struct app *a, const char *spec, struct probe_def *def, char *err,
		      size_t errlen)
{
	const struct source_probe_ops *ops = probe_ops(a);

	if (!ops)
		return err_set(err, errlen, -ENODEV, "%s", app_probe_why(a));
	return ops->preview(a->src, spec, def, err, errlen);
}

int app_probe_proto(struct app *a, const char *func, char *buf, size_t len)
{
	const struct source_probe_ops *ops = probe_ops(a);

	return ops ? ops->proto(a->src, func, buf, len) : -ENODEV;
}

int app_probe_complete(struct app *a, const char *text, size_t cursor, char **out, size_t max,
		       size_t *start)
{
	const struct source_probe_ops *ops = probe_ops(a);

	*start = cursor;
	return ops ? ops->complete(a->src, text, cursor, out, max, start) : 0;
}

int app_probe_add(struct app *a, const char *spec, struct probe_def *def, char *err,
		  size_t errlen)
{
	const struct source_probe_ops *ops = probe_ops(a);

	err[0] = '\0';
	if (!ops)
		return err_set(err, errlen, -ENODEV, "%s", app_probe_why(a));
	return ops->add(a->src, spec, def, err, errlen);
}

int app_probe_remove(struct app *a, const char *event, char *err, size_t errlen)
{
	const struct source_probe_ops *ops = probe_ops(a);

	if (!ops)
		return err_set(err, errlen, -ENODEV, "%s", app_probe_why(a));
	return ops->remove(a->src, event, err, errlen);
}

int app_probe_enable(struct app *a, const char *event, bool on, char *err, size_t errlen)
{
	const struct source_probe_ops *ops = probe_ops(a);

	if (!ops)
		return err_set(err, errlen, -ENODEV, "%s", app_probe_why(a));
	return ops->enable(a->src, event, on, err, errlen);
}

unsigned int app_probe_list(struct app *a, struct probe_info *out, unsigned int max)
{
	const struct source_probe_ops *ops = probe_ops(a);

	return ops ? ops->list(a->src, out, max) : 0;
}

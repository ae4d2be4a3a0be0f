// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The app's in-kernel aggregations (app.h, "agg"): the set of --latency,
 * --hist and --sql measures on the live kernel, made before the session
 * opens, all or none, so a refused spec leaves the kernel as it was; and,
 * for a recording, the results its AGG blocks carry.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agg/agg.h"
#include "app.h"
#include "kernel/features.h"
#include "kernel/session.h"
#include "lib/err.h"
#include "source/source.h"

static const char *const kind_opt[] = {
	[APP_AGG_LATENCY] = "--latency", [APP_AGG_HIST] = "--hist", [APP_AGG_SQL] = "--sql",
};

/* The results a recording carries (the source's recorded_agg), else NULL. */
static struct agg_set *agg_recorded(const struct app *a)
{
	return a->src && a->src->ops->recorded_agg ? a->src->ops->recorded_agg(a->src) : NULL;
}

struct agg_set *app_agg(const struct app *a)
{
	return a->agg ? a->agg : agg_recorded(a);
}

const char *app_agg_why(const struct app *a)
{
	if (a->agg)
		return agg_set_engine_why(a->agg);
	if (agg_recorded(a))
		return "measured where the recording was made";
	return a->agg_why[0] ? a->agg_why : "no --latency, --hist or --sql";
}

/* The set, made on first use: the engines this kernel offers. */
static int agg_make(struct app *a, char *err, size_t errlen)
{
	struct agg_opts o = {
		.tracefs = a->ft.tracefs,
		.engine = a->opts.agg_engine,
		.clock = "mono",
		.has_hist = a->ft.f[FEATURE_HIST].state == FEAT_AVAILABLE,
		.has_bpf = !a->opts.no_bpf && a->ft.f[FEATURE_BPF].state == FEAT_AVAILABLE &&
			   a->ft.f[FEATURE_BTF].state == FEAT_AVAILABLE,
	};
	int ret;

	if (a->agg)
		return 0;
	if (a->opts.no_bpf)
		o.no_bpf_why = "--no-bpf";
	else if (a->ft.f[FEATURE_BPF].state != FEAT_AVAILABLE)
		o.no_bpf_why = a->ft.f[FEATURE_BPF].detail;
	else if (a->ft.f[FEATURE_BTF].state != FEAT_AVAILABLE)
		o.no_bpf_why = "no kernel BTF (/sys/kernel/btf/vmlinux)";
	ret = agg_set_new(&a->agg, &o, err, errlen);
	if (ret)
		return ret;
	/* from the first trigger on, a crash removes them too */
	session_set_emergency_hook(agg_emergency);
	return 0;
}

int app_agg_start(struct app *a, char *err, size_t errlen)
{
	char msg[2048];
	int ret;

	/* what a SIGKILLed ktop left: its instance ktop-agg-<pid>, its synthetic events */
	agg_reap_stale(a->ft.tracefs, session_ktop_alive);
	if (!a->opts.naggs)
		return 0;
	ret = agg_make(a, err, errlen);
	for (unsigned int i = 0; !ret && i < a->opts.naggs; i++) {
		unsigned int k = a->opts.agg_kind[i];

		ret = agg_set_add(a->agg, k == APP_AGG_HIST ? AGG_HIST : AGG_LATENCY,
				  k == APP_AGG_SQL, a->opts.aggs[i], msg, sizeof(msg));
		if (ret < 0) {
			err_set(err, errlen, ret, "%s '%s': %s", kind_opt[k], a->opts.aggs[i], msg);
		} else {
			a->agg_idx[i] = ret;
			ret = 0;
		}
	}
	if (!ret)
		ret = agg_set_start(a->agg);
	if (ret) {
		agg_set_free(a->agg);
		a->agg = NULL;
	}
	return ret;
}

void app_agg_stop(struct app *a)
{
	agg_set_free(a->agg);
	a->agg = NULL;
}

int app_agg_add(struct app *a, enum app_agg_kind kind, const char *text, char *err,
		size_t errlen)
{
	int ret;

	if (!(app_flags(a) & SOURCE_KERNEL))
		return err_set(err, errlen, -ENODEV, "a recording: there is no kernel to measure "
			       "in (--latency works on a live session)");
	ret = agg_make(a, err, errlen);
	if (ret)
		return ret;
	ret = agg_set_add(a->agg, kind == APP_AGG_HIST ? AGG_HIST : AGG_LATENCY,
			  kind == APP_AGG_SQL, text, err, errlen);
	if (ret >= 0)
		agg_set_start(a->agg);
	return ret;
}

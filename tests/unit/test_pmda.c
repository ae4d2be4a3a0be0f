// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop --pmda's metric table and figures (src/pcp/pmda_table.c, pmda_figs.c),
 * without PCP: the table's names and PMIDs are unique and form a valid
 * namespace, PCP's files are written from it; the figures of recorded
 * fixtures equal what a plain walk over the same store counts (events per
 * CPU and per name, the top tasks; timerlat's samples and maxima per CPU and
 * context, its histograms' totals).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "snap_common.h"
#include "app/app.h"
#include "app/opts.h"
#include "pcp/pmda-local.h"
#include "pcp/pmda.h"
#include "pcp/pmda_figs.h"
#include "store/schema.h"
#include "store/store.h"

#ifdef KTOP_HAVE_PCP
TEST(table_names_and_pmids_are_unique_and_a_valid_namespace)
{
	for (unsigned int i = 0; i < pmda_nmetrics; i++) {
		const struct pmda_metric_def *m = &pmda_metrics[i];
		size_t len = strlen(m->name);

		CHECK(m->oneline && *m->oneline && m->help && *m->help);
		CHECK(m->indom >= PMDA_INDOM_NONE && m->indom < PMDA_INDOM_NR);
		for (unsigned int j = 0; j < pmda_nmetrics; j++) {
			if (j == i)
				continue;
			CHECK(strcmp(m->name, pmda_metrics[j].name));
			CHECK(m->cluster != pmda_metrics[j].cluster ||
			      m->item != pmda_metrics[j].item);
			/* a leaf cannot also be a node: "a.b" and "a.b.c" */
			CHECK(strncmp(pmda_metrics[j].name, m->name, len) ||
			      pmda_metrics[j].name[len] != '.');
		}
	}
	for (int s = 0; s < PMDA_INDOM_NR; s++)
		CHECK(pmda_indoms[s].oneline && *pmda_indoms[s].help);
}

TEST(pcp_files_hold_every_metric)
{
	char dir[] = "/tmp/ktop-test-pmda.XXXXXX", path[256], err[256], *pmns, *help;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(pmda_write_files(dir, err, sizeof(err)) == 0);
	snprintf(path, sizeof(path), "%s/pmns", dir);
	pmns = fixture_read_file(path, NULL);
	snprintf(path, sizeof(path), "%s/help", dir);
	help = fixture_read_file(path, NULL);
	CHECK(pmns && help);
	for (unsigned int i = 0; pmns && help && i < pmda_nmetrics; i++) {
		const struct pmda_metric_def *m = &pmda_metrics[i];
		const char *leaf = strrchr(m->name, '.');
		char want[160];

		snprintf(want, sizeof(want), "\t%s\t\tKTOP:%u:%u\n", leaf ? leaf + 1 : m->name,
			 m->cluster, m->item);
		CHECK(strstr(pmns, want) != NULL);
		snprintf(want, sizeof(want), "@ ktop.%s %s\n", m->name, m->oneline);
		CHECK(strstr(help, want) != NULL);
	}
	snprintf(path, sizeof(path), "%s/domain.h", dir);
	free(pmns);
	pmns = fixture_read_file(path, NULL);
	snprintf(path, sizeof(path), "#define KTOP %d\n", PMDA_KTOP_DOMAIN);
	CHECK(pmns && strstr(pmns, path));
	free(pmns);
	free(help);
	test_rm_rf(dir);
}
#endif

static void app_of(struct app *a, struct store *st, const char *tracer)
{
	memset(a, 0, sizeof(*a));
	opts_defaults(&a->opts);
	a->wake_fd = -1;
	a->st = st;
	a->opts.so.tracer = tracer;
}

static const char *type_name(struct store *st, uint16_t id, char *buf, size_t len)
{
	const struct ktop_schema_type *t = schema_get(store_schema(st), id);

	snprintf(buf, len, "%s:%s", t && t->system ? t->system : "", t ? t->name : "?");
	return buf;
}

TEST(figures_of_a_recording_equal_a_walk_over_its_store)
{
	struct store *st = snap_fixture_store("host-sched", NULL);
	uint64_t per_cpu[64] = { 0 }, total = 0, named = 0;
	const struct pmda_named *v;
	const struct pmda_task *t;
	struct pmda_totals tot;
	struct pmda_figs *f;
	struct ktop_event ev;
	struct store_iter *it;
	struct app a;
	char name[128];
	size_t n;

	CHECK(st != NULL);
	if (!st)
		return;
	app_of(&a, st, "nop");
	f = pmda_figs_new(&a);
	CHECK(f != NULL);
	pmda_figs_update(f, 1000000000ull);
	CHECK_EQ_U64(pmda_figs_updates(f), 1);
	CHECK(pmda_figs_ncpus(f) == store_ncpus(st));
	it = store_iter_new(st, 0, UINT64_MAX, NULL);
	while (it && store_iter_next(it, &ev, NULL)) {
		if (ev.cpu < 64)
			per_cpu[ev.cpu]++;
		total++;
	}
	store_iter_free(it);
	for (unsigned int c = 0; c < pmda_figs_ncpus(f); c++)
		CHECK_EQ_U64(pmda_figs_cpu(f, c)->events, per_cpu[c]);
	pmda_figs_totals(f, &tot);
	CHECK_EQ_U64(tot.events, total);
	/* by name: each type's count is its events in the store */
	n = pmda_figs_list(f, PMDA_LIST_EVENTS, &v);
	CHECK(n > 3);
	for (size_t i = 0; i < n; i++) {
		uint64_t want = 0;

		it = store_iter_new(st, 0, UINT64_MAX, NULL);
		while (it && store_iter_next(it, &ev, NULL))
			want += !strcmp(type_name(st, ev.type, name, sizeof(name)), v[i].name);
		store_iter_free(it);
		CHECK_EQ_U64(v[i].count, want);
		named += v[i].count;
	}
	CHECK_EQ_U64(named, total);
	/* the top tasks: by events, descending, each a task of the store */
	n = pmda_figs_tasks(f, &t);
	CHECK(n > 0 && n <= PMDA_TOP_TASKS);
	for (size_t i = 1; i < n; i++)
		CHECK(t[i - 1].events >= t[i].events);
	/* a second update with nothing new changes no counter */
	n = pmda_figs_list(f, PMDA_LIST_EVENTS, &v);
	pmda_figs_update(f, 2000000000ull);
	pmda_figs_totals(f, &tot);
	CHECK_EQ_U64(tot.events, total);
	CHECK_EQ_U64(pmda_figs_list(f, PMDA_LIST_EVENTS, &v), n);
	for (size_t i = 0, sum = 0; i < n; i++) {
		sum += v[i].count;
		if (i == n - 1)
			CHECK_EQ_U64(sum, total);
	}
	pmda_figs_free(f);
	store_free(st);
}

TEST(timerlat_figures_of_the_rt_fixture)
{
	struct store *st = snap_fixture_store("rt-timerlat", NULL);
	uint64_t count[2][2] = { { 0 } }, max[2][2] = { { 0 } };
	uint64_t hist[PMDA_HIST_BUCKETS], hsum;
	struct ktop_event ev;
	struct store_iter *it;
	struct pmda_figs *f;
	struct app a;

	CHECK(st != NULL);
	if (!st)
		return;
	it = store_iter_new(st, 0, UINT64_MAX, NULL);
	while (it && store_iter_next(it, &ev, NULL)) {
		if (ev.type != KTOP_T_TIMERLAT || ev.cpu > 1 || ev.args[1] > 1)
			continue;
		count[ev.cpu][ev.args[1]]++;
		if (ev.args[2] > max[ev.cpu][ev.args[1]])
			max[ev.cpu][ev.args[1]] = ev.args[2];
	}
	store_iter_free(it);
	CHECK(count[0][0] > 10 && count[1][1] > 10);
	app_of(&a, st, "timerlat");
	f = pmda_figs_new(&a);
	CHECK(f && pmda_figs_has_latency(f));
	pmda_figs_update(f, 1000000000ull);
	for (unsigned int c = 0; c < 2; c++) {
		const struct pmda_cpu *pc = pmda_figs_cpu(f, c);

		CHECK(pc->lat_seen);
		for (int ctx = 0; ctx < 2; ctx++) {
			CHECK_EQ_U64(pc->lat_count[ctx], count[c][ctx]);
			CHECK_EQ_U64(pc->lat_max[ctx], max[c][ctx]);
		}
	}
	/* the all-CPU histogram holds every sample of its context once */
	for (int ctx = 0; ctx < 2; ctx++) {
		CHECK(pmda_figs_hist(f, ctx, hist));
		hsum = 0;
		for (int b = 0; b < PMDA_HIST_BUCKETS; b++)
			hsum += hist[b];
		CHECK_EQ_U64(hsum, count[0][ctx] + count[1][ctx]);
	}
	CHECK(!pmda_figs_hist(f, -1, hist));	/* no BPF in a recording */
	pmda_figs_free(f);
	store_free(st);
}

TEST(histogram_instances_are_named_as_pmdabpf_names_them)
{
	char buf[64];

	pmda_hist_name(0, buf, sizeof(buf));
	CHECK_STR(buf, "0-1");
	pmda_hist_name(1, buf, sizeof(buf));
	CHECK_STR(buf, "2-3");
	pmda_hist_name(10, buf, sizeof(buf));
	CHECK_STR(buf, "1024-2047");
}

TEST_MAIN()

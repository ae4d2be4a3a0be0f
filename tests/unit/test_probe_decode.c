// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe events through the decoder's fast path, on tests/fixtures/host-uprobe
 * (uprobes and uretprobes of build/tools/probe_target, recorded on this
 * host, see tests/fixtures/README): their fields keep their names, and the
 * kinds the definitions give (decode_ctx_set_kinds) decide how they read:
 * x64 as hex, s32 signed, an address as a symbol. Every value is compared
 * with libtraceevent's reading of the same record, and the strings with
 * the calls probe_target made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "test.h"

struct run {
	struct tep_handle	*tep;
	struct decoder		*d;
	struct store		*st;
	uint64_t		seq;	/* the store's events of this CPU, in ring order */
	int			n_word, n_ret, n_name, n_x, bad;
};

static const char *group_of(struct fixture *fx)
{
	return fixture_meta(fx, "events");	/* "ktop_<pid>": the one group recorded */
}

static uint64_t tep_val(struct tep_handle *tep, void *data, int size, const char *name)
{
	struct tep_record rec = { .data = data, .size = size };
	struct tep_event *ev = tep_find_event_by_record(tep, &rec);
	unsigned long long v = 0;

	if (!ev || tep_get_field_val(NULL, ev, name, &rec, &v, 0))
		return UINT64_MAX;
	return v;
}

static int one(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct run *r = arg;
	struct ktop_event ev;
	const struct ktop_schema_type *t;
	struct intern *in = store_strings(r->st);
	char want[64];

	/* decoded by decoder_page(), the live path (its loads may read past a record) */
	if (store_get(r->st, cpu, r->seq++, &ev)) {
		r->bad++;
		return 0;
	}
	t = schema_get(store_schema(r->st), ev.type);
	if (!t) {
		r->bad++;
		return 0;
	}
	if (!strcmp(t->name, "x")) {
		/* __probe_ip as a symbol: a user address is no kernel symbol, so its hex */
		snprintf(want, sizeof(want), "0x%llx",
			 (unsigned long long)tep_val(r->tep, data, size, "__probe_ip"));
		if (t->fields[0].kind != KTOP_FK_SYM || strcmp(intern_str(in, ev.args[0]), want) ||
		    t->fields[1].kind != KTOP_FK_HEX ||
		    ev.args[1] != tep_val(r->tep, data, size, "arg2") || ev.args[1] != (uint64_t)r->n_x) {
			printf("# x #%d: kinds %d %d, %s / %s, arg2 %llu\n", r->n_x,
			       t->fields[0].kind, t->fields[1].kind, intern_str(in, ev.args[0]), want,
			       (unsigned long long)ev.args[1]);
			r->bad++;
		}
		r->n_x++;
	} else if (!strcmp(t->name, "ktop_probe_word")) {
		snprintf(want, sizeof(want), "word-%d", r->n_word);
		if (strcmp(t->fields[1].name, "arg1") || strcmp(intern_str(in, ev.args[1]), want) ||
		    strcmp(t->fields[2].name, "n") || t->fields[2].kind != KTOP_FK_INT ||
		    (int64_t)ev.args[2] != r->n_word || t->fields[0].kind != KTOP_FK_HEX) {
			printf("# word #%d: %s=%s %s=%lld\n", r->n_word, t->fields[1].name,
			       intern_str(in, ev.args[1]), t->fields[2].name, (long long)ev.args[2]);
			r->bad++;
		}
		r->n_word++;
	} else if (!strcmp(t->name, "ktop_probe_word__return")) {
		snprintf(want, sizeof(want), "word-%d", r->n_ret);
		if (strcmp(t->fields[2].name, "retval") ||
		    (int64_t)ev.args[2] != (int64_t)strlen(want) * 1000 + r->n_ret) {
			printf("# return #%d: %lld\n", r->n_ret, (long long)ev.args[2]);
			r->bad++;
		}
		r->n_ret++;
	} else if (!strcmp(t->name, "name")) {
		snprintf(want, sizeof(want), "name-%d", r->n_name);
		if (strcmp(intern_str(in, ev.args[2]), want)) {
			printf("# name #%d: %s\n", r->n_name, intern_str(in, ev.args[2]));
			r->bad++;
		}
		r->n_name++;
	}
	return 0;
}

static int run_fixture(bool hints, struct run *r)
{
	char dir[512];
	struct fixture *fx;
	struct decode_ctx *dc;
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s/host-uprobe", fixture_root());
	fx = fixture_open(dir);
	if (!fx)
		return -ENOENT;
	memset(r, 0, sizeof(*r));
	r->tep = fixture_tep(fx);
	r->st = store_new(0, fixture_ncpus(fx));
	dc = decode_ctx_new(r->tep, r->st, NULL);
	if (hints) {
		static const struct ktop_field x[] = {
			{ "__probe_ip", KTOP_FK_SYM }, { "arg2", KTOP_FK_HEX },
		};
		static const struct ktop_field w[] = {
			{ "__probe_ip", KTOP_FK_HEX }, { "arg1", KTOP_FK_STR }, { "n", KTOP_FK_INT },
		};

		if (decode_ctx_set_kinds(dc, group_of(fx), "x", x, 2) != 2 ||
		    decode_ctx_set_kinds(dc, group_of(fx), "ktop_probe_word", w, 3) != 2 ||
		    decode_ctx_set_kinds(dc, group_of(fx), "nosuch", w, 3) != -ENOENT)
			ret = -EINVAL;
	}
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx) && !ret; cpu++) {
		r->d = decoder_new(dc, cpu);
		for (size_t i = 0; i < fixture_npages(fx, cpu); i++)
			if (decoder_page(r->d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL) < 0)
				r->bad++;
		r->seq = 0;
		fixture_for_each_record(fx, cpu, one, r);
		decoder_free(r->d);
	}
	decode_ctx_free(dc);
	store_free(r->st);
	fixture_close(fx);
	return ret;
}

TEST(probe_fields_by_name_and_kind)
{
	struct run r;

	CHECK(run_fixture(true, &r) == 0);
	CHECK_EQ_U64(r.bad, 0);
	CHECK_EQ_U64(r.n_word, 5);
	CHECK_EQ_U64(r.n_ret, 5);
	CHECK_EQ_U64(r.n_name, 5);
	CHECK_EQ_U64(r.n_x, 5);
}

/* Without the definitions' kinds: the format's (x64 is a u64 there), as before. */
TEST(probe_fields_without_kinds)
{
	struct run r;

	CHECK(run_fixture(false, &r) == 0);
	CHECK(r.bad == 10);	/* "x": UINT, UINT; ktop_probe_word: __probe_ip UINT */
	CHECK_EQ_U64(r.n_word + r.n_ret + r.n_name, 15);
}

TEST_MAIN()

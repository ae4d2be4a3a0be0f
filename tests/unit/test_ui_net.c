// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Net pane (ui/panes/pane_net.c, issue 25) drawn on the text screen
 * (text_screen.c) from the host-net recording (tests/fixtures/host-net,
 * written as a .ktop and opened as ktop -i opens it). Every expectation
 * comes from the recording itself: netload's own account (workload.out:
 * pids, ports, bytes) and the kernel's text of the same records
 * (trace.txt). Line by line:
 *
 *   - each transfer's client and server rows: pid, comm, both ends (IPv4 and
 *     IPv6), CLOSE, the bytes each way in SENT and RECV, the nftables
 *     transfer's retransmits (as many as the text's tcp_retransmit_skb
 *     lines of its ports); the header's count of rows;
 *   - the selected row's two lines: its transitions up to CLOSE, its exact
 *     bytes;
 *   - F6 to bytes sent: the rows' SENT column in descending order, I the
 *     other way;
 *   - c hides the closed rows (all of this recording's);
 *   - d, the drops table: each reason's count and location as the text's
 *     kfree_skb lines have them, the header's total.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"

#include "app/app.h"
#include "formats/format.h"
#include "ingest/fixture.h"
#include "kernel/symbols.h"
#include "store/meta.h"
#include "store/store.h"
#include "ui-local.h"
#include "snap_common.h"
#include "text_screen.h"

static char tmpdir[] = "/tmp/ktop-test-ui-net-XXXXXX";
static char ktop_path[600];

/* ---- the recording --------------------------------------------------------------- */

static char *fixture_text(const char *name, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", fixture_root(), name, file);
	return fixture_read_file(path, NULL);
}

/* One transfer of workload.out: "client PID PORT server PID PORT sent N received M". */
struct xfer {
	int		cpid, spid;
	unsigned int	cport, sport;
	unsigned long long sent, recvd;
	bool		v6;		/* the second transfer of host-net's record.sh */
	bool		nft;		/* through the nftables rule */
};

static size_t transfers(const char *work, struct xfer *out, size_t max)
{
	size_t n = 0, ntcp = 0;
	bool nft = false;

	for (const char *l = work; l && *l && n < max; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		struct xfer x = { 0 };

		if (!strncmp(l, "nft-drop ", 9))
			nft = true;
		if (sscanf(l, "client %d %u server %d %u sent %llu received %llu", &x.cpid, &x.cport,
			   &x.spid, &x.sport, &x.sent, &x.recvd) != 6)
			continue;
		x.v6 = ++ntcp == 2;
		x.nft = nft;
		out[n++] = x;
	}
	return n;
}

/* ---- the pane on a text screen ----------------------------------------------------- */

static int fake_events_request(struct ui *ui, struct pane *p, const struct ui_req *r)
{
	(void)ui;
	(void)p;
	(void)r;
	return 0;
}

static const struct pane_ops fake_events_ops = {
	.name = "events", .label = "Events", .request = fake_events_request,
};

struct rig {
	struct app	app;
	struct ui	ui;
	struct pane	*p;
};

static bool rig_open(struct rig *r, const char *path)
{
	static const struct pane_ops *const panes[] = { &pane_net_ops, &fake_events_ops };
	char err[256] = "";

	memset(r, 0, sizeof(*r));
	r->app.wake_fd = -1;
	r->app.opts.memory = STORE_DEFAULT_MEMORY;
	if (app_open_snapshot(&r->app, path, -1, APP_SNAP_SYNC, err, sizeof(err))) {
		printf("# %s\n", err);
		return false;
	}
	r->ui.app = &r->app;
	r->ui.st = r->app.st;
	if (ui_views_init(&r->ui, panes, 2, NULL, 0))
		return false;
	r->p = ui_pane(&r->ui, "net");
	r->ui.active = r->p;
	r->p->h = SCR_ROWS;
	return true;
}

static void rig_close(struct rig *r)
{
	ui_views_destroy(&r->ui);
	app_stop(&r->app);
}

static void draw(struct rig *r)
{
	text_screen_draw(&r->ui, r->p);
}

/* Draw until a line has @needle (the pane reads the store in slices). */
static bool draw_until(struct rig *r, const char *needle)
{
	for (int i = 0; i < 500; i++) {
		draw(r);
		for (int k = 0; k < SCR_ROWS; k++)
			if (strstr(scr[k], needle))
				return true;
	}
	return false;
}

static int key(struct rig *r, enum ui_action act)
{
	int ret = r->p->ops->key(&r->ui, r->p, act);

	draw(r);
	return ret;
}

/* The screen's row whose words after PID and COMM are @local and @remote, or -1. */
static int row_of(const char *comm, const char *local, const char *remote)
{
	for (int k = 2; k < SCR_ROWS; k++) {
		char c[32], l[64], rm[64];
		int pid;

		if (sscanf(scr[k], "%d %31s %63s %63s", &pid, c, l, rm) == 4 && !strcmp(c, comm) &&
		    !strcmp(l, local) && !strcmp(rm, remote))
			return k;
	}
	return -1;
}

TEST(setup)
{
	CHECK(mkdtemp(tmpdir));
	snprintf(ktop_path, sizeof(ktop_path), "%s/host-net.ktop", tmpdir);
	CHECK(snap_fixture_ktop("host-net", ktop_path));
}

/* The kernel text's lines of event @ev (": ev: ") that have @a and @b (NULL: any). */
static unsigned int text_count(const char *text, const char *ev, const char *a, const char *b)
{
	char key[64];
	unsigned int n = 0;

	snprintf(key, sizeof(key), ": %s: ", ev);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *eol = strchr(l, '\n'), *k = strstr(l, key), *pa, *pb;

		if (!eol)
			eol = l + strlen(l);
		if (!k || k > eol)
			continue;
		pa = a ? strstr(k, a) : k;
		pb = b ? strstr(k, b) : k;
		n += pa && pa < eol && pb && pb < eol;
	}
	return n;
}

static void end_str(bool v6, unsigned int port, char *buf, size_t len)
{
	snprintf(buf, len, v6 ? "[::1]:%u" : "127.0.0.1:%u", port);
}

/* The words of screen row @k after PID, COMM, LOCAL, REMOTE: STATE AGE SENT RECV RETR RST DROP. */
static bool row_cols(int k, char *state, char *sent, char *recv, unsigned int *retr)
{
	return sscanf(scr[k], "%*d %*s %*s %*s %15s %*s %15s %15s %u", state, sent, recv, retr) == 4;
}

/*
 * Each transfer of workload.out: its client and server rows, pid, comm, both
 * ends, CLOSE, the bytes each way, the retransmits the text has on its ports.
 */
TEST(rows_of_each_transfer)
{
	struct xfer x[8];
	struct rig r;
	char *work = fixture_text("host-net", "workload.out");
	char *text = fixture_text("host-net", "trace.txt");
	char head[64];
	size_t n;
	unsigned int rows = 0;

	CHECK(work && text);
	n = work ? transfers(work, x, 8) : 0;
	CHECK_EQ_U64(n, 3);
	CHECK(rig_open(&r, ktop_path));
	CHECK(draw_until(&r, "nl-client"));
	for (size_t i = 0; i < n; i++) {
		char c[64], sv[64], want_s[16], want_r[16], state[16], sent[16], recv[16];
		char sp[32], dp[32];
		unsigned int retr, text_retr;
		int kc, ks;

		end_str(x[i].v6, x[i].cport, c, sizeof(c));
		end_str(x[i].v6, x[i].sport, sv, sizeof(sv));
		kc = row_of("nl-client", c, sv);
		ks = row_of("nl-server", sv, c);
		printf("# %s <-> %s: rows %d %d\n", c, sv, kc, ks);
		CHECK(kc >= 0 && ks >= 0);
		if (kc < 0 || ks < 0)
			continue;
		CHECK(atoi(scr[kc]) == x[i].cpid && atoi(scr[ks]) == x[i].spid);
		ui_fmt_bytes(want_s, sizeof(want_s), x[i].sent);
		ui_fmt_bytes(want_r, sizeof(want_r), x[i].recvd);
		CHECK(row_cols(kc, state, sent, recv, &retr));
		CHECK(!strcmp(state, "CLOSE") && !strcmp(sent, want_s) && !strcmp(recv, want_r));
		/* the client's retransmits: the text's tcp_retransmit_skb of its ports */
		snprintf(sp, sizeof(sp), "sport=%u ", x[i].cport);
		snprintf(dp, sizeof(dp), "dport=%u ", x[i].sport);
		text_retr = text_count(text, "tcp_retransmit_skb", sp, dp);
		printf("# client row: %s %s %s %u retransmits (the text: %u)\n", state, sent, recv,
		       retr, text_retr);
		CHECK(retr == text_retr);
		CHECK(!x[i].nft || retr > 0);
		CHECK(row_cols(ks, state, sent, recv, &retr));
		CHECK(!strcmp(state, "CLOSE") && !strcmp(sent, want_r) && !strcmp(recv, want_s));
	}
	/* the header counts the rows drawn under it */
	for (int k = 2; k < SCR_ROWS; k++)
		rows += scr[k][0] && atoi(scr[k]) > 0 && strstr(scr[k], " CLOSE ") != NULL;
	snprintf(head, sizeof(head), "Net: %u connections (0 open, 0 listening, %u closed)", rows,
		 rows);
	printf("# %s\n", scr[0]);
	CHECK(strstr(scr[0], head) == scr[0]);
	rig_close(&r);
	free(work);
	free(text);
}

/* The selected row's lines: its transitions up to CLOSE and its exact bytes. */
TEST(selected_row_lines)
{
	struct xfer x[8];
	struct rig r;
	char *work = fixture_text("host-net", "workload.out");
	char want[128], c[64], sv[64];
	int kc, moved = 0;

	CHECK(work && transfers(work, x, 8) == 3);
	CHECK(rig_open(&r, ktop_path));
	CHECK(draw_until(&r, "nl-client"));
	end_str(false, x[0].cport, c, sizeof(c));
	end_str(false, x[0].sport, sv, sizeof(sv));
	kc = row_of("nl-client", c, sv);
	CHECK(kc >= 2);
	/* the first row is selected; Down to the client's */
	for (int k = 2; k < kc; k++)
		moved += !!(key(&r, ACT_DOWN) & UI_REDRAW);
	CHECK(moved == kc - 2);
	snprintf(want, sizeof(want), "sent %llu received %llu bytes", x[0].sent, x[0].recvd);
	CHECK(strncmp(scr[SCR_ROWS - 1], want, strlen(want)) == 0);
	printf("# %s\n# %.100s\n", scr[SCR_ROWS - 2], scr[SCR_ROWS - 1]);
	CHECK(strncmp(scr[SCR_ROWS - 2], "SYN_SENT ESTABLISHED ", 21) == 0);
	CHECK(strstr(scr[SCR_ROWS - 2], " FIN_WAIT1 ") && strstr(scr[SCR_ROWS - 2], " FIN_WAIT2 ") &&
	      strstr(scr[SCR_ROWS - 2], " CLOSE "));
	rig_close(&r);
	free(work);
}

/* A size as the SENT column prints it, back in bytes (K, M: 1024). */
static double col_bytes(const char *s)
{
	char *e;
	double v = strtod(s, &e);

	return *e == 'K' ? v * 1024 : *e == 'M' ? v * 1048576 : *e == 'G' ? v * 1073741824 : v;
}

/* F6 to bytes sent: SENT descending; I: ascending. c hides the closed rows. */
TEST(sort_invert_and_hide)
{
	struct rig r;
	int tries = 0, nrows = 0;

	CHECK(rig_open(&r, ktop_path));
	CHECK(draw_until(&r, "nl-client"));
	while (!strstr(r.ui.message, "sorted by bytes sent") && tries++ < 20)
		key(&r, ACT_PANE_SORT);
	CHECK(strstr(r.ui.message, "sorted by bytes sent") != NULL);
	for (int inv = 0; inv < 2; inv++) {
		double last = inv ? -1 : 1e18;

		nrows = 0;
		for (int k = 2; k < SCR_ROWS - 2; k++) {
			char state[16], sent[16], recv[16];
			unsigned int retr;
			double v;

			if (!row_cols(k, state, sent, recv, &retr))
				continue;
			v = col_bytes(sent);
			CHECK(inv ? v >= last : v <= last);
			last = v;
			nrows++;
		}
		CHECK(nrows >= 6);
		if (!inv)
			key(&r, ACT_SORT_INVERT);
	}
	key(&r, ACT_NET_CLOSED);
	CHECK(strstr(r.ui.message, "closed connections hidden") != NULL);
	for (int k = 2; k < SCR_ROWS; k++)
		CHECK(!strstr(scr[k], " CLOSE "));
	CHECK(strstr(scr[0], "hidden: c") != NULL);
	rig_close(&r);
}

/* d: each reason's count and location as the text's kfree_skb lines have them. */
TEST(drops_table)
{
	char *text = fixture_text("host-net", "trace.txt");
	struct rig r;
	unsigned int total, seen = 0;
	char head[64];

	CHECK(text != NULL);
	CHECK(rig_open(&r, ktop_path));
	CHECK(draw_until(&r, "nl-client"));
	key(&r, ACT_NET_DROPS);
	CHECK(draw_until(&r, "Drops: "));
	total = text_count(text, "kfree_skb", NULL, NULL);
	snprintf(head, sizeof(head), "Drops: %u ", total);
	printf("# %s\n", scr[0]);
	CHECK(strncmp(scr[0], head, strlen(head)) == 0);
	for (int k = 2; k < SCR_ROWS; k++) {
		char reason[64], loc[128], want_r[80], want_l[140];
		unsigned int count, tied;

		if (sscanf(scr[k], "%u %*s %u %63s %127s", &count, &tied, reason, loc) != 4)
			continue;
		snprintf(want_r, sizeof(want_r), "reason: %s", reason);
		snprintf(want_l, sizeof(want_l), "location=%s", loc);
		printf("# %u %s %s (the text: %u)\n", count, reason, loc,
		       text_count(text, "kfree_skb", want_r, want_l));
		CHECK(count == text_count(text, "kfree_skb", want_r, want_l));
		seen += count;
	}
	CHECK(seen == total);
	rig_close(&r);
	free(text);
}

TEST(cleanup)
{
	unlink(ktop_path);
	rmdir(tmpdir);
}

TEST_MAIN()

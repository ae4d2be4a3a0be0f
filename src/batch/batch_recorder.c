// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder in the summaries (--save-on): its state, and a line
 * (text) or an object (JSON) per save made since the previous summary; and,
 * for a recording a recorder wrote, the note it carries.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "lib/jsonw.h"
#include "recorder/recorder.h"
#include "store/meta.h"
#include "batch-local.h"

#define SAVES_PER_SUMMARY	64

void batch_recorder_text(struct app *a, FILE *o, uint64_t *seen)
{
	const struct snapshot_meta *rm = app_recording_meta(a);
	struct recorder_save sv[SAVES_PER_SUMMARY];
	struct recorder_status st;
	char line[2048];
	size_t n;

	if (rm && rm->save_note) {
		/* a file the flight recorder wrote: why */
		for (const char *l = rm->save_note; *l;) {
			size_t k = strcspn(l, "\n");

			fprintf(o, "Save note: %.*s\n", (int)k, l);
			l += k + (l[k] == '\n');
		}
	}
	if (!a->rec)
		return;
	recorder_status(a->rec, &st);
	fprintf(o, "Recorder: %s", recorder_status_line(&st, line, sizeof(line)));
	if (st.skipped_gap || st.skipped_max || st.late)
		fprintf(o, "; matches skipped: %" PRIu64 " within --save-gap, %" PRIu64
			" past --save-max, %" PRIu64 " inside a window already written",
			st.skipped_gap, st.skipped_max, st.late);
	fputc('\n', o);
	if (st.kernel[0])
		fprintf(o, "Recorder: %s\n", st.kernel);
	while ((n = recorder_saves(a->rec, *seen, sv, SAVES_PER_SUMMARY))) {
		for (size_t i = 0; i < n; i++)
			fprintf(o, "%s\n", recorder_save_line(&sv[i], line, sizeof(line)));
		*seen = sv[n - 1].id;
	}
}

static void iso_time(uint64_t wall_ns, char *buf, size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03uZ", s, (unsigned int)(wall_ns / 1000000ull % 1000));
}

void batch_recorder_json(struct app *a, FILE *o, uint64_t *seen)
{
	const struct snapshot_meta *rm = app_recording_meta(a);
	struct recorder_save sv[SAVES_PER_SUMMARY];
	struct recorder_status st;
	bool first = true;
	char when[40];
	size_t n;

	if (rm && rm->save_note) {
		fputs(",\"save_note\":", o);
		jsonw_str_fp(o, rm->save_note);
	}
	if (!a->rec)
		return;
	recorder_status(a->rec, &st);
	fprintf(o, ",\"recorder\":{\"armed\":%s,\"conditions\":%u,\"matches\":%" PRIu64
		",\"saved\":%" PRIu64 ",\"refused\":%" PRIu64 ",\"skipped_gap\":%" PRIu64
		",\"skipped_max\":%" PRIu64 ",\"late\":%" PRIu64 ",\"max_reached\":%s,\"kernel\":",
		st.armed ? "true" : "false", st.nconds, st.matches, st.saved, st.failed,
		st.skipped_gap, st.skipped_max, st.late, st.max_reached ? "true" : "false");
	jsonw_str_fp(o, st.kernel);
	fputs("},\"saves\":[", o);
	while ((n = recorder_saves(a->rec, *seen, sv, SAVES_PER_SUMMARY))) {
		for (size_t i = 0; i < n; i++) {
			const struct recorder_save *s = &sv[i];

			fputs(first ? "{\"file\":" : ",{\"file\":", o);
			first = false;
			jsonw_str_fp(o, s->path);
			fputs(",\"condition\":", o);
			jsonw_str_fp(o, s->cond);
			fputs(",\"match\":", o);
			jsonw_str_fp(o, s->what);
			if (s->match_wall_ns) {
				iso_time(s->match_wall_ns, when, sizeof(when));
				fputs(",\"time\":", o);
				jsonw_str_fp(o, when);
			}
			fprintf(o, ",\"ts\":%.9f,\"window_start\":%.9f,\"window_end\":%.9f,"
				"\"held_from\":%.9f,\"matches\":%u,\"events\":%" PRIu64 ",\"bytes\":%"
				PRIu64 ",\"lost\":%" PRIu64 ",\"kernel_stop\":%s,\"write_ms\":%.1f,"
				"\"id\":%" PRIu64,
				(double)s->match_ts / 1e9, (double)s->t0 / 1e9, (double)s->t1 / 1e9,
				(double)s->held_from / 1e9, s->nmatch, s->events, s->bytes, s->lost,
				s->kernel_stop ? "true" : "false", (double)s->write_ns / 1e6, s->id);
			if (s->err) {
				fputs(",\"error\":", o);
				jsonw_str_fp(o, s->msg);
			} else if (s->msg[0]) {
				fputs(",\"note\":", o);
				jsonw_str_fp(o, s->msg);
			}
			fputc('}', o);
		}
		*seen = sv[n - 1].id;
	}
	fputc(']', o);
}

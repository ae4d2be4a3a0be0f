// SPDX-License-Identifier: GPL-2.0-or-later
/* The KTOP_* environment variables (see tuning.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "tuning.h"

#define SWITCH(n, field, text) \
	{ .name = n, .kind = TUNING_SWITCH, .offset = offsetof(struct tuning, field), \
	  .max = 1, .meaning = text }
#define NUMBER(n, field, lo, hi, d, text) \
	{ .name = n, .kind = TUNING_NUMBER, .offset = offsetof(struct tuning, field), \
	  .min = lo, .max = hi, .def = d, .meaning = text }
#define PATH(n, field, d, text) \
	{ .name = n, .kind = TUNING_PATH, .offset = offsetof(struct tuning, field), \
	  .def_path = d, .meaning = text }

const struct tuning_var tuning_vars[] = {
	PATH("KTOP_FIXTURES", fixtures, "tests/fixtures",
	     "Directory of recorded test fixtures (unit tests, benchmarks); when it is set, "
	     "--demo looks there first for demo.ktop."),
	SWITCH("KTOP_TEST_TOP_LEVEL", test_top_level,
	       "Trace at the top level of tracefs even when the tracer could run in an "
	       "instance: tests the top-level path on kernels where no tracer needs it."),
	PATH("KTOP_FILTER_FUNCS", filter_funcs, NULL,
	     "A recorded available_filter_functions (plain or gzip'd) for the filter "
	     "prompt's preview when the kernel refuses to show its own."),
	PATH("KTOP_PROBE_BTF", probe_btf, NULL,
	     "A BTF file --probe reads instead of the running kernel's (a missing file: a "
	     "kernel without BTF, for the tests of that message)."),
	NUMBER("KTOP_READ_QUEUE_MB", read_queue_mb, 0, 4096, 32,
	       "Queue of ring-buffer pages per CPU between reading and decoding, in MB "
	       "(at least 4 pages); pages that find it full are dropped and counted."),
	SWITCH("KTOP_DECODE_THREAD", decode_thread,
	       "Decode in a second thread per CPU, instead of in the reader when the "
	       "kernel's buffer is empty."),
	SWITCH("KTOP_NO_SPLICE", no_splice,
	       "read() every page, the partly filled one at each wake-up, instead of "
	       "splicing whole pages: the reader as it was before, for comparison in "
	       "tests/bench/live_loss.sh."),
	SWITCH("KTOP_DECODE_KBUFFER_WALK", decode_kbuffer_walk,
	       "Walk ring-buffer pages with libtraceevent's kbuffer instead of ktop's own "
	       "walker (the tests compare the two)."),
	SWITCH("KTOP_DEBUG_START", debug_start,
	       "Print on standard error how long each step of a live start took (probing "
	       "the kernel, setting up the session, reading the event formats and "
	       "kallsyms, turning tracing on, loading the BPF programs)."),
	PATH("KTOP_UI_KEY_LATENCY", ui_key_latency, NULL,
	     "A file the interactive view writes on exit: one line per key-driven redraw "
	     "with the nanoseconds from poll() waking up to the frame sent and that "
	     "wake-up's CLOCK_REALTIME, and the loop iterations that kept it from poll() "
	     "over 2 ms (tests/bench/ui_latency.sh)."),
	PATH("KTOP_THEME_DIR", theme_dir, NULL,
	     "A directory searched first for --theme files."),
};

const size_t tuning_nvars = sizeof(tuning_vars) / sizeof(tuning_vars[0]);

_Static_assert(sizeof(tuning_vars) / sizeof(tuning_vars[0]) <= sizeof(unsigned long) * 8,
	       "struct tuning's given bits");

static struct tuning tuning_now;
static pthread_once_t tuning_once = PTHREAD_ONCE_INIT;

/* Return: 0, or -EINVAL with @err set when @val is not a number in @v's range. */
static int tuning_number(const struct tuning_var *v, const char *val, unsigned long *out,
			 char *err, size_t errlen)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(val, &end, 10);
	if (*val < '0' || *val > '9' || *end || errno || n < v->min || n > v->max)
		return err_set(err, errlen, -EINVAL, "%s=%s: not a whole number from %lu to %lu",
			       v->name, val, v->min, v->max);
	*out = n;
	return 0;
}

int tuning_read(struct tuning *t, char *err, size_t errlen)
{
	int ret = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < tuning_nvars; i++) {
		const struct tuning_var *v = &tuning_vars[i];
		const char *val = getenv(v->name);
		char *field = (char *)t + v->offset;
		unsigned long n = v->def;
		int r;

		if (val && *val)
			t->given |= 1ul << i;
		switch (v->kind) {
		case TUNING_SWITCH:
			*(bool *)field = val && *val ? strcmp(val, "0") != 0 : v->def;
			break;
		case TUNING_NUMBER:
			if (val && *val) {
				r = tuning_number(v, val, &n, ret ? NULL : err, errlen);
				if (r && !ret)
					ret = r;
			}
			*(unsigned int *)field = (unsigned int)n;
			break;
		case TUNING_PATH:
			*(const char **)field = val && *val ? val : v->def_path;
			break;
		}
	}
	return ret;
}

bool tuning_given(const struct tuning *t, const char *name)
{
	for (size_t i = 0; i < tuning_nvars; i++)
		if (!strcmp(tuning_vars[i].name, name))
			return t->given & (1ul << i);
	return false;
}

static void tuning_read_once(void)
{
	tuning_read(&tuning_now, NULL, 0);
}

int tuning_init(char *err, size_t errlen)
{
	pthread_once(&tuning_once, tuning_read_once);
	return tuning_read(&tuning_now, err, errlen);
}

const struct tuning *tuning(void)
{
	pthread_once(&tuning_once, tuning_read_once);
	return &tuning_now;
}

/* @text from column @indent, words wrapped before column 80. */
static void print_wrapped(FILE *fp, const char *text, int indent)
{
	int col = 0;

	while (*text) {
		size_t w = strcspn(text, " ");

		if (col && col + 1 + (int)w > 79 - indent) {
			fputc('\n', fp);
			col = 0;
		}
		if (!col) {
			fprintf(fp, "%*s", indent, "");
		} else {
			fputc(' ', fp);
			col++;
		}
		fwrite(text, 1, w, fp);
		col += (int)w;
		text += w;
		text += strspn(text, " ");
	}
	fputc('\n', fp);
}

void tuning_print(FILE *fp)
{
	fputs("Tuning and test switches (environment variables; not for everyday use):\n"
	      "switches are on when set to anything but \"\" or \"0\".\n\n", fp);
	for (size_t i = 0; i < tuning_nvars; i++) {
		const struct tuning_var *v = &tuning_vars[i];

		switch (v->kind) {
		case TUNING_SWITCH:
			fprintf(fp, "  %s=1\n", v->name);
			break;
		case TUNING_NUMBER:
			fprintf(fp, "  %s=N   (%lu to %lu, default %lu)\n", v->name, v->min, v->max,
				v->def);
			break;
		case TUNING_PATH:
			fprintf(fp, "  %s=PATH", v->name);
			if (v->def_path)
				fprintf(fp, "   (default %s)", v->def_path);
			fputc('\n', fp);
			break;
		}
		print_wrapped(fp, v->meaning, 6);
	}
}

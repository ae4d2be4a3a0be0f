// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/lib/jsonw.c: the JSON writer. Layout and escapes against exact text; UTF-8
 * kept byte for byte; ill-formed bytes replaced as Python's
 * bytes.decode("utf-8", "replace") does, checked by Python itself on random
 * bytes; FILE and buffer writers giving the same bytes across flushes; and
 * every misuse reported by jsonw_finish().
 */
#include <errno.h>
#include <math.h>
#include <unistd.h>

#include "lib/jsonw.h"
#include "test.h"

/* The document @fn writes, from a buffer writer; *@ret: jsonw_finish(). */
static char *doc_of(void (*fn)(struct jsonw *), int *ret)
{
	struct jsonw w;
	char *doc;

	jsonw_init_buf(&w);
	fn(&w);
	*ret = jsonw_finish(&w);
	doc = jsonw_take(&w, NULL);
	jsonw_destroy(&w);
	return doc;
}

static void nested(struct jsonw *w)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "name", "ktop");
	jsonw_key(w, "cpus");
	jsonw_arr_open(w);
	jsonw_u64(w, 0);
	jsonw_obj_open(w);
	jsonw_obj_close(w);
	jsonw_arr_open(w);
	jsonw_arr_close(w);
	jsonw_null(w);
	jsonw_bool(w, true);
	jsonw_arr_close(w);
	jsonw_kv_i64(w, "min", INT64_MIN);
	jsonw_kv_u64(w, "max", UINT64_MAX);
	jsonw_kv_double(w, "rate", 2.0 / 3, 3);
	jsonw_kv_double(w, "nan", NAN, 1);
	jsonw_kv_bool(w, "lost", false);
	jsonw_key(w, "ts");
	jsonw_fixed(w, 1234567, 3);
	jsonw_key(w, "small");
	jsonw_fixed(w, 5, 3);
	jsonw_key(w, "whole");
	jsonw_fixed(w, 42, 0);
	jsonw_key(w, "raw");
	jsonw_raw(w, "[1,2]", 5);
	jsonw_key(w, "none");
	jsonw_str(w, NULL);
	jsonw_obj_close(w);
}

TEST(commas_colons_numbers)
{
	int ret;
	char *doc = doc_of(nested, &ret);

	CHECK(ret == 0);
	CHECK_STR(doc, "{\"name\":\"ktop\",\"cpus\":[0,{},[],null,true],"
		  "\"min\":-9223372036854775808,\"max\":18446744073709551615,\"rate\":0.667,"
		  "\"nan\":null,\"lost\":false,\"ts\":1234.567,\"small\":0.005,\"whole\":42,"
		  "\"raw\":[1,2],\"none\":null}");
	free(doc);
}

/* The layout of the Chrome JSON export: a record a line. */
static void lines(struct jsonw *w)
{
	jsonw_obj_open(w);
	jsonw_key(w, "traceEvents");
	jsonw_arr_open(w);
	for (int i = 1; i <= 3; i++) {
		jsonw_newline(w);
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "i", (uint64_t)i);
		jsonw_obj_close(w);
	}
	jsonw_newline(w);
	jsonw_arr_close(w);
	jsonw_obj_close(w);
	jsonw_newline(w);
	/* a second top-level value: one JSON object per line, as --json writes */
	jsonw_obj_open(w);
	jsonw_obj_close(w);
	jsonw_newline(w);
}

TEST(newlines_for_line_per_record)
{
	int ret;
	char *doc = doc_of(lines, &ret);

	CHECK(ret == 0);
	CHECK_STR(doc, "{\"traceEvents\":[\n{\"i\":1},\n{\"i\":2},\n{\"i\":3}\n]}\n{}\n");
	free(doc);
}

static char *str_doc(const char *s, size_t len)
{
	struct jsonw w;
	char *doc;

	jsonw_init_buf(&w);
	jsonw_strn(&w, s, len);
	if (jsonw_finish(&w))
		return NULL;
	doc = jsonw_take(&w, NULL);
	return doc;
}

TEST(escapes_only_what_json_requires)
{
	char all[32 + 4], *doc;
	size_t n = 0;

	for (int c = 0; c < 32; c++)
		all[n++] = (char)c;
	all[n++] = '"';
	all[n++] = '\\';
	all[n++] = 0x7f;
	all[n++] = '/';
	doc = str_doc(all, n);
	CHECK_STR(doc, "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n"
		  "\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016"
		  "\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\\x7f/\"");
	free(doc);
}

TEST(utf8_kept_byte_for_byte)
{
	/* comm names as the kernel stores them: 15 bytes, UTF-8 from user space */
	static const char *const comms[] = {
		"kworker/0:1H", "café-daemon", "日本語のタスク", "Ελληνικά", "emoji-😀-task",
		"\xf4\x8f\xbf\xbf max", "\xef\xbf\xbd already",
	};

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		size_t len = strlen(comms[i]);
		char *doc = str_doc(comms[i], len);

		CHECK(doc && strlen(doc) == len + 2);
		CHECK(doc[0] == '"' && !memcmp(doc + 1, comms[i], len) && doc[len + 1] == '"');
		free(doc);
	}
}

TEST(ill_formed_bytes_replaced)
{
	/* expected: Python's json.dumps(b.decode("utf-8", "replace")) */
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "\x80", "\"\\ufffd\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },			/* overlong */
		{ "\xe2\x82", "\"\\ufffd\"" },				/* cut short */
		{ "\xe2\x82" "A", "\"\\ufffdA\"" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },	/* > U+10FFFF */
		{ "\xf0\x9f\x98", "\"\\ufffd\"" },
		{ "\xff\xfe", "\"\\ufffd\\ufffd\"" },
		{ "caf\xe9", "\"caf\\ufffd\"" },			/* Latin-1 */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },
		{ "\xc3\xa9\xc3", "\"\xc3\xa9\\ufffd\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *doc = str_doc(cases[i].in, strlen(cases[i].in));

		CHECK_STR(doc, cases[i].out);
		free(doc);
	}
}

/* Random byte strings, biased to UTF-8's lead and continuation bytes. */
static size_t random_bytes(unsigned int *seed, char *out, size_t max)
{
	static const unsigned char pick[] = { 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2,
					      0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff };
	size_t n = (size_t)rand_r(seed) % max;

	for (size_t i = 0; i < n; i++) {
		unsigned int r = (unsigned int)rand_r(seed);

		out[i] = (char)(r % 3 ? pick[r / 3 % sizeof(pick)] : 'a' + r / 3 % 26);
		if (!out[i])
			out[i] = 'z';
	}
	return n;
}

/* Python decodes the same bytes with errors="replace" and compares. */
TEST(random_bytes_as_python_replaces_them)
{
	char jpath[] = "/tmp/ktop-test-jsonw-XXXXXX", hpath[] = "/tmp/ktop-test-hex-XXXXXX";
	char cmd[512], line[256], bytes[40];
	unsigned int seed = 15;
	int jfd = mkstemp(jpath), hfd = mkstemp(hpath);
	FILE *jf = fdopen(jfd, "w"), *hf = fdopen(hfd, "w"), *py;
	struct jsonw w;
	int ret;

	CHECK(jf && hf);
	jsonw_init_file(&w, jf);
	jsonw_arr_open(&w);
	for (int i = 0; i < 5000; i++) {
		size_t n = random_bytes(&seed, bytes, sizeof(bytes));

		jsonw_strn(&w, bytes, n);
		for (size_t k = 0; k < n; k++)
			fprintf(hf, "%02x", (unsigned char)bytes[k]);
		fputc('\n', hf);
	}
	jsonw_arr_close(&w);
	ret = jsonw_finish(&w);
	fclose(jf);
	fclose(hf);
	CHECK(ret == 0);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\n"
		 "raw = open(sys.argv[1], \"rb\").read()\n"
		 "got = json.loads(raw.decode(\"utf-8\"))\n"
		 "want = [bytes.fromhex(l.strip()).decode(\"utf-8\", \"replace\")\n"
		 "        for l in open(sys.argv[2])]\n"
		 "bad = [i for i in range(len(want)) if got[i] != want[i]]\n"
		 "same = len(got) == len(want) and not bad\n"
		 "print(\"same\" if same else \"differ at %%s\" %% bad[:3])'"
		 " %s %s 2>&1", jpath, hpath);
	py = popen(cmd, "r");
	CHECK(py);
	if (!fgets(line, sizeof(line), py))
		line[0] = '\0';
	pclose(py);
	unlink(jpath);
	unlink(hpath);
	printf("  python: %s", line);
	CHECK(!strncmp(line, "same", 4));
}

/* A document larger than the FILE writer's buffer, both ways. */
static void big(struct jsonw *w)
{
	jsonw_arr_open(w);
	for (uint64_t i = 0; i < 40000; i++) {
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "seq", i);
		jsonw_kv_str(w, "comm", i % 7 ? "ktop" : "naïve\n");
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

TEST(file_and_buffer_writers_agree)
{
	char *mem = NULL, *doc;
	size_t memlen = 0, doclen = 0;
	FILE *fp = open_memstream(&mem, &memlen);
	struct jsonw w;
	int ret;

	CHECK(fp);
	jsonw_init_file(&w, fp);
	big(&w);
	CHECK(jsonw_finish(&w) == 0);
	jsonw_destroy(&w);
	fclose(fp);
	doc = doc_of(big, &ret);
	CHECK(ret == 0 && doc);
	doclen = strlen(doc);
	CHECK(doclen > 2 * 65536);
	CHECK_EQ_U64(memlen, doclen);
	CHECK(!memcmp(mem, doc, doclen));
	free(mem);
	free(doc);
}

static void unclosed(struct jsonw *w)
{
	jsonw_arr_open(w);
	jsonw_u64(w, 1);
}

static void key_in_array(struct jsonw *w)
{
	jsonw_arr_open(w);
	jsonw_key(w, "k");
	jsonw_arr_close(w);
}

static void value_without_key(struct jsonw *w)
{
	jsonw_obj_open(w);
	jsonw_u64(w, 1);
	jsonw_obj_close(w);
}

static void wrong_close(struct jsonw *w)
{
	jsonw_obj_open(w);
	jsonw_arr_close(w);
}

static void too_deep(struct jsonw *w)
{
	for (int i = 0; i <= JSONW_MAX_DEPTH; i++)
		jsonw_arr_open(w);
	for (int i = 0; i <= JSONW_MAX_DEPTH; i++)
		jsonw_arr_close(w);
}

static void deep_enough(struct jsonw *w)
{
	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		jsonw_arr_open(w);
	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		jsonw_arr_close(w);
}

TEST(misuse_reported_at_finish)
{
	void (*bad[])(struct jsonw *) = { unclosed, key_in_array, value_without_key, wrong_close,
					  too_deep };
	int ret;
	char *doc;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		doc = doc_of(bad[i], &ret);
		CHECK(ret == -EINVAL && !doc);
	}
	doc = doc_of(deep_enough, &ret);
	CHECK(ret == 0 && doc && strlen(doc) == 2 * JSONW_MAX_DEPTH);
	free(doc);
}

TEST(failed_write_reported)
{
	FILE *fp = fopen("/dev/full", "w");
	struct jsonw w;

	CHECK(fp);
	setvbuf(fp, NULL, _IONBF, 0);
	jsonw_init_file(&w, fp);
	big(&w);
	CHECK(jsonw_finish(&w) == -ENOSPC);
	fclose(fp);
}

/* The FILE form: the same escaping, for writers that print the rest. */
TEST(str_fp)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	CHECK(fp);
	jsonw_str_fp(fp, "plain");
	jsonw_str_fp(fp, "q\"\\\n\x01 caf\xc3\xa9 \xff\x7f");
	jsonw_str_fp(fp, NULL);
	fclose(fp);
	CHECK_STR(out, "\"plain\"\"q\\\"\\\\\\n\\u0001 caf\xc3\xa9 \\ufffd\x7f\"null");
	free(out);
}

TEST_MAIN()

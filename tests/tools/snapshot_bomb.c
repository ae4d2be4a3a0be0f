// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot_bomb - write a hostile .ktop file, for tests/live/test_input_bounds.sh
 * (issue 14, finding 6: -m must bound the memory a file or stream can make
 * ktop use, and ktop must say so quickly).
 *
 *   snapshot_bomb KIND OUT
 *
 * KIND:
 *   lost64   12 blocks of 64 MiB of lost-event marks, 25 KiB in all: the file
 *            of the issue, which drove ktop -i -m 1M to 3.8 GB
 *   lost16   blocks of 16 MiB of marks each (within the block size bound, far
 *            beyond any compression ratio ktop writes)
 *   lostmild lost-event marks as a real session has them (rising times,
 *            varied counts), 3 million in 12 blocks: nothing
 *            to refuse, so they must be evicted under -m
 *   bigblock a block of 16 MiB that does not compress (lost marks: none, then
 *            padding): the largest buffers a reader ever needs
 *   comm     a comm for every 4096th pid up to 2^23 (each costs a 48 KiB
 *            page of the comm table)
 *   strings  half a million distinct strings
 *   schema   65472 event types (ktop used to look each up in all the others)
 *   cpus     4096 CPUs with one event each (each CPU with events used to hold
 *            a 120 KiB chunk buffer)
 *
 * The framing is written here from the format in src/formats/ktop-local.h (header,
 * blocks of one zstd frame each, CRC32s), not with ktop's writer: a hostile
 * file is what ktop's writer would never produce. OUT of "-" is stdout; with
 * a file, prints "events N marks N lost N": what a reader that keeps it all
 * counts.
 * Exit status: 0, 1 on a usage or write error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define BLK_META	1
#define BLK_SCHEMA	2
#define BLK_STRINGS	3
#define BLK_COMM	4
#define BLK_EVENTS	5
#define BLK_LOST	6
#define BLK_END		7
#define MK_NCPUS	5
#define T_SOFTIRQ_ENTRY	12	/* a fixed type with one argument (src/store/event.h) */

struct bbuf {
	uint8_t	*p;
	size_t	len, cap;
};

static void bput(struct bbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("snapshot_bomb");
			exit(1);
		}
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void bvar(struct bbuf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	bput(b, t, n);
}

static void bstr(struct bbuf *b, const char *s)
{
	bvar(b, strlen(s));
	bput(b, s, strlen(s));
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0, NULL, 0), p, (uInt)n);
}

static FILE *out;
static uint64_t nevents, nmarks, nlost;

/* @raw as one block, written @times times (compressed once) */
static void block_n(int type, struct bbuf *raw, int times)
{
	size_t bound = ZSTD_compressBound(raw->len), n;
	uint8_t hdr[24] = { 0 }, *comp = malloc(bound);

	if (!comp)
		exit(1);
	n = ZSTD_compress(comp, bound, raw->p, raw->len, 3);
	if (ZSTD_isError(n)) {
		fprintf(stderr, "snapshot_bomb: zstd: %s\n", ZSTD_getErrorName(n));
		exit(1);
	}
	le32(hdr, 0x4b4c424bu);
	hdr[4] = (uint8_t)type;
	le32(hdr + 8, (uint32_t)raw->len);
	le32(hdr + 12, (uint32_t)n);
	le32(hdr + 16, crc(comp, n));
	le32(hdr + 20, crc(hdr, 20));
	for (int i = 0; i < times; i++) {
		if (fwrite(hdr, 1, sizeof(hdr), out) != sizeof(hdr) ||
		    fwrite(comp, 1, n, out) != n) {
			perror("snapshot_bomb: write");
			exit(1);
		}
	}
	free(comp);
	raw->len = 0;
}

static void block(int type, struct bbuf *raw)
{
	block_n(type, raw, 1);
}

static void start(unsigned int ncpus)
{
	struct bbuf b = { 0 };
	uint8_t hdr[32] = { 0 };
	char num[16];

	memcpy(hdr, "KTOPSNAP", 8);
	le32(hdr + 8, 1);
	le32(hdr + 12, 32);
	le32(hdr + 28, crc(hdr, 28));
	fwrite(hdr, 1, sizeof(hdr), out);
	snprintf(num, sizeof(num), "%u", ncpus);
	bvar(&b, MK_NCPUS);
	bstr(&b, num);
	block(BLK_META, &b);
	free(b.p);
}

static void finish(void)
{
	struct bbuf b = { 0 };

	bvar(&b, nevents);
	block(BLK_END, &b);
	free(b.p);
}

/* @nblocks LOST blocks of @bytes each: marks at time 0 (all the same block), or a session's */
static void lost(int nblocks, size_t bytes, int mild)
{
	uint64_t ts = 1000000000ull, seed = 1;
	struct bbuf b = { 0 }, m = { 0 };
	size_t n;

	if (!mild) {
		/* the count, then "cpu 0, ts 0, count 1" n times */
		n = (bytes - 16) / 3;
		nmarks += n * nblocks;
		nlost += n * nblocks;
		bvar(&b, n);
		bput(&b, "", 0);
		b.cap = b.len + 3 * n;
		b.p = realloc(b.p, b.cap);
		for (size_t i = 0; b.p && i < n; i++)
			memcpy(b.p + b.len + 3 * i, "\0\0\1", 3);
		if (!b.p)
			exit(1);
		b.len += 3 * n;
		block_n(BLK_LOST, &b, nblocks);
		free(b.p);
		return;
	}
	for (int k = 0; k < nblocks; k++) {
		for (n = 0; m.len < bytes - 32; n++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			ts += 1000 + (seed >> 40) % 1024;
			bvar(&m, (seed >> 33) & 1);
			bvar(&m, ts);
			bvar(&m, 1 + (seed >> 50) % 8);
			nlost += 1 + (seed >> 50) % 8;
		}
		nmarks += n;
		bvar(&b, n);
		bput(&b, m.p, m.len);
		block(BLK_LOST, &b);
		m.len = 0;
	}
	free(b.p);
	free(m.p);
}

static void bigblock(void)
{
	struct bbuf b = { 0 };
	uint64_t seed = 7;

	bvar(&b, 0);	/* no marks; the rest is never looked at */
	while (b.len < (16u << 20) - 4096) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		bput(&b, &seed, sizeof(seed));
	}
	block(BLK_LOST, &b);
	free(b.p);
}

static void comm(void)
{
	struct bbuf b = { 0 };
	uint64_t n = 0;

	bvar(&b, 1);	/* strings from id 1, one of them */
	bvar(&b, 1);
	bstr(&b, "bomb");
	block(BLK_STRINGS, &b);
	for (uint64_t pid = 0; pid < (1u << 23); pid += 4096)
		n++;
	bvar(&b, n);
	for (uint64_t pid = 0; pid < (1u << 23); pid += 4096) {
		bvar(&b, pid * 2);	/* zigzag */
		bvar(&b, 1);
	}
	block(BLK_COMM, &b);
	free(b.p);
}

static void strings(void)
{
	const uint32_t total = 1u << 19, per = 1u << 16;
	struct bbuf b = { 0 };
	char s[16];

	for (uint32_t first = 1; first < total; first += per) {
		bvar(&b, first);
		bvar(&b, per);
		for (uint32_t i = 0; i < per; i++) {
			snprintf(s, sizeof(s), "%06x", first + i);
			bstr(&b, s);
		}
		block(BLK_STRINGS, &b);
	}
	free(b.p);
}

static void schema(void)
{
	struct bbuf b = { 0 };
	char name[64];

	for (uint32_t first = 64; first < 65536; first += 8192) {
		uint32_t n = 65536 - first < 8192 ? 65536 - first : 8192;

		bvar(&b, n);
		for (uint32_t id = first; id < first + n; id++) {
			bvar(&b, id);
			bstr(&b, "bomb");
			snprintf(name, sizeof(name), "type_%u_with_a_long_name_to_make_it_cost", id);
			bstr(&b, name);
			bvar(&b, 0);
		}
		block(BLK_SCHEMA, &b);
	}
	free(b.p);
}

/* One event (softirq_entry, vec 1) on each CPU. */
static void cpus(unsigned int ncpus)
{
	struct bbuf b = { 0 };
	uint8_t cols[28] = { 0 };

	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		bvar(&b, cpu);
		bvar(&b, 1);			/* events */
		bvar(&b, 1000000000ull + cpu);	/* first ts */
		le32(cols + 0, 1);		/* ts delta */
		le32(cols + 4, 1);		/* pid */
		le32(cols + 8, 1);		/* type */
		le32(cols + 12, 1);		/* flags */
		le32(cols + 16, 1);		/* preempt count */
		le32(cols + 20, 1);		/* nargs */
		le32(cols + 24, 1);		/* arguments */
		bput(&b, cols, sizeof(cols));
		bvar(&b, 0);
		bvar(&b, 2);	/* pid 1, zigzag */
		bvar(&b, T_SOFTIRQ_ENTRY);
		bput(&b, "\0\0\1", 3);
		bvar(&b, 2);	/* vec 1, zigzag */
		block(BLK_EVENTS, &b);
		nevents++;
	}
	free(b.p);
}

int main(int argc, char **argv)
{
	const char *kind;

	if (argc != 3) {
		fprintf(stderr, "usage: snapshot_bomb lost64|lost16|lostmild|bigblock|comm|strings|"
			"schema|cpus OUT\n");
		return 1;
	}
	kind = argv[1];
	out = strcmp(argv[2], "-") ? fopen(argv[2], "w") : stdout;
	if (!out) {
		fprintf(stderr, "snapshot_bomb: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	start(!strcmp(kind, "cpus") ? 4096 : 2);
	if (!strcmp(kind, "lost64"))
		lost(12, 64u << 20, 0);
	else if (!strcmp(kind, "lost16"))
		lost(8, 16u << 20, 0);
	else if (!strcmp(kind, "lostmild"))
		lost(12, 2u << 20, 1);
	else if (!strcmp(kind, "bigblock"))
		bigblock();
	else if (!strcmp(kind, "comm"))
		comm();
	else if (!strcmp(kind, "strings"))
		strings();
	else if (!strcmp(kind, "schema"))
		schema();
	else if (!strcmp(kind, "cpus"))
		cpus(4096);
	else {
		fprintf(stderr, "snapshot_bomb: unknown kind '%s'\n", kind);
		return 1;
	}
	finish();
	if (fclose(out)) {
		perror("snapshot_bomb: write");
		return 1;
	}
	if (out != stdout)
		printf("events %llu marks %llu lost %llu\n", (unsigned long long)nevents,
		       (unsigned long long)nmarks, (unsigned long long)nlost);
	return 0;
}

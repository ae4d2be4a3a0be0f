// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Generic in-kernel aggregation (--latency, --hist) for kernels without hist
 * triggers: two tracepoint programs that read the records' fields at the
 * offsets the events' format files give (struct agglat_cfg, set in rodata
 * before the load by src/agg/agg_bpf.c) and keep what the kernel's hist
 * engine keeps: START timestamps by match key (a pair consumes its START, as
 * the kernel's read-once variables do), the ceil(log2) histogram the
 * kernel's .log2 modifier uses, count, sum, min, max with its key and END
 * time, and a per-key breakdown. A --hist spec uses the END program alone.
 *
 * The programs are SEC("tracepoint"): their context is the raw record,
 * common fields included, so a format's offsets apply as they are. Fields
 * are read with bpf_probe_read_kernel at offsets the verifier sees as
 * constants (rodata is frozen), every size and key offset masked to its
 * buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "agglat.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct agglat_cfg cfg = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AGGLAT_MAX_PENDING);
	__type(key, struct agglat_key);
	__type(value, __u64);
} ktop_agg_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct agglat_total);
} ktop_agg_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, AGGLAT_MAX_KEYS);
	__type(key, struct agglat_key);
	__type(value, struct agglat_row);
} ktop_agg_keys SEC(".maps");

static __always_inline struct agglat_total *total(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ktop_agg_total, &zero);
}

/* floor(log2(v)), v > 0 */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; r |= shift;
	shift = (v > 0xff) << 3; v >>= shift; r |= shift;
	shift = (v > 0xf) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

/* The kernel's .log2: ilog2(roundup_pow_of_two(v)); 0 and 1 in bucket 0. */
static __always_inline __u32 bucket_of(__u64 v)
{
	return v <= 1 ? 0 : log2_u64(v - 1) + 1;
}

/* A number field, widened (sign-extended when signed). */
static __always_inline __u64 read_num(void *ctx, __u16 off, __u16 size, __u8 kind)
{
	__u32 n = size > 8 ? 8 : size;
	__u64 v = 0;

	if (kind == AGGLAT_CURPID)
		return (__u64)(__s64)(__s32)bpf_get_current_pid_tgid();
	bpf_probe_read_kernel(&v, n, ctx + off);
	if (kind == AGGLAT_SINT && size < 8) {
		__u32 sh = 64 - size * 8;

		v = (__u64)((__s64)(v << sh) >> sh);
	}
	return v;
}

static __always_inline bool pred_ok(void *ctx, const volatile struct agglat_pred *p)
{
	if (p->kind == AGGLAT_STR) {
		char s[AGGLAT_STR_MAX] = {};
		__u32 n = p->size > AGGLAT_STR_MAX ? AGGLAT_STR_MAX : p->size;
		bool eq = true;

		bpf_probe_read_kernel(s, n, ctx + p->off);
		for (int i = 0; i < AGGLAT_STR_MAX; i++) {
			if (s[i] != p->str[i]) {
				eq = false;
				break;
			}
			if (!s[i])
				break;
		}
		return p->op == AGGLAT_NE ? !eq : eq;
	}
	{
		__u64 v = read_num(ctx, p->off, p->size, p->kind), w = p->val;
		bool sgn = p->kind == AGGLAT_SINT;

		switch (p->op) {
		case AGGLAT_EQ:
			return v == w;
		case AGGLAT_NE:
			return v != w;
		case AGGLAT_LT:
			return sgn ? (__s64)v < (__s64)w : v < w;
		case AGGLAT_LE:
			return sgn ? (__s64)v <= (__s64)w : v <= w;
		case AGGLAT_GT:
			return sgn ? (__s64)v > (__s64)w : v > w;
		case AGGLAT_GE:
			return sgn ? (__s64)v >= (__s64)w : v >= w;
		case AGGLAT_AND:
			return (v & w) != 0;
		}
	}
	return false;
}

static __always_inline bool side_ok(void *ctx, const volatile struct agglat_side *sd)
{
	for (int i = 0; i < AGGLAT_PREDS; i++) {
		if (i >= sd->np)
			break;
		if (!pred_ok(ctx, &sd->p[i]))
			return false;
	}
	return true;
}

static __always_inline void read_key(void *ctx, const volatile struct agglat_field *f,
				     __u32 n, struct agglat_key *k)
{
	for (int i = 0; i < AGGLAT_FIELDS; i++) {
		__u32 koff, size;

		if (i >= n)
			break;
		koff = f[i].koff & (AGGLAT_KEY_BYTES - 1);
		size = f[i].size;
		if (size > AGGLAT_KEY_BYTES - koff)
			size = AGGLAT_KEY_BYTES - koff;
		if (f[i].kind == AGGLAT_CURPID) {
			__u32 pid = (__u32)bpf_get_current_pid_tgid();

			if (koff <= AGGLAT_KEY_BYTES - 4)
				__builtin_memcpy(&k->b[koff], &pid, 4);
			continue;
		}
		bpf_probe_read_kernel(&k->b[koff], size, ctx + f[i].off);
	}
}

SEC("tracepoint")
int ktop_agg_on_start(void *ctx)
{
	struct agglat_key k = {};
	struct agglat_total *t;
	__u64 now = bpf_ktime_get_ns();
	int ret;

	if (!side_ok(ctx, &cfg.start))
		return 0;
	t = total();
	if (!t)
		return 0;
	t->starts++;
	read_key(ctx, cfg.start.f, cfg.start.nf, &k);
	ret = bpf_map_update_elem(&ktop_agg_start, &k, &now, BPF_NOEXIST);
	if (ret == -17 /* EEXIST */) {
		t->restarts++;
		bpf_map_update_elem(&ktop_agg_start, &k, &now, BPF_EXIST);
	} else if (ret) {
		t->start_full++;
	}
	return 0;
}

static __always_inline void row_add(void *ctx, struct agglat_total *t, struct agglat_key *bk,
				    __u64 v, __u64 te)
{
	struct agglat_row *r = bpf_map_lookup_elem(&ktop_agg_keys, bk);

	if (!r) {
		struct agglat_row zero = {};

		bpf_map_update_elem(&ktop_agg_keys, bk, &zero, BPF_NOEXIST);
		r = bpf_map_lookup_elem(&ktop_agg_keys, bk);
		if (!r) {
			t->key_full++;
			return;
		}
	}
	r->count++;
	r->sum += v;
	if (v > r->max || r->count == 1) {
		r->max = v;
		r->max_te = te;
	}
}

SEC("tracepoint")
int ktop_agg_on_end(void *ctx)
{
	struct agglat_key k = {}, bk = {};
	struct agglat_total *t;
	__u64 now = bpf_ktime_get_ns(), *ts, lat, b;

	if (!side_ok(ctx, &cfg.end))
		return 0;
	t = total();
	if (!t)
		return 0;
	t->ends++;
	read_key(ctx, cfg.by, cfg.nby, &bk);
	if (cfg.mode == AGGLAT_HIST) {
		__u64 v = cfg.val.size ? read_num(ctx, cfg.val.off, cfg.val.size, cfg.val.kind) : 0;

		t->pairs++;
		t->sum += v;
		row_add(ctx, t, &bk, v, now);
		return 0;
	}
	read_key(ctx, cfg.end.f, cfg.end.nf, &k);
	ts = bpf_map_lookup_elem(&ktop_agg_start, &k);
	if (!ts)
		return 0;
	lat = now - *ts;
	bpf_map_delete_elem(&ktop_agg_start, &k);
	t->pairs++;
	t->sum += lat;
	if (t->pairs == 1 || lat < t->min)
		t->min = lat;
	if (t->pairs == 1 || lat > t->max) {
		t->max = lat;
		t->max_te = now;
		__builtin_memcpy(&t->max_key, &bk, sizeof(bk));
	}
	b = bucket_of(lat);
	if (b >= AGGLAT_BUCKETS)
		b = AGGLAT_BUCKETS - 1;
	/* the mask in the program itself: clang drops it as redundant, 6.1's verifier needs it */
	asm volatile("%[b] &= 63" : [b] "+r"(b));
	t->bucket[b]++;
	row_add(ctx, t, &bk, lat, now);
	return 0;
}

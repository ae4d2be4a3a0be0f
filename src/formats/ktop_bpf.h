/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The BPF block of a .ktop stream (ktop_bpf.c): one poll of the far side's
 * BPF statistics as bytes, and back. Internal to src/formats/ktop_*.c.
 */
#ifndef KTOP_FORMAT_KTOP_BPF_H
#define KTOP_FORMAT_KTOP_BPF_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct bpfstats_raw;

/* Append @r to @b. Return: 0, or @b's error (-ENOMEM). */
int ktop_bpf_encode(struct buf *b, const struct bpfstats_raw *r);

/**
 * ktop_bpf_decode - the poll in @n bytes at @p
 * @r: filled; its tables are allocated (bpfstats_raw_free), nothing on failure
 * Return: 0, -EPROTO (another version of the block) or -EBADMSG, with @err.
 */
int ktop_bpf_decode(const uint8_t *p, size_t n, struct bpfstats_raw *r, char *err,
		    size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AGG block of a .ktop file or stream (ktop_agg.c): the in-kernel
 * aggregations' results (--latency, --hist) at one poll, and back.
 * Internal to src/formats/ktop_*.c.
 */
#ifndef KTOP_FORMAT_KTOP_AGG_H
#define KTOP_FORMAT_KTOP_AGG_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct agg_set;
struct agg_result;

/* Append @s's results to @b. Return: 0, or @b's error (-ENOMEM). */
int ktop_agg_encode(struct buf *b, struct agg_set *s);

/**
 * ktop_agg_decode - the results in @n bytes at @p
 * @out: receives a malloc'd array of *@nout results (agg_result_clear each,
 *	 then free it); nothing on failure
 * Return: 0, -EPROTO (another version of the block) or -EBADMSG, with @err.
 */
int ktop_agg_decode(const uint8_t *p, size_t n, struct agg_result **out, unsigned int *nout,
		    char *err, size_t errlen);

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel records (src/formats/krecord.h) packed into ring-buffer pages for
 * the trace.dat writer, as the kernel packs them (src/ingest/rb_page.h): deltas,
 * time extends, length words, and the missed-events flag (with the count
 * when there is room) on the page after a loss.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/rb_page.h"
#include "tracedat-local.h"

static void put_int(uint8_t *p, unsigned int size, uint64_t v)
{
	for (unsigned int i = 0; i < size && i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void pager_close(struct tdat_pager *p)
{
	uint64_t commit = p->used;

	if (!p->open)
		return;
	if (p->missed) {
		commit |= RB_MISSED_EVENTS;
		if (p->missed != UINT64_MAX && p->hdr + p->used + p->long_size <= p->psize) {
			put_int(p->page + p->hdr + p->used, p->long_size, p->missed);
			commit |= RB_MISSED_STORED;
		}
	}
	put_int(p->page + 8, p->long_size, commit);
	if (!p->err)
		p->err = p->emit(p->arg, p->page);
	p->open = false;
	p->missed = 0;
}

static void pager_open(struct tdat_pager *p, uint64_t ts)
{
	memset(p->page, 0, p->psize);
	put_int(p->page, 8, ts);
	p->used = 0;
	p->last_ts = ts;
	p->open = true;
}

int tdat_pager_init(struct tdat_pager *p, size_t psize, unsigned int long_size,
		    int (*emit)(void *arg, const uint8_t *page), void *arg)
{
	memset(p, 0, sizeof(*p));
	p->psize = psize;
	p->long_size = long_size == 4 ? 4 : 8;
	p->hdr = RB_PAGE_HDR(p->long_size);
	p->emit = emit;
	p->arg = arg;
	p->page = malloc(psize);
	return p->page ? 0 : -ENOMEM;
}

void tdat_pager_lost(struct tdat_pager *p, uint64_t ts, uint64_t count)
{
	/* the kernel flags the first page after the loss: start one (or add to it) */
	if (!p->open || p->used) {
		pager_close(p);
		pager_open(p, ts);
	}
	if (!count || p->missed == UINT64_MAX)
		p->missed = UINT64_MAX;		/* some, number unknown */
	else
		p->missed += count;
}

void tdat_pager_add(struct tdat_pager *p, uint64_t ts, const uint8_t *rec, int size)
{
	size_t len = ((size_t)size + 3) & ~(size_t)3, need;
	uint64_t delta;
	uint8_t *w;

	need = RB_EVENT_HDR + len + (len > RB_MAX_SMALL_DATA ? 4 : 0);
	if (!p->open)
		pager_open(p, ts);
	delta = ts - p->last_ts;
	if (delta >= (1ull << RB_TS_SHIFT))
		need += 8;
	/* keep room for a stored missed count */
	if (p->hdr + p->used + need + p->long_size > p->psize) {
		pager_close(p);
		pager_open(p, ts);
		delta = 0;
		need = RB_EVENT_HDR + len + (len > RB_MAX_SMALL_DATA ? 4 : 0);
		if (p->hdr + need > p->psize)
			return;	/* cannot happen for KRECORD_MAX/2 records and 4 KiB pages */
	}
	w = p->page + p->hdr + p->used;
	if (delta >= (1ull << RB_TS_SHIFT)) {
		put_int(w, 4, RB_TYPE_TIME_EXTEND |
			(uint32_t)((delta & ((1u << RB_TS_SHIFT) - 1)) << RB_TYPE_BITS));
		put_int(w + 4, 4, delta >> RB_TS_SHIFT);
		w += 8;
		p->used += 8;
		delta = 0;
	}
	if (len <= RB_MAX_SMALL_DATA && len) {
		put_int(w, 4, (uint32_t)(len / 4) | (uint32_t)(delta << RB_TYPE_BITS));
		memcpy(w + 4, rec, size);
		p->used += 4 + len;
	} else {
		put_int(w, 4, (uint32_t)(delta << RB_TYPE_BITS));
		put_int(w + 4, 4, len + 4);
		memcpy(w + 8, rec, size);
		p->used += 8 + len;
	}
	p->last_ts = ts;
}

void tdat_pager_together(struct tdat_pager *p, uint64_t ts, size_t bytes)
{
	/* each record's length word(s), rounding, and one time extend */
	size_t need = bytes + 12 * 3 + 8;

	if (p->open && p->used && p->hdr + p->used + need + p->long_size > p->psize &&
	    p->hdr + need + p->long_size <= p->psize) {
		pager_close(p);
		pager_open(p, ts);
	}
}

int tdat_pager_finish(struct tdat_pager *p)
{
	pager_close(p);
	free(p->page);
	p->page = NULL;
	return p->err;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's latency column, letter for letter as trace_print_lat_fmt()
 * prints it. Checked against the kernel's own trace text in
 * tests/unit/test_flags.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/event.h"
#include "store/meta.h"
#include "flags.h"

const char *const flags_share_names[FLAGS_S_NR] = {
	"irqs_off", "need_resched", "hardirq", "softirq", "nmi", "preempt", "migrate_disable",
};
const char *const flags_share_heads[FLAGS_S_NR] = {
	"IRQOFF", "NRESCHED", "HARDIRQ", "SOFTIRQ", "NMI", "PREEMPT", "MIGDIS",
};

enum flags_style flags_style_detect(const char *release, bool has_lazy_count)
{
	unsigned long major, minor = 0;
	char *end;

	if (has_lazy_count)
		return FLAGS_STYLE_RT_LAZY_COUNT;
	if (!release)
		return FLAGS_STYLE_LAZY;
	major = strtoul(release, &end, 10);
	if (*end == '.')
		minor = strtoul(end + 1, NULL, 10);
	if (major > 6 || (major == 6 && minor >= 12))
		return FLAGS_STYLE_LAZY;
	return FLAGS_STYLE_NOSUPPORT;
}

enum flags_style flags_style_of_meta(const struct snapshot_meta *m)
{
	bool lazy = false;

	for (size_t i = 0; i < m->nformats && !lazy; i++)
		lazy = m->formats[i].text && strstr(m->formats[i].text, "common_preempt_lazy_count");
	return flags_style_detect(m->release[0] ? m->release : NULL, lazy);
}

static char flags_hardsoft(uint8_t f)
{
	bool nmi = f & KTOP_KF_NMI, hardirq = f & KTOP_KF_HARDIRQ, softirq = f & KTOP_KF_SOFTIRQ;

	if (nmi && hardirq)
		return 'Z';
	if (nmi)
		return 'z';
	if (hardirq && softirq)
		return 'H';
	if (hardirq)
		return 'h';
	if (softirq)
		return 's';
	return '.';
}

static char flags_need_resched_lazy(uint8_t f)
{
	enum { N = KTOP_KF_NEED_RESCHED, L = KTOP_KF_BIT1, P = KTOP_KF_PREEMPT_RESCHED };

	switch (f & (N | L | P)) {
	case N | L | P:
		return 'B';
	case N | P:
		return 'N';
	case L | P:
		return 'L';
	case N | L:
		return 'b';
	case N:
		return 'n';
	case L:
		return 'l';
	case P:
		return 'p';
	default:
		return '.';
	}
}

static char flags_need_resched_plain(uint8_t f)
{
	switch (f & (KTOP_KF_NEED_RESCHED | KTOP_KF_PREEMPT_RESCHED)) {
	case KTOP_KF_NEED_RESCHED | KTOP_KF_PREEMPT_RESCHED:
		return 'N';
	case KTOP_KF_NEED_RESCHED:
		return 'n';
	case KTOP_KF_PREEMPT_RESCHED:
		return 'p';
	default:
		return '.';
	}
}

static char flags_hex(unsigned int v)
{
	return v ? "0123456789abcdef"[v & 0xf] : '.';
}

int flags_format(char *buf, enum flags_style style, uint8_t flags, uint8_t pc,
		 uint8_t lazy_count)
{
	bool irqs_off = flags & KTOP_KF_IRQS_OFF, bh_off = flags & KTOP_KF_BH_OFF;
	int n = 0;

	if (irqs_off && bh_off)
		buf[n++] = 'D';
	else if (irqs_off)
		buf[n++] = 'd';
	else if (bh_off)
		buf[n++] = 'b';
	else if (style != FLAGS_STYLE_LAZY && (flags & KTOP_KF_BIT1))
		buf[n++] = 'X';
	else
		buf[n++] = '.';

	switch (style) {
	case FLAGS_STYLE_LAZY:
		buf[n++] = flags_need_resched_lazy(flags);
		break;
	case FLAGS_STYLE_NOSUPPORT:
		buf[n++] = flags_need_resched_plain(flags);
		break;
	case FLAGS_STYLE_RT_LAZY_COUNT:
		/*
		 * There bit 0x20 is NEED_RESCHED_LAZY and PREEMPT_RESCHED is 0 (the
		 * two share the bit), so the 'N' and 'p' cases never occur.
		 */
		buf[n++] = flags & KTOP_KF_NEED_RESCHED ? 'n' : '.';
		buf[n++] = flags & KTOP_KF_PREEMPT_RESCHED ? 'L' : '.';
		break;
	}
	buf[n++] = flags_hardsoft(flags);
	buf[n++] = flags_hex(KTOP_PC_PREEMPT(pc));
	if (style == FLAGS_STYLE_RT_LAZY_COUNT)
		buf[n++] = lazy_count ? (lazy_count > 15 ? '+' : flags_hex(lazy_count)) : '.';
	buf[n++] = flags_hex(KTOP_PC_MIGRATE(pc));
	buf[n] = '\0';
	return n;
}

int flags_format_shown(char *buf, enum flags_style style, uint8_t flags, uint8_t pc,
		       uint8_t lazy_count)
{
	int n = flags_format(buf, style, flags, pc, lazy_count);

	if (!ktop_ctx_recorded(pc))
		memset(buf, '?', (size_t)n);
	return n;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Performance Co-Pilot's libraries, loaded when asked for.
 *
 * ktop links no PCP library: a kernel engineer who installs ktop without PCP
 * installs nothing of PCP. `ktop --pmda`, `--pcp` and `--pcp-archive` load
 * libpcp.so.3 (and libpcp_pmda.so.3 for the agent) with dlopen(3), by their
 * sonames, and call them through one table of function pointers, typed from
 * PCP's own headers (Debian's libpcp3-dev and libpcp-pmda3-dev) so a
 * prototype cannot drift. Built without those headers (KTOP_HAVE_PCP unset),
 * the three options say so and exit with status 2.
 *
 * Every libpcp call goes through P (pcplib()->...). The list is PCPLIB_FUNCS
 * and PCPLIB_PMDA_FUNCS below: a function not listed there cannot be called.
 */
#ifndef KTOP_PCPLIB_H
#define KTOP_PCPLIB_H

#include <stdbool.h>
#include <stddef.h>

#ifdef KTOP_HAVE_PCP
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

/* libpcp.so.3: clients (the fleet view) and what the agent shares with them */
#define PCPLIB_FUNCS(X)							\
	X(pmSetProgname) X(pmGetConfig) X(pmErrStr_r) X(pmNewContext)		\
	X(pmDestroyContext) X(pmUseContext) X(pmReconnectContext)		\
	X(pmLookupName) X(pmLookupDesc) X(pmFetch) X(pmFreeResult)		\
	X(pmExtractValue) X(pmNameInDom) X(pmNameInDomArchive) X(pmSetMode)	\
	X(pmParseTimeWindow) X(pmGetArchiveLabel) X(pmGetArchiveEnd)		\
	X(pmGetContextHostName_r) X(pmNewContextZone) X(pmNewZone)		\
	X(pmID_build) X(pmInDom_build) X(pmID_cluster) X(pmID_item)		\
	X(pmInDom_serial)

/* libpcp_pmda.so.3: the agent */
#define PCPLIB_PMDA_FUNCS(X)							\
	X(pmdaDaemon) X(pmdaOpenLog) X(pmdaInit) X(pmdaConnect)		\
	X(pmdaSendError) X(pmdaSetFetchCallBack) X(pmdaSetLabelCallBack)	\
	X(pmdaFetch) X(pmdaLabel) X(pmdaAddLabels) X(pmdaInstance)		\
	X(pmdaCacheOp) X(pmdaCacheStore) X(pmdaCacheLookupName)		\
	X(pmdaCacheLookup) X(__pmdaMainPDU) X(__pmdaInFd) X(pmdaText)		\
	X(pmdaSetFlags)

#define PCPLIB_PTR(f)	__typeof__(f) *f;
struct pcplib {
	PCPLIB_FUNCS(PCPLIB_PTR)
	PCPLIB_PMDA_FUNCS(PCPLIB_PTR)
};
#undef PCPLIB_PTR
#else
struct pcplib;
#endif

enum pcplib_part {
	PCPLIB_CLIENT = 1,	/* libpcp.so.3 */
	PCPLIB_PMDA = 2,	/* and libpcp_pmda.so.3 */
};

/**
 * pcplib_load - load PCP's libraries (once; later calls only check)
 * @parts: PCPLIB_CLIENT, or PCPLIB_CLIENT | PCPLIB_PMDA
 * @err: why not: a library missing (with the Debian package that has it),
 *       a function missing (an older PCP), or ktop built without PCP
 *
 * Return: 0, or a negative errno (-ENOENT, -ENOSYS) with @err set.
 * Context: the main thread, before any other thread uses PCP.
 */
int pcplib_load(unsigned int parts, char *err, size_t errlen);

/* The loaded table; valid after pcplib_load() succeeded. */
const struct pcplib *pcplib(void);

/* True when this ktop was built with PCP's headers. */
bool pcplib_built(void);

/* pmErrStr_r() into @buf (sized PM_MAXERRMSGLEN or less). Return: @buf. */
const char *pcplib_err(int code, char *buf, size_t len);

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PCP's libraries through dlopen(3) (see pcplib.h for why). Loaded once, by
 * soname, with RTLD_NOW so a missing function is said at load and not at a
 * fetch; never unloaded (libpcp keeps threads and atexit handlers).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/err.h"
#include "pcplib.h"

#ifdef KTOP_HAVE_PCP

#define PCPLIB_SO	"libpcp.so.3"
#define PCPLIB_PMDA_SO	"libpcp_pmda.so.3"

static struct pcplib pcp;
static unsigned int loaded;

/* Resolve every name of one list. Return: 0, or -ENOSYS naming the first missing. */
static int pcplib_resolve(void *h, const char *so, const char *const *names, void **slots,
			  size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		slots[i] = dlsym(h, names[i]);
		if (!slots[i])
			return err_set(err, errlen, -ENOSYS, "%s has no %s: ktop needs PCP 6.0 "
				       "or later", so, names[i]);
	}
	return 0;
}

static int pcplib_open(const char *so, const char *pkg, void **h, char *err, size_t errlen)
{
	*h = dlopen(so, RTLD_NOW | RTLD_GLOBAL);
	if (!*h)
		return err_set(err, errlen, -ENOENT, "cannot load %s (%s): install Performance "
			       "Co-Pilot (Debian: apt-get install %s)", so, dlerror(), pkg);
	return 0;
}

int pcplib_load(unsigned int parts, char *err, size_t errlen)
{
#define PCPLIB_NAME(f)	#f,
#define PCPLIB_SLOT(f)	(void **)&pcp.f,
	static const char *const cnames[] = { PCPLIB_FUNCS(PCPLIB_NAME) };
	static const char *const pnames[] = { PCPLIB_PMDA_FUNCS(PCPLIB_NAME) };
	void **cslots[] = { PCPLIB_FUNCS(PCPLIB_SLOT) };
	void **pslots[] = { PCPLIB_PMDA_FUNCS(PCPLIB_SLOT) };
#undef PCPLIB_NAME
#undef PCPLIB_SLOT
	void *h, *tmp[sizeof(pnames) / sizeof(pnames[0]) + sizeof(cnames) / sizeof(cnames[0])];
	int ret;

	if ((parts & PCPLIB_CLIENT) && !(loaded & PCPLIB_CLIENT)) {
		ret = pcplib_open(PCPLIB_SO, "libpcp3 (or pcp)", &h, err, errlen);
		if (!ret)
			ret = pcplib_resolve(h, PCPLIB_SO, cnames, tmp, sizeof(cnames) /
					     sizeof(cnames[0]), err, errlen);
		if (ret)
			return ret;
		for (size_t i = 0; i < sizeof(cnames) / sizeof(cnames[0]); i++)
			*cslots[i] = tmp[i];
		loaded |= PCPLIB_CLIENT;
	}
	if ((parts & PCPLIB_PMDA) && !(loaded & PCPLIB_PMDA)) {
		ret = pcplib_open(PCPLIB_PMDA_SO, "libpcp-pmda3 (or pcp)", &h, err, errlen);
		if (!ret)
			ret = pcplib_resolve(h, PCPLIB_PMDA_SO, pnames, tmp, sizeof(pnames) /
					     sizeof(pnames[0]), err, errlen);
		if (ret)
			return ret;
		for (size_t i = 0; i < sizeof(pnames) / sizeof(pnames[0]); i++)
			*pslots[i] = tmp[i];
		loaded |= PCPLIB_PMDA;
	}
	return 0;
}

const struct pcplib *pcplib(void)
{
	return &pcp;
}

bool pcplib_built(void)
{
	return true;
}

const char *pcplib_err(int code, char *buf, size_t len)
{
	char tmp[PM_MAXERRMSGLEN];

	if (loaded & PCPLIB_CLIENT)
		snprintf(buf, len, "%s", pcp.pmErrStr_r(code, tmp, sizeof(tmp)));
	else
		snprintf(buf, len, "PCP error %d", code);
	return buf;
}

#else /* !KTOP_HAVE_PCP */

int pcplib_load(unsigned int parts, char *err, size_t errlen)
{
	(void)parts;
	return err_set(err, errlen, -ENOSYS, "this ktop was built without Performance "
		       "Co-Pilot (its headers, Debian's libpcp3-dev and libpcp-pmda3-dev, were "
		       "missing at build time): rebuild with them for --pmda and --pcp");
}

const struct pcplib *pcplib(void)
{
	return NULL;
}

bool pcplib_built(void)
{
	return false;
}

const char *pcplib_err(int code, char *buf, size_t len)
{
	snprintf(buf, len, "PCP error %d", code);
	return buf;
}

#endif

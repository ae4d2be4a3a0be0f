// SPDX-License-Identifier: GPL-2.0-or-later
/* The command line's -l, -n, -g in the filter prompt's language: see funcfilter_cmdline.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "funcfilter_cmdline.h"
#include "funcfilter/ftrace_filter.h"
#include "session.h"

int funcfilter_cmdline_line(const struct session_opts *o, char *buf, size_t len)
{
	const struct {
		const char		*flag;
		const char *const	*v;
		unsigned int		n;
	} lists[] = {
		{ "-l", o->filters, o->nfilters }, { "-n", o->notrace, o->nnotrace },
		{ "-g", o->graph_funcs, o->ngraph_funcs },
	};
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (unsigned int i = 0; i < lists[l].n; i++) {
			at += (size_t)snprintf(buf + at, len - at, "%s%s %s", at ? " " : "",
					       lists[l].flag, lists[l].v[i]);
			if (at >= len)
				return -E2BIG;
		}
	return 0;
}

int funcfilter_cmdline_apply(const struct session_opts *o, const char *dir, const char *top,
			     char *err, size_t errlen)
{
	struct ftrace_filter_result res;
	struct ftrace_filter *f;
	char line[FUNCFILTER_LINE_MAX + 1];
	int ret;

	ret = funcfilter_cmdline_line(o, line, sizeof(line));
	if (ret) {
		snprintf(err, errlen, "-l/-n/-g: more than %d bytes of patterns",
			 FUNCFILTER_LINE_MAX);
		return ret;
	}
	if (!line[0])
		return 0;
	ret = ftrace_filter_open_dir(&f, dir, top, err, errlen);
	if (ret)
		return ret;
	if (!ftrace_filter_funcs(f)) {
		snprintf(err, errlen, "function filters (-l/-n/-g): %s", ftrace_filter_unavailable(f));
		ftrace_filter_close(f);
		return -EPERM;
	}
	ret = ftrace_filter_apply(f, line, &res);
	if (ret)
		snprintf(err, errlen, "function filters (%s): %s%s%s", line, res.msg,
			 res.kernel_error[0] && !strstr(res.msg, res.kernel_error) ? "; kernel: " :
			 "", res.kernel_error[0] && !strstr(res.msg, res.kernel_error) ?
			 res.kernel_error : "");
	ftrace_filter_close(f);
	return ret;
}

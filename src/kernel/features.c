// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What this kernel lets ktop do. Tracers are tried, not guessed: each one is
 * written to current_tracer of a scratch instance (removed after). Never at
 * the top level: the kernel clears the top-level buffer before it refuses a
 * tracer there, and on a fresh boot allocates it; the top level is someone
 * else's unless a session of ktop takes it over (session.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "lib/err.h"
#include "features.h"
#include "lib/file.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC	0x74726163
#endif

static const struct {
	const char *name;
	const char *config;
} feature_names[FEATURE_NR] = {
	[FEATURE_TRACEFS]	 = { "tracefs",		  "CONFIG_TRACING" },
	[FEATURE_INSTANCES]	 = { "instances",	  "CONFIG_TRACING" },
	[FEATURE_EVENTS]	 = { "events",		  "CONFIG_EVENT_TRACING" },
	[FEATURE_FUNCTION]	 = { "function",	  "CONFIG_FUNCTION_TRACER" },
	[FEATURE_FUNCTION_GRAPH] = { "function_graph",	  "CONFIG_FUNCTION_GRAPH_TRACER" },
	[FEATURE_FTRACE_FILTER]	 = { "set_ftrace_filter", "CONFIG_DYNAMIC_FTRACE" },
	[FEATURE_OSNOISE]	 = { "osnoise",		  "CONFIG_OSNOISE_TRACER" },
	[FEATURE_TIMERLAT]	 = { "timerlat",	  "CONFIG_TIMERLAT_TRACER" },
	[FEATURE_BPF]		 = { "bpf",		  "CONFIG_BPF_SYSCALL" },
	[FEATURE_BTF]		 = { "btf",		  "CONFIG_DEBUG_INFO_BTF" },
	[FEATURE_HIST]		 = { "hist_triggers",	  "CONFIG_HIST_TRIGGERS" },
};

const char *feature_state_str(enum feature_state s)
{
	switch (s) {
	case FEAT_AVAILABLE:		return "available";
	case FEAT_NOT_BUILT:		return "not built in";
	case FEAT_NOT_PERMITTED:	return "not permitted";
	case FEAT_NEEDS_ROOT:		return "needs root";
	case FEAT_TOP_LEVEL_ONLY:	return "top level only";
	case FEAT_NOT_TRIED:		return "not tried";
	case FEAT_UNKNOWN:		break;
	}
	return "unknown";
}

static void feat_set(struct features *ft, enum feature_id id, enum feature_state st,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void feat_set(struct features *ft, enum feature_id id, enum feature_state st,
		     const char *fmt, ...)
{
	va_list ap;

	ft->f[id].state = st;
	va_start(ap, fmt);
	err_vset(ft->f[id].detail, sizeof(ft->f[id].detail), 0, fmt, ap);
	va_end(ap);
}

int features_rmdir_instance(const char *path, unsigned int max_ms)
{
	for (unsigned int waited = 0;; waited += 10) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (!rmdir(path))
			return 0;
		if (errno != EBUSY || waited >= max_ms)
			break;
		nanosleep(&ts, NULL);
	}
	return -errno;
}

static bool is_tracefs(const char *dir)
{
	struct statfs sfs;

	return !statfs(dir, &sfs) && (unsigned long)sfs.f_type == TRACEFS_MAGIC;
}

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

bool features_tracefs_mounted(void)
{
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
		if (is_tracefs(tracefs_dirs[i]))
			return true;
	return false;
}

static void probe_tracefs(struct features *ft)
{
	const char *const *dirs = tracefs_dirs;

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		if (is_tracefs(dirs[i])) {
			snprintf(ft->tracefs, sizeof(ft->tracefs), "%s", dirs[i]);
			feat_set(ft, FEATURE_TRACEFS, FEAT_AVAILABLE, "mounted at %s", dirs[i]);
			return;
		}
	}
	if (access("/sys/kernel/tracing", F_OK)) {
		feat_set(ft, FEATURE_TRACEFS, FEAT_NOT_BUILT,
			 "no /sys/kernel/tracing: kernel without CONFIG_TRACING");
		return;
	}
	if (!ft->root) {
		feat_set(ft, FEATURE_TRACEFS, FEAT_NEEDS_ROOT,
			 "not mounted; as root: mount -t tracefs nodev /sys/kernel/tracing");
		return;
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		feat_set(ft, FEATURE_TRACEFS, errno == ENODEV ? FEAT_NOT_BUILT : FEAT_NOT_PERMITTED,
			 "not mounted, and mount failed: %s", strerror(errno));
		return;
	}
	snprintf(ft->tracefs, sizeof(ft->tracefs), "/sys/kernel/tracing");
	feat_set(ft, FEATURE_TRACEFS, FEAT_AVAILABLE,
		 "was not mounted: ktop mounted it at /sys/kernel/tracing (left mounted)");
}

bool features_tracer_listed(const char *dir, const char *name, char *list, size_t len)
{
	char path[1024], buf[4096], *tok, *save;
	bool found = false;

	if (len)
		list[0] = '\0';
	snprintf(path, sizeof(path), "%s/available_tracers", dir);
	if (file_read_value(path, buf, sizeof(buf)))
		return false;
	if (len)
		snprintf(list, len, "%s", buf);
	for (tok = strtok_r(buf, " \n", &save); tok && !found; tok = strtok_r(NULL, " \n", &save))
		found = !strcmp(tok, name);
	return found;
}

/*
 * Kernels before per-instance buffer expansion (6.1 is one) keep a single
 * "buffers expanded" flag for every instance. On a fresh boot the top-level
 * buffer is not allocated yet ("7 (expanded: 1408)"): an event control write
 * in any instance allocates it, as it would for the top level's own events,
 * but a tracer or a buffer size written in an instance only sets the flag,
 * leaving the top level at its boot size of a few pages for good. An
 * instance tells which kind of kernel this is: there a new instance has its
 * full buffer and still says "(expanded: ...)".
 */
static bool expansion_is_global(const char *dir)
{
	char path[1024], buf[128];

	snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
	return !file_read_value(path, buf, sizeof(buf)) && strstr(buf, "(expanded:");
}

int features_expand_global(const char *dir)
{
	char path[1024];
	int ret;

	if (!expansion_is_global(dir))
		return 0;
	/*
	 * With the flag still clear no event is on anywhere: writing 0 turns
	 * nothing off, and expands the buffers as an event enable does.
	 */
	snprintf(path, sizeof(path), "%s/events/enable", dir);
	ret = file_write_str(path, "0", O_TRUNC);
	return ret ? ret : 1;
}

/*
 * @try: write it to current_tracer of @scratch to be sure; without it, being
 * listed in available_tracers is as far as the probe goes.
 */
static void probe_tracer(struct features *ft, enum feature_id id, const char *scratch,
			 bool try, const char *why_not)
{
	const char *name = ft->f[id].name;
	char path[1024];
	int ret;

	if (!features_tracer_listed(ft->tracefs, name, NULL, 0)) {
		feat_set(ft, id, FEAT_NOT_BUILT, "not in available_tracers");
		return;
	}
	if (!scratch) {
		feat_set(ft, id, FEAT_NOT_TRIED, "in available_tracers; not tried: no tracefs "
			 "instance to try it in (never at the top level)");
		return;
	}
	if (!try) {
		feat_set(ft, id, FEAT_AVAILABLE, "in available_tracers (tried when chosen)");
		return;
	}
	if (why_not) {
		feat_set(ft, id, FEAT_NOT_TRIED, "in available_tracers; not tried: %s", why_not);
		return;
	}
	if (!strcmp(name, "function") || !strcmp(name, "function_graph")) {
		/*
		 * Trace one rarely called function: enabling a function tracer
		 * unfiltered patches every traceable function twice (on, off),
		 * tens of seconds under emulation. The scratch instance and its
		 * filter go away after the probe. Best effort: without the file
		 * (or permission) the probe runs unfiltered.
		 */
		snprintf(path, sizeof(path), "%s/set_ftrace_filter", scratch);
		if (file_write_str(path, "ksys_sync\n", O_TRUNC))
			file_write_str(path, "schedule\n", O_TRUNC);
	}
	/* the caller said it may: see probe_all() */
	features_expand_global(scratch);
	snprintf(path, sizeof(path), "%s/current_tracer", scratch);
	ret = file_write_str(path, name, O_TRUNC);
	if (!ret) {
		file_write_str(path, "nop", O_TRUNC);
		feat_set(ft, id, FEAT_AVAILABLE, "tried in an instance");
	} else if (ret == -EPERM) {
		/* the top level would refuse it too, after clearing its buffer */
		feat_set(ft, id, FEAT_NOT_PERMITTED, "writing current_tracer in an instance: %s "
			 "(kernel lockdown or security policy)", strerror(EPERM));
	} else {
		/*
		 * Refused in an instance, but not for want of permission: the
		 * kernel allows this tracer only at the top level (function_graph
		 * before 6.9). Trying it there would clear the top-level buffer;
		 * a session that asks for it takes the top level over with its
		 * state saved, and says so if the top level refuses.
		 */
		feat_set(ft, id, FEAT_TOP_LEVEL_ONLY, "refused in an instance (%s)",
			 strerror(-ret));
	}
}

static void probe_ftrace_filter(struct features *ft, const char *scratch)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/set_ftrace_filter", scratch ? scratch : ft->tracefs);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		feat_set(ft, FEATURE_FTRACE_FILTER, FEAT_AVAILABLE, "readable");
		return;
	}
	if (errno == ENOENT)
		feat_set(ft, FEATURE_FTRACE_FILTER, FEAT_NOT_BUILT, "no set_ftrace_filter file");
	else if (errno == EPERM)
		feat_set(ft, FEATURE_FTRACE_FILTER, FEAT_NOT_PERMITTED,
			 "opening set_ftrace_filter: %s (kernel lockdown or security policy)",
			 strerror(EPERM));
	else
		feat_set(ft, FEATURE_FTRACE_FILTER, FEAT_UNKNOWN, "opening set_ftrace_filter: %s",
			 strerror(errno));
}

static void probe_bpf(struct features *ft)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	attr.insns = (uint64_t)(unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(unsigned long)"GPL";
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd >= 0) {
		close(fd);
		feat_set(ft, FEATURE_BPF, FEAT_AVAILABLE, "loaded a tracepoint program");
		return;
	}
	if (errno == ENOSYS)
		feat_set(ft, FEATURE_BPF, FEAT_NOT_BUILT, "no bpf() syscall");
	else if (errno == EPERM && !ft->root)
		feat_set(ft, FEATURE_BPF, FEAT_NEEDS_ROOT, "BPF_PROG_LOAD: %s", strerror(EPERM));
	else if (errno == EPERM)
		feat_set(ft, FEATURE_BPF, FEAT_NOT_PERMITTED, "BPF_PROG_LOAD: %s", strerror(EPERM));
	else
		feat_set(ft, FEATURE_BPF, FEAT_UNKNOWN, "BPF_PROG_LOAD: %s", strerror(errno));
}

static void probe_btf(struct features *ft)
{
	if (!access("/sys/kernel/btf/vmlinux", R_OK))
		feat_set(ft, FEATURE_BTF, FEAT_AVAILABLE, "/sys/kernel/btf/vmlinux");
	else if (errno == ENOENT)
		feat_set(ft, FEATURE_BTF, FEAT_NOT_BUILT, "no /sys/kernel/btf/vmlinux");
	else
		feat_set(ft, FEATURE_BTF, FEAT_NOT_PERMITTED, "/sys/kernel/btf/vmlinux: %s",
			 strerror(errno));
}

static void probe_events(struct features *ft)
{
	char path[1024], buf[65536];
	long n = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/available_events", ft->tracefs);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		feat_set(ft, FEATURE_EVENTS, errno == ENOENT ? FEAT_NOT_BUILT : FEAT_UNKNOWN,
			 "available_events: %s", strerror(errno));
		return;
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	close(fd);
	if (n)
		feat_set(ft, FEATURE_EVENTS, FEAT_AVAILABLE, "%ld events", n);
	else
		feat_set(ft, FEATURE_EVENTS, FEAT_NOT_BUILT, "available_events is empty");
}

bool features_has_hist(const char *tracefs, char *why, size_t len)
{
	char path[512], *readme;
	bool hist;

	snprintf(path, sizeof(path), "%s/README", tracefs);
	readme = file_read_text(path);
	if (!readme) {
		snprintf(why, len, "cannot read the tracefs README: %s", strerror(errno));
		return false;
	}
	hist = strstr(readme, "hist trigger");
	free(readme);
	snprintf(path, sizeof(path), "%s/synthetic_events", tracefs);
	if (!hist)
		snprintf(why, len, "no hist triggers in the tracefs README");
	else if (access(path, F_OK))
		snprintf(why, len, "hist triggers, but no synthetic events (CONFIG_SYNTH_EVENTS)");
	else
		snprintf(why, len, "with synthetic events");
	return hist && !access(path, F_OK);
}

static void probe_hist(struct features *ft)
{
	char why[128];

	if (features_has_hist(ft->tracefs, why, sizeof(why)))
		feat_set(ft, FEATURE_HIST, FEAT_AVAILABLE, "%s", why);
	else if (!strncmp(why, "cannot read", 11))
		feat_set(ft, FEATURE_HIST, FEAT_UNKNOWN, "%s", why);
	else
		feat_set(ft, FEATURE_HIST, FEAT_NOT_BUILT, "%s", why);
}

static int probe_all(struct features *ft, bool keep, unsigned int flags)
{
	static const enum feature_id tracers[] = {
		FEATURE_FUNCTION, FEATURE_FUNCTION_GRAPH, FEATURE_OSNOISE, FEATURE_TIMERLAT,
	};
	const char *why_not = NULL;
	char scratch[512], path[1024];
	bool have_scratch = false;

	memset(ft, 0, sizeof(*ft));
	for (int i = 0; i < FEATURE_NR; i++) {
		ft->f[i].name = feature_names[i].name;
		ft->f[i].config = feature_names[i].config;
		ft->f[i].state = FEAT_UNKNOWN;
	}
	ft->root = geteuid() == 0;

	probe_btf(ft);
	probe_bpf(ft);
	probe_tracefs(ft);
	if (!ft->tracefs[0]) {
		for (int i = FEATURE_INSTANCES; i <= FEATURE_TIMERLAT; i++)
			feat_set(ft, i, ft->f[FEATURE_TRACEFS].state, "no tracefs");
		feat_set(ft, FEATURE_HIST, ft->f[FEATURE_TRACEFS].state, "no tracefs");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/current_tracer", ft->tracefs);
	if (access(path, R_OK | W_OK)) {
		for (int i = FEATURE_TRACEFS; i <= FEATURE_TIMERLAT; i++)
			feat_set(ft, i, FEAT_NEEDS_ROOT, "tracefs files are root's (%s)",
				 strerror(errno));
		feat_set(ft, FEATURE_HIST, FEAT_NEEDS_ROOT, "tracefs files are root's");
		return 0;
	}
	probe_events(ft);
	probe_hist(ft);

	/* a scratch instance changes nothing at the top level, on any kernel tried */
	snprintf(scratch, sizeof(scratch), "%s/instances/ktop-%s%d", ft->tracefs,
		 keep ? "" : "probe-", getpid());
	if (!mkdir(scratch, 0750)) {
		have_scratch = true;
		/* a new instance traces (tracing_on 1): not before the session says so */
		snprintf(path, sizeof(path), "%s/tracing_on", scratch);
		file_write_str(path, "0", O_TRUNC);
		feat_set(ft, FEATURE_INSTANCES, FEAT_AVAILABLE, keep ? "created one" :
			 "created and removed one");
	} else if (errno == ENOENT) {
		feat_set(ft, FEATURE_INSTANCES, FEAT_NOT_BUILT, "no instances directory");
	} else {
		feat_set(ft, FEATURE_INSTANCES, errno == EPERM ? FEAT_NOT_PERMITTED : FEAT_UNKNOWN,
			 "mkdir instances/...: %s", strerror(errno));
	}

	/*
	 * Where trying a tracer would fix the unused top-level buffer at its
	 * boot size (expansion_is_global), only a session that sets a tracer
	 * anyway tries them, after expanding the buffers as its events would.
	 */
	if (have_scratch && !(keep && (flags & FEATURES_TRACER)) && expansion_is_global(scratch))
		why_not = "here that would fix the top-level buffer at its boot size";
	/*
	 * Starting osnoise or timerlat, even for a moment, starts a kernel
	 * thread per CPU: not done for a session that does not trace with them.
	 */
	for (size_t i = 0; i < sizeof(tracers) / sizeof(tracers[0]); i++)
		probe_tracer(ft, tracers[i], have_scratch ? scratch : NULL,
			     (flags & FEATURES_LATENCY) || (tracers[i] != FEATURE_OSNOISE &&
							    tracers[i] != FEATURE_TIMERLAT),
			     why_not);
	probe_ftrace_filter(ft, have_scratch ? scratch : NULL);

	if (have_scratch && keep) {
		/* as a new instance has it: the probe's filter goes */
		snprintf(path, sizeof(path), "%s/set_ftrace_filter", scratch);
		file_write_str(path, "", O_TRUNC);
		snprintf(ft->kept, sizeof(ft->kept), "ktop-%d", getpid());
		return 0;
	}
	if (have_scratch) {
		/* on failure, session_reap_stale() removes ktop-probe-<dead pid> later */
		return features_rmdir_instance(scratch, 1000);
	}
	return 0;
}

int features_probe(struct features *ft)
{
	return probe_all(ft, false, FEATURES_LATENCY);
}

int features_probe_keep(struct features *ft, unsigned int flags)
{
	return probe_all(ft, true, flags);
}

void features_release(struct features *ft)
{
	char path[512];

	if (!ft->kept[0])
		return;
	snprintf(path, sizeof(path), "%s/instances/%s", ft->tracefs, ft->kept);
	if (features_rmdir_instance(path, 1000) && errno != ENOENT)
		fprintf(stderr, "ktop: could not remove tracefs instance %s: %s; the next "
			"ktop start removes it\n", path, strerror(errno));
	ft->kept[0] = '\0';
}

void features_print(const struct features *ft, FILE *fp)
{
	char state[96];

	if (ft->root)
		fprintf(fp, "%-18s yes\n", "root");
	else
		fprintf(fp, "%-18s %-44s %s\n", "root", "no", "tracing needs root (sudo)");
	for (int i = 0; i < FEATURE_NR; i++) {
		const struct feature *f = &ft->f[i];

		if (f->state == FEAT_NOT_BUILT)
			snprintf(state, sizeof(state), "not built in (%s)", f->config);
		else if (f->state == FEAT_NOT_PERMITTED && strstr(f->detail, "not permitted"))
			snprintf(state, sizeof(state), "not permitted (EPERM)");
		else
			snprintf(state, sizeof(state), "%s", feature_state_str(f->state));
		fprintf(fp, "%-18s %-44s %s\n", f->name, state, f->detail);
	}
}

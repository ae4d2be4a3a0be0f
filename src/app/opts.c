// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command-line parsing. Letters follow trace-cmd record (-p -l -n -g -e -P -C
 * -b -o -i), so a trace-cmd user's fingers already know them.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "lib/err.h"
#include "funcfilter/funcfilter.h"
#include "formats/tracedat.h"
#include "opts.h"
#include "agg/agg.h"
#include "probe/probe.h"
#include "probe/probe_spec.h"
#include "store/store.h"
#include "lib/tuning.h"
#include "view/viewfilter.h"

enum {
	OPT_BATCH = 0x100,
	OPT_HELP_DEBUG,
	OPT_JSON,
	OPT_DURATION,
	OPT_INTERVAL,
	OPT_ITERATIONS,
	OPT_FEATURES,
	OPT_FORCE,
	OPT_THEME,
	OPT_NO_BPF,
	OPT_BPF_SYSCALLS,
	OPT_DEMO,
	OPT_STREAM,
	OPT_STREAM_RATE,
	OPT_MAX_DEPTH,		/* function_graph and osnoise/timerlat settings */
	OPT_FG_IRQS,
	OPT_NO_FG_IRQS,
	OPT_FG_TAIL,
	OPT_NO_FG_TAIL,
	OPT_THRESH,
	OPT_PROBE,
	OPT_HIDE_SELF,
	OPT_DAT_VERSION,
	OPT_DAT_COMPRESS,
	OPT_STACK,
	OPT_USTACK,
	OPT_OFFCPU,
	OPT_FOLDED,
	OPT_NET,
	OPT_REMOTE,
	OPT_SSH,
	OPT_REMOTE_KTOP,
	OPT_SAVE_ON,		/* the flight recorder */
	OPT_SAVE_BEFORE,
	OPT_SAVE_AFTER,
	OPT_SAVE_MAX,
	OPT_SAVE_GAP,
	OPT_PMDA,
	OPT_PMDA_FILES,
	OPT_PMDA_NOTREADY,
	OPT_PCP,
	OPT_PCP_ARCHIVE,
	OPT_PCP_START,
	OPT_PCP_FINISH,
	OPT_PCP_ORIGIN,
	OPT_LATENCY,		/* in-kernel aggregations */
	OPT_HIST,
	OPT_SQL,
	OPT_AGG_ENGINE,
	OPT_DIFF,
};

static const struct option long_opts[] = {
	{ "tracer",		required_argument,	NULL, 'p' },
	{ "filter",		required_argument,	NULL, 'l' },
	{ "notrace",		required_argument,	NULL, 'n' },
	{ "graph-function",	required_argument,	NULL, 'g' },
	{ "event",		required_argument,	NULL, 'e' },
	{ "pid",		required_argument,	NULL, 'P' },
	{ "cpu",		required_argument,	NULL, 'C' },
	{ "buffer-kb",		required_argument,	NULL, 'b' },
	{ "memory",		required_argument,	NULL, 'm' },
	{ "output",		required_argument,	NULL, 'o' },
	{ "input",		required_argument,	NULL, 'i' },
	{ "diff",		required_argument,	NULL, OPT_DIFF },
	{ "batch",		no_argument,		NULL, OPT_BATCH },
	{ "json",		no_argument,		NULL, OPT_JSON },
	{ "duration",		required_argument,	NULL, OPT_DURATION },
	{ "interval",		required_argument,	NULL, OPT_INTERVAL },
	{ "iterations",		required_argument,	NULL, OPT_ITERATIONS },
	{ "features",		no_argument,		NULL, OPT_FEATURES },
	{ "force",		no_argument,		NULL, OPT_FORCE },
	{ "theme",		required_argument,	NULL, OPT_THEME },
	{ "no-bpf",		no_argument,		NULL, OPT_NO_BPF },
	{ "bpf-syscalls",	no_argument,		NULL, OPT_BPF_SYSCALLS },
	{ "demo",		no_argument,		NULL, OPT_DEMO },
	{ "stream",		no_argument,		NULL, OPT_STREAM },
	{ "stream-rate",	required_argument,	NULL, OPT_STREAM_RATE },
	{ "max-depth",		required_argument,	NULL, OPT_MAX_DEPTH },
	{ "funcgraph-irqs",	no_argument,		NULL, OPT_FG_IRQS },
	{ "no-funcgraph-irqs",	no_argument,		NULL, OPT_NO_FG_IRQS },
	{ "funcgraph-tail",	no_argument,		NULL, OPT_FG_TAIL },
	{ "no-funcgraph-tail",	no_argument,		NULL, OPT_NO_FG_TAIL },
	{ "thresh",		required_argument,	NULL, OPT_THRESH },
	{ "tracer-option",	required_argument,	NULL, 'O' },
	{ "probe",		required_argument,	NULL, OPT_PROBE },
	{ "latency",		required_argument,	NULL, OPT_LATENCY },
	{ "hist",		required_argument,	NULL, OPT_HIST },
	{ "sql",		required_argument,	NULL, OPT_SQL },
	{ "agg-engine",		required_argument,	NULL, OPT_AGG_ENGINE },
	{ "view",		required_argument,	NULL, 'F' },
	{ "hide-self",		no_argument,		NULL, OPT_HIDE_SELF },
	{ "dat-version",	required_argument,	NULL, OPT_DAT_VERSION },
	{ "dat-compress",	required_argument,	NULL, OPT_DAT_COMPRESS },
	{ "stack",		required_argument,	NULL, OPT_STACK },
	{ "ustack",		required_argument,	NULL, OPT_USTACK },
	{ "offcpu",		no_argument,		NULL, OPT_OFFCPU },
	{ "net",		optional_argument,	NULL, OPT_NET },
	{ "folded",		required_argument,	NULL, OPT_FOLDED },
	{ "remote",		required_argument,	NULL, OPT_REMOTE },
	{ "ssh",		required_argument,	NULL, OPT_SSH },
	{ "remote-ktop",	required_argument,	NULL, OPT_REMOTE_KTOP },
	{ "save-on",		required_argument,	NULL, OPT_SAVE_ON },
	{ "save-before",	required_argument,	NULL, OPT_SAVE_BEFORE },
	{ "save-after",		required_argument,	NULL, OPT_SAVE_AFTER },
	{ "save-max",		required_argument,	NULL, OPT_SAVE_MAX },
	{ "save-gap",		required_argument,	NULL, OPT_SAVE_GAP },
	{ "pmda",		no_argument,		NULL, OPT_PMDA },
	{ "domain",		required_argument,	NULL, 'd' },
	{ "notready",		no_argument,		NULL, OPT_PMDA_NOTREADY },
	{ "pmda-files",		required_argument,	NULL, OPT_PMDA_FILES },
	{ "pcp",		required_argument,	NULL, OPT_PCP },
	{ "pcp-archive",	required_argument,	NULL, OPT_PCP_ARCHIVE },
	{ "start",		required_argument,	NULL, OPT_PCP_START },
	{ "finish",		required_argument,	NULL, OPT_PCP_FINISH },
	{ "origin",		required_argument,	NULL, OPT_PCP_ORIGIN },
	{ "help",		no_argument,		NULL, 'h' },
	{ "help-debug",		no_argument,		NULL, OPT_HELP_DEBUG },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static const char short_opts[] = ":p:l:n:g:e:P:C:b:m:o:i:O:F:d:hV";

void opts_usage(FILE *fp)
{
	fputs("usage: ktop [OPTIONS]\n"
	      "An interactive explorer for live Linux kernel traces (htop for ftrace).\n"
	      "With no options: the most useful live view this kernel permits\n"
	      "(function_graph if permitted, else sched, irq and raw_syscalls events).\n"
	      "\n"
	      "What to trace (as in trace-cmd record):\n"
	      "  -p, --tracer NAME          ftrace tracer: function, function_graph, osnoise, ...\n"
	      "  -l, --filter PATTERN       trace only matching functions (set_ftrace_filter);\n"
	      "                             the filter prompt's language: globs, /regex/, !\n"
	      "  -n, --notrace PATTERN      do not trace matching functions\n"
	      "  -g, --graph-function FUNC  graph only FUNC and what it calls (FUNC: a pattern)\n"
	      "  -e, --event SYS[:EVENT]    enable events; repeatable; globs allowed;\n"
	      "                             none: only the tracer's own records;\n"
	      "                             EVENT:stack records its kernel stacks,\n"
	      "                             EVENT:ustack its kernel and user stacks\n"
	      "      --stack EVENT          kernel stack of every EVENT (same as -e EVENT:stack)\n"
	      "      --ustack EVENT         kernel and user stacks of EVENT (-e EVENT:ustack);\n"
	      "                             the kernel then walks the user stack of every\n"
	      "                             event of the session (frame pointers only)\n"
	      "      --offcpu               BPF: where tasks block and for how long (kernel\n"
	      "                             and user stacks at each switch-out)\n"
	      "      --net[=probe]          the network events this kernel has (connections,\n"
	      "                             resets, retransmits, drops: the Net pane, 9);\n"
	      "                             probe: tcp:tcp_probe too (srtt, cwnd; per packet)\n"
	      "  -P, --pid PID              trace only PID; repeatable\n"
	      "  -C, --cpu LIST             trace only these CPUs (0-3,6)\n"
	      "  -b, --buffer-kb KB         kernel ring buffer per CPU, in KB\n"
	      "      --max-depth N          function_graph: max_graph_depth (0: no limit)\n"
	      "      --[no-]funcgraph-irqs  function_graph: trace interrupt handlers too (or not)\n"
	      "      --[no-]funcgraph-tail  function_graph: name the function on closing braces\n"
	      "      --thresh US            function_graph: only calls lasting US or more\n"
	      "  -O, --tracer-option N=V    osnoise/timerlat setting: period_us, runtime_us,\n"
	      "                             stop_tracing_us, stop_tracing_total_us,\n"
	      "                             timerlat_period_us, print_stack, cpus; repeatable\n"
	      "      --probe SPEC           a probe event (kprobe/fprobe, eprobe, uprobe), typed\n"
	      "                             from BTF; repeatable; see Probes below\n"
	      "      --latency SPEC         the time from one event to another, measured in\n"
	      "                             the kernel (no event stream); repeatable; see\n"
	      "                             Latencies below\n"
	      "      --hist 'EVENT key=F[,F] [val=F] [where FILTER]'  counts (and the sum\n"
	      "                             of F) by key, in the kernel; repeatable\n"
	      "      --sql 'SELECT ...'     a latency in sqlhist's SQL (hist triggers only)\n"
	      "      --agg-engine E         auto (hist triggers where the kernel has them,\n"
	      "                             else BPF), hist, bpf, or both (each measure twice)\n"
	      "  -m, --memory SIZE          event store limit (default 256M; K, M, G suffixes)\n"
	      "      --force                take over a top-level tracer in use, or a\n"
	      "                             top-level buffer holding others' events\n"
	      "      --no-bpf               do not load BPF programs\n"
	      "      --bpf-syscalls         BPF syscall latency histograms too (every\n"
	      "                             syscall of every task pays for them)\n"
	      "\n"
	      "What to show of what is held (view filters, as in trace-cmd report -F):\n"
	      "  -F, --view FILTER          show, count and save only matching events;\n"
	      "                             repeatable (all must match). FILTER is one of\n"
	      "                             pid:PID[,PID][+] ('+': with children, threads),\n"
	      "                             comm:GLOB[+], cpu:LIST, event:SYS:NAME[,...],\n"
	      "                             stack:[^]FRAME;...[$] (frames root first),\n"
	      "                             port:N[,N], addr:IP[/LEN], conn:IP:PORT-IP:PORT\n"
	      "                             (network events, with their sockets' and\n"
	      "                             packets' events joined; [IPV6]:PORT),\n"
	      "                             EVENTS: EXPR, or EXPR in the kernel's filter\n"
	      "                             grammar ('prev_state & 2 && next_comm ~ \"kw*\"');\n"
	      "                             '!' before a typed clause (pid:, ... conn:)\n"
	      "                             negates; --offcpu totals: those of the tasks\n"
	      "                             its pid:/comm: clauses take;\n"
	      "                             the view starts narrowed (\\ adds, w widens)\n"
	      "      --hide-self            leave ktop's own threads out of the task lists\n"
	      "                             (live sessions, where ktop knows them)\n"
	      "\n"
	      "Output:\n"
	      "      --batch                no UI: a summary every interval (no tty needed);\n"
	      "                             SIGINT/SIGTERM: one last summary to that moment\n"
	      "      --json                 --batch, one JSON object per interval\n"
	      "      --interval SEC         seconds between summaries (default 1)\n"
	      "      --duration SEC         stop after SEC seconds\n"
	      "      --iterations N         stop after N summaries\n"
	      "      --features             print what this kernel permits, and exit\n"
	      "      --theme NAME           colour theme of the UI\n"
	      "  -o, --output FILE          write a snapshot on exit (.ktop .dat .json .txt\n"
	      "                             .csv, or .folded: stacks for flame graphs)\n"
	      "      --folded WHAT          what FILE.folded holds: events (stack counts),\n"
	      "                             offcpu (ns), graph (function_graph ns), graph-count\n"
	      "      --dat-version 6|7      trace.dat version -o writes (default 7; 6 for\n"
	      "                             readers older than trace-cmd 3.0)\n"
	      "      --dat-compress zstd|none  trace.dat 7 compression (default zstd)\n"
	      "\n"
	      "Flight recorder (save the seconds around a rare event, and go on):\n"
	      "      --save-on COND         on a match, write the window around it to a new\n"
	      "                             file; repeatable. COND: an event with a filter\n"
	      "                             in the kernel's grammar ('sched:sched_process_exec\n"
	      "                             comm ~ \"pg*\"'), probe SPEC [if FILTER],\n"
	      "                             timerlat [irq|thread] > 100us, osnoise > 50us,\n"
	      "                             lost [> N], runq-p99|runq-avg > 5ms,\n"
	      "                             hardirq|softirq > 20%, ctxsw|syscalls > 100k,\n"
	      "                             latency START -> END [on ...] > 2ms (in-kernel,\n"
	      "                             as --latency)\n"
	      "                             -o PATTERN names the files: %n the save's number,\n"
	      "                             %t its time (default ktop-%t-%n.ktop; any format)\n"
	      "      --save-before SEC      seconds kept before the match (default 10)\n"
	      "      --save-after SEC       seconds recorded after it (default 1); 0: the\n"
	      "                             kernel stops recording at the match itself\n"
	      "      --save-max N           at most N files (default 100; 0: no limit)\n"
	      "      --save-gap SEC         no new window within SEC of the last (default 0)\n"
	      "  -i, --input FILE           open a snapshot instead of tracing (- for stdin):\n"
	      "                             .ktop, or trace.dat version 6 or 7 (uncompressed,\n"
	      "                             zstd or zlib), every buffer; FILE@NAME: only the\n"
	      "                             buffer NAME (trace-cmd record -B NAME; @top)\n"
	      "      --diff NEW             compare NEW with the baseline -i FILE, pane by\n"
	      "                             pane: rates per second of each one's length,\n"
	      "                             rows by the largest change; NEW a file, or\n"
	      "                             live (trace now; ./live for a file so named);\n"
	      "                             -o FILE.folded: the two-column folded diff;\n"
	      "                             without --batch/--json the panes show it\n"
	      "      --stream               write a live .ktop stream to stdout\n"
	      "      --stream-rate SIZE     --stream bandwidth bound, bytes/s (default 4M;\n"
	      "                             0: none); events over it are sent as lost\n"
	      "      --demo                 open the bundled demo snapshot (on the top\n"
	      "                             view, 2)\n"
	      "      --remote [USER@]HOST   view HOST's kernel live: ssh runs ktop --stream\n"
	      "                             there (with sudo unless USER is root; its\n"
	      "                             password is asked for here); what-to-trace\n"
	      "                             options go to HOST, the others stay here\n"
	      "      --ssh 'CMD'            --remote's ssh command (default ssh), e.g.\n"
	      "                             'ssh -p 2222 -i KEY'; split at blanks\n"
	      "      --remote-ktop PATH     ktop on HOST (default: ktop in sudo's PATH)\n"
	      "\n"
	      "Performance Co-Pilot (PCP; loaded only by these options):\n"
	      "      --pmda                 be PCP's agent: pmcd runs ktop --pmda with the\n"
	      "                             what-to-trace options of its pmcd.conf line and\n"
	      "                             serves the ktop.* metrics (make install-pmda)\n"
	      "  -d, --domain N             --pmda's PMDA domain (default 363)\n"
	      "      --notready             --pmda starts as pmcd.conf's notready agent, and\n"
	      "                             says ready once tracing runs\n"
	      "      --pmda-files DIR       write the agent's pmns, root, help and domain.h\n"
	      "      --pcp HOST[,HOST...]   the fleet: one row per host (HOST[:PORT]), from\n"
	      "                             its pmcd and ktop agent; pane 0, or with --batch,\n"
	      "                             --json the same table each --interval\n"
	      "      --pcp-archive A[,A...] the same from pmlogger archives of those agents\n"
	      "      --start, --finish, --origin TIME  the archives' window, PCP's time syntax\n"
	      "                             (PCPIntro(1): @TIME, -10m, ...)\n"
	      "\n"
	      "  -h, --help                 this text\n"
	      "      --help-debug           the tuning and test switches (KTOP_* variables)\n"
	      "  -V, --version              version\n"
	      "\n"
	      "Probes: [EVENT=]PLACE[%return] [[NAME=]EXPR[:TYPE]]...\n"
	      "  PLACE  FUNC (a kernel function), SYSTEM:EVENT (an eprobe on a trace event),\n"
	      "         BINARY:SYMBOL (a uprobe; BINARY a path, a library or a program)\n"
	      "  EXPR   a parameter or field by name, $argN, $retval, $comm, $args; then\n"
	      "         ->member .member [N] (from BTF); +OFFS(EXPR), %REG as the kernel's\n"
	      "  TYPE   u8..u64 s8..s64 x8..x64 hex string ustring symbol char (default: BTF's)\n"
	      "  --probe 'vfs_read file->f_path.dentry->d_name.name:string count'\n"
	      "  --probe 'vfs_read%return $retval'   --probe 'libc:malloc size=$arg1:u64'\n"
	      "  --probe '/usr/bin/bash:readline%return +0($retval):string'\n"
	      "  --probe 'syscalls:sys_enter_openat filename'\n"
	      "\n"
	      "Latencies: START -> END [on SF = EF[, ...]] [by EF[,EF]] [where FILTER]\n"
	      "  START, END  SYSTEM:EVENT; on: START's field = END's (default: the same\n"
	      "         task, common_pid); by: END's fields for the per-key breakdown;\n"
	      "         where: the kernel's filter grammar, each && clause to the event\n"
	      "         whose fields it names (start.F, end.F where both have F)\n"
	      "  --latency 'sched:sched_waking -> sched:sched_switch on pid = next_pid'\n"
	      "  --latency 'raw_syscalls:sys_enter -> raw_syscalls:sys_exit by id'\n"
	      "  --hist 'sched:sched_switch key=prev_comm'\n"
	      "  In the latency pane (5): m measures a new one while ktop runs, A\n"
	      "  switches between them and the osnoise/timerlat table.\n"
	      "\n"
	      "Exit status: 0 success, 1 failure while running, 2 bad usage or tracing\n"
	      "could not be set up (the kernel's tracing state is then left untouched).\n",
	      fp);
}

void opts_defaults(struct app_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->memory = STORE_DEFAULT_MEMORY;
	o->interval = 1.0;
	o->so.exclude_self = true;
	o->stream_rate = 4u << 20;
	o->rec.before_ns = RECORDER_DEFAULT_BEFORE_NS;
	o->rec.after_ns = RECORDER_DEFAULT_AFTER_NS;
	o->rec.gap_ns = RECORDER_DEFAULT_GAP_NS;
	o->rec.max = RECORDER_DEFAULT_MAX;
}

int opts_parse_size(const char *s, size_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 0:
		break;
	case 'K':
		mul = 1ull << 10;
		break;
	case 'M':
		mul = 1ull << 20;
		break;
	case 'G':
		mul = 1ull << 30;
		break;
	default:
		return -EINVAL;
	}
	if (*end) {
		end++;
		/* allow "256M", "256MB", "256MiB" */
		if (toupper((unsigned char)*end) == 'I')
			end++;
		if (toupper((unsigned char)*end) == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (v > SIZE_MAX / mul)
		return -EINVAL;
	*out = (size_t)(v * mul);
	return 0;
}

int opts_check_cpulist(const char *s)
{
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtoul(p, &end, 10);
			p = end;
			if (b < a)
				return -EINVAL;
		}
		if (a > 8191)
			return -EINVAL;
		if (!*p)
			return 0;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

/* Every refusal of the command line is -EINVAL. */
static int __attribute__((format(printf, 3, 4)))
opts_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, errlen, -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* @arg as a decimal count in [@min, @max] (digits only). Return: whether it is one. */
static bool opts_uint(const char *arg, unsigned long long min, unsigned long long max,
		      unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*arg))
		return false;
	errno = 0;
	*v = strtoull(arg, &end, 10);
	return !errno && !*end && *v >= min && *v <= max;
}

static int opts_seconds(const char *name, const char *arg, double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 1e9)
		return opts_err(err, errlen, "%s wants a number of seconds > 0, not '%s'",
				name, arg);
	*out = v;
	return 0;
}

/* A number of seconds >= 0, as nanoseconds. */
static int opts_seconds0(const char *name, const char *arg, uint64_t *ns, char *err,
			 size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0) || v > 1e6)
		return opts_err(err, errlen, "%s wants a number of seconds >= 0, not '%s'",
				name, arg);
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

/* --save-on and its settings (the flight recorder) */
static int opts_save(struct app_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	struct recorder_opts *r = &o->rec;
	unsigned long long v;

	switch (c) {
	case OPT_SAVE_ON:
		if (r->nconds >= RECORDER_MAX_CONDS)
			return opts_err(err, errlen, "too many --save-on conditions (at most %d)",
					RECORDER_MAX_CONDS);
		r->conds[r->nconds++] = arg;
		o->save_set |= 1;
		return 0;
	case OPT_SAVE_BEFORE:
		o->save_set |= 2;
		return opts_seconds0("--save-before", arg, &r->before_ns, err, errlen);
	case OPT_SAVE_AFTER:
		o->save_set |= 2;
		return opts_seconds0("--save-after", arg, &r->after_ns, err, errlen);
	case OPT_SAVE_GAP:
		o->save_set |= 2;
		return opts_seconds0("--save-gap", arg, &r->gap_ns, err, errlen);
	default:
		o->save_set |= 2;
		if (!opts_uint(arg, 0, 1000000, &v))
			return opts_err(err, errlen, "--save-max wants a number of files (0: no "
					"limit), not '%s'", arg);
		r->max = (unsigned int)v;
		return 0;
	}
}

/* --save-on's combinations; -o becomes its file name pattern. */
static int opts_check_save(struct app_opts *o, char *err, size_t errlen)
{
	struct recorder_opts *r = &o->rec;

	if (!r->nconds) {
		if (o->save_set)
			return opts_err(err, errlen, "--save-before, --save-after, --save-max and "
					"--save-gap are settings of --save-on");
		return 0;
	}
	if (o->input || o->demo || o->stream || o->remote.dest || o->features_only || o->pmda ||
	    o->pcp_hosts || o->pcp_archive)
		return opts_err(err, errlen, "--save-on watches a live session here: it cannot be "
				"combined with %s", o->input ? "-i" : o->demo ? "--demo" :
				o->stream ? "--stream" : o->remote.dest ? "--remote" :
				o->features_only ? "--features" : o->pmda ? "--pmda" :
				o->pcp_hosts ? "--pcp" : "--pcp-archive");
	r->pattern = o->output;
	o->output = NULL;	/* the saves' names, not a file written on exit */
	for (unsigned int i = 0; i < o->nviews && i < sizeof(r->views) / sizeof(r->views[0]); i++)
		r->views[r->nviews++] = o->views[i];
	r->dat_version = o->dat_version;
	r->dat_compress = o->dat_compress;
	return recorder_opts_check(r, err, errlen) ? -EINVAL : 0;
}

static int opts_add(const char **list, unsigned int *n, const char *what, const char *arg,
		    char *err, size_t errlen)
{
	if (!*arg)
		return opts_err(err, errlen, "%s wants a non-empty argument", what);
	if (*n >= SESSION_MAX_LIST)
		return opts_err(err, errlen, "too many %s options (at most %d)", what,
				SESSION_MAX_LIST);
	list[(*n)++] = arg;
	return 0;
}

/* -F FILTER: its syntax now (fields and events are checked against the trace later) */
static int opts_view(struct app_opts *o, const char *arg, char *err, size_t errlen)
{
	struct err_pos fe;
	char msg[1024];

	if (viewfilter_check(arg, &fe))
		return opts_err(err, errlen, "--view: %s",
				viewfilter_error_format(arg, &fe, msg, sizeof(msg)));
	if (o->nviews >= SESSION_MAX_LIST)
		return opts_err(err, errlen, "too many --view options (at most %d)",
				SESSION_MAX_LIST);
	o->views[o->nviews++] = arg;
	return 0;
}

/*
 * -l, -n, -g: the filter prompt's language (src/funcfilter/funcfilter.h: globs, /pcre2
 * regexes/, !, :mod:), checked here as far as it can be without the kernel's
 * function list, so that a broken regex is named with its column before
 * anything is traced. The session resolves the terms against
 * available_filter_functions (funcfilter_cmdline_apply()).
 */
static int opts_add_funcs(const char **list, unsigned int *n, const char *what,
			  const char *arg, char *err, size_t errlen)
{
	struct funcfilter_spec *sp = NULL;
	struct err_pos fe;
	const char *s, *e, *x;
	const int *pids;
	size_t cut;

	if (*arg && funcfilter_spec_parse(&sp, arg, NULL, &fe)) {
		/* "regex error at column 11: ...; nothing applied": the column is arg's */
		cut = strcspn(fe.msg, ";");
		return opts_err(err, errlen, "%s '%s': %.*s", what, arg, (int)cut, fe.msg);
	}
	if (sp && (funcfilter_spec_pids(sp, &pids) >= 0 || funcfilter_spec_appends(sp) ||
		   funcfilter_spec_event(sp, &s, &e, &x))) {
		funcfilter_spec_free(sp);
		return opts_err(err, errlen, "%s '%s': %s takes functions (globs, /regex/, "
				":mod:M); pids go to -P, event filters to the filter prompt", what,
				arg, what);
	}
	funcfilter_spec_free(sp);
	return opts_add(list, n, what, arg, err, errlen);
}

/*
 * An event with stacks: -e EVENT:stack, -e EVENT:ustack, --stack EVENT,
 * --ustack EVENT. The event is enabled too.
 */
static int opts_add_stack(struct app_opts *o, const char *what, const char *arg, size_t len,
			  unsigned int parts, char *err, size_t errlen)
{
	struct session_opts *so = &o->so;
	char *spec;

	if (!len || len >= sizeof(o->specbuf[0]) || arg[0] == ':' || strpbrk(arg, " \t\n/"))
		return opts_err(err, errlen, "%s wants SYSTEM:EVENT (globs allowed), not '%s'",
				what, arg);
	if (o->nspecbuf >= SESSION_MAX_LIST || so->nstacks >= SESSION_MAX_LIST)
		return opts_err(err, errlen, "too many events with stacks (at most %d)",
				SESSION_MAX_LIST);
	spec = o->specbuf[o->nspecbuf++];
	memcpy(spec, arg, len);
	spec[len] = '\0';
	so->stacks[so->nstacks].spec = spec;
	so->stacks[so->nstacks++].parts = parts;
	return opts_add(so->events, &so->nevents, "-e", spec, err, errlen);
}

/* -P 12 or -P 12,34 */
static int opts_add_pids(struct session_opts *so, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;

	for (;;) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > INT_MAX || (*end && *end != ','))
			return opts_err(err, errlen,
					"-P wants a process id (or a comma list), not '%s'", arg);
		if (so->npids >= SESSION_MAX_LIST)
			return opts_err(err, errlen, "too many pids (at most %d)",
					SESSION_MAX_LIST);
		so->pids[so->npids++] = (int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/*
 * What --probe '' suggests: a kernel function where this kernel has
 * kprobe_events, a uprobe where it has only uprobe_events, both when tracefs
 * cannot be read (not root).
 */
static const char *opts_probe_example(void)
{
	/* where tracefs is mounted already: bad input mounts nothing */
	const char *t = !access("/sys/kernel/tracing/README", R_OK) ? "/sys/kernel/tracing" :
			!access("/sys/kernel/debug/tracing/README", R_OK) ?
			"/sys/kernel/debug/tracing" : NULL;
	struct probe_caps c;

	return probe_example(t && !probe_caps_read(t, &c) ? &c : NULL);
}

/* --probe SPEC: its syntax now, so a typo costs no start; the kernel's say comes later */
static int opts_probe(struct app_opts *o, const char *arg, char *err, size_t errlen)
{
	struct probe_spec *sp;
	struct probe_err pe;
	char msg[1024];

	if (!arg[strspn(arg, " \t\n")])
		return opts_err(err, errlen, "--probe '%s': empty probe spec: give PLACE [ARG...], "
				"e.g. %s", arg, opts_probe_example());
	if (probe_spec_parse(arg, &sp, &pe))
		return opts_err(err, errlen, "--probe '%s': %s", arg,
				probe_err_format(&pe, arg, msg, sizeof(msg)));
	probe_spec_free(sp);
	if (o->nprobes >= SESSION_MAX_LIST)
		return opts_err(err, errlen, "too many --probe options (at most %d)",
				SESSION_MAX_LIST);
	o->probes[o->nprobes++] = arg;
	return 0;
}

/* An option of the tracing session (struct session_opts). Return: 0, -EINVAL, or 1: not one. */
static int opts_session_one(struct app_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	struct session_opts *so = &o->so;
	unsigned long long v;

	switch (c) {
	case 'p':
		if (!*arg || strpbrk(arg, " /\t\n"))
			return opts_err(err, errlen, "-p wants a tracer name, not '%s'", arg);
		so->tracer = arg;
		return 0;
	case 'l':
		return opts_add_funcs(so->filters, &so->nfilters, "-l", arg, err, errlen);
	case 'n':
		return opts_add_funcs(so->notrace, &so->nnotrace, "-n", arg, err, errlen);
	case 'g':
		return opts_add_funcs(so->graph_funcs, &so->ngraph_funcs, "-g", arg, err, errlen);
	case 'e':
		if (strpbrk(arg, " \t\n/") || arg[0] == ':')
			return opts_err(err, errlen,
					"-e wants SYSTEM[:EVENT] (globs allowed), not '%s'", arg);
		if (!strcmp(arg, "none")) {
			so->no_events = true;
			return 0;
		}
		v = strlen(arg);
		if (v > 6 && !strcmp(arg + v - 6, ":stack"))
			return opts_add_stack(o, "-e EVENT:stack", arg, v - 6, STACKTRIG_KERN, err,
					      errlen);
		if (v > 7 && !strcmp(arg + v - 7, ":ustack"))
			return opts_add_stack(o, "-e EVENT:ustack", arg, v - 7,
					      STACKTRIG_KERN | STACKTRIG_USER, err, errlen);
		return opts_add(so->events, &so->nevents, "-e", arg, err, errlen);
	case 'P':
		return opts_add_pids(so, arg, err, errlen);
	case 'C':
		if (opts_check_cpulist(arg))
			return opts_err(err, errlen, "-C wants a CPU list such as 0-3,6, not '%s'",
					arg);
		so->cpus = arg;
		return 0;
	case 'b':
		if (!opts_uint(arg, 1, 1ull << 30, &v))
			return opts_err(err, errlen,
					"-b wants a buffer size in KB per CPU, not '%s'", arg);
		so->buffer_kb = (size_t)v;
		return 0;
	case OPT_FORCE:
		so->force = true;
		return 0;
	case OPT_MAX_DEPTH:
	case OPT_THRESH:
		if (!opts_uint(arg, 0, INT_MAX, &v))
			return opts_err(err, errlen, "%s wants a number %s, not '%s'",
					c == OPT_THRESH ? "--thresh" : "--max-depth",
					c == OPT_THRESH ? "of microseconds" : "of calls", arg);
		if (c == OPT_THRESH) {
			so->thresh_set = true;
			so->thresh_us = (unsigned long)v;
		} else {
			so->max_depth_set = true;
			so->max_depth = (unsigned int)v;
		}
		return 0;
	case OPT_FG_IRQS:
	case OPT_NO_FG_IRQS:
		so->funcgraph_irqs = c == OPT_FG_IRQS ? SESSION_OPT_ON : SESSION_OPT_OFF;
		return 0;
	case OPT_FG_TAIL:
	case OPT_NO_FG_TAIL:
		so->funcgraph_tail = c == OPT_FG_TAIL ? SESSION_OPT_ON : SESSION_OPT_OFF;
		return 0;
	case OPT_STACK:
	case OPT_USTACK:
		return opts_add_stack(o, c == OPT_STACK ? "--stack" : "--ustack", arg, strlen(arg),
				      c == OPT_STACK ? STACKTRIG_KERN :
				      STACKTRIG_KERN | STACKTRIG_USER, err, errlen);
	case 'O':
		if (!strchr(arg, '=') || arg[0] == '=')
			return opts_err(err, errlen, "-O wants NAME=VALUE (e.g. period_us=1000), "
					"not '%s'", arg);
		for (v = 0; session_osnoise_files[v]; v++)
			if (!strncmp(arg, session_osnoise_files[v], strcspn(arg, "=")) &&
			    strlen(session_osnoise_files[v]) == strcspn(arg, "="))
				break;
		if (!session_osnoise_files[v])
			return opts_err(err, errlen, "-O %s: unknown setting; NAME is one of "
					"period_us, runtime_us, stop_tracing_us, "
					"stop_tracing_total_us, timerlat_period_us, print_stack, cpus",
					arg);
		return opts_add(so->tracer_opts, &so->ntracer_opts, "-O", arg, err, errlen);
	}
	return 1;
}

static int opts_one(struct app_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	unsigned long long v;
	int ret;

	ret = opts_session_one(o, c, arg, err, errlen);
	if (ret <= 0)
		return ret;
	switch (c) {
	case 'm':
		if (opts_parse_size(arg, &o->memory))
			return opts_err(err, errlen,
					"-m wants a size such as 256M or 2G, not '%s'", arg);
		if (o->memory < (1u << 20))
			return opts_err(err, errlen,
					"-m %s is below the 1M minimum (did you mean %.*sM?)", arg,
					(int)strspn(arg, "0123456789"), arg);
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'i':
		o->input = arg;
		return 0;
	case OPT_DIFF:
		if (!*arg)
			return opts_err(err, errlen, "--diff wants a recording to compare with the "
					"baseline -i FILE, or live");
		o->diff = arg;
		return 0;
	case OPT_BATCH:
		o->batch = true;
		return 0;
	case OPT_JSON:
		o->json = true;
		o->batch = true;
		return 0;
	case OPT_DURATION:
		return opts_seconds("--duration", arg, &o->duration, err, errlen);
	case OPT_INTERVAL:
		if (opts_seconds("--interval", arg, &o->interval, err, errlen))
			return -EINVAL;
		if (o->interval < 0.01)
			return opts_err(err, errlen, "--interval %s is below the 0.01 s minimum",
					arg);
		return 0;
	case OPT_ITERATIONS:
		if (!opts_uint(arg, 1, LONG_MAX, &v))
			return opts_err(err, errlen, "--iterations wants a count > 0, not '%s'",
					arg);
		o->iterations = (long)v;
		return 0;
	case OPT_FEATURES:
		o->features_only = true;
		return 0;
	case OPT_DAT_VERSION:
		if (strcmp(arg, "6") && strcmp(arg, "7"))
			return opts_err(err, errlen, "--dat-version wants 6 or 7 (the trace.dat "
					"versions trace-cmd reads), not '%s'", arg);
		o->dat_version = (unsigned int)(arg[0] - '0');
		return 0;
	case OPT_DAT_COMPRESS:
		if (strcmp(arg, "zstd") && strcmp(arg, "none"))
			return opts_err(err, errlen, "--dat-compress wants zstd or none (what "
					"Debian's trace-cmd reads), not '%s'", arg);
		o->dat_compress = strcmp(arg, "zstd") ? TRACEDAT_COMPRESS_NONE :
				  TRACEDAT_COMPRESS_ZSTD;
		return 0;
	case OPT_THEME:
		o->theme = arg;
		return 0;
	case OPT_NO_BPF:
		o->no_bpf = true;
		return 0;
	case OPT_BPF_SYSCALLS:
		o->bpf_syscalls = true;
		return 0;
	case OPT_DEMO:
		o->demo = true;
		return 0;
	case 'F':
		return opts_view(o, arg, err, errlen);
	case OPT_HIDE_SELF:
		o->hide_self = true;
		return 0;
	case OPT_STREAM:
		o->stream = true;
		return 0;
	case OPT_STREAM_RATE:
		if (opts_parse_size(arg, &o->stream_rate))
			return opts_err(err, errlen,
					"--stream-rate wants bytes per second such as 1M, not '%s'",
					arg);
		return 0;
	case OPT_OFFCPU:
		o->offcpu = true;
		return 0;
	case OPT_NET:
		if (arg && strcmp(arg, "probe"))
			return opts_err(err, errlen, "--net takes no value or =probe (tcp:tcp_probe "
					"too), not '%s'", arg);
		o->net = arg ? APP_NET_PROBE : APP_NET_ON;
		return 0;
	case OPT_FOLDED:
		if (strcmp(arg, "events") && strcmp(arg, "offcpu") && strcmp(arg, "graph") &&
		    strcmp(arg, "graph-count"))
			return opts_err(err, errlen, "--folded wants events, offcpu, graph or "
					"graph-count, not '%s'", arg);
		o->folded = arg;
		return 0;
	}
	return opts_err(err, errlen, "internal error: option %d", c);
}

/*
 * --remote: what to trace is the far side's business. These options are
 * handed on to its `ktop --stream` by their long names, as typed; the view's
 * own (-F, -m, -o, --batch, --theme, ...) stay here.
 */
static const int remote_fwd_opts[] = {
	'p', 'l', 'n', 'g', 'e', 'P', 'C', 'b', 'O', OPT_FORCE, OPT_NO_BPF, OPT_BPF_SYSCALLS,
	OPT_STREAM_RATE, OPT_MAX_DEPTH, OPT_FG_IRQS, OPT_NO_FG_IRQS, OPT_FG_TAIL,
	OPT_NO_FG_TAIL, OPT_THRESH, OPT_PROBE, OPT_STACK, OPT_USTACK, OPT_OFFCPU, OPT_NET,
	OPT_LATENCY, OPT_HIST, OPT_SQL, OPT_AGG_ENGINE,
};

static int opts_remote_fwd(struct app_opts *o, int c, const char *arg, char *err,
			   size_t errlen)
{
	struct remote_opts *ro = &o->remote;
	unsigned int i;

	for (i = 0; i < sizeof(remote_fwd_opts) / sizeof(remote_fwd_opts[0]); i++)
		if (remote_fwd_opts[i] == c)
			break;
	if (i == sizeof(remote_fwd_opts) / sizeof(remote_fwd_opts[0]))
		return 0;
	if (ro->nfwd == REMOTE_MAX_FWD)
		return opts_err(err, errlen, "more than %d tracing options", REMOTE_MAX_FWD);
	for (const struct option *lo = long_opts; lo->name; lo++) {
		if (lo->val != c)
			continue;
		ro->fwd_name[ro->nfwd] = lo->name;
		ro->fwd_arg[ro->nfwd++] = lo->has_arg ? arg : NULL;
		return 0;
	}
	return opts_err(err, errlen, "internal error: option %d has no long name", c);
}

/* --latency, --hist, --sql, --agg-engine: the specs are checked against the formats at start */
static int opts_agg(struct app_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	static const char *const engines[] = {
		[AGG_ENGINE_AUTO] = "auto", [AGG_ENGINE_HIST] = "hist", [AGG_ENGINE_BPF] = "bpf",
		[AGG_ENGINE_BOTH] = "both",
	};

	if (c == OPT_AGG_ENGINE) {
		for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
			if (!strcmp(arg, engines[i])) {
				o->agg_engine = (int)i;
				return 0;
			}
		return opts_err(err, errlen, "--agg-engine takes auto, hist, bpf or both, not '%s'",
				arg);
	}
	if (!*arg)
		return opts_err(err, errlen, "%s wants a spec; see ktop --help",
				c == OPT_LATENCY ? "--latency" : c == OPT_HIST ? "--hist" : "--sql");
	if (o->naggs >= SESSION_MAX_LIST || o->naggs >= AGG_MAX_ITEMS)
		return opts_err(err, errlen, "too many --latency, --hist and --sql options (at most "
				"%d)", SESSION_MAX_LIST < AGG_MAX_ITEMS ? SESSION_MAX_LIST :
				AGG_MAX_ITEMS);
	o->aggs[o->naggs] = arg;
	o->agg_kind[o->naggs++] = c == OPT_LATENCY ? APP_AGG_LATENCY : c == OPT_HIST ?
				  APP_AGG_HIST : APP_AGG_SQL;
	return 0;
}

/* --remote, --ssh, --remote-ktop */
static int opts_remote_one(struct app_opts *o, int c, const char *arg, char *err,
			   size_t errlen)
{
	switch (c) {
	case OPT_REMOTE:
		if (!*arg || arg[0] == '-' || strpbrk(arg, " \t\n'\"\\"))
			return opts_err(err, errlen, "--remote wants [USER@]HOST (as ssh takes it), "
					"not '%s'", arg);
		o->remote.dest = arg;
		return 0;
	case OPT_SSH:
		o->remote.ssh = arg;
		return 0;
	default:
		if (!*arg)
			return opts_err(err, errlen, "--remote-ktop wants the path of ktop on the "
					"far side");
		o->remote.ktop = arg;
		return 0;
	}
}

/* --pmda, -d, --pmda-files, --pcp, --pcp-archive and PCP's time window. */
static int opts_pcp_one(struct app_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	unsigned long long v;

	switch (c) {
	case OPT_PMDA:
		o->pmda = true;
		return 0;
	case 'd':
		/* 511 is PCP's DYNAMIC_PMID: a PMID's domain has 9 bits */
		if (!opts_uint(arg, 1, 510, &v))
			return opts_err(err, errlen, "-d wants a PMDA domain number from 1 to 510 "
					"(PCP's free range is 256-510), not '%s'", arg);
		o->pmda_domain = (int)v;
		return 0;
	case OPT_PMDA_FILES:
		o->pmda_files = arg;
		return 0;
	case OPT_PMDA_NOTREADY:
		o->pmda_notready = true;
		return 0;
	case OPT_PCP:
	case OPT_PCP_ARCHIVE:
		if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") ||
		    strpbrk(arg, " \t\n"))
			return opts_err(err, errlen, "%s wants a comma list of %s, not '%s'",
					c == OPT_PCP ? "--pcp" : "--pcp-archive",
					c == OPT_PCP ? "hosts (HOST[:PORT])" : "archives", arg);
		if (c == OPT_PCP)
			o->pcp_hosts = arg;
		else
			o->pcp_archive = arg;
		return 0;
	case OPT_PCP_START:
		o->pcp_start = arg;
		return 0;
	case OPT_PCP_FINISH:
		o->pcp_finish = arg;
		return 0;
	default:
		o->pcp_origin = arg;
		return 0;
	}
}

/* What --pmda and --pcp take, and what they do not. */
static int opts_check_pcp(const struct app_opts *o, char *err, size_t errlen)
{
	const struct session_opts *so = &o->so;
	const char *fleet = o->pcp_hosts ? "--pcp" : "--pcp-archive";

	if ((o->pmda_domain || o->pmda_notready) && !o->pmda)
		return opts_err(err, errlen, "%s applies to --pmda only", o->pmda_domain ?
				"-d (a PMDA domain)" : "--notready");
	if ((o->pcp_start || o->pcp_finish || o->pcp_origin) && !o->pcp_archive)
		return opts_err(err, errlen, "%s applies to --pcp-archive only (PCP's time "
				"window of an archive)", o->pcp_start ? "--start" :
				o->pcp_finish ? "--finish" : "--origin");
	if (o->pmda && (o->batch || o->stream || o->remote.dest || o->output || o->demo ||
			o->nviews || o->pcp_hosts || o->pcp_archive || o->pmda_files))
		return opts_err(err, errlen, "--pmda answers pmcd: it cannot be combined with %s",
				o->batch ? (o->json ? "--json" : "--batch") :
				o->stream ? "--stream" : o->remote.dest ? "--remote" :
				o->output ? "-o" : o->demo ? "--demo" : o->nviews ? "--view" :
				o->pmda_files ? "--pmda-files" : o->pcp_hosts ? "--pcp" :
				"--pcp-archive");
	if (!o->pcp_hosts && !o->pcp_archive)
		return 0;
	if (o->pcp_hosts && o->pcp_archive)
		return opts_err(err, errlen, "--pcp reads hosts live and --pcp-archive their "
				"history: one or the other");
	if (o->input || o->demo || o->stream || o->remote.dest || o->output || o->nviews)
		return opts_err(err, errlen, "%s shows what each host's agent serves: it cannot "
				"be combined with %s", fleet, o->input ? "-i" : o->demo ? "--demo" :
				o->stream ? "--stream" : o->remote.dest ? "--remote" :
				o->output ? "-o" : "--view");
	if (so->tracer || so->nevents || so->no_events || so->npids || so->cpus ||
	    o->nprobes || so->nstacks || o->offcpu || so->nfilters || so->ngraph_funcs || o->net ||
	    o->naggs)
		return opts_err(err, errlen, "%s: what each host traces is its agent's business "
				"(the options in its pmcd.conf line); leave -p, -e, -P, -C, --probe, "
				"--stack, --offcpu, --net, --latency, --hist, --sql out here", fleet);
	return 0;
}

bool opts_diff_live(const struct app_opts *o)
{
	return o->diff && !strcmp(o->diff, "live");
}

/* --diff's combinations: two recordings, or a recording and the live session. */
static int opts_check_diff(const struct app_opts *o, char *err, size_t errlen)
{
	const char *dot;

	if (!o->diff)
		return 0;
	if (!o->input)
		return opts_err(err, errlen, "--diff %s needs the baseline to compare it with: "
				"ktop -i BASE --diff %s", o->diff, o->diff);
	if (!strcmp(o->input, "-") || !strcmp(o->diff, "-"))
		return opts_err(err, errlen, "--diff compares files: save the stream first "
				"(ktop -i - --batch -o FILE.ktop), then diff the file");
	if (o->demo || o->stream || o->remote.dest || o->pmda || o->pcp_hosts ||
	    o->pcp_archive || o->save_set)
		return opts_err(err, errlen, "--diff cannot be combined with %s",
				o->demo ? "--demo" : o->stream ? "--stream" :
				o->remote.dest ? "--remote" : o->pmda ? "--pmda" :
				o->pcp_hosts ? "--pcp" : o->pcp_archive ? "--pcp-archive" :
				"--save-on");
	if (!opts_diff_live(o) && (o->so.tracer || o->so.nevents || o->so.no_events ||
				   o->so.npids || o->so.cpus || o->nprobes || o->so.nfilters ||
				   o->so.ngraph_funcs || o->net || o->so.nstacks || o->offcpu ||
				   o->naggs))
		return opts_err(err, errlen, "--diff %s compares two recordings: what to trace "
				"(-p, -e, -P, -C, -l, -g, --probe, --stack, --net, --offcpu, "
				"--latency, --hist, --sql) applies to --diff live only", o->diff);
	dot = o->output ? strrchr(o->output, '.') : NULL;
	if (o->output && (!dot || strcmp(dot, ".folded")))
		return opts_err(err, errlen, "with --diff, -o writes the folded diff for "
				"flamegraph.pl: -o FILE.folded, not '%s'", o->output);
	if (o->folded && strcmp(o->folded, "events") && strcmp(o->folded, "graph"))
		return opts_err(err, errlen, "--diff's folded file holds events (the events' "
				"stacks) or graph (function_graph ns), not '%s'", o->folded);
	return 0;
}

/* One option getopt returned; those that say what to trace are noted for --remote. */
static int opts_option(struct app_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	int ret;

	if (c == OPT_PROBE)
		ret = opts_probe(o, arg, err, errlen);
	else if (c >= OPT_LATENCY && c <= OPT_AGG_ENGINE)
		ret = opts_agg(o, c, arg, err, errlen);
	else if (c >= OPT_SAVE_ON && c <= OPT_SAVE_GAP)
		ret = opts_save(o, c, arg, err, errlen);
	else if (c == OPT_REMOTE || c == OPT_SSH || c == OPT_REMOTE_KTOP)
		ret = opts_remote_one(o, c, arg, err, errlen);
	else if (c == 'd' || (c >= OPT_PMDA && c <= OPT_PCP_ORIGIN))
		ret = opts_pcp_one(o, c, arg, err, errlen);
	else
		ret = opts_one(o, c, arg, err, errlen);
	return ret ? ret : opts_remote_fwd(o, c, arg, err, errlen);
}

/* --remote's combinations. */
static int opts_check_remote(const struct app_opts *o, char *err, size_t errlen)
{
	if (!o->remote.dest) {
		if (o->remote.ssh || o->remote.ktop)
			return opts_err(err, errlen, "%s applies to --remote only",
					o->remote.ssh ? "--ssh" : "--remote-ktop");
		return 0;
	}
	if (o->input || o->demo || o->stream || o->features_only)
		return opts_err(err, errlen, "--remote reads the far side's stream: it cannot be "
				"combined with %s", o->input ? "-i" : o->demo ? "--demo" :
				o->stream ? "--stream" : "--features");
	return 0;
}

/* The name of the option getopt just complained about, as the user typed it. */
static const char *opts_bad_name(int argc, char **argv, char *buf, size_t len)
{
	const char *a;

	if (optopt && optopt < 0x100 && optopt != ':' && optopt != '?') {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	if (optopt >= 0x100) {
		for (const struct option *lo = long_opts; lo->name; lo++)
			if (lo->val == optopt) {
				snprintf(buf, len, "--%s", lo->name);
				return buf;
			}
	}
	a = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	snprintf(buf, len, "%s", a);
	return buf;
}

int opts_parse(struct app_opts *o, int argc, char **argv, FILE *out, char *err, size_t errlen)
{
	char name[64];
	int c;

	opterr = 0;
	optind = 0;	/* full re-initialisation, so tests may parse twice */
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			opts_usage(out);
			return OPTS_DONE;
		case OPT_HELP_DEBUG:
			tuning_print(out);
			return OPTS_DONE;
		case 'V':
			fprintf(out, "ktop %s\n", KTOP_VERSION);
			return OPTS_DONE;
		case ':':
			return opts_err(err, errlen, "option %s needs an argument; see ktop --help",
					opts_bad_name(argc, argv, name, sizeof(name)));
		case '?':
			return opts_err(err, errlen, "unknown option '%s'; see ktop --help",
					opts_bad_name(argc, argv, name, sizeof(name)));
		default:
			if (opts_option(o, c, optarg, err, errlen))
				return -EINVAL;
		}
	}
	if (optind < argc)
		return opts_err(err, errlen, "unexpected argument '%s'; see ktop --help",
				argv[optind]);

	/* trace-cmd habit: a function filter means the function tracer */
	if (!o->so.tracer && o->so.ngraph_funcs)
		o->so.tracer = "function_graph";
	else if (!o->so.tracer && (o->so.nfilters || o->so.nnotrace))
		o->so.tracer = "function";
	if (o->so.ngraph_funcs && strcmp(o->so.tracer, "function_graph"))
		return opts_err(err, errlen, "-g needs the function_graph tracer, not '%s'",
				o->so.tracer);
	if (opts_check_remote(o, err, errlen) || opts_check_pcp(o, err, errlen))
		return -EINVAL;
	if (o->nviews && o->stream)
		return opts_err(err, errlen, "--view does not apply to --stream (it sends every "
				"event); narrow on the reading side: ktop -i - --batch --view ...");
	if (o->dat_version == 6 && o->dat_compress == TRACEDAT_COMPRESS_ZSTD)
		return opts_err(err, errlen, "--dat-compress zstd needs --dat-version 7 (version 6 "
				"has no compression)");
	if (opts_check_diff(o, err, errlen))
		return -EINVAL;
	if (o->input && (o->demo || o->stream))
		return opts_err(err, errlen, "-i cannot be combined with %s",
				o->demo ? "--demo" : "--stream");
	if ((o->input || o->demo) && !opts_diff_live(o) && (o->so.nstacks || o->offcpu))
		return opts_err(err, errlen, "%s records stacks live: it cannot be combined with "
				"%s (a snapshot keeps the stacks it was recorded with)",
				o->offcpu ? "--offcpu" : "--stack", o->input ? "-i" : "--demo");
	if ((o->input || o->demo) && !opts_diff_live(o) && o->naggs)
		return opts_err(err, errlen, "%s measures in the live kernel: it cannot be combined "
				"with %s (a .ktop recording keeps the results it was recorded with)",
				o->agg_kind[0] == APP_AGG_HIST ? "--hist" : o->agg_kind[0] ==
				APP_AGG_SQL ? "--sql" : "--latency", o->input ? "-i" : "--demo");
	if ((o->input || o->demo) && !opts_diff_live(o) && o->net)
		return opts_err(err, errlen, "--net says what to trace: it cannot be combined with "
				"%s (the Net pane shows the network events a recording holds)",
				o->input ? "-i" : "--demo");
	if (o->offcpu && o->no_bpf)
		return opts_err(err, errlen, "--offcpu is a BPF program: it cannot be combined "
				"with --no-bpf");
	if (opts_check_save(o, err, errlen))
		return -EINVAL;
	return OPTS_RUN;
}

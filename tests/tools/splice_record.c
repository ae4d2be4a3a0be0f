// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * splice_record: the data path of `trace-cmd record` (splice whole pages out
 * of each CPU's trace_pipe_raw, decode nothing), as a loss anchor for ktop.
 * trace-cmd record itself cannot start on kernels that refuse writes to
 * /proc/sys/kernel/ftrace_enabled or set_ftrace_filter (EPERM), as this one.
 *
 *   splice_record -e SYSTEM[:EVENT] [-e ...] [-b KB] [-d SECONDS] [-o FILE]
 *
 * Works in its own instance "splicerec-<pid>", removed at the end. One thread
 * per CPU, blocking splice reads (as trace-cmd's recorder). Prints per CPU
 * and in total:  "cpu N read R overrun O" and "total read R overrun O lost_pct P".
 * read/overrun come from the instance's per_cpu/cpuN/stats.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

struct rec_cpu {
	pthread_t		thread;
	struct tracefs_cpu	*tcpu;
	int			fd;
	int			cpu;
	long long		bytes;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void *rec_thread(void *arg)
{
	struct rec_cpu *r = arg;
	int n;

	while (!stop) {
		n = tracefs_cpu_write(r->tcpu, r->fd, false);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			break;
		if (n > 0)
			r->bytes += n;
	}
	return NULL;
}

static long long stat_field(struct tracefs_instance *inst, int cpu, const char *field)
{
	char path[64], *buf, *p;
	long long v = -1;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	buf = tracefs_instance_file_read(inst, path, NULL);
	if (!buf)
		return -1;
	p = strstr(buf, field);
	if (p)
		v = atoll(p + strlen(field));
	free(buf);
	return v;
}

int main(int argc, char **argv)
{
	const char *events[64], *out = "/dev/null";
	long long tread = 0, tover = 0;
	struct tracefs_instance *inst;
	unsigned int nevents = 0;
	double seconds = 5;
	struct rec_cpu *rc;
	char name[64];
	int c, ncpus, ret = 1;
	long kb = 0;

	while ((c = getopt(argc, argv, "e:b:d:o:")) != -1) {
		switch (c) {
		case 'e':
			if (nevents < 64)
				events[nevents++] = optarg;
			break;
		case 'b':
			kb = atol(optarg);
			break;
		case 'd':
			seconds = atof(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			fprintf(stderr, "usage: splice_record -e EVENT [-b KB] [-d SEC] [-o FILE]\n");
			return 2;
		}
	}
	if (!nevents) {
		fprintf(stderr, "splice_record: no -e EVENT\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);

	snprintf(name, sizeof(name), "splicerec-%d", getpid());
	inst = tracefs_instance_create(name);
	if (!inst) {
		perror("splice_record: instance");
		return 2;
	}
	tracefs_trace_off(inst);
	if (kb > 0 && tracefs_instance_set_buffer_size(inst, (size_t)kb, -1) < 0) {
		perror("splice_record: buffer_size_kb");
		goto out_destroy;
	}
	for (unsigned int i = 0; i < nevents; i++) {
		char sys[128], *ev;

		snprintf(sys, sizeof(sys), "%s", events[i]);
		ev = strchr(sys, ':');
		if (ev)
			*ev++ = 0;
		if (tracefs_event_enable(inst, sys, ev) < 0) {
			fprintf(stderr, "splice_record: cannot enable %s\n", events[i]);
			goto out_destroy;
		}
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	rc = calloc((size_t)ncpus, sizeof(*rc));
	if (!rc)
		goto out_destroy;
	for (int i = 0; i < ncpus; i++) {
		rc[i].cpu = i;
		rc[i].fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		rc[i].tcpu = tracefs_cpu_open(inst, i, false);
		if (rc[i].fd < 0 || !rc[i].tcpu) {
			perror("splice_record: open");
			goto out_destroy;
		}
	}
	for (int i = 0; i < ncpus; i++)
		pthread_create(&rc[i].thread, NULL, rec_thread, &rc[i]);
	tracefs_trace_on(inst);
	ualarm(0, 0);
	if (seconds > 0)
		alarm((unsigned int)(seconds + 0.5));
	while (!stop)
		pause();
	tracefs_trace_off(inst);
	for (int i = 0; i < ncpus; i++)
		tracefs_cpu_stop(rc[i].tcpu);
	for (int i = 0; i < ncpus; i++) {
		pthread_join(rc[i].thread, NULL);
		tracefs_cpu_flush_write(rc[i].tcpu, rc[i].fd);
	}
	for (int i = 0; i < ncpus; i++) {
		long long rd = stat_field(inst, i, "read events:");
		long long ov = stat_field(inst, i, "overrun:");

		printf("cpu %d read %lld overrun %lld bytes %lld\n", i, rd, ov, rc[i].bytes);
		tread += rd > 0 ? rd : 0;
		tover += ov > 0 ? ov : 0;
		tracefs_cpu_close(rc[i].tcpu);
		close(rc[i].fd);
	}
	printf("total read %lld overrun %lld lost_pct %.3f\n", tread, tover,
	       tread + tover ? 100.0 * (double)tover / (double)(tread + tover) : 0.0);
	ret = 0;
out_destroy:
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pingpong: a known scheduling pattern for the BPF statistics test.
 *
 *   pingpong -n ROUNDS [-c CPU] [-w FILE]
 *
 * Two threads pass a byte back and forth through two pipes ROUNDS times:
 * each round wakes each thread once and switches context at least twice.
 * The threads are created first, blocked on a start pipe; the program prints
 * "tids PING PONG" and, with -w, waits until FILE exists before starting, so
 * that a test can set up its tracing for exactly those tids. -c pins both
 * threads to one CPU, which makes every wakeup find its target asleep.
 * At the end it prints "done ROUNDS SECONDS".
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

struct pp {
	int		in, out;	/* read end, write end */
	int		start;		/* read end of the start pipe */
	long		rounds;
	int		cpu;
	int		first;		/* 1: writes first */
	pid_t		tid;
	pthread_mutex_t	*lock;
	pthread_cond_t	*cond;
	int		*ready;
};

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *pp_thread(void *arg)
{
	struct pp *p = arg;
	char c = 'x';
	long i;

	pin(p->cpu);
	p->tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(p->lock);
	(*p->ready)++;
	pthread_cond_signal(p->cond);
	pthread_mutex_unlock(p->lock);
	if (read(p->start, &c, 1) != 1)
		return NULL;
	for (i = 0; i < p->rounds; i++) {
		if (p->first) {
			if (write(p->out, &c, 1) != 1 || read(p->in, &c, 1) != 1)
				break;
		} else {
			if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1)
				break;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	int ab[2], ba[2], st[2], opt, cpu = -1, ready = 0;
	const char *wait_file = NULL;
	struct timespec t0, t1;
	struct pp a, b;
	pthread_t ta, tb;
	long rounds = 10000;
	char go[2] = "gg";

	while ((opt = getopt(argc, argv, "n:c:w:")) != -1) {
		switch (opt) {
		case 'n':
			rounds = strtol(optarg, NULL, 0);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'w':
			wait_file = optarg;
			break;
		default:
			fprintf(stderr, "usage: pingpong -n ROUNDS [-c CPU] [-w FILE]\n");
			return 2;
		}
	}
	if (pipe(ab) || pipe(ba) || pipe(st)) {
		perror("pipe");
		return 1;
	}
	a = (struct pp){ .in = ba[0], .out = ab[1], .start = st[0], .rounds = rounds,
			 .cpu = cpu, .first = 1, .lock = &lock, .cond = &cond, .ready = &ready };
	b = a;
	b.in = ab[0];
	b.out = ba[1];
	b.first = 0;
	if (pthread_create(&ta, NULL, pp_thread, &a) || pthread_create(&tb, NULL, pp_thread, &b)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	pthread_mutex_lock(&lock);
	while (ready < 2)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	printf("tids %d %d\n", a.tid, b.tid);
	fflush(stdout);
	while (wait_file && access(wait_file, F_OK))
		usleep(10000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (write(st[1], go, 2) != 2)
		return 1;
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("done %ld %.3f\n", rounds,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}

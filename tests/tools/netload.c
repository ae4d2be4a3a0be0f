// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netload: known network workloads on the loopback device, for the network
 * view's tests, fixtures and benchmark (issue 25).
 *
 *   netload tcp [-6] [-p PORT] SEND RECV     one connection: the client sends
 *                                            SEND bytes, the server answers
 *                                            RECV bytes, the client closes first
 *   netload refused [-6] PORT                connect to a closed port (a reset)
 *   netload udp [-6] PORT COUNT SIZE         COUNT datagrams of SIZE bytes to a
 *                                            closed port (dropped: no socket)
 *   netload stream [-6] [-p PORT] SECONDS    send as fast as possible for
 *                                            SECONDS: prints the throughput
 *   netload conns [-6] N                     N short connections one after the
 *                                            other (1 byte each way)
 *   netload pair [-6] N SIZEA SIZEB          two connections at once: the client
 *                                            writes N segments of SIZEA bytes on
 *                                            the first and of SIZEB on the
 *                                            second, in turn (TCP_NODELAY), each
 *                                            read by a server process of its own
 *                                            as it comes (so the packets' buffers
 *                                            are freed and reused between them)
 *
 * The server is a child process named "nl-server", the client "nl-client"
 * (prctl), so a test can tell their rows apart by comm as well as by pid.
 * tcp prints "client PID PORT server PID PORT sent N received M"; refused
 * prints "refused PORT" when connect(2) failed with ECONNREFUSED; udp
 * prints "udp sent COUNT"; stream "stream BYTES bytes SECONDS s MBPS MB/s";
 * pair "pair PORTA PORTB server PORT" (the client's two ports).
 * Exit status 0 when the workload did what it says, 1 otherwise.
 *
 * Only libc: the qemu rig copies it into the rt guests as well.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int family = AF_INET;

static socklen_t loop_addr(struct sockaddr_storage *ss, unsigned int port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*a);
	}
}

static unsigned int sock_port(int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &len) :
		    getsockname(fd, (struct sockaddr *)&ss, &len)))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_all(int fd, const char *buf, size_t bufsz, unsigned long long n)
{
	while (n) {
		size_t want = n < bufsz ? (size_t)n : bufsz;
		ssize_t w = write(fd, buf, want);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n -= (unsigned long long)w;
	}
	return 0;
}

/* Read until @n bytes came (or EOF when @n is 0). Return: bytes read, -1 on error. */
static long long read_n(int fd, char *buf, size_t bufsz, unsigned long long n)
{
	unsigned long long got = 0;

	for (;;) {
		size_t want = bufsz;
		ssize_t r;

		if (n && n - got < want)
			want = (size_t)(n - got);
		if (n && !want)
			return (long long)got;
		r = read(fd, buf, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!r)
			return (long long)got;
		got += (unsigned long long)r;
	}
}

/* A listening socket on loopback; *port becomes its port. */
static int listen_on(unsigned int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = loop_addr(&ss, *port);
	int one = 1, fd = socket(family, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128)) {
		close(fd);
		return -1;
	}
	*port = sock_port(fd, 0);
	return fd;
}

static int connect_to(unsigned int port)
{
	struct sockaddr_storage ss;
	socklen_t len = loop_addr(&ss, port);
	int fd = socket(family, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static char buf[1 << 16];

/*
 * The server: accept @conns connections one after the other; on each read
 * @in bytes (0: to EOF), then write @out and close.
 */
static void serve(int lfd, long conns, unsigned long long in, unsigned long long out)
{
	prctl(PR_SET_NAME, "nl-server", 0, 0, 0);
	for (long i = 0; i < conns; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			_exit(1);
		if (read_n(fd, buf, sizeof(buf), in) < 0 ||
		    write_all(fd, buf, sizeof(buf), out))
			_exit(1);
		/* wait for the client's FIN: the client closes first */
		if (in && read_n(fd, buf, sizeof(buf), 0) < 0)
			_exit(1);
		close(fd);
	}
	close(lfd);
	_exit(0);
}

static pid_t start_server(unsigned int *port, long conns, unsigned long long in,
			  unsigned long long out)
{
	int lfd = listen_on(port);
	pid_t pid;

	if (lfd < 0) {
		perror("netload: listen");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("netload: fork");
		return -1;
	}
	if (!pid)
		serve(lfd, conns, in, out);
	close(lfd);
	return pid;
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static int do_tcp(unsigned int port, unsigned long long send, unsigned long long recv)
{
	pid_t srv = start_server(&port, 1, send, recv);
	unsigned int cport;
	long long got;
	int fd;

	if (srv < 0)
		return 1;
	prctl(PR_SET_NAME, "nl-client", 0, 0, 0);
	fd = connect_to(port);
	if (fd < 0) {
		perror("netload: connect");
		kill(srv, SIGKILL);
		reap(srv);
		return 1;
	}
	cport = sock_port(fd, 0);
	if (write_all(fd, buf, sizeof(buf), send)) {
		perror("netload: write");
		return 1;
	}
	got = read_n(fd, buf, sizeof(buf), recv);
	close(fd);
	if (reap(srv) || got != (long long)recv) {
		fprintf(stderr, "netload: received %lld of %llu bytes\n", got, recv);
		return 1;
	}
	printf("client %d %u server %d %u sent %llu received %lld\n", (int)getpid(), cport,
	       (int)srv, port, send, got);
	return 0;
}

static int do_refused(unsigned int port)
{
	int fd = connect_to(port);

	if (fd >= 0 || errno != ECONNREFUSED) {
		fprintf(stderr, "netload: connect to port %u: %s\n", port,
			fd >= 0 ? "accepted" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	printf("refused %u\n", port);
	return 0;
}

static int do_udp(unsigned int port, long count, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = loop_addr(&ss, port);
	int fd = socket(family, SOCK_DGRAM, 0);
	long sent = 0;

	if (fd < 0 || size > sizeof(buf))
		return 1;
	for (long i = 0; i < count; i++) {
		/* ECONNREFUSED comes back on a later send after the ICMP error: ignore it */
		if (sendto(fd, buf, size, 0, (struct sockaddr *)&ss, len) == (ssize_t)size)
			sent++;
		usleep(1000);
	}
	close(fd);
	printf("udp sent %ld\n", sent);
	return sent == count ? 0 : 1;
}

static int do_stream(unsigned int port, double seconds)
{
	pid_t srv = start_server(&port, 1, 0, 0);
	unsigned long long total = 0;
	double t0, t;
	int fd;

	if (srv < 0)
		return 1;
	prctl(PR_SET_NAME, "nl-client", 0, 0, 0);
	fd = connect_to(port);
	if (fd < 0) {
		perror("netload: connect");
		kill(srv, SIGKILL);
		reap(srv);
		return 1;
	}
	t0 = now_s();
	do {
		if (write_all(fd, buf, sizeof(buf), sizeof(buf)))
			return 1;
		total += sizeof(buf);
		t = now_s();
	} while (t - t0 < seconds);
	close(fd);
	if (reap(srv))
		return 1;
	printf("stream %llu bytes %.3f s %.1f MB/s\n", total, t - t0, total / (t - t0) / 1e6);
	return 0;
}

static int do_conns(long n)
{
	unsigned int port = 0;
	pid_t srv = start_server(&port, n, 1, 1);

	if (srv < 0)
		return 1;
	prctl(PR_SET_NAME, "nl-client", 0, 0, 0);
	for (long i = 0; i < n; i++) {
		int fd = connect_to(port);

		if (fd < 0 || write_all(fd, buf, 1, 1) || read_n(fd, buf, 1, 1) != 1) {
			perror("netload: conns");
			return 1;
		}
		close(fd);
	}
	if (reap(srv))
		return 1;
	printf("conns %ld\n", n);
	return 0;
}

/* The server of pair: a reader process per connection, to EOF. */
static void serve_pair(int lfd)
{
	prctl(PR_SET_NAME, "nl-server", 0, 0, 0);
	for (int i = 0; i < 2; i++) {
		int fd = accept(lfd, NULL, NULL);
		pid_t pid;

		if (fd < 0)
			_exit(1);
		pid = fork();
		if (pid < 0)
			_exit(1);
		if (!pid) {
			close(lfd);
			_exit(read_n(fd, buf, sizeof(buf), 0) < 0);
		}
		close(fd);
	}
	close(lfd);
	for (int i = 0; i < 2; i++)
		if (reap(-1))
			_exit(1);
	_exit(0);
}

static int do_pair(long n, size_t sa, size_t sb)
{
	unsigned int port = 0;
	int lfd = listen_on(&port), fd[2], one = 1;
	pid_t srv;

	if (lfd < 0 || !sa || !sb || sa > sizeof(buf) || sb > sizeof(buf))
		return 1;
	srv = fork();
	if (srv < 0)
		return 1;
	if (!srv)
		serve_pair(lfd);
	close(lfd);
	prctl(PR_SET_NAME, "nl-client", 0, 0, 0);
	for (int i = 0; i < 2; i++) {
		fd[i] = connect_to(port);
		if (fd[i] < 0) {
			perror("netload: connect");
			kill(srv, SIGKILL);
			reap(srv);
			return 1;
		}
		setsockopt(fd[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	for (long i = 0; i < n; i++) {
		if (write_all(fd[0], buf, sa, sa) || write_all(fd[1], buf, sb, sb)) {
			perror("netload: write");
			return 1;
		}
		usleep(200);
	}
	printf("pair %u %u server %u\n", sock_port(fd[0], 0), sock_port(fd[1], 0), port);
	close(fd[0]);
	close(fd[1]);
	return reap(srv) ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: netload tcp [-6] [-p PORT] SEND RECV | refused [-6] PORT |\n"
		"       udp [-6] PORT COUNT SIZE | stream [-6] [-p PORT] SECONDS | conns [-6] N |\n"
		"       pair [-6] N SIZEA SIZEB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int port = 0;
	const char *mode;
	int opt;

	if (argc < 2)
		usage();
	mode = argv[1];
	argc--;
	argv++;
	while ((opt = getopt(argc, argv, "6p:")) != -1) {
		switch (opt) {
		case '6':
			family = AF_INET6;
			break;
		case 'p':
			port = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	memset(buf, 'k', sizeof(buf));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "tcp") && argc == 2)
		return do_tcp(port, strtoull(argv[0], NULL, 10), strtoull(argv[1], NULL, 10));
	if (!strcmp(mode, "refused") && argc == 1)
		return do_refused((unsigned int)strtoul(argv[0], NULL, 10));
	if (!strcmp(mode, "udp") && argc == 3)
		return do_udp((unsigned int)strtoul(argv[0], NULL, 10), strtol(argv[1], NULL, 10),
			      strtoul(argv[2], NULL, 10));
	if (!strcmp(mode, "stream") && argc == 1)
		return do_stream(port, strtod(argv[0], NULL));
	if (!strcmp(mode, "pair") && argc == 3)
		return do_pair(strtol(argv[0], NULL, 10), strtoul(argv[1], NULL, 10),
			       strtoul(argv[2], NULL, 10));
	if (!strcmp(mode, "conns") && argc == 1)
		return do_conns(strtol(argv[0], NULL, 10));
	usage();
	return 2;
}

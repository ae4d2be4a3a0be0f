// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop --remote: ssh runs the far side's `ktop --stream`; the stream comes
 * back on a pipe (src/source/remote.h says why the terminal stays ktop's alone).
 *
 * Before the stream begins, ssh's standard error is relayed line by line to
 * ours (ssh's warnings, sudo's lecture and "Sorry, try again.", the far
 * ktop's refusals), except sudo's password prompt, which is recognised by the
 * text ktop gave it and answered from /dev/tty. Afterwards a thread reads it,
 * so a chatty far side never blocks on a full pipe, and keeps the last line
 * for the message that says why the stream ended.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "lib/err.h"
#include "remote.h"
#include "kernel/session.h"

/* sudo -p's prompt: "%p@%h" (the user, the far host) follows, then "] " */
#define PROMPT_MARK		"[ktop: sudo password for "
#define PROMPT_IDLE_MS		500	/* an unfinished line this old is a prompt or shown */
#define STOP_GRACE_MS		1000	/* SIGTERM, then SIGKILL */

extern char **environ;

struct remote {
	pid_t			pid;
	int			in_fd;		/* ssh's standard input (a socket: MSG_NOSIGNAL) */
	int			out_fd;		/* the stream */
	int			err_fd;		/* ssh's standard error */
	char			dest[256];
	pthread_t		th;
	bool			th_started;
	atomic_bool		stop;
	pthread_mutex_t		lock;		/* last, exited, wstatus */
	char			last[256];	/* ssh's last message line */
	bool			exited;
	int			wstatus;
	char			part[2048];	/* standard error not relayed yet */
	size_t			npart;
};

/*
 * Run as the far side's command: root runs ktop, anyone else through sudo,
 * which reads the password from its standard input (-S) and asks for it with
 * ktop's marker on its standard error (-p).
 */
static const char remote_script[] =
	"if [ \"$(id -u)\" = 0 ]; then exec \"$@\"; fi; "
	"exec sudo -S -p '" PROMPT_MARK "%p@%h] ' -- \"$@\"";

/* Append @s as one single-quoted shell word (' becomes '\''), after a blank. */
static int sq_append(char *buf, size_t len, size_t *pos, const char *s)
{
	size_t p = *pos;

#define PUT(c) do { if (p + 1 >= len) return -ENOSPC; buf[p++] = (c); } while (0)
	PUT(' ');
	PUT('\'');
	for (const char *t = s; *t; t++) {
		if (*t == '\'') {
			PUT('\'');
			PUT('\\');
			PUT('\'');
		}
		PUT(*t);
	}
	PUT('\'');
#undef PUT
	buf[p] = 0;
	*pos = p;
	return 0;
}

int remote_command(const struct remote_opts *ro, char *buf, size_t len)
{
	const char *lead[] = { remote_script, "ktop-remote", ro->ktop ? ro->ktop : "ktop",
			       "--stream" };
	char word[4096];
	size_t pos = 5;
	int ret = 0;

	if (len < 6)
		return -ENOSPC;
	memcpy(buf, "sh -c", 6);
	/* the script, $0, then the far ktop's command line */
	for (unsigned int i = 0; !ret && i < sizeof(lead) / sizeof(lead[0]); i++)
		ret = sq_append(buf, len, &pos, lead[i]);
	for (unsigned int i = 0; !ret && i < ro->nfwd; i++) {
		if ((size_t)snprintf(word, sizeof(word), "--%s%s%s", ro->fwd_name[i],
				     ro->fwd_arg[i] ? "=" : "",
				     ro->fwd_arg[i] ? ro->fwd_arg[i] : "") >= sizeof(word))
			return -ENOSPC;
		ret = sq_append(buf, len, &pos, word);
	}
	return ret;
}

int remote_split_words(const char *cmd, char *copy, size_t copylen,
		       const char **words, unsigned int max)
{
	unsigned int n = 0;
	char *p;

	if (!cmd || strlen(cmd) >= copylen)
		return -EINVAL;
	strcpy(copy, cmd);
	for (p = strtok(copy, " \t\n"); p; p = strtok(NULL, " \t\n")) {
		if (n == max)
			return -EINVAL;
		words[n++] = p;
	}
	return n ? (int)n : -EINVAL;
}

static void remote_set_last(struct remote *r, const char *line, size_t n)
{
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (!n)
		return;
	pthread_mutex_lock(&r->lock);
	snprintf(r->last, sizeof(r->last), "%.*s", (int)n, line);
	pthread_mutex_unlock(&r->lock);
}

/* ssh has ended: its status, under the lock. */
static void remote_reaped(struct remote *r, int wstatus)
{
	pthread_mutex_lock(&r->lock);
	r->exited = true;
	r->wstatus = wstatus;
	pthread_mutex_unlock(&r->lock);
}

/* Wait up to @ms for ssh to end. Return: true once it has. */
static bool remote_reap(struct remote *r, int ms)
{
	int st;

	for (int i = 0; ; i++) {
		pid_t p = waitpid(r->pid, &st, WNOHANG);

		if (p == r->pid || (p < 0 && errno == ECHILD)) {
			remote_reaped(r, p == r->pid ? st : 0);
			return true;
		}
		if (i * 10 >= ms)
			return false;
		usleep(10000);
	}
}

struct remote *remote_start(const struct remote_opts *ro, char *err, size_t errlen)
{
	const char *argv[REMOTE_MAX_SSH_WORDS + 12];
	int sv[2] = { -1, -1 }, out[2] = { -1, -1 }, errp[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	char words[1024], *cmd = NULL;
	posix_spawnattr_t attr;
	struct remote *r = NULL;
	sigset_t none, deflt;
	int n, ret, argc = 0;

	n = remote_split_words(ro->ssh ? ro->ssh : "ssh", words, sizeof(words), argv,
			       REMOTE_MAX_SSH_WORDS);
	if (n < 0) {
		err_set(err, errlen, n, "--ssh '%s': wants a command such as 'ssh -p 2222' "
			"(at most %d words, no quoting)", ro->ssh ? ro->ssh : "",
			REMOTE_MAX_SSH_WORDS);
		return NULL;
	}
	argc = n;
	cmd = malloc(65536);
	r = calloc(1, sizeof(*r));
	if (!cmd || !r) {
		err_set(err, errlen, -ENOMEM, "out of memory");
		goto out_free;
	}
	ret = remote_command(ro, cmd, 65536);
	if (ret) {
		err_set(err, errlen, ret, "--remote: the far side's command line is too long");
		goto out_free;
	}
	/*
	 * A host that falls silent (a panic, a cable) is given up after 15 s
	 * rather than TCP's minutes; options in --ssh come first and win.
	 */
	argv[argc++] = "-o";
	argv[argc++] = "ServerAliveInterval=5";
	argv[argc++] = "-o";
	argv[argc++] = "ServerAliveCountMax=3";
	/* no terminal for the far side (-T): the stream is binary */
	argv[argc++] = "-T";
	argv[argc++] = "--";
	argv[argc++] = ro->dest;
	argv[argc++] = cmd;
	argv[argc] = NULL;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ||
	    pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		err_set(err, errlen, -errno, "--remote: %s", strerror(errno));
		goto out_close;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, errp[1], STDERR_FILENO);
	/* ssh starts with no signal blocked and the terminating ones at their defaults */
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGPIPE);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGTERM);
	sigaddset(&deflt, SIGHUP);
	sigaddset(&deflt, SIGQUIT);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	ret = posix_spawnp(&r->pid, argv[0], &fa, &attr, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (ret) {
		err_set(err, errlen, -ret, "--remote: cannot run '%s': %s%s", argv[0],
			strerror(ret), ret == ENOENT ? " (install openssh-client, or name "
			"the ssh command with --ssh)" : "");
		goto out_close;
	}
	close(sv[1]);
	close(out[1]);
	close(errp[1]);
	r->in_fd = sv[0];
	r->out_fd = out[0];
	r->err_fd = errp[0];
	fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
	snprintf(r->dest, sizeof(r->dest), "%s", ro->dest);
	pthread_mutex_init(&r->lock, NULL);
	free(cmd);
	return r;

out_close:
	for (int i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
out_free:
	free(cmd);
	free(r);
	return NULL;
}

/*
 * Read a line from the terminal with echo off; a terminating signal ends the
 * wait. Return: its length, -EINTR, or a negative errno.
 */
static int tty_read_secret(int tty, char *buf, size_t len)
{
	struct pollfd pfd[2] = {
		{ .fd = tty, .events = POLLIN },
		{ .fd = session_signal_fd(), .events = POLLIN },
	};
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t got;
		char c;

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return -errno;
		if (session_signal_pending())
			return -EINTR;
		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		got = read(tty, &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		if (c == '\n' || c == '\r')
			break;
		buf[n++] = c;
	}
	buf[n] = 0;
	return (int)n;
}

/*
 * sudo on the far side asks for a password: ask on our terminal (the view has
 * not started: the terminal is in its normal mode), send it to sudo.
 */
static int remote_ask_password(struct remote *r, const char *prompt, char *err,
			       size_t errlen)
{
	struct termios old, quiet;
	char pw[512];
	int tty, n, ret = 0;
	bool restore;

	tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (tty < 0)
		return err_set(err, errlen, -ENOTTY, "--remote %s: sudo there asks for a password, "
			       "and there is no terminal here to type it on: run ktop --remote in "
			       "a terminal, or let the user run ktop with sudo without a password "
			       "there (NOPASSWD in sudoers)", r->dest);
	restore = tcgetattr(tty, &old) == 0;
	if (restore) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		tcsetattr(tty, TCSAFLUSH, &quiet);
	}
	if (write(tty, prompt, strlen(prompt)) < 0)
		ret = -errno;
	n = ret ? ret : tty_read_secret(tty, pw, sizeof(pw) - 1);
	if (restore)
		tcsetattr(tty, TCSAFLUSH, &old);
	if (write(tty, "\n", 1) < 0) {
		/* the newline echo did not show: nothing to undo */
	}
	close(tty);
	if (n < 0) {
		explicit_bzero(pw, sizeof(pw));
		if (n == -EINTR)
			return n;
		return err_set(err, errlen, n, "--remote %s: reading the password: %s", r->dest,
			       strerror(-n));
	}
	pw[n++] = '\n';
	if (send(r->in_fd, pw, (size_t)n, MSG_NOSIGNAL) != n)
		ret = err_set(err, errlen, -EPIPE, "--remote %s: the link closed before sudo "
			      "got the password", r->dest);
	explicit_bzero(pw, sizeof(pw));
	return ret;
}

/* Does the unfinished line @s look like a password prompt (PAM's, sudo's own)? */
static bool looks_like_prompt(const char *s, size_t n)
{
	while (n && s[n - 1] == ' ')
		n--;
	return n && s[n - 1] == ':' && memmem(s, n, "assword", 7);
}

/* Relay @n bytes of ssh's standard error to @log, remembering the last line. */
static void relay(struct remote *r, FILE *log, const char *s, size_t n)
{
	const char *nl;

	if (!n)
		return;
	fwrite(s, 1, n, log);
	fflush(log);
	/* the last whole line */
	while (n && s[n - 1] == '\n')
		n--;
	nl = memrchr(s, '\n', n);
	if (nl)
		remote_set_last(r, nl + 1, n - (size_t)(nl + 1 - s));
	else
		remote_set_last(r, s, n);
}

/*
 * What ssh wrote so far: relay whole lines, answer sudo's prompt. @idle: the
 * unfinished rest has waited PROMPT_IDLE_MS (a prompt of another form, or a
 * line that will not be finished). Return: 0 or an error from the prompt.
 */
static int remote_errors(struct remote *r, FILE *log, bool idle, char *err, size_t errlen)
{
	char *mark, *nl, *end;
	char prompt[640];
	size_t cut;
	int ret;

	for (;;) {
		r->part[r->npart] = 0;
		mark = strstr(r->part, PROMPT_MARK);
		if (mark) {
			relay(r, log, r->part, (size_t)(mark - r->part));
			end = strstr(mark, "] ");
			if (!end) {
				memmove(r->part, mark, strlen(mark) + 1);
				r->npart = strlen(r->part);
				return 0;	/* the rest of the prompt is on its way */
			}
			mark += strlen(PROMPT_MARK);
			*end = 0;
			snprintf(prompt, sizeof(prompt), "[sudo on %.200s] password for %.*s: ",
				 strchr(mark, '@') ? strchr(mark, '@') + 1 : r->dest,
				 (int)(strcspn(mark, "@") < 200 ? strcspn(mark, "@") : 200), mark);
			cut = (size_t)(end + 2 - r->part);
			memmove(r->part, r->part + cut, r->npart - cut + 1);
			r->npart -= cut;
			ret = remote_ask_password(r, prompt, err, errlen);
			if (ret)
				return ret;
			continue;
		}
		nl = memrchr(r->part, '\n', r->npart);
		if (nl) {
			cut = (size_t)(nl + 1 - r->part);
			relay(r, log, r->part, cut);
			memmove(r->part, r->part + cut, r->npart - cut + 1);
			r->npart -= cut;
		}
		if (!idle || !r->npart || !memcmp(r->part, PROMPT_MARK,
						  r->npart < strlen(PROMPT_MARK) ? r->npart :
						  strlen(PROMPT_MARK)))
			return 0;
		/* an unfinished line that waits: sudo's own prompt (passprompt_override) */
		if (looks_like_prompt(r->part, r->npart)) {
			snprintf(prompt, sizeof(prompt), "[%.200s] %.*s", r->dest,
				 (int)(r->npart < 300 ? r->npart : 300), r->part);
			r->npart = 0;
			return remote_ask_password(r, prompt, err, errlen);
		}
		relay(r, log, r->part, r->npart);
		r->npart = 0;
		return 0;
	}
}

/* Read what ssh's standard error has. Return: bytes read, 0 at its end. */
static ssize_t remote_read_err(struct remote *r)
{
	ssize_t n;

	if (r->npart + 1 >= sizeof(r->part))
		r->npart = 0;	/* a line this long is no prompt: drop it */
	n = read(r->err_fd, r->part + r->npart, sizeof(r->part) - 1 - r->npart);
	if (n > 0)
		r->npart += (size_t)n;
	return n < 0 && (errno == EAGAIN || errno == EINTR) ? -1 : n;
}

/* After the stream began: keep reading ssh's standard error, reap ssh when it ends. */
static void *remote_err_main(void *arg)
{
	struct remote *r = arg;
	bool eof = false;

	pthread_setname_np(pthread_self(), "ktop-ssh");
	while (!atomic_load(&r->stop)) {
		struct pollfd pfd = { .fd = eof ? -1 : r->err_fd, .events = POLLIN };
		char *nl;

		if (poll(&pfd, 1, 200) < 0 && errno != EINTR)
			break;
		if (!eof && (pfd.revents & (POLLIN | POLLHUP))) {
			ssize_t n = remote_read_err(r);

			eof = n == 0;
			r->part[r->npart] = 0;
			while ((nl = memchr(r->part, '\n', r->npart))) {
				size_t cut = (size_t)(nl + 1 - r->part);

				remote_set_last(r, r->part, cut);
				memmove(r->part, r->part + cut, r->npart - cut + 1);
				r->npart -= cut;
			}
			if (eof && r->npart)
				remote_set_last(r, r->part, r->npart);
		}
		/* standard error ends with ssh, or a helper of it holds it: look anyway */
		if (remote_reap(r, 0))
			break;
	}
	return NULL;
}

static int remote_ended_early(struct remote *r, FILE *log, char *err, size_t errlen)
{
	char why[320];

	/* its last words as they are (sudo, if it asked, has ended), then its status */
	for (int i = 0; i < 100; i++) {
		ssize_t n = remote_read_err(r);

		if (!n)
			break;
		if (n < 0)
			usleep(10000);
	}
	if (r->npart && r->part[r->npart - 1] != '\n')
		r->part[r->npart++] = '\n';
	relay(r, log, r->part, r->npart);
	r->npart = 0;
	remote_reap(r, 2000);
	remote_end_reason(r, why, sizeof(why));
	return err_set(err, errlen, -EPIPE, "--remote %s: the far side ended before the stream "
		       "began (%s)%s", r->dest, why,
		       WIFEXITED(r->wstatus) && WEXITSTATUS(r->wstatus) == 127 ?
		       "; name the far side's ktop with --remote-ktop PATH" : "");
}

int remote_wait_stream(struct remote *r, FILE *log, char *err, size_t errlen)
{
	unsigned int idle_ms = 0;
	sigset_t all, old;
	bool err_eof = false;
	int ret;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = r->out_fd, .events = POLLIN },
			{ .fd = err_eof ? -1 : r->err_fd, .events = POLLIN },
			{ .fd = session_signal_fd(), .events = POLLIN },
		};

		ret = poll(pfd, 3, r->npart ? 100 : -1);
		if (ret < 0 && errno != EINTR)
			return err_set(err, errlen, -errno, "--remote: %s", strerror(errno));
		if (session_signal_pending())
			return err_set(err, errlen, -EINTR, "--remote %s: interrupted before the "
				       "stream began", r->dest);
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = remote_read_err(r);

			err_eof = n == 0;
			if (n > 0)
				idle_ms = 0;
		} else if (ret == 0) {
			idle_ms += 100;
		}
		ret = remote_errors(r, log, idle_ms >= PROMPT_IDLE_MS, err, errlen);
		if (ret)
			return ret;
		if (pfd[0].revents & POLLIN)
			break;
		if (pfd[0].revents & (POLLHUP | POLLERR))
			return remote_ended_early(r, log, err, errlen);
	}
	/* the stream began: sudo has what it wanted; what ssh says from now on is kept */
	shutdown(r->in_fd, SHUT_WR);
	relay(r, log, r->part, r->npart);
	r->npart = 0;
	/* the reader takes no signals: they go to the UI thread and the session */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r->th_started = !pthread_create(&r->th, NULL, remote_err_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

int remote_stream_fd(const struct remote *r)
{
	return r->out_fd;
}

const char *remote_dest(const struct remote *r)
{
	return r->dest;
}

bool remote_end_reason(struct remote *r, char *buf, size_t len)
{
	bool exited;
	int st;

	pthread_mutex_lock(&r->lock);
	exited = r->exited;
	st = r->wstatus;
	if (!exited)
		snprintf(buf, len, "%s", r->last);
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "ssh killed by signal %d%s%s", WTERMSIG(st),
			 r->last[0] ? ": " : "", r->last);
	else
		snprintf(buf, len, "ssh exited with status %d%s%s", WEXITSTATUS(st),
			 r->last[0] ? ": " : "", r->last);
	pthread_mutex_unlock(&r->lock);
	return exited;
}

void remote_hangup(struct remote *r)
{
	atomic_store(&r->stop, true);
	if (r->th_started)
		pthread_join(r->th, NULL);
	r->th_started = false;
	if (!r->exited) {
		kill(r->pid, SIGTERM);
		if (!remote_reap(r, STOP_GRACE_MS)) {
			kill(r->pid, SIGKILL);
			remote_reap(r, STOP_GRACE_MS);
		}
	}
}

void remote_stop(struct remote *r)
{
	if (!r)
		return;
	remote_hangup(r);
	close(r->in_fd);
	close(r->out_fd);
	close(r->err_fd);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Does @pid hold the terminal @rdev on a descriptor of its own (3 and up)? */
static bool holds_tty(pid_t pid, dev_t rdev)
{
	char path[64];
	struct dirent *de;
	bool found = false;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (fd < 3)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
		found = !stat(path, &st) && S_ISCHR(st.st_mode) && st.st_rdev == rdev;
	}
	closedir(d);
	return found;
}

/*
 * ssh reads its session's input from a copy of descriptor 0 (the terminal),
 * or with -n from /dev/null: the copy tells them apart, descriptor 0 does not.
 */
pid_t remote_tty_sharer(int tty_fd)
{
	struct stat tst;
	char path[64], comm[32];
	struct dirent *de;
	pid_t me = getpid(), found = 0;
	DIR *d;

	if (fstat(tty_fd, &tst) || !S_ISCHR(tst.st_mode))
		return 0;
	d = opendir("/proc");
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		FILE *fp;

		if (pid <= 0 || pid == me || getpgid(pid) != getpgrp())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		if (fgets(comm, sizeof(comm), fp) && !strcmp(comm, "ssh\n") &&
		    holds_tty(pid, tst.st_rdev))
			found = pid;
		fclose(fp);
	}
	closedir(d);
	return found;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktop --remote [user@]host: the live view of another machine's kernel. ssh
 * runs `ktop --stream` there (through `sudo -S` unless the login is root) and
 * the stream comes back on a pipe, read as `-i -` reads one.
 *
 * ssh never shares the local terminal with the view: its standard input is a
 * socket ktop holds (keys typed in the view are the view's alone), its
 * standard output the stream, its standard error a pipe ktop reads. sudo's
 * password prompt arrives on that pipe, marked by the prompt ktop gave it
 * (sudo -p); ktop asks for the password on its own terminal with echo off,
 * before the view starts, and sends it to sudo's standard input over the
 * link. Prompt and password never travel with the stream's bytes: that is
 * why no pseudo-terminal is asked for (ssh -t would mix them into the stream,
 * and its line discipline would rewrite the stream's newlines).
 *
 * Nothing here draws: the UI and main() ask remote_end_reason() what
 * happened to the link.
 */
#ifndef KTOP_REMOTE_H
#define KTOP_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define REMOTE_MAX_FWD		128	/* options handed on to the far side's ktop */
#define REMOTE_MAX_SSH_WORDS	32	/* words of --ssh */

struct remote;

struct remote_opts {
	const char	*dest;		/* [user@]host, or anything ssh takes as its destination */
	const char	*ssh;		/* --ssh: the ssh command, split at blanks; NULL: "ssh" */
	const char	*ktop;		/* --remote-ktop: the far side's ktop; NULL: "ktop" */
	/* the far side's options after --stream: "--NAME" or "--NAME=ARG" */
	const char	*fwd_name[REMOTE_MAX_FWD];	/* long option names, without "--" */
	const char	*fwd_arg[REMOTE_MAX_FWD];	/* their arguments, NULL for none */
	unsigned int	nfwd;
};

/**
 * remote_command - the command line ssh asks the far side's shell to run
 * @ro: the destination's ktop and the options to hand on
 * @buf: receives it: `sh -c '...' ktop-remote 'KTOP' '--stream' ...`, every
 *       word quoted for a POSIX shell (and safe for csh and fish too: one
 *       single-quoted word each)
 *
 * Return: 0, or -ENOSPC when @len is too small.
 */
int remote_command(const struct remote_opts *ro, char *buf, size_t len);

/**
 * remote_split_words - split @cmd (--ssh) at blanks into @words
 * @copy: a buffer of @copylen bytes that receives the words (they point into it)
 *
 * No quoting: a word with a blank in it does not fit (ssh's options take
 * none; an ssh_config file does).
 * Return: the number of words (>= 1), or -EINVAL (empty, too many, too long).
 */
int remote_split_words(const char *cmd, char *copy, size_t copylen,
		       const char **words, unsigned int max);

/**
 * remote_start - run ssh with the far side's `ktop --stream`
 * @err: what went wrong, for the user
 *
 * Return: the running link (remote_stop() it), or NULL with @err filled.
 * Context: the main thread, before the view; ssh stays in ktop's process
 * group, so that it can ask its own questions (host key, password) on the
 * terminal while ktop waits for the stream.
 */
struct remote *remote_start(const struct remote_opts *ro, char *err, size_t errlen);

/**
 * remote_wait_stream - wait until the stream's first bytes are there
 * @log: where ssh's and the far side's messages go meanwhile (stderr)
 *
 * Relays what ssh and the far side write to their standard error, and asks
 * for the sudo password on /dev/tty when sudo asks for it. Once the stream
 * has begun, a thread reads the rest of that standard error (the last line
 * is kept for remote_end_reason()).
 * Return: 0 when the stream began; -EINTR on a terminating signal; -EPIPE
 * with @err filled when the far side ended before sending anything.
 */
int remote_wait_stream(struct remote *r, FILE *log, char *err, size_t errlen);

/* The stream (the read end of ssh's standard output); it stays remote's. */
int remote_stream_fd(const struct remote *r);

/* The destination as given to --remote. */
const char *remote_dest(const struct remote *r);

/**
 * remote_end_reason - what ssh said and did, for a stream that ended
 * @buf: "ssh exited with status 255: Connection to host closed by remote
 *       host." or "ssh killed by signal 9", or the last message while ssh
 *       still runs; "" when there is nothing to say
 *
 * Return: true once ssh has ended.
 * Context: any thread.
 */
bool remote_end_reason(struct remote *r, char *buf, size_t len);

/*
 * End ssh (SIGTERM, then SIGKILL after a second) and reap it; the stream's
 * reader then sees its end. Safe twice.
 */
void remote_hangup(struct remote *r);

/* remote_hangup(), then close the stream and free @r. NULL is fine. */
void remote_stop(struct remote *r);

/**
 * remote_tty_sharer - an ssh in our pipeline that reads our terminal
 * @tty_fd: the view's terminal (its own device, not /dev/tty, which is another)
 *
 * `ssh HOST ktop --stream | ktop -i -` leaves ssh reading the terminal too:
 * it takes keys typed in the view and sends them to the far side. The view
 * says so (use ktop --remote, or ssh -n).
 * Return: its pid, or 0 when there is none.
 */
pid_t remote_tty_sharer(int tty_fd);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktop's output to a reader that may stop reading: the --batch and --json
 * summaries, --stream, and exports to standard output.
 *
 * A write() to a full pipe blocks, and a signal handler installed with
 * SA_RESTART does not end it: `ktop --stream | sleep 30` used to ignore
 * SIGTERM until sleep exited. Writes here never block. A pipe or terminal is
 * written through a private non-blocking open file description (reopened
 * through /proc/self/fd, so the shared one and whoever else holds it are
 * untouched), a socket with MSG_DONTWAIT; when neither works, in pieces of at
 * most PIPE_BUF bytes after poll() said there is room. Waiting for room is a
 * poll() on the output and on the stop fd (the signal handlers' self-pipe,
 * see session_signals_init()). Once the stop fd is readable, a write that
 * must wait fails with -EINTR when the reader has taken nothing for
 * OUTPUT_STOP_GRACE_MS, or OUTPUT_STOP_MAX_MS after the stop was seen: a
 * reader that keeps up still gets the last summary or a properly ended
 * stream, and no reader keeps ktop from ending within a second of a signal.
 */
#ifndef KTOP_OUTPUT_H
#define KTOP_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/uio.h>

#define OUTPUT_STOP_GRACE_MS	200
#define OUTPUT_STOP_MAX_MS	400

struct output;

/**
 * output_set_stop_fd - the fd that becomes readable when ktop must stop
 * @fd: a pipe's read end (never read here), or -1 for none
 * Context: start-up, before any output is written.
 */
void output_set_stop_fd(int fd);

/**
 * output_new - prepare to write to @fd
 * @fd: the caller's fd; it stays the caller's (output_free does not close it)
 *
 * Return: the output (free with output_free), or NULL with errno ENOMEM.
 */
struct output *output_new(int fd);
void output_free(struct output *o);

/**
 * output_write - write all of @iov
 * @o: the output
 * @iov: the buffers; advanced over what was written
 * @cnt: how many
 *
 * SIGPIPE is not delivered for it: a reader that went away is -EPIPE.
 * Return: 0, -EPIPE, -EINTR (ktop is stopping and the reader is not taking
 * what is left, see above), or another negative errno.
 * Context: any thread; one writer per output.
 */
int output_write(struct output *o, struct iovec *iov, int cnt);

/**
 * output_fdopen - a stdio stream that writes to @fd through an output
 * @fd: the fd
 * @close_fd: whether fclose() closes @fd too
 *
 * A failed write sets the stream's error and errno (EPIPE, EINTR, ...).
 * Return: the stream (fully buffered), or NULL with errno set.
 */
FILE *output_fdopen(int fd, bool close_fd);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a whole file into memory: tracefs files, /proc files, recorded
 * fixtures, snapshots' side files. One reader, so that every caller gets the
 * same answers to the same questions:
 *
 *   - tracefs and /proc files report a size of 0: the reader reads until
 *     end of file, never trusting st_size;
 *   - a file larger than the caller's bound is -EFBIG, not a truncated
 *     buffer nor an allocation as large as the file;
 *   - the buffer is always NUL-terminated (text parsers need not check), and
 *     the length is given too (binary files may hold NULs);
 *   - EINTR is retried; errors are 0 / -errno, nothing is printed.
 *
 * For users' own files, which must not be followed through others' links or
 * block on a FIFO, see safefile_read().
 */
#ifndef KTOP_FILE_H
#define KTOP_FILE_H

#include <stddef.h>
#include <stdint.h>

/* No bound but memory: for files ktop itself or the kernel wrote. */
#define FILE_NO_MAX	SIZE_MAX

/**
 * file_read_fd - read @fd from its offset to end of file
 * @fd: an open file; left open, its offset at the end
 * @max: more than @max bytes is -EFBIG (FILE_NO_MAX: no bound)
 * @out: receives the bytes, NUL-terminated; the caller frees it
 * @lenp: receives the byte count (without the NUL); may be NULL
 *
 * A regular file's size is used as a first guess only; a file that reports 0
 * (tracefs, /proc) or grows while read is read to its end all the same.
 * Return: 0, or -EFBIG, -ENOMEM or the errno of read(); *@out is then NULL.
 * Context: any thread.
 */
int file_read_fd(int fd, size_t max, char **out, size_t *lenp);

/**
 * file_read - read the file at @path whole
 * @path: the file
 * @max: more than @max bytes is -EFBIG (FILE_NO_MAX: no bound)
 * @out: receives the bytes, NUL-terminated; the caller frees it
 * @lenp: receives the byte count; may be NULL
 *
 * Return: 0, or a negative errno (-ENOENT, -EACCES, -EISDIR, -EFBIG, ...);
 * *@out is then NULL.
 * Context: any thread.
 */
int file_read(const char *path, size_t max, char **out, size_t *lenp);

/**
 * file_read_gz - read @path whole, decompressing it when it is gzip'd
 * @path: a gzip file, or a plain one (read as it is)
 * @max: more than @max bytes once decompressed is -EFBIG
 * @out: receives the bytes, NUL-terminated; the caller frees it
 * @lenp: receives the byte count; may be NULL
 *
 * The bound applies to the decompressed size, so a small file that inflates
 * without end stops at @max.
 * Return: 0, or a negative errno (-EIO for a corrupt gzip stream); *@out is
 * then NULL.
 * Context: any thread.
 */
int file_read_gz(const char *path, size_t max, char **out, size_t *lenp);

/**
 * file_read_value - read a one-value file (tracefs setting, /proc/PID/comm)
 * @path: the file
 * @buf: receives the content, NUL-terminated, trailing white space removed
 * @len: size of @buf; a file longer than @len - 1 bytes is -EFBIG
 *
 * Return: 0, or a negative errno; @buf is then "" (when @len > 0).
 * Context: any thread.
 */
int file_read_value(const char *path, char *buf, size_t len);

/**
 * file_read_text - file_read() for callers that want the text or NULL
 * Return: the bytes, NUL-terminated (the caller frees them), or NULL with
 * errno set.
 * Context: any thread.
 */
char *file_read_text(const char *path);

/**
 * file_text_u64 - the number of a "KEY: N" line in @text
 * @text: NUL-terminated text, such as per_cpu/cpuN/stats ("entries: 3\noverrun: 0\n...")
 * @key: the line's name without the colon ("overrun", "dropped events")
 * @out: receives N
 *
 * Return: 0, or -ENOENT when no line starts with "@key:".
 * Context: any thread.
 */
int file_text_u64(const char *text, const char *key, uint64_t *out);

/**
 * file_write_all - write() all of @len bytes of @buf to @fd
 *
 * Loops on short writes (tracefs list files take one word per write() and
 * say so in the return value) and on EINTR.
 * Return: 0, or a negative errno (-EIO when write() writes nothing).
 * Context: any thread.
 */
int file_write_all(int fd, const void *buf, size_t len);

/**
 * file_write_str - open @path, write all of @s (file_write_all), close it
 * @oflags: O_TRUNC, O_APPEND or 0, added to O_WRONLY | O_CLOEXEC. Mind which a
 *          tracefs file wants: O_TRUNC on set_ftrace_filter clears it, and on
 *          dynamic_events removes every dynamic event on the system.
 *
 * An empty @s is not written: opening is all (with O_TRUNC: clear the file).
 * No allocation.
 * Return: 0, or a negative errno from open, write or close.
 * Context: any thread; async-signal-safe (the fatal-signal cleanup uses it).
 */
int file_write_str(const char *path, const char *s, int oflags);

#endif

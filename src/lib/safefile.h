/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files ktop writes, opened so that running as root cannot be turned
 * against the machine. Two kinds:
 *
 * Output files (-o FILE, the view's save prompt; every export format):
 * safefile_out_open() / safefile_out_close().
 *   - "-" is standard output, written in place.
 *   - A missing or regular file is replaced atomically: a temporary file
 *     (O_EXCL, mode 0600) in the same directory, fsync, rename.
 *   - An existing character device, FIFO or socket (/dev/null, a named
 *     pipe, /dev/stdout -> a pipe) is written in place: opened without
 *     O_CREAT or O_TRUNC, never renamed over. A directory or a block device
 *     is refused.
 *   - A symbolic link is followed only when root or the caller owns it:
 *     to a regular file, that file (by its real path) is replaced
 *     atomically in its own directory and the link stays; to a device or
 *     FIFO, that is written in place. A link anyone else owns, or one that
 *     leads nowhere, is refused.
 *
 * Small files in a user's directories (ktop.conf, the filter history):
 * safefile_replace() writes only into a directory that every component of
 * its path, checked one by one from /, shows to be trusted: owned by root
 * or the effective uid, and not writable by group or others (a sticky
 * directory such as /tmp may be on the way; the last one may not be
 * writable by anyone else at all). So a ktop run as root with a user's
 * $HOME (sudo -E, su -m) writes nothing there. The file itself is a
 * temporary created with O_CREAT | O_EXCL | O_NOFOLLOW and renamed over the
 * name: a planted symbolic link is replaced, never followed.
 * safefile_read() reads such a file: a regular file only, no blocking open,
 * at most a given size, through a symbolic link only when root or the
 * caller owns the link.
 */
#ifndef KTOP_SAFEFILE_H
#define KTOP_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum safefile_out_flags {
	/*
	 * The writer seeks (the trace.dat writer does): a target that cannot seek
	 * (standard output, a pipe, a device) gets an unlinked spool file,
	 * copied to it by safefile_out_close().
	 */
	SAFEFILE_OUT_SEEKABLE		= 1 << 0,
	/*
	 * The interactive view draws on the terminal: refuse "-" and any
	 * target that turns out to be a terminal (/dev/tty, /dev/stdout).
	 */
	SAFEFILE_OUT_NO_TERMINAL	= 1 << 1,
};

struct safefile_out {
	int	fd;		/* write here */
	int	dst_fd;		/* the in-place target when fd is a spool, else -1 */
	int	dir_fd;		/* directory of an atomic replacement, else -1 */
	char	*tmp;		/* the temporary's name in dir_fd, else NULL */
	char	*name;		/* the name it is renamed to */
	/* written in place: standard output, a FIFO, a device (may block, or go away) */
	bool	in_place;
	char	path[512];	/* as given, for messages */
};

/**
 * safefile_out_open - open @path for writing a whole file, as described above
 * @o: filled in; pass it to safefile_out_close() whatever happens next
 * @flags: enum safefile_out_flags
 *
 * Return: 0, or a negative errno with a message naming @path in @err; then
 * nothing was created and nothing is left open.
 */
int safefile_out_open(struct safefile_out *o, const char *path, unsigned int flags,
		      char *err, size_t errlen);

/**
 * safefile_out_check - would safefile_out_open() accept @path? A refused
 * target (a directory, a block device, a symbolic link of another user, a
 * directory where no file can be made: sysfs, a read-only mount) is found
 * before ktop traces for minutes to write it at the end. The target is not
 * opened; for a new file, the temporary one that the end would make is
 * made next to it and removed at once.
 *
 * Return: 0, or a negative errno with a message naming @path in @err.
 */
int safefile_out_check(const char *path, unsigned int flags, char *err, size_t errlen);

/**
 * safefile_out_open_fd - write in place to @fd, an output already open
 * @name: for messages
 * @flags: as safefile_out_open(): a SEEKABLE writer gets a spool copied to
 *	   @fd at the end; NO_TERMINAL refuses a terminal
 *
 * @fd is duplicated: the caller keeps its own.
 * Return: 0, or a negative errno with a message naming @name in @err.
 */
int safefile_out_open_fd(struct safefile_out *o, int fd, const char *name, unsigned int flags,
			 char *err, size_t errlen);

/**
 * safefile_out_close - finish what safefile_out_open() began
 * @ok: the content is complete: fsync and rename the temporary over the
 *	target (or copy the spool into it); false: remove the temporary
 *
 * Closes every fd in @o, including o->fd.
 * Return: 0, -EIO when !@ok, or the negative errno of the step that failed
 * with a message in @err.
 */
int safefile_out_close(struct safefile_out *o, bool ok, char *err, size_t errlen);

/**
 * safefile_dir_open - open the directory @path if it is trusted (see above)
 * @mkdir_mode: create missing components with this mode (0: do not create)
 * @why: on -EPERM, which component is not trusted and why
 *
 * Return: an O_PATH directory fd (close it), or a negative errno: -EPERM for
 * an untrusted component, -ENOENT, -ELOOP...
 */
int safefile_dir_open(const char *path, mode_t mkdir_mode, char *why, size_t whylen);

/**
 * safefile_replace - replace the file @path with @len bytes of @data
 * @mode: of the new file, less the umask (0600 or 0644)
 * @why: on failure, what went wrong ("/home/u belongs to uid 1000 and ktop
 *	 runs as root", "rename: ..."), without the path of the file
 *
 * The directory is opened with safefile_dir_open() (missing components made
 * 0700); the new file is a temporary created there with O_EXCL | O_NOFOLLOW,
 * written, fsynced and renamed over @path.
 * Return: 0, or a negative errno (-EPERM: the directory is not trusted).
 */
int safefile_replace(const char *path, const void *data, size_t len, mode_t mode,
		     char *why, size_t whylen);

/**
 * safefile_read - read a small regular file whole
 * @max: larger files are refused (-EFBIG)
 * @out: NUL-terminated content (free it); @lenp may be NULL
 *
 * The open never blocks (O_NONBLOCK: a FIFO planted under the name is
 * refused, not waited for) and follows a symbolic link only when root or the
 * effective uid owns it (-ELOOP otherwise). Anything but a regular file is
 * -EINVAL.
 * Return: 0 or a negative errno.
 */
int safefile_read(const char *path, size_t max, char **out, size_t *lenp);

/**
 * safefile_xdg_path - a file of ktop's in one of the user's XDG directories
 * @xdg_var: "XDG_CONFIG_HOME", "XDG_STATE_HOME"
 * @home_dir: the default below $HOME: ".config", ".local/state"
 * @name: the file, below ktop/
 * @buf: receives "$XDG_VAR/ktop/NAME", or "$HOME/HOME_DIR/ktop/NAME"
 * Return: 0, or -ENOENT when neither variable is set.
 */
int safefile_xdg_path(const char *xdg_var, const char *home_dir, const char *name, char *buf,
		      size_t len);

#endif

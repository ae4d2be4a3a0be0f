// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The UI thread's loop: poll() on the terminal, the collectors' wake fd, the
 * session's signal fd and a SIGWINCH self-pipe, with the next due frame or
 * tick as the timeout. It never busy-loops: data only marks the screen
 * stale, and a stale screen is redrawn at most once per refresh interval;
 * keys redraw at once. Only this thread calls curses. The terminal is restored
 * on every way out: quit, terminating signals (through the session's signal
 * fd), a lost terminal, exit(), and fatal signals (async-signal-safe reset).
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>
#include "lib/clock.h"
#include "kernel/cmdlines.h"
#include "app/app.h"
#include "kernel/session.h"
#include "lib/tuning.h"
#include "ui.h"
#include "ui-local.h"

#define TICK_NS		1000000000ull

static int winch_pipe[2] = { -1, -1 };
static struct termios saved_tio;
static bool saved_tio_ok;
static volatile sig_atomic_t curses_active;
static char reset_seq[256];
static size_t reset_len;

static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
static struct sigaction fatal_old[sizeof(fatal_sigs) / sizeof(fatal_sigs[0])];

static void winch_handler(int sig)
{
	int saved = errno;
	char c = 0;

	if (write(winch_pipe[1], &c, 1) < 0) {
		/* full pipe: a resize is already pending */
	}
	errno = saved;
}

/* Put the terminal back with only async-signal-safe calls. */
static void term_reset_raw(void)
{
	if (!curses_active)
		return;
	if (reset_len && write(STDOUT_FILENO, reset_seq, reset_len) < 0) {
		/* nothing more can be done */
	}
	if (saved_tio_ok)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	curses_active = 0;
}

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	term_reset_raw();
	for (unsigned int i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++) {
		if (fatal_sigs[i] != sig)
			continue;
		/* hand over to whoever was there before (the session's kernel restore) */
		if (fatal_old[i].sa_flags & SA_SIGINFO && fatal_old[i].sa_sigaction) {
			fatal_old[i].sa_sigaction(sig, si, uc);
		} else if (fatal_old[i].sa_handler != SIG_DFL &&
			   fatal_old[i].sa_handler != SIG_IGN) {
			fatal_old[i].sa_handler(sig);
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_cap(const char *name)
{
	char *s = tigetstr((char *)name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (reset_len + n < sizeof(reset_seq)) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

static void term_prepare_reset(void)
{
	static const char mouse_off[] = "\033[?1000l\033[?1002l\033[?1006l";

	reset_len = 0;
	memcpy(reset_seq, mouse_off, sizeof(mouse_off) - 1);
	reset_len = sizeof(mouse_off) - 1;
	add_cap("sgr0");
	add_cap("cnorm");
	add_cap("rmkx");
	add_cap("rmcup");
}

static void ui_atexit(void)
{
	if (curses_active) {
		endwin();
		curses_active = 0;
	}
}

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = winch_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &sa, &fatal_old[i]);
}

static void restore_handlers(void)
{
	signal(SIGWINCH, SIG_DFL);
	for (unsigned int i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &fatal_old[i], NULL);
}

/*
 * KTOP_UI_KEY_LATENCY=FILE (src/lib/tuning.h): on exit, write one line per key
 * redraw with the time from poll() waking up to the frame sent (ns) and the
 * wake-up's CLOCK_REALTIME (ns), for tests/bench/ui_latency.sh, which splits the
 * time from its key to the screen at these two points.
 */
static void key_lat_dump(struct ui *ui)
{
	const char *path = tuning()->ui_key_latency;
	FILE *fp;

	if (!path)
		return;
	fp = fopen(path, "w");
	if (!fp)
		return;
	for (unsigned int i = 0; i < ui->nkey_lat; i++)
		fprintf(fp, "%llu %llu\n", (unsigned long long)ui->key_lat[i],
			(unsigned long long)ui->key_wake_rt[i]);
	/* loop iterations that kept the UI thread away from poll() for > 2 ms */
	for (unsigned int i = 0; i < ui->nbusy; i++)
		fprintf(fp, "busy %llu\n", (unsigned long long)ui->busy[i]);
	fclose(fp);
}

/*
 * The helper that reads new events into ui->stats: in slices of about 2 ms
 * under ui->lock, at most UI_INGEST_CAP_NS a second (beyond that the
 * statistics fall behind and, live, skip ahead, which the top view shows).
 * It runs at a lower priority than the UI thread and never calls curses.
 */
static void *ingest_main(void *arg)
{
	struct ui *ui = arg;
	uint64_t last_cmdlines = 0;

	pthread_setname_np(pthread_self(), "ktop-ui-stats");
	/* nice 10: the UI thread (and the collectors) go first */
	setpriority(PRIO_PROCESS, (id_t)gettid(), 10);
	pthread_mutex_lock(&ui->lock);
	while (!ui->ingest_stop) {
		bool behind = !ui->paused && ui->ingest_ns_sec < UI_INGEST_CAP_NS &&
			      ui_stats_behind(&ui->stats);

		if (behind) {
			/* reads the store unlocked, counts under the lock */
			pthread_mutex_unlock(&ui->lock);
			ui_stats_ingest(&ui->stats, UI_INGEST_SLICE_NS, &ui->lock);
			pthread_mutex_lock(&ui->lock);
			ui->ingest_ns_sec += ui->stats.last_ingest_ns;
			continue;
		}
		struct timespec ts;

		/* tasks seen only in non-scheduler events: saved_cmdlines' name, once a second */
		if ((app_flags(ui->app) & SOURCE_KERNEL) && ui->app->ft.tracefs[0] &&
		    clock_mono_ns() - last_cmdlines > 1000000000ull) {
			last_cmdlines = clock_mono_ns();
			pthread_mutex_unlock(&ui->lock);
			cmdlines_fill(ui->app->st, ui->app->ft.tracefs);
			pthread_mutex_lock(&ui->lock);
		}
		/* woken by new data, a key, or every 100 ms to look again */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&ui->cond, &ui->lock, &ts);
	}
	pthread_mutex_unlock(&ui->lock);
	return NULL;
}

static int ingest_start(struct ui *ui)
{
	sigset_t all, old;
	int ret;

	/* the helper takes no signals: they go to the UI thread and the session */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&ui->ingest_thread, NULL, ingest_main, ui);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ui->ingest_running = ret == 0;
	return -ret;
}

static void ingest_stop(struct ui *ui)
{
	if (!ui->ingest_running)
		return;
	pthread_mutex_lock(&ui->lock);
	ui->ingest_stop = true;
	pthread_cond_signal(&ui->cond);
	pthread_mutex_unlock(&ui->lock);
	pthread_join(ui->ingest_thread, NULL);
	ui->ingest_running = false;
}

static void do_resize(struct ui *ui)
{
	struct winsize ws;
	char buf[64];

	while (read(winch_pipe[0], buf, sizeof(buf)) > 0)
		;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resize_term(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	ui->dirty = true;
}

/*
 * The keys that came: each handled under the lock, its flags acted on here.
 * Return: the flags of them all, UI_QUIT as soon as one asks to quit.
 */
static int read_keys(struct ui *ui)
{
	int ch, r, all = 0;

	while ((ch = getch()) != ERR) {
		pthread_mutex_lock(&ui->lock);
		r = ui_handle_key(ui, ch);
		pthread_cond_signal(&ui->cond);	/* narrowing, resume */
		pthread_mutex_unlock(&ui->lock);
		if (r & UI_QUIT)
			return UI_QUIT;
		if (r & UI_CLEAR)
			clearok(curscr, TRUE);
		all |= r;
	}
	return all;
}

/* New data: the screen is stale (unless paused), and the statistics helper looks again. */
static void data_woke(struct ui *ui, struct app *a, struct pollfd *pfd, bool *stale)
{
	uint64_t v;

	if (read(a->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		pfd->fd = -1;
	pthread_mutex_lock(&ui->lock);
	if (!ui->paused)
		*stale = true;
	pthread_cond_signal(&ui->cond);
	pthread_mutex_unlock(&ui->lock);
}

static void frame_locked(struct ui *ui)
{
	pthread_mutex_lock(&ui->lock);
	ui_frame(ui, false);
	pthread_mutex_unlock(&ui->lock);
}

/* Until quit, a terminating signal or a lost terminal. Return: the exit status. */
static int ui_loop(struct ui *ui, struct app *a)
{
	uint64_t last_frame = 0;
	bool data_stale = true;
	int ret;

	for (;;) {
		uint64_t now = clock_mono_ns(), refresh = (uint64_t)ui->refresh_ms * 1000000u;
		uint64_t due, polled, busy0 = now;
		struct timespec wake_rt;
		struct pollfd pfd[4];
		int timeout, keys = 0;

		/* SIGINT, SIGTERM, SIGHUP end the view normally: status 0, as in batch mode */
		if (session_signal_pending())
			return 0;
		if (now - ui->tick_ns >= TICK_NS) {
			pthread_mutex_lock(&ui->lock);
			ui_tick(ui, now);
			ui->ingest_ns_sec = 0;
			pthread_mutex_unlock(&ui->lock);
		}
		/*
		 * Work a key left (a long search) goes on a slice at a time, keys
		 * read between slices; the screen shows its progress at the refresh
		 * interval, and its end at once.
		 */
		if (ui->working) {
			bool more;

			pthread_mutex_lock(&ui->lock);
			more = ui_work(ui, UI_WORK_SLICE_NS);
			pthread_mutex_unlock(&ui->lock);
			ui->dirty = true;
			if (!more)
				last_frame = 0;
			now = clock_mono_ns();
		}
		/* a stale screen is redrawn once the refresh interval has passed */
		if ((data_stale || ui->dirty) && now - last_frame >= refresh) {
			frame_locked(ui);
			last_frame = clock_mono_ns();
			data_stale = false;
			now = last_frame;
		}
		due = ui->tick_ns + TICK_NS;
		if ((data_stale || ui->dirty) && last_frame + refresh < due)
			due = last_frame + refresh;
		timeout = due > now && !ui->working ? (int)((due - now + 999999) / 1000000) : 0;

		pfd[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = winch_pipe[0], .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = session_signal_fd(), .events = POLLIN };
		/* once the screen is stale, more data changes nothing until the frame */
		pfd[3] = (struct pollfd){ .fd = data_stale ? -1 : a->wake_fd, .events = POLLIN };
		if (ui->nbusy < UI_KEY_LAT_MAX && clock_mono_ns() - busy0 > 2000000)
			ui->busy[ui->nbusy++] = clock_mono_ns() - busy0;
		ret = poll(pfd, 4, timeout);
		polled = clock_mono_ns();
		clock_gettime(CLOCK_REALTIME, &wake_rt);
		if (ret < 0 && errno != EINTR)
			return 0;
		if (ret <= 0)
			continue;
		if (pfd[2].revents)
			continue;	/* session_signal_pending() ends the loop */
		if (pfd[1].revents & POLLIN) {
			do_resize(ui);
			keys |= UI_REDRAW;
		}
		if (pfd[3].revents & POLLIN)
			data_woke(ui, a, &pfd[3], &data_stale);
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			return 1;	/* the terminal went away */
		if (pfd[0].revents & POLLIN)
			keys |= read_keys(ui);
		if (keys & UI_QUIT)
			return 0;
		if (keys & (UI_REDRAW | UI_RESIZE)) {
			frame_locked(ui);	/* it leaves ui->dirty set for work left */
			if (ui->nkey_lat < UI_KEY_LAT_MAX) {
				ui->key_wake_rt[ui->nkey_lat] = (uint64_t)wake_rt.tv_sec *
								1000000000ull + wake_rt.tv_nsec;
				ui->key_lat[ui->nkey_lat++] = clock_mono_ns() - polled;
			}
		}
	}
}

/* The fleet of ui_run_fleet(), the BASE of ui_run_diff(), for ui_run. */
static struct fleet *run_fleet;
static struct app *run_base;

int ui_run_diff(struct app *a, struct app *base)
{
	int status;

	run_base = base;
	status = ui_run(a);
	run_base = NULL;
	return status;
}

int ui_run_fleet(struct app *a, struct fleet *f)
{
	int status;

	run_fleet = f;
	status = ui_run(a);
	run_fleet = NULL;
	return status;
}

int ui_run(struct app *a)
{
	int status = 0, ret;
	struct ui *ui;
	SCREEN *scr;

	setlocale(LC_ALL, "");
	ui = calloc(1, sizeof(*ui));
	if (!ui)
		return 1;
	ret = run_base ? ui_init_diff(ui, a, run_base) : ui_init(ui, a);
	if (ret) {
		fprintf(stderr, "ktop: cannot start the interactive view: %s\n", strerror(-ret));
		free(ui);
		return 1;
	}
	if (run_fleet) {
		ui->fleet = run_fleet;
		ui_show_pane(ui, "fleet");
	}
	if (pipe2(winch_pipe, O_NONBLOCK | O_CLOEXEC)) {
		ui_destroy(ui);
		free(ui);
		return 1;
	}
	saved_tio_ok = tcgetattr(STDIN_FILENO, &saved_tio) == 0;
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "ktop: cannot use the terminal (TERM=%s); try TERM=xterm, "
			"or --batch\n", getenv("TERM") ? getenv("TERM") : "");
		status = 1;
		goto out_pipe;
	}
	set_term(scr);
	curses_active = 1;
	atexit(ui_atexit);
	term_prepare_reset();
	install_handlers();
	ui_term_setup(ui);
	/*
	 * ncurses (6.4 here) flushes its output after every cursor movement until
	 * the screen has been suspended once: after newterm() a frame went out in
	 * hundreds of writes of ~20 bytes, each one waking the terminal (tmux,
	 * sshd) to read it. Leaving and resuming the screen once before the first
	 * frame (endwin(), then the frame's doupdate()) makes it buffer: a frame
	 * is then one write per few KB.
	 */
	endwin();
	if (ingest_start(ui))
		ui_message(ui, "cannot start the statistics helper: "
			   "the CPU and top panes stay empty");
	status = ui_loop(ui, a);
	ingest_stop(ui);
	restore_handlers();
	endwin();
	key_lat_dump(ui);
	curses_active = 0;
	delscreen(scr);
	if (saved_tio_ok)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
out_pipe:
	close(winch_pipe[0]);
	close(winch_pipe[1]);
	winch_pipe[0] = winch_pipe[1] = -1;
	ui_destroy(ui);
	free(ui);
	return status;
}

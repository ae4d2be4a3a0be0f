#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop's interactive view on different terminals and settings: monochrome
# (TERM=vt100), NO_COLOR, 256 colours, a non-UTF-8 locale (ASCII line
# drawing), --theme, and a theme that does not exist.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

ESC=$'\033'
# colour_codes: the SGR colour parameters on the screen (30-37, 40-47, 90-97, 38;5;N ...)
colour_codes() {
	scr_esc | grep -Eo "${ESC}\[[0-9;]*m" | grep -Eo '[[;](3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;5;[0-9]+|48;5;[0-9]+)' | tr -d '[;' | sort -u | tr '\n' ' '
}

# run TERMINAL-ENV NAME: start, wait for the header, leave with q
start_with() {
	TUI_ENV="$1" tui_start 100 30 ${2:-}
	wait_screen '^ ktop tracer' 20 && wait_screen 'events/s [0-9]' 10
}

stop() {
	keys q
	for ((i = 0; i < 50; i++)); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
	tui_stop
}

if start_with "TERM=vt100"; then
	c=$(colour_codes)
	if [ -z "$c" ] && scr_esc | grep -q "${ESC}\[[0-9;]*7[;m]"; then
		ok "vt100_monochrome_uses_reverse_not_colours"
	else
		fail "vt100_monochrome_uses_reverse_not_colours: colour codes '$c'"
	fi
	grep -q '^EXIT' "$tmp/exit" 2>/dev/null && fail "vt100: ktop exited early"
else
	fail "vt100_starts"; evidence vt100; cat "$tmp/stderr"
fi
stop

if start_with "TERM=xterm-256color NO_COLOR=1"; then
	c=$(colour_codes)
	[ -z "$c" ] && ok "no_color_honoured" || fail "no_color_honoured: colour codes '$c'"
else
	fail "no_color_starts"; evidence nocolor
fi
stop

if start_with "TERM=xterm-256color"; then
	c=$(colour_codes)
	[ -n "$c" ] && ok "256_colours_used ($c)" || fail "256_colours_used: no colour codes"
	keys F2
	if wait_screen 'Setup: colour theme' 3 && scr | grep -q '┌'; then
		ok "utf8_locale_draws_box_lines"
	else
		fail "utf8_locale_draws_box_lines"; evidence utf8
	fi
	keys Escape
else
	fail "256_colours_starts"; evidence 256
fi
stop

if start_with "TERM=xterm LC_ALL=C LANG=C"; then
	keys F2
	if wait_screen 'Setup: colour theme' 3 && wait_screen '\+-{10,}\+' 2 && ! scr | grep -q '┌'; then
		ok "c_locale_draws_ascii_lines"
	else
		fail "c_locale_draws_ascii_lines"; evidence ascii
	fi
	keys Escape
	c=$(colour_codes)
	[ -n "$c" ] && ok "8_colour_terminal_gets_colours" || fail "8_colour_terminal_gets_colours"
else
	fail "c_locale_starts"; evidence clocale
fi
stop

# --theme: light differs from default in the header colours; a bad name is reported
start_with "TERM=xterm-256color" "--theme default"
d=$(scr_esc | head -1 | grep -Eo "${ESC}\[[0-9;]*m" | sort -u | tr -d '\n' | md5sum)
stop
if start_with "TERM=xterm-256color" "--theme light"; then
	l=$(scr_esc | head -1 | grep -Eo "${ESC}\[[0-9;]*m" | sort -u | tr -d '\n' | md5sum)
	[ "$d" != "$l" ] && ok "theme_option_changes_colours" ||
		fail "theme_option_changes_colours: same header codes"
else
	fail "theme_light_starts"; evidence light
fi
stop
if start_with "TERM=xterm-256color" "--theme no-such-theme"; then
	if scr | grep -q "no theme 'no-such-theme'"; then
		ok "unknown_theme_is_reported"
	else
		fail "unknown_theme_is_reported"; evidence badtheme
	fi
else
	fail "unknown_theme_starts_anyway"; evidence badtheme
fi
stop
finish

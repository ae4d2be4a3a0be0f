#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What the view writes, under tmux, with root's ktop on the recorded demo (no
# tracing, the kernel is not touched):
#   1. the save prompt refuses '-' (standard output is this screen) and a
#      terminal (the pane's /dev/pts/N); a character device that exists (a
#      /dev/null made in the test's directory) is written in place after
#      "overwrite? y" (one key), and stays a character device;
#   2. with $XDG_CONFIG_HOME and $XDG_STATE_HOME in a directory that belongs
#      to another user (as under sudo -E), with symbolic links planted where
#      the old code wrote its temporary files (ktop.conf.tmp,
#      funcfilter_history.tmp) and at the files themselves: choosing a theme and
#      entering a filter line change no file anywhere, create nothing there,
#      and the view says why once (the second theme choice says only "not
#      saved").
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

# the save prompt: S, a name, Enter
save_as() {
	keys S
	wait_screen 'save to' 3 || return 1
	keys C-u
	for ((i = 0; i < 40; i++)); do keys BSpace; done
	keys -l "$1"
	keys Enter
}

# 1. the save prompt
mknod "$tmp/null" c 1 3
before_null=$(stat -c '%F %t:%T %i' "$tmp/null")
tui_start 130 40 --demo
if ! wait_screen 'SNAPSHOT' 10; then
	fail "demo_starts"; evidence start; cat "$tmp/stderr"; finish
fi
save_as "$tmp/null"
if wait_screen 'exists: overwrite' 3; then
	keys y
	wait_screen "saved $tmp/null|not saved" 5
	after_null=$(stat -c '%F %t:%T %i' "$tmp/null")
	if scr | grep -q "saved $tmp/null" && [ "$after_null" = "$before_null" ] &&
	   ! ls "$tmp" | grep -q '^null\.'; then
		ok "save_over_a_character_device_writes_into_it ($after_null)"
	else
		fail "save_over_a_character_device_writes_into_it: '$before_null' -> '$after_null'"
		evidence null; ls -la "$tmp"
	fi
else
	fail "save_over_a_character_device: no overwrite question"; evidence null
fi
save_as "-"
if wait_screen "not saved: '-' \(standard output\) is this screen" 3; then
	ok "save_prompt_refuses_dash"
else
	fail "save_prompt_refuses_dash"; evidence dash
fi
# the pane's own terminal (not /dev/tty: a ktop that renames over its target
# would replace the machine's /dev/tty; devpts refuses the temporary file)
pts=$(tmux -L "$SOCK" display-message -p -t t '#{pane_tty}')
save_as "$pts"
wait_screen 'exists: overwrite' 3 && keys y
if wait_screen "not saved: $pts: is a terminal" 3; then
	ok "save_prompt_refuses_a_terminal"
else
	fail "save_prompt_refuses_a_terminal"; evidence tty
fi
keys q
tui_stop

# 2. a user's directories under root's ktop, with links planted
home=$tmp/home
mkdir -p "$home/.config/ktop" "$home/.local/state/ktop"
for v in conf conftmp hist histtmp; do
	echo "precious $v" > "$tmp/victim.$v"
	chmod 600 "$tmp/victim.$v"
done
ln -s "$tmp/victim.conf" "$home/.config/ktop/ktop.conf"
ln -s "$tmp/victim.conftmp" "$home/.config/ktop/ktop.conf.tmp"
ln -s "$tmp/victim.hist" "$home/.local/state/ktop/filter_history"
ln -s "$tmp/victim.histtmp" "$home/.local/state/ktop/filter_history.tmp"
chown -hR 65534:65534 "$home"
listing() {
	find "$tmp" -maxdepth 6 \( -name 'victim.*' -o -path "$home*" \) \
		-printf '%p %y %U %m %s %T@ %l\n' | sort
	md5sum "$tmp"/victim.* "$home/.config/ktop/"* "$home/.local/state/ktop/"* 2>/dev/null
}
listing > "$tmp/files.before"

TUI_ENV="XDG_CONFIG_HOME='$home/.config' XDG_STATE_HOME='$home/.local/state'" tui_start 160 40 --demo
if ! wait_screen 'SNAPSHOT' 10; then
	fail "demo_starts_with_a_users_home"; evidence start; cat "$tmp/stderr"; finish
fi
keys F2
if wait_screen 'Setup: colour theme' 3; then
	keys Down Enter
	if wait_screen "not saved in ktop.conf: $home belongs to uid 65534 and ktop runs as root" 3; then
		ok "theme_not_saved_in_a_users_directory_and_says_why"
	else
		fail "theme_not_saved_in_a_users_directory_and_says_why"; evidence theme
	fi
	keys F2
	wait_screen 'Setup: colour theme' 3
	keys Down Enter
	if wait_screen 'theme [a-z-]+ \(not saved\)' 3 && ! scr | grep -q 'belongs to uid'; then
		ok "the_reason_is_said_once"
	else
		fail "the_reason_is_said_once"; evidence theme2
	fi
else
	fail "f2_opens_theme_chooser"; evidence theme
fi
keys f
if wait_screen 'Filter' 3; then
	keys -l "vfs_read"
	keys Enter
	if wait_screen "history not saved: $home belongs to uid 65534" 3; then
		ok "filter_history_not_saved_and_says_why"
	else
		fail "filter_history_not_saved_and_says_why"; evidence filter
	fi
	keys Escape
else
	fail "f_opens_the_filter_prompt"; evidence filter
fi
keys q
for ((i = 0; i < 50; i++)); do [ -f "$tmp/exit" ] && break; sleep 0.1; done
tui_stop
listing > "$tmp/files.after"
if cmp -s "$tmp/files.before" "$tmp/files.after"; then
	ok "no_file_changed_or_created ($(grep -c . "$tmp/files.before") entries compared)"
else
	fail "no_file_changed_or_created:"
	diff "$tmp/files.before" "$tmp/files.after" | head -20 | sed 's/^/    /'
fi
if [ -s "$tmp/stderr" ]; then
	fail "nothing_on_stderr: $(head -3 "$tmp/stderr")"
else
	ok "nothing_on_stderr"
fi
finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The filter prompt (F4, f) under tmux on this host's live kernel, while
# tracing runs: it says what the kernel permits; a bad regex shows pcre2's own
# message and offset (taken from libpcre2 directly by a helper compiled here);
# with a recorded function list (KTOP_FILTER_FUNCS) typing changes the preview
# count to what grep counts in that list, and Tab completes; Enter on a kernel
# that refuses function filtering (EPERM, as here) says so and applies
# nothing; the line goes to the history under $XDG_STATE_HOME/ktop and Up brings
# it back; an over-long paste is refused; the kernel's tracing state is
# unchanged at the end.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

FUNCS=tests/fixtures/rt-filter/rt612/available_filter_functions.gz
state_save "$tmp/before.state"
mkdir -p "$tmp/state"

# pcre2's message and offset for a pattern, from the library itself
cat >"$tmp/pcre2msg.c" <<'EOF'
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	int err;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)argv[1], strlen(argv[1]), 0, &err, &off, NULL);

	if (re)
		return 1;
	pcre2_get_error_message(err, msg, sizeof(msg));
	printf("%zu %s\n", (size_t)off, (char *)msg);
	return 0;
}
EOF
if ! gcc -o "$tmp/pcre2msg" "$tmp/pcre2msg.c" -lpcre2-8 2>"$tmp/cc.err"; then
	echo "FAIL setup: cannot build the pcre2 helper: $(head -3 "$tmp/cc.err")"
	exit 1
fi

prompt_row() {
	scr | grep -E '^ > ' | head -1
}

# 1. live kernel: f opens the prompt, which says what this kernel permits
TUI_ENV="XDG_STATE_HOME='$tmp/state'" tui_start 160 40
if wait_screen 'events/s [1-9]' 20; then :; else fail "start"; evidence start; finish; fi
keys f
if wait_screen '^  Filter  (this kernel does not permit function filtering|[0-9.]+k? functions available)' 5; then
	ok "f_opens_filter_prompt_while_tracing"
else
	fail "f_opens_filter_prompt_while_tracing"; evidence f
fi
eperm=0
scr | grep -q 'this kernel does not permit function filtering' && eperm=1

# 2. a bad regex: pcre2's message, and its offset in the line (+1 for the '/')
pat='^tcp_(send'
read -r poff pmsg < <("$tmp/pcre2msg" "$pat")
keys -l "/$pat/"
if wait_screen "$pmsg.*\\(at offset $((poff + 1))\\)" 3; then
	ok "bad_regex_shows_pcre2_message_and_offset ($pmsg at $((poff + 1)))"
else
	fail "bad_regex_shows_pcre2_message_and_offset: want '$pmsg' at $((poff + 1))"
	evidence regex
fi
keys Enter
if wait_screen 'nothing applied' 3; then
	ok "bad_regex_applies_nothing"
else
	fail "bad_regex_applies_nothing"; evidence regex-enter
fi

# 3. event filters work on every kernel: ktop's own instance, the kernel's
#    error_log line for a bad expression, read back, a marker in the trace, undo, redo
pid=$(ktop_pid)
evf=$TRACEFS/instances/ktop-$pid/events/sched/sched_switch/filter
keys C-u
keys -l 'sched_switch: prev_pid =='
keys Enter
if wait_screen '^ error_log: .*event filter parse error.*prev_pid ==' 3 && grep -qx none "$evf"; then
	ok "bad_event_filter_shows_kernel_error_log_and_changes_nothing"
else
	fail "bad_event_filter_shows_kernel_error_log_and_changes_nothing: $(cat "$evf" 2>&1)"
	evidence errlog
fi
keys C-u
keys -l 'sched_switch: prev_pid == 1'
keys Enter
if wait_gone '^  Filter  ' 3 && grep -qx 'prev_pid == 1' "$evf"; then
	ok "event_filter_applied_to_ktops_instance"
else
	fail "event_filter_applied_to_ktops_instance: $(cat "$evf" 2>&1)"; evidence evf
fi
# issue 18 #3.6: the header names the filter in effect, not "none"
if wait_screen '^ events/s .* filter sched_switch: prev_pid == 1' 3; then
	ok "header_names_the_event_filter"
else
	fail "header_names_the_event_filter"; evidence header
fi
keys 3 /
keys -l 'ktop: filter'
keys Enter
if wait_screen 'print: .*buf=ktop: filter: sched_switch: prev_pid == 1' 5; then
	ok "filter_change_marked_in_event_list"
else
	fail "filter_change_marked_in_event_list"; evidence marker
fi
keys u
if wait_footer 'undid' 3 && grep -qx none "$evf"; then
	ok "undo_restores_event_filter"
else
	fail "undo_restores_event_filter: $(cat "$evf" 2>&1)"; evidence undo
fi
keys U
if wait_footer 'redid|redo' 3 && grep -qx 'prev_pid == 1' "$evf"; then
	ok "redo_reapplies_event_filter"
else
	fail "redo_reapplies_event_filter: $(cat "$evf" 2>&1)"; evidence redo
fi
keys u
wait_footer 'undid' 3
if wait_screen '^ events/s .* filter none' 3; then
	ok "header_says_none_after_undo"
else
	fail "header_says_none_after_undo"; evidence header-undo
fi
# a pid: line (ktop's own pid: a filter that changes nothing else here)
keys f C-u
keys -l "pid:$pid"
keys Enter
if wait_screen "^ events/s .* filter pid:$pid" 3; then
	ok "header_names_the_pid_filter"
else
	fail "header_names_the_pid_filter"; evidence header-pid
fi
keys u
wait_footer 'undid' 3
keys f

# 4. a function line on this kernel
keys C-u
keys -l 'vfs_read'
if [ $eperm = 1 ]; then
	if wait_screen 'function list unavailable|syntax checked only: no function list' 3 &&
	   scr | grep -q 'no function list to preview against'; then
		ok "eperm_preview_says_there_is_no_function_list"
	else
		fail "eperm_preview_says_there_is_no_function_list"; evidence eperm-preview
	fi
	keys Enter
	if wait_screen '^ this kernel does not permit function filtering.*nothing applied' 3; then
		ok "eperm_enter_says_kernel_does_not_permit_function_filtering"
	else
		fail "eperm_enter_says_kernel_does_not_permit_function_filtering"; evidence eperm
	fi
else
	if wait_screen 'set_ftrace_filter: [0-9]+ of [0-9]+ functions' 3; then
		ok "preview_counts_kernel_functions"
	else
		fail "preview_counts_kernel_functions"; evidence preview
	fi
	keys Escape	# not applied: this test changes no kernel filter
fi

# 5. history: the line entered is saved and Up brings it back
keys C-u Up
if wait_screen '^ > vfs_read ?$' 3 && grep -qx 'vfs_read' "$tmp/state/ktop/filter_history"; then
	ok "history_saved_under_xdg_state_home_and_up_recalls_it"
else
	fail "history_saved_under_xdg_state_home_and_up_recalls_it: $(cat "$tmp/state/ktop/filter_history" 2>&1)"
	evidence history
fi

# 6. an over-long paste is refused
keys C-u
keys -l "$(head -c 5000 /dev/zero | tr '\0' 'a')"
if wait_screen 'longer than 4096 bytes' 5; then
	ok "overlong_paste_refused"
else
	fail "overlong_paste_refused"; evidence paste
fi
keys Escape
if wait_gone '^  Filter  ' 3; then
	ok "esc_closes_filter_prompt"
else
	fail "esc_closes_filter_prompt"; evidence esc
fi
keys u
if wait_footer 'no filter change to undo|does not permit|nothing to filter' 3; then
	ok "undo_with_nothing_to_undo_says_so"
else
	fail "undo_with_nothing_to_undo_says_so"; evidence undo
fi
keys q
for ((i = 0; i < 100; i++)); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
tui_stop

# 7. a recorded function list: the preview count follows typing, as grep counts
TUI_ENV="XDG_STATE_HOME='$tmp/state' KTOP_FILTER_FUNCS='$FUNCS'" tui_start 160 40
total=$(zcat "$FUNCS" | wc -l)
n1=$(zcat "$FUNCS" | grep -c '^vfs_r')		# vfs_r*: names starting so
n2=$(zcat "$FUNCS" | grep -c '^vfs_read')	# vfs_read*
if wait_screen 'events/s [1-9]' 20; then :; else fail "start2"; evidence start2; finish; fi
keys F4
keys -l 'vfs_r*'
if wait_screen "set_ftrace_filter: $n1 of $total functions" 3; then
	ok "offline_preview_count_matches_grep ($n1 of $total for vfs_r*)"
else
	fail "offline_preview_count_matches_grep: want $n1 of $total"; evidence offline
fi
keys Left
keys -l 'ead'
if wait_screen "set_ftrace_filter: $n2 of $total functions" 3 && [ "$n1" != "$n2" ]; then
	ok "typing_changes_preview_count ($n1 -> $n2 for vfs_read*)"
else
	fail "typing_changes_preview_count: want $n2"; evidence typing
fi
if scr | grep -qF "[$FUNCS, not this kernel] vfs_read" &&
   scr | grep -qF "[recorded list] set_ftrace_filter"; then
	ok "offline_preview_is_labelled"
else
	fail "offline_preview_is_labelled"; evidence label
fi
nc=$(zcat "$FUNCS" | grep -c '^tcp_sendmsg')
keys C-u
keys -l 'tcp_sendm'
keys Tab
if wait_screen '^ > tcp_sendmsg ?$' 3 && wait_screen "^ $nc candidates: tcp_sendmsg " 3; then
	ok "tab_completes_function_names ($nc candidates)"
else
	fail "tab_completes_function_names: want $nc candidates"; evidence tab
fi
keys Escape q
for ((i = 0; i < 100; i++)); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
grep -q '^EXIT=0$' "$tmp/exit" || fail "quit: $(cat "$tmp/exit" "$tmp/stderr" 2>&1)"
state_same "tracing_state_unchanged" "$tmp/before.state"
finish

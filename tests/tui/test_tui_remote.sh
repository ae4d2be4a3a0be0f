#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop --remote through a real sshd on this machine (tests/lib_sshd.sh: its
# own port, host key, client key and test user, all removed at the end):
#   1. root@HOST: the view starts and grows, its header says REMOTE
#      root@ktop-test and pane 1 names the far side; every key typed in it takes
#      effect while the stream runs (panes switch; view clauses of 40
#      characters typed into the prompt arrive whole); the BPF pane shows the
#      far side's statistics (they come in the stream); q quits with status 0,
#      the far side's ktop ends and its BPF programs are gone. `ssh HOST ktop --stream | ktop -i -`
#      lost keys here (ssh read the terminal too): the view now names that ssh.
#   2. the manual form the README shows, ssh -n HOST ktop --stream | ktop -i -:
#      the same keys arrive.
#   3. a user whose sudo asks for a password: the prompt comes on the local
#      terminal, nothing typed is echoed, a wrong password gets sudo's "Sorry,
#      try again." and a new prompt, the right one starts ktop as root there.
#      Without a terminal to ask on: a message, status 2, nothing left running.
#   4. the far ktop stopped (SIGTERM): the view says ENDED, when and after how
#      many events; what came stays (the event list pages through it); q: 0.
#   5. the link dropped (ssh killed): DISCONNECTED, the same; the far ktop ends.
#      The far host falls silent (its sshd stopped): ssh's keepalives give up
#      within 15 s and the view says so; the far ktop ends once it runs again.
#   6. `ktop -i -` on a stream cut short: DISCONNECTED; q: status 0.
#   7. the host as found: tracing state, no sshd, no test user or sudoers file.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
. tests/lib_sshd.sh
trap 'tui_cleanup; sshd_stop' EXIT

need
sshd_need || exit 1
KABS=$(readlink -f "$KTOP")
sshd_start || { echo "FAIL setup: $SSHD_WHY"; exit 1; }
SSHCMD="ssh -F $SSHD_DIR/ssh_config"
REMOTE="--ssh '$SSHCMD' --remote-ktop $KABS"
state_save "$tmp/before.state"
start_load

# far_ktop: the pid of the far side's ktop --stream (none: empty)
far_ktop() {
	pgrep -f -- "^$KABS --stream" | head -1
}

held() {
	scr | sed -n 's/.* held \([0-9.kM]*\) .*/\1/p' | head -1
}

# keys_arrive LABEL: pane switches and three 40-character clauses typed fast
keys_arrive() {
	local label=$1 s bad=
	keys 3
	wait_screen '^Events:' 5 || bad="pane 3 did not open"
	for s in abcdefghijklmnopqrstuvwxyz0123456789ABCD EFGHIJKLMNOPQRSTUVWXYZ9876543210zyxwvuts \
		 mnopqrstuvwxyz-abcdefghijkl_0123456789; do
		[ -n "$bad" ] && break
		keys '\'
		wait_screen 'Enter narrow' 5 || { bad="the view prompt did not open"; break; }
		keys -l "comm:$s"
		wait_screen "comm:$s" 5 || { bad="typed 'comm:$s', the prompt shows '$(scr | grep -m1 'comm:')'"; break; }
		keys Escape
		wait_gone 'Enter narrow' 5 || bad="Escape did not close the prompt"
	done
	[ -z "$bad" ] && { keys 1; wait_screen '^CPU  events/s' 5 || bad="pane 1 did not open"; }
	if [ -z "$bad" ]; then
		ok "${label}_every_key_takes_effect"
	else
		fail "${label}_every_key_takes_effect: $bad"; evidence "$label"
	fi
}

# quit_ok LABEL: q ends the view with status 0
quit_ok() {
	keys q
	for ((i = 0; i < 100; i++)); do
		[ -s "$tmp/exit" ] && break
		sleep 0.05
	done
	# a sanitizer build (KTOP=build-asan/ktop) reports on stderr
	if grep -Eq 'Sanitizer|runtime error' "$tmp/stderr" 2>/dev/null; then
		fail "${1}_sanitizer: $(grep -Em1 'Sanitizer|runtime error' "$tmp/stderr")"
	fi
	if grep -q '^EXIT=0$' "$tmp/exit" 2>/dev/null; then
		ok "${1}_q_quits_with_0"
	else
		fail "${1}_q_quits_with_0: $(cat "$tmp/exit" 2>/dev/null)"; evidence "$1"
		cat "$tmp/stderr"
	fi
}

# far_gone LABEL: the far side's ktop has ended (it stops tracing with the link)
far_gone() {
	local p
	p=$(far_ktop)
	if [ -z "$p" ] || wait_exit "$p" 10; then
		ok "${1}_far_ktop_ends"
	else
		fail "${1}_far_ktop_ends: pid $p still runs"
	fi
}

# ---- 1. root@: the view, its keys, q ---------------------------------------
tui_start 120 40 "--remote root@ktop-test $REMOTE -e sched -e syscalls:sys_enter_getpid"
if wait_screen '^ ktop tracer.*REMOTE root@ktop-test' 20 && wait_screen 'held [1-9]' 10; then
	ok "root_view_starts_live_and_says_remote_root@ktop-test"
else
	fail "root_view_starts_live"; evidence root; cat "$tmp/stderr"
fi
h1=$(held); sleep 2; h2=$(held)
if [ -n "$h1" ] && [ "$h1" != "$h2" ]; then
	ok "root_view_grows (held $h1 -> $h2)"
else
	fail "root_view_grows (held '$h1' -> '$h2')"
fi
fk=$(far_ktop)
args=$(tr '\0' ' ' </proc/"$fk"/cmdline 2>/dev/null)
if [ "$args" = "$KABS --stream --event=sched --event=syscalls:sys_enter_getpid " ]; then
	ok "root_tracing_options_go_to_the_far_side"
else
	fail "root_tracing_options_go_to_the_far_side: '$args'"
fi
keys_arrive root
# pane 1 speaks of the far side (issue 31 #8), not of standard input
if scr | grep -q 'live stream from root@ktop-test over ssh' &&
   ! scr | grep -q 'standard input'; then
	ok "root_cpu_pane_names_the_far_side"
else
	fail "root_cpu_pane_names_the_far_side"; evidence root-pane1
fi
# the far side's BPF statistics come with the stream: the pane shows them, as
# the far poller's (no "poller stopped" while its polls arrive)
keys 6
if wait_screen '^BPF (tp_btf|raw_tp) of root@ktop-test, [0-9]+ CPUs, every .* polls received' 10 &&
   wait_screen '\|\*+ *\|' 10 && ! scr | grep -q 'poller stopped'; then
	ok "root_bpf_pane_shows_the_far_side (its run-queue histogram)"
else
	fail "root_bpf_pane_shows_the_far_side"; evidence bpf
fi
bpf_ids=$(grep -h '^prog_id:' /proc/"$fk"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
quit_ok root
far_gone root
left=0
for id in $bpf_ids; do
	bpftool prog show id "$id" >/dev/null 2>&1 && left=$((left + 1))
done
if [ -n "$bpf_ids" ] && [ "$left" -eq 0 ]; then
	ok "root_far_bpf_programs_gone ($(echo $bpf_ids | wc -w) while streaming)"
else
	fail "root_far_bpf_programs_gone: ids '$bpf_ids', $left left"
fi
tui_stop

# ---- 2. the manual form: ssh -n ... | ktop -i - ------------------------------
tui_start_cmd 120 40 "$SSHCMD -n root@ktop-test $KABS --stream -e sched 2>'$tmp/ssh.err' | $KTOP -i - 2>'$tmp/stderr'"
if wait_screen '^ ktop tracer.*LIVE' 20 && ! scr | grep -q 'reads this'; then
	ok "ssh_n_view_starts_and_no_ssh_shares_the_terminal"
else
	fail "ssh_n_view_starts_and_no_ssh_shares_the_terminal"; evidence ssh-n
fi
keys_arrive ssh_n
quit_ok ssh_n
far_gone ssh_n
tui_stop

# the form that lost keys: the view names the ssh that shares its terminal
tui_start_cmd 120 40 "$SSHCMD root@ktop-test $KABS --stream -e sched 2>'$tmp/ssh.err' | $KTOP -i - 2>'$tmp/stderr'"
if wait_screen 'ssh \(pid [0-9]+\) reads' 20; then
	ok "old_form_view_names_the_ssh_reading_its_terminal"
else
	fail "old_form_view_names_the_ssh_reading_its_terminal"; evidence old-form
fi
tui_stop
p=$(far_ktop); [ -n "$p" ] && wait_exit "$p" 10

# ---- 3. sudo with a password -----------------------------------------------
user=ktoptest$$
pw="pw-$RANDOM-secret"
sshd_user "$user" "$pw" || fail "setup: cannot add the test user $user"
tui_start 120 40 "--remote $user@ktop-test $REMOTE -e sched"
if wait_screen "^\[sudo on [^]]*\] password for $user: *$" 20; then
	ok "sudo_password_asked_on_the_local_terminal"
else
	fail "sudo_password_asked_on_the_local_terminal"; evidence sudo; cat "$tmp/stderr"
fi
keys -l "wrong-$pw"; keys Enter
for ((i = 0; i < 100; i++)); do
	[ "$(scr | grep -c "password for $user:")" -ge 2 ] && break
	sleep 0.05
done
screen=$(scr)
if [ "$(echo "$screen" | grep -c "password for $user:")" -ge 2 ] &&
	grep -q 'Sorry, try again' "$tmp/stderr" && ! echo "$screen" | grep -q -- "$pw"; then
	ok "sudo_wrong_password_refused_and_asked_again_nothing_echoed"
else
	fail "sudo_wrong_password_refused_and_asked_again_nothing_echoed"; evidence sudo-wrong
	cat "$tmp/stderr"
fi
keys -l "$pw"; keys Enter
if wait_screen "^ ktop tracer.*REMOTE $user@ktop-test" 20 && wait_screen 'held [1-9]' 10; then
	ok "sudo_right_password_starts_the_stream"
else
	fail "sudo_right_password_starts_the_stream"; evidence sudo-ok; cat "$tmp/stderr"
fi
fk=$(far_ktop)
fu=$(ps -o user= -p "$fk" 2>/dev/null)
fpu=$(ps -o user= -p "$(ps -o ppid= -p "$fk" 2>/dev/null | tr -d ' ')" 2>/dev/null)
fpc=$(ps -o comm= -p "$(ps -o ppid= -p "$fk" 2>/dev/null | tr -d ' ')" 2>/dev/null)
if [ "$fu" = root ] && [ "$fpc" = sudo ]; then
	ok "sudo_far_ktop_runs_as_root_under_sudo"
else
	fail "sudo_far_ktop_runs_as_root_under_sudo: pid '$fk' user '$fu', parent '$fpc' ($fpu)"
fi
keys_arrive sudo
quit_ok sudo
far_gone sudo
tui_stop

# no terminal to ask the password on
setsid -w "$KTOP" --remote "$user@ktop-test" --ssh "$SSHCMD" --remote-ktop "$KABS" --batch \
	--duration 2 </dev/null >"$tmp/nottyout" 2>"$tmp/notty.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'no terminal here to type it on' "$tmp/notty.err" && [ -z "$(far_ktop)" ]; then
	ok "sudo_password_without_a_terminal_exit_2 ($(head -c 90 "$tmp/notty.err")...)"
else
	fail "sudo_password_without_a_terminal_exit_2: status $rc, '$(cat "$tmp/notty.err")'"
fi

# ---- 4. the far ktop stops: ENDED ------------------------------------------
tui_start 120 40 "--remote root@ktop-test $REMOTE -e sched"
wait_screen 'held [1-9]' 20
sleep 1
kill -TERM "$(far_ktop)" 2>/dev/null
if wait_screen '^ ktop tracer.* ENDED ' 10 &&
	wait_screen 'stream from root@ktop-test ended at [0-9]{2}:[0-9]{2}:[0-9]{2} after [1-9][0-9]* events \(the far side ended it' 5; then
	ok "far_stop_view_says_ENDED_when_and_how_many"
else
	fail "far_stop_view_says_ENDED_when_and_how_many"; evidence ended
fi
n=$(scr | sed -n 's/.* after \([0-9]*\) events.*/\1/p' | head -1)
keys 3
if wait_screen 'sched_switch' 5; then
	ok "far_stop_what_came_stays_in_the_event_list"
else
	fail "far_stop_what_came_stays_in_the_event_list"; evidence ended-events
fi
quit_ok far_stop
if grep -q "^ktop: stream from root@ktop-test ended at .* after $n events" "$tmp/stderr"; then
	ok "far_stop_said_on_stderr_after_the_view ($(cat "$tmp/stderr"))"
else
	fail "far_stop_said_on_stderr_after_the_view: '$(cat "$tmp/stderr")' (screen said $n events)"
fi
tui_stop

# ---- 5. the link drops: DISCONNECTED ---------------------------------------
tui_start 120 40 "--remote root@ktop-test $REMOTE -e sched"
wait_screen 'held [1-9]' 20
sleep 1
fk=$(far_ktop)
sp=$(pgrep -f -- "^ssh -F $SSHD_DIR/ssh_config .*-T -- root@ktop-test" | head -1)
[ -n "$sp" ] && kill -9 "$sp"
if [ -n "$sp" ] && wait_screen '^ ktop tracer.* DISCONNECTED ' 10 &&
	wait_screen 'disconnected from root@ktop-test at [0-9]{2}:[0-9]{2}:[0-9]{2} after [1-9][0-9]* events \(ssh killed by signal 9' 5; then
	ok "link_drop_view_says_DISCONNECTED_when_and_how_many"
else
	fail "link_drop_view_says_DISCONNECTED_when_and_how_many (ssh pid '$sp')"; evidence dropped
fi
h1=$(held); sleep 1.5; h2=$(held)
keys 3
if [ -n "$h1" ] && [ "$h1" = "$h2" ] && wait_screen 'sched_switch' 5; then
	ok "link_drop_what_came_stays (held $h1)"
else
	fail "link_drop_what_came_stays (held '$h1' -> '$h2')"; evidence dropped-events
fi
if [ -z "$fk" ] || wait_exit "$fk" 10; then
	ok "link_drop_far_ktop_ends_by_itself"
else
	fail "link_drop_far_ktop_ends_by_itself: pid $fk still runs"
fi
quit_ok link_drop
grep -q '^ktop: disconnected from root@ktop-test at' "$tmp/stderr" ||
	fail "link_drop_said_on_stderr: '$(cat "$tmp/stderr")'"
tui_stop

# ---- 5b. the far host falls silent (its sshd stopped): ssh's keepalives give up
tui_start 120 40 "--remote root@ktop-test $REMOTE -e sched"
wait_screen 'held [1-9]' 20
fk=$(far_ktop)
frozen=
for p in $(sshd_descendants "$SSHD_PID"); do
	[ "$(ps -o comm= -p "$p")" = sshd ] && kill -STOP "$p" && frozen="$frozen $p"
done
if [ -n "$frozen" ] && wait_screen 'disconnected from root@ktop-test at [0-9:]{8} after [1-9][0-9]* events \(ssh exited with status 255: Timeout' 30 &&
	wait_screen 'not responding\.\); q quits' 2; then
	ok "silent_host_view_says_DISCONNECTED_within_30s"
else
	fail "silent_host_view_says_DISCONNECTED_within_30s (stopped:$frozen)"; evidence silent
fi
for p in $frozen; do kill -CONT "$p"; done
if [ -z "$fk" ] || wait_exit "$fk" 15; then
	ok "silent_host_far_ktop_ends_once_it_runs_again"
else
	fail "silent_host_far_ktop_ends_once_it_runs_again: pid $fk still runs"
fi
quit_ok silent_host
tui_stop

# ---- 6. -i - on a stream cut short ------------------------------------------
tui_start_cmd 120 40 "$KTOP --stream -e sched 2>/dev/null | head -c 300000 | $KTOP -i - 2>'$tmp/stderr'"
if wait_screen '^ ktop tracer.* DISCONNECTED ' 20 &&
	wait_screen 'disconnected from the stream on standard input at [0-9:]{8} after [1-9]' 5; then
	ok "pipe_cut_view_says_DISCONNECTED"
else
	fail "pipe_cut_view_says_DISCONNECTED"; evidence pipe-cut
fi
quit_ok pipe_cut
tui_stop

# ---- 7. the host as found ----------------------------------------------------
kill "$LOADPID" 2>/dev/null
LOADPID=
state_same "tracing_state_unchanged" "$tmp/before.state"
sshd_stop
if sshd_clean && ! getent passwd "$user" >/dev/null && [ ! -e /etc/sudoers.d/ktop-test-"$user" ]; then
	ok "host_left_as_found (sshd stopped, user $user and its sudoers file gone)"
else
	fail "host_left_as_found: $(pgrep -af 'sshd -D -e -f /tmp/ktop-sshd'; ls /etc/sudoers.d)"
fi
finish

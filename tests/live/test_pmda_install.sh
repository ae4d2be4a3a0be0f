#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install-pmda, then PCP's own way in, on this machine's pmcd (no
# systemd here: Install and Remove restart pmcd through /etc/init.d/pmcd):
# ./Install adds ktop to pmcd.conf and pminfo -f ktop answers; ./Remove takes
# it out, the agent stops and leaves no instance. The machine's pmcd is then
# stopped again and everything the test made is removed. When a pmcd already
# runs here it is someone's: the test leaves it alone and says so (FAIL).
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib_ktop.sh
need tracestate
. /etc/pcp.conf 2>/dev/null || { fail "setup: no /etc/pcp.conf (make deps installs pcp)"; finish; }
dir=$PCP_PMDAS_DIR/ktop
export PATH=$PATH:$PCP_BINADM_DIR

# a pmcd that is alive (a zombie an init that does not reap leaves counts not)
pmcd_alive() {
	local p
	for p in $(pgrep -x pmcd); do
		case $(ps -o stat= -p "$p" 2>/dev/null) in Z*|'') ;; *) return 0 ;; esac
	done
	return 1
}
if pmcd_alive; then
	fail "setup: a pmcd runs on this machine already; this test installs into the machine's pmcd and leaves a running one alone"
	finish
fi
if [ -e "$dir" ] || grep -q '^ktop' "$PCP_PMCDCONF_PATH"; then
	fail "setup: $dir or a ktop line in $PCP_PMCDCONF_PATH exists already"
	finish
fi
cp "$PCP_PMCDCONF_PATH" "$tmp/pmcd.conf.before"
state_save "$tmp/before"
undo() {
	[ -x "$dir/Remove" ] && (cd "$dir" && ./Remove </dev/null >/dev/null 2>&1)
	"$PCP_RC_DIR/pmcd" stop >/dev/null 2>&1
	rm -rf "$dir"
	rm -f "$PCP_VAR_DIR"/config/pmda/363.*
	cp "$tmp/pmcd.conf.before" "$PCP_PMCDCONF_PATH"
	rm -rf "$tmp"
}
trap undo EXIT

make -s install-pmda BINDIR="$PWD" > "$tmp/make.out" 2>&1
check "make install-pmda puts PCP's files in $dir" \
	test -x "$dir/Install" -a -x "$dir/Remove" -a -x "$dir/pmdaktop" -a -f "$dir/pmns" \
	-a -f "$dir/help" -a -f "$dir/domain.h" -a -f "$dir/root"
(cd "$dir" && timeout 120 ./Install </dev/null) > "$tmp/install.out" 2>&1
check "./Install ends in 'Check ktop metrics have appeared ... N metrics' ($(tail -1 "$tmp/install.out"))" \
	grep -q 'Check ktop metrics have appeared ... [0-9]* metrics' "$tmp/install.out"
check "pmcd.conf has ktop's line: a notready pipe agent" \
	grep -qE '^ktop[[:space:]]+363[[:space:]]+pipe[[:space:]]+binary notready' "$PCP_PMCDCONF_PATH"
pminfo -f ktop.agent.status ktop.cpu.events > "$tmp/pminfo" 2>&1
check "pminfo -f ktop answers from the machine's pmcd" grep -q 'value "tracing"' "$tmp/pminfo"
agent=$(pgrep -f -- 'ktop --pmda' | head -1)
check "pmcd runs ktop --pmda (pid ${agent:-none})" [ -n "$agent" ]
(cd "$dir" && timeout 120 ./Remove </dev/null) > "$tmp/remove.out" 2>&1
check "./Remove: ktop's metrics have gone" grep -q 'Check ktop metrics have gone away ... OK' \
	"$tmp/remove.out"
for ((i = 0; i < 50; i++)); do kill -0 "$agent" 2>/dev/null || break; sleep 0.1; done
gone() { ! kill -0 "$1" 2>/dev/null; }
check "the agent stopped" gone "$agent"
no_instance "Remove leaves no instance ktop-$agent" "$agent"
no_ktop_line() { ! grep -q '^ktop' "$PCP_PMCDCONF_PATH"; }
check "pmcd.conf has no ktop line" no_ktop_line
"$PCP_RC_DIR/pmcd" stop >/dev/null 2>&1
state_same "the tracing state is as before" "$tmp/before"
finish

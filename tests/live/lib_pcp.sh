# SPDX-License-Identifier: GPL-2.0-or-later
# Private Performance Co-Pilot daemons for the tests (sourced after
# lib_ktop.sh), as PCP's own QA runs them: a pmcd of the test's own, in the
# foreground, on its own port and socket, with its own pmcd.conf, PMNS and
# PCP_* directories (nothing of the system's pmcd or /var/lib/pcp is used or
# changed), and `ktop --pmda` as its agent. CI has no systemd: nothing here
# needs it.
#
#   pcp_need                     PCP's tools are there, else FAIL and exit
#   pcp_start NAME PORT [ARGS]   a pmcd NAME on PORT whose agent is ktop --pmda ARGS;
#                                waits until ktop.agent.status says tracing
#   pcp_stop NAME                SIGTERM to that pmcd, wait for it and its agent
#   pcp_agent_pid NAME           the agent's pid (pmcd's child)
#   pcp_port                     a free TCP port on the loopback

PCP_BINADM=$(. /etc/pcp.conf 2>/dev/null; echo "${PCP_BINADM_DIR:-/usr/lib/pcp/bin}")
PCP_PMDAS=$(. /etc/pcp.conf 2>/dev/null; echo "${PCP_PMDAS_DIR:-/var/lib/pcp/pmdas}")
KTOP_ABS=$(readlink -f "$KTOP")
PMDA_DOMAIN=363
declare -A pcp_pid

pcp_need() {
	local t
	for t in pminfo pmlogger pmdumplog pmrep dbpmda; do
		if ! command -v $t >/dev/null && [ ! -x "$PCP_BINADM/$t" ]; then
			echo "FAIL setup: PCP's $t is missing (make deps installs pcp)"
			echo "0 passed, 1 failed"
			exit 1
		fi
	done
	[ -x "$PCP_BINADM/pmcd" ] || { echo "FAIL setup: $PCP_BINADM/pmcd missing"; exit 1; }
	export PATH=$PATH:$PCP_BINADM
}

# pcp_port: a TCP port nothing listens on (from a range of the test's pid)
pcp_port() {
	local p
	for ((p = 42000 + ($$ * 7 + RANDOM) % 9000; ; p++)); do
		ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo $p; return; }
	done
}

# pcp_files DIR: the agent's pmns/help (ktop --pmda-files), and a root PMNS
# holding pmcd's own metrics and ktop's
pcp_files() {
	mkdir -p "$1/pmda" "$1/var/config/pmda" "$1/log/pmcd" "$1/run" "$1/tmp"
	"$KTOP" --pmda-files "$1/pmda" || return 1
	sed '/^root {/,/^}/d' /var/lib/pcp/pmns/root_pmcd > "$1/pmns.pmcd"
	cat > "$1/root" <<EOR
#define KTOP $PMDA_DOMAIN
#define PMCD 2
root { pmcd ktop }
#include "$1/pmns.pmcd"
#include "$1/pmda/pmns"
EOR
}

pcp_start() {
	local name=$1 port=$2 d=$tmp/pcp-$1 i
	shift 2
	pcp_files "$d" || return 1
	{
		printf 'pmcd\t2\tdso\tpmcd_init\t%s/pmcd/pmda_pmcd.so\n' "$PCP_PMDAS"
		printf 'ktop\t%d\tpipe\tbinary notready\t%s --pmda --notready -d %d %s\n' \
			"$PMDA_DOMAIN" "$KTOP_ABS" "$PMDA_DOMAIN" "$*"
		printf '[access]\nallow ".*" : all;\n'
	} > "$d/pmcd.conf"
	(cd "$d" && exec env PCP_VAR_DIR="$d/var" PCP_RUN_DIR="$d/run" PCP_LOG_DIR="$d/log" \
		PCP_TMP_DIR="$d/tmp" "$PCP_BINADM/pmcd" -f -A -p "$port" -s "$d/pmcd.socket" \
		-c "$d/pmcd.conf" -n "$d/root" -l "$d/pmcd.log" -x "$d/pmcd.fatal" \
		> "$d/pmcd.out" 2>&1) &
	pcp_pid[$name]=$!
	pids+=(${pcp_pid[$name]})
	for ((i = 0; i < 150; i++)); do
		pminfo -h "localhost:$port" -f ktop.agent.status 2>/dev/null | grep -q '"tracing"' &&
			return 0
		sleep 0.1
	done
	echo "# pmcd $name: ktop.agent.status never said tracing; its logs:"
	tail -5 "$d/pmcd.log" "$d/ktop.log" 2>/dev/null | sed 's/^/#   /'
	return 1
}

pcp_agent_pid() {
	pgrep -P "${pcp_pid[$1]}" -f -- '--pmda' | head -1
}

# pcp_stop NAME: SIGTERM to pmcd; it closes its agents' pipes (and signals
# them); wait up to 10 s for pmcd and up to 10 s more for the agent's exit
pcp_stop() {
	local p=${pcp_pid[$1]} i agent
	[ -n "$p" ] || return 0
	agent=$(pcp_agent_pid "$1")
	kill -TERM "$p" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	wait "$p" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		[ -n "$agent" ] && kill -0 "$agent" 2>/dev/null || break
		sleep 0.1
	done
	pcp_pid[$1]=
}

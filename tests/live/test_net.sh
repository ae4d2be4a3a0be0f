#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop --net on this host's kernel (root, issue 25), with workloads in a
# network namespace of the test's own (loopback only, removed afterwards):
#  - a TCP transfer of a known size, over IPv4 and over IPv6, is two rows
#    (client, server) with those bytes each way, the pids and comms of the
#    two tasks, and the states up to CLOSE;
#  - a connect to a closed port shows SYN_SENT -> CLOSE, the reset and its
#    reason (NO_SOCKET), both families;
#  - UDP to a closed port shows drops with reason NO_SOCKET;
#  - data dropped by an nftables rule in the namespace shows NETFILTER_DROP
#    and the retransmits it caused, on the row of that transfer;
#  - --net=probe adds srtt and cwnd;
#  - the recording it saves (-o .ktop), read back under -F conn: (the IPv6
#    transfer), has that connection's two rows only, with the same bytes;
#  - the tracing state is the same afterwards and ktop's instance is gone.
# netload (tests/tools/netload.c) prints what it did: the expectations come
# from there.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate netload
for t in ip nft python3; do
	command -v $t >/dev/null || { echo "FAIL setup: $t is not installed (make deps)"; exit 1; }
done

ns=ktop-test-net-$$
cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns" || { echo "FAIL setup: ip netns add $ns"; exit 1; }
ip -n "$ns" link set lo up
nl=$PWD/$TOOLS/netload

state_save "$tmp/state"
"$KTOP" --json --net=probe -b 4096 --duration 120 -o "$tmp/net.ktop" >"$tmp/j.out" 2>"$tmp/j.err" &
kpid=$!
if wait_for "$tmp/j.out" '"summary"' 60; then
	ip netns exec "$ns" sh -c "
		set -e
		$nl tcp 150000 7000
		$nl tcp -6 60000 9000
		$nl refused 9
		$nl refused -6 9
		$nl udp 9 4 100
		$nl udp -6 9 3 100
		nft add table inet ktoptest
		nft add chain inet ktoptest in '{ type filter hook input priority 0; }'
		nft add rule inet ktoptest in tcp dport 7001 meta length '>' 1000 numgen inc mod 4 == 0 drop
		echo nft-drop 7001
		$nl tcp -p 7001 400000 400000
		nft delete table inet ktoptest
	" >"$tmp/work.out" 2>"$tmp/work.err"
	echo "  (netload: $(tr '\n' ';' <"$tmp/work.out"))"
	after_lines "$tmp/j.out" 2 30
fi
kill -INT $kpid
wait $kpid
rc=$?
check "net: exit status 0 after SIGINT (got $rc; stderr: $(head -c 300 "$tmp/j.err"))" [ $rc -eq 0 ]
check "net: the workload ran ($(head -c 200 "$tmp/work.err"))" \
	[ "$(grep -c '^client ' "$tmp/work.out")" -eq 3 ]
check "net: the trace line says --net=probe" grep -q 'network events (--net=probe)' "$tmp/j.out"

out=$(python3 - "$tmp/j.out" "$tmp/work.out" <<'PY' 2>&1
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
work = [l.split() for l in open(sys.argv[2])]
last = objs[-1]
errs = []
conns = last.get("connections", [])
drops = last.get("drops", [])
def row(sport, dport):
    r = [c for c in conns if c["sport"] == sport and c["dport"] == dport]
    return r[0] if len(r) == 1 else None
def states(c):
    return [t["to"] for t in c["transitions"]]
fams = set()
nft_port = None
for w in work:
    if w[0] == "nft-drop":
        nft_port = int(w[1])
    if w[0] != "client":
        continue
    cpid, cport, spid, sport, sent, recvd = int(w[1]), int(w[2]), int(w[4]), int(w[5]), int(w[7]), int(w[9])
    c, s = row(cport, sport), row(sport, cport)
    if not c or not s:
        errs.append("no rows for %d <-> %d" % (cport, sport)); continue
    fams.add(c["family"])
    for r, want in ((c, (cpid, "nl-client", sent, recvd)), (s, (spid, "nl-server", recvd, sent))):
        got = (r["pid"], r["comm"], r["bytes_sent"], r["bytes_received"])
        if got != want:
            errs.append("%d->%d: pid, comm, sent, received %s, want %s" % (r["sport"], r["dport"], got, want))
        if r["state"] != "CLOSE" or r["bytes_source"] != "sock" or "srtt_us" not in r:
            errs.append("%d->%d: state %s, bytes from %s, srtt %s" % (r["sport"], r["dport"], r["state"], r["bytes_source"], r.get("srtt_us")))
    if states(c) != ["SYN_SENT", "ESTABLISHED", "FIN_WAIT1", "FIN_WAIT2", "CLOSE"]:
        errs.append("client %d: states %s" % (cport, states(c)))
    if states(s) != ["SYN_RECV", "ESTABLISHED", "CLOSE_WAIT", "LAST_ACK", "CLOSE"]:
        errs.append("server %d: states %s" % (sport, states(s)))
    if sport == nft_port and c["retransmits"] < 1:
        errs.append("the nftables transfer %d: no retransmits" % cport)
if fams != {"ipv4", "ipv6"}:
    errs.append("families %s" % sorted(fams))
refused = [c for c in conns if c["dport"] == 9 and not c["listener"]]
want_refused = sum(1 for w in work if w[0] == "refused")
if len(refused) != want_refused:
    errs.append("%d rows to port 9, want %d" % (len(refused), want_refused))
for c in refused:
    if states(c) != ["SYN_SENT", "CLOSE"] or c["resets_received"] != 1 or c["reset_reason"] != "NO_SOCKET":
        errs.append("refused %s: states %s, resets received %s, reason %s" % (c["sport"], states(c), c["resets_received"], c["reset_reason"]))
if {c["family"] for c in refused} != {"ipv4", "ipv6"}:
    errs.append("refused families %s" % sorted({c["family"] for c in refused}))
udp = sum(d["count"] for d in drops if d["reason"] == "NO_SOCKET" and "udp" in d["location"])
want_udp = sum(int(w[2]) for w in work if w[0] == "udp")
if udp < want_udp:
    errs.append("%d NO_SOCKET drops in udp, want >= %d" % (udp, want_udp))
nf = sum(d["count"] for d in drops if d["reason"] == "NETFILTER_DROP")
if nf < 1:
    errs.append("no NETFILTER_DROP drops")
for e in errs:
    print(e)
print("checked %d connections, %d drop groups; udp NO_SOCKET %d, NETFILTER_DROP %d"
      % (len(conns), len(drops), udp, nf))
PY
)
echo "$out" | tail -1 | sed 's/^/  /'
check "net: connections and drops as the workload made them$(echo "$out" | head -n -1 | head -8 | sed 's/^/\n    /')" \
	[ "$(echo "$out" | wc -l)" -eq 1 ]
# the IPv6 transfer's timeline, from the recording
set -- $(grep '^client ' "$tmp/work.out" | sed -n 2p)
"$KTOP" -i "$tmp/net.ktop" --json -F "conn:[::1]:$3-[::1]:$6" >"$tmp/c.out" 2>"$tmp/c.err"
out=$(python3 - "$tmp/c.out" "$3" "$6" "$8" "${10}" <<'PY' 2>&1
import json, sys
o = json.loads(open(sys.argv[1]).readline())
c, s, sent, recvd = (int(a) for a in sys.argv[2:])
got = sorted((r["sport"], r["dport"], r["bytes_sent"], r["bytes_received"]) for r in o["connections"])
want = sorted([(c, s, sent, recvd), (s, c, recvd, sent)])
print("ok" if got == want else "rows %s, want %s" % (got, want))
PY
)
check "net: -i of its recording, -F conn: the IPv6 transfer's two rows ($out; $(head -c 200 "$tmp/c.err"))" \
	[ "$out" = ok ]
state_same "net: tracing state unchanged" "$tmp/state"
no_instance "net: instance removed" $kpid
finish

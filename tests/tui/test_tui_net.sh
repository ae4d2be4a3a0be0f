#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Net pane (9, issue 25) under tmux at 80x24, keys in, screen text out.
#   1. Live, ktop --net, with netload in a network namespace of the test's own
#      (loopback only, removed afterwards): a TCP transfer of a known size and
#      a connect to a closed port. In pane 9: / finds the transfer's client
#      port, its row shows nl-client and both ends, its two lines below show
#      its states up to CLOSE and netload's bytes each way; l scrolls the
#      columns after PID (AGE, SENT, RECV appear); the refused connect's row
#      says the reset it received (NO_SOCKET); a transfer through an nftables
#      rule dropping every fourth data packet (with a counter) shows
#      retransmits on its client row; Enter narrows every pane to the first
#      transfer's conn: clause and lists its events (the view line names it);
#      W, 9, d: the drops table has the refused SYN's NO_SOCKET and as many
#      NETFILTER_DROP at nft_do_chain as the rule's counter says; Enter lists
#      the NO_SOCKET kfree_skb events; Y k on the NETFILTER_DROP group turns
#      kfree_skb's kernel stacks on, the nftables transfer again, y: the
#      caller tree of those drops goes through nft_do_chain; P turns
#      tcp:tcp_probe on and a transfer's row then has its cwnd; with it, two
#      connections at once (netload pair, segments of 1000 and 700 bytes):
#      Enter on one's row lists its packets' net_dev_xmit and
#      netif_receive_skb (joined by the skb address tcp_probe names), not the
#      other's, for each of the two; P again off;
#      q; the kernel's tracing state is as before.
#   2. A recording whose trace time runs 65 s past a connection's close
#      (tests/fixtures/net-age): the IPv6 transfer at its end has both rows
#      with their [::1] ends; the IPv4 one before it aged out (60 s of trace
#      time): no rows, the header counts them, its events still listed.
#   3. A recording of the 6.12-rt guest (tests/fixtures/rt612-net as a .ktop):
#      the same pane from that kernel's formats: nl-client and nl-server rows
#      with the transfers' ports, the NO_SOCKET drops; F6 sorts, I inverts.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
need_tool netload
need_tool snapshot_tool
for t in ip nft; do
	command -v $t >/dev/null || { echo "FAIL setup: $t is not installed (make deps)"; exit 1; }
done

ns=ktop-tui-net-$$
ip netns add "$ns" || { echo "FAIL setup: ip netns add"; exit 1; }
trap 'ip netns del "$ns" 2>/dev/null; tui_cleanup' EXIT
ip -n "$ns" link set lo up
nl=$PWD/$TOOLS/netload
state_save "$tmp/state.before"

# --- 1. live --------------------------------------------------------------------
tui_start 80 24 --net --no-bpf
if wait_screen 'events/s' 20; then ok "live: ktop --net started"
else fail "live: no first frame"; evidence start; fi
keys 9
wait_screen '^Net: ' 5 || { fail "live: no Net pane"; evidence pane9; }
ip netns exec "$ns" "$nl" tcp 123456 54321 > "$tmp/work" 2>&1
ip netns exec "$ns" "$nl" refused 9 >> "$tmp/work" 2>&1
# every fourth data packet to port 7001 dropped, counted: a transfer through it
nft_on() {
	ip netns exec "$ns" sh -c "
		nft add table inet ktoptest &&
		nft add chain inet ktoptest in '{ type filter hook input priority 0; }' &&
		nft add rule inet ktoptest in tcp dport 7001 meta length '>' 1000 \
			numgen inc mod 4 == 0 counter drop"
}
nft_transfer() {
	ip netns exec "$ns" "$nl" tcp -p 7001 400000 400000
}
# the packets the rule dropped, then the table removed
nft_off() {
	ip netns exec "$ns" nft list table inet ktoptest | sed -n 's/.* counter packets \([0-9]*\) .*/\1/p'
	ip netns exec "$ns" nft delete table inet ktoptest
}
nft_on || fail "setup: the nftables rule"
nft_transfer > "$tmp/nftwork" 2>&1
ndrop=$(nft_off)
set -- $(grep '^client ' "$tmp/nftwork")
ncpid=$2 ncport=$3
echo "  (nftables transfer: $(cat "$tmp/nftwork"); $ndrop packets dropped)"
# "client PID PORT server PID PORT sent N received M"
set -- $(grep '^client ' "$tmp/work")
cpid=$2 cport=$3 sport=$6 sent=$8 recvd=${10}
echo "  (netload: $(tr '\n' ';' < "$tmp/work"))"
if wait_screen "127\.0\.0\.1:$cport +127\.0\.0\.1:$sport" 10; then
	ok "live: the transfer's client row is on the screen"
else
	fail "live: no row 127.0.0.1:$cport -> 127.0.0.1:$sport"; evidence rows
fi
keys /
sleep 0.2
keys -l "TCP 127.0.0.1:$cport"
keys Enter
sleep 0.5
line=$(scr | grep -E "^ *\S+ +\S+ +127\.0\.0\.1:$cport " | head -1)
case $line in
*" $cpid "*nl-client*) ok "live: the client row has netload's pid and comm" ;;
*) fail "live: client row '$line' (want pid $cpid, nl-client)"; evidence row ;;
esac
if wait_screen "^sent $sent received $recvd bytes" 3; then
	ok "live: the selected row's bytes are netload's ($sent sent, $recvd received)"
else
	fail "live: no 'sent $sent received $recvd bytes' line"; evidence detail
fi
if scr | grep -Eq '^SYN_SENT ESTABLISHED [0-9.]+[mun]?s FIN_WAIT1 .* FIN_WAIT2 .* CLOSE [0-9.]+[mun]?s'; then
	ok "live: its states up to CLOSE"
else
	fail "live: no states line up to CLOSE"; evidence states
fi
# IPv6: a transfer over ::1, its client row with both ends in brackets
ip netns exec "$ns" "$nl" tcp -6 3000 2000 > "$tmp/work6" 2>&1
set -- $(grep '^client ' "$tmp/work6")
c6pid=$2 c6port=$3 s6port=$6
if wait_screen "\[::1\]:$c6port +\[::1\]:$s6port " 10; then
	keys /
	sleep 0.2
	keys -l "TCP [::1]:$c6port"
	keys Enter
	sleep 0.3
	line=$(scr | grep -E "^ *\S+ +\S+ +\[::1\]:$c6port +\[::1\]:$s6port " | head -1)
	case $line in
	*" $c6pid "*nl-client*) ok "live: an IPv6 transfer's row: [::1]:$c6port to [::1]:$s6port, pid $c6pid" ;;
	*) fail "live: IPv6 row '$line' (want pid $c6pid, nl-client)"; evidence row6 ;;
	esac
	if wait_screen "^sent 3000 received 2000 bytes" 3; then
		ok "live: its bytes each way (3000, 2000)"
	else
		fail "live: no 'sent 3000 received 2000 bytes' for the IPv6 row"; evidence bytes6
	fi
else
	fail "live: no row [::1]:$c6port -> [::1]:$s6port"; evidence rows6
fi
# the nftables transfer ran last: once its row is drawn, the rows before it are held
wait_screen "127\.0\.0\.1:$ncport +127\.0\.0\.1:7001 " 10 ||
	{ fail "live: no row of the nftables transfer's client"; evidence nftrow; }
keys /
sleep 0.2
keys -l "127.0.0.1:9 "
keys Enter
if wait_screen '^SYN_SENT CLOSE ' 3 && wait_screen 'resets 0 sent 1 received, NO_SOCKET' 3; then
	ok "live: the refused connect's row: SYN_SENT, CLOSE, the reset it received (NO_SOCKET)"
else
	fail "live: no reset on the refused connect's row"; evidence refused
fi
keys /
sleep 0.2
keys -l "TCP 127.0.0.1:$ncport"
keys Enter
sleep 0.3
keys l l l l
if wait_screen '^ +PID +.*AGE +SENT +RECV +RETR' 3; then ok "live: l scrolls the columns after PID"
else fail "live: no AGE, SENT, RECV after l"; evidence scroll; fi
# PID REMOTE STATE AGE SENT RECV RETR: the nftables transfer's client, with retransmits
if [ "${ndrop:-0}" -gt 0 ] &&
   wait_screen "^ +$ncpid +127\.0\.0\.1:7001 +CLOSE +\S+ +[1-9]\S* +[1-9]\S* +[1-9][0-9]*( |\$)" 3
then
	ok "live: the nftables transfer's client row has retransmits ($ndrop packets dropped)"
else
	fail "live: no retransmits on pid $ncpid's row ($ndrop dropped)"; evidence retrans
fi
keys h h h h
keys /
sleep 0.2
keys -l "TCP 127.0.0.1:$cport"
keys Enter
sleep 0.3
keys Enter
if wait_screen "view conn:127\.0\.0\.1:$cport-127\.0\.0\.1:$sport" 5 &&
   wait_screen 'inet_sock_set_state' 5; then
	ok "live: Enter narrows to the connection's timeline and lists it"
else
	fail "live: no conn: view with its events"; evidence timeline
fi
keys W
sleep 0.3
keys 9
wait_screen '^Net: ' 5
keys d
if wait_screen '^Drops: ' 5 && wait_screen 'NO_SOCKET +tcp_v4_rcv' 10; then
	ok "live: d shows the drops, the refused SYN's NO_SOCKET at tcp_v4_rcv"
else
	fail "live: no NO_SOCKET drop at tcp_v4_rcv"; evidence drops
fi
if wait_screen "^ +$ndrop +\S+ +0 +NETFILTER_DROP +nft_do_chain" 5; then
	ok "live: $ndrop NETFILTER_DROP at nft_do_chain, as the rule's counter"
else
	fail "live: no '$ndrop NETFILTER_DROP' at nft_do_chain"; evidence nftdrops
fi
keys /
sleep 0.2
keys -l "tcp_v4_rcv"
keys Enter
sleep 0.3
keys Enter
# (at 80 columns the header cuts a long clause before its "N of M": "tcp_v4_rc...")
if wait_screen 'view skb:kfree_skb: reason == [0-9]+ && location == "tcp_v4_r(cv"|c?\.\.\.)' 5 &&
   wait_screen 'kfree_skb: ' 5; then
	ok "live: Enter on the drop group lists its kfree_skb events"
else
	fail "live: no kfree_skb view"; evidence dropevents
fi
keys W
sleep 0.3
keys 9
wait_screen '^Drops: ' 5
keys /
sleep 0.2
keys -l "NETFILTER_DROP"
keys Enter
sleep 0.3
keys Y
wait_screen 'stack traces of skb:kfree_skb from now on: k kernel' 5 ||
	{ fail "live: Y does not ask for kernel or user stacks"; evidence stackask; }
keys k
if wait_screen 'kernel stacks of skb:kfree_skb from now on' 5; then
	ok "live: Y on a drop group turns kfree_skb's kernel stacks on"
else
	fail "live: no stacks on after Y"; evidence stackon
fi
nft_on || fail "setup: the nftables rule, again"
nft_transfer > /dev/null 2>&1
nft_off > /dev/null
keys 9
wait_screen '^Drops: ' 5
keys /
sleep 0.2
keys -l "NETFILTER_DROP"
keys Enter
sleep 0.3
keys y
if wait_screen '^Stacks: caller tree of NETFILTER_DROP drops at nft_do_chain' 5 &&
   wait_screen '^ +[0-9]+ +[0-9.]+% +- nft_do_chain$' 5; then
	ok "live: y shows those drops' caller tree, through nft_do_chain"
else
	fail "live: no caller tree through nft_do_chain"; evidence dropstacks
fi
keys W
sleep 0.3
keys 9
wait_screen '^Drops: ' 5
keys d
wait_screen '^Net: ' 5
keys P
if wait_screen 'tcp:tcp_probe on' 5; then ok "live: P turns tcp:tcp_probe on"
else fail "live: no 'tcp:tcp_probe on' after P"; evidence probe; fi
ip netns exec "$ns" "$nl" tcp 200000 1000 > "$tmp/pwork" 2>&1
set -- $(grep '^client ' "$tmp/pwork")
wait_screen "127\.0\.0\.1:$3 +127\.0\.0\.1:$6" 10
keys /
sleep 0.2
keys -l "TCP 127.0.0.1:$3"
keys Enter
if wait_screen 'cwnd [1-9][0-9]* ssthresh [0-9]+' 5; then
	ok "live: then the transfer's row has tcp_probe's cwnd"
else
	fail "live: no cwnd on the row of port $3"; evidence cwnd
fi
# The timeline's packets, joined by the skb address tcp_probe names: two
# connections at once (netload pair: segments of 1000 bytes on A, 700 on B,
# in turn, each read as it comes, so one's freed skbs carry the other's next
# packets). On lo a segment of N bytes is net_dev_xmit len=N+66 and
# netif_receive_skb len=N+52. Enter on A's row: A's segments are listed, B's
# are not; and the other way round, so that "no match" means something.
ip netns exec "$ns" "$nl" pair 40 1000 700 > "$tmp/pair" 2>&1
set -- $(cat "$tmp/pair")	# pair PORTA PORTB server PORT
pa=$2 pb=$3 ps=$5
echo "  (netload: $(cat "$tmp/pair"))"
# search TEXT: / TEXT Enter in the event list, searching from the newest back;
# the page scrolled 40 columns right, to the fields after the skb address
# (net_dev_xmit's "len=N rc=0 name=lo", netif_receive_skb's "len=N name=lo")
search() {
	keys End
	keys /
	wait_screen 'search older events for:' 3 || return 1
	keys -l "$1"
	keys Enter
	keys Right Right Right Right Right
}
timeline() {	# PORT OURS THEIRS: Enter on the client row of PORT
	local port=$1 ours=$2 theirs=$3 xo=$(($2 + 66)) ro=$(($2 + 52)) xt=$(($3 + 66))
	keys 9
	wait_screen '^Net: ' 5
	# (after W the pane reads the store again from its start: the row may come later)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		keys /
		sleep 0.2
		keys -l "TCP 127.0.0.1:$port"
		keys Enter
		# selected: the lines under the table say its bytes (40 segments, nothing back)
		wait_screen "^sent $((ours * 40)) received 0 bytes" 1 && break
	done
	wait_screen "127\.0\.0\.1:$port +127\.0\.0\.1:$ps" 1 &&
	wait_screen "^sent $((ours * 40)) received 0 bytes" 1 ||
		{ fail "live: no row of the pair's client port $port"; evidence "pair$port"; }
	sleep 0.3
	keys Enter
	wait_screen "view conn:127\.0\.0\.1:$port-127\.0\.0\.1:$ps" 5 ||
		{ fail "live: no conn: view for port $port"; evidence "view$port"; }
	search "len=$xo"
	if wait_screen "[0-9a-f] len=$xo rc=0 name=lo" 10 &&
	   wait_screen "search \"len=$xo\" \(n older" 5; then
		ok "live: port $port's timeline lists its $ours-byte segments' net_dev_xmit (len=$xo)"
	else
		fail "live: no net_dev_xmit len=$xo in port $port's timeline"; evidence "xmit$port"
	fi
	keys Left Left Left Left Left
	search "len=$ro"
	if wait_screen "[0-9a-f] len=$ro name=lo" 10; then
		ok "live: and their netif_receive_skb (len=$ro)"
	else
		fail "live: no netif_receive_skb len=$ro in port $port's timeline"
		evidence "recv$port"
	fi
	keys Left Left Left Left Left
	search "len=$xt"
	if wait_screen "\"len=$xt\": no older match" 10; then
		ok "live: and not the other connection's (no len=$xt)"
	else
		fail "live: port $port's timeline has the other connection's len=$xt"
		evidence "theirs$port"
	fi
	keys Left Left Left Left Left
	keys W
	sleep 0.3
}
timeline "$pa" 1000 700
timeline "$pb" 700 1000
keys 9
wait_screen '^Net: ' 5
keys P
if wait_screen 'tcp:tcp_probe off' 5; then ok "live: P again turns it off"
else fail "live: no 'tcp:tcp_probe off'"; evidence probeoff; fi
quit_ok "live: q exits with status 0"
state_same "live: tracing state unchanged" "$tmp/state.before"

# --- 2. closed rows aged out: a recording whose trace time runs past 60 s ----------
# tests/fixtures/net-age: an IPv4 transfer, 65 s of trace time, an IPv6 one
fx=tests/fixtures/net-age
"$TOOLS/snapshot_tool" merge "$tmp/age.ktop" "$fx" > /dev/null 2>&1 ||
	fail "age: cannot write a .ktop of $fx"
set -- $(grep '^client ' "$fx/workload.out" | sed -n 1p)
a4c=$3 a4s=$6
set -- $(grep '^client ' "$fx/workload.out" | sed -n 2p)
a6c=$3 a6s=$6
tui_start 80 24 -i "$tmp/age.ktop"
wait_screen 'SNAPSHOT' 10
keys 9
if wait_screen "nl-client +\[::1\]:$a6c +\[::1\]:$a6s " 10 &&
   wait_screen "nl-server +\[::1\]:$a6s +\[::1\]:$a6c " 2; then
	ok "age: the IPv6 transfer closed at the end: both its rows, [::1]:$a6c and [::1]:$a6s"
else
	fail "age: no rows [::1]:$a6c <-> [::1]:$a6s"; evidence age6
fi
if ! scr | grep -Eq "127\.0\.0\.1:($a4c|$a4s) " &&
   wait_screen '^Net: .* [2-9][0-9]* aged out' 2; then
	ok "age: the IPv4 transfer closed 65 s before: its rows aged out (the header counts them)"
else
	fail "age: the rows of 127.0.0.1:$a4c <-> $a4s are still there"; evidence age4
fi
# its events are held all the same: a view of its connection lists them
keys 3
wait_screen 'Events: ' 5
keys '\'
if wait_screen 'View filter' 3; then
	keys -l "conn:127.0.0.1:$a4c-127.0.0.1:$a4s"
	keys Enter
fi
keys Right Right Right Right Right
if wait_screen "view conn:127\\.0\\.0\\.1:$a4c-127\\.0\\.0\\.1:$a4s +[1-9][0-9.]*[kM]? of " 5 &&
   wait_screen "tcp_destroy_sock: skaddr=\\S+ sport=($a4c dport=$a4s|$a4s dport=$a4c) " 5; then
	ok "age: the aged-out connection's events are still held and listed"
else
	fail "age: no events of 127.0.0.1:$a4c <-> $a4s"; evidence age4ev
fi
quit_ok "age: q exits with status 0"

# --- 3. a recording of the 6.12-rt guest -------------------------------------------
fx=tests/fixtures/rt612-net
if [ -d "$fx" ]; then
	"$TOOLS/snapshot_tool" merge "$tmp/rt612.ktop" "$fx" > /dev/null 2>&1 ||
		fail "rt612: cannot write a .ktop of $fx"
	set -- $(grep '^client ' "$fx/workload.out" | head -1)
	tui_start 80 24 -i "$tmp/rt612.ktop"
	wait_screen 'SNAPSHOT' 10
	keys 9
	if wait_screen "nl-client +127\.0\.0\.1:$3 +127\.0\.0\.1:$6" 10 &&
	   wait_screen "nl-server +127\.0\.0\.1:$6 +127\.0\.0\.1:$3" 2; then
		ok "rt612: the 6.12-rt recording's transfer in the pane, both rows"
	else
		fail "rt612: no nl-client/nl-server rows for $3 <-> $6"; evidence rt612
	fi
	keys '>'
	if wait_screen 'connections sorted by' 3; then ok "rt612: F6/> sorts"
	else fail "rt612: no sort message"; evidence sort; fi
	keys d
	if wait_screen 'NO_SOCKET +__udp4_lib_rcv' 5; then
		ok "rt612: its UDP NO_SOCKET drops, named from its own format"
	else
		fail "rt612: no NO_SOCKET at __udp4_lib_rcv"; evidence rt612drops
	fi
	quit_ok "rt612: q exits with status 0"
fi
finish

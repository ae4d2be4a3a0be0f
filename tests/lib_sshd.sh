# SPDX-License-Identifier: GPL-2.0-or-later
# A private sshd for the --remote tests (sourced, not run; root).
#
# sshd_start starts Debian's sshd on a free port of 127.0.0.1 with its own
# host key, config and authorized keys (one file for every user, written
# here), and writes an ssh config naming it: `ssh -F "$SSHD_DIR/ssh_config"
# USER@ktop-test` reaches it with the client key made here, checking the host
# key made here. sshd_user NAME PASSWORD adds a user whose sudo asks for that
# password before running $KTOP (and nothing else) as root. sshd_stop ends
# sshd and the sessions it started, and removes the users, their sudoers
# files, sudo's time stamps and lecture marks, the keys, and /run/sshd when
# this made it: the host is left as found. Call it from the test's EXIT trap.
#
# Needs openssh-server, openssh-client and sudo (make deps installs them).

SSHD_DIR=
SSHD_PID=
SSHD_PORT=
SSHD_USERS=
SSHD_MADE_RUN=
SSHD_WHY=

# sshd_need: say what is missing (a FAIL line) and return 1
sshd_need() {
	local p missing=
	for p in /usr/sbin/sshd ssh ssh-keygen sudo useradd visudo; do
		command -v "$p" >/dev/null || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "FAIL setup: not installed:$missing (make deps installs openssh-server, openssh-client, sudo)"
		return 1
	fi
}

# sshd_listening PORT: something accepts connections on 127.0.0.1:PORT (bash's /dev/tcp)
sshd_listening() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

sshd_free_port() {
	local p
	for p in $(seq $((22000 + $$ % 500)) 22999); do
		sshd_listening "$p" || { echo "$p"; return 0; }
	done
	return 1
}

# sshd_start: 0 when sshd listens; else 1 with the reason in SSHD_WHY. Not in
# a $(...): that shell's variables would be lost, and sshd would hold its pipe.
sshd_start() {
	local i
	SSHD_WHY=
	SSHD_DIR=$(mktemp -d /tmp/ktop-sshd.XXXXXX) || { SSHD_WHY="mktemp failed"; return 1; }
	chmod 755 "$SSHD_DIR"
	if ! ssh-keygen -q -t ed25519 -N '' -C ktop-test-host -f "$SSHD_DIR/host_key" ||
		! ssh-keygen -q -t ed25519 -N '' -C ktop-test-client -f "$SSHD_DIR/client_key"; then
		SSHD_WHY="ssh-keygen failed"
		return 1
	fi
	cp "$SSHD_DIR/client_key.pub" "$SSHD_DIR/authorized_keys"
	chmod 644 "$SSHD_DIR/authorized_keys"
	SSHD_PORT=$(sshd_free_port) || { SSHD_WHY="no free port in 22000-22999"; return 1; }
	# privilege separation needs it; Debian's init script makes it, nothing ran here
	if [ ! -d /run/sshd ]; then
		mkdir -m 755 /run/sshd && SSHD_MADE_RUN=1
	fi
	cat >"$SSHD_DIR/sshd_config" <<-EOF
	ListenAddress 127.0.0.1:$SSHD_PORT
	HostKey $SSHD_DIR/host_key
	PidFile none
	AuthorizedKeysFile $SSHD_DIR/authorized_keys
	StrictModes no
	PubkeyAuthentication yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	UsePAM no
	X11Forwarding no
	AllowTcpForwarding no
	PrintMotd no
	LogLevel INFO
	EOF
	if ! /usr/sbin/sshd -t -f "$SSHD_DIR/sshd_config" 2>"$SSHD_DIR/sshd.err"; then
		SSHD_WHY="sshd -t: $(cat "$SSHD_DIR/sshd.err")"
		return 1
	fi
	/usr/sbin/sshd -D -e -f "$SSHD_DIR/sshd_config" </dev/null >/dev/null 2>"$SSHD_DIR/sshd.log" &
	SSHD_PID=$!
	printf '[127.0.0.1]:%s %s\n' "$SSHD_PORT" "$(cut -d' ' -f1,2 "$SSHD_DIR/host_key.pub")" \
		>"$SSHD_DIR/known_hosts"
	cat >"$SSHD_DIR/ssh_config" <<-EOF
	Host ktop-test
		HostName 127.0.0.1
		Port $SSHD_PORT
		IdentityFile $SSHD_DIR/client_key
		IdentitiesOnly yes
		UserKnownHostsFile $SSHD_DIR/known_hosts
		StrictHostKeyChecking yes
		BatchMode yes
		LogLevel INFO
	EOF
	for ((i = 0; i < 100; i++)); do
		sshd_listening "$SSHD_PORT" && return 0
		kill -0 "$SSHD_PID" 2>/dev/null || break
		sleep 0.05
	done
	SSHD_WHY="sshd did not start: $(tail -3 "$SSHD_DIR/sshd.log")"
	return 1
}

# sshd_user NAME PASSWORD: a login with the client key; sudo asks PASSWORD, then runs $KTOP only
sshd_user() {
	local name=$1 pw=$2 ktop_abs
	ktop_abs=$(readlink -f "$KTOP")
	useradd -M -d "$SSHD_DIR/home-$name" -s /bin/sh "$name" || return 1
	SSHD_USERS="$SSHD_USERS $name"
	mkdir -p "$SSHD_DIR/home-$name" && chown "$name" "$SSHD_DIR/home-$name"
	echo "$name:$pw" | chpasswd || return 1
	# no lecture (it would leave a mark in /var/lib/sudo), asked every time
	printf 'Defaults:%s lecture=never, timestamp_timeout=0\n%s ALL=(root) %s\n' \
		"$name" "$name" "$ktop_abs" >"$SSHD_DIR/sudoers"
	visudo -qcf "$SSHD_DIR/sudoers" || return 1
	install -m 440 "$SSHD_DIR/sudoers" "/etc/sudoers.d/ktop-test-$name"
}

# The processes under PID, deepest first.
sshd_descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		sshd_descendants "$c"
		echo "$c"
	done
}

sshd_stop() {
	local u p i
	if [ -n "$SSHD_PID" ]; then
		# the sessions first (they outlive the listener), then the listener
		for p in $(sshd_descendants "$SSHD_PID") "$SSHD_PID"; do
			kill "$p" 2>/dev/null
		done
		for ((i = 0; i < 100; i++)); do
			kill -0 "$SSHD_PID" 2>/dev/null || break
			sleep 0.05
		done
		kill -9 "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=
	fi
	for u in $SSHD_USERS; do
		rm -f "/etc/sudoers.d/ktop-test-$u" "/run/sudo/ts/$u" "/var/lib/sudo/lectured/$u"
		userdel "$u" 2>/dev/null
	done
	SSHD_USERS=
	[ -n "$SSHD_MADE_RUN" ] && rmdir /run/sshd 2>/dev/null
	SSHD_MADE_RUN=
	[ -n "$SSHD_DIR" ] && rm -rf "$SSHD_DIR"
	SSHD_DIR=
}

# sshd_clean: nothing of this file's left on the host (sshd, users, sudoers files)
sshd_clean() {
	! pgrep -f "sshd -D -e -f /tmp/ktop-sshd" >/dev/null &&
		! ls /etc/sudoers.d/ktop-test-* >/dev/null 2>&1 &&
		! getent passwd | grep -q '^ktoptest'
}

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/vm/kernel.sh FLAVOUR: print the path of a cached Debian rt vmlinuz,
# fetching it first when needed.  Sourced by tests/vm/run.sh, usable alone.
#
#   bookworm    linux-image-rt-amd64 from the system's own apt sources (6.1)
#   backports   linux-image-rt-amd64 from bookworm-backports (6.12), through a
#               private sources list and apt state dir: the system's apt
#               configuration is never changed.
#
# The version is resolved at run time from the metapackage's dependency, so a
# kernel security update is picked up without editing anything.  Only
# ./boot/vmlinuz-* is kept from the .deb (the modules are not needed: the
# guest runs from an initramfs and talks over the built-in 8250 UART).
#
# Every failure prints the reason on stderr and returns non-zero: the caller
# turns it into a FAIL, never a skip.

set -u

vm_cache_dir()
{
	if [ -n "${KTOP_VM_CACHE:-}" ]; then
		echo "$KTOP_VM_CACHE"
	elif [ -n "${XDG_CACHE_HOME:-}" ]; then
		echo "$XDG_CACHE_HOME/ktop-vm"
	else
		echo "$(cd "$(dirname "$0")" && pwd)/cache"
	fi
}

# apt options for one flavour; the backports one gets its own world.
vm_apt_opts()
{
	flavour=$1
	cache=$2
	case $flavour in
	bookworm)
		echo ""
		;;
	backports)
		d=$cache/apt-backports
		echo "-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=$d/sources.list.d" \
		     "-o Dir::State=$d/state -o Dir::Cache=$d/cache -o Dir::Etc::Preferences=$d/preferences" \
		     "-o Dir::Etc::PreferencesParts=$d/preferences.d -o APT::Default-Release=bookworm-backports"
		;;
	esac
}

vm_backports_setup()
{
	d=$1/apt-backports
	mkdir -p "$d/state/lists/partial" "$d/cache/archives/partial" "$d/sources.list.d" \
		"$d/preferences.d" || return 1
	: > "$d/preferences"
	[ -f "$d/state/status" ] || : > "$d/state/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	     "http://deb.debian.org/debian bookworm-backports main" > "$d/sources.list"
}

# Print "linux-image-<ver>-rt-amd64" for the flavour, updating apt lists if needed.
vm_kernel_package()
{
	flavour=$1
	cache=$2
	opts=$(vm_apt_opts "$flavour" "$cache")
	[ "$flavour" = backports ] && { vm_backports_setup "$cache" || return 1; }
	# shellcheck disable=SC2086
	dep=$(apt-cache $opts depends linux-image-rt-amd64 2>/dev/null |
	      sed -n 's/^ *Depends: \(linux-image-[^ ]*-rt-amd64\)$/\1/p' | sort -V | tail -n 1)
	if [ -z "$dep" ]; then
		echo "vm: apt has no linux-image-rt-amd64 for $flavour, running apt-get update" >&2
		# shellcheck disable=SC2086
		apt-get $opts -qq update >&2 || {
			echo "vm: apt-get update failed for $flavour" >&2
			return 1
		}
		# shellcheck disable=SC2086
		dep=$(apt-cache $opts depends linux-image-rt-amd64 2>/dev/null |
		      sed -n 's/^ *Depends: \(linux-image-[^ ]*-rt-amd64\)$/\1/p' |
		      sort -V | tail -n 1)
	fi
	if [ -z "$dep" ]; then
		echo "vm: cannot resolve linux-image-rt-amd64's kernel for $flavour" >&2
		return 1
	fi
	echo "$dep"
}

# Print the path of vmlinuz for the flavour; fetch into the cache if absent.
vm_kernel_fetch()
{
	flavour=$1
	cache=$(vm_cache_dir)
	mkdir -p "$cache" || return 1
	pkg=$(vm_kernel_package "$flavour" "$cache") || return 1
	kdir=$cache/$pkg
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
	if [ -n "$vmlinuz" ] && [ -s "$vmlinuz" ]; then
		echo "$vmlinuz"
		return 0
	fi
	echo "vm: fetching $pkg ($flavour) into $kdir" >&2
	tmp=$cache/dl.$$
	rm -rf "$tmp" && mkdir -p "$tmp" || return 1
	opts=$(vm_apt_opts "$flavour" "$cache")
	# shellcheck disable=SC2086
	if ! (cd "$tmp" && apt-get $opts -o APT::Sandbox::User=root -qq download "$pkg" >&2); then
		echo "vm: apt-get download $pkg failed" >&2
		rm -rf "$tmp"
		return 1
	fi
	deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n 1)
	mkdir -p "$tmp/x"
	if [ -z "$deb" ] || ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards \
			'./boot/vmlinuz-*' './boot/config-*' './boot/System.map-*'; then
		echo "vm: cannot unpack ./boot/vmlinuz-* from ${deb:-$pkg}" >&2
		rm -rf "$tmp"
		return 1
	fi
	rm -rf "$kdir" && mkdir -p "$kdir" && mv "$tmp/x/boot" "$kdir/" && rm -rf "$tmp"
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
	[ -n "$vmlinuz" ] || { echo "vm: no vmlinuz in $pkg" >&2; return 1; }
	echo "$vmlinuz"
}

# vm_kernel_pvh VMLINUZ: the uncompressed kernel (ELF) beside VMLINUZ, made
# once, when it has a PVH entry point (Debian's do); else VMLINUZ. qemu starts
# a PVH kernel directly: no firmware's real-mode boot, and no decompression of
# the kernel under TCG, which took several seconds of each boot.
vm_kernel_pvh()
{
	local vmlinuz=$1 elf off
	elf=$(dirname "$1")/vmlinux.pvh
	[ "${KTOP_VM_BZIMAGE:-0}" = 1 ] && { echo "$vmlinuz"; return; }
	if [ ! -s "$elf" ]; then
		# the payload: xz (6.1) or zstd (6.12); each decompressor stops
		# at the end of its stream and complains of what follows
		off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -n 1 | cut -d: -f1)
		if [ -n "$off" ]; then
			tail -c +$((off + 1)) "$vmlinuz" | xz -dc > "$elf.tmp" 2>/dev/null
		else
			off=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$vmlinuz" | head -n 1 |
				cut -d: -f1)
			[ -n "$off" ] &&
				tail -c +$((off + 1)) "$vmlinuz" | zstd -dcq > "$elf.tmp" 2>/dev/null
		fi
		if readelf -n "$elf.tmp" 2>/dev/null | grep -q 'Xen .*(0x00000012)'; then
			mv -f "$elf.tmp" "$elf"
		else
			rm -f "$elf.tmp"
		fi
	fi
	if [ -s "$elf" ]; then
		echo "$elf"
	else
		echo "$vmlinuz"
	fi
}

if [ "$(basename "$0")" = kernel.sh ]; then
	[ $# -eq 1 ] || { echo "usage: $0 bookworm|backports" >&2; exit 2; }
	vm_kernel_fetch "$1"
fi

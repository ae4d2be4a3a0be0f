# SPDX-License-Identifier: GPL-2.0-or-later
# ktop: an interactive explorer for live Linux kernel traces.
#
#   make            build ./ktop
#   make run        build, then start ktop live (or the demo snapshot)
#   make check      install what is missing, build, run every test
#   make check-fast every test but the qemu ones
#   make check-unit the unit tests alone (no root); check-asan, check-tsan: them
#                   under ASan+UBSan, TSan; check-live, check-tui, check-vm (root)
#   make bench      benchmarks, each next to its anchor
#   make deps       apt-get install the Debian packages ktop needs
#   make install    PREFIX=/usr/local DESTDIR=
#   make install-pmda  ktop's PCP agent into PCP's PMDA directory (then ./Install there)
#
# V=1 shows full commands.

VERSION		:= 0.1.0
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
DATADIR		?= $(PREFIX)/share/ktop

CC		?= cc
CLANG		?= clang
BPFTOOL		?= bpftool
PKG_CONFIG	?= pkg-config
B		:= build

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2)
endif

# Debian packages: build, run, tests, benchmarks, the qemu rig.
DEB_PKGS := build-essential pkg-config libtracefs-dev libtraceevent-dev libtracecmd-dev \
	libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev libzstd-dev libpcre2-dev \
	libncurses-dev tmux trace-cmd qemu-system-x86 busybox-static cpio time \
	libclang-rt-14-dev python3 linux-perf libbpf-tools procps rtla xz-utils zstd \
	bpftrace openssh-client openssh-server sudo pcp libpcp3-dev libpcp-pmda3-dev \
	nftables iproute2

# Lazily expanded, so a target that installs the libraries first can still use them.
PC_LIBS		= libtracefs libtraceevent libbpf libpcre2-8
PC_CFLAGS	= $(shell $(PKG_CONFIG) --cflags $(PC_LIBS) ncursesw 2>/dev/null)
CORE_LDLIBS	= $(shell $(PKG_CONFIG) --libs $(PC_LIBS) 2>/dev/null) -lzstd -lelf -lz -lpthread -lm
UI_LDLIBS	= $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null)

# Performance Co-Pilot: built in when its headers are there, loaded at run time
# (dlopen) only by --pmda and --pcp, so ktop itself needs no PCP (src/pcp/pcplib.h).
PCP_INC		?= /usr/include/pcp
PCP_CFLAGS	= $(if $(wildcard $(PCP_INC)/pmda.h),-DKTOP_HAVE_PCP)
# Where pmcd finds its agents: /etc/pcp.conf's PCP_PMDAS_DIR.
PCP_PMDAS_DIR	?= $(shell . /etc/pcp.conf 2>/dev/null && echo $$PCP_PMDAS_DIR)
PMDADIR		= $(DESTDIR)$(or $(PCP_PMDAS_DIR),/var/lib/pcp/pmdas)/ktop

WARN		:= -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 \
		   -Wmissing-prototypes -Wstrict-prototypes
OPT		?= -O2 -g
# Core objects (src/) see src/ alone: a core file that includes a UI header
# does not build. ui/, the tests, tools and benches see both.
CORE_CFLAGS	= -std=gnu11 $(OPT) $(WARN) -D_GNU_SOURCE -DKTOP_VERSION='"$(VERSION)"' \
		  -DKTOP_DATADIR='"$(DATADIR)"' -iquote src -I$(B) $(PC_CFLAGS) $(PCP_CFLAGS) $(EXTRA_CFLAGS)
KTOP_CFLAGS	= $(CORE_CFLAGS) -iquote ui
KTOP_LDFLAGS	= $(EXTRA_LDFLAGS)

# Variants: build/ (normal), build-asan/ (ASan+UBSan), build-tsan/ (TSan).
ifeq ($(SAN),asan)
B		:= build-asan
OPT		:= -O1 -g -fno-omit-frame-pointer
EXTRA_CFLAGS	+= -fsanitize=address,undefined -fno-sanitize-recover=all
EXTRA_LDFLAGS	+= -fsanitize=address,undefined
endif
ifeq ($(SAN),tsan)
B		:= build-tsan
OPT		:= -O1 -g
EXTRA_CFLAGS	+= -fsanitize=thread
EXTRA_LDFLAGS	+= -fsanitize=thread
endif

CORE_SRCS	:= $(wildcard src/*/*.c)
UI_SRCS		:= $(wildcard ui/*.c ui/*/*.c)
BPF_SRCS	:= $(wildcard bpf/*.bpf.c)
BPF_SKELS	:= $(patsubst bpf/%.bpf.c,$(B)/%.skel.h,$(BPF_SRCS))
CORE_OBJS	:= $(patsubst %.c,$(B)/%.o,$(CORE_SRCS))
UI_OBJS		:= $(patsubst %.c,$(B)/%.o,$(UI_SRCS))
# The terminal's own: the loop on it and the screen's curses backend. The rest
# is the UI library, which the UI's unit tests link with a text screen instead.
UI_TERM_OBJS	:= $(B)/ui/main_loop.o $(B)/ui/draw/curses.o
UI_LIB_OBJS	:= $(filter-out $(UI_TERM_OBJS),$(UI_OBJS))
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
TOOL_SRCS	:= $(wildcard tests/tools/*.c)
TOOL_BINS	:= $(patsubst tests/tools/%.c,$(B)/tools/%,$(TOOL_SRCS))
BENCH_SRCS	:= $(wildcard tests/bench/*.c)
BENCH_BINS	:= $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRCS))

.PHONY: all run check check-fast check-unit check-asan check-tsan check-live check-tui \
	check-vm fixtures bench install install-pmda deps deps-ensure clean tests tools benches fuzz
.DEFAULT_GOAL := all

all: ktop

ifeq ($(B),build)
# cp + rename: ./ktop may be running (cp onto it fails with ETXTBSY)
ktop: $(B)/ktop
	$(Q)cp $< $@.tmp && mv -f $@.tmp $@
else
ktop: $(B)/ktop
endif

$(B)/ktop: $(B)/src/main.o $(UI_TERM_OBJS) $(B)/libktop-ui.a $(B)/libktop.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(KTOP_LDFLAGS) -o $@ $^ $(UI_LDLIBS) $(CORE_LDLIBS)

$(B)/libktop-ui.a: $(UI_LIB_OBJS) $(B)/layers-ui.ok
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $(UI_LIB_OBJS)

$(B)/libktop.a: $(CORE_OBJS) $(B)/layers.ok
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $(CORE_OBJS)

# The layers of src/ (tests/layers.sh): a folder includes only the folders
# below it, never a UI header; a breach fails the build.
$(B)/layers.ok: tests/layers.sh $(wildcard src/*/*.c src/*/*.h) | $(B)
	$(call msg,LAYERS,src/)
	$(Q)tests/layers.sh src && touch $@

# The layers of ui/ (the same script): drawing knows no pane, no pane or prompt
# includes or calls another's; a breach fails the build of the UI library.
$(B)/layers-ui.ok: tests/layers.sh $(wildcard ui/*.[ch] ui/*/*.[ch]) $(UI_LIB_OBJS) | $(B)
	$(call msg,LAYERS,ui/)
	$(Q)tests/layers.sh ui $(UI_LIB_OBJS) && touch $@

# Objects depend on the settings baked into them (PREFIX via DATADIR, VERSION,
# OPT), so `make install PREFIX=/usr` after a plain `make` rebuilds what it must.
$(B)/settings: FORCE | $(B)
	@echo '$(DATADIR) $(VERSION) $(OPT) $(SAN) $(PCP_CFLAGS)' | cmp -s - $@ 2>/dev/null || \
		echo '$(DATADIR) $(VERSION) $(OPT) $(SAN) $(PCP_CFLAGS)' > $@

.PHONY: FORCE
FORCE:

$(B)/src/%.o: src/%.c $(B)/settings
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CORE_CFLAGS) -MMD -MP -c -o $@ $<

# src/main.c starts the UI or the headless mode: the one core file above ui/.
$(B)/src/main.o: src/main.c $(B)/settings | $(B)/src
	$(call msg,CC,$<)
	$(Q)$(CC) $(KTOP_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/ui/%.o: ui/%.c $(B)/settings
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(KTOP_CFLAGS) -MMD -MP -c -o $@ $<

# tests/unit: no root, no tracefs, no terminal; link the core library, and
# test_ui_* the UI library on a text screen (tests/unit/text_screen.c).
# Each binary's headers (tests/unit/*.h too) go in its .d file, so editing one
# rebuilds the tests that include it.
UI_TEST_BINS	:= $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_ui_*.c))
$(UI_TEST_BINS): TEST_UI = $(B)/tests/text_screen.o $(B)/libktop-ui.a
$(UI_TEST_BINS): $(B)/tests/text_screen.o $(B)/libktop-ui.a

$(B)/tests/%: tests/unit/%.c $(B)/libktop.a | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(KTOP_CFLAGS) -Itests/unit -MMD -MP -MT $@ -MF $@.d $(KTOP_LDFLAGS) -o $@ $< \
		$(TEST_UI) $(B)/libktop.a $(CORE_LDLIBS)

$(B)/tests/text_screen.o: tests/unit/text_screen.c | $(B)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(KTOP_CFLAGS) -Itests/unit -MMD -MP -c -o $@ $<

$(B)/tools/%: tests/tools/%.c $(B)/libktop.a | $(B)/tools
	$(call msg,CC,$@)
	$(Q)$(CC) $(KTOP_CFLAGS) $(TOOL_CFLAGS) -MMD -MP -MT $@ -MF $@.d $(KTOP_LDFLAGS) -o $@ $< \
		$(B)/libktop.a $(TOOL_LIBS) $(CORE_LDLIBS)

# The tests' independent trace.dat reader is libtracecmd's one user: ktop reads
# and writes trace.dat itself.
$(B)/tools/tdat_libtracecmd: TOOL_CFLAGS = $(shell $(PKG_CONFIG) --cflags libtracecmd 2>/dev/null)
$(B)/tools/tdat_libtracecmd: TOOL_LIBS = $(shell $(PKG_CONFIG) --libs libtracecmd 2>/dev/null)

# A workload whose user stacks the stack tests name: frame pointers, whatever OPT says.
$(B)/tools/stackload: EXTRA_CFLAGS += -fno-omit-frame-pointer

# The benches draw on curses (to /dev/null): the UI library and its curses backend.
$(B)/bench/%: tests/bench/%.c $(B)/libktop.a $(B)/libktop-ui.a $(B)/ui/draw/curses.o | $(B)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(KTOP_CFLAGS) $(KTOP_LDFLAGS) -o $@ $< $(B)/ui/draw/curses.o $(B)/libktop-ui.a \
		$(B)/libktop.a $(UI_LDLIBS) $(CORE_LDLIBS)

# BPF: CO-RE objects, stripped, then skeletons. vmlinux.h: see bpf/README.
$(B)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) | $(B)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -Ibpf -I$(B) -c $< -o $@
	$(Q)llvm-strip -g $@

# Keep the generated skeletons: deleting them as intermediates would rebuild
# their wrappers on each make.
.SECONDARY: $(BPF_SKELS) $(BPF_SKELS:.skel.h=.bpf.o)

# A skeleton is included by its program's wrapper alone (STYLE.md): that object
# waits for it (found in the sources as SRC.o=NAME.skel.h), so a BPF edit
# rebuilds it, and no other object waits for clang.
SKEL_USERS	:= $(shell grep -o '"[a-z0-9_]*\.skel\.h"' -r src --include='*.c' 2>/dev/null | \
		     sed 's|^\(src/.*\)\.c:"\(.*\)"$$|\1.o=\2|')
$(foreach u,$(SKEL_USERS),$(eval $(B)/$(word 1,$(subst =, ,$(u))) \
	build-fuzz/$(word 1,$(subst =, ,$(u))): $(B)/$(word 2,$(subst =, ,$(u)))))

$(B)/%.skel.h: $(B)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Syscall names (src/lib/syscalls.h), from the C library's <sys/syscall.h>.
$(B)/syscall_names.h: | $(B)
	$(call msg,GEN,$@)
	$(Q)echo '#include <sys/syscall.h>' | $(CC) -E -dM - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/[\2] = "\1",/p' > $@

$(B)/src/lib/syscalls.o: $(B)/syscall_names.h

$(B) $(B)/src $(B)/tests $(B)/tools $(B)/bench:
	$(Q)mkdir -p $@

tests: $(UNIT_BINS) $(TOOL_BINS)
tools: $(TOOL_BINS)
benches: $(BENCH_BINS)

# libFuzzer targets tests/fuzz/fuzz_*.c -> build-fuzz/ (clang, ASan+UBSan).
# Every core source is compiled with the same instrumentation into an archive,
# so the linker takes whatever the readers reach, with no list to keep up.
# tests/fuzz/run.sh builds and runs them.
FUZZ_CFLAGS	= $(CORE_CFLAGS) -O1 -fno-omit-frame-pointer
FUZZ_OBJS	:= $(patsubst %.c,build-fuzz/%.o,$(CORE_SRCS))
fuzz: $(patsubst tests/fuzz/%.c,build-fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

build-fuzz/src/%.o: src/%.c $(wildcard src/*/*.h)
	$(call msg,FUZZCC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

build-fuzz/libktop.a: $(FUZZ_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

build-fuzz/%: tests/fuzz/%.c build-fuzz/libktop.a
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< \
		build-fuzz/libktop.a $(CORE_LDLIBS)

# ---- set-up ------------------------------------------------------------

# pcp's postinst starts its services through systemctl, which fails where
# PID 1 is not systemd (containers, CI): SYSTEMD_OFFLINE=1 makes systemctl
# only enable the units there (nothing is started; the tests run private
# pmcds), and a pcp left half-configured by an earlier attempt is finished
# the same way. Under systemd nothing changes.
deps:
	apt-get update -qq
	@if [ -d /run/systemd/system ]; then off=; else off=SYSTEMD_OFFLINE=1; \
		echo "make deps: PID 1 is not systemd: installing with SYSTEMD_OFFLINE=1"; fi; \
	env $$off DEBIAN_FRONTEND=noninteractive dpkg --configure -a && \
	env $$off DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS)

# Install only when something is missing: quick when all is there.
deps-ensure:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing missing packages:" $$missing; \
		$(MAKE) --no-print-directory deps; \
	fi

run: deps-ensure
	$(Q)$(MAKE) --no-print-directory ktop
	$(Q)tests/run-ktop.sh

# ---- tests ---------------------------------------------------------------

# Everything, from a fresh machine: unit (plain, ASan+UBSan, TSan), live on
# this host, the TUI under tmux, and the qemu rig for the tracers this host lacks.
# The fuzz targets are built here, not inside the fuzz suite's 300 s (a fresh
# build took ~4 min on this 2-CPU machine, busy); a failed build is the suite's
# "FAIL fuzz-build", as tests/fuzz/run.sh builds them again.
check: deps-ensure
	$(Q)$(MAKE) --no-print-directory ktop tests tools
	$(Q)$(MAKE) --no-print-directory SAN=asan tests ktop
	$(Q)$(MAKE) --no-print-directory SAN=tsan tests
	-$(Q)$(MAKE) --no-print-directory -j2 fuzz
	$(Q)tests/run.sh all

check-fast: deps-ensure
	$(Q)$(MAKE) --no-print-directory ktop tests tools
	$(Q)$(MAKE) --no-print-directory SAN=asan tests ktop
	$(Q)$(MAKE) --no-print-directory SAN=tsan tests
	-$(Q)$(MAKE) --no-print-directory -j2 fuzz
	$(Q)tests/run.sh fast

check-unit: ktop tests
	$(Q)tests/run.sh unit

check-live: ktop tests tools
	$(Q)tests/run.sh live

check-tui: ktop tools
	$(Q)tests/run.sh tui

check-asan:
	$(Q)$(MAKE) --no-print-directory SAN=asan tests
	$(Q)tests/run.sh asan

check-tsan:
	$(Q)$(MAKE) --no-print-directory SAN=tsan tests
	$(Q)tests/run.sh tsan

check-vm: deps-ensure
	$(Q)$(MAKE) --no-print-directory ktop tools
	$(Q)tests/run.sh vm

fixtures: deps-ensure
	$(Q)$(MAKE) --no-print-directory ktop tools
	$(Q)tests/vm/run.sh fixtures

bench: deps-ensure
	$(Q)$(MAKE) --no-print-directory ktop tools benches
	$(Q)tests/bench/run.sh

# ---- install ---------------------------------------------------------------

install: ktop
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/themes
	install -m 0755 ktop $(DESTDIR)$(BINDIR)/ktop
	install -m 0644 man/ktop.1 $(DESTDIR)$(MANDIR)/man1/ktop.1
	$(if $(wildcard themes/*.theme),install -m 0644 $(wildcard themes/*.theme) $(DESTDIR)$(DATADIR)/themes/)
	if [ -f tests/fixtures/demo.ktop ]; then install -m 0644 tests/fixtures/demo.ktop $(DESTDIR)$(DATADIR)/demo.ktop; fi
	@if [ -n "$(PCP_PMDAS_DIR)" ] && [ -n "$(PCP_CFLAGS)" ]; then \
		$(MAKE) --no-print-directory install-pmda; \
	else echo "make install: no PCP here (/etc/pcp.conf, its headers): the PMDA is not installed"; fi

# ktop's PCP agent in PCP's layout: pmns, root, help, domain.h (written by
# ktop itself from the metrics it serves), Install, Remove, pmdaktop (pmcd's
# command) and ktop.options (what the agent traces; an edited one is kept).
install-pmda: ktop
	install -d $(PMDADIR)
	./ktop --pmda-files $(PMDADIR)
	install -m 0755 src/pcp/pmda/Install src/pcp/pmda/Remove $(PMDADIR)/
	sed 's|@BINDIR@|$(BINDIR)|' src/pcp/pmda/pmdaktop.in > $(PMDADIR)/pmdaktop
	chmod 0755 $(PMDADIR)/pmdaktop
	[ -f $(PMDADIR)/ktop.options ] || install -m 0644 src/pcp/pmda/ktop.options $(PMDADIR)/
	@echo "ktop's PMDA is in $(PMDADIR): as root, cd there and run ./Install"

clean:
	rm -rf build build-asan build-tsan build-fuzz ktop

-include $(shell find $(B) -name '*.d' 2>/dev/null)

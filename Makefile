# Top-level build, test and install of the stack.
#
#   make                 modules for KVER (default: newest installed headers) + userspace
#   make modules-all     modules for every kernel in KVERS
#   make userspace-valgrind   the same userspace with Valgrind annotations
#                        (VALGRIND=ON) in build/valgrind, for the memcheck test
#   make check           unit tests + VM suites for every kernel in KVERS
#   make check-middleware  tests/middleware with its whole interop matrix
#                        (against rxe too: the "# pair-long:" combinations)
#   make check-long      make check plus every "# pair-long:" combination
#                        (the middleware against rxe, the 5 % netem runs)
#   make check-wire-soak perftest, pingpongs and wire-data pair tests ROUNDS
#                        (20) times in ours-ours, ours-rxe and rxe-ours
#   make demo            build, boot a VM, load the stack, ibv_devinfo + RC ping-pong
#   make deb             Debian packages (mlx-hw-dkms, mlx-hw-verbs) in build/deb,
#                        built by dpkg-buildpackage from debian/
#   make install / uninstall   DKMS modules, udev rule, memlock limits, userspace
#                        (DKMS_TARBALL=<file> installs a prebuilt DKMS binary package)
#
# Kernel objects go to build/<release>/ (a copy of kernel/, since kbuild puts
# objects next to the sources), userspace to build/userspace with binaries in
# build/lib and build/bin.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
hdr_releases = $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
	sed 's|.*/linux-headers-||' | sort -V)
KVERS ?= $(hdr_releases)
KVER ?= $(lastword $(KVERS))
WERROR ?= $(if $(CI),1,0)
CMAKE_BUILD_TYPE ?= RelWithDebInfo
PREFIX ?= /usr/local
VALGRIND ?= OFF

.PHONY: all modules modules-all userspace userspace-valgrind dkms-packages deb \
	check check-unit check-middleware check-long check-wire-soak fuzz demo install uninstall clean deps

all: modules userspace

deps:
	scripts/install-deps

modules:
	@[ -n "$(KVER)" ] || { echo "no kernel headers found: run 'make deps'" >&2; exit 1; }
	scripts/build-modules $(KVER) $(WERROR)

modules-all:
	@for k in $(KVERS); do scripts/build-modules $$k $(WERROR) || exit 1; done

# cmake_userspace OUTPUT_DIR VALGRIND: configure and build userspace/ with
# lib/ and bin/ under OUTPUT_DIR (CMake's own tree in OUTPUT_DIR/userspace).
define cmake_userspace
	cmake -S userspace -B $(1)/userspace -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) \
		-DCMAKE_INSTALL_PREFIX=$(PREFIX) -DIBX_WERROR=$(WERROR) \
		-DIBX_VALGRIND=$(2) -DIBX_OUTPUT_DIR=$(1) >/dev/null
	cmake --build $(1)/userspace -j$$(nproc) -- --no-print-directory
	touch $(1)/userspace/built.stamp
endef

userspace:
	$(call cmake_userspace,$(BUILD),$(VALGRIND))

# A second, annotated build that never replaces build/lib: the VM test
# tests/verbs/valgrind-pingpong.vmtest runs Debian's tools on it.
userspace-valgrind:
	$(call cmake_userspace,$(BUILD)/valgrind,ON)

# DKMS binary packages of the modules, one per kernel (see scripts/dkms-package).
dkms-packages:
	@for k in $(KVERS); do scripts/dkms-package $$k || exit 1; done

# The packages for `apt install ./build/deb/*.deb` (see scripts/build-deb).
deb:
	scripts/build-deb

check: modules-all userspace userspace-valgrind dkms-packages deb
	scripts/check $(KVERS)

# The middleware against rxe takes minutes per combination and kernel: it
# runs here, and make check runs the middleware ours-ours.
check-middleware: modules-all userspace
	scripts/check --long --only tests/middleware/ $(KVERS)

check-long: modules-all userspace userspace-valgrind dkms-packages deb
	scripts/check --long $(KVERS)

check-wire-soak: modules-all userspace
	scripts/wire-soak $(KVERS)

check-unit: userspace deb
	scripts/check --unit-only

# The fuzz campaign: 10^7 uverbs commands per kernel (FUZZ_COMMANDS), about
# ten minutes each; make check runs only a smoke of it.
fuzz: modules-all userspace
	scripts/fuzz $(KVERS)

demo:
	scripts/demo

install:
	scripts/install-stack install

uninstall:
	scripts/install-stack uninstall

clean:
	rm -rf $(BUILD)

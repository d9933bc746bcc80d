# cfq-prio: every entry point.  `make help` lists them.
#
# DEBUG=1 builds and boots the debug kernel (KASAN, lockdep, ...) instead of
# the guest kernel.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

DEBUG ?= 0
export DEBUG
FLAVOR := $(if $(filter 1,$(DEBUG)),debug,guest)
KOUT := build/kernel-$(FLAVOR)
IMAGE := build/image/cfq-prio.raw
MKOSI_EXTRA := $(shell find mkosi.extra -type f -o -type l 2>/dev/null)
KVM := $(if $(shell grep -wE 'vmx|svm' /proc/cpuinfo 2>/dev/null | head -1),yes,no)

USERSPACE_SRC := $(wildcard userspace/*.c userspace/*.h userspace/Makefile \
	userspace/ioprio.1 userspace/*completion)

.PHONY: help deps kernel kernel-export kernel-reset kernel-tree headers userspace tools test-progs image qemu \
	check demo bench ab clean distclean

help:
	@echo "cfq-prio: the CFQ I/O priority scheduler on Linux 6.12, in a QEMU guest"
	@echo
	@echo "  make demo          build everything, boot the guest headless and show it"
	@echo "  make check         host tests, then the guest test suite in QEMU"
	@echo "  make qemu          boot the image interactively (also: mkosi qemu)"
	@echo "  make bench         DESIGN.md section 7, measured in one boot"
	@echo "  make ab REVS='A B' cfq-prio at kernel-tree revisions A, B (or work, or a"
	@echo "                     scheduler's .c file) side by side with mq-deadline"
	@echo "                     under P1's load, in one boot"
	@echo
	@echo "  make deps          install the build and run dependencies"
	@echo "  make kernel        extract the kernel, apply kernel/patches, build"
	@echo "  make kernel-export write the kernel tree's commits to kernel/patches/"
	@echo "  make kernel-reset  reset the kernel tree to the series in kernel/patches/"
	@echo "  make headers       install the patched uapi headers into build/headers/"
	@echo "  make userspace     build the ioprio command against them"
	@echo "  make tools         build the patched coreutils, bsdutils, util-linux and procps .debs"
	@echo "  make image         build the Debian bookworm image with mkosi"
	@echo "  make clean         remove build outputs, keep the kernel tree"
	@echo "  make distclean     remove build/ entirely"
	@echo
	@echo "  DEBUG=1            use the debug kernel (KASAN, lockdep, list debugging)"

deps:
	@scripts/deps.sh all

kernel-tree:
	@scripts/deps.sh kernel
	@scripts/kernel.sh tree

kernel:
	@scripts/deps.sh kernel
	@scripts/kernel.sh build

kernel-export:
	@scripts/kernel.sh export

kernel-reset:
	@scripts/kernel.sh reset

headers:
	@scripts/deps.sh kernel
	@scripts/kernel.sh headers

userspace: headers
	@$(MAKE) --no-print-directory -s -C userspace O=$(CURDIR)/build/userspace \
		HEADERS=$(CURDIR)/build/headers/include

# The distribution's nice, renice, ionice and ps with procps-patch/ applied,
# as .debs in build/tools/debs/ (cached under ~/.cache/cfq-prio/tools/).
tools:
	@scripts/deps.sh tools
	@scripts/tools.sh build

# Test programs the guest runs from the shared tree.
TEST_PROGS := build/tests/ioprio-probe
test-progs: headers
	@scripts/deps.sh host
	@$(MAKE) --no-print-directory $(TEST_PROGS)

build/tests/ioprio-probe: tests/guest/ioprio-probe.c build/headers/include/linux/ioprio.h
	@mkdir -p $(@D)
	$(CC) -Wall -Wextra -Werror -O2 -isystem build/headers/include -o $@ $< \
		-Wl,-Bstatic -luring -Wl,-Bdynamic -lpthread

image: kernel userspace tools
	@$(MAKE) --no-print-directory $(IMAGE)

# The image carries the modules of every flavor built so far.
$(IMAGE): $(KOUT)/build-id $(wildcard build/kernel-*/build-id) build/userspace/ioprio mkosi.conf $(MKOSI_EXTRA) $(USERSPACE_SRC) build/tools/debs.list
	@scripts/deps.sh image
	@scripts/image.sh build

qemu: image
	@scripts/deps.sh qemu
	@echo "qemu: booting $$(cat $(KOUT)/release) with mkosi; leave with Ctrl-a x"
	mkosi --qemu-kernel=$(KOUT)/bzImage --qemu-kvm=$(KVM) qemu

check:
	@scripts/deps.sh all
	@tests/check.sh

demo: image
	@scripts/deps.sh qemu plot
	@scripts/vm.sh demo

bench: image test-progs
	@scripts/deps.sh qemu plot
	@TIMEOUT=$${TIMEOUT:-2400} scripts/vm.sh bench
	@echo "bench: P1 instructions per I/O, in a second boot (one vCPU, QEMU -icount)"
	@ACCEL=icount SMP=1 TIMEOUT=1500 scripts/vm.sh script tests/bench/instructions.sh
	@{ echo; cat build/script/instructions.txt; } >>build/bench/report.txt

ab: image
	@scripts/deps.sh qemu
	@scripts/ab.sh $(REVS)

clean:
	rm -rf build/kobj-* build/kernel-* build/image build/image-tree \
		build/headers build/userspace build/tools build/apt \
		build/check build/demo build/bench build/*.log build/check-*.txt

distclean:
	rm -rf build

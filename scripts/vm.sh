#!/bin/bash
# Boot the image headless with our kernel and run one mode inside it.
#
#   scripts/vm.sh MODE        MODE: check, demo or bench
#   scripts/vm.sh script FILE run FILE (a path in the project) in the guest
#
# The project tree is shared read-only (9p tag cfqsrc), build/MODE/ is the
# results folder (tag cfqout).  The root disk is used as a snapshot, so runs
# never change the image; a fresh 1 GiB virtio-blk scratch disk (serial
# cfq-scratch) is attached for tests that write.  The console goes to
# build/MODE/console.log; the guest's own log is streamed as it grows.
#
# demo and bench: scripts/plot.py then draws the pictures from the data the
# guest wrote (build/demo/shares.png; build/bench/*.png and report.md).
#
# Environment: DEBUG=1 boots the debug kernel; TIMEOUT=seconds bounds the
# whole run (default 2400); CFQ_TESTS=regex picks guest tests; ACCEL=kvm or
# tcg overrides the choice of accelerator; ACCEL=icount runs one emulation
# thread whose guest clock counts instructions (1 ns each), so that time in
# the guest measures work, not the host's load; SMP=n sets the vCPUs (2).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
mode=${1:?usage: vm.sh check|demo|bench|script FILE}
script=
if [ "$mode" = script ]; then
	script=${2:?usage: vm.sh script FILE}
	[ -x "$top/$script" ] || { echo "vm: error: $script is not an executable file of the project" >&2; exit 1; }
fi
flavor=guest
[ "${DEBUG:-0}" = 1 ] && flavor=debug
kdir=$build/kernel-$flavor
image=$build/image/cfq-prio.raw
out=$build/$mode
limit=${TIMEOUT:-2400}

say() { printf 'vm: %s\n' "$*" >&2; }
die() { printf 'vm: error: %s\n' "$*" >&2; exit 1; }

[ -f "$kdir/bzImage" ] || die "no kernel in ${kdir#"$top"/} (run: make kernel${DEBUG:+ DEBUG=$DEBUG})"
[ -f "$image" ] || die "no image at ${image#"$top"/} (run: make image)"
[ -d "$build/image-tree/usr/lib/modules/$(cat "$kdir/release")" ] ||
	die "the image lacks the modules of $(cat "$kdir/release") (run: make image)"
[ "$image" -nt "$kdir/bzImage" ] ||
	die "the image is older than the kernel, its modules would not match (run: make image)"

# KVM only where the CPU offers it and a guest really boots with it; plain
# emulation otherwise (nested virtualization does not work on our machines).
accel=${ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
		accel=kvm
	fi
fi

root_uuid=$(sfdisk -J "$image" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["partitiontable"]["partitions"]:
    if p["type"].upper() == "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709":
        print(p["uuid"])
        break')
[ -n "$root_uuid" ] || die "no x86-64 root partition in ${image#"$top"/}"

boot() {
	local accel_opt
	case $1 in
	kvm) accel_opt=kvm ;;
	icount) accel_opt="tcg,thread=single -icount shift=0,sleep=off" ;;
	*) accel_opt=tcg,thread=multi ;;
	esac
	rm -rf "$out"
	mkdir -p "$out"
	truncate -s 1G "$out/scratch.img"
	{
		echo "EXPECT_RELEASE=$(cat "$kdir/release")"
		echo "EXPECT_BUILD_ID=$(cat "$kdir/build-id")"
		echo "CFQ_TESTS='${CFQ_TESTS:-}'"
	} >"$out/env"
	[ -z "$script" ] || echo "$script" >"$out/script"
	# tsc=reliable: under emulation the clocksource watchdog sees the TSC
	# skew against the emulated HPET when the host is loaded and switches
	# to the HPET, whose every read is an emulated device access; that
	# would change timings in the middle of a run.  The TSC QEMU gives is
	# monotonic and the same on every vCPU.
	say "booting $(cat "$kdir/release") ($1) for '$mode', at most $limit s; console: ${out#"$top"/}/console.log"
	timeout -k 10 "$limit" qemu-system-x86_64 \
		-machine q35 -accel $accel_opt -cpu max -smp "${SMP:-2}" -m 2G \
		-nodefaults -nographic -no-reboot \
		-serial "file:$out/console.log" -monitor none \
		-kernel "$kdir/bzImage" \
		-append "root=PARTUUID=$root_uuid rw console=ttyS0 loglevel=5 panic=-1 tsc=reliable systemd.firstboot=off systemd.show_status=error cfqprio.run=$mode ${CMDLINE:-}" \
		-object rng-random,filename=/dev/urandom,id=rng0 \
		-device virtio-rng-pci,rng=rng0 \
		-device virtio-scsi-pci,id=scsi \
		-drive "if=none,id=root,file=$image,format=raw,snapshot=on" \
		-device scsi-hd,drive=root \
		-drive "if=none,id=scratch,file=$out/scratch.img,format=raw,cache=unsafe" \
		-device virtio-blk-pci,drive=scratch,serial=cfq-scratch \
		-virtfs "local,path=$top,mount_tag=cfqsrc,security_model=none,readonly=on" \
		-virtfs "local,path=$out,mount_tag=cfqout,security_model=none" \
		</dev/null &
	local qpid=$! shown=0 n poll=2 live=
	# Stream the guest's log (build/MODE/log, which the guest writes over
	# 9p) while it runs, on fd 3.  The demo's table gains a row each second:
	# when our output is a terminal, scripts/livetable.py redraws it in place
	# there; otherwise (pipes, files, CI) the rows stay plain lines, as in
	# the log itself.
	exec 3>&2
	if [ "$mode" = demo ]; then
		poll=0.25
		if [ -t 1 ] && [ -t 2 ] && [ "${TERM:-dumb}" != dumb ]; then
			exec 3> >("$top/scripts/livetable.py" >&2)
			live=$!
		fi
	fi
	while kill -0 $qpid 2>/dev/null; do
		sleep $poll
		if [ -f "$out/log" ]; then
			n=$(wc -l <"$out/log")
			if [ "$n" -gt "$shown" ]; then
				sed -n "$((shown + 1)),${n}p" "$out/log" >&3
				shown=$n
			fi
		fi
	done
	local rc=0
	wait $qpid || rc=$?
	[ ! -f "$out/log" ] || sed -n "$((shown + 1)),\$p" "$out/log" >&3
	exec 3>&-
	[ -z "$live" ] || wait "$live" || true
	return $rc
}

rc=0
boot $accel || rc=$?
if [ $accel = kvm ] && [ ! -f "$out/started" ]; then
	say "the guest did not start under KVM: falling back to emulation"
	rc=0
	boot tcg || rc=$?
fi
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	die "the guest did not finish within $limit s and was stopped; console log: ${out#"$top"/}/console.log"
fi
if [ ! -f "$out/started" ]; then
	tail -n 20 "$out/console.log" >&2 || true
	die "the guest did not boot to the test service (qemu exit $rc); console log: ${out#"$top"/}/console.log"
fi
if [ ! -f "$out/status" ]; then
	tail -n 20 "$out/console.log" >&2 || true
	die "the guest stopped before '$mode' finished (qemu exit $rc); console log: ${out#"$top"/}/console.log"
fi
case $mode in
demo | bench)
	if [ -f "$out/shares.csv" ] || [ -f "$out/results.csv" ]; then
		"$top/scripts/plot.py" "$mode" "$out" >&2 || die "drawing the pictures from ${out#"$top"/} failed"
	else
		say "no data for pictures in ${out#"$top"/}"
	fi
	;;
esac
exit "$(cat "$out/status")"

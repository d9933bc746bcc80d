#!/bin/bash
# make demo: what the guest runs, shown inside the guest (cfqprio.run=demo).
set -u
. "$CFQ_SRC/tests/guest/common.sh"

section() { printf '\n--- %s\n' "$*"; }

section "kernel"
uname -a
printf 'cmdline: %s\n' "$(cat /proc/cmdline)"

section "disks and their I/O schedulers"
for q in /sys/block/*/queue/scheduler; do
	d=${q#/sys/block/}; d=${d%%/*}
	printf '%-10s %-28s %s\n' "$d" "$(cat "$q")" "$(cat /sys/block/$d/device/model 2>/dev/null || cat /sys/block/$d/device/serial 2>/dev/null)"
done

section "a null_blk test device with 1 ms completions"
if nullb_create demo0 irqmode=2 completion_nsec=1000000 hw_queue_depth=2 size=256; then
	printf '/dev/demo0 offers: %s\n' "$(cat /sys/block/demo0/queue/scheduler)"
	for s in $(sched_offered demo0); do
		sched_set demo0 "$s" || continue
		iops=$(fio --name=demo --filename=/dev/demo0 --direct=1 --ioengine=libaio \
			--iodepth=4 --rw=randread --bs=4k --runtime=2 --time_based \
			--output-format=terse --terse-version=3 2>/dev/null | cut -d';' -f8)
		printf '  %-12s 4k random reads, depth 4, 2 s: %s IOPS\n' "$s" "${iops:-?}"
	done
	nullb_remove demo0
fi

section "I/O priority of this shell"
ionice -p $$

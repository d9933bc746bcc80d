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
	case $d in loop*|ram*) continue ;; esac
	printf '%-10s %-28s %s\n' "$d" "$(cat "$q")" "$(cat /sys/block/$d/device/model 2>/dev/null || cat /sys/block/$d/serial 2>/dev/null)"
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
	echo 128 >/sys/block/demo0/queue/nr_requests 2>/dev/null
	if sched_set demo0 cfq-prio; then
		section "cfq-prio at work: readers at levels 15 and 4 share the device 16:5"
		lv=/sys/kernel/debug/block/demo0/sched/levels
		for l in 15 4; do
			ioprio -n $l -- fio --name=l$l --filename=/dev/demo0 --direct=1 \
				--ioengine=libaio --iodepth=8 --rw=randread --bs=4k \
				--runtime=9 --time_based --output=/dev/null &
		done
		# Count while both run: fio takes a moment to start, and the
		# one that starts first has the device to itself until then.
		sleep 3
		a=$(cat $lv)
		sleep 4
		b=$(cat $lv)
		wait
		printf '%s\n%s\n' "$a" "$b" | awk '
			$1 == 15 || $1 == 4 { if ($1 in d0) d[$1] = $8 - d0[$1]; else d0[$1] = $8 }
			END {
				printf "  over 4 s: level 15 dispatched %d, level 4 %d requests\n", d[15], d[4]
				if (d[4]) printf "  ratio 15:4 = %.2f (the levels promise %.2f)\n", d[15] / d[4], 16 / 5
			}'
	fi
	nullb_remove demo0
fi

section "I/O priority levels"
printf 'kernel.ioprio_from_nice = %s\n' "$(cat /proc/sys/kernel/ioprio_from_nice)"
ioprio -p $$
nice -n 5 ioprio
ioprio -n 17 ioprio
ionice -c2 -n0 ioprio

# --- the patched tools: renice --io on running readers, seen by ps and by
# cfq-prio's counters (a self-contained block).
section "renice --io: two readers at level 10, then one at 19 (20:11)"
if nullb_create demo1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2 size=256 &&
	sched_set demo1 cfq-prio; then
	echo 128 >/sys/block/demo1/queue/nr_requests
	lv1=/sys/kernel/debug/block/demo1/sched/levels
	for j in a b; do
		fio --name=$j --filename=/dev/demo1 --direct=1 --ioengine=libaio --iodepth=16 \
			--rw=randread --bs=4k --runtime=14 --time_based --output=/dev/null &
	done
	sleep 3
	# fio forks a worker per job: the worker reads.
	w=$(pgrep -x fio | while read -r p; do pgrep -P "$p" -x fio; done | sort -n | paste -sd,)
	wb=${w##*,}
	printf '$ ps -o pid,ioprio,ni,cmd -p %s\n' "$w"
	ps -o pid,ioprio,ni,cmd -p "$w"
	# share LEVEL...: requests each level dispatched over 3 s
	share() {
		local a b
		a=$(cat $lv1)
		sleep 3
		b=$(cat $lv1)
		printf '%s\n%s\n' "$a" "$b" | awk -v want="$*" '
			BEGIN { n = split(want, l, " "); for (i = 1; i <= n; i++) w[l[i]] = 1 }
			$1 == "level" { for (i = 1; i <= NF; i++) if ($i == "dispatched") c = i; next }
			$1 in w { if ($1 in d0) d[$1] = $c - d0[$1]; else d0[$1] = $c }
			END { for (i = 1; i <= n; i++) printf "  over 3 s: level %d dispatched %d requests\n", l[i], d[l[i]]
			      if (n == 2 && d[l[2]]) printf "  ratio %d:%d = %.2f (the levels promise %.2f)\n",
					l[1], l[2], d[l[1]] / d[l[2]], (l[1] + 1) / (l[2] + 1) }'
	}
	share 10
	printf '$ renice --io 19 -p %s\n' "$wb"
	renice --io 19 -p "$wb"
	printf '$ ps -o pid,ioprio,ni,cmd -p %s\n' "$w"
	ps -o pid,ioprio,ni,cmd -p "$w"
	sleep 1
	share 19 10
	wait
	nullb_remove demo1
fi

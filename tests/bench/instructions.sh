#!/bin/bash
# The second half of make bench: P1's load (4 KiB random reads on null_blk
# 'fast', io_uring, 2 jobs x depth 32) in a guest booted with one vCPU under
# QEMU -icount (scripts/vm.sh ACCEL=icount SMP=1), where guest time counts
# executed instructions, 1 ns each.  The CPU never idles under this load, so
# nanoseconds of guest time per I/O are the instructions per I/O of the whole
# guest (fio, kernel and scheduler), as perf stat -a would count them on a
# CPU with a PMU.  They do not depend on the host's load: two windows of one
# scheduler agree to about 0.1 %, where P1's IOPS under multi-threaded
# emulation move 10-20 % from one second to the next.
#
# Each scheduler gets a 1 s window after 0.5 s, in $INSN_ROUNDS rounds whose
# order is reversed every other round.  Writes $CFQ_OUT/instructions.txt,
# with one machine-readable line per scheduler:
#
#   insn: SCHEDULER INSTRUCTIONS-PER-I/O IDLE-PERCENT
set -u
export LC_ALL=C
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/bench/p1-load.sh"
INSN_ROUNDS=3
dev=fast
out=$CFQ_OUT/instructions.txt
samples=$CFQ_OUT/instructions-samples
: >"$samples"

# busy and all USER_HZ ticks of the CPU so far
ticks() {
	local cpu user nice sys idle iowait irq softirq steal rest
	read -r cpu user nice sys idle iowait irq softirq steal rest </proc/stat
	echo $((user + nice + sys + irq + softirq + steal)) $((user + nice + sys + idle + iowait + irq + softirq + steal))
}

nullb_create $dev irqmode=1 hw_queue_depth=64 submit_queues=1 size=65536 ||
	{ echo "insn: error: cannot make null_blk device $dev"; exit 1; }
scheds=()
for s in none mq-deadline kyber bfq cfq-prio; do
	case " $(sched_offered $dev) " in *" $s "*) scheds+=("$s") ;; esac
done
echo none >/sys/block/$dev/queue/scheduler
p1_load_start $dev insn || { echo "insn: error: fio did not start"; exit 1; }
fpid=$P1_LOAD_PID
for ((r = 1; r <= INSN_ROUNDS; r++)); do
	order=("${scheds[@]}")
	((r % 2)) || mapfile -t order < <(printf '%s\n' "${scheds[@]}" | tac)
	for s in "${order[@]}"; do
		echo "$s" >/sys/block/$dev/queue/scheduler || { echo "insn: error: cannot select $s"; kill $fpid; exit 1; }
		sleep 0.5
		# The reads and the clock are taken next to each other, the
		# CPU ticks (a subshell) outside the window.
		read -r ba ta < <(ticks)
		read -r a _ </sys/block/$dev/stat
		t0=$EPOCHREALTIME
		sleep 1
		read -r b _ </sys/block/$dev/stat
		t1=$EPOCHREALTIME
		read -r bb tb < <(ticks)
		echo "$r $s $((b - a)) $t0 $t1 $((bb - ba)) $((tb - ta))" >>"$samples"
	done
	echo "insn: round $r of $INSN_ROUNDS done"
done
kill -INT $fpid
wait $fpid
echo none >/sys/block/$dev/queue/scheduler
nullb_remove $dev

python3 - "$samples" "${scheds[@]}" >"$out" <<'PY'
import statistics, sys
ns, idle = {}, {}
for line in open(sys.argv[1]):
    r, s, ios, t0, t1, busy, total = line.split()
    if int(ios):
        ns.setdefault(s, []).append((float(t1) - float(t0)) * 1e9 / int(ios))
        idle.setdefault(s, []).append(100.0 * (1 - int(busy) / max(int(total), 1)))
print('P1 instructions per I/O: one vCPU under QEMU -icount (guest time counts instructions, 1 ns each);')
print('  the whole guest (fio, kernel, scheduler) per read, median of %d windows of 1 s' %
      max(len(v) for v in ns.values()))
print('  %-12s %10s %12s %7s' % ('scheduler', 'insn/I/O', 'spread', 'idle %'))
for s in sys.argv[2:]:
    if s not in ns:
        print('  %-12s (not measured)' % s)
        continue
    v = ns[s]
    m = statistics.median(v)
    print('  %-12s %10.0f %11.2f%% %7.1f' % (s, m, 100 * (max(v) - min(v)) / m,
                                              statistics.median(idle[s])))
for o in ('mq-deadline', 'none', 'bfq'):
    if o in ns and 'cfq-prio' in ns:
        print('  cfq-prio / %-11s %.3f (instructions per I/O; below 1 is fewer)' % (
            o, statistics.median(ns['cfq-prio']) / statistics.median(ns[o])))
for s in sys.argv[2:]:
    if s in ns:
        print('insn: %s %.0f %.1f' % (s, statistics.median(ns[s]), statistics.median(idle[s])))
PY
cat "$out"

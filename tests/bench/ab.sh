#!/bin/bash
# The guest's half of make ab (scripts/ab.sh): loads the modules of
# build/ab/ (elevators cfq-a, cfq-b, ...) and measures them under P1's load
# (4 KiB random reads on null_blk 'fast', io_uring, 2 jobs x depth 32),
# side by side with mq-deadline.  Two fio runs; in each, the scheduler is
# switched under the run in $AB_ROUNDS rounds, each scheduler 1 s after
# 0.5 s, in an order reversed every other round.  A round starts on "none",
# unmeasured, so that every window follows a switch: the last scheduler of
# a round would otherwise go on into the next round's first window, and
# such a window measured 7-10 % faster than one after a switch.  The ratios
# are taken within a round, then their median over the rounds, per run and
# over both.
set -u
export LC_ALL=C
ab=$CFQ_SRC/build/ab
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/bench/p1-load.sh"
AB_ROUNDS=20
. "$ab/config"
dev=fast

for m in "$ab"/cfqab_*.ko; do
	insmod "$m" || { echo "ab: cannot load ${m##*/}"; exit 1; }
done
nullb_create $dev irqmode=1 hw_queue_depth=64 submit_queues=1 size=65536 ||
	{ echo "ab: cannot make null_blk device $dev"; exit 1; }
scheds=(mq-deadline $(sed 's/ .*//' "$ab/revisions"))
echo "ab: schedulers: ${scheds[*]}; revisions:"
sed 's/^/ab:   /' "$ab/revisions"
samples=$CFQ_OUT/ab-samples
: >"$samples"
t0=$(date +%s)
for run in 1 2; do
	echo none >/sys/block/$dev/queue/scheduler
	p1_load_start $dev ab || { echo "ab: fio did not start"; exit 1; }
	fpid=$P1_LOAD_PID
	sleep 1
	for ((r = 1; r <= AB_ROUNDS; r++)); do
		order=("${scheds[@]}")
		((r % 2)) || mapfile -t order < <(printf '%s\n' "${scheds[@]}" | tac)
		echo none >/sys/block/$dev/queue/scheduler
		for s in "${order[@]}"; do
			echo "$s" >/sys/block/$dev/queue/scheduler ||
				{ echo "ab: cannot select $s"; kill $fpid; exit 1; }
			sleep 0.5
			read -r a _ </sys/block/$dev/stat
			ta=$EPOCHREALTIME
			sleep 1
			read -r b _ </sys/block/$dev/stat
			echo "$run $r $s $((b - a)) $ta $EPOCHREALTIME" >>"$samples"
		done
		echo "ab: run $run round $r of $AB_ROUNDS done ($(($(date +%s) - t0)) s)"
	done
	kill -INT $fpid
	wait $fpid
done
echo none >/sys/block/$dev/queue/scheduler
nullb_remove $dev

python3 - "$samples" "${scheds[@]}" <<'PY'
import statistics, sys
rounds = {}
for line in open(sys.argv[1]):
    run, r, s, ios, t0, t1 = line.split()
    rounds.setdefault((run, r), {})[s] = int(ios) / (float(t1) - float(t0))
scheds = sys.argv[2:]
def ratios(a, b, run=None):
    return sorted(v[a] / v[b] for k, v in rounds.items()
                  if a in v and b in v and run in (None, k[0]))
def q(x, p):
    return x[min(len(x) - 1, int(p * len(x)))]
print('ab: IOPS, median over rounds:', ', '.join(
    '%s %.0f' % (s, statistics.median(v[s] for v in rounds.values() if s in v)) for s in scheds))
print('ab: %-24s %6s %6s %6s   %s' % ('ratio', 'run 1', 'run 2', 'both', 'quartiles (both)'))
for i, a in enumerate(scheds[1:], 1):
    for b in scheds[:i]:
        x = ratios(a, b)
        print('ab: %-24s %6.3f %6.3f %6.3f   %.3f..%.3f' % (
            '%s / %s' % (a, b), statistics.median(ratios(a, b, '1')),
            statistics.median(ratios(a, b, '2')), statistics.median(x), q(x, .25), q(x, .75)))
PY

# S4 and S9 on a device of many slots that the readers fill: a
# non-rotational null_blk device of 32 slots at its defaults (nr_requests
# 256, slice_idle_us 0), whose completions take 16 ms so that the device and
# not the emulated CPU limits the readers (2000 requests a second at most;
# the readers below at one level did 1,840-1,890 in one boot).  At 8 ms they
# did 3,280-3,720 of 4,000 in that boot, the level-15 reader, which needs
# 15.5 of its 16 requests in flight, had 10 to 13 there, and its share was
# 13.0-14.7 of 16 whichever of two revisions of the scheduler ran (14.2-15.3
# at 16 ms); at 4 ms, 5,400 of 8,000.  A device that is not full is shared
# 1:1:1 by design.
# Three readers at levels 15, 10 and 5 that keep 16 requests in flight each
# want 48 slots of 32: they get 16:11:6 within 25%, measured from their own
# completions (fio), with the scheduler's counters beside them; the same
# readers at one level are shown.  Without the wait of slice_idle_us, a
# slot that frees while the level-15 reader is about to send its next
# request went to the lower levels, and the three shared the slots by
# depth, near 1:1:1.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

# The debug kernel's CPU is several times slower: its devices are 10 times.
nsec=16000000 rt_nsec=1000000
case $(uname -r) in *-debug) nsec=160000000 rt_nsec=10000000 ;; esac
SLOW_DEFAULT=1 test_dev many0 completion_nsec=$nsec hw_queue_depth=32
nr=$(cat /sys/block/$dev/queue/nr_requests)
idle=$(tunable $dev slice_idle_us)
echo "# $dev: hw_queue_depth 32, nr_requests $nr, slice_idle_us $idle, rotational $(cat /sys/block/$dev/queue/rotational)"
expect_eq "slice_idle_us is 0 by default on this device" "$idle" 0

depth16="--filename=/dev/$dev --direct=1 --ioengine=libaio --iodepth=16 --rw=randread --bs=4k --size=1G --norandommap --randrepeat=0 --time_based"
set -- $(run_levels mix "$depth16" 15 10 5)
m15=${1:-0} m10=${2:-0} m5=${3:-0}
set -- $(run_levels flat "$depth16" 10 10 10)
f1=${1:-0} f2=${2:-0} f3=${3:-0}
mix=$((m15 + m10 + m5)) flat=$((f1 + f2 + f3))
echo "# mix 15:10:5 IOPS $m15 $m10 $m5 (dispatched $(cat "$tmp/mix.d")); one level $f1 $f2 $f3"
[ "$flat" -gt 0 ] && echo "# the mix does $mix IOPS, the same readers at one level $flat ($((mix * 100 / flat))%)"
judge_16_11_6 "readers at levels 15, 10 and 5 that fill a device of 32 slots" mix $m15 $m10 $m5

# S5 and S9 at the default nr_requests of a device of 32 slots and 1 ms
# (10 under the debug kernel): a real time psync reader beside 8 level-10
# readers that keep 16 requests in flight each, 128 in all.  Starved by the
# reader, they must wait in the scheduler and not asleep in the tag
# allocation, where each slot the reader frees would wake one of them in
# vain on the CPU the reader is about to run on.  Its own p99 (fio) stays
# within 1.5 x of its lower p99 alone (two tries).  At 64 slots, 56 of them
# open to level 10, it was 2.3-2.6 x; at 256, 1.03-1.15 x.
rt_p99() { # OUT: a 6 s real time psync reader on $rdev, its p99 in us
	ioprio -n 20 -- fio --name=rt --filename=/dev/$rdev --direct=1 --ioengine=psync --rw=randread \
		--bs=4k --norandommap --randrepeat=0 --time_based --runtime=6 --ramp_time=1 \
		--output-format=json >"$1" 2>/dev/null
	p99 "$1"
}
rdev=many1
if nullb_create $rdev irqmode=2 completion_nsec=$rt_nsec hw_queue_depth=32 size=1024 &&
	sched_set $rdev cfq-prio; then
	rnr=$(cat /sys/block/$rdev/queue/nr_requests) amin='' ok=0 tries=''
	for _ in 1 2; do
		alone=$(rt_p99 "$tmp/rt-alone.json")
		[ "$alone" -gt 0 ] && { [ -z "$amin" ] || [ "$alone" -lt "$amin" ]; } && amin=$alone
		fio_bg "$tmp/rt-busy" 10 --name=busy --filename=/dev/$rdev --direct=1 --ioengine=libaio \
			--rw=randread --bs=4k --iodepth=16 --numjobs=8 --time_based --runtime=30
		sleep 2
		busy=$(rt_p99 "$tmp/rt-busy.json")
		kill $FIO_PID
		wait
		tries+="${tries:+; }$busy us among them, $alone us alone"
		[ -n "$amin" ] && [ "$busy" -gt 0 ] && [ $((busy * 2)) -le $((amin * 3)) ] && { ok=1; break; }
	done
	if [ $ok = 1 ]; then
		pass "on a device of 32 slots at its default nr_requests ($rnr), a real time psync reader keeps its p99 within 1.5 x of alone beside 8 readers of depth 16 ($tries)"
	else
		fail "on a device of 32 slots at its default nr_requests ($rnr), a real time psync reader keeps its p99 within 1.5 x of alone beside 8 readers of depth 16 (two tries)" "$tries"
	fi
	nullb_remove $rdev
else
	fail "null_blk device of 32 slots and 1 ms running cfq-prio"
fi
done_testing

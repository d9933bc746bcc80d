# S4 and S9 on a device of many slots that the readers fill: a
# non-rotational null_blk device of 32 slots at its defaults (nr_requests
# 64, slice_idle_us 0), whose completions take 4 ms so that the device and
# not the emulated CPU limits the readers (8000 requests a second at most).
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

# The debug kernel's CPU is several times slower: its device is 10 times.
nsec=4000000
case $(uname -r) in *-debug) nsec=40000000 ;; esac
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
done_testing

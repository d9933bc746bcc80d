# The grace timers under stress (S5, S6, S4's slice_idle_us wait): real time
# readers whose think time is near grace_rt_ms (10 ms), so that a completion
# re-arms the real time timer while its callback runs on the other vCPU,
# beside a busy level-10 reader (the others' turn after each grace), a
# psync level-15 reader (the wait for a level whose process thinks) and an
# idle reader (the idle timer).  Every reader makes progress, nothing is left
# queued or in flight afterwards, and the kernel log stays clean; under the
# debug kernel (hrtimer and list debugging, lockdep) this is the race test of
# the timers' re-arming.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

test_dev stress0
RUNTIME=20
opts="--filename=/dev/$dev --direct=1 --rw=randread --bs=4k --size=4G --time_based --runtime=$RUNTIME"
mark=$(kmsg_mark)
before=$(levels $dev)
pids=()
fio_bg "$tmp/ten" 10 --name=ten $opts --ioengine=libaio --iodepth=8
pids+=($FIO_PID)
fio_bg "$tmp/fifteen" 15 --name=fifteen $opts --ioengine=psync
pids+=($FIO_PID)
fio_bg "$tmp/idle" 0 --name=idle $opts --ioengine=libaio --iodepth=2
pids+=($FIO_PID)
i=0
for think in 9000 10000 11000; do
	i=$((i + 1))
	fio_bg "$tmp/rt$i" 20 --name=rt$i $opts --ioengine=psync --thinktime=$think
	pids+=($FIO_PID)
done

# fio ends by itself after RUNTIME; a reader still running 60 s later is
# stuck behind a timer that never fired.
end=$((SECONDS + RUNTIME + 60))
stuck=
for p in "${pids[@]}"; do
	while ! ended "$p"; do
		[ $SECONDS -lt $end ] || { stuck=1; break 2; }
		sleep 0.5
	done
done
if [ -n "$stuck" ]; then
	fail "every reader ends by itself ($RUNTIME s) with real time think times near grace_rt_ms" \
		"still running $((RUNTIME + 60)) s after the start" "$(sched_dump $dev)"
	kill -9 "${pids[@]}" 2>/dev/null
	done_testing
fi
wait
pass "every reader ends by itself ($RUNTIME s) with real time think times near grace_rt_ms"

after=$(levels $dev)
d20=$(delta "$before" "$after" 20 dispatched)
d15=$(delta "$before" "$after" 15 dispatched)
d10=$(delta "$before" "$after" 10 dispatched)
d0=$(delta "$before" "$after" 0 dispatched)
# Real time: 3 readers at about 1 request per 11 ms each.  Level 15 and 10
# get the device when a grace ends before the next real time request, and
# at the latest through S5a's aging.
if [ "$d20" -gt 1000 ] && [ "$d15" -gt 0 ] && [ "$d10" -gt 0 ]; then
	pass "real time, level 15 and level 10 make progress ($d20, $d15 and $d10 requests; idle $d0)"
else
	fail "real time, level 15 and level 10 make progress" \
		"dispatched over $RUNTIME s: level 20 $d20, level 15 $d15, level 10 $d10, idle $d0"
fi

if wait_for 10 eval '[ -z "$(settled "$(levels $dev)" 0 10 15 20)" ]'; then
	pass "nothing is left queued, listed or in flight afterwards"
else
	fail "nothing is left queued, listed or in flight afterwards" \
		"$(settled "$(levels $dev)" 0 10 15 20)" "$(sched_dump $dev)"
fi

bad=$(kmsg_since "$mark" | grep -E "$KMSG_BAD|hrtimer" | head -20)
if [ -z "$bad" ]; then
	pass "no warning or timer report in the kernel log"
else
	fail "no warning or timer report in the kernel log" "$bad"
fi
done_testing

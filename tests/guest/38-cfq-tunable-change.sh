# S10: a tunable change takes effect at once and never stalls dispatch.
# Raising grace_rt_ms (to its maximum, 1000) while a level-10 reader runs,
# after the old grace period has ended, holds that reader back until the new
# one ends (the last real time completion plus the new grace), and then it
# goes on by itself:
# nothing else is inserted meanwhile, so only a timer can end the wait.
# With quantum 1 the dispatch list holds one request at a time, so no
# refill of the list happens after the raise either.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

test_dev tun1
tunable $dev grace_rt_ms 1
tunable $dev quantum 1
fio_bg "$tmp/l10" 10 --name=l10 --filename=/dev/$dev --direct=1 --ioengine=libaio \
	--rw=randread --bs=4k --size=64M --iodepth=8 --time_based --runtime=30
wait_for 20 dispatched $dev 10
# One real time read: its grace (1 ms) is over long before the raise.
ioprio -n 20 -- dd if=/dev/$dev of=/dev/null bs=4k count=1 iflag=direct status=none
sleep 0.2
tunable $dev grace_rt_ms 1000
t0=$(date +%s%N)
a=$(levels $dev)
sleep 0.5
b=$(levels $dev)
expect_eq "grace_rt_ms reads back 1000" 1000 "$(tunable $dev grace_rt_ms)"
# The grace ends at most 1 s after the raise; give it 2 more.
resumed=
for _ in $(seq 25); do
	sleep 0.1
	c=$(levels $dev)
	if [ "$(delta "$b" "$c" 10 dispatched)" -gt 0 ]; then
		resumed=$((($(date +%s%N) - t0) / 1000000))
		break
	fi
done
tunable $dev grace_rt_ms 10
tunable $dev quantum 6
kill $FIO_PID 2>/dev/null
wait
held=$(delta "$a" "$b" 10 dispatched)
if [ -n "$resumed" ] && [ "$held" -le 4 ]; then
	pass "a grace_rt_ms raised to 1000 after the old grace ended holds level 10 back ($held dispatched in the 0.5 s after) and ends by itself ($resumed ms after the raise)"
else
	fail "a grace_rt_ms raised to 1000 after the old grace ended holds level 10 back and ends by itself" \
		"level 10 dispatched $held in the 0.5 s after the raise; resumed: ${resumed:-no, within 3 s}"
fi
done_testing

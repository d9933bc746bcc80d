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
# One real time read: its grace (1 ms) is over long before the raise, which
# comes right after it (no fork between them), well inside the new grace.
# The judgement uses the block trace's clock, with a marker at the raise,
# so that a slow shell (the debug kernel takes a second for a few forks)
# cannot move it: from the raise to the real time completion plus 1000 ms
# at most 2 level-10 requests are issued (the one quantum 1 may have listed,
# and one the block layer may hold for a driver tag), and the first one
# after that comes within 100 ms.
trace_start $dev block_rq_issue block_rq_complete
ioprio -n 20 -- dd if=/dev/$dev of=/dev/null bs=4k count=1 iflag=direct status=none
tunable $dev grace_rt_ms 1000
echo cfq-prio-raise >$TRACEFS/trace_marker
expect_eq "grace_rt_ms reads back 1000" 1000 "$(tunable $dev grace_rt_ms)"
sleep 2.5
trace_stop
trace_lines >"$tmp/trace"
tunable $dev grace_rt_ms 10
tunable $dev quantum 6
kill $FIO_PID 2>/dev/null
wait
# "RAISE-AFTER-COMPLETION HELD-ISSUES RESUMED-AFTER-GRACE" in ms; a
# tracing_mark_write line carries the marker.
r=$(awk "$AWK_LEVEL$AWK_FIELDS"'
	/cfq-prio-raise/ { raise = $1; next }
	lv == 20 && ev == "rq_complete" { done = $1 }
	raise && done && lv == 10 && ev == "rq_issue" {
		if ($1 < done + 1.0) held++
		else if (resumed == "") resumed = ($1 - done - 1.0) * 1000
	}
	END {
		if (!raise || !done) { print "none"; exit }
		printf "%.0f %d %s\n", (raise - done) * 1000, held, resumed == "" ? "never" : sprintf("%.1f", resumed)
	}' "$tmp/trace")
set -- $r
if [ "$1" = none ]; then
	fail "a grace_rt_ms raised to 1000 after the old grace ended holds level 10 back and ends by itself" \
		"no real time completion or no marker in the trace ($(wc -l <"$tmp/trace") records)"
elif [ "$1" -ge 900 ]; then
	skip "a grace_rt_ms raised to 1000 after the old grace ended holds level 10 back and ends by itself" \
		"the raise came $1 ms after the real time completion, too late to see a hold"
elif [ "$2" -le 2 ] && [ "$3" != never ] && within "$3" 0 100; then
	pass "a grace_rt_ms raised to 1000 after the old grace ended holds level 10 back (raised $1 ms after the real time completion, $2 level-10 issues until 1000 ms after it) and ends by itself ($3 ms later)"
else
	fail "a grace_rt_ms raised to 1000 after the old grace ended holds level 10 back and ends by itself" \
		"raised $1 ms after the real time completion; level-10 issues before its end: $2; first after: ${3} ms" \
		"trace: $(keep "$tmp/trace" trace)"
fi
done_testing

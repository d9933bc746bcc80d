# S9: request limits.  A process whose queue holds 'queued' requests may only
# take nr_requests * (level + 1) / 21 of the scheduler tags, so a flood of
# level-1 readers cannot take every request slot, and a level-19 reader
# never waits for one.  A read waits for a slot when its task sleeps
# (sched_switch with prev_state D) between the bio's block_bio_queue and
# block_getrq trace events: tag allocation sleeps there; the slots a queue holds come from the scheduler's debugfs
# 'queues' file and the tags in use from blk-mq's sched_tags.  A control run
# with the limit out of reach (queued at its maximum) shows that the flood
# would otherwise take every slot and make the reader wait.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

nr=64
procs=2
test_dev lim0
if ! echo $nr >/sys/block/$dev/queue/nr_requests; then
	fail "cfq-prio takes nr_requests $nr"
	done_testing
fi
sched=/sys/kernel/debug/block/$dev/sched
tags=/sys/kernel/debug/block/$dev/hctx0/sched_tags
reads=300

# reader: the level-19 reader, dd doing $reads 4 KiB direct reads one at a
# time, traced; prints its IOPS.
reader() {
	local start end
	trace_start $dev block_bio_queue block_getrq
	echo 'prev_comm == "dd"' >$TRACEFS/events/sched/sched_switch/filter
	echo 1 >$TRACEFS/events/sched/sched_switch/enable
	start=$(date +%s%N)
	ioprio -n 19 -- dd if=/dev/$dev of=/dev/null bs=4k count=$reads iflag=direct status=none
	end=$(date +%s%N)
	trace_stop
	trace_lines | grep -E ' \[dd\]$|sched_switch prev_comm=dd ' >"$tmp/trace"
	echo $((reads * 1000000000 / (end - start)))
}

# waits: how many of the reader's reads slept between bio_queue and getrq
# (waited for a request), out of how many, and the longest bio_queue to
# getrq time in ms.
waits() {
	awk '$2 == "bio_queue" { q = $1; slept = 0 }
		$2 == "sched_switch" && q != "" && / prev_state=D/ { slept = 1 }
		$2 == "getrq" && q != "" { w = ($1 - q) * 1000; n++; if (w > max) max = w
			waited += slept; q = "" }
		END { printf "%d %d %.1f\n", waited, n, max }' "$tmp/trace"
}

# flood_run: $procs level-1 readers of depth 64 each; after 2 s the reader
# runs, and the device is sampled every 0.5 s meanwhile.  Prints the most
# slots the level-1 queues held together and the most tags in use; the
# reader's IOPS go to $tmp/iops and its trace to $tmp/trace.
flood_run() {
	local flood maxslots=0 maxbusy=0 s b
	fio_bg "$tmp/flood" 1 --name=flood --filename=/dev/$dev --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --size=4G --iodepth=64 --numjobs=$procs \
		--time_based --runtime=120
	flood=$FIO_PID
	wait_for 40 dispatched $dev 1
	sleep 2
	reader >"$tmp/iops" &
	while kill -0 $! 2>/dev/null; do
		s=$(awk '$2 == 1 { n += $6 } END { print n + 0 }' $sched/queues)
		b=$(sed -n 's/^busy=//p' $tags)
		[ "$s" -le $maxslots ] || maxslots=$s
		[ "$b" -le $maxbusy ] || maxbusy=$b
		sleep 0.5
	done
	kill $flood
	wait
	echo "$maxslots $maxbusy"
}

alone=$(reader)
set -- $(waits)
echo "# alone: $alone IOPS; waits $*"

# Control: the limit out of reach.
tunable $dev queued 2048
set -- $(flood_run)
ctl_slots=$1 ctl_busy=$2 ctl_iops=$(cat "$tmp/iops")
set -- $(waits)
ctl_slow=$1 ctl_n=$2 ctl_max=$3
# Sampled every 0.5 s, the tags in use may be caught with one or two of them
# between completion and reallocation.
if [ "$ctl_busy" -ge $((nr - procs)) ] && [ "$ctl_slow" -gt 0 ]; then
	pass "control: without the limit the level-1 flood takes (nearly) every slot ($ctl_busy of $nr tags) and the level-19 reader waits for one ($ctl_slow of $ctl_n reads; longest $ctl_max ms; $ctl_iops IOPS against $alone alone)"
else
	fail "control: without the limit the level-1 flood takes (nearly) every slot and the level-19 reader waits for one" \
		"tags in use at most $ctl_busy of $nr; level-1 slots at most $ctl_slots" \
		"reader: $ctl_slow of $ctl_n reads waited for a request (longest $ctl_max ms); $ctl_iops IOPS, $alone alone" \
		"without this the checks below prove nothing"
fi

# The rule, at the default 'queued' (4).
tunable $dev queued 4
set -- $(flood_run)
slots=$1 busy=$2 iops=$(cat "$tmp/iops")
set -- $(waits)
slow=$1 n=$2 max=$3
limit=$((nr * 2 / 21))
bound=$((procs * 4 + limit))
if [ "$slots" -le $bound ] && [ "$busy" -lt $nr ]; then
	pass "a level-1 flood of $procs processes holds at most $procs x 4 + $nr x 2 / 21 = $bound slots (at most $slots; $busy of $nr tags in use)"
else
	fail "a level-1 flood of $procs processes holds at most $procs x 4 + $nr x 2 / 21 = $bound slots" \
		"level-1 slots at most $slots; tags in use at most $busy of $nr"
fi
if [ "$n" -ge $reads ] && [ "$slow" -eq 0 ]; then
	pass "a level-19 reader never waits for a slot under a level-1 flood ($n reads; longest bio to request $max ms; $iops IOPS against $alone alone, $ctl_iops without the limit)"
else
	fail "a level-19 reader never waits for a slot under a level-1 flood" \
		"$slow of $n reads waited for a request (longest $max ms)" \
		"$iops IOPS against $alone alone, $ctl_iops without the limit"
fi
done_testing

# S9: request limits.  cfq-prio's default nr_requests is at least 256.
# While a level-19 reader is present, a flood of level-1 readers may take
# only max(1, round(nr_requests * 2 / 22)) of the scheduler tags (its weight
# 2 against 20) plus the one the reader holds, so the level-19 reader never
# waits for one: at 64 slots and at 4.
# A read waits for a slot when its task sleeps (sched_switch with prev_state
# D) between the bio's block_bio_queue and block_getrq trace events: tag
# allocation sleeps there.  The slots a level holds come from the
# scheduler's debugfs 'levels' file and the tags in use from blk-mq's
# sched_tags.  A control run of the same load under mq-deadline, which has
# no such limit for reads, shows that the flood would otherwise take every
# slot and make the reader wait.  The reader's first reads may wait: the
# flood holds every slot before the reader is present, and drains to its
# limit only as level 1 is served.  The window judged starts once it has.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

procs=2
SLOW_DEFAULT=1 test_dev lim0
# The block layer's default for a device of depth 2 is 4 slots, fewer than
# a few processes keep in flight; cfq-prio asks for 256.
expect_eq "cfq-prio's default nr_requests on a device of depth 2 is 256" 256 \
	"$(cat /sys/block/$dev/queue/nr_requests)"
sched_set $dev mq-deadline
expect_eq "... where mq-deadline's is the block layer's 4" 4 "$(cat /sys/block/$dev/queue/nr_requests)"
sched_set $dev cfq-prio
sched=/sys/kernel/debug/block/$dev/sched
tags=/sys/kernel/debug/block/$dev/hctx0/sched_tags
secs=6

# The level-19 reader: dd doing 4 KiB direct reads one at a time, traced.
# With $think set, a reader that thinks that long (ms) after each read
# instead: fio, run as 'thinker' so that its trace is told from the
# flood's.  It only switches the recording on and off: the events stay
# enabled from before the first load to after the last (trace_events
# below).  The judged window starts at a trace marker, written once the
# flood has drained to its bound (reader_mark), and lasts $secs s.
think=
cp "$(command -v fio)" "$tmp/thinker"
reader_start() {
	echo 0 >$TRACEFS/tracing_on
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
	if [ -z "$think" ]; then
		ioprio -n 19 -- timeout 120 dd if=/dev/$dev of=/dev/null bs=4k count=10000000 \
			iflag=direct status=none &
	else
		ioprio -n 19 -- "$tmp/thinker" --name=think --filename=/dev/$dev --direct=1 \
			--ioengine=psync --rw=randread --bs=4k --size=1G --thinktime=$((think * 1000)) \
			--time_based --runtime=120 >/dev/null &
	fi
	READER=$!
}
reader_mark() {
	echo cfq-drained >$TRACEFS/trace_marker
}
# reader_stop: ends the reader (dd or the thinking fio); the trace of the
# window goes to $tmp/trace and the reader's IOPS in it to $tmp/iops.
reader_stop() {
	kill $READER 2>/dev/null
	wait $READER 2>/dev/null
	echo 0 >$TRACEFS/tracing_on
	trace_lines | grep -E ' \[(dd|thinker)\]$|sched_switch prev_comm=(dd|thinker) |tracing_mark_write cfq-drained' |
		sed -n '/tracing_mark_write cfq-drained/,$p' >"$tmp/trace"
	echo $(($(grep -c ' getrq ' "$tmp/trace") / secs)) >"$tmp/iops"
}

# waits: how many of the reader's reads in the window slept between
# bio_queue and getrq (waited for a request), out of how many, and the
# longest bio_queue to getrq time in ms; then how many reads came more than
# $away ms after the reader's previous allocation (its getrq), and how many
# of those waited.  S9 counts a level present for 100 ms after its last
# allocation: after a longer gap the flood may take every slot, and a read
# that then waits is not one S9 promised a slot.  Such gaps come from the
# guest's CPUs, which the flood's processes keep busy under emulation: the
# reader is runnable and not run (a read waited 2.7 ms after a gap of
# 131 ms, in 1 of 24 runs at 4 slots).  $away leaves a jiffy of slack.
away=90
waits() {
	awk -v away=$away '$2 == "bio_queue" { q = $1; slept = 0; late = g != "" && ($1 - g) * 1000 > away }
		$2 == "sched_switch" && q != "" && / prev_state=D/ { slept = 1 }
		$2 == "getrq" && q != "" { n++; d = ($1 - q) * 1000; if (d > max) max = d
			if (late) { nlate++; wlate += slept } else waited += slept
			g = $1; q = "" }
		END { printf "%d %d %.1f %d %d\n", waited, n, max, nlate, wlate }' "$tmp/trace"
}

# flood_run: $procs level-1 readers of depth 64 each; after 2 s the reader
# starts.  The flood took every slot before the reader was present, and
# gives them back only as its old requests are served (its share is 2 of
# 22, and a queue serves in sector order, so new requests may go first):
# the window starts at the first sample, every 0.5 s, at or below $bound
# (after $drain s at the latest), and shows whether the flood can take
# slots again.
# Prints the most slots level 1 held in the window, the most tags in use,
# the samples in it, the requests level 1 completed from the reader's start
# and the seconds the drain took (-1: it did not).
drain=15
flood_run() {
	local flood maxslots=0 maxbusy=0 s b c0 c judged=0 t0 t drained=-1 win=0 before=
	[ ! -f $sched/levels ] || before=$(levels $dev)
	fio_bg "$tmp/flood" 1 --name=flood --filename=/dev/$dev --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --size=4G --iodepth=64 --numjobs=$procs \
		--time_based --runtime=120
	flood=$FIO_PID
	# mq-deadline (the control) has no per-level counters to wait for.
	if [ -f $sched/levels ]; then wait_for 40 dispatched_more "$before" $dev 1; else sleep 1; fi
	sleep 2
	c0=0 c=0
	[ ! -f $sched/levels ] || c0=$(counter "$(levels $dev)" 1 completed)
	reader_start
	t0=$(date +%s%N)
	while :; do
		sleep 0.5
		s=0
		if [ -f $sched/levels ]; then
			set -- "$(levels $dev)"
			s=$(counter "$1" 1 held) c=$(counter "$1" 1 completed)
		fi
		b=$(sed -n 's/^busy=//p' $tags)
		t=$((($(date +%s%N) - t0) / 1000000))
			if [ $win -eq 0 ]; then
			# Without a drain, the window shows what the reader met.
			[ "$s" -le "$bound" ] || [ $t -ge $((drain * 1000)) ] || continue
			[ "$s" -gt "$bound" ] || drained=$t
			reader_mark
			win=1 t0=$(date +%s%N) t=0
		fi
		judged=$((judged + 1))
		[ "$s" -le $maxslots ] || maxslots=$s
		[ "$b" -le $maxbusy ] || maxbusy=$b
		[ $t -lt $((secs * 1000)) ] || break
	done
	reader_stop
	kill $flood
	wait
	[ $drained -lt 0 ] || drained=$(printf '%d.%d' $((drained / 1000)) $((drained % 1000 / 100)))
	echo "$maxslots $maxbusy $judged $((c - c0)) $drained"
}

# trace_events: enable the reader's events once, while nothing runs.  Under
# emulation (TCG) switching a tracepoint patches live code (text_poke_bp),
# and twice, switched while both CPUs were busy, a CPU then executed the
# int3 of a finished patch of __schedule() (sched_switch's static call):
# an oops that ended the suite.
trace_events() {
	trace_start $dev block_bio_queue block_getrq
	echo 'prev_comm == "dd" || prev_comm == "thinker"' >$TRACEFS/events/sched/sched_switch/filter
	echo 1 >$TRACEFS/events/sched/sched_switch/enable
	echo 0 >$TRACEFS/tracing_on
}
trace_events
reader_start
reader_mark
sleep $secs
reader_stop
alone=$(cat "$tmp/iops")
set -- $(waits)
echo "# alone: $alone IOPS; waits $*"

# flood_bound NR: the most slots the flood may hold at nr_requests NR.  The
# reader holds one slot at most, which the flood may use too, and each
# flood process may hold one that it allocated before the reader's.
flood_bound() {
	local limit=$((($1 * 2 * 2 + 22) / 44))
	[ $limit -ge 1 ] || limit=1
	echo $((limit + 1 + procs))
}

# limits NR: the control and the rule at nr_requests NR.
limits() {
	local nr=$1 ctl_busy ctl_iops ctl_slow ctl_n ctl_max slots busy iops slow n max late wlate bound
	bound=$(flood_bound $nr)
	# Control: the same load under mq-deadline.
	sched_set $dev mq-deadline && echo $nr >/sys/block/$dev/queue/nr_requests
	set -- $(flood_run)
	ctl_busy=$2 ctl_iops=$(cat "$tmp/iops")
	# Every wait counts here, however long the reader was away before it.
	set -- $(waits)
	ctl_slow=$(($1 + $5)) ctl_n=$2 ctl_max=$3
	# A read waits for a request only when no tag is free: the reader's waits
	# show that the flood took every slot.  The tags in use, sampled every
	# 0.5 s, are shown beside them: a sample may catch tags between a
	# completion and the next allocation (1 of 4 once, under the debug
	# kernel, with the reader waiting in 111 of 591 reads).
	if [ "$ctl_slow" -gt 0 ]; then
		pass "control at nr_requests $nr: under mq-deadline the level-1 flood takes (nearly) every slot ($ctl_busy of $nr tags in use, sampled) and the level-19 reader waits for one ($ctl_slow of $ctl_n reads; longest $ctl_max ms; $ctl_iops IOPS against $alone alone)"
	else
		fail "control at nr_requests $nr: under mq-deadline the level-1 flood takes (nearly) every slot and the level-19 reader waits for one" \
			"tags in use at most $ctl_busy of $nr (sampled)" \
			"reader: $ctl_slow of $ctl_n reads waited for a request (longest $ctl_max ms); $ctl_iops IOPS, $alone alone" \
			"without this the checks below prove nothing"
	fi

	# The rule, under cfq-prio.
	sched_set $dev cfq-prio && echo $nr >/sys/block/$dev/queue/nr_requests
	set -- $(flood_run)
	slots=$1 busy=$2 judged=$3 served=$4 drained=$5 iops=$(cat "$tmp/iops")
	set -- $(waits)
	slow=$1 n=$2 max=$3 late=$4 wlate=$5
	# With 4 tags, the reader's own and a flood at its bound fill them all.
	if [ "$drained" != -1 ] && [ "$slots" -le $bound ] && { [ $nr -lt 16 ] || [ "$busy" -lt $nr ]; }; then
		pass "at nr_requests $nr, under a level-19 reader a level-1 flood of $procs processes holds at most max(1, round($nr x 2 / 22)) + 1 + $procs = $bound slots (at most $slots; $busy of $nr tags in use, in $judged samples over ${secs} s from the first at or below the bound on, ${drained} s after the reader started; level 1 completed $served requests)"
	else
		fail "at nr_requests $nr, under a level-19 reader a level-1 flood of $procs processes holds at most max(1, round($nr x 2 / 22)) + 1 + $procs = $bound slots" \
			"level-1 slots at most $slots; tags in use at most $busy of $nr" \
			"$judged samples in $secs s from the first at or below $bound on or from $drain s on (drained after $drained s, -1: not within $drain s); level 1 completed $served requests from the reader's start"
	fi
	if [ "$drained" != -1 ] && [ "$n" -ge 100 ] && [ "$slow" -eq 0 ]; then
		pass "at nr_requests $nr, a level-19 reader, while present, never waits for a slot under a level-1 flood held to its bound ($slow of $n reads in ${secs} s; longest bio to request $max ms; $late reads more than $away ms after the previous, $wlate of them waited; $iops IOPS against $alone alone, $ctl_iops under mq-deadline)"
	else
		fail "at nr_requests $nr, a level-19 reader, while present, never waits for a slot under a level-1 flood held to its bound" \
			"$slow of $n reads waited for a request (longest $max ms); flood drained after $drained s (-1: not within $drain s)" \
			"not counted: $late reads more than $away ms after the previous ($wlate waited)" \
			"$iops IOPS against $alone alone, $ctl_iops under mq-deadline"
	fi
}
limits 64
limits 4

# A level-19 process that reads a block now and then (every 40 ms) holds
# no slot between its reads: S9 still counts its level present then, so
# the flood stays at its bound and the read finds a slot free, every time.
thinking() {
	local nr=64 bound slots busy judged served drained iops slow n max late
	bound=$(flood_bound $nr)
	sched_set $dev cfq-prio && echo $nr >/sys/block/$dev/queue/nr_requests
	think=40
	set -- $(flood_run)
	think=
	slots=$1 busy=$2 judged=$3 served=$4 drained=$5 iops=$(cat "$tmp/iops")
	set -- $(waits)
	slow=$1 n=$2 max=$3 late=$4
	if [ "$drained" != -1 ] && [ "$n" -ge 50 ] && [ "$slow" -eq 0 ] && [ "$slots" -le $bound ]; then
		pass "at nr_requests $nr, a level-19 process that reads a block every 40 ms never waits for a slot under a level-1 flood, which stays at its bound of $bound ($n reads in $secs s, longest bio to request $max ms, $late more than $away ms after the previous; level 1 held at most $slots slots, drained $drained s after the reader started)"
	else
		fail "at nr_requests $nr, a level-19 process that reads a block every 40 ms never waits for a slot under a level-1 flood, which stays at its bound of $bound" \
			"$slow of $n reads waited for a request (longest $max ms)" \
			"level-1 slots at most $slots; tags in use at most $busy of $nr; flood drained after $drained s (-1: not within $drain s)"
	fi
}
thinking
trace_stop

# --- S9 never strands an allocation it limits.  A level-10 writer at depth
# 16 shares a memory-backed device of two hardware queues with a real time
# reader (50 ms think time, so the idle gate stays closed) and two idle
# readers at depth 8, on 16 request slots: while real time is present S9
# keeps a reserve of 2 of them for it and limits the writer's allocations to
# the other 14, and the idle requests that wait behind the gate hold slots.
# A limited allocation that sleeps must still get a slot when one frees up,
# on either hardware queue.  aging_ms is 0: only S9 itself may let the
# writer go on.  Each of the writer's rounds takes a second or two.  Idle
# may hold more slots than its one, taken while it was alone, in the
# bitmap's first tags: the others' limits grow by as many.  When they did
# not, the idle readers held 14 or 15 of the 16 slots at times, and the
# writer, limited to the 14 it may take, found none of them free for as
# long as the real time reader kept the gate shut (2 runs in 4).
stranded() {
	local d=lim1 rt idle w i rounds=0 t0 slowest=0 stuck= state= h ih=0
	if ! nullb_create $d memory_backed=1 size=256 irqmode=2 completion_nsec=200000 \
		hw_queue_depth=4 submit_queues=2 || ! sched_set $d cfq-prio ||
		! echo 16 >/sys/block/$d/queue/nr_requests; then
		fail "memory-backed null_blk device of two hardware queues running cfq-prio at nr_requests 16"
		return
	fi
	tunable $d aging_ms 0
	local io="--filename=/dev/$d --direct=1 --ioengine=libaio"
	fio_bg "$tmp/s-rt" 20 --name=rt $io --rw=randread --bs=4k --offset=128M --size=64M \
		--iodepth=2 --thinktime=50000 --time_based --runtime=300
	rt=$FIO_PID
	fio_bg "$tmp/s-idle" 0 --name=idle $io --rw=randread --bs=4k --offset=192M --size=64M \
		--iodepth=8 --numjobs=2 --time_based --runtime=300
	idle=$FIO_PID
	wait_for 40 dispatched $d 0
	for i in 1 2 3 4 5 6 7 8; do
		h=$(counter "$(levels $d)" 0 held)
		[ "$h" -le "$ih" ] 2>/dev/null || ih=$h
		t0=$SECONDS
		fio_bg "$tmp/s-w.$i" 10 --name=w $io --iodepth=16 --rw=randwrite --bs=4k \
			--bssplit=4k/50:16k/30:64k/20 --size=24M
		w=$FIO_PID
		if ! wait_for 10 ended $w; then
			stuck=$i state=$(sched_dump $d)
			break
		fi
		wait $w
		rounds=$i
		[ $((SECONDS - t0)) -le $slowest ] || slowest=$((SECONDS - t0))
	done
	kill $rt $idle 2>/dev/null
	# Without the readers the gate opens and everything drains.
	if ! wait_for 60 ended $rt || ! wait_for 60 ended $idle || { [ -n "$stuck" ] && ! wait_for 60 ended $w; }; then
		fail "the readers and the writer of the stranding check end" "$(sched_dump $d)"
		return
	fi
	wait
	echo "# stranding check: idle held at most $ih slots at a round's start"
	if [ -z "$stuck" ] && [ $rounds -eq 8 ]; then
		pass "a level-10 writer limited by S9 under a real time and two idle readers, on two hardware queues, is never stranded: 8 rounds of 24 MiB, the slowest $slowest s"
	else
		fail "a level-10 writer limited by S9 under a real time and two idle readers, on two hardware queues, is never stranded" \
			"round $stuck of 8 did not end in 10 s (1 or 2 s normally); the scheduler's state:" "$state"
	fi
	nullb_remove $d
}
stranded
done_testing

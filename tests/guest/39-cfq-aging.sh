# S5a, bounded waiting: under a continuous real time load, a level-1 reader
# and an idle reader each still complete a request at least every aging_ms
# (shortened to 300 ms here): once a request has waited that long it goes
# out first, ahead of real time.  With aging_ms at 0 they get nothing while
# the load lasts.  The waits are the readers' own (fio's completion
# latencies; each keeps one request in flight), the counts the scheduler's
# (debugfs), and the kernel log stays free of hung-task reports.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

test_dev aging0
if [ ! -f /sys/block/$dev/queue/iosched/aging_ms ]; then
	fail "cfq-prio has the aging_ms tunable"
	done_testing
fi
read_opts="--filename=/dev/$dev --direct=1 --rw=randread --bs=4k --size=4G --time_based"
aging=300
mark=$(kmsg_mark)

# rt_load SECONDS: a real time reader that keeps 8 requests queued: the
# device (2 at a time) never runs out of real time work.
rt_load() {
	local before
	before=$(levels $dev)
	fio_bg "$tmp/rt" 20 --name=rt $read_opts --ioengine=libaio --iodepth=8 --runtime=$1
	rt=$FIO_PID
	wait_for 30 dispatched_more "$before" $dev 20
}

# max_clat FILE: the longest completion latency (ms) in fio's json, and
# the number of reads.
max_clat() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print(int(r["clat_ns"]["max"] / 1000000), r["total_ios"])' "$1" 2>/dev/null || echo "0 0"
}

# readers SECONDS: a level-1 and an idle psync reader, started; their
# pids in $p1 and $p0, fio's json in $tmp/l1.json and $tmp/l0.json.
readers() {
	ioprio -n 1 -- fio --output-format=json --output="$tmp/l1.json" --name=l1 \
		$read_opts --ioengine=psync --runtime=$1 >/dev/null 2>&1 &
	p1=$!
	ioprio -n 0 -- fio --output-format=json --output="$tmp/l0.json" --name=l0 \
		$read_opts --ioengine=psync --runtime=$1 >/dev/null 2>&1 &
	p0=$!
}

# --- aging_ms 300: both readers complete reads, none waits much longer.
tunable $dev aging_ms $aging
rt_load 14
a=$(levels $dev)
readers 8
wait $p1 $p0
b=$(levels $dev)
rt_left=$(kill -0 $rt 2>/dev/null && echo yes || echo no)
kill $rt 2>/dev/null
wait
for l in 1 0; do
	set -- $(max_clat "$tmp/l$l.json")
	got="longest wait $1 ms, $2 reads in 8 s; aged $(delta "$a" "$b" $l aged); level 20 dispatched $(delta "$a" "$b" 20 dispatched), still running at the end: $rt_left"
	# A request goes out at the first dispatch once it has waited
	# aging_ms (a jiffy late at most), then takes 1 ms in the device;
	# 100 ms for emulation.  At least 8 s / (aging_ms + 100 ms) reads.
	if [ $rt_left = yes ] && [ "$1" -gt 0 ] && [ "$1" -le $((aging + 100)) ] &&
		[ "$2" -ge $((8000 / (aging + 100))) ]; then
		pass "a level-$l psync reader under continuous real time load completes a read at least every aging_ms $aging ($got)"
	else
		fail "a level-$l psync reader under continuous real time load completes a read at least every aging_ms $aging" "$got"
	fi
done

# --- aging_ms 300, and a level-1 flood that keeps its slots filled: the
# idle reader still gets a slot at once and completes a read at least every
# aging_ms.  A limited allocation of idle's one slot could take only the
# bitmap's first tag, which the flood's requests hold while they wait.
rt_load 14
a=$(levels $dev)
fio_bg "$tmp/flood" 1 --name=flood $read_opts --ioengine=libaio --iodepth=32 --runtime=14
flood=$FIO_PID
sleep 1
ioprio -n 0 -- fio --output-format=json --output="$tmp/l0.json" --name=l0 \
	$read_opts --ioengine=psync --runtime=8 >/dev/null 2>&1 &
p0=$!
wait $p0
b=$(levels $dev)
rt_left=$(kill -0 $rt 2>/dev/null && echo yes || echo no)
flood_left=$(kill -0 $flood 2>/dev/null && echo yes || echo no)
kill $rt $flood 2>/dev/null
wait
set -- $(max_clat "$tmp/l0.json")
got="longest wait $1 ms, $2 reads in 8 s; aged $(delta "$a" "$b" 0 aged); level 1 held $(counter "$b" 1 held) slots at the end, aged $(delta "$a" "$b" 1 aged); level 20 dispatched $(delta "$a" "$b" 20 dispatched); still running at the end: real time $rt_left, the flood $flood_left"
if [ $rt_left = yes ] && [ $flood_left = yes ] && [ "$1" -gt 0 ] && [ "$1" -le $((aging + 100)) ] &&
	[ "$2" -ge $((8000 / (aging + 100))) ]; then
	pass "an idle psync reader beside a level-1 flood under continuous real time load completes a read at least every aging_ms $aging ($got)"
else
	fail "an idle psync reader beside a level-1 flood under continuous real time load completes a read at least every aging_ms $aging" "$got"
fi

# --- aging_ms 0: strict real time, nothing for them while the load lasts.
# Under emulation fio sometimes leaves the device without real time work for
# longer than grace_rt_ms (see 32), which rightly lets the others in: the
# grace is 100 ms here, and the block trace shows whether any request of
# theirs went out while real time was queued or in the device, or less than
# that after its last completion.
tunable $dev aging_ms 0
tunable $dev grace_rt_ms 100
rt_load 8
readers 30
sleep 1
trace_start $dev block_rq_insert block_rq_issue block_rq_complete
a=$(levels $dev)
sleep 4
b=$(levels $dev)
trace_stop
rt_left=$(kill -0 $rt 2>/dev/null && echo yes || echo no)
d1=$(delta "$a" "$b" 1 dispatched) d0=$(delta "$a" "$b" 0 dispatched)
d20=$(delta "$a" "$b" 20 dispatched)
q1=$(counter "$b" 1 queued) q0=$(counter "$b" 0 queued)
# A reader with nothing queued may be waiting for a request slot instead,
# when real time holds them all.  It is still waiting for I/O then (state D,
# in fio's job process, a child of the one started), not gone.
iostate() { ps -o stat= -p "$1" --ppid "$1" | grep -q '^D' && echo D || echo -; }
s1=$(iostate $p1) s0=$(iostate $p0)
kill $rt $p1 $p0 2>/dev/null
wait
tunable $dev aging_ms 10000
trace_lines >"$tmp/trace"
# Their issues in the trace, and those that broke the rule (the first one
# described).  Real time requests are followed by sector, from the first
# real time record on (those inserted or issued before the trace are not
# seen); a request of theirs in the first 20 ms after it is not judged.
r=$(awk -v grace=100 "$AWK_LEVEL$AWK_FIELDS"'
	lv == 20 && t0 == "" { t0 = $1 }
	lv == 20 && ev == "rq_insert" { ins[sec]++; pend++ }
	lv == 20 && ev == "rq_issue" && ins[sec] > 0 { ins[sec]--; pend-- }
	lv == 20 && ev == "rq_issue" { dev[sec]++; indev++ }
	lv == 20 && ev == "rq_complete" && dev[sec] > 0 { dev[sec]--; indev--; last = $1 }
	lv >= 0 && lv < 20 && ev == "rq_issue" && t0 != "" && $1 > t0 + 0.02 {
		n++
		g = last == "" ? -1 : ($1 - last) * 1000
		if (pend > 0 || indev > 0 || g < grace - 0.5) {
			bad++
			if (why == "") why = sprintf("at %s s: level %d, %d real time queued, %d in the device, %.1f ms after its last completion", $1, lv, pend, indev, g)
		}
	}
	END { printf "%d %d %s\n", n, bad, why }' "$tmp/trace")
set -- $r
n_them=${1:-0} n_bad=${2:-0}
shift 2
why=$*
tunable $dev grace_rt_ms 10
got="in 4 s level 1 dispatched $d1 (queued $q1, state $s1), idle $d0 (queued $q0, state $s0), level 20 $d20; real time still running: $rt_left; traced: $n_them of theirs went out, $n_bad of them while real time was queued, in the device or in its grace${why:+, the first $why}"
waiting() { [ "$1" -gt 0 ] || [ "$2" = D ]; }
if [ $rt_left = yes ] && [ "$n_bad" -eq 0 ] && waiting "$q1" "$s1" &&
	waiting "$q0" "$s0" && [ "$d20" -gt 100 ] && [ $((d1 + d0)) -le "$n_them" ]; then
	pass "with aging_ms 0 a level-1 and an idle reader get nothing under continuous real time load ($got)"
else
	fail "with aging_ms 0 a level-1 and an idle reader get nothing under continuous real time load" "$got" \
		"trace: $(keep "$tmp/trace" trace)"
fi

bad=$(kmsg_since "$mark" | grep -E "$KMSG_BAD" | head -3)
expect_eq "no hung-task report or warning in the kernel log" "" "$bad"
done_testing

# S7 and S8: the dispatch list and merging.  Real time arrivals send the
# listed requests of other levels back to their queues, and non-idle arrivals
# send listed idle requests back; both are counted (sent_back) and every
# request sent back is served later: nothing is lost (fio verify on a
# memory-backed null_blk, every inserted request completed).  The list holds
# requests of levels 1 to 20 only on a rotational disk: on any other a
# dispatch selects one request and hands it to the driver at once.  Sequential small
# writes merge (merged counter); writes of two levels to adjacent sectors
# never merge, where the same writes of one level do.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

test_dev sbm0 memory_backed=1 size=512
io_opts="--filename=/dev/$dev --direct=1 --ioengine=libaio --bs=4k"
verify_opts="$io_opts --rw=randwrite --iodepth=16 --verify=crc32c --verify_fatal=1 --do_verify=1"
# reader_opts: a depth-1 reader, to pause between reads (--thinktime) away
# from the verified data.
reader_opts="$io_opts --rw=randread --iodepth=1 --size=64M --time_based --runtime=600"

# sendback_run ARRIVAL THINK_US WRITER OFFSET SIZE: a reader at level ARRIVAL
# that reads every THINK_US, and meanwhile a verified writer at level WRITER
# (fio output in $tmp/wWRITER) of SIZE at OFFSET.  Leaves the counters
# afterwards in s and the writer level's send-backs in n.
sendback_run() {
	local arrival=$1 think=$2 writer=$3 reader before
	before=$(levels $dev)
	fio_bg "$tmp/r$arrival" "$arrival" --name=r$arrival $reader_opts --offset=256M --thinktime="$think"
	reader=$FIO_PID
	wait_for 40 dispatched_more "$before" $dev "$arrival"
	timeout 300 ioprio -n "$writer" -- fio --output-format=terse --terse-version=3 --name=w$writer \
		$verify_opts --offset="$4" --size="$5" >"$tmp/w$writer" 2>&1
	kill $reader
	wait $reader
	sleep 0.2
	s=$(levels $dev)
	n=$(counter "$s" "$writer" sent_back)
}

# --- S7: a level-10 writer (verified) and a real time reader that reads
# every 20 ms: each real time arrival sends back the listed level-10 requests.
# null_blk does not seek: mark it rotational, so that the list is filled.
echo 1 >/sys/block/$dev/queue/rotational
sendback_run 20 20000 10 0 16M
if [ "$n" -gt 0 ]; then
	pass "real time arrivals send listed level-10 requests back (sent_back $n)"
else
	fail "real time arrivals send listed level-10 requests back" "$s"
fi
check "the level-10 writer's data reads back intact (fio verify) after $n send-backs" \
	verified "$tmp/w10"
expect_eq "every level-10 and real time request was served (none queued, listed or in flight; inserted = completed)" \
	"" "$(settled "$s" 10 20)"
expect_eq "real time requests are never sent back" 0 "$(counter "$s" 20 sent_back)"

# --- S7 on a disk that does not seek: the same writer and reader, and no
# level-10 request ever waits on the list to be sent back.
echo 0 >/sys/block/$dev/queue/rotational
sent=$n
sendback_run 20 20000 10 16M 16M
expect_eq "without seeks, a dispatch hands its one request to the driver: nothing to send back (rotational: $sent)" \
	"0" "$((n - sent))"
check "the level-10 writer's data reads back intact (fio verify) without seeks" \
	verified "$tmp/w10"

# --- S7: an idle writer (verified), in rounds of 16 requests that wait on
# the dispatch list behind a hardware queue of 2, and a level-10 reader that
# reads every 150 ms: each of its arrivals sends the listed idle requests
# back.  Idle has one request slot while level 10 is present, for 100 ms
# after its last read (S9): only after that does it queue enough to list.
tunable $dev idle_quantum 16
tunable $dev idle_quantum_io 1024
tunable $dev grace_idle_ms 10
sendback_run 10 150000 0 32M 8M
if [ "$n" -gt 0 ]; then
	pass "non-idle arrivals send listed idle requests back (sent_back $n)"
else
	fail "non-idle arrivals send listed idle requests back" "$s"
fi
check "the idle writer's data reads back intact (fio verify) after $n send-backs" \
	verified "$tmp/w0"
expect_eq "every idle and level-10 request was served (none queued, listed or in flight; inserted = completed)" \
	"" "$(settled "$s" 0 10)"
tunable $dev idle_quantum 1
tunable $dev idle_quantum_io 64
tunable $dev grace_idle_ms 100

# --- S8: sequential 4 KiB writes, one bio per submission, at level 10
a=$(levels $dev)
fio_at 10 --name=seq $io_opts --rw=write --iodepth=16 --iodepth_batch_submit=1 \
	--offset=64M --size=64M --time_based --runtime=4 >"$tmp/seq" 2>&1
b=$(levels $dev)
m=$(delta "$a" "$b" 10 merged) d=$(delta "$a" "$b" 10 dispatched) \
	sec=$(delta "$a" "$b" 10 sectors)
if [ "$m" -gt 0 ] && [ "$d" -gt 0 ] && [ "$sec" -gt $((8 * d)) ]; then
	pass "sequential 4 KiB writes merge ($m merges; $d requests of $((sec / d)) sectors on average)"
else
	fail "sequential 4 KiB writes merge" "merged $m, dispatched $d requests, $sec sectors"
fi

# --- S8: never across levels.  Two writers fill alternate 4 KiB blocks of
# one region (each skips 4 KiB after every write, one starts 4 KiB in), so
# each write is adjacent to the other writer's and never to its own.  A real
# time reader holds every other level back (S5, with a grace of 1 s so that
# a fio that gets no CPU while the writers start does not open the gate, and
# aging_ms raised so that S5a does not let them out) while both put their 16
# writes in, so that all of them wait in the scheduler side by side.
# strided LEVEL-A LEVEL-B OFFSET-MIB: prints how the counters of the two
# levels grew: "merged M1 M2 inserted I1 I2 dispatched-while-held D1 D2"
# (one number each when the levels are the same, and then "aged A" too).
strided() {
	local a b s held prev='' cur stable=0 hold pa pb
	tunable $dev grace_rt_ms 1000
	tunable $dev aging_ms 60000
	a=$(levels $dev)
	fio_bg "$tmp/hold" 20 --name=hold $reader_opts --offset=256M --iodepth=2
	hold=$FIO_PID
	# Real time had dispatches before: wait for this reader's own.
	wait_for 40 dispatched_more "$a" $dev 20
	a=$(levels $dev)
	fio_bg "$tmp/sa" "$1" --name=a $io_opts --rw=write:4k --iodepth=16 \
		--offset=$(($3 << 20)) --size=128k
	pa=$FIO_PID
	fio_bg "$tmp/sb" "$2" --name=b $io_opts --rw=write:4k --iodepth=16 \
		--offset=$((($3 << 20) + 4096)) --size=128k
	pb=$FIO_PID
	# until both levels have inserted and nothing changed for 1.5 s
	for _ in $(seq 1 80); do
		sleep 0.5
		s=$(levels $dev)
		cur="$(delta "$a" "$s" "$1" inserted) $(delta "$a" "$s" "$2" inserted) $(delta "$a" "$s" "$1" merged) $(delta "$a" "$s" "$2" merged)"
		if [ "$cur" = "$prev" ] && [ "${cur%% *}" -gt 0 ]; then
			stable=$((stable + 1))
			[ $stable -lt 3 ] || break
		else
			stable=0
		fi
		prev=$cur
	done
	held=$(levels $dev)
	kill $hold
	wait $hold $pa $pb
	tunable $dev grace_rt_ms 10
	tunable $dev aging_ms 10000
	b=$(levels $dev)
	if [ "$1" = "$2" ]; then
		echo "merged $(delta "$a" "$b" "$1" merged) inserted $(delta "$a" "$b" "$1" inserted)" \
			"dispatched-while-held $(delta "$a" "$held" "$1" dispatched)" \
			"aged $(delta "$a" "$b" "$1" aged)"
	else
		echo "merged $(delta "$a" "$b" "$1" merged) $(delta "$a" "$b" "$2" merged)" \
			"inserted $(delta "$a" "$b" "$1" inserted) $(delta "$a" "$b" "$2" inserted)" \
			"dispatched-while-held $(delta "$a" "$held" "$1" dispatched) $(delta "$a" "$held" "$2" dispatched)"
	fi
}

r=$(strided 10 10 128)
set -- $r
if [ "$2" -gt 0 ]; then
	pass "control: the same interleaved writes of two processes at one level merge ($r)"
else
	fail "control: the same interleaved writes of two processes at one level merge" \
		"level 10: $r; without merges here the next check proves nothing"
fi
r=$(strided 5 15 160)
set -- $r
if [ "$2" = 0 ] && [ "$3" = 0 ] && [ "$5" -gt 0 ] && [ "$6" -gt 0 ]; then
	pass "interleaved writes of levels 5 and 15 to adjacent sectors never merge ($r)"
else
	fail "interleaved writes of levels 5 and 15 to adjacent sectors never merge" \
		"levels 5 and 15: $r"
fi
s=$(levels $dev)
expect_eq "every request was served in the end" "" "$(settled "$s" 0 5 10 15 20)"
done_testing

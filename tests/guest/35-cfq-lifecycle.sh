# S12: life cycle.  The scheduler of a memory-backed null_blk switches between
# cfq-prio, none, mq-deadline, kyber and bfq every 200 ms for a minute while
# fio writes and verifies at level 10 and real time and idle readers keep the
# grace timers busy; a null_blk device running cfq-prio is deleted under
# I/O; the cfq-prio module is refused unloading while a disk uses it, and is
# unloaded and loaded again when none does.  No error, no hang (every step
# has a time limit) and nothing in the kernel log.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

SWITCH_SECONDS=${SWITCH_SECONDS:-60}
dev=life0
tmp=$(mktemp -d)
mark=$(kmsg_mark)
hung=
cleanup() {
	touch "$tmp/stop"
	# Something stuck in the kernel cannot be waited for.
	[ -n "$hung" ] && return
	wait
	nullb_remove $dev
	nullb_remove del0
	rm -rf "$tmp"
}
trap cleanup EXIT

# bounded SECONDS WHAT COMMAND...: run COMMAND in the background and wait for
# it at most SECONDS; a command stuck in the kernel is reported, not waited
# for.  Returns COMMAND's status, or 124 if it did not end in time.
bounded() {
	local end=$((SECONDS + $1)) what=$2 pid
	shift 2
	"$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		if [ $SECONDS -gt $end ]; then
			hung="$what"
			return 124
		fi
		sleep 0.02
	done
	wait $pid
}
write_to() { echo "$2" >"$1"; }

# --- switching under I/O
if ! nullb_create $dev memory_backed=1 size=256 irqmode=2 completion_nsec=200000 \
	hw_queue_depth=4 || ! sched_set $dev cfq-prio; then
	fail "memory-backed null_blk device running cfq-prio"
	done_testing
fi
io_opts="--filename=/dev/$dev --direct=1 --ioengine=libaio"
# fio verify runs at level 10, one after the other, until told to stop
verify_loop() {
	local i=0
	while [ ! -e "$tmp/stop" ]; do
		i=$((i + 1))
		timeout 300 ioprio -n 10 -- fio --output-format=terse --terse-version=3 \
			--name=verify $io_opts --iodepth=16 --rw=randwrite --bs=4k \
			--bssplit=4k/50:16k/30:64k/20 --size=24M --verify=crc32c \
			--verify_fatal=1 --do_verify=1 >"$tmp/verify.$i" 2>&1
	done
}
verify_loop &
vpid=$!
fio_bg "$tmp/rt" 20 --name=rt $io_opts --rw=randread --bs=4k --offset=128M --size=64M \
	--iodepth=2 --thinktime=50000 --time_based --runtime=$((SWITCH_SECONDS + 60))
rt=$FIO_PID
fio_bg "$tmp/idle" 0 --name=idle $io_opts --rw=randread --bs=4k --offset=192M --size=64M \
	--iodepth=4 --time_based --runtime=$((SWITCH_SECONDS + 60))
idle=$FIO_PID
wait_for 40 dispatched $dev 10

scheds="cfq-prio none mq-deadline kyber bfq"
switches=0 failed='' slowest=0
end=$((SECONDS + SWITCH_SECONDS))
while [ $SECONDS -lt $end ]; do
	for s in $scheds; do
		t0=$(date +%s%N)
		bounded 30 "switch to $s" write_to /sys/block/$dev/queue/scheduler $s
		rc=$?
		t=$((($(date +%s%N) - t0) / 1000000))
		[ $t -le $slowest ] || slowest=$t
		if [ $rc -eq 124 ]; then
			hung="the switch to $s after $switches switches"
			break 2
		fi
		[ $rc -eq 0 ] && [ "$(sched_current $dev)" = "$s" ] ||
			failed="$failed $s(rc $rc, runs $(sched_current $dev))"
		switches=$((switches + 1))
		sleep 0.2
	done
done
if [ -n "$hung" ]; then
	fail "switching schedulers under I/O never hangs" "$hung did not return in 30 s" \
		"$(dmesg | tail -n 20)"
	done_testing
fi
expect_eq "$switches switches between $scheds every 200 ms for $SWITCH_SECONDS s under I/O all took effect (slowest $slowest ms)" \
	"" "$failed"
sched_set $dev cfq-prio
touch "$tmp/stop"
t_stop=$SECONDS
echo "# switching done at $SECONDS s"
# A verify run takes a few seconds; the readers leave level 10 most of the
# device (S5: the real time reader thinks 50 ms between its reads).
if wait_for 30 ended $vpid; then
	pass "the level-10 fio verify run in progress ends within 30 s of the switching (in $((SECONDS - t_stop)) s)"
else
	fail "the level-10 fio verify run in progress ends within 30 s of the switching" \
		"still running; the scheduler's state:" "$(sched_dump $dev)"
	if ! wait_for 270 ended $vpid; then
		hung="fio verify"
		done_testing
	fi
fi
kill $rt $idle 2>/dev/null
if ! wait_for 20 ended $rt || ! wait_for 20 ended $idle; then
	hung="the readers"
	fail "the real time and idle readers end when told to" \
		"still running 20 s after SIGTERM:$(ended $rt || echo ' real time')$(ended $idle || echo ' idle')" \
		"$(sched_dump $dev)"
	done_testing
fi
wait $rt $idle
runs=0 bad=
for f in "$tmp"/verify.*; do
	[ -e "$f" ] || continue
	runs=$((runs + 1))
	verified "$f" || bad="$bad ${f##*.}"
done
if [ $runs -gt 0 ] && [ -z "$bad" ]; then
	pass "fio verify=crc32c passed in all $runs runs during the switching"
else
	fail "fio verify=crc32c passed in all runs during the switching" \
		"$runs runs, failed:${bad:- none}" "$(tail -n 5 "$tmp/verify.${bad##* }" 2>/dev/null)"
fi
# A reader killed by the stop has no terse line; fio reports errors anyway.
bad=$(grep -hiE 'err=|error' "$tmp/rt" "$tmp/idle" | grep -v 'err= 0' | head -3)
expect_eq "the real time and idle readers saw no I/O error" "" "$bad"
nullb_remove $dev
echo "# verify and readers done at $SECONDS s"

# --- deleting a device under I/O
if slow_dev del0; then
	for l in 20 10 5 0; do
		fio_bg "$tmp/del.$l" $l --name=del$l --filename=/dev/del0 --direct=1 --ioengine=libaio \
			--rw=randrw --bs=4k --size=1G --iodepth=8 --time_based --runtime=300
	done
	wait_for 40 dispatched del0 10
	sleep 2
	before=$(levels del0)
	t0=$(date +%s%N)
	if bounded 60 "power off" write_to /sys/kernel/config/nullb/del0/power 0 &&
		bounded 60 "rmdir" rmdir /sys/kernel/config/nullb/del0; then
		pass "a null_blk device running cfq-prio is deleted under I/O at levels 20, 10, 5 and 0 ($((($(date +%s%N) - t0) / 1000000)) ms)"
	else
		fail "a null_blk device running cfq-prio is deleted under I/O at levels 20, 10, 5 and 0" \
			"power off or rmdir did not finish in 60 s" "$(echo "$before" | awk '$6 > 0')"
	fi
	[ -z "$hung" ] || done_testing
	gone() { ! pgrep -x fio >/dev/null; }
	if wait_for 60 gone; then
		pass "the fio processes of the deleted device end"
	else
		fail "the fio processes of the deleted device end" "$(pgrep -a fio)"
	fi
	check "the deleted device is gone" test ! -e /dev/del0
else
	fail "slow null_blk device running cfq-prio"
fi

echo "# deletion done at $SECONDS s"

# --- unloading and loading the module
mod=cfq_prio_iosched
if [ ! -d /sys/module/$mod ] || [ ! -e /sys/module/$mod/refcnt ]; then
	skip "cfq-prio unloaded and loaded again when unused" "cfq-prio is built in"
else
	users=
	for q in /sys/block/*/queue/scheduler; do
		d=${q#/sys/block/}
		d=${d%%/*}
		[ "$(sched_current "$d")" != cfq-prio ] || users="$users $d"
	done
	if [ -n "$users" ]; then
		if modprobe -r $mod 2>/dev/null; then
			fail "the module cannot be unloaded while$users use it" "modprobe -r succeeded"
		else
			check "the module cannot be unloaded while$users use it, and stays" test -d /sys/module/$mod
		fi
	fi
	other=
	for d in $users; do
		case " $(sched_offered "$d") " in
		*" mq-deadline "*) sched_set "$d" mq-deadline ;;
		*) sched_set "$d" none ;;
		esac || other="$other $d"
	done
	[ -z "$other" ] || fail "every disk switched away from cfq-prio" "still:$other"
	if bounded 60 "modprobe -r" modprobe -r $mod; then
		offered=$(cat /sys/block/*/queue/scheduler | grep -c cfq-prio)
		if [ ! -d /sys/module/$mod ] && [ "$offered" = 0 ]; then
			pass "the module unloads when no disk uses it, and cfq-prio is no longer offered"
		else
			fail "the module unloads when no disk uses it, and cfq-prio is no longer offered" \
				"/sys/module/$mod: $(ls -d /sys/module/$mod 2>&1); offered by $offered disks"
		fi
	else
		fail "the module unloads when no disk uses it" "modprobe -r failed or hung"
	fi
	check "the module loads again" bounded 60 "modprobe" modprobe $mod
	bad=
	for d in $users; do
		sched_set "$d" cfq-prio || bad="$bad $d"
	done
	expect_eq "cfq-prio selected again on every disk that ran it ($users )" "" "$bad"
	if nullb_create mod0 && sched_set mod0 cfq-prio; then
		check "the reloaded scheduler serves I/O" \
			dd if=/dev/mod0 of=/dev/null bs=4k count=256 iflag=direct status=none
		nullb_remove mod0
	else
		fail "the reloaded scheduler serves I/O" "no null_blk device with cfq-prio"
	fi
fi

echo "# module done at $SECONDS s"
bad=$(kmsg_since "$mark" | grep -E "$KMSG_BAD" | head -n 20)
expect_eq "nothing in the kernel log: no warning, bug, hung task or lockdep report" "" "$bad"
done_testing

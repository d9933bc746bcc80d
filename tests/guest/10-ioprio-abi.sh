# The level class of ioprio_set/ioprio_get (DESIGN.md section 3): who may set
# what, what is refused, groups, inheritance, the classic classes, the
# priority requests really carry, kernel.ioprio_from_nice, io_uring.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"

probe=$CFQ_SRC/build/tests/ioprio-probe
[ -x "$probe" ] || { fail "ioprio-probe built" "missing $probe (make test-progs)"; done_testing; }
# The probe runs itself again as nobody, who may not be able to enter the
# shared tree (a clone in a mktemp -d directory is mode 0700): a copy in
# the guest's own file system.
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
chmod 755 "$bindir"
install -m 755 "$probe" "$bindir/ioprio-probe"
probe=$bindir/ioprio-probe
LEVEL=0x8000 RT=0x2000 BE=0x4000 IDLE=0x6000
hex() { printf '0x%x' "$1"; }
nobody=65534
sysctl=/proc/sys/kernel/ioprio_from_nice

# A shell of our own whose priority the checks change.
me=$BASHPID

# --- own level as root, 0..20
bad=
for l in $(seq 0 20); do
	v=$(hex $((LEVEL | l)))
	r=$($probe set process $me "$v")
	g=$($probe get process $me)
	[ "$r" = ok ] && [ "$g" = "$v" ] || bad="$bad level $l: set $r, read $g;"
done
expect_eq "root sets and reads back its own level 0..20" "" "$bad"

# --- unprivileged: 0..19 allowed, 20 refused, 20 allowed with CAP_SYS_NICE
as_nobody() { $probe as $nobody $nobody "$@"; }
bad=
for l in $(seq 0 19); do
	v=$(hex $((LEVEL | l)))
	out=$(as_nobody -- sh -c "$probe set process \$\$ $v && $probe get process \$\$")
	[ "$out" = "ok
$v" ] || bad="$bad level $l: $(echo $out);"
done
expect_eq "an unprivileged user sets and reads back levels 0..19" "" "$bad"
expect_eq "level 20 without CAP_SYS_ADMIN or CAP_SYS_NICE is EPERM" "EPERM" \
	"$(as_nobody -- $probe set process 0 $((LEVEL | 20)))"
expect_eq "level 20 with CAP_SYS_NICE alone is allowed" "ok" \
	"$(as_nobody sys_nice -- $probe set process 0 $((LEVEL | 20)))"

# --- invalid values are EINVAL and change nothing
$probe set process $me $((LEVEL | 7)) >/dev/null
for v in $((LEVEL | 21)) -1 $((LEVEL | 0x1fff)) 0xa000 0xa005 0xe000 0x1fff; do
	r=$($probe set process $me "$v")
	expect_eq "value $v is EINVAL" EINVAL "$r"
done
expect_eq "after the refused values the level is still 7" "$(hex $((LEVEL | 7)))" \
	"$($probe get process $me)"

# --- other processes
sleep 300 &
victim=$!
before=$($probe get process $victim)
expect_eq "an unprivileged user cannot set another user's process (EPERM)" EPERM \
	"$(as_nobody -- $probe set process $victim $((LEVEL | 5)))"
expect_eq "...and its priority is unchanged" "$before" "$($probe get process $victim)"
true & gone=$!
wait $gone
expect_eq "a missing pid is ESRCH (set)" ESRCH "$($probe set process $gone $((LEVEL | 5)))"
expect_eq "a missing pid is ESRCH (get)" ESRCH "$($probe get process $gone)"
kill $victim

# --- process group: every member changes; get returns the best
setsid sh -c 'sleep 300 & sleep 300 & wait' &
pgid=$!
sleep 0.5
members=$(pgrep -g $pgid | tr '\n' ' ')
expect_eq "the test process group has three members" 3 "$(echo $members | wc -w)"
expect_eq "set a process group to level 6" ok "$($probe set pgrp $pgid $((LEVEL | 6)))"
bad=
for p in $members; do
	[ "$($probe get process $p)" = "$(hex $((LEVEL | 6)))" ] || bad="$bad $p"
done
expect_eq "every member of the group is at level 6" "" "$bad"
set -- $members
$probe set process "$2" $((LEVEL | 15)) >/dev/null
expect_eq "ioprio_get of the group returns its best level (15)" "$(hex $((LEVEL | 15)))" \
	"$($probe get pgrp $pgid)"
# The best of the group on the level scale (DESIGN.md 3.1): two members at
# a level, the third at a classic priority.  A raw minimum of the values
# (ioprio_best() before the levels) picks the classic value every time,
# 0x2000..0x6000 being below 0x80xx: the cases where the level wins fail
# there.  A tie goes to the lower value, as between classic values.
m1=$1 m2=$2 m3=$3
for c in "19 $((BE | 0)) $((LEVEL | 19))" "15 $((BE | 4)) $((LEVEL | 15))" \
	"15 $((BE | 3)) $((LEVEL | 15))" "1 $IDLE $((LEVEL | 1))" \
	"17 $((BE | 0)) $((BE | 0))" "20 $((RT | 3)) $((RT | 3))"; do
	set -- $c
	$probe set process "$m1" $((LEVEL | $1)) >/dev/null
	$probe set process "$m2" $((LEVEL | $1)) >/dev/null
	$probe set process "$m3" "$2" >/dev/null
	expect_eq "ioprio_get of a group at level $1 and $(hex "$2") gives $(hex "$3")" \
		"$(hex "$3")" "$($probe get pgrp $pgid)"
done
kill -- -$pgid 2>/dev/null

# --- user: every process of the user changes; get returns the best
id ciotest >/dev/null 2>&1 || useradd -M -r ciotest
uid=$(id -u ciotest) gid=$(id -g ciotest)
pkill -u "$uid" 2>/dev/null
for i in 1 2 3; do $probe as "$uid" "$gid" -- sleep 300 & done
upids=
for ((i = 0; i < 100; i++)); do
	upids=$(pgrep -u "$uid" -x sleep | tr '\n' ' ')
	[ "$(echo $upids | wc -w)" = 3 ] && break
	sleep 0.1
done
expect_eq "the user ciotest runs three processes" 3 "$(echo $upids | wc -w)"
sleep 300 &
other=$!
other_was=$($probe get process $other)
expect_eq "set user ciotest to level 4" ok "$($probe set user "$uid" $((LEVEL | 4)))"
got=
for p in $upids; do got+="$($probe get process $p) "; done
expect_eq "all three processes of the user are at level 4" \
	"$(hex $((LEVEL | 4))) $(hex $((LEVEL | 4))) $(hex $((LEVEL | 4))) " "$got"
expect_eq "...and root's process keeps its priority" "$other_was" "$($probe get process $other)"
kill $other
set -- $upids
$probe set process "$1" $((LEVEL | 12)) >/dev/null
expect_eq "ioprio_get of the user returns its best level (12)" "$(hex $((LEVEL | 12)))" \
	"$($probe get user "$uid")"
pkill -u "$uid"

# --- inheritance
$probe set process $me $((LEVEL | 13)) >/dev/null
v=$(hex $((LEVEL | 13)))
expect_eq "child, grandchild and thread start at the parent's level" \
	"self $v child $v grandchild $v thread $v" "$($probe inherit)"

# --- the classic classes are unchanged
bad=
for l in 0 1 2 3 4 5 6 7; do
	for c in $RT $BE; do
		v=$(hex $((c | l)))
		$probe set process $me "$v" >/dev/null
		[ "$($probe get process $me)" = "$v" ] || bad="$bad $v"
	done
done
$probe set process $me $IDLE >/dev/null
[ "$($probe get process $me)" = "$(hex $IDLE)" ] || bad="$bad idle"
expect_eq "BE 0..7, RT 0..7 and IDLE read back as set" "" "$bad"
$probe set process $me 0 >/dev/null
expect_eq "NONE reads back as NONE" 0x0 "$($probe get process $me)"
sleep 300 &
p=$!
ionice -c2 -n5 -p $p
expect_eq "ionice sets and shows best-effort 5" "best-effort: prio 5" "$(ionice -p $p)"
ionice -c3 -p $p
expect_eq "ionice sets and shows idle" "idle" "$(ionice -p $p)"
kill $p

# --- kernel.ioprio_from_nice
expect_eq "kernel.ioprio_from_nice defaults to 1" 1 "$(cat $sysctl)"
for v in 2 -1 abc ""; do
	if echo "$v" >$sysctl 2>/dev/null; then
		fail "kernel.ioprio_from_nice refuses '$v'"
	else
		expect_eq "kernel.ioprio_from_nice refuses '$v' and keeps 1" 1 "$(cat $sysctl)"
	fi
done

# --- what requests carry: block_rq_issue events of one read
tr=/sys/kernel/tracing
if ! nullb_create prio0; then
	fail "null_blk device for the trace checks"
	done_testing
fi
echo 1 >$tr/events/block/block_rq_issue/enable
# carried CMD...: the priority field of the request that CMD's read issued
carried() {
	echo >$tr/trace
	"$@" >/dev/null
	sed -n 's/.*block_rq_issue: .* \([a-z]*,[0-9]*,[0-9]*\) \[ioprio-probe\]$/\1/p' $tr/trace | head -1
}
for l in 0 5 10 15 20; do
	expect_eq "explicit level $l is carried" "level,0,$l" \
		"$(carried $probe read /dev/prio0 $((LEVEL | l)))"
done
expect_eq "BE 3 is carried as set" "be,0,3" "$(carried $probe read /dev/prio0 $((BE | 3)))"
expect_eq "RT 2 is carried as set" "rt,0,2" "$(carried $probe read /dev/prio0 $((RT | 2)))"
expect_eq "IDLE is carried as set" "idle,0,0" "$(carried $probe read /dev/prio0 $IDLE)"
echo 1 >$sysctl
for pair in -20:19 -10:15 -5:12 0:10 5:8 10:5 19:1; do
	n=${pair%:*} l=${pair#*:}
	expect_eq "unset task at nice $n carries level $l (ioprio_from_nice=1)" "level,0,$l" \
		"$(carried nice -n "$n" $probe read /dev/prio0)"
done
expect_eq "unset SCHED_IDLE task carries level 0 (ioprio_from_nice=1)" "level,0,0" \
	"$(carried chrt -i 0 $probe read /dev/prio0)"
expect_eq "unset SCHED_FIFO task carries level 20 (ioprio_from_nice=1)" "level,0,20" \
	"$(carried chrt -f 10 $probe read /dev/prio0)"
echo 0 >$sysctl
for n in -20 -5 10 19; do
	expect_eq "unset task at nice $n carries level 10 (ioprio_from_nice=0)" "level,0,10" \
		"$(carried nice -n "$n" $probe read /dev/prio0)"
done
# ioprio_from_nice=0 removes the coupling to nice, not the CPU policy's
# class (DESIGN.md 3.3); before issue 12 both were level 10.
expect_eq "unset SCHED_IDLE task carries level 0 (ioprio_from_nice=0)" "level,0,0" \
	"$(carried chrt -i 0 $probe read /dev/prio0)"
expect_eq "unset SCHED_FIFO task carries level 20 (ioprio_from_nice=0)" "level,0,20" \
	"$(carried chrt -f 10 $probe read /dev/prio0)"
expect_eq "unset SCHED_RR task at nice -20 carries level 20 (ioprio_from_nice=0)" "level,0,20" \
	"$(carried nice -n -20 chrt -r 10 $probe read /dev/prio0)"
expect_eq "unset SCHED_BATCH task at nice 19 carries level 10 (ioprio_from_nice=0)" "level,0,10" \
	"$(carried nice -n 19 chrt -b 0 $probe read /dev/prio0)"
expect_eq "an explicit level wins over ioprio_from_nice=0" "level,0,3" \
	"$(carried nice -n -20 $probe read /dev/prio0 $((LEVEL | 3)))"
echo 1 >$sysctl
echo 0 >$tr/events/block/block_rq_issue/enable
nullb_remove prio0

# --- mq-deadline and BFQ take I/O at every level
if nullb_create slow0 irqmode=2 completion_nsec=300000000 hw_queue_depth=4; then
	before=$(dmesg | wc -l)
	for s in mq-deadline bfq; do
		sched_set slow0 $s || fail "select $s"
		bad=
		for l in $(seq 0 20); do
			$probe read /dev/slow0 $((LEVEL | l)) >/dev/null || bad="$bad $l"
		done
		expect_eq "$s serves a read at every level 0..20" "" "$bad"
	done
	new=$(dmesg | tail -n +$((before + 1)) | grep -iE 'prio|bfq|deadline|warn|error|bug')
	expect_eq "no kernel log message while they did" "" "$new"
	# mq-deadline's in-flight count per class (RT BE IDLE) during one slow read
	sched_set slow0 mq-deadline
	for pair in 20:"1 0 0" 10:"0 1 0" 1:"0 1 0" 0:"0 0 1"; do
		l=${pair%%:*} want=${pair#*:}
		$probe read /dev/slow0 $((LEVEL | l)) &
		# Poll (builtins only) while the 300 ms read is queued: the
		# probe may take long to start on a slow (debug) kernel.
		got="0 0 0"
		for ((i = 0; i < 200; i++)); do
			read -r got </sys/kernel/debug/block/slow0/sched/queued
			[ "$got" != "0 0 0" ] && break
			kill -0 $! 2>/dev/null || break
			sleep 0.01
		done
		wait
		expect_eq "mq-deadline queues level $l in class $(case $want in 1*) echo RT;; "0 1"*) echo BE;; *) echo IDLE;; esac)" \
			"$want" "$got"
	done
	nullb_remove slow0
else
	fail "slow null_blk device"
fi

# --- BFQ's class and weight for levels
# BFQ takes the task's priority (its io_context) through the classic
# equivalent: level 15 is BE 2 (weight 60), level 1 BE 7 (10), level 19 BE 0
# (80), level 20 RT.  Seen raw, class 4 is "bad prio class" and falls back to
# the class from nice (BE 4, weight 40) for every level; level 20 as any BE
# would share the disk with a BE 0 reader instead of taking it.
if nullb_create bfq0 irqmode=2 completion_nsec=1000000 hw_queue_depth=2 && sched_set bfq0 bfq; then
	# bfq logs each queue's new priority data as a blktrace message,
	# read here through the blk tracer.
	echo 0 >$tr/tracing_on
	echo blk >$tr/current_tracer
	echo 1 >/sys/block/bfq0/trace/enable
	echo 1 >$tr/tracing_on
	want='' got=''
	for pair in 15:"2 60" 1:"7 10" 19:"0 80" 10:"4 40"; do
		l=${pair%%:*}
		echo >$tr/trace
		$probe read /dev/bfq0 $((LEVEL | l)) >/dev/null
		want+="level $l: new_ioprio ${pair#*:}|"
		got+="level $l: $(grep -o 'new_ioprio [0-9]* new_weight [0-9]*' $tr/trace | tail -1 |
			sed 's/ new_weight / /')|"
	done
	echo 0 >/sys/block/bfq0/trace/enable
	echo nop >$tr/current_tracer
	expect_eq "BFQ gives levels the BE data and weight of their classic equivalent" "$want" "$got"
	# A level-20 reader and a BE 0 reader, both keeping 8 reads queued on a
	# device that takes 2 at a time: BFQ serves its classes strictly, so
	# real time takes the device.  As any BE level it would get at most as
	# much as BE 0 (1 : 1), as the fallback for an unknown class BE 4 half
	# as much.  BFQ gets the reads to order: the device's default of 4
	# request slots, which the readers would take in turns before BFQ sees
	# their requests, is raised to 64; and its low-latency heuristics,
	# which raise a newly started queue's weight and inject its I/O while
	# the real time queue has none queued, are off.  With both as they
	# were, measures varied from 1410 : 209 to 845 : 638 over runs; with
	# them changed, from 1449 : 208 to 1590 : 172 in 4 runs (the BE reads
	# go when the real time fio, held back by the emulated CPU, has none
	# queued).  Twice the BE reader's reads tells real time from BE.
	# The reads are counted in a window while both run (/proc/PID/io of the
	# fio threads): fio's own IOPS over its run also count the time one
	# reader ran alone, before the other had started or after it stopped.
	echo 64 >/sys/block/bfq0/queue/nr_requests
	echo 0 >/sys/block/bfq0/queue/iosched/low_latency
	fopts="--filename=/dev/bfq0 --direct=1 --ioengine=libaio --iodepth=8 --rw=randread --bs=4k
		--size=1G --runtime=12 --time_based --thread --output-format=terse --terse-version=3"
	ftmp=$(mktemp -d)
	# shellcheck disable=SC2086
	ioprio -n 20 -- fio --name=rt $fopts >"$ftmp/rt" 2>&1 &
	f1=$!
	# shellcheck disable=SC2086
	ionice -c 2 -n 0 fio --name=be $fopts >"$ftmp/be" 2>&1 &
	f2=$!
	started $f1 $f2
	sleep 1
	rb $f1; rt_a=$RB
	rb $f2; be_a=$RB
	sleep 4
	rb $f1; rt_ios=$RB
	rb $f2; be_ios=$RB
	kill $f1 $f2 2>/dev/null
	wait $f1 $f2
	if [ -n "$rt_a" ] && [ -n "$be_a" ] && [ -n "$rt_ios" ] && [ -n "$be_ios" ]; then
		rt_ios=$(((rt_ios - rt_a) / 4096 / 4)) be_ios=$(((be_ios - be_a) / 4096 / 4))
	else
		rt_ios='' be_ios=''
	fi
	if [ -n "$rt_ios" ] && [ "$rt_ios" -gt 0 ] && [ $((be_ios * 2)) -le "$rt_ios" ]; then
		pass "BFQ serves a level-20 reader as real time: it gets at least twice the reads of a BE 0 reader ($rt_ios : $be_ios IOPS over 4 s)"
	else
		fail "BFQ serves a level-20 reader as real time: it gets at least twice the reads of a BE 0 reader" \
			"IOPS over 4 s, level 20: '$rt_ios', BE 0: '$be_ios'" "$(head -c 300 "$ftmp/rt")"
	fi
	rm -rf "$ftmp"
	nullb_remove bfq0
else
	fail "slow null_blk device running bfq"
fi

# --- io_uring sqe->ioprio
f=/var/tmp/ioprio-uring
dd if=/dev/zero of=$f bs=4k count=1 status=none
chmod 644 $f
expect_eq "io_uring takes level 5 from root" ok "$($probe uring $((LEVEL | 5)) $f)"
bad=
for l in $(seq 0 19); do
	r=$(as_nobody -- $probe uring $((LEVEL | l)) $f)
	[ "$r" = ok ] || bad="$bad $l:$r"
done
expect_eq "io_uring takes levels 0..19 from an unprivileged user" "" "$bad"
expect_eq "io_uring refuses level 20 from an unprivileged user (EPERM)" EPERM \
	"$(as_nobody -- $probe uring $((LEVEL | 20)) $f)"
expect_eq "io_uring refuses level 21 (EINVAL)" EINVAL "$($probe uring $((LEVEL | 21)) $f)"
rm -f $f
done_testing

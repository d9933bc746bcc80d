# S13, buffered writes at their writer's level (issue 15): on ext4 on a
# cfq-prio device, the writeback that the flusher does for a file goes out
# at the level of the process that dirtied it (seen in the block trace
# events) and cfq-prio queues it under that process (debugfs queues), not
# under the flusher; sync(2) writes a level above the flusher's at that
# level; a task's own fsync keeps the task's level; buffered data written at
# level 1 against a level-19 reader reads back intact after the caches are
# dropped; kernel.ioprio_writeback=0 gives the flusher's level and queue
# again, and refuses values other than 0 and 1.
#
# What the kernel before issue 15 gives is said at each check ("old": the
# series up to 0012, where writeback goes out at the flusher's level 10 and
# queues under the flusher's pid, and there is no ioprio_writeback sysctl).
#
# The file's data requests are told from the journal's and the metadata's by
# their sectors: the file's extents (filefrag), which stay where they are as
# the file is rewritten with conv=notrunc.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

# A memory-backed slow device (1 ms per request, two at a time, cfq-prio,
# 128 request slots) for an ext4 filesystem that keeps its data.
test_dev wb0 memory_backed=1 size=256
WB=/proc/sys/kernel/ioprio_writeback
VM=/proc/sys/vm
QUEUES=/sys/kernel/debug/block/$dev/sched/queues
mnt=$tmp/mnt
saved_expire=$(cat $VM/dirty_expire_centisecs)
saved_wb=$(cat $VM/dirty_writeback_centisecs)
saved_nice=$(cat /proc/sys/kernel/ioprio_from_nice)
poller=
cleanup() {
	[ -z "$poller" ] || { kill "$poller"; wait "$poller"; } 2>/dev/null
	echo "$saved_expire" >$VM/dirty_expire_centisecs
	echo "$saved_wb" >$VM/dirty_writeback_centisecs
	echo "$saved_nice" >/proc/sys/kernel/ioprio_from_nice
	[ -f $WB ] && echo 1 >$WB
	mountpoint -q "$mnt" && umount "$mnt"
	test_dev_cleanup
}
trap cleanup EXIT

# Unset tasks (the flusher's kworkers, this shell) are at level 10 (nice 0).
echo 1 >/proc/sys/kernel/ioprio_from_nice
mark=$(kmsg_mark)

# --- kernel.ioprio_writeback: 1 by default, 0 and 1 taken, anything else
# EINVAL with the value unchanged.  Old: no such file.
# sysctl_w VALUE: "ok", "EINVAL" or the error, then the value read back.
sysctl_w() {
	local err r=ok
	err=$({ echo "$1" >$WB; } 2>&1) || case $err in
		*"Invalid argument"*) r=EINVAL ;;
		*) r="error: $err" ;;
		esac
	echo "$r $(cat $WB 2>&1)"
}
if [ -f $WB ]; then
	expect_eq "kernel.ioprio_writeback is 1 by default" 1 "$(cat $WB)"
	for was in 1 0; do
		echo $was >$WB
		for v in 2 -1 x; do
			expect_eq "kernel.ioprio_writeback refuses '$v' with EINVAL and stays $was" \
				"EINVAL $was" "$(sysctl_w "$v")"
		done
	done
	expect_eq "kernel.ioprio_writeback takes 0" "ok 0" "$(sysctl_w 0)"
	expect_eq "kernel.ioprio_writeback takes 1" "ok 1" "$(sysctl_w 1)"
else
	fail "kernel.ioprio_writeback exists" "no $WB"
fi

# --- ext4 on the device, every inode table and the journal written now
# (no lazy init behind the tests' backs), 4 KiB blocks.
mkdir -p "$mnt"
if ! mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard /dev/$dev ||
	! mount /dev/$dev "$mnt"; then
	fail "ext4 made and mounted on the cfq-prio device"
	done_testing
fi
MB=8
SECTORS=$((MB * 2048))
# The files the tests rewrite, written and clean beforehand: their blocks
# are allocated, and their records hold no level.
for f in F H; do
	dd if=/dev/zero of="$mnt/$f" bs=1M count=$MB status=none
done
sync

# extents FILE: the file's extents on the device, "START END" in sectors
# (END exclusive), from filefrag.
extents() {
	filefrag -b512 -e "$1" | awk -F: '/^ *[0-9]+:/ {
		split($3, p, /\.\./); gsub(/ /, "", p[1]); gsub(/ /, "", p[2])
		print p[1], p[2] + 1 }'
}

# file_lines EXTENTS: the block trace's write requests (trace_lines) that
# touch the extents in the file EXTENTS, as "EVENT SECTOR NR PRIO COMM".
file_lines() {
	trace_lines | awk -v ext="$1" '
		BEGIN { n = 0; while ((getline l < ext) > 0) { split(l, e, " "); s[n] = e[1]; t[n] = e[2]; n++ } }
		$2 != "rq_issue" && $2 != "rq_insert" || $4 !~ /W/ { next }
		{
			for (i = 3; i < NF; i++) if ($i == "+") break
			if (i >= NF) next
			a = $(i - 1) + 0; b = a + $(i + 1)
			for (k = 0; k < n; k++)
				if (a < t[k] && b > s[k]) { print $2, a, b - a, $(i + 2), $NF; next }
		}'
}

# file_reqs EXTENTS: "SECTORS PRIOS COMMS" of those requests: the sectors
# issued, the priority fields of the issued requests with their counts
# ("level,0,1=64"), and who inserted them ("kworker=64", kworker/* as one).
file_reqs() {
	file_lines "$1" | awk '
		{ comm = $5; gsub(/^\[|\]$/, "", comm); sub(/^kworker\/.*/, "kworker", comm) }
		$1 == "rq_issue" { sec += $3; pr[$4]++ }
		$1 == "rq_insert" { cm[comm]++ }
		function joined(m,   k, out) {
			out = ""
			for (k in m) out = out (out == "" ? "" : ",") k "=" m[k]
			return out == "" ? "-" : out
		}
		END { print sec + 0, joined(pr), joined(cm) }'
}

# only "A=N,B=M" WANT: the list (PRIOS or COMMS of file_reqs) is WANT alone.
only() { [[ $1 =~ ^$2=[0-9]+$ ]]; }

# issued EXTENTS: the trace shows every sector of the file issued.
issued() { set -- $(file_reqs "$1"); [ "$1" -ge $SECTORS ]; }

# queue_poll: the cfq-prio queues of the device, every 50 ms, into
# $tmp/queues.log, until queue_stop.  A queue stays listed for a second after
# its last request completes, longer than the writeback of a file here.
queue_poll() {
	while :; do cat $QUEUES; sleep 0.05; done >"$tmp/queues.log" 2>&1 &
	poller=$!
}
queue_stop() {
	kill "$poller"
	wait "$poller" 2>/dev/null
	poller=
}

# flushed LEVEL FILE: dirty FILE at LEVEL with a buffered dd (no sync, no
# fsync) and wait for the flusher to write it back (at most 60 s).  Sets
# ddpid and got ("SECTORS PRIOS COMMS" of the file's requests); a trace of
# the file's requests in $tmp/trace.LEVEL.
flushed() {
	local level=$1 file=$2
	sync
	extents "$file" >"$tmp/ext"
	echo >$TRACEFS/trace
	ioprio -n "$level" -- dd if=/dev/zero of="$file" bs=1M count=$MB conv=notrunc status=none &
	ddpid=$!
	wait $ddpid
	wait_for 60 issued "$tmp/ext"
	sleep 0.3
	got=$(file_reqs "$tmp/ext")
	cp $TRACEFS/trace "$tmp/trace.$level"
}

# trace_of NAME: for a failure, the file's extents and the first of its
# requests in the trace kept as $tmp/trace.NAME.
trace_of() {
	mkdir -p "$tmp/t"
	cp "$tmp/trace.$1" "$tmp/t/trace"
	sed 's/^/extent /' "$tmp/ext" | head -4
	TRACEFS=$tmp/t file_lines "$tmp/ext" | head -12
}

# issued_as DESCRIPTION PRIO COMM NAME SECTORS PRIOS COMMS: all of the
# file's sectors were issued, with priority PRIO only, inserted by COMM only
# (SECTORS PRIOS COMMS as file_reqs gives them); a failure shows the trace
# kept as $tmp/trace.NAME.
issued_as() {
	local desc=$1 prio=$2 comm=$3 name=$4
	shift 4
	if [ "$1" -ge $SECTORS ] && only "$2" "$prio" && only "$3" "$comm"; then
		pass "$desc ($1 sectors issued; issued $2; inserted by $3)"
	else
		fail "$desc" "file's sectors issued: $1 of $SECTORS; issued with: $2; inserted by: $3" \
			"$(trace_of "$name")"
	fi
}

# queues_at LEVEL: the thread groups with a queue at LEVEL in the queues
# seen, each "TGID:MOST" with the most requests it had queued at once.
queues_at() {
	awk -v l="$1" '$1 == "level" && $2 == l { if (!($4 in q) || $8 + 0 > q[$4]) q[$4] = $8 + 0 }
		END { for (t in q) print t ":" q[t] }' "$tmp/queues.log" | sort -n | tr '\n' ' '
}
# queues_of TGID: the levels at which TGID had a queue.
queues_of() {
	awk -v t="$1" '$1 == "level" && $4 == t { print $2 }' "$tmp/queues.log" | sort -un | tr '\n' ' '
}

# reader_19: a level-19 direct reader of the device (4 KiB random reads,
# depth 4) in the background, reading once this returns; reader_stop.
reader_19() {
	local s0
	s0=$(levels $dev)
	fio_bg "$tmp/r19" 19 --name=r19 --filename=/dev/$dev --direct=1 --ioengine=libaio --iodepth=4 \
		--rw=randread --bs=4k --size=200M --time_based --runtime=300
	reader=$FIO_PID
	wait_for 30 dispatched_more "$s0" $dev 19
}
reader_stop() {
	kill $reader
	wait $reader 2>/dev/null
}

echo 100 >$VM/dirty_expire_centisecs
echo 50 >$VM/dirty_writeback_centisecs
trace_start $dev block_rq_insert block_rq_issue

# --- (a) the flusher writes a level-1 writer's file at level 1.  Old:
# level,0,10.
echo 1 >$WB
flushed 1 "$mnt/F"
issued_as "the flusher writes back a level-1 dd's file at level 1" \
	level,0,1 kworker 1 $got

# --- (a) the same at level 19.  Old: level,0,10.
flushed 19 "$mnt/F"
issued_as "the flusher writes back a level-19 dd's file at level 19" \
	level,0,19 kworker 19 $got

# --- (e) kernel.ioprio_writeback=0: the flusher's own level (10),
# whatever the writer's level: the behaviour of the old kernel.
echo 0 >$WB
for l in 1 19; do
	flushed $l "$mnt/F"
	issued_as "with ioprio_writeback 0 the flusher writes a level-$l dd's file at its own level 10" \
		level,0,10 kworker $l $got
done

# --- (b) queued per owner: while the flusher writes back a level-1 dd's
# file beside a level-19 reader, the writeback waits in a level-1 queue of
# the dd's pid (debugfs queues, polled), and no other process has a level-1
# queue.  Old: a level-10 queue of the kworker (and with 0013-0014 alone, a
# level-1 queue of the kworker).  With ioprio_writeback 0: a level-10 queue
# of the kworker, none of the dd.
for on in 1 0; do
	echo $on >$WB
	reader_19
	queue_poll
	flushed 1 "$mnt/F"
	queue_stop
	reader_stop
	set -- $got
	mine=$(queues_of $ddpid) l1=$(queues_at 1) l10=$(queues_at 10)
	kq=
	for q in $l10; do
		case $(cat /proc/${q%%:*}/comm 2>/dev/null) in kworker/*) kq="$kq$q " ;; esac
	done
	got="file's sectors issued $1 of $SECTORS with $2, inserted by $3; dd pid $ddpid has queues at levels: ${mine:-none};
queues (tgid:most queued) at level 1: ${l1:-none}; at level 10: ${l10:-none}"
	if [ $on = 1 ]; then
		# A queue exists once a request was inserted into it: the
		# poller need not catch it holding one (a debug kernel's flusher
		# may clear it between two looks).
		if [ "$1" -ge $SECTORS ] && only "$2" level,0,1 && [[ " $l1" =~ ^\ $ddpid:([0-9]+)\ $ ]]; then
			pass "beside a level-19 reader, cfq-prio queues a level-1 dd's writeback under the dd's pid, alone at level 1 (up to ${BASH_REMATCH[1]} requests queued; $2)"
		else
			fail "beside a level-19 reader, cfq-prio queues a level-1 dd's writeback under the dd's pid, alone at level 1" \
				"$got" "$(sort -u "$tmp/queues.log" | head -12)"
		fi
	else
		if [ "$1" -ge $SECTORS ] && only "$2" level,0,10 && [ -z "$mine" ] && [ -n "$kq" ]; then
			pass "with ioprio_writeback 0 cfq-prio queues it under the kworker at level 10 (tgid:most queued ${kq% }), none under the dd"
		else
			fail "with ioprio_writeback 0 cfq-prio queues it under the kworker at level 10, none under the dd" \
				"$got" "$(sort -u "$tmp/queues.log" | head -12)"
		fi
	fi
done
echo 1 >$WB

# --- (c) a task's own writeback keeps the task's level.  The flusher
# leaves the files alone meanwhile (30 s expiry again).
echo "$saved_expire" >$VM/dirty_expire_centisecs
echo "$saved_wb" >$VM/dirty_writeback_centisecs
sync

# dd conv=fsync at level 15: a new file, written by the dd itself.  Old: the
# same (a regression check: it fails if the flusher's rule took over).
echo >$TRACEFS/trace
ioprio -n 15 -- dd if=/dev/zero of="$mnt/G" bs=1M count=$MB conv=fsync status=none
extents "$mnt/G" >"$tmp/ext"
sleep 0.2
got=$(file_reqs "$tmp/ext")
cp $TRACEFS/trace "$tmp/trace.15"
issued_as "dd conv=fsync at level 15 writes its data at level 15 itself" \
	level,0,15 dd 15 $got

# fsync at level 5 of a file that a level-19 writer dirtied: the fsync's
# level, not the recorded one.  Old: the same (regression check).
ioprio -n 19 -- dd if=/dev/zero of="$mnt/F" bs=1M count=$MB conv=notrunc status=none
extents "$mnt/F" >"$tmp/ext"
echo >$TRACEFS/trace
ioprio -n 5 -- sync "$mnt/F"
sleep 0.2
got=$(file_reqs "$tmp/ext")
cp $TRACEFS/trace "$tmp/trace.5"
issued_as "fsync (sync FILE) at level 5 of a file a level-19 writer dirtied writes it at level 5 itself" \
	level,0,5 sync 5 $got

# sync(2) from a level-10 shell: the flusher writes a level-19 writer's
# file at 19, above its own level.  Old: level,0,10.
ioprio -n 19 -- dd if=/dev/zero of="$mnt/H" bs=1M count=$MB conv=notrunc status=none
extents "$mnt/H" >"$tmp/ext"
echo >$TRACEFS/trace
sync
sleep 0.2
got=$(file_reqs "$tmp/ext")
cp $TRACEFS/trace "$tmp/trace.sync"
issued_as "sync(2) has the flusher write a level-19 writer's file at level 19" \
	level,0,19 kworker sync $got
trace_stop

# --- (d) nothing lost: fio's buffered random writes at level 1 (paced, so
# that the flusher writes most of them back, at level 1, as they expire),
# beside a level-19 direct reader of the device; verified from the page
# cache, then after the filesystem is mounted again and the caches dropped
# (--verify_only), from the device.  Old: the same (a regression check).
echo 100 >$VM/dirty_expire_centisecs
echo 50 >$VM/dirty_writeback_centisecs
vopts="--name=v --filename=$mnt/verify --rw=randwrite --bs=4k --size=32M --ioengine=psync --verify=crc32c --verify_fatal=1"
a=$(levels $dev)
fio_bg "$tmp/reader" 19 --name=r --filename=/dev/$dev --direct=1 --ioengine=libaio --iodepth=4 \
	--rw=randread --bs=4k --size=200M --time_based --runtime=300
reader=$FIO_PID
wait_for 30 dispatched_more "$a" $dev 19
timeout 300 ioprio -n 1 -- fio --output-format=terse --terse-version=3 $vopts \
	--do_verify=1 --rate=8m --end_fsync=1 >"$tmp/v1" 2>&1
sleep 1
kill $reader
wait $reader 2>/dev/null
b=$(levels $dev)
l1=$(delta "$a" "$b" 1 sectors)
check "buffered writes at level 1 beside a level-19 reader verify (fio verify=crc32c, end_fsync; $l1 sectors went out at level 1)" \
	verified "$tmp/v1"
umount "$mnt" && echo 3 >$VM/drop_caches && mount /dev/$dev "$mnt" ||
	fail "ext4 mounted again"
timeout 300 fio --output-format=terse --terse-version=3 $vopts --verify_only=1 >"$tmp/v2" 2>&1
check "they read back intact from the device after a remount and drop_caches (fio --verify_only)" \
	verified "$tmp/v2"
umount "$mnt"
sleep 0.2
s=$(levels $dev)
expect_eq "every request was served (none queued, listed or in flight; inserted = completed)" \
	"" "$(settled "$s" $(seq 0 20))"

# --- (e) back to the default.
echo 1 >$WB 2>/dev/null
expect_eq "kernel.ioprio_writeback is 1 again at the end" 1 "$(cat $WB 2>&1)"
bad=$(kmsg_since "$mark" | grep -E "$KMSG_BAD" | head -3)
expect_eq "no warning in the kernel log" "" "$bad"
done_testing

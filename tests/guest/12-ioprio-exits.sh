# Where an I/O priority enters and leaves the block layer (issue 12,
# DESIGN.md 3.1-3.2): aio's IOCB_FLAG_IOPRIO and io_uring's sqe->ioprio with
# a level (accepted, EPERM for 20 unprivileged, EINVAL above 20, and the
# requests carry the level); the cgroup io.prio.class policies on requests
# of the level class; what virtio-blk puts in its request header (classic);
# the class blk_print_req_error names (classic); merging of requests whose
# priorities are at one level; trace-cmd decoding the level from the block
# trace events.
#
# What older kernels give is said at each check: "stock" is a kernel without
# the series (class 4 is EINVAL), "old" the series before issue 12.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

probe=$CFQ_SRC/build/tests/ioprio-probe
[ -x "$probe" ] || { fail "ioprio-probe built" "missing $probe (make test-progs)"; done_testing; }
# A copy that nobody can run (the shared tree may be closed to it).
work=$(mktemp -d)
chmod 755 "$work"
install -m 755 "$probe" "$work/ioprio-probe"
probe=$work/ioprio-probe
LEVEL=0x8000 RT=0x2000 BE=0x4000 IDLE=0x6000
nobody=65534
as_nobody() { "$probe" as $nobody $nobody "$@"; }
devs=()
cg=/sys/fs/cgroup/cfq12
io_enabled=
kprobe=
tracing_was=$(cat $TRACEFS/tracing_on)
cleanup() {
	local d
	trace_stop
	if [ -n "$kprobe" ]; then
		echo 0 >$TRACEFS/events/kprobes/cfqvblk/enable 2>/dev/null
		echo '-:cfqvblk' >>$TRACEFS/kprobe_events 2>/dev/null
	fi
	[ -d "$cg" ] && rmdir "$cg" 2>/dev/null
	[ -z "$io_enabled" ] || echo -io >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	wait
	for d in "${devs[@]}"; do nullb_remove "$d"; done
	echo "$tracing_was" >$TRACEFS/tracing_on
	rm -rf "$work"
}
trap cleanup EXIT

# The test's own shell never set an I/O priority and runs at nice 0.
ionice -c 0 -p $$
renice -n 0 -p $$ >/dev/null
echo 1 >/proc/sys/kernel/ioprio_from_nice

# mkdev NAME [ATTR=VALUE...]: a null_blk device, removed at the end.
mkdev() {
	if nullb_create "$@"; then
		devs+=("$1")
	else
		fail "null_blk device $1 ${*:2}"
		return 1
	fi
}

# carried CMD...: "OUTPUT PRIO": what CMD printed (ok, EPERM, ...; read
# prints nothing) and the priority field ("level,0,15") of the first request
# inserted or issued on the traced device (trace_start), if any was.
carried() {
	local out prio
	echo >$TRACEFS/trace
	out=$("$@" 2>/dev/null)
	prio=$(sed -n 's/.*block_rq_i[a-z]*: .* \([a-z]*,[0-9]*,[0-9]*\) \[.*\]$/\1/p' $TRACEFS/trace | head -1)
	out=${out//$'\n'/ }
	echo "$out${out:+${prio:+ }}$prio"
}

# --- aio: IOCB_FLAG_IOPRIO with aio_reqprio of the level class -----------------
# Stock: every level value is EINVAL.  Old: the same results as now.
if mkdev cfq12a; then
	chmod 644 /dev/cfq12a	# nobody reads it too
	trace_start cfq12a block_rq_insert block_rq_issue
	for l in 15 0 10 20; do
		expect_eq "aio: level $l from root is taken and the request carries it" "ok level,0,$l" \
			"$(carried "$probe" aio $((LEVEL | l)) /dev/cfq12a)"
	done
	expect_eq "aio: BE 3 is carried as set" "ok be,0,3" "$(carried "$probe" aio $((BE | 3)) /dev/cfq12a)"
	expect_eq "aio: level 19 from an unprivileged user is taken and carried" "ok level,0,19" \
		"$(carried as_nobody -- "$probe" aio $((LEVEL | 19)) /dev/cfq12a)"
	expect_eq "aio: level 20 from an unprivileged user is EPERM, and nothing is read" "EPERM" \
		"$(carried as_nobody -- "$probe" aio $((LEVEL | 20)) /dev/cfq12a)"
	expect_eq "aio: level 20 with CAP_SYS_NICE alone is taken and carried" "ok level,0,20" \
		"$(carried as_nobody sys_nice -- "$probe" aio $((LEVEL | 20)) /dev/cfq12a)"
	for v in $((LEVEL | 21)) $((LEVEL | 32)) $((LEVEL | 0x1fff)); do
		expect_eq "aio: $(printf 0x%x $v) (level above 20) is EINVAL, and nothing is read" "EINVAL" \
			"$(carried "$probe" aio $v /dev/cfq12a)"
	done

	# --- io_uring: sqe->ioprio, read back from the requests ----------------
	# Stock: the levels are EINVAL.  Old: the same; 10-ioprio-abi checked
	# only that io_uring takes or refuses the value.
	for l in 15 1 20; do
		expect_eq "io_uring: sqe->ioprio level $l from root: the request carries it" "ok level,0,$l" \
			"$(carried "$probe" uring $((LEVEL | l)) /dev/cfq12a)"
	done
	expect_eq "io_uring: sqe->ioprio BE 3 is carried as set" "ok be,0,3" \
		"$(carried "$probe" uring $((BE | 3)) /dev/cfq12a)"
	expect_eq "io_uring: level 19 from an unprivileged user is carried" "ok level,0,19" \
		"$(carried as_nobody -- "$probe" uring $((LEVEL | 19)) /dev/cfq12a)"
	expect_eq "io_uring: level 20 from an unprivileged user is EPERM, and nothing is read" "EPERM" \
		"$(carried as_nobody -- "$probe" uring $((LEVEL | 20)) /dev/cfq12a)"
	expect_eq "io_uring: level 21 is EINVAL, and nothing is read" "EINVAL" \
		"$(carried "$probe" uring $((LEVEL | 21)) /dev/cfq12a)"
	expect_eq "io_uring: sqe->ioprio 0 takes the task's level (ioprio -n 7)" "ok level,0,7" \
		"$(carried ioprio -n 7 -- "$probe" uring 0 /dev/cfq12a)"
	trace_stop
fi

# --- cgroup io.prio.class on requests of the level class, under cfq-prio --------
# blk-ioprio compares through the classic equivalent: promote-to-rt makes
# anything below real time RT 4 and keeps level 20; restrict-to-be caps at
# BE 0 (level 20 becomes BE 0, level 15 = BE 2 stays); idle makes anything
# but idle IDLE.  Stock: the levels are EINVAL, so no request carries one.
# Old: the same as now (the series mapped blk-ioprio from its start); a
# raw comparison would leave every level as it was under restrict-to-be and
# idle (0x80xx is above every classic value) and make level 20 RT 4 under
# promote-to-rt.
cgroot=/sys/fs/cgroup
if ! grep -qw io $cgroot/cgroup.controllers 2>/dev/null; then
	fail "cgroup v2 at $cgroot offers the io controller" "controllers: $(cat $cgroot/cgroup.controllers 2>&1)"
elif mkdev cfq12c && sched_set cfq12c cfq-prio; then
	if ! grep -qw io $cgroot/cgroup.subtree_control; then
		echo +io >$cgroot/cgroup.subtree_control && io_enabled=1
	fi
	mkdir -p "$cg"
	if ! [ -f "$cg/io.prio.class" ]; then
		fail "a cgroup has io.prio.class (CONFIG_BLK_CGROUP_IOPRIO)" "$(ls "$cg" | tr '\n' ' ')"
	else
		# incg CMD...: CMD in the test cgroup.
		incg() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@"; }
		trace_start cfq12c block_rq_insert block_rq_issue
		# policy value:expected... (value "-": a task that never set one, level 10)
		for spec in \
			"promote-to-rt $((LEVEL | 5)):rt,0,4 $((LEVEL | 15)):rt,0,4 $((LEVEL | 20)):level,0,20 $((BE | 3)):rt,0,4 -:rt,0,4 $((LEVEL | 0)):rt,0,4" \
			"restrict-to-be $((LEVEL | 20)):be,0,0 $((LEVEL | 15)):level,0,15 $((LEVEL | 19)):level,0,19 $((LEVEL | 5)):level,0,5 $((LEVEL | 0)):level,0,0 $((RT | 2)):be,0,0 -:level,0,10" \
			"idle $((LEVEL | 5)):idle,0,0 $((LEVEL | 20)):idle,0,0 $((LEVEL | 0)):level,0,0 -:idle,0,0" \
			"no-change $((LEVEL | 5)):level,0,5 $((LEVEL | 20)):level,0,20 $((BE | 3)):be,0,3 -:level,0,10"; do
			set -- $spec
			policy=$1
			shift
			echo "$policy" >"$cg/io.prio.class"
			expect_eq "io.prio.class reads back $policy" "$policy" "$(cat "$cg/io.prio.class")"
			want='' got=''
			for c in "$@"; do
				v=${c%%:*}
				want+="$v: ${c#*:}|"
				got+="$v: $(carried incg "$probe" read /dev/cfq12c "$v")|"
			done
			expect_eq "io.prio.class $policy: the levels the requests carry" "$want" "$got"
		done
		# cfq-prio serves it as what it carries: promote-to-rt puts a
		# level-5 task's request at level 20 in its counters.
		echo promote-to-rt >"$cg/io.prio.class"
		s0=$(levels cfq12c)
		incg "$probe" read /dev/cfq12c $((LEVEL | 5))
		s1=$(levels cfq12c)
		expect_eq "io.prio.class promote-to-rt: cfq-prio dispatches a level-5 task's read at level 20" \
			"level 20: 1, level 5: 0" \
			"level 20: $(delta "$s0" "$s1" 20 dispatched), level 5: $(delta "$s0" "$s1" 5 dispatched)"
		echo no-change >"$cg/io.prio.class"
		trace_stop
	fi
fi

# --- virtio-blk: the request header carries the classic value --------------------
# A kprobe on virtqueue_add_sgs reads the struct virtblk_req (its 5th
# argument), whose first member is struct virtio_blk_outhdr { __virtio32
# type, ioprio; __virtio64 sector; }: what the hypervisor reads.  Stock: the
# classic values, the levels EINVAL.  Old: the raw level value (level 15 =
# 0x800f = 32783; an unset task 0x800a = 32778).
vd=$(scratch_disk)
if [ -z "$vd" ]; then
	fail "the virtio-blk scratch disk (/dev/disk/by-id/virtio-cfq-scratch)" "$(lsblk -o NAME,SERIAL,TYPE 2>&1)"
elif ! [ -w $TRACEFS/kprobe_events ]; then
	fail "kprobe events (CONFIG_KPROBE_EVENTS): $TRACEFS/kprobe_events" "$(ls $TRACEFS | tr '\n' ' ')"
elif ! echo 'p:cfqvblk virtqueue_add_sgs type=+0($arg5):u32 ioprio=+4($arg5):u32 sector=+8($arg5):u64' \
	>>$TRACEFS/kprobe_events; then
	fail "a kprobe event on virtqueue_add_sgs" "$(tail -3 $TRACEFS/error_log 2>&1)"
else
	kprobe=1
	base=123456	# sectors base, base + 8, ...: 4 KiB reads of nothing else
	ev=$TRACEFS/events/kprobes/cfqvblk
	# virtio-scsi (root disk) and 9p call virtqueue_add_sgs too, with other
	# structures: keep to the sectors of these reads.
	echo "type == 0 && sector >= $base && sector < $((base + 1024))" >$ev/filter
	echo 0 >$TRACEFS/tracing_on
	echo >$TRACEFS/trace
	echo 1 >$ev/enable
	echo 1 >$TRACEFS/tracing_on
	i=0 want='' got=''
	# what VALUE PREFIX...: the ioprio word of the header of one read at
	# priority VALUE ("-": as the task has it), run under PREFIX.
	for spec in \
		"level-15 $((LEVEL | 15)) 16386" "level-20 $((LEVEL | 20)) 8196" "level-0 $((LEVEL | 0)) 24576" \
		"level-19 $((LEVEL | 19)) 16384" "level-10 $((LEVEL | 10)) 16388" "level-1 $((LEVEL | 1)) 16391" \
		"BE-3 $((BE | 3)) 16387" "RT-2 $((RT | 2)) 8194" "IDLE $IDLE 24576" \
		"unset,nice-0 - 16388" "unset,nice-19 - 16391 nice -n 19" "unset,SCHED_FIFO - 8196 chrt -f 10"; do
		set -- $spec
		name=$1 v=$2 w=$3
		shift 3
		s=$((base + 8 * i))
		i=$((i + 1))
		echo >$TRACEFS/trace
		"$@" "$probe" read "$vd" "$v" $((s * 512)) >/dev/null
		h=$(sed -n "s/.*cfqvblk: .* type=0 ioprio=\([0-9]*\) sector=$s\$/\1/p" $TRACEFS/trace | head -1)
		want+="$name: $w|"
		got+="$name: ${h:-none}|"
	done
	expect_eq "virtio-blk: the header's ioprio is the classic equivalent (BE 2, RT 4, IDLE, BE 0, BE 4, BE 7; classic as set; unset tasks as a stock kernel)" \
		"$want" "$got"
	echo 0 >$ev/enable
	echo '-:cfqvblk' >>$TRACEFS/kprobe_events && kprobe=
	expect_eq "the kprobe event is removed" "" "$(grep cfqvblk $TRACEFS/kprobe_events)"
fi

# --- blk_print_req_error: "prio class" is the classic class -----------------------
# A read of a bad block of null_blk fails with an I/O error that the block
# layer logs.  Stock: no levels.  Old: "prio class 4" for every level.
if mkdev cfq12e; then
	if ! echo "+2048-2055" >/sys/kernel/config/nullb/cfq12e/badblocks; then
		fail "null_blk takes badblocks"
	else
		want='' got=''
		for pair in 15:2 20:1 0:3 1:2 -:2 $((BE | 5)):2; do
			v=${pair%%:*}
			case $v in -) name=unset ;; [0-9]|[0-9][0-9]) name="level $v"; v=$((LEVEL | v)) ;; *) name=$(printf 0x%x "$v") ;; esac
			mark=$(kmsg_mark)
			if "$probe" read /dev/cfq12e "$v" 1048576 >/dev/null 2>&1; then
				r=read
			else
				r=failed
			fi
			c=$(kmsg_since "$mark" | sed -n 's/.*I\/O error, dev cfq12e, sector 2048 .* prio class \([0-9]*\)$/\1/p' | tail -1)
			want+="$name: failed, prio class ${pair#*:}|"
			got+="$name: $r, prio class ${c:-(no message)}|"
			sleep 0.2
		done
		expect_eq "blk_print_req_error names the classic class of a read's priority" "$want" "$got"
	fi
fi

# --- merging: priorities at one level merge, others do not ------------------------
# ioprio-probe aio-pairs submits 4 pairs of adjacent 4 KiB reads in one
# io_submit (plugged): merged, the device sees 4 requests of 16 sectors;
# not merged, 8 of 8.  Old and stock: raw values were compared, so BE 4 and
# level 10 (0x4004, 0x800a) did not merge.
# sizes: the issued requests of the trace as "COUNTxSECTORS".
sizes() {
	trace_lines | awk '$2 == "rq_issue" { for (i = 3; i < NF; i++) if ($i == "+") { n[$(i + 1)]++; break } }
		END { for (k in n) printf "%dx%s\n", n[k], k }' | sort | paste -sd' '
}
if mkdev cfq12m; then
	for s in cfq-prio mq-deadline; do
		sched_set cfq12m $s || { fail "select $s on cfq12m"; continue; }
		want='' got=''
		for spec in \
			"BE-4+level-10 $((BE | 4)) $((LEVEL | 10)) 4x16" "level-10+BE-4 $((LEVEL | 10)) $((BE | 4)) 4x16" \
			"BE-0+level-18 $((BE | 0)) $((LEVEL | 18)) 4x16" "RT-4+level-20 $((RT | 4)) $((LEVEL | 20)) 4x16" \
			"IDLE+level-0 $IDLE $((LEVEL | 0)) 4x16" "level-10+level-10 $((LEVEL | 10)) $((LEVEL | 10)) 4x16" \
			"level-9+level-10 $((LEVEL | 9)) $((LEVEL | 10)) 8x8" "BE-4+level-9 $((BE | 4)) $((LEVEL | 9)) 8x8" \
			"BE-4+BE-3 $((BE | 4)) $((BE | 3)) 8x8" "BE-4-hint-1+level-10 $((BE | 1 << 3 | 4)) $((LEVEL | 10)) 8x8"; do
			set -- $spec
			trace_start cfq12m block_rq_issue
			r=$("$probe" aio-pairs /dev/cfq12m "$2" "$3" 4)
			want+="$1: ok $4|"
			got+="$1: $r $(sizes)|"
			trace_stop
		done
		expect_eq "$s: reads at one level merge (BE 4 and level 10), at two levels not (9 and 10)" "$want" "$got"
	done
fi

# --- trace-cmd decodes the level ---------------------------------------------------
# The print format of the block events names IOPRIO_CLASS_*; without
# TRACE_DEFINE_ENUM (old) the format file keeps the names and user-space
# parsers cannot resolve them.
bad=
for f in $TRACEFS/events/block/*/format; do
	grep -q 'IOPRIO_CLASS_' "$f" && bad+=" $(basename "$(dirname "$f")")"
done
expect_eq "no block event format names IOPRIO_CLASS_ (they are resolved to numbers)" "" "$bad"
if ! command -v trace-cmd >/dev/null; then
	fail "trace-cmd is installed"
elif mkdev cfq12t; then
	mm=$(cat /sys/block/cfq12t/dev)
	out=$(cd "$work" && trace-cmd record -e block:block_rq_issue \
		-f "dev == $(((${mm%:*} << 20) | ${mm#*:}))" -o "$work/x.dat" \
		"$probe" read /dev/cfq12t $((LEVEL | 15)) 2>&1)
	report=$(trace-cmd report -i "$work/x.dat" 2>&1)
	line=$(grep 'block_rq_issue' <<<"$report" | head -1)
	if [[ $line == *" level,0,15 "* ]]; then
		pass "trace-cmd report shows the level of a read at level 15 (level,0,15)"
	else
		fail "trace-cmd report shows the level of a read at level 15 (level,0,15)" \
			"record: $(tail -3 <<<"$out")" "report: $(grep -v '^cpus=' <<<"$report" | head -5)"
	fi
	# trace-cmd leaves the events it enabled, and their filters, behind.
	echo 0 >$TRACEFS/events/enable
	echo 0 >$TRACEFS/events/block/block_rq_issue/filter
fi
done_testing

# Helpers for the cfq-prio behaviour tests (30-39): source after tests/lib.sh
# and tests/guest/common.sh.  The tests read the scheduler's own counters
# (debugfs, DESIGN.md S11) and the block trace events rather than wall-clock
# time wherever they can.

TRACEFS=/sys/kernel/tracing

# slow_dev NAME [ATTR=VALUE...]: a null_blk device that is the bottleneck
# (1 ms completions, hardware queue depth 2), running cfq-prio with 128
# scheduler requests, or with the device's default (4) when SLOW_DEFAULT=1.
# Later attributes override.
slow_dev() {
	local name=$1
	shift
	nullb_create "$name" irqmode=2 completion_nsec=1000000 hw_queue_depth=2 "$@" &&
		sched_set "$name" cfq-prio || return 1
	[ "${SLOW_DEFAULT:-0}" = 1 ] || echo 128 >"/sys/block/$name/queue/nr_requests"
}

# test_dev NAME [ATTR=VALUE...]: the start of a behaviour test.  Makes the
# slow_dev NAME (dev=NAME) and a scratch folder (tmp), and on exit stops
# tracing, waits for background jobs and removes the folder and every
# null_blk device the test made.  A device that cannot be made fails the
# test, which ends there.
test_dev() {
	dev=$1
	tmp=$(mktemp -d)
	trap test_dev_cleanup EXIT
	if ! slow_dev "$@"; then
		fail "slow null_blk device${2:+ (${*:2})} running cfq-prio"
		done_testing
	fi
}
test_dev_cleanup() {
	local d
	trace_stop
	wait
	for d in "${NULLB_MADE[@]}"; do
		nullb_remove "$d"
	done
	rm -rf "$tmp"
}

# tunable DEV NAME [VALUE]: read, or set, a cfq-prio tunable.
tunable() {
	if [ $# -eq 3 ]; then
		echo "$3" >"/sys/block/$1/queue/iosched/$2"
	else
		cat "/sys/block/$1/queue/iosched/$2"
	fi
}

# levels DEV: a snapshot of the per-level counters; counter SNAPSHOT LEVEL
# COLUMN reads one of them by its column name (level queues queued listed
# inflight inserted merged dispatched sectors sent_back fallback completed
# held).
levels() { cat "/sys/kernel/debug/block/$1/sched/levels"; }
counter() {
	awk -v l="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == l && (c in col) { print $col[c]; found = 1; exit }
		END { if (!found) print "?" }' <<<"$1"
}
# delta A B LEVEL COLUMN: how much a counter grew from snapshot A to B.
delta() { echo $(($(counter "$2" "$3" "$4") - $(counter "$1" "$3" "$4"))); }

# dispatched DEV LEVEL: true once LEVEL has had a request dispatched, ever:
# to wait for a reader started after others of its level, use
# dispatched_more with a snapshot taken before it starts.
dispatched() { [ "$(counter "$(levels "$1")" "$2" dispatched)" -gt 0 ]; }
# dispatched_more SNAPSHOT DEV LEVEL: LEVEL has had dispatches since SNAPSHOT.
dispatched_more() { [ "$(delta "$1" "$(levels "$2")" "$3" dispatched)" -gt 0 ]; }

# wait_for SECONDS COMMAND...: poll COMMAND every 0.1 s until it succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# ended PID: the process PID has ended.
ended() { ! kill -0 "$1" 2>/dev/null; }

# fio_at LEVEL FIO-ARG...: fio run at an I/O priority level, terse output.
fio_at() {
	local level=$1
	shift
	ioprio -n "$level" -- fio --output-format=terse --terse-version=3 "$@"
}

# fio_bg OUTPUT LEVEL FIO-ARG...: fio_at in the background, output to
# OUTPUT; FIO_PID is fio's own pid (ioprio execs it), for kill and wait.
fio_bg() {
	local out=$1 level=$2
	shift 2
	ioprio -n "$level" -- fio --output-format=terse --terse-version=3 "$@" >"$out" 2>&1 &
	FIO_PID=$!
}

# trace_start DEV EVENT...: record these block trace events of DEV alone,
# in an emptied buffer.  trace_stop stops and disables them (and
# sched_switch); trace_lines prints the records as "SECONDS EVENT REST"
# (EVENT without "block_").
trace_start() {
	local dev=$1 e mm
	shift
	mm=$(cat "/sys/block/$dev/dev")
	echo 0 >$TRACEFS/tracing_on
	echo 8192 >$TRACEFS/buffer_size_kb
	echo >$TRACEFS/trace
	for e in "$@"; do
		echo "dev == $(((${mm%:*} << 20) | ${mm#*:}))" >$TRACEFS/events/block/$e/filter
		echo 1 >$TRACEFS/events/block/$e/enable
	done
	echo 1 >$TRACEFS/tracing_on
}
trace_stop() {
	local e
	echo 0 >$TRACEFS/tracing_on
	for e in $TRACEFS/events/block/*/ $TRACEFS/events/sched/sched_switch/; do
		[ -f "$e/enable" ] || continue
		echo 0 >"$e/enable"
		echo 0 >"$e/filter"
	done
}
trace_lines() {
	awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		if (i >= NF) next
		ev = $(i + 1); sub(/^block_/, "", ev); sub(/:$/, "", ev)
		rest = ""
		for (j = i + 2; j <= NF; j++) rest = rest " " $j
		printf "%s %s%s\n", substr($i, 1, length($i) - 1), ev, rest
	}' $TRACEFS/trace
}

# The level of a trace line's I/O priority field ("level,0,L", "rt,0,N",
# "be,0,N", "idle,0,0"), as DESIGN.md 3.2 maps it: an awk function.
AWK_LEVEL='function lvl(s,   a) {
	if (!match(s, /(level|rt|be|idle|none),[0-9]+,[0-9]+/)) return -1
	split(substr(s, RSTART, RLENGTH), a, ",")
	if (a[1] == "level") return a[3] + 0
	if (a[1] == "rt") return 20
	if (a[1] == "be") return 18 - 2 * a[3]
	if (a[1] == "idle") return 0
	return 10
}'

# AWK_FIELDS: an awk rule that sets, for each record of trace_lines, ev (the
# event), lv (the level, with lvl() of AWK_LEVEL) and sec (the first
# sector, -1 for none).  Use as awk "$AWK_LEVEL$AWK_FIELDS"'PROGRAM'.
AWK_FIELDS='
{ ev = $2; lv = lvl($0); sec = -1
  for (i = 3; i < NF; i++) if ($(i + 1) == "+") { sec = $i; break } }
'

# keep FILE NAME: a copy of FILE in the results folder, for a failure; its
# path is printed.
keep() {
	cp "$1" "$CFQ_OUT/$T_NAME.$2" 2>/dev/null && echo "$CFQ_OUT/$T_NAME.$2"
}

# within VALUE LOW HIGH: LOW <= VALUE <= HIGH, for decimals.
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# kmsg_mark / kmsg_since: the kernel log lines a test added.
kmsg_mark() { dmesg | wc -l; }
kmsg_since() { dmesg | tail -n +$(($1 + 1)); }
KMSG_BAD='WARNING:|BUG:|Oops|general protection|INFO: task .* blocked|hung_task|possible recursive locking|circular locking|KASAN|UBSAN|list_(add|del) corruption|Call Trace'

# verified FILE: fio's terse output says no error (field 5) for every job.
verified() {
	[ -s "$1" ] && awk -F';' '$1 == 3 { n++; if ($5 != 0) bad = 1 }
		END { exit !(n > 0 && !bad) }' "$1"
}

# settled SNAPSHOT LEVEL...: every request of these levels inserted has
# completed and none is queued, listed or in flight; prints what is not so.
settled() {
	local s=$1 l c bad=
	shift
	for l in "$@"; do
		for c in queued listed inflight; do
			[ "$(counter "$s" "$l" $c)" = 0 ] || bad="$bad level $l $c $(counter "$s" "$l" $c);"
		done
		[ "$(counter "$s" "$l" inserted)" = "$(counter "$s" "$l" completed)" ] ||
			bad="$bad level $l inserted $(counter "$s" "$l" inserted) completed $(counter "$s" "$l" completed);"
	done
	echo "$bad"
}

# sched_dump DEV: what a stuck device holds, for a failure's details: the
# scheduler's state and queues (S11), the hardware queues' state, and the
# stacks of the tasks in uninterruptible sleep.
sched_dump() {
	local d=/sys/kernel/debug/block/$1 f p
	echo "== nr_requests $(cat /sys/block/$1/queue/nr_requests)"
	for f in "$d"/sched/state "$d"/sched/levels "$d"/sched/queues "$d"/sched/dispatch \
		"$d"/hctx*/state "$d"/hctx*/dispatch "$d"/hctx*/busy "$d"/hctx*/tags \
		"$d"/hctx*/sched_tags "$d"/hctx*/sched_tags_bitmap; do
		[ -r "$f" ] || continue
		echo "== ${f#"$d"/}"
		cat "$f" 2>&1
	done
	for p in /proc/[0-9]*; do
		[ "$(awk '{ print $3 }' "$p/stat" 2>/dev/null)" = D ] || continue
		echo "== D: ${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
		cat "$p/stack" 2>/dev/null
	done
}

# run_levels TAG FIO-ARGS LEVEL...: one fio reader per level on $dev, each
# under `ioprio -n LEVEL`, for 10 s after a 2 s ramp; prints their IOPS (fio
# terse v3 field 8) in that order, and leaves the scheduler's dispatched
# counters over the run in $tmp/TAG.d.
run_levels() {
	local tag=$1 args=$2 l i=0 a b
	shift 2
	a=$(levels $dev)
	for l in "$@"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		fio_bg "$tmp/$tag.$i" $l --name=r$i $args --runtime=10 --ramp_time=2
	done
	wait
	b=$(levels $dev)
	for l in $(printf '%s\n' "$@" | sort -u); do
		printf '%s:%s ' $l "$(delta "$a" "$b" $l dispatched)"
	done >"$tmp/$tag.d"
	for ((l = 1; l <= i; l++)); do
		awk -F';' '$1 == 3 { printf "%d ", $8 }' "$tmp/$tag.$l"
	done
}

# judge_16_11_6 WHAT TAG A B C: WHAT (readers at levels 15, 10 and 5 that
# did A, B and C IOPS in run TAG) get ordered shares, each within 25 % of
# 16:11:6.
judge_16_11_6() {
	local what=$1 tag=$2 a=$3 b=$4 c=$5 shares
	# Each reader's share of the three, scaled to 33 (16 + 11 + 6).
	shares=$(awk -v a=$a -v b=$b -v c=$c 'BEGIN { t = a + b + c
		if (t) printf "%.1f:%.1f:%.1f", a * 33 / t, b * 33 / t, c * 33 / t }')
	if [ "$c" -gt 0 ] && [ "$a" -gt "$b" ] && [ "$b" -gt "$c" ] &&
		awk -v a=$a -v b=$b -v c=$c 'BEGIN { t = a + b + c
			exit !(a * 33 / t >= 16 * 0.75 && a * 33 / t <= 16 * 1.25 &&
			       b * 33 / t >= 11 * 0.75 && b * 33 / t <= 11 * 1.25 &&
			       c * 33 / t >= 6 * 0.75 && c * 33 / t <= 6 * 1.25) }'; then
		pass "$what get 16:11:6 within 25% ($a : $b : $c IOPS -> $shares)"
	else
		fail "$what get 16:11:6 within 25%" \
			"IOPS $a : $b : $c -> ${shares:-none}" "dispatched $(cat "$tmp/$tag.d")"
	fi
}

# p99 FILE: the 99th percentile completion latency (us) in fio's json.
p99() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(int(j["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"] / 1000))' "$1" 2>/dev/null || echo 0
}

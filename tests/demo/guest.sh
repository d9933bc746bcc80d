#!/bin/bash
# make demo: what the guest runs, shown inside the guest (cfqprio.run=demo).
#
# The story, second by second, on a slow null_blk device (1 ms per request,
# two at a time): readers at levels 15, 10 (following nice 0) and 5 share it
# 16:11:6; a real time reader arrives and takes it, the others resume after
# its grace period; `renice --io` and `renice -n` (nice) move running
# readers; an idle reader that got nothing all along takes the whole device
# within ~100 ms of the others stopping.  Then the same under BFQ and
# mq-deadline (the levels as their classic classes), shorter.
#
# A table gains a row each second (on a terminal the host redraws it in
# place: scripts/livetable.py): per reader its requests per second, MiB/s
# and share of the device, from cfq-prio's own per-level counters
# (debugfs sched/levels; under BFQ and mq-deadline from the readers'
# /proc/PID/io).  Data for the host's picture: $CFQ_OUT/shares.csv (one line
# per reader and second) and $CFQ_OUT/events.csv.
set -u
export LC_ALL=C
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"	# the block trace: trace_start, trace_lines

OUT=${CFQ_OUT:-/tmp/cfq-demo}
mkdir -p "$OUT"
CSV=$OUT/shares.csv
EVENTS=$OUT/events.csv
echo "scene,t,phase,reader,level,requests,mib_s,share" >"$CSV"
echo "scene,t,event" >"$EVENTS"
DEV=demo0
LV=/sys/kernel/debug/block/$DEV/sched/levels
NAMES=(a b c d e)

section() { printf '\n--- %s\n' "$*"; }

# bsleep SECONDS: sleep without a fork (read from a FIFO nobody writes)
NAP=$(mktemp -u /run/cfq-demo-nap.XXXXXX)
mkfifo "$NAP" && exec 7<>"$NAP" && rm -f "$NAP"
bsleep() { read -r -t "$1" -u 7 _; return 0; }
now_us() { NOW=${EPOCHREALTIME/./}; }

# lv_read: cfq-prio's counters per level into LV_D (dispatched), LV_S
# (sectors) and LV_B (queued + listed + in flight).
declare -a LV_D LV_S LV_B P_D P_S
lv_read() {
	local -a lines w
	local line i cd=0 cs=0 cq=0 cl=0 ci=0
	mapfile -t lines <"$LV" || return 1
	read -ra w <<<"${lines[0]}"
	for i in "${!w[@]}"; do
		case ${w[i]} in
		dispatched) cd=$i ;; sectors) cs=$i ;; queued) cq=$i ;; listed) cl=$i ;; inflight) ci=$i ;;
		esac
	done
	for line in "${lines[@]:1}"; do
		# split on blanks without a here-string (fast: polled every few ms)
		# shellcheck disable=SC2206
		w=($line)
		[ ${#w[@]} -gt "$ci" ] || continue
		LV_D[w[0]]=${w[cd]}
		LV_S[w[0]]=${w[cs]}
		LV_B[w[0]]=$((w[cq] + w[cl] + w[ci]))
	done
}

# --- the readers of a scene: fio jobs (random 4 KiB reads, O_DIRECT,
# libaio), each a fio process that forks one worker; the worker reads.
declare -A PID WPID LEVEL P_B
# prefix NAME: how reader NAME starts on scheduler $SCHED (the classic
# classes of DESIGN.md 3.2 for the mainline schedulers)
prefix() {
	case $SCHED:$1 in
	cfq-prio:a) echo "ioprio -n 15 --" ;;
	cfq-prio:c) echo "ioprio -n 5 --" ;;
	cfq-prio:d) echo "ioprio -n idle --" ;;
	cfq-prio:e) echo "ioprio -n rt --" ;;
	*:a) echo "ionice -c2 -n2" ;;
	*:c) echo "ionice -c2 -n7" ;;
	*:d) echo "ionice -c3" ;;
	*:e) echo "ionice -c1 -n4" ;;
	*) echo "" ;;		# b: nothing set, follows nice 0 (level 10)
	esac
}
start_reader() { # NAME LEVEL DEPTH
	local n=$1 p t
	# shellcheck disable=SC2046
	$(prefix "$n") fio --name="$n" --filename=/dev/$DEV --direct=1 --ioengine=libaio \
		--iodepth="$3" --rw=randread --bs=4k --norandommap --randrepeat=0 \
		--time_based --runtime=300 --output=/dev/null 2>/dev/null &
	PID[$n]=$!
	LEVEL[$n]=$2
	for ((t = 0; t < 100; t++)); do
		p=$(pgrep -P "${PID[$n]}" -x fio) && break
		bsleep 0.1
	done
	WPID[$n]=${p:-${PID[$n]}}
	rb "${WPID[$n]}"
	P_B[$n]=${RB:-0}
}
stop_readers() { # NAME...
	local n
	for n in "$@"; do kill -TERM "${PID[$n]}" 2>/dev/null; done
	for n in "$@"; do
		wait "${PID[$n]}" 2>/dev/null
		unset "PID[$n]" "WPID[$n]"
	done
}
workers() { local n list=; for n in "${NAMES[@]}"; do [ -n "${WPID[$n]:-}" ] && list+=${list:+,}${WPID[$n]}; done; echo "$list"; }

# --- the table: a row per second; its head names what runs in each column
# (ps -o ioprio: "15" a level set, "~10" one that follows nice, "be/2" ...).
head_row() {
	local n p v what h=""
	declare -A io=()
	while read -r p v; do io[$p]=$v; done < <(ps -o pid=,ioprio= -p "$(workers)" 2>/dev/null)
	for n in "${NAMES[@]}"; do
		if [ -n "${WPID[$n]:-}" ]; then what="${io[${WPID[$n]}]:-?}"; else what="-"; fi
		h+=$(printf ' | %-14s' "$n at $what")
	done
	printf '\n  %-6s%s\n' "" "$h"
	printf '  %-6s%s\n' "t (s)" "$(for n in "${NAMES[@]}"; do printf ' | %-14s' "req/s MiB/s  %"; done)"
}

sample() {
	local n l req by rows="" dt
	now_us
	dt=$((NOW - T_LAST))
	T_LAST=$NOW
	[ "$SCHED" = cfq-prio ] && lv_read
	for n in "${NAMES[@]}"; do
		if [ -z "${WPID[$n]:-}" ]; then
			rows+="$n - 0 0 0"$'\n'
			continue
		fi
		l=${LEVEL[$n]}
		if [ "$SCHED" = cfq-prio ]; then
			req=$((LV_D[l] - ${P_D[l]:-${LV_D[l]}}))
			by=$(((LV_S[l] - ${P_S[l]:-${LV_S[l]}}) * 512))
		else
			rb "${WPID[$n]}"
			RB=${RB:-${P_B[$n]}}
			by=$((RB - P_B[$n]))
			req=$((by / 4096))
			P_B[$n]=$RB
		fi
		rows+="$n $l $req $by 1"$'\n'
	done
	if [ "$SCHED" = cfq-prio ]; then
		for l in "${!LV_D[@]}"; do P_D[l]=${LV_D[l]}; P_S[l]=${LV_S[l]}; done
	fi
	printf '%s' "$rows" | awk -v dt="$dt" -v t="$(((NOW - T0) / 1000))" -v scene="$SCHED" \
		-v phase="$PHASE" -v csv="$CSV" '
		{ n[NR] = $1; l[NR] = $2; r[NR] = $3; b[NR] = $4; on[NR] = $5; tot += $3 }
		END {
			s = dt / 1e6
			line = sprintf("  %6.1f", t / 1000)
			for (i = 1; i <= NR; i++) {
				if (!on[i]) { line = line sprintf(" | %-14s", ""); continue }
				sh = tot ? r[i] / tot : 0
				line = line sprintf(" | %5d %4.2f %3.0f", r[i] / s, b[i] / s / 1048576, 100 * sh)
				printf "%s,%.3f,%s,%s,%d,%.1f,%.3f,%.4f\n", scene, t / 1000, phase, n[i], l[i],
					r[i] / s, b[i] / s / 1048576, sh >>csv
			}
			print line
		}'
}

# tick_to SECONDS: a row each second until SECONDS into the scene
tick_to() {
	local target r
	while [ $((K + 1)) -le "$1" ]; do
		K=$((K + 1))
		target=$((T0 + K * 1000000))
		now_us
		r=$((target - NOW))
		if [ $r -gt 0 ]; then bsleep "$(printf '%d.%06d' $((r / 1000000)) $((r % 1000000)))"; fi
		sample
	done
}

event() { # PHASE TEXT: a new phase starts now, with this event
	local t
	now_us
	t=$(((NOW - T0) / 1000))
	PHASE=$1
	printf '  >> %d.%d s: %s\n' $((t / 1000)) $((t % 1000 / 100)) "$2"
	printf '%s,%d.%03d,"%s"\n' "$SCHED" $((t / 1000)) $((t % 1000)) "$2" >>"$EVENTS"
}

show_ps() {
	printf '  $ ps -o pid,ioprio,ni,cmd -p %s\n' "$(workers)"
	COLUMNS=90 ps -o pid,ioprio,ni,cmd -p "$(workers)" | sed 's/^/  /'
}

# takeover: the idle reader's takeover, from the block trace of the device
# (started before the other readers were told to stop).  Waits, polling
# cfq-prio's counters, until no other level holds a request and the idle
# level has had a dispatch since (5 s at most), then reads the trace: from
# the last completion of another level's request to the first idle request
# that went to the device after it (the scheduler's quiet period,
# grace_idle_ms), and to that request's completion (the device's 1 ms on
# top).  Sets WAIT_MS and TAKEOVER_MS; false when there was no takeover.
# The trace stays in $CFQ_OUT/takeover.trace ("SECONDS EVENT ..." lines).
takeover() {
	local end busy l d0 r
	WAIT_MS='' TAKEOVER_MS=''
	now_us
	end=$((NOW + 5000000))
	lv_read
	d0=${LV_D[0]}
	while [ "$NOW" -lt $end ]; do
		lv_read
		now_us
		busy=0
		for ((l = 1; l <= 20; l++)); do busy=$((busy + ${LV_B[l]:-0})); done
		if [ $busy -gt 0 ]; then
			d0=${LV_D[0]}
		elif [ "${LV_D[0]}" -gt "$d0" ]; then
			break
		fi
		bsleep 0.002
	done
	bsleep 0.05
	trace_stop
	trace_lines >"$OUT/takeover.trace"
	r=$(awk "$AWK_LEVEL"'
		{ ev = $2; lv = lvl($0); sec = -1
		  for (i = 3; i < NF; i++) if ($(i + 1) == "+") { sec = $i; break } }
		lv > 0 && ev == "rq_complete" { last = $1; issue = ""; done = ""; next }
		last != "" && lv == 0 && ev == "rq_issue" && issue == "" { issue = $1; s = sec; next }
		issue != "" && lv == 0 && ev == "rq_complete" && sec == s && done == "" { done = $1 }
		END {
			if (last == "" || done == "") exit 1
			printf "%.1f %.1f\n", (issue - last) * 1000, (done - last) * 1000
		}' "$OUT/takeover.trace") || return 1
	read -r WAIT_MS TAKEOVER_MS <<<"$r"
}

# scene SCHED T...: the story on one scheduler; T are the times (s) of its
# events: the real time reader arrives, it stops, renice --io, renice -n,
# the others stop, the end.
scene() {
	SCHED=$1
	echo
	echo "  $SCHED:"
	local t_rt=$2 t_rtend=$3 t_renice=$4 t_nice=$5 t_stop=$6 t_end=$7 n
	sched_set $DEV "$SCHED" || { echo "  cannot select $SCHED on $DEV"; return 1; }
	echo 128 >/sys/block/$DEV/queue/nr_requests
	PID=() WPID=() LEVEL=() P_B=() P_D=() P_S=()
	start_reader a 15 8
	start_reader b 10 8
	start_reader c 5 8
	start_reader d 0 4
	# The counts start now, for every reader alike.
	for n in a b c d; do rb "${WPID[$n]}"; P_B[$n]=${RB:-0}; done
	now_us
	T0=$NOW T_LAST=$NOW K=0
	[ "$SCHED" = cfq-prio ] && lv_read && P_D=("${LV_D[@]}") && P_S=("${LV_S[@]}")
	PHASE=start
	event shares "a at 15, b at 10 (nice 0), c at 5 and d idle start reading"
	head_row
	tick_to "$t_rt"
	start_reader e 20 4
	event rt "a real time reader e arrives"
	head_row
	tick_to "$t_rtend"
	stop_readers e
	event after-rt "e stops: the others resume"
	head_row
	tick_to "$t_renice"
	event renice-io "renice --io 19 -p ${WPID[c]} (c, from 5)"
	show_ps
	printf '  $ renice --io 19 -p %s\n' "${WPID[c]}"
	renice --io 19 -p "${WPID[c]}" | sed 's/^/  /'
	LEVEL[c]=19
	show_ps
	head_row
	tick_to "$t_nice"
	event nice "renice -n 10 -p ${WPID[b]} (b follows nice: level 10 -> 5)"
	printf '  $ renice -n 10 -p %s\n' "${WPID[b]}"
	renice -n 10 -p "${WPID[b]}" | sed 's/^/  /'
	LEVEL[b]=5
	show_ps
	head_row
	tick_to "$t_stop"
	[ "$SCHED" = cfq-prio ] && trace_start $DEV block_rq_issue block_rq_complete
	event idle "a, b and c stop: only the idle reader d is left"
	for n in a b c; do kill -TERM "${PID[$n]}" 2>/dev/null; done
	if [ "$SCHED" = cfq-prio ]; then
		if takeover; then
			printf "  >> the idle reader had the disk %s ms after the others' last completion:\n" "$TAKEOVER_MS"
			printf '     its first request went out after %s ms of quiet (grace_idle_ms %s)\n' \
				"$WAIT_MS" "$(cat /sys/block/$DEV/queue/iosched/grace_idle_ms)"
			printf '     and took %s ms on the device (from the block trace)\n' \
				"$(awk -v a="$TAKEOVER_MS" -v b="$WAIT_MS" 'BEGIN { printf "%.1f", a - b }')"
			echo "$TAKEOVER_MS" >"$OUT/takeover-ms"
		else
			echo "  >> no idle request went to the device in the block trace of the others' stop (5 s)"
		fi
	fi
	stop_readers a b c
	head_row
	tick_to "$t_end"
	stop_readers d
	summary
}

# summary: per phase of the scene, each reader's share of the requests
# (its first second left out), and for cfq-prio what the levels promise.
summary() {
	echo
	echo "  $SCHED, share of the requests per phase (first second of each left out):"
	awk -F, -v scene="$SCHED" -v cfq="$([ "$SCHED" = cfq-prio ] && echo 1)" '
		$1 != scene { next }
		$3 != ph { ph = $3; np++; name[np] = ph; first = $2 }
		$2 == first { next }
		{ r[np, $4] += $6; tot[np] += $6; lv[np, $4] = $5; on[np, $4] = 1 }
		END {
			for (p = 1; p <= np; p++) {
				if (!tot[p]) continue
				line = sprintf("    %-10s", name[p]); want = ""; w = 0
				for (i = 1; i <= 5; i++) {
					x = substr("abcde", i, 1)
					if (!on[p, x]) continue
					line = line sprintf("  %s %5.1f%%", x, 100 * r[p, x] / tot[p])
					if (lv[p, x] >= 1 && lv[p, x] <= 19) { w += lv[p, x] + 1; k[x] = lv[p, x] + 1 } else k[x] = 0
				}
				if (cfq && w) {
					for (i = 1; i <= 5; i++) {
						x = substr("abcde", i, 1)
						if (on[p, x] && k[x]) want = want sprintf("%s%s %.1f%%", want == "" ? "" : " ", x, 100 * k[x] / w)
					}
					if (p > 1 && name[p] == "rt") want = "rt 100%"
					if (name[p] == "idle") want = "d 100%"
					line = line "   (levels: " want ")"
				}
				print line
			}
		}' "$CSV"
}

# ---------------------------------------------------------------------------
section "kernel"
uname -a

section "disks and their I/O schedulers"
for q in /sys/block/*/queue/scheduler; do
	d=${q#/sys/block/}; d=${d%%/*}
	case $d in loop*|ram*) continue ;; esac
	printf '%-10s %-28s %s\n' "$d" "$(cat "$q")" "$(cat "/sys/block/$d/device/model" 2>/dev/null || cat "/sys/block/$d/serial" 2>/dev/null)"
done

section "I/O priority levels"
printf 'kernel.ioprio_from_nice = %s\n' "$(cat /proc/sys/kernel/ioprio_from_nice)"
ioprio -p $$
nice -n 5 ioprio
ioprio -n 17 ioprio
ionice -c2 -n0 ioprio

section "cfq-prio at work on /dev/$DEV: null_blk, 1 ms per request, 2 at a time, nr_requests 128"
if ! nullb_create $DEV irqmode=2 completion_nsec=1000000 hw_queue_depth=2 size=1024; then
	echo "cannot create the null_blk device"
	exit 1
fi
cat <<EOF
Five fio readers (random 4 KiB reads, O_DIRECT): a at level 15 (depth 8),
b with no level set, following nice 0 (level 10, depth 8), c at level 5
(depth 8), d idle (level 0, depth 4); later e, real time (level 20, depth 4).
A row each second: per reader the requests per second and MiB/s the
scheduler dispatched for its level, and its share of the device.
EOF
sched_set $DEV cfq-prio &&
	echo "cfq-prio tunables: $(cd /sys/block/$DEV/queue/iosched && for t in *; do printf '%s=%s ' "$t" "$(cat "$t")"; done)"
status=0
scene cfq-prio 10 16 22 30 38 42 || status=1

section "the same under BFQ and mq-deadline (classic classes: 15 = BE2, 10 = BE4, 5 = BE7, idle, RT; renice --io 19 = BE0)"
for s in bfq mq-deadline; do
	scene "$s" 7 11 15 20 24 27 || status=1
done
nullb_remove $DEV
echo
echo "demo: data for the picture in shares.csv and events.csv"
exit $status

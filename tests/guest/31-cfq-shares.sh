# S4: weighted deficit round robin over levels 1..19.  Backlogged readers at
# levels 5, 10 and 15 get requests and sectors 6:11:16; two readers at one
# level get equal shares even when one keeps four times as many requests
# queued; a level-1 reader keeps making progress under a level-19 flood and
# gets its 2:20 share.  Shares are read from the scheduler's per-level
# counters over a window in which every reader runs.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

# Shares hold for backlogged readers: the device, not the guest CPU, has to
# be the bottleneck.  Under emulation the debug kernel (KASAN, lockdep)
# cannot keep a 1 ms device busy, so there completions take 4 ms.
nsec=1000000
case $(uname -r) in *-debug) nsec=4000000 ;; esac
test_dev share0 completion_nsec=$nsec
read_opts="--filename=/dev/$dev --direct=1 --ioengine=libaio --rw=randread --bs=4k --size=4G --time_based"

# shares A B COLUMN LEVEL...: the counter's growth per level from A to B,
# and that growth scaled so that the levels' (level + 1) add up as they do
# ("1620 2971 4322 -> 6.0:11.0:16.0"); exit status 0 if every level is within
# 10% of its (level + 1) share.
shares() {
	local a=$1 b=$2 col=$3 l d=
	shift 3
	for l in "$@"; do d="$d $l:$(delta "$a" "$b" "$l" "$col")"; done
	awk -v d="$d" 'BEGIN {
		n = split(d, p, " ")
		for (i = 1; i <= n; i++) {
			split(p[i], x, ":"); lv[i] = x[1]; c[i] = x[2]
			tot += c[i]; w += x[1] + 1
		}
		ok = tot > 0
		for (i = 1; i <= n; i++) {
			got = tot ? c[i] * w / tot : 0
			if (got < 0.9 * (lv[i] + 1) || got > 1.1 * (lv[i] + 1)) ok = 0
			raw = raw (i > 1 ? " " : "") c[i]
			out = out (i > 1 ? ":" : "") sprintf("%.1f", got)
		}
		print raw " -> " out
		exit !ok
	}'
}

# --- levels 5, 10 and 15, each a reader of depth 16
for l in 5 10 15; do
	fio_bg "$tmp/lvl$l" $l --name=lvl$l $read_opts --iodepth=16 --runtime=16
done
if wait_for 40 dispatched $dev 5 && wait_for 10 dispatched $dev 10 &&
	wait_for 10 dispatched $dev 15; then
	sleep 1
	a=$(levels $dev)
	sleep 8
	b=$(levels $dev)
	for col in dispatched sectors; do
		if r=$(shares "$a" "$b" $col 5 10 15); then
			pass "levels 5, 10 and 15 get $col 6:11:16 within 10% ($r)"
		else
			fail "levels 5, 10 and 15 get $col 6:11:16 within 10%" "got $r over 8 s"
		fi
	done
else
	fail "readers at levels 5, 10 and 15 started" "$(levels $dev)"
fi
wait

# --- two processes at level 10, at depths 32 and 8: equal shares.  fio forks
# a process per job; each counts its own reads after a ramp.
fio_at 10 $read_opts --runtime=8 --ramp_time=2 \
	--name=deep --iodepth=32 --name=shallow --iodepth=8 >"$tmp/pair" 2>&1
# terse v3: field 3 job name, 6 KiB read
kb=$(awk -F';' '$3 == "deep" { d = $6 } $3 == "shallow" { s = $6 }
	END { print d + 0, s + 0 }' "$tmp/pair")
set -- $kb
if [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && within "$(($1 * 1000 / $2))" 909 1100; then
	pass "two readers at level 10, depths 32 and 8, get equal shares within 10% ($1 KiB : $2 KiB)"
else
	fail "two readers at level 10, depths 32 and 8, get equal shares within 10%" \
		"KiB read: depth 32 $1, depth 8 $2" "$(cut -d';' -f1-6 "$tmp/pair" | tail -n 3)"
fi

# --- a level-1 reader under a level-19 flood
fio_bg "$tmp/flood" 19 --name=flood $read_opts --iodepth=32 --numjobs=2 --runtime=60
flood=$FIO_PID
fio_bg "$tmp/low" 1 --name=low $read_opts --iodepth=8 --runtime=60
low=$FIO_PID
if wait_for 40 dispatched $dev 19 && wait_for 40 dispatched $dev 1; then
	sleep 1
	first=$(levels $dev)
	prev=$first steps=
	for _ in 1 2 3 4 5 6 7 8; do
		sleep 1
		cur=$(levels $dev)
		steps="$steps $(delta "$prev" "$cur" 1 dispatched)"
		prev=$cur
	done
	stalled=$(for s in $steps; do [ "$s" -gt 0 ] || echo x; done | wc -l)
	if [ "$stalled" -eq 0 ]; then
		pass "a level-1 reader under a level-19 flood dispatches every second (${steps# })"
	else
		fail "a level-1 reader under a level-19 flood dispatches every second" \
			"level 1 dispatched per second:$steps"
	fi
	if r=$(shares "$first" "$cur" dispatched 1 19); then
		pass "levels 1 and 19 get requests 2:20 within 10% ($r)"
	else
		fail "levels 1 and 19 get requests 2:20 within 10%" "got $r over 8 s"
	fi
else
	fail "a level-1 reader started under a level-19 flood" "$(levels $dev)"
fi
kill $flood $low
wait
done_testing

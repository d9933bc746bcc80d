# S10: the eight cfq-prio tunables in /sys/block/DEV/queue/iosched/.  Each
# reads its default, takes the values of its range, clamps numbers outside it
# (negative, too large, beyond 64 bits) to the range, and refuses text that is
# not a decimal integer with EINVAL, keeping its value.  Defaults restored.
# slice_idle_us defaults to 0 on a non-rotational device of 5 or more driver
# slots, where waiting for a process does not pay (S4).
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

dev=tun0
dir=/sys/block/$dev/queue/iosched
if ! nullb_create $dev hw_queue_depth=2 || ! sched_set $dev cfq-prio; then
	fail "null_blk device running cfq-prio"
	done_testing
fi
trap 'nullb_remove $dev; nullb_remove tun64' EXIT

# name default minimum maximum (Documentation/block/cfq-prio.rst, S10)
table="quantum 6 1 64
quantum_io 256 8 65536
idle_quantum 1 1 64
idle_quantum_io 64 8 65536
grace_rt_ms 10 0 1000
grace_idle_ms 100 0 10000
slice_idle_us 4000 0 100000
aging_ms 10000 0 600000"

expect_eq "iosched/ holds the eight tunables" \
	"aging_ms grace_idle_ms grace_rt_ms idle_quantum idle_quantum_io quantum quantum_io slice_idle_us" \
	"$(ls $dir | sort | xargs)"

# put NAME TEXT: one write(2) of TEXT; prints ok, EINVAL or the error.
put() {
	local err
	if err=$({ printf '%s' "$2" >"$dir/$1"; } 2>&1); then
		echo ok
	else
		case $err in
		*"Invalid argument"*) echo EINVAL ;;
		*) echo "${err##*: }" ;;
		esac
	fi
}

# writes NAME EXPECTED-RESULT EXPECTED-VALUE TEXT...: write each TEXT, then
# read back; prints the ones that did not do as expected.
writes() {
	local name=$1 want=$2 value=$3 t r v bad=
	shift 3
	for t in "$@"; do
		r=$(put "$name" "$t")
		v=$(cat "$dir/$name")
		[ "$r" = "$want" ] && [ "$v" = "$value" ] ||
			bad="$bad '$(printf '%s' "$t" | tr '\n' '|')': $r, reads $v;"
	done
	echo "$bad"
}

while read -r name def min max; do
	expect_eq "$name reads its default $def" "$def" "$(cat $dir/$name)"

	mid=$(((min + max) / 2))
	[ $mid != "$def" ] || mid=$((mid + 1))
	bad=
	for v in $min $mid $max "$def"; do
		bad="$bad$(writes "$name" ok "$v" "$v
")"
	done
	expect_eq "$name takes $min, $mid, $max and $def" "" "$bad"

	below="$((min - 1)) -1 -4294967297 -9223372036854775808 -99999999999999999999999"
	[ "$min" -gt 0 ] || below="-1 -4294967297 -9223372036854775808 -99999999999999999999999"
	# shellcheck disable=SC2086
	expect_eq "$name clamps numbers below its range to $min" "" \
		"$(writes "$name" ok "$min" $below)"
	tunable $dev "$name" "$def"
	# shellcheck disable=SC2086
	expect_eq "$name clamps numbers above its range to $max" "" \
		"$(writes "$name" ok "$max" $((max + 1)) 4294967296 $((4294967296 + min)) \
			9223372036854775807 99999999999999999999999)"

	tunable $dev "$name" $mid
	expect_eq "$name refuses text with EINVAL and keeps its value ($mid)" "" \
		"$(writes "$name" EINVAL $mid abc 12abc 0x10 1.5 "
" " 7" "7 8" "-" "${mid}k")"
	tunable $dev "$name" "$def"
done <<<"$table"

# Defaults back, also as a fresh instance of the scheduler would have them.
bad=
while read -r name def min max; do
	[ "$(cat $dir/$name)" = "$def" ] || bad="$bad $name=$(cat $dir/$name)"
done <<<"$table"
expect_eq "every tunable is back at its default" "" "$bad"
tunable $dev quantum 9
sched_set $dev none && sched_set $dev cfq-prio
expect_eq "a new cfq-prio instance starts at the defaults (quantum 6 after 9)" 6 \
	"$(cat $dir/quantum 2>&1)"

# slice_idle_us by device: a fresh instance on a null_blk of 64 slots,
# non-rotational and then marked rotational, and on the one of 2 slots.
slice_default() { # DEV [ROTATIONAL]
	[ -z "$2" ] || echo "$2" >"/sys/block/$1/queue/rotational"
	sched_set $1 none && sched_set $1 cfq-prio && tunable $1 slice_idle_us
}
if nullb_create tun64 hw_queue_depth=64; then
	expect_eq "slice_idle_us defaults to 0 on a non-rotational device of 64 slots" 0 \
		"$(slice_default tun64 0)"
	expect_eq "slice_idle_us defaults to 4000 on a rotational device of 64 slots" 4000 \
		"$(slice_default tun64 1)"
	nullb_remove tun64
else
	fail "null_blk device of 64 slots"
fi
expect_eq "slice_idle_us defaults to 4000 on a non-rotational device of 2 slots" 4000 \
	"$(slice_default $dev 0)"
done_testing

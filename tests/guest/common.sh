# Helpers for guest tests: source after tests/lib.sh.

# nullb_create NAME [ATTR=VALUE...]: a null_blk device made through configfs,
# /dev/NAME.  memory_backed=1 keeps data (for verify); irqmode=2 with
# completion_nsec makes a slow device.  NULLB_MADE lists the names made, for
# a cleanup on exit.
NULLB_MADE=()
nullb_create() {
	local name=$1 kv dir=/sys/kernel/config/nullb/$1
	shift
	NULLB_MADE+=("$name")
	modprobe null_blk nr_devices=0 || return 1
	mkdir "$dir" || return 1
	for kv in "$@"; do
		echo "${kv#*=}" >"$dir/${kv%%=*}" || { rmdir "$dir"; return 1; }
	done
	echo 1 >"$dir/power" || { rmdir "$dir"; return 1; }
	udevadm settle
	[ -b "/dev/$name" ]
}

nullb_remove() {
	local dir=/sys/kernel/config/nullb/$1
	[ -d "$dir" ] || return 0
	echo 0 >"$dir/power"
	rmdir "$dir"
}

# The scheduler a disk runs, and the ones it offers.
sched_current() { sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$1/queue/scheduler"; }
sched_offered() { tr -d '[]' <"/sys/block/$1/queue/scheduler"; }

sched_set() {
	echo "$2" >"/sys/block/$1/queue/scheduler" && [ "$(sched_current "$1")" = "$2" ]
}

# The virtio-blk scratch disk the host attaches (serial cfq-scratch).
scratch_disk() {
	local d
	d=$(readlink -f /dev/disk/by-id/virtio-cfq-scratch 2>/dev/null) || return 1
	[ -b "$d" ] && echo "$d"
}

# rb PID: RB := the bytes PID has submitted for reading ("" once it is gone);
# builtins only, no fork (make bench reads it for 1,000 processes).
rb() {
	local l
	RB=
	mapfile -n 5 -t l <"/proc/$1/io" || return 0
	[[ ${l[4]-} == read_bytes:* ]] && RB=${l[4]#read_bytes: }
	return 0
} 2>/dev/null

# nap SECONDS: sleep (make bench has one that does not fork).
nap() { sleep "$1"; }

# started PID...: wait until every PID has submitted a read (at most 30 s).
started() {
	local p t ok
	for ((t = 0; t < 300; t++)); do
		ok=1
		for p in "$@"; do
			rb "$p"
			[ -n "$RB" ] && [ "$RB" != 0 ] || { ok=0; break; }
		done
		[ $ok = 1 ] && return 0
		nap 0.1
	done
	return 1
}

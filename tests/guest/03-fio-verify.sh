# Data written through every scheduler a disk offers reads back intact
# (fio verify=crc32c), on a memory-backed null_blk and on the virtio disk.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"

# fio_verify DEVICE: random writes with checksums, then the reads that verify
# them, at a queue depth that keeps the scheduler busy.
fio_verify() {
	local out
	out=$(fio --name=verify --filename="$1" --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randwrite --bs=4k --bssplit=4k/50:16k/30:64k/20 \
		--size=24M --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse --terse-version=3 2>&1) || { echo "$out"; return 1; }
	# terse v3: field 5 is the error count
	[ "$(echo "$out" | tail -n 1 | cut -d';' -f5)" = 0 ] || { echo "$out"; return 1; }
}

run_all() {
	local dev=$1 label=$2 name=${1#/dev/} s
	for s in $(sched_offered "$name"); do
		if ! sched_set "$name" "$s"; then
			fail "$label: select $s"
			continue
		fi
		check "$label: fio verify=crc32c under $s" fio_verify "$dev"
	done
}

if nullb_create verify0 memory_backed=1 size=64 blocksize=4096; then
	run_all /dev/verify0 null_blk
	nullb_remove verify0
else
	fail "memory-backed null_blk created through configfs"
fi

if disk=$(scratch_disk); then
	run_all "$disk" "virtio disk"
else
	fail "virtio scratch disk present" "no /dev/disk/by-id/virtio-cfq-scratch"
fi
done_testing

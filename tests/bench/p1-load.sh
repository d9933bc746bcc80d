# Sourced by the guest halves of make ab (ab.sh) and of make bench's
# instruction count (instructions.sh).

# p1_load_start DEV NAME: P1's load (DESIGN.md 7: 4 KiB random reads,
# io_uring, 2 jobs x depth 32) on /dev/DEV until killed, its pid in
# P1_LOAD_PID; returns once reads flow, 1 (and stops fio) when they do not
# within 60 s.  fio starts slowly under ACCEL=icount.
p1_load_start() {
	local dev=$1 a b i
	fio --name="$2" --filename="/dev/$dev" --direct=1 --ioengine=io_uring --iodepth=32 \
		--numjobs=2 --rw=randread --bs=4k --norandommap --randrepeat=0 \
		--time_based --runtime=3600 >/dev/null 2>&1 &
	P1_LOAD_PID=$!
	read -r a _ <"/sys/block/$dev/stat"
	for ((i = 0; i < 60; i++)); do
		sleep 1
		read -r b _ <"/sys/block/$dev/stat"
		[ "$b" -gt "$a" ] && return 0
	done
	kill "$P1_LOAD_PID"
	return 1
}

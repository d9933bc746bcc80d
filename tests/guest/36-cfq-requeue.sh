# S12, requeue handling: requests the driver gives back come back and are
# served, and the scheduler's accounting stays right.  null_blk's requeue
# fault injection refuses some requests, alternately with BLK_STS_RESOURCE
# (blk-mq keeps them on its own dispatch list) and blk_mq_requeue_request()
# (they are inserted again at the head).  Writers at levels 20, 10 and 0
# verify their data (fio verify); afterwards every request inserted has
# completed, none is queued, listed or in flight, and the grace periods still
# end (the idle writer finished, behind the others).
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

test_dev rq0 memory_backed=1 size=512
inj=/sys/kernel/config/nullb/$dev/requeue_inject
if [ ! -d $inj ]; then
	skip "requeued requests are served" "null_blk without requeue_inject (CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION)"
	done_testing
fi
times=2000
echo 0 >$inj/verbose		# no stack dump per injected fault
echo 1 >$inj/interval
echo 5 >$inj/probability
echo $times >$inj/times
tunable $dev grace_idle_ms 10

mark=$(kmsg_mark)
verify_opts="--filename=/dev/$dev --direct=1 --ioengine=libaio --bs=4k --rw=randwrite --verify=crc32c --verify_fatal=1 --do_verify=1"
fio_bg "$tmp/l20" 20 --name=l20 $verify_opts --iodepth=4 --offset=64M --size=2M
p20=$FIO_PID
fio_bg "$tmp/l10" 10 --name=l10 $verify_opts --iodepth=16 --offset=0 --size=8M
p10=$FIO_PID
fio_bg "$tmp/l0" 0 --name=l0 $verify_opts --iodepth=8 --offset=128M --size=2M
p0=$FIO_PID
# At 1 ms a request and two at a time, 12 MiB written and read back take
# about 6 s; allow for a slow (debug) kernel.
end=$((SECONDS + 300))
while [ $SECONDS -lt $end ] && { kill -0 $p20 || kill -0 $p10 || kill -0 $p0; } 2>/dev/null; do
	sleep 0.5
done
if kill -0 $p20 2>/dev/null || kill -0 $p10 2>/dev/null || kill -0 $p0 2>/dev/null; then
	fail "the writers finish within 300 s under requeues" "$(levels $dev)"
	kill $p20 $p10 $p0 2>/dev/null
	done_testing
fi
wait
left=$(cat $inj/times)
echo 0 >$inj/probability
injected=$((times - left))
s=$(levels $dev)

if [ "$injected" -gt 0 ]; then
	pass "the driver gave $injected requests back (requeue fault injection)"
else
	fail "the driver gave requests back (requeue fault injection)" "times left $left of $times"
fi
for l in 20 10 0; do
	check "the level-$l writer's data reads back intact (fio verify) after requeues" \
		verified "$tmp/l$l"
done
expect_eq "every request was served after requeues (none queued, listed or in flight; inserted = completed)" \
	"" "$(settled "$s" 20 10 0)"
bad=$(kmsg_since "$mark" | grep -E "$KMSG_BAD")
expect_eq "nothing in the kernel log while requests were requeued" "" "$bad"
done_testing

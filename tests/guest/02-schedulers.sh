# Every mainline blk-mq scheduler and cfq-prio is offered for a null_blk device and can be
# selected.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"

dev=sched0
if ! nullb_create $dev; then
	fail "null_blk device created through configfs"
	done_testing
fi
offered=" $(sched_offered $dev) "
for s in none mq-deadline kyber bfq cfq-prio; do
	case $offered in
	*" $s "*) check "$s offered and selectable on null_blk" sched_set $dev $s ;;
	*) fail "$s offered and selectable on null_blk" "offered: $offered" ;;
	esac
done
nullb_remove $dev

# The udev rule of the image makes cfq-prio the default on every disk.
bad=
for q in /sys/block/*/queue/scheduler; do
	d=${q#/sys/block/}; d=${d%%/*}
	case $d in loop*|ram*|zram*) continue ;; esac
	[ "$(sched_current "$d")" = cfq-prio ] || bad="$bad $d:$(sched_current "$d")"
done
expect_eq "every disk runs cfq-prio by default" "" "$bad"
done_testing

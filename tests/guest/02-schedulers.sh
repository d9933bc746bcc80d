# Every mainline blk-mq scheduler is offered for a null_blk device and can be
# selected.
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"

dev=sched0
if ! nullb_create $dev; then
	fail "null_blk device created through configfs"
	done_testing
fi
offered=" $(sched_offered $dev) "
for s in none mq-deadline kyber bfq; do
	case $offered in
	*" $s "*) check "$s offered and selectable on null_blk" sched_set $dev $s ;;
	*) fail "$s offered and selectable on null_blk" "offered: $offered" ;;
	esac
done
nullb_remove $dev
done_testing

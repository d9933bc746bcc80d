# Nothing in the kernel log says a test broke the kernel.
. "$CFQ_SRC/tests/lib.sh"

bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|INFO: task .* blocked|possible recursive locking|circular locking|KASAN|UBSAN|list_(add|del) corruption|Call Trace' | head -20)
if [ -z "$bad" ]; then
	pass "no warning, bug, lockdep or KASAN report in the kernel log"
else
	fail "no warning, bug, lockdep or KASAN report in the kernel log" "$bad"
fi
done_testing

# The ioprio library's unit tests, userspace/test-ioprio-level.c: level
# parsing (every bad input), formatting, and the mappings of DESIGN.md 3.2
# and 3.3.  Needs no kernel support for levels.  The test program prints
# its own result lines; a build failure is one more.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

out=$(make --no-print-directory -C "$top/userspace" test 2>&1)
rc=$?
grep -E '^(not )?ok |^#   ' <<<"$out"
if [ $rc -ne 0 ] && ! grep -q '^not ok ' <<<"$out"; then
	fail "unit tests build and run" "make -C userspace test: exit status $rc"
	printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   | /'
elif ! grep -q '^ok ' <<<"$out"; then
	fail "unit tests report results" "make -C userspace test printed no result line"
fi
[ $rc -eq 0 ] || T_FAILED=$((T_FAILED + 1))
done_testing

#!/bin/bash
# make check: the host tests, then the kernel and the image, then the guest
# suite in QEMU.  Prints each test as it finishes and ends with one line
# "N passed, N failed, N skipped"; exits non-zero if anything failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p build
all=build/check-results.txt
: >"$all"
t0=$SECONDS

stage() { printf '\n=== %s (%d:%02d elapsed)\n' "$*" $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)); }

# Result lines from a stream are shown and collected.
collect() { tee -a build/check-raw.txt | grep --line-buffered -E '^(not )?ok |^#' | tee -a "$all"; }
: >build/check-raw.txt

# The patched tools first: the host tests run their binaries.
stage "tools (patched coreutils, util-linux, procps .debs)"
if make --no-print-directory tools; then
	echo "ok - build: the patched tools build as .debs" | tee -a "$all"
else
	echo "not ok - build: the patched tools build as .debs" | tee -a "$all"
fi

stage "host tests"
for t in tests/host/*.sh; do
	[ -e "$t" ] || continue
	name=host/$(basename "$t" .sh)
	T_NAME=$name bash "$t" 2>&1 | collect
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q "^not ok - $name:" "$all"; then
		echo "not ok - $name: exited with status $rc" | tee -a "$all"
	fi
done

stage "kernel and image"
if make --no-print-directory image test-progs; then
	w=build/kernel-guest.warnings
	[ "${DEBUG:-0}" = 1 ] && w=build/kernel-debug.warnings
	if [ -s "$w" ]; then
		echo "not ok - build: the kernel builds without compiler warnings" | tee -a "$all"
		sed 's/^/#   /' "$w" | head -20 | tee -a "$all"
	else
		echo "ok - build: the kernel builds without compiler warnings" | tee -a "$all"
	fi
	stage "guest tests (QEMU)"
	scripts/vm.sh check 2> >(collect >&2)
	rc=$?
	sleep 1
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' build/check/log 2>/dev/null; then
		echo "not ok - guest: the guest suite ran to the end (vm.sh exit $rc)" | tee -a "$all"
	fi
else
	echo "not ok - build: kernel and image built" | tee -a "$all"
fi

stage "summary"
passed=$(grep -E '^ok ' "$all" | grep -vc ' # SKIP ')
skipped=$(grep -E '^ok ' "$all" | grep -c ' # SKIP ')
failed=$(grep -cE '^not ok ' "$all")
if [ "$failed" -gt 0 ]; then
	echo "failed:"
	grep -E '^not ok ' "$all" | sed 's/^/  /'
fi
echo "results: $all; guest logs: build/check/"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]

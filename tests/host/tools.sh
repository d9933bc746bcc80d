# The patch series of procps-patch/ and the tools they build, on the build
# machine's own kernel (which has no I/O priority levels): DEP-3 headers and
# series files; the copies of userspace/ioprio-level.[ch] in the patches
# equal userspace/; nice --io, renice --io, ionice -c level and ps -o ioprio
# parse their options, reject every bad input with the tool's own message
# and exit status, change nothing then, and say clearly that this kernel has
# no levels.  The tools are the binaries of the .debs (`make tools` unpacks
# them into build/tools/root/).  What they do on the patched kernel is
# tested in the guest (tests/guest/40-tools.sh).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$top/build/tools/root
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
export LC_ALL=C

# --- the series ------------------------------------------------------------
for d in "$top"/procps-patch/*/; do
	pkg=$(basename "$d")
	bad=
	[ -s "$d/series" ] || bad+=" no series;"
	for p in $(grep -v '^#' "$d/series" 2>/dev/null); do
		f=$d/$p
		[ -f "$f" ] || { bad+=" $p missing;"; continue; }
		[[ $p =~ ^[0-9]{4}-[a-z0-9-]+\.patch$ ]] || bad+=" $p: not NNNN-name.patch;"
		for h in Description Author Forwarded Last-Update; do
			sed -n '1,/^---$/p' "$f" | grep -q "^$h: ." || bad+=" $p: no $h;"
		done
		sed -n '1,/^---$/p' "$f" | grep -qx 'Forwarded: no' || bad+=" $p: Forwarded is not 'no';"
	done
	for f in "$d"/*.patch; do
		grep -qx "$(basename "$f")" "$d/series" || bad+=" $(basename "$f") not in the series;"
	done
	expect_eq "procps-patch/$pkg: a series of NNNN-name.patch files with DEP-3 headers" "" "$bad"
done

# The files a patch creates, as they will be: NAME lines of "+++ b/PATH"
# for new files, their content on request.
new_file() {
	awk -v want="$2" '
		/^--- \/dev\/null$/ { new = 1; next }
		/^\+\+\+ b\// { file = substr($0, 7); keep = new && file ~ ("(^|/)" want "$"); new = 0; next }
		/^diff / || /^Index: / { keep = 0; next }
		keep && /^@@/ { next }
		keep && /^\+/ { print substr($0, 2) }
		keep && /^ / { print substr($0, 2) }
	' "$1"
}
for name in ioprio-level.c ioprio-level.h; do
	for d in "$top"/procps-patch/*/; do
		pkg=$(basename "$d")
		copies=0 bad=
		for f in "$d"/*.patch; do
			grep -qE "^\+\+\+ b/(.*/)?$name\$" "$f" || continue
			copies=$((copies + 1))
			new_file "$f" "$name" >"$tmp/copy"
			cmp -s "$tmp/copy" "$top/userspace/$name" ||
				bad="$(basename "$f"): $(diff "$top/userspace/$name" "$tmp/copy" | head -3 | tr '\n' ' ')"
		done
		if [ $copies -eq 1 ] && [ -z "$bad" ]; then
			pass "procps-patch/$pkg: its copy of $name equals userspace/$name"
		else
			fail "procps-patch/$pkg: its copy of $name equals userspace/$name" \
				"copies in the series: $copies (want 1)" ${bad:+"differs: $bad"}
		fi
	done
done

# --- the tools --------------------------------------------------------------
# The binaries, in /bin or /usr/bin as each package has them.
bin() {
	local d
	for d in usr/bin bin; do
		[ -x "$root/$d/$1" ] && { echo "$root/$d/$1"; return; }
	done
	echo "$root/usr/bin/$1"
}
missing=
for b in nice renice ionice ps; do [ -x "$(bin $b)" ] || missing+=" $b"; done
if [ -n "$missing" ]; then
	fail "the patched tools are built (make tools)" "missing under build/tools/root:$missing"
	done_testing
fi
# Called by name, so that they name themselves as they do when installed
# (coreutils prints its argv[0]); the system's own tools stay where they are.
mkdir "$tmp/bin"
for b in nice renice ionice ps; do ln -s "$(bin $b)" "$tmp/bin/$b"; done
NICE=$tmp/bin/nice RENICE=$tmp/bin/renice IONICE=$tmp/bin/ionice PS=$tmp/bin/ps
tool() { local t=$1; shift; (cd "$tmp/bin" && PATH=$tmp/bin:$PATH exec "$t" "$@"); }
if [ -e /proc/sys/kernel/ioprio_from_nice ]; then
	levels=1
else
	levels=
fi

# run TOOL ARG...: stdout in $out, stderr in $err, status in $rc.  A
# patched TOOL runs by its name.
run() {
	local t=$1
	shift
	case $t in "$tmp/bin/"*) set -- tool "${t##*/}" "$@" ;; *) set -- "$t" "$@" ;; esac
	out=$("$@" 2>"$tmp/err")
	rc=$?
	err=$(<"$tmp/err")
}

# refused DESCRIPTION STATUS WORDS TOOL ARG...: TOOL exits with STATUS, says
# WORDS on stderr in a line that starts with its name, runs no command
# (none of them may create $tmp/ran), prints nothing on stdout, and leaves
# the nice value and I/O priority of $pid as they were.
refused() {
	local desc=$1 status=$2 words=$3 tool=${4##*/} before after why=()
	shift 3
	before="$(ps -o ni= -p "$pid") $(ionice -p "$pid")"
	rm -f "$tmp/ran"
	run "$@"
	after="$(ps -o ni= -p "$pid") $(ionice -p "$pid")"
	[ "$rc" = "$status" ] || why+=("exit status $rc, expected $status")
	grep -q "^$tool: .*$words" <<<"$err" || why+=("stderr has no line '$tool: ...$words...'")
	[ -z "$out" ] || why+=("stdout: $out")
	[ ! -e "$tmp/ran" ] || why+=("the command ran")
	[ "$before" = "$after" ] || why+=("nice and ionice of $pid: '$before' became '$after'")
	if [ ${#why[@]} -eq 0 ]; then
		pass "$desc"
	else
		fail "$desc" "command: ${*#"$tmp/bin/"}" "${why[@]}" "stderr: $err"
	fi
}

spawn() {
	sleep 300 &
	pid=$!
	pids+=("$pid")
}
dead_pid() {
	local p
	true &
	p=$!
	wait "$p"
	echo "$p"
}
spawn
renice -n 2 -p "$pid" >/dev/null
ionice -c 2 -n 3 -p "$pid"
dead=$(dead_pid)
ran=(touch "$tmp/ran")

# nice
run "$NICE" --help
if [[ $rc == 0 && $out == *"--io=LEVEL"* && $out == *"Higher I/O priority levels get more of the disk"* ]]; then
	pass "nice --help documents --io and its direction"
else
	fail "nice --help documents --io and its direction" "exit $rc" "$(grep -- --io <<<"$out")"
fi
expect_eq "nice without options still prints the niceness" "$(nice)" "$(tool nice)"
expect_eq "nice -n 5 nice still prints 5 more" "$(($(nice) + 5))" "$(tool nice -n 5 nice)"
expect_eq "nice nice still adds 10" "$(($(nice) + 10))" "$(tool nice nice)"
for l in 21 100 -1 4294967306; do
	refused "nice --io=$l is out of range (125)" 125 "invalid I/O priority level '$l': out of range" \
		"$NICE" --io="$l" "${ran[@]}"
done
for l in abc 1x " 5" 0x5 +5 realtime none; do
	refused "nice --io='$l' is not a level (125)" 125 "invalid I/O priority level '$l': not a number" \
		"$NICE" --io="$l" "${ran[@]}"
done
refused "nice --io= is empty (125)" 125 "invalid I/O priority level '': empty" "$NICE" --io= "${ran[@]}"
refused "nice --io LEVEL: the separate argument is parsed" 125 "'21': out of range" "$NICE" --io 21 "${ran[@]}"
refused "nice -n 5 --io=x: options in any order" 125 "'x': not a number" "$NICE" -n 5 --io=x "${ran[@]}"
refused "nice --io=x -n 5: options in any order" 125 "'x': not a number" "$NICE" --io=x -n 5 "${ran[@]}"
refused "nice --io without its level" 125 "requires an argument" "$NICE" --io
refused "nice --io=5 without a command (125)" 125 "a command must be given with an I/O priority level" \
	"$NICE" --io=5
if grep -q "Try 'nice --help'" <<<"$err"; then
	pass "nice --io=5 without a command points to --help"
else
	fail "nice --io=5 without a command points to --help" "stderr: $err"
fi
if [ -z "$levels" ]; then
	refused "nice --io=5 on a kernel without levels is a clear error (125)" 125 \
		"cannot set I/O priority level 5: this kernel has no I/O priority levels" \
		"$NICE" --io=5 "${ran[@]}"
	refused "nice --io=rt on a kernel without levels too" 125 "cannot set I/O priority level 20" \
		"$NICE" --io=rt "${ran[@]}"
else
	skip "nice --io=5 on a kernel without levels" "this kernel has levels"
fi

# renice
run "$RENICE" --help
if [[ $rc == 0 && $out == *"--io <level>"* && $out == *"higher levels get more"* ]]; then
	pass "renice --help documents --io and its direction"
else
	fail "renice --help documents --io and its direction" "exit $rc" "$(grep -- --io <<<"$out")"
fi
run "$RENICE" -n 4 -p "$pid"
expect_eq "renice -n 4 -p still sets the nice value" \
	"0 $pid (process ID) old priority 2, new priority 4 4" "$rc $out $(ps -o ni= -p "$pid" | tr -d ' ')"
run "$RENICE" 5 "$pid"
expect_eq "renice PRIO PID still works" "0 $pid (process ID) old priority 4, new priority 5" "$rc $out"
for l in 21 -1 abc 1x "" none; do
	refused "renice --io '$l' is refused (1)" 1 "invalid I/O priority level '$l'" \
		"$RENICE" --io "$l" -p "$pid"
done
refused "renice --io=21 is refused" 1 "invalid I/O priority level '21': out of range" \
	"$RENICE" --io=21 -p "$pid"
refused "renice 7 --io 21: refused before the nice value changes" 1 "invalid I/O priority level '21'" \
	"$RENICE" 7 --io 21 -p "$pid"
refused "renice --io 21 -n 7: refused before the nice value changes" 1 "'21'" \
	"$RENICE" --io 21 -n 7 -p "$pid"
refused "renice -n 7 --io x: refused before the nice value changes" 1 "'x'" \
	"$RENICE" -n 7 --io x -p "$pid"
if grep -q "Try 'renice --help'" <<<"$err"; then
	pass "renice: a bad level points to --help"
else
	fail "renice: a bad level points to --help" "stderr: $err"
fi
refused "renice --io without its level" 1 "requires an argument" "$RENICE" --io
refused "renice --io 5 without an id" 1 "not enough arguments" "$RENICE" --io 5
refused "renice --io 5 -p without an id" 1 "not enough arguments" "$RENICE" --io 5 -p
refused "renice --io 5 with a missing pid" 1 "failed to get I/O priority for $dead (process ID): No such process" \
	"$RENICE" --io 5 -p "$dead"
refused "renice --io 5 with a bad pid" 1 "bad process ID value: 12x" "$RENICE" --io 5 -p 12x
if [ -z "$levels" ]; then
	refused "renice --io 5 on a kernel without levels is a clear error" 1 \
		"failed to set I/O priority for $pid (process ID): this kernel has no I/O priority levels" \
		"$RENICE" --io 5 -p "$pid"
	refused "renice -n 9 --io 5 on a kernel without levels changes neither" 1 \
		"no I/O priority levels" "$RENICE" -n 9 --io 5 -p "$pid"
	refused "renice --io 5 -u NAME on a kernel without levels" 1 \
		"failed to set I/O priority for $(id -u) (user ID): this kernel has no I/O priority levels" \
		"$RENICE" --io 5 -u "$(id -un)"
fi

# ionice
run "$IONICE" --help
if [[ $rc == 0 && $out == *"4: level"* && $out == *"0..20"* ]]; then
	pass "ionice --help documents the level class"
else
	fail "ionice --help documents the level class" "exit $rc"
fi
expect_eq "ionice -p still shows best-effort 3" "best-effort: prio 3" "$(tool ionice -p "$pid" 2>&1)"
tool ionice -c 3 -p "$pid"
expect_eq "ionice -c 3 still sets idle" "idle" "$(ionice -p "$pid" 2>&1)"
tool ionice -c 2 -n 3 -p "$pid"
expect_eq "ionice -c 2 -n 3 still sets best-effort 3" "best-effort: prio 3" "$(ionice -p "$pid" 2>&1)"
for c in level 4 LEVEL; do
	for l in 21 -1 abc ""; do
		refused "ionice -c $c -n '$l' is refused" 1 "invalid level '$l'" "$IONICE" -c "$c" -n "$l" -p "$pid"
	done
done
refused "ionice -n 21 -c level: -n before -c is checked too" 1 "invalid level '21'" \
	"$IONICE" -n 21 -c level -p "$pid"
refused "ionice -c level -n 21 COMMAND runs nothing" 1 "invalid level '21'" \
	"$IONICE" -c level -n 21 "${ran[@]}"
refused "ionice -c levels is an unknown class" 1 "unknown scheduling class: 'levels'" \
	"$IONICE" -c levels -n 5 -p "$pid"
if [ -z "$levels" ]; then
	refused "ionice -c level on a kernel without levels is a clear error" 1 \
		"ioprio_set failed: this kernel has no I/O priority levels" "$IONICE" -c level -n 5 -p "$pid"
fi

# ps -o ioprio
run "$PS" -o ioprio -p "$pid"
expect_eq "ps -o ioprio: header IOPRIO, best-effort 3 as be/3" "IOPRIO|  be/3" "$(paste -sd'|' <<<"$out")"
ionice -c 3 -p "$pid"
expect_eq "ps -o ioprio: idle" "idle" "$(tool ps -o ioprio= -p "$pid" | tr -d ' ')"
if ionice -c 1 -n 4 -p "$pid" 2>/dev/null; then
	expect_eq "ps -o ioprio: realtime 4 as rt/4" "rt/4" "$(tool ps -o ioprio= -p "$pid" | tr -d ' ')"
fi
ionice -c 0 -p "$pid"
if [ -z "$levels" ]; then
	# A kernel without levels derives best-effort (nice + 20) / 5: level
	# 18 - 2 * that, marked as derived.
	n=$(ps -o ni= -p "$pid" | tr -d ' ')
	expect_eq "ps -o ioprio: never set, nice $n, is ~$((18 - 2 * ((n + 20) / 5)))" \
		"~$((18 - 2 * ((n + 20) / 5)))" "$(tool ps -o ioprio= -p "$pid" | tr -d ' ')"
fi
python3 -c 'import threading, time
threading.Thread(target=time.sleep, args=(300,), daemon=True).start()
time.sleep(300)' &
tp=$!
pids+=("$tp")
for ((i = 0; i < 50; i++)); do
	[ "$(ls /proc/$tp/task 2>/dev/null | wc -l)" = 2 ] && break
	sleep 0.1
done
t2=$(ls /proc/$tp/task | sort -n | tail -1)
ionice -c 2 -n 1 -p "$t2"
ionice -c 2 -n 6 -p "$tp"
expect_eq "ps -L -o ioprio: each thread its own" "$tp be/6|$t2 be/1" \
	"$(tool ps -L -o tid=,ioprio= -p "$tp" | awk '{print $1, $2}' | paste -sd'|')"
expect_eq "ps -o ioprio without -L: the process's main thread" "be/6" \
	"$(tool ps -o ioprio= -p "$tp" | tr -d ' ')"
run "$PS" -o pid,ioprio,ni,cmd -p "$pid"
expect_eq "ps -o pid,ioprio,ni,cmd: the header" "PID IOPRIO NI CMD" "$(head -1 <<<"$out" | tr -s ' ' | sed 's/^ //')"
done_testing

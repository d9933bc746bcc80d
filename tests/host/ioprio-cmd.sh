# The ioprio command on the build machine's own kernel, which has no levels:
# --help and --version, every bad command line (one "ioprio: ..." line, the
# documented exit status, and no change to the target's I/O priority), the
# exit status of a command it runs, and how it shows priorities set by
# ionice or derived from nice.  Setting levels is tested in the guest
# (tests/guest/20-ioprio-cmd.sh).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
IOPRIO=$top/build/userspace/ioprio
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT

if ! out=$(make --no-print-directory -C "$top/userspace" 2>&1); then
	fail "ioprio builds" "make -C userspace failed"
	printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   | /'
	done_testing
fi

# run ARG...: ioprio's stdout in $out, stderr in $err, status in $rc.
run() {
	out=$("$IOPRIO" "$@" 2>"$tmp/err")
	rc=$?
	err=$(<"$tmp/err")
}

# spawn: a process to look at, its pid in $pid.
spawn() {
	sleep 300 &
	pid=$!
	pids+=("$pid")
}

# A pid that is not in use.
dead_pid() {
	local p
	true &
	p=$!
	wait "$p"
	kill -0 "$p" 2>/dev/null && return 1
	echo "$p"
}

nice_of() { ps -o ni= -p "$1" | tr -d ' '; }

sysctl=/proc/sys/kernel/ioprio_from_nice
from_nice=$(cat "$sysctl" 2>/dev/null || echo none)

# --help and --version
run --help
if [ $rc -eq 0 ] && [ -z "$err" ] && [[ $out == Usage:* ]] &&
	grep -q -- '--level' <<<"$out" && grep -q 'ioprio(1)' <<<"$out"; then
	pass "--help prints the usage on stdout and exits 0"
else
	fail "--help prints the usage on stdout and exits 0" "exit $rc" "stderr: $err"
fi
missing=
for o in -n --level -p --pid -g --pgrp -u --user -t --ignore -h --help -V --version; do
	grep -qE -- "(^| )$o( |,|$)" <<<"$out" || missing+=" $o"
done
expect_eq "--help names every option" "" "$missing"
run -h
expect_eq "-h is --help" "$("$IOPRIO" --help)" "$out"
run --version
expect_eq "--version" "ioprio from cfq-prio 0.1 (exit 0)" "$out (exit $rc)"
run -V
expect_eq "-V is --version" "ioprio from cfq-prio 0.1 (exit 0)" "$out (exit $rc)"

# bad DESCRIPTION STATUS WORDS ARG...: ioprio ARG... exits with STATUS and
# one "ioprio: " line that contains WORDS, prints nothing on stdout, and
# leaves the I/O priority of $pid as it was.  STATUS "usage" is a bad
# command line: exit status 1, and a second line "Try 'ioprio --help' for
# more information." as util-linux prints.
try_help="Try 'ioprio --help' for more information."
bad() {
	local desc=$1 status=$2 words=$3 before after why=() first
	shift 3
	before=$(ionice -p "$pid")
	run "$@"
	after=$(ionice -p "$pid")
	first=$err
	if [ "$status" = usage ]; then
		status=1
		[[ $err == *$'\n'"$try_help" ]] || why+=("stderr does not end with \"$try_help\"")
		first=${err%$'\n'"$try_help"}
	fi
	[ "$rc" = "$status" ] || why+=("exit status $rc, expected $status")
	[[ $first == "ioprio: "* && $first != *$'\n'* ]] ||
		why+=("stderr is not one line starting 'ioprio: '")
	[[ $err == *"$words"* ]] || why+=("stderr does not say '$words'")
	[ -z "$out" ] || why+=("stdout: $out")
	[ "$before" = "$after" ] || why+=("ionice -p: '$before' became '$after'")
	if [ ${#why[@]} -eq 0 ]; then
		pass "$desc"
	else
		fail "$desc" "command: ioprio $*" "${why[@]}" "stderr: $err"
	fi
}

spawn
ionice -c 2 -n 3 -p "$pid"
dead=$(dead_pid) || dead=
big=99999999999999999999999

bad "level 21 is out of range" usage "out of range" -n 21 -p "$pid"
bad "level 100 is out of range" usage "out of range" -n 100 -p "$pid"
bad "level -1 is out of range" usage "out of range" -n -1 -p "$pid"
bad "--level=-1 is out of range" usage "out of range" --level=-1 -p "$pid"
bad "an overflowing level is out of range" usage "out of range" -n "$big" -p "$pid"
bad "level 2^32+10 does not wrap to 10" usage "out of range" -n 4294967306 -p "$pid"
bad "level 2^64+10 does not wrap to 10" usage "out of range" -n 18446744073709551626 -p "$pid"
for junk in abc 1x x1 " 5" "5 " 0x5 +5 - 1.0 1e1 realtime none1 idle1; do
	bad "level '$junk' is not a number" usage "not a number" -n "$junk" -p "$pid"
done
bad "an empty level is refused" usage "empty" -n "" -p "$pid"
bad "-n without its level" usage "needs an argument" -n
bad "--level without its level" usage "needs an argument" -p "$pid" --level
bad "-p without a pid" usage "needs an argument" -n 5 -p
bad "--pid without a pid" usage "needs an argument" --pid
bad "-g without a group" usage "needs an argument" -g
bad "-u without a user" usage "needs an argument" -n 5 -u
bad "a pid that is not a number" usage "invalid pid 'abc'" -n 5 -p abc
bad "a bad pid after a good one changes nothing" usage "invalid pid '12x'" -n 5 -p "$pid" 12x
bad "an empty pid" usage "invalid pid" -n 5 -p ""
bad "a pid out of range" usage "out of range" -n 5 -p 2147483648
bad "a negative pid" usage "unknown option" -n 5 -p "$pid" -7
bad "a process group that is not a number" usage "invalid process group" -g 1x
bad "an unknown user" usage "unknown user 'no-such-user-cfq'" -n 5 -u no-such-user-cfq
bad "a user id out of range" usage "out of range" -u 4294967295
bad "an unknown long option" usage "unknown option '--frobnicate'" --frobnicate -p "$pid"
bad "an unknown short option" usage "unknown option '-x'" -x -p "$pid"
bad "an unknown option in a cluster" usage "unknown option '-y'" -ty -n 5 -p "$pid"
bad "--help takes no argument" usage "takes no argument" --help=yes
bad "-n without target or command" usage "-n needs -p, -g, -u or a command" -n 5
bad "-n and -t without target or command" usage "-n needs -p, -g, -u or a command" -t -n 5
bad "-n and -- without a command" usage "-n needs -p, -g, -u or a command" -n 5 --
bad "a command without -n" usage "needs a level" true
bad "-p and -g together" usage "only one of -p, -g and -u" -n 5 -p "$pid" -g "$pid"
bad "a bad group after a good one changes nothing" usage "invalid process group '1x'" \
	-n 5 -g "$pid" 1x
bad "an unknown user after a good one changes nothing" usage "unknown user 'no-such-user-cfq'" \
	-n 5 -u "$(id -u)" no-such-user-cfq
bad "--reset without target or command" usage "--reset needs -p, -g, -u or a command" --reset
bad "-n none without target or command" usage "--reset needs -p, -g, -u or a command" -n none
bad "--reset takes no argument" usage "takes no argument" --reset=5 -p "$pid"
if [ "$(id -u)" != 0 ]; then
	bad "only root can name uid 0" usage "uid 0" -n 5 -u root
fi
if [ -n "$dead" ]; then
	bad "a missing pid: no such process" 1 "pid $dead: no such process" -p "$dead"
	bad "a missing pid in a list changes none" 1 "pid $dead: no such process" \
		-n 5 -p "$pid" "$dead"
else
	skip "a missing pid: no such process" "no free pid found"
fi
if [ "$from_nice" = none ]; then
	bad "setting a level on a kernel without levels" 1 "no I/O priority levels" \
		-n 5 -p "$pid"
	bad "running at a level on a kernel without levels" 1 "no I/O priority levels" \
		-n 5 true
else
	skip "setting a level on a kernel without levels" "this kernel has $sysctl"
fi

# A command run with -t (this kernel may refuse the level): its exit status.
exe() { run -t -n 5 "$@"; echo "$rc"; }
expect_eq "-t runs the command" 0 "$(exe true)"
expect_eq "the command's exit status" 3 "$(exe sh -c 'exit 3')"
expect_eq "-- ends the options" 0 "$(exe -- true)"
expect_eq "command not found: 127" 127 "$(exe no-such-command-cfq)"
run -t -n 5 no-such-command-cfq
expect_eq "command not found: the message" "ioprio: no-such-command-cfq: command not found" "$err"
printf 'x\n' >"$tmp/not-executable"
expect_eq "not executable: 126" 126 "$(exe "$tmp/not-executable")"
expect_eq "a directory: 126" 126 "$(exe "$tmp")"
run -t -n 5 "$tmp/not-executable"
if [[ $err == "ioprio: "*"Permission denied" ]]; then
	pass "not executable: the message"
else
	fail "not executable: the message" "stderr: $err"
fi
run -t -n 5 sh -c 'echo "$0 $1"' a b
expect_eq "the command gets its arguments" "a b" "$out"

# show PID: what ioprio -p PID prints.
show() { "$IOPRIO" -p "$1" 2>&1; }

# Classic priorities set by ionice: same class and data, and the level of
# DESIGN.md 3.2 (best-effort b is 18 - 2b).
spawn
for b in 0 1 2 3 4 5 6 7; do
	ionice -c 2 -n "$b" -p "$pid"
	expect_eq "best-effort $b set by ionice" \
		"$pid: best-effort $b (level $((18 - 2 * b))) / best-effort: prio $b" \
		"$(show "$pid") / $(ionice -p "$pid")"
done
ionice -c 3 -p "$pid"
expect_eq "idle set by ionice" "$pid: idle (level 0) / idle" "$(show "$pid") / $(ionice -p "$pid")"
if ionice -c 1 -n 2 -p "$pid" 2>/dev/null; then
	expect_eq "realtime 2 set by ionice" "$pid: realtime 2 (level 20)" "$(show "$pid")"
else
	skip "realtime 2 set by ionice" "not allowed to set realtime here"
fi

# Never set: the level follows nice as DESIGN.md 3.3 (or, on a kernel
# without levels, the classic best-effort (nice + 20) / 5) says.
expected_unset() {
	local n=$1 b=$((($1 + 20) / 5))
	case $from_nice in
	none) echo "best-effort $b (level $((18 - 2 * b)), from nice $n)" ;;
	0) echo "level 10 (default)" ;;
	*) echo "level $((19 - (n + 20) * 19 / 40)) (from nice $n)" ;;
	esac
}
ionice -c 0 -p "$pid"
n=$(nice_of "$pid")
expect_eq "a process that never set a priority (nice $n)" "$pid: $(expected_unset "$n")" "$(show "$pid")"
renice -n $((n < 14 ? n + 5 : 19)) -p "$pid" >/dev/null
n2=$(nice_of "$pid")
expect_eq "the level follows renice (nice $n -> $n2)" "$pid: $(expected_unset "$n2")" "$(show "$pid")"
if [ "$n2" = "$n" ]; then
	skip "renice changed the nice value" "nice was already 19"
fi
if chrt -i -p 0 "$pid"; then
	case $from_nice in
	none) want="idle (level 0, from SCHED_IDLE)" ;;
	0) want="level 10 (default)" ;;
	*) want="level 0 (from SCHED_IDLE)" ;;
	esac
	expect_eq "a SCHED_IDLE process that never set a priority" "$pid: $want" "$(show "$pid")"
else
	skip "a SCHED_IDLE process that never set a priority" "chrt -i failed"
fi

expect_eq "ioprio without arguments shows itself" "$(expected_unset "$(nice_of $$)")" \
	"$(ionice -c 0 "$IOPRIO" 2>&1)"
spawn
ionice -c 2 -n 1 -p "$pid"
p1=$pid
spawn
ionice -c 3 -p "$pid"
expect_eq "-p with several pids: one line each, in order" \
	"$p1: best-effort 1 (level 16)|$pid: idle (level 0)" \
	"$("$IOPRIO" -p "$p1" "$pid" 2>&1 | paste -sd'|')"
if [ -n "$dead" ]; then
	run -p "$p1" "$dead" "$pid"
	expect_eq "a missing pid among others: the others shown, status 1" \
		"1|$p1: best-effort 1 (level 16)|$pid: idle (level 0)|ioprio: pid $dead: no such process" \
		"$rc|$(paste -sd'|' <<<"$out")|$err"
fi
shows() {
	if [[ $rc == 0 && -z $err && $out =~ ^"$2":\ (level|best-effort|realtime|idle) ]]; then
		pass "$1"
	else
		fail "$1" "exit $rc" "stdout: $out" "stderr: $err"
	fi
}
pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
run -g "$pgid"
shows "-g shows a process group" "$pgid"
run -u "$(id -un)"
shows "-u shows a user by name" "$(id -un)"
run -u "$(id -u)"
shows "-u shows a user by uid" "$(id -u)"
run -g "$pgid" "$pgid"
expect_eq "-g shows several groups, one line each" "2 (exit 0)" "$(grep -c "^$pgid: " <<<"$out") (exit $rc)"
run -u "$(id -un)" "$(id -u)"
expect_eq "-u shows several users, one line each" \
	"$(id -un): $(id -u): (exit 0)" "$(cut -d' ' -f1 <<<"$out" | paste -sd' ') (exit $rc)"
if [[ $("$IOPRIO" --help) == *"Higher levels get more of the disk: the opposite direction of nice."* ]]; then
	pass "--help says that higher levels get more of the disk, unlike nice"
else
	fail "--help says that higher levels get more of the disk, unlike nice"
fi
done_testing

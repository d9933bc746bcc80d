# The ioprio command (/usr/bin/ioprio) on the patched kernel: show, set and
# run for -p, -g and -u, as root and as an unprivileged user; EPERM for
# level 20 and for another user's processes, ESRCH; nothing changed by a
# command that fails; inheritance by the command it runs; agreement with
# ionice for the classic classes; levels that follow nice and the CPU policy
# as /proc/sys/kernel/ioprio_from_nice says (DESIGN.md 3.3 and 5); the man
# page and bash completion.
. "$CFQ_SRC/tests/lib.sh"

IOPRIO=/usr/bin/ioprio
sysctl=/proc/sys/kernel/ioprio_from_nice
user=cfqtest
tmp=$(mktemp -d)
chmod 1777 "$tmp"	# the unprivileged user writes here
pids=()
groups=()
saved=$(cat "$sysctl" 2>/dev/null)
cleanup() {
	local g
	for g in "${groups[@]}"; do kill -- "-$g" 2>/dev/null; done
	kill "${pids[@]}" 2>/dev/null
	[ -z "$saved" ] || echo "$saved" >"$sysctl"
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! [ -x "$IOPRIO" ]; then
	fail "ioprio is installed as $IOPRIO"
	done_testing
fi
if ! [ -w "$sysctl" ]; then
	fail "the kernel has $sysctl"
	done_testing
fi
if ! id -u "$user" >/dev/null 2>&1 && ! useradd --no-create-home --shell /bin/sh "$user"; then
	fail "an unprivileged user $user can be created"
	done_testing
fi
uid=$(id -u "$user")
# Runs a command as $user, with no capabilities.
AS_USER=(setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups --inh-caps=-all --)
as_user() { "${AS_USER[@]}" "$@"; }

# The test's own processes never set an I/O priority and run at nice 0.
ionice -c 0 -p $$
renice -n 0 -p $$ >/dev/null
echo 1 >"$sysctl"

# start [PREFIX...]: a sleeping process (PREFIX sleep 600), its pid in $pid.
start() {
	local i
	"$@" sleep 600 &
	pid=$!
	pids+=("$pid")
	for ((i = 0; i < 200; i++)); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && return 0
		sleep 0.05
	done
	fail "process $pid started" "$*"
}

# start_group [PREFIX...]: a process group of a shell and two sleeps, its
# id in $pg and its members in $members.
start_group() {
	local i
	"$@" setsid sh -c 'sleep 600 & sleep 600 & wait' &
	pg=$!
	groups+=("$pg")
	for ((i = 0; i < 200; i++)); do
		members=$(pgrep -g "$pg" | sort -n)
		[ "$(wc -w <<<"$members")" = 3 ] && return 0
		sleep 0.05
	done
	fail "process group $pg started" "members: $members"
}

dead_pid() {
	local p
	true &
	p=$!
	wait "$p"
	echo "$p"
}

# shows DESCRIPTION PID TEXT: ioprio -p PID prints "PID: TEXT".
shows() { expect_eq "$1" "$2: $3" "$("$IOPRIO" -p "$2" 2>&1)"; }

# all_show DESCRIPTION TEXT PID...: every PID shows TEXT.
all_show() {
	local desc=$1 text=$2 p want='' got=''
	shift 2
	for p in "$@"; do
		want+="$p: $text|"
		got+="$("$IOPRIO" -p "$p" 2>&1)|"
	done
	expect_eq "$desc" "$want" "$got"
}

# refused DESCRIPTION STATUS WORDS COMMAND...: COMMAND exits with STATUS
# and prints one line "ioprio: ..." that contains WORDS, and nothing else.
# STATUS "usage" is a bad command line: exit status 1 and the line
# "Try 'ioprio --help' for more information." after it.
refused() {
	local desc=$1 status=$2 words=$3 out rc try="Try 'ioprio --help' for more information."
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$status" = usage ]; then
		status=1
		[[ $out == *$'\n'"$try" ]] && out=${out%$'\n'"$try"} || out+=" (no \"$try\")"
	fi
	if [ "$rc" = "$status" ] && [[ $out == "ioprio: "*"$words"* && $out != *$'\n'* ]]; then
		pass "$desc"
	else
		fail "$desc" "command: $*" "exit status $rc, expected $status" "output: $out"
	fi
}

level_from_nice() { echo $((19 - ($1 + 20) * 19 / 40)); }

# --- root: show and set with -p -----------------------------------------
expect_eq "ioprio shows the caller" "level 10 (from nice 0)" "$("$IOPRIO" 2>&1)"
start
shows "a process that never set a level: from nice 0" "$pid" "level 10 (from nice 0)"
check "-n 15 -p sets a level" "$IOPRIO" -n 15 -p "$pid"
shows "-p shows the level set" "$pid" "level 15"
want='' got=''
for l in $(seq 0 20); do
	"$IOPRIO" -n "$l" -p "$pid"
	want+="$pid: level $l|"
	got+="$("$IOPRIO" -p "$pid" 2>&1)|"
done
expect_eq "every level 0..20 set with -p reads back" "$want" "$got"
for nl in idle:0 normal:10 rt:20 RT:20; do
	"$IOPRIO" -n "${nl%:*}" -p "$pid"
	shows "level name ${nl%:*} is ${nl#*:}" "$pid" "level ${nl#*:}"
done
p0=$pid
start
p1=$pid
check "-p sets several pids" "$IOPRIO" -n 3 -p "$p0" "$p1"
expect_eq "-p shows several pids, one line each" "$p0: level 3|$p1: level 3" \
	"$("$IOPRIO" -p "$p0" "$p1" 2>&1 | paste -sd'|')"

dead=$(dead_pid)
refused "setting a missing pid: no such process" 1 "pid $dead: no such process" \
	"$IOPRIO" -n 5 -p "$dead"
refused "showing a missing pid: no such process" 1 "pid $dead: no such process" \
	"$IOPRIO" -p "$dead"
refused "a missing pid in a list is refused" 1 "pid $dead: no such process" \
	"$IOPRIO" -n 7 -p "$p0" "$p1" "$dead"
all_show "a missing pid in a list changes none of it" "level 3" "$p0" "$p1"
refused "level 21 is refused" usage "out of range" "$IOPRIO" -n 21 -p "$p0"
refused "level x is refused" usage "not a number" "$IOPRIO" -n x -p "$p0"
refused "-n without target or command is refused" usage "needs -p, -g, -u or a command" \
	"$IOPRIO" -n 5
all_show "a refused command line changes nothing" "level 3" "$p0"

# --- root: -g and -u -------------------------------------------------------
start_group
root_pg=$pg
root_members=$members
check "-n 6 -g sets a process group" "$IOPRIO" -n 6 -g "$pg"
# shellcheck disable=SC2086
all_show "-g sets every process of the group" "level 6" $members
expect_eq "-g shows the group" "$pg: level 6" "$("$IOPRIO" -g "$pg" 2>&1)"
g1=$pg
m1=$members
start_group
check "-n 7 -g sets several process groups" "$IOPRIO" -n 7 -g "$g1" "$pg"
# shellcheck disable=SC2086
all_show "-g with two groups sets every process of both" "level 7" $m1 $members
expect_eq "-g shows several groups, one line each" "$g1: level 7|$pg: level 7" \
	"$("$IOPRIO" -g "$g1" "$pg" 2>&1 | paste -sd'|')"
"$IOPRIO" -n 6 -g "$g1"
refused "a missing process group: no such process" 1 "process group $dead: no such process" \
	"$IOPRIO" -n 6 -g "$dead"

start "${AS_USER[@]}"
u0=$pid
start "${AS_USER[@]}"
u1=$pid
check "-n 9 -u NAME sets a user's processes" "$IOPRIO" -n 9 -u "$user"
all_show "-u NAME sets every process of the user" "level 9" "$u0" "$u1"
expect_eq "-u NAME shows the user" "$user: level 9" "$("$IOPRIO" -u "$user" 2>&1)"
check "-n 8 -u UID sets a user's processes" "$IOPRIO" -n 8 -u "$uid"
all_show "-u UID sets every process of the user" "level 8" "$u0" "$u1"
expect_eq "-u UID shows the user" "$uid: level 8" "$("$IOPRIO" -u "$uid" 2>&1)"
refused "an unknown user is refused" usage "unknown user" "$IOPRIO" -n 8 -u no-such-user-cfq
kill "$u0" "$u1"

# --- root: running a command ----------------------------------------------
expect_eq "a command run at a level reads it back" "level 7" "$("$IOPRIO" -n 7 "$IOPRIO" 2>&1)"
expect_eq "-- COMMAND runs at the level" "level 20" "$("$IOPRIO" -n rt -- "$IOPRIO" 2>&1)"
expect_eq "the command's children inherit the level" "level 7|level 7" \
	"$("$IOPRIO" -n 7 sh -c "$IOPRIO; sleep 5 & $IOPRIO -p \$! | sed 's/^[0-9]*: //'; kill \$!" 2>&1 | paste -sd'|')"
expect_eq "running a command leaves the caller as it was" "level 10 (from nice 0)" "$("$IOPRIO" 2>&1)"
"$IOPRIO" -n 4 sh -c 'exit 3'
expect_eq "the command's exit status" 3 $?
refused "command not found: status 127" 127 "command not found" "$IOPRIO" -n 4 no-such-command-cfq
printf 'x\n' >"$tmp/not-executable"
refused "command not executable: status 126" 126 "Permission denied" "$IOPRIO" -n 4 "$tmp/not-executable"

# --- classic classes: agreement with ionice --------------------------------
start
want='' got=''
for b in 0 1 2 3 4 5 6 7; do
	ionice -c 2 -n "$b" -p "$pid"
	want+="$pid: best-effort $b (level $((18 - 2 * b))) / best-effort: prio $b|"
	got+="$("$IOPRIO" -p "$pid" 2>&1) / $(ionice -p "$pid")|"
done
expect_eq "best-effort 0..7 set by ionice: same class and data, level 18 - 2b" "$want" "$got"
want='' got=''
for r in 0 1 2 3 4 5 6 7; do
	ionice -c 1 -n "$r" -p "$pid"
	want+="$pid: realtime $r (level 20) / realtime: prio $r|"
	got+="$("$IOPRIO" -p "$pid" 2>&1) / $(ionice -p "$pid")|"
done
expect_eq "realtime 0..7 set by ionice: same class and data, level 20" "$want" "$got"
ionice -c 3 -p "$pid"
expect_eq "idle set by ionice: level 0" "$pid: idle (level 0) / idle" \
	"$("$IOPRIO" -p "$pid" 2>&1) / $(ionice -p "$pid")"
"$IOPRIO" -n 12 -p "$pid"
shows "a level replaces a classic class" "$pid" "level 12"
ionice -c 2 -n 2 -p "$pid"
shows "a classic class replaces a level" "$pid" "best-effort 2 (level 14)"
ionice -c 0 -p "$pid"
shows "ionice -c 0 goes back to the level from nice" "$pid" "level 10 (from nice 0)"
"$IOPRIO" -n 12 -p "$pid"
check "--reset -p" "$IOPRIO" --reset -p "$pid"
shows "--reset goes back to the level from nice" "$pid" "level 10 (from nice 0)"
"$IOPRIO" -n 12 -p "$pid"
check "-n none -p" "$IOPRIO" -n none -p "$pid"
shows "-n none goes back to the level from nice" "$pid" "level 10 (from nice 0)"
expect_eq "--reset runs a command that follows nice" "level 8 (from nice 5)" \
	"$("$IOPRIO" -n 3 nice -n 5 "$IOPRIO" --reset "$IOPRIO" 2>&1)"

# --- never set: nice, policy and ioprio_from_nice --------------------------
start
want='' got=''
for n in -20 -17 -10 -5 -1 0 1 5 10 15 19; do
	renice -n "$n" -p "$pid" >/dev/null
	want+="$pid: level $(level_from_nice "$n") (from nice $n)|"
	got+="$("$IOPRIO" -p "$pid" 2>&1)|"
done
expect_eq "the level follows renice: 19 - (nice + 20) * 19 / 40" "$want" "$got"
expect_eq "ioprio under nice -n 5 shows level 8 (from nice 5)" "level 8 (from nice 5)" \
	"$(nice -n 5 "$IOPRIO" 2>&1)"
renice -n -5 -p "$pid" >/dev/null
echo 0 >"$sysctl"
shows "ioprio_from_nice=0: level 10 (default) at nice -5" "$pid" "level 10 (default)"
expect_eq "ioprio_from_nice=0: the caller at nice 5 has level 10 (default)" "level 10 (default)" \
	"$(nice -n 5 "$IOPRIO" 2>&1)"
echo 1 >"$sysctl"
shows "ioprio_from_nice=1 again: from nice -5" "$pid" "level 12 (from nice -5)"
chrt -i -p 0 "$pid"
shows "SCHED_IDLE: level 0" "$pid" "level 0 (from SCHED_IDLE)"
chrt -f -p 10 "$pid"
shows "SCHED_FIFO: level 20" "$pid" "level 20 (from SCHED_FIFO)"
chrt -r -p 10 "$pid"
shows "SCHED_RR: level 20" "$pid" "level 20 (from SCHED_RR)"
# ioprio_from_nice=0 removes the coupling to nice, not the CPU policy's
# level (DESIGN.md 3.3; before issue 12 this was "level 10 (default)").
echo 0 >"$sysctl"
shows "ioprio_from_nice=0: SCHED_RR is still level 20" "$pid" "level 20 (from SCHED_RR)"
chrt -i -p 0 "$pid"
shows "ioprio_from_nice=0: SCHED_IDLE is still level 0" "$pid" "level 0 (from SCHED_IDLE)"
chrt -b -p 0 "$pid"
shows "ioprio_from_nice=0: SCHED_BATCH at nice -5 is level 10 (default)" "$pid" "level 10 (default)"
echo 1 >"$sysctl"
chrt -b -p 0 "$pid"
shows "SCHED_BATCH: from nice" "$pid" "level 12 (from nice -5)"
chrt -o -p 0 "$pid"

# ioprio_get of a process group reports, for a member that never set a
# priority, the classic best-effort priority that follows its nice value, as
# it always has (DESIGN.md 3.3 changes what its requests carry, not this), and
# a level once one is set.
start setsid
sp=$pid
want='' got=''
for n in -20 -10 0 10 19; do
	renice -n "$n" -p "$sp" >/dev/null
	want+="nice $n: best-effort $(((n + 20) / 5))|"
	got+="nice $n: $("$IOPRIO" -g "$sp" 2>&1 | grep -o 'best-effort [0-9]*')|"
done
expect_eq "ioprio -g of an unset one-process group shows the classic priority from nice" "$want" "$got"
"$IOPRIO" -n 7 -p "$sp" >/dev/null
expect_eq "ioprio -g of a one-process group shows the level set" "$sp: level 7" \
	"$("$IOPRIO" -g "$sp" 2>&1 | sed "s/^[0-9]*:/$sp:/")"
echo 1 >"$sysctl"

"$IOPRIO" -n 15 -p "$pid"
renice -n 10 -p "$pid" >/dev/null
shows "a level set wins over renice" "$pid" "level 15"
echo 0 >"$sysctl"
shows "a level set wins over ioprio_from_nice=0" "$pid" "level 15"
echo 1 >"$sysctl"

# --- an unprivileged user ---------------------------------------------------
dead=$(dead_pid)
start "${AS_USER[@]}"
up=$pid
expect_eq "the user sees their process's level" "$up: level 10 (from nice 0)" \
	"$(as_user "$IOPRIO" -p "$up" 2>&1)"
check "the user sets their own process" as_user "$IOPRIO" -n 5 -p "$up"
shows "... and it has the level" "$up" "level 5"
refused "level 20 needs CAP_SYS_ADMIN or CAP_SYS_NICE" 1 \
	"real time (level 20) needs CAP_SYS_ADMIN or CAP_SYS_NICE" as_user "$IOPRIO" -n 20 -p "$up"
refused "level rt needs CAP_SYS_ADMIN or CAP_SYS_NICE" 1 "real time" as_user "$IOPRIO" -n rt -p "$up"
shows "a refused level 20 changes nothing" "$up" "level 5"
refused "level 20 refused for a command too" 1 "real time" \
	as_user "$IOPRIO" -n 20 touch "$tmp/ran"
if [ -e "$tmp/ran" ]; then
	fail "a command refused its level is not run"
else
	pass "a command refused its level is not run"
fi
expect_eq "-t runs the command at the level it inherited" "level 10 (from nice 0)" \
	"$(as_user "$IOPRIO" -t -n 20 "$IOPRIO" 2>&1)"
expect_eq "the user runs a command at level 3" "level 3" "$(as_user "$IOPRIO" -n 3 "$IOPRIO" 2>&1)"

start
rp=$pid
"$IOPRIO" -n 13 -p "$rp"
expect_eq "the user sees another user's process" "$rp: level 13" "$(as_user "$IOPRIO" -p "$rp" 2>&1)"
refused "another user's process: permission denied" 1 "pid $rp: permission denied" \
	as_user "$IOPRIO" -n 5 -p "$rp"
shows "... and it keeps its level" "$rp" "level 13"
refused "a list with another user's process is refused" 1 "pid $rp: permission denied" \
	as_user "$IOPRIO" -n 6 -p "$up" "$rp"
all_show "... and changes none of the list" "level 5" "$up"
shows "... nor the other user's process" "$rp" "level 13"
refused "the user: a missing pid" 1 "pid $dead: no such process" as_user "$IOPRIO" -n 5 -p "$dead"
refused "the user cannot name uid 0" usage "uid 0" as_user "$IOPRIO" -n 5 -u root

check "the user sets all their processes with -u" as_user "$IOPRIO" -n 4 -u "$user"
shows "... and their process has the level" "$up" "level 4"
start setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --
np=$pid
refused "another user's processes with -u: permission denied" 1 "user nobody: permission denied" \
	as_user "$IOPRIO" -n 4 -u nobody
shows "... and they keep their level" "$np" "level 10 (from nice 0)"

start_group "${AS_USER[@]}"
check "the user sets their own process group" as_user "$IOPRIO" -n 3 -g "$pg"
# shellcheck disable=SC2086
all_show "... every process of it" "level 3" $members
refused "another user's process group: permission denied" 1 \
	"process group $root_pg: permission denied" as_user "$IOPRIO" -n 3 -g "$root_pg"
# shellcheck disable=SC2086
all_show "... and it keeps its level" "level 6" $root_members

# --- documentation -----------------------------------------------------------
out=$("$IOPRIO" --help 2>/dev/null)
expect_eq "ioprio --help exits 0" 0 $?
expect_contains "ioprio --help names every option and the levels" "$out" \
	"Usage:" "-n, --level <level>" "0..20, idle (0), normal (10) or rt (20)" "-r, --reset" \
	"-p, --pid <pid>..." "-g, --pgrp <pgrp>..." "-u, --user <user>..." "-t, --ignore" \
	"-h, --help" "-V, --version" "needs CAP_SYS_ADMIN or CAP_SYS_NICE" \
	"has 10 (0 under SCHED_IDLE, 20 under a real-time policy)" "/proc/sys/kernel/ioprio_from_nice"
check "man -w ioprio finds the page" man -w ioprio
page=$(LC_ALL=C MANWIDTH=1000 man -P cat ioprio 2>/dev/null)
# The options section: from OPTIONS to the next heading.
opts=$(sed -n '/^OPTIONS/,/^[A-Z]/p' <<<"$page")
expect_contains "man ioprio: OPTIONS describes -n, --level" "$opts" \
	"-n, --level level The level to set: a number from 0 to 20" "-r, --reset" "-t, --ignore"
expect_contains "man ioprio: ioprio_from_nice=0 keeps the CPU policy's level" "$page" \
	"When it is 0 the level is 10 whatever the nice value, and the policy still counts: SCHED_IDLE is level 0 and the real-time policies level 20" \
	"EXIT STATUS"
# complete WORD...: the candidates ioprio's bash completion offers for the
# last WORD (possibly empty) of the command line "ioprio WORD...".
complete_ioprio() {
	bash -c '. /usr/share/bash-completion/completions/ioprio || exit
		f=$(complete -p ioprio | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		COMP_WORDS=(ioprio "$@"); COMP_CWORD=$#
		"$f"; echo "${COMPREPLY[*]}"' complete "$@" 2>&1
}
expect_eq "bash completion: ioprio -n offers the levels" \
	"idle normal rt none $(echo {0..20})" "$(complete_ioprio -n "")"
expect_eq "bash completion: ioprio --level 1 offers 1 and 10..19" \
	"$(echo 1 {10..19})" "$(complete_ioprio --level 1)"
expect_eq "bash completion: ioprio --l offers --level" "--level" "$(complete_ioprio --l)"
expect_eq "bash completion: ioprio - offers every long option" \
	"--level --reset --pid --pgrp --user --ignore --help --version" "$(complete_ioprio -)"
expect_eq "bash completion: ioprio -n 5 -u offers user names" "$user" \
	"$(complete_ioprio -n 5 -u "$user")"
done_testing

# The distribution's own tools, patched (procps-patch/) and installed as
# .debs: the installed versions are ours and verify clean; nice --io runs a
# command at a level (read back with ioprio and in the level its requests
# carry), and nice -n alone still moves the derived level; renice --io for
# -p, -g and -u as root and as an unprivileged user (EPERM for level 20 and
# for another user's processes, ESRCH, nothing changed on error); renice
# --io on a running fio reader changes its share of a slow device as
# cfq-prio's counters show; ps -o ioprio agrees with ioprio -p for levels
# set, derived (several nice values, both ioprio_from_nice values, CPU
# policies), classic classes, threads and kernel threads; ionice reads and
# sets levels; every bad input is rejected and changes nothing; man pages
# and bash completion (DESIGN.md 5).
. "$CFQ_SRC/tests/lib.sh"
. "$CFQ_SRC/tests/guest/common.sh"
. "$CFQ_SRC/tests/guest/cfq-common.sh"

sysctl=/proc/sys/kernel/ioprio_from_nice
probe=$CFQ_SRC/build/tests/ioprio-probe
user=cfqtest
work=$(mktemp -d)
chmod 1777 "$work"
pids=()
groups=()
saved=$(cat "$sysctl" 2>/dev/null)
cleanup() {
	local g
	for g in "${groups[@]}"; do kill -- "-$g" 2>/dev/null; done
	kill "${pids[@]}" 2>/dev/null
	[ -z "$saved" ] || echo "$saved" >"$sysctl"
	rm -rf "$work"
}
trap cleanup EXIT

if ! id -u "$user" >/dev/null 2>&1 && ! useradd --no-create-home --shell /bin/sh "$user"; then
	fail "an unprivileged user $user can be created"
	done_testing
fi
uid=$(id -u "$user")
AS_USER=(setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups --inh-caps=-all --)
as_user() { "${AS_USER[@]}" "$@"; }

# This shell never set an I/O priority and runs at nice 0.
ionice -c 0 -p $$
renice -n 0 -p $$ >/dev/null
echo 1 >"$sysctl"

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
level_from_nice() { echo $((19 - ($1 + 20) * 19 / 40)); }
io() { ioprio -p "$1" 2>&1 | sed 's/^[0-9]*: //'; }
ni() { ps -o ni= -p "$1" | tr -d ' '; }

# all_io DESCRIPTION TEXT PID...: ioprio -p shows TEXT for every PID.
all_io() {
	local desc=$1 text=$2 p want='' got=''
	shift 2
	for p in "$@"; do
		want+="$p: $text|"
		got+="$p: $(io "$p")|"
	done
	expect_eq "$desc" "$want" "$got"
}

# rejected DESCRIPTION STATUS WORDS PID COMMAND...: COMMAND exits with
# STATUS, says WORDS on stderr, prints nothing on stdout, runs nothing
# (touch $work/ran) and leaves the nice value and I/O priority of PID as
# they were.
rejected() {
	local desc=$1 status=$2 words=$3 p=$4 before after out rc why=()
	shift 4
	before="nice $(ni "$p"), $(io "$p")"
	rm -f "$work/ran"
	out=$("$@" 2>"$work/err")
	rc=$?
	after="nice $(ni "$p"), $(io "$p")"
	[ "$rc" = "$status" ] || why+=("exit status $rc, expected $status")
	grep -qF -- "$words" "$work/err" || why+=("stderr does not say '$words'")
	[ -z "$out" ] || why+=("stdout: $out")
	[ ! -e "$work/ran" ] || why+=("the command ran")
	[ "$before" = "$after" ] || why+=("pid $p: '$before' became '$after'")
	if [ ${#why[@]} -eq 0 ]; then
		pass "$desc"
	else
		fail "$desc" "command: $*" "${why[@]}" "stderr: $(head -3 "$work/err")"
	fi
}
ran=(touch "$work/ran")

# --- the packages ------------------------------------------------------------
for p in coreutils bsdutils util-linux procps; do
	v=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$p" 2>&1)
	if [[ $v == "ii "*+cfqprio1 ]]; then
		pass "$p is our package ($v)"
	else
		fail "$p is our package (version ending +cfqprio1)" "dpkg-query: $v"
	fi
done
v=$(dpkg -V coreutils bsdutils util-linux procps 2>&1)
expect_eq "dpkg -V coreutils bsdutils util-linux procps is clean" "" "$v"
for f in nice:coreutils renice:bsdutils ionice:util-linux ps:procps; do
	expect_eq "${f%:*} belongs to ${f#*:}" "${f#*:}" \
		"$(dpkg -S "*/bin/${f%:*}" 2>/dev/null | cut -d: -f1 | sort -u)"
done
bad=
for p in coreutils bsdutils util-linux procps; do
	v=$(dpkg-query -W -f='${Version}' "$p")
	dpkg --compare-versions "$v" gt "${v%+cfqprio1}" || bad+=" $p"
done
expect_eq "our versions sort above Debian's" "" "$bad"

# --- nice ----------------------------------------------------------------------
want='' got=''
for l in 0 1 5 10 15 19 20 idle normal rt; do
	n=$l
	case $l in idle) n=0 ;; normal) n=10 ;; rt) n=20 ;; esac
	want+="$l: level $n|"
	got+="$l: $(nice --io="$l" ioprio 2>&1)|"
done
expect_eq "nice --io=LEVEL runs the command at LEVEL (0..20, idle, normal, rt)" "$want" "$got"
expect_eq "nice --io LEVEL (separate argument) too" "level 7" "$(nice --io 7 ioprio 2>&1)"
expect_eq "nice --io alone leaves the niceness as it is" "0" "$(nice --io=5 nice 2>&1)"
expect_eq "nice --io=7 -n 3: both" "3 level 7" "$(nice --io=7 -n 3 sh -c 'echo "$(nice) $(ioprio)"' 2>&1)"
expect_eq "nice -n 3 --io=7: options in any order" "3 level 7" \
	"$(nice -n 3 --io=7 sh -c 'echo "$(nice) $(ioprio)"' 2>&1)"
expect_eq "nice -n 5 alone still moves the derived level" "level 8 (from nice 5)" "$(nice -n 5 ioprio 2>&1)"
expect_eq "nice alone: +10, level 5 from nice 10" "level 5 (from nice 10)" "$(nice ioprio 2>&1)"
expect_eq "an explicit --io wins over the nice value" "level 16" "$(nice -n 19 --io=16 ioprio 2>&1)"
expect_eq "the command's children inherit the level" "level 4" "$(nice --io=4 sh -c ioprio 2>&1)"

if [ -x "$probe" ] && nullb_create tools0; then
	tr=$TRACEFS
	# A request is inserted in its submitter's context but may be issued
	# from kblockd: take the first event either way that names the probe.
	# trace_start also turns tracing on, which earlier tests left off.
	trace_start tools0 block_rq_insert block_rq_issue
	carried() {
		echo >$tr/trace
		"$@" >/dev/null 2>&1
		sed -n 's/.*block_rq_i[a-z]*: .* \([a-z]*,[0-9]*,[0-9]*\) \[ioprio-probe\]$/\1/p' $tr/trace | head -1
	}
	for l in 0 6 15 20; do
		expect_eq "nice --io=$l: the requests carry level $l" "level,0,$l" \
			"$(carried nice --io="$l" "$probe" read /dev/tools0)"
	done
	expect_eq "nice -n 5: the requests carry the derived level 8" "level,0,8" \
		"$(carried nice -n 5 "$probe" read /dev/tools0)"
	echo 0 >"$sysctl"
	expect_eq "nice -n 5 with ioprio_from_nice=0: level 10" "level,0,10" \
		"$(carried nice -n 5 "$probe" read /dev/tools0)"
	expect_eq "nice --io=3 with ioprio_from_nice=0: level 3" "level,0,3" \
		"$(carried nice --io=3 "$probe" read /dev/tools0)"
	echo 1 >"$sysctl"
	trace_stop
	nullb_remove tools0
else
	fail "a null_blk device and ioprio-probe for the trace checks" "probe: $probe"
fi

out=$(as_user nice --io=20 ioprio 2>"$work/err")
rc=$?
expect_eq "nice --io=20 unprivileged: warns, runs the command at its old level" \
	"0|level 10 (from nice 0)|nice: cannot set I/O priority level 20: Operation not permitted" \
	"$rc|$out|$(cat "$work/err")"
expect_eq "nice --io=19 unprivileged is allowed" "level 19" "$(as_user nice --io=19 ioprio 2>&1)"
for l in 21 -1 abc "" 1x none; do
	rejected "nice --io='$l' is rejected (125)" 125 "invalid I/O priority level" $$ nice --io="$l" "${ran[@]}"
done
rejected "nice --io=5 without a command (125)" 125 "a command must be given with an I/O priority level" $$ nice --io=5
rejected "nice --io without its level (125)" 125 "requires an argument" $$ nice --io
nice --io=5 sh -c 'exit 3'
expect_eq "nice --io: the command's exit status" 3 $?
nice --io=5 no-such-command-cfq 2>/dev/null
expect_eq "nice --io: command not found is 127" 127 $?

# --- renice ------------------------------------------------------------------
start
p=$pid
expect_eq "renice --io 15 -p: prints the old and new I/O priority" \
	"$p (process ID) old I/O priority level 10 (from nice 0), new I/O priority level 15" \
	"$(renice --io 15 -p "$p" 2>&1)"
expect_eq "... and the process has level 15" "level 15" "$(io "$p")"
expect_eq "renice PRIO --io LEVEL: both, the nice line first" \
	"$p (process ID) old priority 0, new priority 5|$p (process ID) old I/O priority level 15, new I/O priority level 3" \
	"$(renice 5 --io 3 -p "$p" 2>&1 | paste -sd'|')"
expect_eq "... nice 5, level 3" "5 level 3" "$(ni "$p") $(io "$p")"
expect_eq "renice --io 12 -n 7 -p: both, in any order" "7 level 12" \
	"$(renice --io 12 -n 7 -p "$p" >/dev/null 2>&1; echo "$(ni "$p") $(io "$p")")"
expect_eq "renice --io=9 PID (no -p): process IDs by default" "level 9" \
	"$(renice --io=9 "$p" >/dev/null 2>&1; io "$p")"
for nl in idle:0 normal:10 rt:20 RT:20; do
	renice --io "${nl%:*}" -p "$p" >/dev/null
	expect_eq "renice --io ${nl%:*} is level ${nl#*:}" "level ${nl#*:}" "$(io "$p")"
done
ionice -c 0 -p "$p"
renice -n 0 -p "$p" >/dev/null
expect_eq "renice -n alone still moves the derived level" "level 5 (from nice 10)" \
	"$(renice -n 10 -p "$p" >/dev/null; io "$p")"
renice -n 0 -p "$p" >/dev/null
start
p2=$pid
dead=$(dead_pid)
out=$(renice --io 4 -p "$p" "$dead" "$p2" 2>"$work/err")
rc=$?
expect_eq "renice --io with a missing pid among others: the others change, exit 1" \
	"1|$p: level 4|$p2: level 4|renice: failed to get I/O priority for $dead (process ID): No such process" \
	"$rc|$p: $(io "$p")|$p2: $(io "$p2")|$(cat "$work/err")"
rejected "renice --io with a missing pid: ESRCH" 1 "No such process" "$p" renice --io 6 -p "$dead"
for l in 21 -1 abc "" 1x none; do
	rejected "renice --io '$l' is rejected" 1 "invalid I/O priority level '$l'" "$p" renice --io "$l" -p "$p"
done
rejected "renice 7 --io 21 changes neither" 1 "invalid I/O priority level '21'" "$p" renice 7 --io 21 -p "$p"
rejected "renice --io 5 without an id" 1 "not enough arguments" "$p" renice --io 5
rejected "renice --io without its level" 1 "requires an argument" "$p" renice --io

# -g
start_group
out=$(renice --io 6 -g "$pg" 2>&1)
if [[ $out == "$pg (process group ID) old I/O priority "*", new I/O priority level 6" && $out != *$'\n'* ]]; then
	pass "renice --io 6 -g: one line for the group ($out)"
else
	fail "renice --io 6 -g: one line for the group" "output: $out"
fi
# shellcheck disable=SC2086
all_io "renice --io -g sets every process of the group" "level 6" $members
root_pg=$pg
root_members=$members

# -u
start "${AS_USER[@]}"
u1=$pid
start "${AS_USER[@]}"
u2=$pid
out=$(renice --io 9 -u "$user" 2>&1)
expect_eq "renice --io 9 -u NAME: one line for the user" "$uid (user ID)" "$(cut -d' ' -f1-3 <<<"$out")"
all_io "renice --io -u NAME sets every process of the user" "level 9" "$u1" "$u2"
renice --io 8 -u "$uid" >/dev/null
all_io "renice --io -u UID too" "level 8" "$u1" "$u2"

# as the unprivileged user
check "the user: renice --io 5 -p their own process" as_user renice --io 5 -p "$u1"
expect_eq "... and it has level 5" "level 5" "$(io "$u1")"
rejected "the user: renice --io 20 is EPERM" 1 "level 20 (real time) needs CAP_SYS_ADMIN or CAP_SYS_NICE" \
	"$u1" as_user renice --io 20 -p "$u1"
rejected "the user: renice -n 3 --io rt changes neither" 1 "needs CAP_SYS_ADMIN" \
	"$u1" as_user renice -n 3 --io rt -p "$u1"
renice -n 5 -p "$u1" >/dev/null
rejected "the user: a refused nice value puts the level back" 1 "failed to set priority" \
	"$u1" as_user renice -n 1 --io 3 -p "$u1"
rejected "the user: another user's process is EPERM" 1 "failed to set I/O priority for $p (process ID): Operation not permitted" \
	"$p" as_user renice --io 5 -p "$p"
rejected "the user: another user's process group is EPERM" 1 "Operation not permitted" \
	"$(head -1 <<<"$root_members")" as_user renice --io 5 -g "$root_pg"
# shellcheck disable=SC2086
all_io "... and the group keeps its level" "level 6" $root_members
start setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --
np=$pid
rejected "the user: another user's processes with -u are EPERM" 1 "Operation not permitted" \
	"$np" as_user renice --io 5 -u nobody
rejected "the user: a missing pid is ESRCH" 1 "No such process" "$u1" as_user renice --io 5 -p "$dead"
check "the user: renice --io 2 -u themselves" as_user renice --io 2 -u "$user"
all_io "... every process of the user" "level 2" "$u1" "$u2"
start_group "${AS_USER[@]}"
check "the user: renice --io 3 -g their own group" as_user renice --io 3 -g "$pg"
# shellcheck disable=SC2086
all_io "... every process of the group" "level 3" $members

# --- ionice --------------------------------------------------------------------
start
p=$pid
ioprio -n 15 -p "$p"
expect_eq "ionice -p shows a level as 'level 15'" "level 15" "$(ionice -p "$p" 2>&1)"
ionice -c level -n 7 -p "$p"
expect_eq "ionice -c level -n 7 sets level 7" "level 7" "$(io "$p")"
ionice -c 4 -n 12 -p "$p"
expect_eq "ionice -c 4 -n 12 sets level 12" "level 12" "$(io "$p")"
ionice -n 13 -c level -p "$p"
expect_eq "ionice -n 13 -c level: -n before -c" "level 13" "$(io "$p")"
ionice -c level -p "$p"
expect_eq "ionice -c level without -n: level 10" "level 10" "$(io "$p")"
ionice -c level -n rt -p "$p"
expect_eq "ionice -c level -n rt: level 20" "level 20" "$(io "$p")"
ionice -c level -n idle -p "$p"
expect_eq "ionice -c level -n idle: level 0" "level 0" "$(io "$p")"
expect_eq "ionice -c level -n 3 COMMAND runs it at level 3" "level 3" "$(ionice -c level -n 3 ioprio 2>&1)"
expect_eq "ionice without options shows a level" "level 11" "$(ioprio -n 11 ionice 2>&1)"
ionice -c 2 -n 3 -p "$p"
expect_eq "ionice -c 2 -n 3 still sets best-effort 3" "best-effort: prio 3|best-effort 3 (level 12)" \
	"$(ionice -p "$p")|$(io "$p")"
for c in level 4; do
	for l in 21 -1 abc ""; do
		rejected "ionice -c $c -n '$l' is rejected" 1 "invalid level '$l'" "$p" ionice -c "$c" -n "$l" -p "$p"
	done
done
rejected "ionice -c level -n 21 COMMAND runs nothing" 1 "invalid level '21'" "$p" ionice -c level -n 21 "${ran[@]}"
rejected "the user: ionice -c level -n 20 is EPERM" 1 "ioprio_set failed" "$u1" as_user ionice -c level -n 20 -p "$u1"
check "the user: ionice -c level -n 19 is allowed" as_user ionice -c level -n 19 -p "$u1"

# --- ps -o ioprio ------------------------------------------------------------------
# The short form of what ioprio -p says (DESIGN.md 5).
short() {
	sed -E 's/^level ([0-9]+)$/\1/; s/^level ([0-9]+) \(.*\)$/~\1/;
		s/^best-effort ([0-7]) .*/be\/\1/; s/^realtime ([0-7]) .*/rt\/\1/; s/^idle .*/idle/' <<<"$1"
}
psio() { ps -o ioprio= -p "$1" | tr -d ' '; }
# agrees DESCRIPTION WANT PID: ps shows WANT for PID, and so does ioprio -p.
agrees() { expect_eq "$1" "$2 $2" "$(psio "$3") $(short "$(io "$3")")"; }

header=$(ps -o ioprio -p $$ | head -1 | tr -d ' ')
expect_eq "ps -o ioprio: the header is IOPRIO" IOPRIO "$header"
start
p=$pid
for l in 0 7 15 20; do
	ioprio -n "$l" -p "$p"
	agrees "ps -o ioprio: level $l set shows $l" "$l" "$p"
done
ioprio -n none -p "$p"
want='' got=''
for n in -20 -10 -5 0 5 10 19; do
	renice -n "$n" -p "$p" >/dev/null
	want+="nice $n: ~$(level_from_nice "$n") ~$(level_from_nice "$n")|"
	got+="nice $n: $(psio "$p") $(short "$(io "$p")")|"
done
expect_eq "ps -o ioprio: derived levels follow nice, as ioprio -p says" "$want" "$got"
echo 0 >"$sysctl"
want='' got=''
for n in -10 0 19; do
	renice -n "$n" -p "$p" >/dev/null
	want+="nice $n: ~10 ~10|"
	got+="nice $n: $(psio "$p") $(short "$(io "$p")")|"
done
expect_eq "ps -o ioprio: ioprio_from_nice=0 gives ~10 at every nice value" "$want" "$got"
# ... but keeps the CPU policy's level (DESIGN.md 3.3; before issue 12, ~10).
chrt -f -p 10 "$p"
agrees "ps -o ioprio: ioprio_from_nice=0, SCHED_FIFO is ~20" "~20" "$p"
chrt -i -p 0 "$p"
agrees "ps -o ioprio: ioprio_from_nice=0, SCHED_IDLE is ~0" "~0" "$p"
chrt -o -p 0 "$p"
echo 1 >"$sysctl"
renice -n 0 -p "$p" >/dev/null
chrt -i -p 0 "$p"
agrees "ps -o ioprio: SCHED_IDLE is ~0" "~0" "$p"
chrt -f -p 10 "$p"
agrees "ps -o ioprio: SCHED_FIFO is ~20" "~20" "$p"
chrt -o -p 0 "$p"
ionice -c2 -n3 -p "$p"
agrees "ps -o ioprio: ionice -c2 -n3 is be/3" "be/3" "$p"
ionice -c3 -p "$p"
agrees "ps -o ioprio: ionice -c3 is idle" "idle" "$p"
ionice -c1 -n4 -p "$p"
agrees "ps -o ioprio: ionice -c1 -n4 is rt/4" "rt/4" "$p"
ionice -c 0 -p "$p"
agrees "ps -o ioprio: ionice -c0 is derived again" "~10" "$p"

# threads, with -L
python3 -c 'import threading, time
for i in range(2):
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
time.sleep(600)' &
tp=$!
pids+=("$tp")
for ((i = 0; i < 100; i++)); do
	[ "$(ls "/proc/$tp/task" 2>/dev/null | wc -l)" = 3 ] && break
	sleep 0.05
done
set -- $(ls "/proc/$tp/task" | sort -n)
ioprio -n 13 -p "$2"
ionice -c 2 -n 1 -p "$3"
expect_eq "ps -L -o tid,ioprio: each thread its own (derived, 13, be/1)" \
	"$1 ~10|$2 13|$3 be/1" "$(ps -L -o tid=,ioprio= -p "$tp" | awk '{print $1, $2}' | paste -sd'|')"
expect_eq "... as ioprio -p of each thread says" "~10|13|be/1" \
	"$(short "$(io "$1")")|$(short "$(io "$2")")|$(short "$(io "$3")")"
expect_eq "ps -o ioprio without -L: the main thread" "~10" "$(psio "$tp")"

# every process and kernel thread of the system
bad='' n=0
for q in $(ps -e -o pid=); do
	a=$(ps -o ioprio= -p "$q" | tr -d ' ')
	b=$(ioprio -p "$q" 2>/dev/null | sed 's/^[0-9]*: //')
	[ -n "$a" ] && [ -n "$b" ] || continue
	n=$((n + 1))
	[ "$a" = "$(short "$b")" ] || bad+=" $q:$a/$b"
done
expect_eq "ps -o ioprio agrees with ioprio -p for all $n processes and kernel threads" "" "$bad"
kt=$(ps -e -o pid=,comm= | awk '$2 == "kthreadd" { print $1 }')
agrees "ps -o ioprio: kthreadd" "$(short "$(io "$kt")")" "$kt"
kw=$(ps -e -o pid=,ni=,comm= | awk '$2 == -20 && $3 ~ /^kworker/ { print $1; exit }')
if [ -n "$kw" ]; then
	agrees "ps -o ioprio: a kworker at nice -20 is ~19" "~19" "$kw"
fi
expect_eq "ps -o pid,ioprio,ni,cmd: the header" "PID IOPRIO NI CMD" \
	"$(ps -o pid,ioprio,ni,cmd -p $$ | head -1 | tr -s ' ' | sed 's/^ //')"

# --- documentation ---------------------------------------------------------------
# The rendered pages, whitespace runs made one space: each describes its
# option, not merely names it.
page() { LC_ALL=C MANWIDTH=1000 man -P cat "$@" 2>/dev/null | tr -s ' \t\n' '   '; }
# documents DESCRIPTION PAGE PHRASE...: the page contains every PHRASE.
documents() { expect_contains "$1" "$(page "$2")" "${@:3}"; }
documents "man nice describes --io=LEVEL" nice \
	"--io=LEVEL run COMMAND at I/O priority LEVEL: 0 to 20, or idle (0), normal (10) or rt (20)"
documents "man renice describes --io level" renice \
	"--io level Specify the I/O priority level: a number from 0 to 20" \
	"level 20 (real time) is served first and needs the CAP_SYS_ADMIN or CAP_SYS_NICE capability"
documents "man ps describes the ioprio format specifier" ps \
	"ioprio IOPRIO I/O priority of the process" "marked with a tilde, such as \"~12\""
documents "man ionice describes the level class" ionice \
	"Level The class data is a level from 0 to 20" "4 for level"
if [ -f /usr/share/info/coreutils.info.gz ]; then
	zcat /usr/share/info/coreutils.info.gz | grep -q -e '--io=LEVEL' && pass "info coreutils documents nice --io" ||
		fail "info coreutils documents nice --io"
fi
comp=$(bash -c '. /usr/share/bash-completion/completions/renice
	COMP_WORDS=(renice --io ""); COMP_CWORD=2; _renice_module; echo "${COMPREPLY[*]}"' 2>&1)
expect_eq "bash completion: renice --io offers 0..20 idle normal rt" \
	"$(echo {0..20} idle normal rt)" "$comp"
comp=$(bash -c '. /usr/share/bash-completion/completions/ionice
	COMP_WORDS=(ionice -c level -n ""); COMP_CWORD=4; _ionice_module; echo "${COMPREPLY[*]}"' 2>&1)
expect_eq "bash completion: ionice -c level -n offers 0..20 idle normal rt" \
	"$(echo {0..20} idle normal rt)" "$comp"

# --- renice --io on a running fio reader ----------------------------------------
# Two readers of the slow device that never set a priority (nice 0: both
# level 10); then renice --io 19 the worker of one.  cfq-prio's per-level
# counters show that reader moving from level 10 to 19 and its share going
# from nothing at 19 to 20:11 against the other.
kill "${pids[@]}" 2>/dev/null
for g in "${groups[@]}"; do kill -- "-$g" 2>/dev/null; done
pids=() groups=()
trap 'test_dev_cleanup; cleanup' EXIT
nsec=1000000
case $(uname -r) in *-debug) nsec=4000000 ;; esac
test_dev tools1 completion_nsec=$nsec
trap 'test_dev_cleanup; cleanup' EXIT
opts="--filename=/dev/$dev --direct=1 --ioengine=libaio --rw=randread --bs=4k --size=4G --time_based --iodepth=16 --runtime=40"
fio --name=a $opts --output-format=terse --terse-version=3 >"$tmp/a" 2>&1 &
fa=$!
fio --name=b $opts --output-format=terse --terse-version=3 >"$tmp/b" 2>&1 &
fb=$!
# fio forks a worker per job; the worker does the reads.
worker() { pgrep -P "$1" -x fio | head -1; }
wa='' wb=''
for ((i = 0; i < 200; i++)); do
	wa=$(worker $fa) wb=$(worker $fb)
	[ -n "$wa" ] && [ -n "$wb" ] && break
	sleep 0.1
done
if [ -n "$wa" ] && [ -n "$wb" ] && wait_for 30 dispatched "$dev" 10; then
	sleep 1
	s0=$(levels "$dev")
	sleep 4
	s1=$(levels "$dev")
	before="$(psio "$wb")"
	out=$(renice --io 19 -p "$wb" 2>&1)
	after="$(psio "$wb")"
	sleep 1
	s2=$(levels "$dev")
	sleep 6
	s3=$(levels "$dev")
	d10a=$(delta "$s0" "$s1" 10 dispatched) d19a=$(delta "$s0" "$s1" 19 dispatched)
	d10b=$(delta "$s2" "$s3" 10 dispatched) d19b=$(delta "$s2" "$s3" 19 dispatched)
	expect_eq "renice --io 19 on a fio worker: its line" \
		"$wb (process ID) old I/O priority level 10 (from nice 0), new I/O priority level 19" "$out"
	expect_eq "ps -o ioprio of the fio worker: ~10 before, 19 after" "~10 19" "$before $after"
	if [ "$d10a" -gt 100 ] && [ "$d19a" -eq 0 ]; then
		pass "before renice both readers are at level 10 (level 10: $d10a requests, 19: $d19a in 4 s)"
	else
		fail "before renice both readers are at level 10" "level 10: $d10a, level 19: $d19a requests in 4 s"
	fi
	r=$(awk -v a="$d19b" -v b="$d10b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
	if [ "$d10b" -gt 0 ] && within "$r" 1.55 2.09; then
		pass "after renice --io 19 it gets 20:11 of the device (level 19: $d19b, level 10: $d10b requests, ratio $r)"
	else
		fail "after renice --io 19 it gets 20:11 of the device (ratio 1.82 within 15%)" \
			"level 19: $d19b, level 10: $d10b requests in 6 s, ratio $r"
	fi
else
	fail "two fio readers started on /dev/$dev" "workers: '$wa' '$wb'" "$(levels "$dev" 2>&1 | head -3)"
fi
kill $fa $fb 2>/dev/null
wait $fa $fb 2>/dev/null
done_testing

#!/bin/bash
# Progress of a long build step, read from its output on stdin; every line
# also goes to LOG (which it replaces).
#
#   progress.sh steps LOG LABEL [TOTAL]   kbuild output: counts its steps
#       (the "  CC      path" lines) against TOTAL (0 or none: unknown) and
#       shows "LABEL: N of ~TOTAL steps (P %), M:SS" on one updating line of
#       a terminal, or as a line a minute when stderr is not a terminal;
#       the count goes to LOG.steps at the end.
#   progress.sh phases LOG LABEL ERE      prints "LABEL: LINE (M:SS)" for each
#       line that matches ERE (a phase of the build).
#
# Progress goes to stderr.  The exit status is 0 (pipefail carries the
# build's own).
set -u
mode=${1:?usage: progress.sh steps|phases LOG LABEL [TOTAL|ERE]}
log=${2:?no LOG}
label=${3:?no LABEL}
arg=${4:-}
tty=0
[ -t 2 ] && tty=1
start=$SECONDS
every=${PROGRESS_EVERY:-60}	# seconds between lines when not on a terminal
exec 3>"$log"

elapsed() { local s=$((SECONDS - start)); printf '%d:%02d' $((s / 60)) $((s % 60)); }

steps() {
	local line n=0 total=${arg:-0} shown=-1 next=$every msg re='^  [A-Z][A-Z0-9_]*( \[M\])? +[^ ]'
	[[ $total =~ ^[0-9]+$ ]] || total=0
	while IFS= read -r line; do
		printf '%s\n' "$line" >&3
		[[ $line =~ $re ]] || continue
		n=$((n + 1))
		if [ $tty = 1 ]; then
			[ $SECONDS -ne $shown ] || continue
			shown=$SECONDS
		else
			[ $((SECONDS - start)) -ge "$next" ] || continue
			next=$((next + every))
		fi
		if [ "$total" -gt 0 ] && [ $n -lt "$total" ]; then
			msg=$(printf '%s: %d of ~%d steps (%d %%), %s' "$label" $n "$total" $((n * 100 / total)) "$(elapsed)")
		else
			msg=$(printf '%s: %d steps, %s' "$label" $n "$(elapsed)")
		fi
		if [ $tty = 1 ]; then printf '\r\033[K%s' "$msg" >&2; else printf '%s\n' "$msg" >&2; fi
	done
	[ $tty = 0 ] || printf '\r\033[K' >&2
	echo $n >"$log.steps"
}

phases() {
	local line
	while IFS= read -r line; do
		printf '%s\n' "$line" >&3
		[[ $line =~ $arg ]] || continue
		line=${line#"${line%%[![:space:]]*}"}
		printf '%s: %s (%s)\n' "$label" "${line:0:90}" "$(elapsed)" >&2
	done
}

case $mode in
steps) steps ;;
phases) phases ;;
*) echo "progress.sh: unknown mode '$mode'" >&2; cat >&3 ;;
esac
exit 0

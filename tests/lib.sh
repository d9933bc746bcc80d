# Reporting for cfq-prio tests, host and guest alike.  Source it from a test
# script; every check prints one line that names itself:
#
#   ok - FILE: DESCRIPTION
#   not ok - FILE: DESCRIPTION
#   ok - FILE: DESCRIPTION # SKIP REASON
#
# followed, on failure, by "#" lines that say why.  The runners number the
# lines, count them and decide the overall result.

T_NAME=${T_NAME:-$(basename "$0" .sh)}
T_FAILED=0

pass() { printf 'ok - %s: %s\n' "$T_NAME" "$1"; }

# fail DESCRIPTION [WHY...]
fail() {
	printf 'not ok - %s: %s\n' "$T_NAME" "$1"
	shift
	# Every line of the details, so that the runner's summary shows them.
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/#   /'
	T_FAILED=$((T_FAILED + 1))
}

# skip DESCRIPTION REASON
skip() { printf 'ok - %s: %s # SKIP %s\n' "$T_NAME" "$1" "$2"; }

# check DESCRIPTION COMMAND [ARG...]: passes if the command succeeds; its
# output is shown only on failure.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$desc"
	else
		fail "$desc" "command: $*" "exit status $?"
		[ -z "$out" ] || printf '%s\n' "$out" | tail -n 20 | sed 's/^/#   | /'
	fi
}

# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: $2" "got:      $3"
	fi
}

# expect_contains DESCRIPTION TEXT PHRASE...: TEXT, with whitespace runs made
# one space, contains every PHRASE.
expect_contains() {
	local desc=$1 text missing=() p
	text=$(tr -s ' \t\n' '   ' <<<"$2")
	shift 2
	for p in "$@"; do
		[[ $text == *"$p"* ]] || missing+=("missing: $p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		pass "$desc"
	else
		fail "$desc" "${missing[@]}" "text: ${text:0:300}"
	fi
}

# Exit with the status a runner expects: 0 if no check failed.
done_testing() { exit $((T_FAILED > 0)); }

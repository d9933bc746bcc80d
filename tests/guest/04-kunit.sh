# The kernel's own KUnit tests of our logic, as they ran in this boot
# (built-in suites run at boot; test modules run when loaded).
. "$CFQ_SRC/tests/lib.sh"

# Test modules of ours, loaded so that their suites run now.
for m in cfq-prio-iosched; do
	modinfo "$m" >/dev/null 2>&1 && modprobe "$m"
done

dir=/sys/kernel/debug/kunit
# The suites this project adds; each must have run.
expected="ioprio-level cfq-prio"
for s in $expected; do
	[ -r "$dir/$s/results" ] || fail "KUnit suite $s ran" "no $dir/$s/results"
done

for r in "$dir"/*/results; do
	[ -r "$r" ] || continue
	suite=${r%/results}
	suite=${suite##*/}
	case " $expected " in *" $suite "*) ;; *) continue ;; esac
	n=0
	while IFS= read -r line; do
		case $line in
		"    ok "*|"    not ok "*)
			n=$((n + 1))
			set -- $line
			if [ "$1" = ok ]; then
				pass "KUnit $suite: $3"
			else
				fail "KUnit $suite: $4" "see $r"
			fi
			;;
		*"# Subtest:"*|*"# module:"*|*"# Totals:"*|*"# "*"speed: slow"*) ;;
		"    # "*|"        # "*)
			echo "#   ${line#"${line%%#*}"}"
			;;
		esac
	done <"$r"
	[ $n -gt 0 ] || fail "KUnit suite $suite has test cases" "$(head -5 "$r")"
done
done_testing

#!/bin/bash
# make ab: cfq-prio at several revisions of the kernel series, side by side
# with mq-deadline in one boot, under P1's load (DESIGN.md section 7).
#
#   scripts/ab.sh REV...    REV: a revision of the kernel tree (build/linux-*),
#                           "work" for its working file, or the path of a
#                           scheduler's source file that registers the
#                           elevator "cfq-prio" (tests/bench/floor-iosched.c)
#
# Each revision's block/cfq-prio-iosched.c is built as a module against the
# guest kernel's build tree (build/kobj-guest), under the elevator name
# cfq-a, cfq-b, ... in the order given, into build/ab/.  The guest
# (tests/bench/ab.sh) loads them all and switches the scheduler of one
# null_blk device under one fio run in rounds, as P1 does, so that the
# ratios between revisions are taken seconds apart in the same boot: the
# bench's ratios between boots vary more than most single changes.
#
# Environment: AB_ROUNDS (default 20) rounds per fio run, two runs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "ab: $*"; }
die() { echo "ab: error: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: scripts/ab.sh REV... (revisions of the kernel tree, work, or files)"
[ $# -le 8 ] || die "at most 8 revisions, got $#"
ksrc=$(ls -d "$top"/build/linux-*/ 2>/dev/null | head -1)
ksrc=${ksrc%/}
kobj=$top/build/kobj-guest
[ -n "$ksrc" ] && [ -d "$ksrc/.git" ] || die "no kernel tree in build/: run make kernel-tree"
[ -f "$kobj/Module.symvers" ] || die "no guest kernel build in build/kobj-guest: run make image"
[ -f "$top/build/image/cfq-prio.raw" ] || die "no image: run make image"
# The modules load only into the kernel they were built for.
[ "$(cat "$kobj/include/config/kernel.release")" = "$(cat "$top/build/kernel-guest/release" 2>/dev/null)" ] ||
	die "build/kobj-guest is not the image's kernel ($(cat "$top/build/kernel-guest/release" 2>/dev/null || echo none)): run make image"

ab=$top/build/ab
rm -rf "$ab"
mkdir -p "$ab"
: >"$ab/Kbuild"
echo 'ccflags-y += -I$(srctree)/block' >>"$ab/Kbuild"
i=0
for rev in "$@"; do
	name=$(printf "\\x$(printf %x $((97 + i)))")
	i=$((i + 1))
	if [ "$rev" = work ]; then
		desc="the working file of ${ksrc#"$top"/}"
		[ -z "$(git -C "$ksrc" status --porcelain --untracked-files=no)" ] || desc="$desc (uncommitted edits)"
		cp "$ksrc/block/cfq-prio-iosched.c" "$ab/cfqab_$name.c"
	elif [[ $rev == */* || $rev == *.c ]]; then
		[ -f "$rev" ] || die "'$rev': no such file"
		desc="the file $rev"
		cp "$rev" "$ab/cfqab_$name.c"
	else
		sha=$(git -C "$ksrc" rev-parse --verify --quiet "$rev^{commit}") ||
			die "'$rev' is not a revision of ${ksrc#"$top"/}"
		desc=$(git -C "$ksrc" log -1 --format='%h %s' "$sha")
		git -C "$ksrc" show "$sha:block/cfq-prio-iosched.c" >"$ab/cfqab_$name.c" 2>/dev/null ||
			die "'$rev' has no block/cfq-prio-iosched.c"
	fi
	sed -i -e "s/\"cfq-prio\"/\"cfq-$name\"/" \
		-e "s/MODULE_ALIAS(\"cfq-prio-iosched\")/MODULE_ALIAS(\"cfq-$name-iosched\")/" \
		-e '/#include "cfq-prio-test.c"/d' "$ab/cfqab_$name.c"
	grep -q "\"cfq-$name\"" "$ab/cfqab_$name.c" || die "'$rev': no elevator named cfq-prio in its file"
	echo "obj-m += cfqab_$name.o" >>"$ab/Kbuild"
	echo "cfq-$name $rev: $desc" >>"$ab/revisions"
done
say "building $# module(s) against ${kobj#"$top"/}"
# Functions that only the KUnit file calls are unused here: not our warning.
make -s -C "$ksrc" O="$kobj" M="$ab" LOCALVERSION= KCFLAGS=-Wno-unused-function modules >"$ab/build.log" 2>&1 ||
	{ tail -20 "$ab/build.log" >&2; die "the modules did not build (build/ab/build.log)"; }
sed 's/^/ab:   /' "$ab/revisions"
echo "AB_ROUNDS=${AB_ROUNDS:-20}" >"$ab/config"
"$top/scripts/vm.sh" script tests/bench/ab.sh

# mkosi.conf builds in a tree that has only the kernel it needs: the guest
# kernel, or only the debug kernel (DEBUG=1 from a fresh clone), and
# `mkosi qemu` boots the guest kernel where there is one.  Runs `mkosi
# summary` on a copy of the configuration with stand-ins for build/.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v mkosi >/dev/null; then
	skip "mkosi summary" "mkosi is not installed (make deps installs it)"
	done_testing
fi
cp -a "$top/mkosi.conf" "$tmp/"
[ ! -d "$top/mkosi.conf.d" ] || cp -a "$top/mkosi.conf.d" "$tmp/"
mkdir -p "$tmp/build/mkosi.pkgmngr" "$tmp/build/image" "$tmp/build/image-tree" \
	"$tmp/build/tools/debs" "$tmp/build/kernel-debug"
: >"$tmp/build/kernel-debug/bzImage"
summary() { (cd "$tmp" && mkosi summary 2>&1); }

if out=$(summary); then
	pass "only the debug kernel built: the configuration parses"
	expect_contains "only the debug kernel built: no QEMU kernel set" "$out" \
		"QEMU Kernel: none"
else
	fail "only the debug kernel built: the configuration parses" \
		"$(tail -3 <<<"$out")"
fi

mkdir -p "$tmp/build/kernel-guest"
: >"$tmp/build/kernel-guest/bzImage"
if out=$(summary); then
	expect_contains "the guest kernel built: mkosi qemu boots it" "$out" \
		"QEMU Kernel: $tmp/build/kernel-guest/bzImage"
else
	fail "the guest kernel built: mkosi qemu boots it" "$(tail -3 <<<"$out")"
fi
done_testing

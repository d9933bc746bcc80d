# scripts/kernel.sh keeps the kernel tree and kernel/patches/ in step: the
# series applies in order, a patch that does not apply stops the build and is
# named, the tree's commits export back, and unexported work is not thrown
# away.  Runs on a tiny stand-in for the kernel-source tree.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export BUILD_DIR=$tmp/build PATCHES_DIR=$tmp/patches
export KERNEL_SOURCE=$tmp/linux-source.tar.xz KERNEL_SOURCE_VERSION=6.12.999
ks() { "$top/scripts/kernel.sh" "$@"; }
tree=$BUILD_DIR/linux-6.12.999
g() { git -C "$tree" "$@"; }

# A stand-in source tarball and two patches made against it.
mkdir -p "$tmp/src/linux-source-6.12" "$PATCHES_DIR"
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 999\n' >"$tmp/src/linux-source-6.12/Makefile"
printf 'one\ntwo\nthree\n' >"$tmp/src/linux-source-6.12/file.c"
tar -C "$tmp/src" -cJf "$KERNEL_SOURCE" linux-source-6.12
git init -q "$tmp/mk"
cp -a "$tmp/src/linux-source-6.12/." "$tmp/mk/"
git -C "$tmp/mk" add -A
git -C "$tmp/mk" -c user.name=t -c user.email=t@t commit -q -m base
sed -i 's/two/TWO/' "$tmp/mk/file.c"
git -C "$tmp/mk" -c user.name=t -c user.email=t@t commit -q -am "test: change two"
git -C "$tmp/mk" format-patch -q -o "$PATCHES_DIR" HEAD~1
printf 'one\nfour\nthree\n' >"$tmp/bad-base"
cat >"$PATCHES_DIR/0002-test-bad.patch" <<'P'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: t <t@t>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] test: does not apply

---
 file.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/file.c b/file.c
--- a/file.c
+++ b/file.c
@@ -1,3 +1,3 @@
 one
-four
+five
 three
P
good=$(basename "$PATCHES_DIR"/0001-*.patch)
printf '# test series\n%s\n0002-test-bad.patch\n' "$good" >"$PATCHES_DIR/series"

out=$(ks tree 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "patch 2 of the series, 0002-test-bad.patch, does not apply" <<<"$out"; then
	pass "a patch that does not apply stops the tree with its name"
else
	fail "a patch that does not apply stops the tree with its name" "exit $rc" "$out"
fi
expect_eq "a failed series leaves the pristine tree" "$(g rev-parse pristine)" "$(g rev-parse HEAD)"

printf '%s\n' "$good" >"$PATCHES_DIR/series"
check "the series applies" ks tree
expect_eq "the tree holds the series on the pristine commit" "test: change two" "$(g log -1 --format=%s)"
expect_eq "patched file content" "one TWO three" "$(echo $(cat "$tree/file.c"))"
check "an unchanged series is left alone" ks tree

echo four >>"$tree/file.c"
g -c user.name=t -c user.email=t@t commit -q -am "test: add four"
check "a new commit in the tree does not stop the build" ks tree
check "export writes the tree's commits" ks export
expect_eq "export lists both patches in the series" 2 "$(grep -cv '^#' "$PATCHES_DIR/series")"
check "the exported series is current" ks tree

g -c user.name=t -c user.email=t@t commit -q --allow-empty -m "test: unexported"
sed -i '$d' "$PATCHES_DIR/series"
out=$(ks tree 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "not exported" <<<"$out"; then
	pass "a changed series does not overwrite unexported commits"
else
	fail "a changed series does not overwrite unexported commits" "exit $rc" "$out"
fi
check "reset takes the series" ks reset
expect_eq "reset tree holds one patch" 1 "$(g rev-list --count pristine..HEAD)"
done_testing

#!/bin/bash
# Kernel tree, series and build for cfq-prio.
#
#   scripts/kernel.sh tree     extract the kernel-source tree into build/ and
#                              apply kernel/patches/series (if not done yet)
#   scripts/kernel.sh config   configure from kernel/config/ and check the result
#   scripts/kernel.sh build    configure from kernel/config/ and build
#   scripts/kernel.sh export   write the tree's commits to kernel/patches/
#   scripts/kernel.sh reset    drop the tree's commits and re-apply the series
#   scripts/kernel.sh headers  install the uapi headers into build/headers/
#   scripts/kernel.sh srcdir   print the tree's path
#
# The tree build/linux-VERSION/ is a git repository: the pristine tree is its
# first commit (tag "pristine"), our series the commits on top.  Objects go to
# build/kobj-FLAVOR/ (FLAVOR is "guest", or "debug" with DEBUG=1) so the tree
# stays clean and incremental rebuilds keep working.  The results are
# collected in build/kernel-FLAVOR/: bzImage, vmlinux build id, release and
# the modules under modroot/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
patches=${PATCHES_DIR:-$top/kernel/patches}
series=$patches/series
flavor=guest
[ "${DEBUG:-0}" = 1 ] && flavor=debug
jobs=${JOBS:-$(nproc)}

say() { printf 'kernel: %s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

# The installed kernel-source package: its upstream version, and where its
# source is (Debian: a tarball; openSUSE: an unpacked tree).
find_source() {
	local v
	if [ -n "${KERNEL_SOURCE:-}" ]; then
		# For tests: a tarball or tree, and its version.
		src_archive=$KERNEL_SOURCE
		src_version=${KERNEL_SOURCE_VERSION:?KERNEL_SOURCE needs KERNEL_SOURCE_VERSION}
		src_desc="$KERNEL_SOURCE"
	elif v=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) && [ -n "$v" ]; then
		src_version=${v%%-*}
		src_archive=/usr/src/linux-source-6.12.tar.xz
		src_desc="linux-source-6.12 $v"
	elif v=$(rpm -q --qf '%{VERSION}' kernel-source 2>/dev/null); then
		src_version=$v
		src_archive=/usr/src/linux-$v
		src_desc="kernel-source $v"
	else
		die "no kernel-source package installed (run: make deps)"
	fi
	[ -e "$src_archive" ] || die "$src_desc is installed but $src_archive is missing"
	case $src_version in
	6.12.*) ;;
	*) die "$src_desc: expected a 6.12.y kernel, found $src_version" ;;
	esac
}

git_k() { git -C "$ksrc" -c user.name="cfq-prio build" -c user.email=build@cfq-prio.invalid "$@"; }

series_patches() {
	[ -f "$series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$series"
}

series_hash() {
	local p
	{
		series_patches
		series_patches | while read -r p; do
			[ -f "$patches/$p" ] || die "series names $p, which is not in kernel/patches/"
			cat "$patches/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

stamp_file() { echo "$ksrc/.git/cfq-prio-series"; }

write_stamp() { echo "$(series_hash) $(git_k rev-parse HEAD)" >"$(stamp_file)"; }

extract() {
	local tmp=$ksrc.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	say "extracting $src_desc into ${ksrc#"$top"/}"
	if [ -d "$src_archive" ]; then
		cp -a "$src_archive/." "$tmp/"
	else
		tar -C "$tmp" --strip-components=1 -xf "$src_archive"
	fi
	local mk="$tmp/Makefile" tv
	tv=$(awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3} END{print v"."p"."s}' "$mk")
	[ "$tv" = "$src_version" ] || die "$src_desc unpacks a $tv tree, expected $src_version"
	# Debian's tree ignores everything at its top level (its packaging
	# does not track it): drop that rule, or the new files of our series
	# would be ignored.
	if [ -f "$tmp/.gitignore" ]; then
		sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' "$tmp/.gitignore"
	fi
	say "recording the pristine tree in git"
	git -C "$tmp" init -q -b upstream
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	git -C "$tmp" add -A -f .
	ksrc=$tmp git_k commit -q -m "Linux $src_version from $src_desc (pristine)" \
		-m "Debian's rule that ignores everything at the top level is dropped from .gitignore."
	git -C "$tmp" tag pristine
	git -C "$tmp" checkout -q -b cfq-prio
	mv "$tmp" "$ksrc"
}

apply_series() {
	local p n=0
	while read -r p; do
		n=$((n + 1))
		if ! git_k am -q --keep-cr "$patches/$p" >"$build/git-am.log" 2>&1; then
			git_k am --abort >/dev/null 2>&1 || true
			git_k reset -q --hard pristine
			rm -f "$(stamp_file)"
			sed 's/^/  /' "$build/git-am.log" >&2
			die "patch $n of the series, $p, does not apply to Linux $src_version"
		fi
	done < <(series_patches)
	write_stamp
	say "applied $n patch(es) from kernel/patches/series"
}

cmd_tree() {
	find_source
	ksrc=$build/linux-$src_version
	mkdir -p "$build"
	if [ ! -d "$ksrc/.git" ]; then
		rm -rf "$ksrc"
		extract
		apply_series
		return
	fi
	local stamp hash head
	hash=$(series_hash)
	head=$(git_k rev-parse HEAD)
	stamp=$(cat "$(stamp_file)" 2>/dev/null || true)
	if [ "${stamp%% *}" = "$hash" ]; then
		return 0	# series applied; later local commits are work in progress
	fi
	if [ -n "$stamp" ] && [ "${stamp#* }" != "$head" ] ||
	   [ -z "$stamp" ] && [ "$head" != "$(git_k rev-parse pristine)" ]; then
		die "kernel/patches/ changed, but ${ksrc#"$top"/} has commits that are not exported: run 'make kernel-export' (keeps the tree's) or 'make kernel-reset' (takes the series)"
	fi
	[ -z "$(git_k status --porcelain --untracked-files=no)" ] ||
		die "kernel/patches/ changed, but ${ksrc#"$top"/} has uncommitted edits: commit or discard them first"
	say "kernel/patches/ changed: re-applying the series"
	git_k reset -q --hard pristine
	apply_series
}

cmd_reset() {
	find_source
	ksrc=$build/linux-$src_version
	[ -d "$ksrc/.git" ] || { cmd_tree; return; }
	say "resetting ${ksrc#"$top"/} to pristine + kernel/patches/series"
	git_k am --abort >/dev/null 2>&1 || true
	git_k reset -q --hard pristine
	apply_series
}

cmd_export() {
	find_source
	ksrc=$build/linux-$src_version
	[ -d "$ksrc/.git" ] || die "no kernel tree to export from (run: make kernel)"
	[ -z "$(git_k status --porcelain --untracked-files=no)" ] ||
		die "${ksrc#"$top"/} has uncommitted edits: commit them first"
	local n
	n=$(git_k rev-list --count pristine..HEAD)
	find "$patches" -maxdepth 1 -name '*.patch' -delete
	if [ "$n" -gt 0 ]; then
		git_k format-patch -q -N --zero-commit --no-signature -o "$patches" pristine..HEAD
	fi
	{
		sed -n '/^#/p' "$series" 2>/dev/null || true
		(cd "$patches" && ls -1 -- *.patch 2>/dev/null || true)
	} >"$series.new"
	mv "$series.new" "$series"
	write_stamp
	say "exported $n patch(es) to kernel/patches/"
}

# Merge the fragments, configure on top of allnoconfig, and check that every
# requested option really is set as asked (a missing dependency would
# otherwise drop it silently).
configure() {
	local frag=$kobj/cfq-prio.fragment new=$kobj/cfq-prio.fragment.new
	local frags=("$top/kernel/config/guest.config")
	[ $flavor = debug ] && frags+=("$top/kernel/config/debug.config")
	mkdir -p "$kobj"
	cat "${frags[@]}" >"$new"
	if [ -f "$kobj/.config" ] && cmp -s "$new" "$frag"; then
		rm -f "$new"
		kmake olddefconfig >/dev/null
	else
		mv "$new" "$frag"
		say "configuring ($flavor): allnoconfig + ${frags[*]#"$top"/}"
		kmake KCONFIG_ALLCONFIG="$frag" allnoconfig >/dev/null
	fi
	local bad
	bad=$(awk '
		FNR == NR {
			if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
				k = substr($0, 1, RLENGTH - 1); want[k] = substr($0, RLENGTH + 1)
			} else if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set/)) {
				split($0, w, " "); want[w[2]] = "n"
			}
			next
		}
		/^CONFIG_/ { i = index($0, "="); have[substr($0, 1, i - 1)] = substr($0, i + 1) }
		END {
			for (k in want) {
				h = (k in have) ? have[k] : "n"
				if (h != want[k]) printf "  %s: asked %s, got %s\n", k, want[k], h
			}
		}' "$frag" "$kobj/.config")
	[ -z "$bad" ] || { printf '%s\n' "$bad" >&2; die "the kernel config does not hold what kernel/config/ asks (see above)"; }
}

kmake() {
	make -C "$ksrc" O="$kobj" -j"$jobs" \
		CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="cfq-prio" KBUILD_BUILD_USER=cfq-prio \
		KBUILD_BUILD_HOST=build LOCALVERSION= "$@"
}

tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }

cmd_build() {
	cmd_tree
	kobj=$build/kobj-$flavor
	local out=$build/kernel-$flavor
	export CCACHE_BASEDIR=$top
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	configure
	say "building bzImage and modules ($flavor, $jobs jobs, log: build/kernel-$flavor.log)"
	local t0=$SECONDS log=$build/kernel-$flavor.log steps=$kobj/.cfq-prio-steps total=0 n
	# Progress: kbuild's steps against the most a build of this tree took
	# (unknown before the first), on one line of a terminal, else a line a
	# minute.
	[ -f "$steps" ] && total=$(cat "$steps")
	# Before the first build: a clean guest build took 2032 steps.
	[ "$total" -gt 0 ] || [ $flavor != guest ] || total=2032
	if ! kmake bzImage modules 2>&1 | "$top/scripts/progress.sh" steps "$log" kernel "$total"; then
		grep -E 'error|Error' "$log" | head -30 >&2
		die "kernel build failed: see build/kernel-$flavor.log"
	fi
	n=$(cat "$log.steps" 2>/dev/null || echo 0)
	rm -f "$log.steps"
	[ "$n" -le "$total" ] || echo "$n" >"$steps"
	grep -E '(^|: )warning:' "$build/kernel-$flavor.log" | sort -u >"$build/kernel-$flavor.warnings" || true
	rm -rf "$out.new"
	mkdir -p "$out.new"
	kmake INSTALL_MOD_PATH="$out.new/modroot" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	cp "$kobj/arch/x86/boot/bzImage" "$out.new/bzImage"
	cp "$kobj/include/config/kernel.release" "$out.new/release"
	readelf -n "$kobj/vmlinux" | awk '/Build ID:/{print $3; exit}' >"$out.new/build-id"
	if [ -d "$out" ] && [ "$(tree_sum "$out")" = "$(tree_sum "$out.new")" ]; then
		rm -rf "$out.new"	# unchanged: keep the old files and their times
	else
		rm -rf "$out"
		mv "$out.new" "$out"
	fi
	say "built $(cat "$out/release") in $((SECONDS - t0)) s ($(wc -l <"$build/kernel-$flavor.warnings") warning line(s))"
}

# The patched uapi headers, for the tools and tests built against them.
cmd_headers() {
	cmd_tree
	kobj=$build/kobj-headers
	mkdir -p "$kobj"
	kmake INSTALL_HDR_PATH="$kobj/install" headers_install >"$build/headers.log" 2>&1 ||
		{ tail -20 "$build/headers.log" >&2; die "headers_install failed: see build/headers.log"; }
	# Copy only what changed, so that what is built against them is not
	# rebuilt for nothing.
	mkdir -p "$build/headers"
	rsync -r --checksum --delete "$kobj/install/" "$build/headers/"
}

cmd=${1:-build}
case $cmd in
tree) cmd_tree ;;
config) cmd_tree; kobj=$build/kobj-$flavor; configure; say "configured ${kobj#"$top"/} ($flavor)" ;;
build) cmd_build ;;
export) cmd_export ;;
reset) cmd_reset ;;
headers) cmd_headers ;;
srcdir) find_source; echo "$build/linux-$src_version" ;;
*) die "unknown command '$cmd'" ;;
esac

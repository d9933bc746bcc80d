#!/bin/bash
# Install what a make target needs from the distribution's own packages.
#
#   scripts/deps.sh GROUP...     GROUP: kernel qemu image host tools plot all
#
# Idempotent: installs only what is missing; uses sudo when not root.  On
# Debian, mkosi comes from bookworm-backports, which is enabled from the
# archive the machine is already configured for if it is missing.
set -euo pipefail

say() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# Packages per group, Debian names.
deb_kernel="build-essential bc bison flex libssl-dev libelf-dev cpio kmod
	rsync python3 ccache git xz-utils perl linux-source-6.12"
deb_qemu="qemu-system-x86 qemu-utils"
deb_image="debian-archive-keyring apt dpkg e2fsprogs dosfstools mtools
	fdisk bubblewrap zstd reprepro"
deb_image_bpo="mkosi systemd systemd-container"
deb_host="gcc make python3 perl liburing-dev"
# The distribution's nice, renice, ionice and ps, patched (scripts/tools.sh
# installs each source package's build dependencies itself).
deb_tools="build-essential dpkg-dev fakeroot debian-archive-keyring"
# The pictures of make demo and make bench (scripts/plot.py).
deb_plot="python3-matplotlib"

# Packages per group, openSUSE names (best effort, see README).
suse_kernel="gcc make bc bison flex libopenssl-devel libelf-devel cpio kmod
	rsync python3 ccache git xz perl kernel-source"
suse_qemu="qemu-x86 qemu-tools"
suse_image="mkosi systemd-repart e2fsprogs dosfstools mtools bubblewrap
	zstd apt dpkg debian-archive-keyring"
suse_host="gcc make python3 perl liburing-devel"
suse_tools="dpkg"
suse_plot="python3-matplotlib"

. /etc/os-release
case " ${ID:-} ${ID_LIKE:-} " in
*" debian "*) family=debian ;;
*" suse "*|*" opensuse "*) family=suse ;;
*) die "unsupported distribution '${ID:-unknown}': install the packages listed in scripts/deps.sh by hand" ;;
esac

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	say "apt-get update"
	$SUDO apt-get update -qq || die "apt-get update failed"
	apt_updated=1
}

# The URI the machine uses for the main archive of its release, taken from
# its configured apt sources (never a hard-coded host).
debian_archive_uri() {
	apt-get indextargets --format '$(TARGET_OF) $(REPO_URI) $(RELEASE)' |
		awk -v rel="$VERSION_CODENAME" '$1 == "deb" && $3 == rel { print $2; exit }'
}

enable_backports() {
	local bpo="$VERSION_CODENAME-backports" uri file keyring
	if apt-get indextargets --format '$(RELEASE)' | grep -qx "$bpo"; then
		return 0
	fi
	uri=$(debian_archive_uri)
	[ -n "$uri" ] || die "no apt source for '$VERSION_CODENAME' configured: cannot derive $bpo"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	file=/etc/apt/sources.list.d/cfq-prio-backports.sources
	say "enabling $bpo from $uri in $file"
	printf 'Types: deb deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$uri" "$bpo" "$keyring" | $SUDO tee "$file" >/dev/null
	apt_updated=
}

debian_missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed ||
			printf '%s\n' "$p"
	done
}

debian_install() {
	local release=$1; shift
	local missing
	missing=$(debian_missing "$@")
	[ -n "$missing" ] || return 0
	apt_update
	# shellcheck disable=SC2086
	for p in $missing; do
		apt-cache show ${release:+"$p/$release"} "$p" >/dev/null 2>&1 ||
			die "package '$p' is not available from the configured archives"
	done
	say "installing:" $missing
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends ${release:+-t "$release"} $missing >/dev/null ||
		die "apt-get install failed for: $(echo $missing)"
}

suse_install() {
	local missing p
	missing=$(for p in "$@"; do rpm -q "$p" >/dev/null 2>&1 || echo "$p"; done)
	[ -n "$missing" ] || return 0
	say "installing:" $missing
	# shellcheck disable=SC2086
	$SUDO zypper --non-interactive install $missing ||
		die "zypper install failed for: $(echo $missing)"
}

[ $# -gt 0 ] || set -- all
for group in "$@"; do
	[ "$group" = all ] && set -- kernel qemu image host tools plot
done
for group in "$@"; do
	case "$group" in kernel|qemu|image|host|tools|plot) ;; *) die "unknown group '$group'" ;; esac
	if [ $family = debian ]; then
		eval "pkgs=\$deb_$group"
		# shellcheck disable=SC2154,SC2086
		debian_install "" $pkgs
		if [ "$group" = image ]; then
			if [ -n "$(debian_missing $deb_image_bpo)" ]; then
				enable_backports
				# shellcheck disable=SC2086
				debian_install "$VERSION_CODENAME-backports" $deb_image_bpo
			fi
			v=$(dpkg-query -W -f='${Version}' mkosi)
			dpkg --compare-versions "$v" ge 24 ||
				die "mkosi $v is too old (need 24 or newer, from $VERSION_CODENAME-backports)"
		fi
	else
		eval "pkgs=\$suse_$group"
		# shellcheck disable=SC2086
		suse_install $pkgs
	fi
done

#!/usr/bin/env bash
# The README's two commands on a clean Debian 12 machine, whatever this
# machine already has installed: a Debian 12 root built with debootstrap
# (the base system plus git and make, what a newcomer needs to clone the
# repository and type the commands), the repository cloned into it at a
# commit, and `make demo` then `make check` run in it as root.
#
# usage: scripts/fresh-check.sh [--rev REV] [--only demo|check] [--keep]
#   --rev REV    the commit to clone (default HEAD: what is committed;
#                changes not committed are not in the clone)
#   --only CMD   run only `make CMD` (`--only check`: make check alone)
#   --keep       keep the root afterwards (build/fresh-check/root)
#
# Needs root, debootstrap, unshare and ip.  The first run builds the root
# and keeps it as a tarball in .cache/fresh-check/ (delete it to build a
# new one); every run unpacks a new copy.  The root runs in a network
# namespace of its own with one veth address (FRESH_ADDR, 10.31.0.2/24)
# beside loopback, and no route out: its apt reaches the mirrors the
# host's apt uses through scripts/fresh-proxy.py, and nothing else.  Its
# / (a mount point, as on a machine: ganesha finds an export's file
# system in the mount table), /proc, /sys, /dev, /dev/pts, /dev/shm and
# /run are mounted in a mount namespace of its own, so they end with it;
# what is left in its network namespace is killed.  Services are not started
# by package installs (policy-rc.d), as in any chroot: the tests start
# their own servers.  Output goes to build/fresh-check/fresh-check.log
# too; its tail is printed at the end.  `make check` takes the better
# part of an hour on two cores.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "fresh-check: $*" >&2; exit 1; }

rev=HEAD only="" keep=0
while (($#)); do
	case $1 in
	--rev) rev=${2:?--rev REV}; shift 2 ;;
	--only) only=${2:?--only demo|check}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $only in
"") steps=(demo check) ;;
demo | check) steps=("$only") ;;
*) die "--only demo|check, not '$only'" ;;
esac

((EUID == 0)) || die "needs root (debootstrap, chroot, namespaces)"
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
commit=$(git -C "$top" rev-parse --verify "$rev^{commit}") ||
	die "no commit '$rev'"
for t in debootstrap unshare ip chroot python3; do
	command -v $t >/dev/null ||
		die "needs $t (apt-get install debootstrap iproute2 util-linux)"
done

suite=bookworm
arch=$(dpkg --print-architecture)
include=git,make
addr=${FRESH_ADDR:-10.31.0.2/24}
work=$top/build/fresh-check
root=$work/root
log=$work/fresh-check.log
cache=$top/.cache/fresh-check
mkdir -p "$work" "$cache"
exec 9>"$work/lock"
flock -n 9 || die "another fresh-check runs on $work"
: >"$log"
exec 3>&2 > >(tee -a "$log") 2>&1

# The mirrors the host's apt uses (and, if it goes through a proxy, that
# proxy): debootstrap fetches from the first Debian one, the root's apt
# from all of them.
# shellcheck disable=SC2016 # apt's format, not the shell's
mapfile -t repos < <(apt-get indextargets \
	--format '$(REPO_URI) $(RELEASE) $(TARGET_OF)' | sort -u)
mirror=$(printf '%s\n' "${repos[@]}" |
	awk -v s=$suite '$2 == s && $3 == "deb" { print $1; exit }')
[[ -n $mirror ]] || die "the host's apt has no '$suite' source"
allow=$(printf '%s\n' "${repos[@]}" |
	sed -E 's|^[a-z]+://([^/:]+).*|\1|' | sort -u | paste -sd,)
upstream=""
eval "$(apt-config shell upstream Acquire::http::Proxy)"

# unmount_under DIR: take off what is mounted on or under DIR (the root's
# mounts live in its own mount namespace; debootstrap's, if it is
# interrupted, do not) before anything there is deleted
unmount_under() {
	local m
	while read -r m; do
		umount -l "$m" || return 1
	done < <(findmnt -rn -o TARGET |
		awk -v d="$1" '$0 == d || index($0, d "/") == 1' | tac)
}

# ------------------------------------------------------------ the root
key=$(printf '%s %s %s %s\n' "$suite" "$arch" "$mirror" "$include" |
	sha1sum | cut -c1-8)
tarball=$cache/debian-$suite-$arch-$key.tar.gz
if [[ ! -s $tarball ]]; then
	echo "fresh-check: building the $suite root from $mirror (once)"
	trap 'unmount_under "$work/bootstrap"' EXIT
	unmount_under "$work/bootstrap"
	rm -rf --one-file-system "$work/bootstrap"
	http_proxy=$upstream debootstrap --arch="$arch" --include="$include" \
		"$suite" "$work/bootstrap" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log"; die "debootstrap failed"; }
	chroot "$work/bootstrap" apt-get clean
	tar -C "$work/bootstrap" --numeric-owner -czf "$tarball.new" . &&
		mv "$tarball.new" "$tarball"
	rm -rf --one-file-system "$work/bootstrap"
	trap - EXIT
fi

ns=xprt-fresh-$$
veth=xfh$$
proxy_pid="" relay_pid="" tmp=""
cleanup() {
	local rc=$? p
	trap - EXIT INT TERM
	for p in $(ip netns pids "$ns" 2>/dev/null); do
		kill "$p" 2>/dev/null || true
	done
	for p in $relay_pid $proxy_pid; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	sleep 1
	for p in $(ip netns pids "$ns" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null || true
	done
	ip netns del "$ns" 2>/dev/null || true
	ip link del "$veth" 2>/dev/null || true
	[[ -n $tmp ]] && rm -rf "$tmp"
	if unmount_under "$root" && ((!keep)); then
		rm -rf --one-file-system "$root"
	fi
	sleep 0.2 # tee's last lines
	{
		echo
		echo "==== fresh-check: tail of $log"
		tail -n 40 "$log"
	} >&3
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

unmount_under "$root" || die "cannot unmount what is left under $root"
rm -rf --one-file-system "$root"
mkdir -p "$root"
tar -C "$root" --numeric-owner -xzf "$tarball"

# The root's apt: the host's sources and its Acquire settings (a mirror
# snapshot's validity...), through the relay on the namespace's loopback,
# one request per connection.
cp -a /etc/apt/sources.list "$root/etc/apt/" 2>/dev/null || true
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[[ -e $f ]] && cp -a "$f" "$root/etc/apt/sources.list.d/"
done
for f in /etc/apt/apt.conf.d/*; do
	grep -qs '^[[:space:]]*Acquire' "$f" && cp -a "$f" "$root/etc/apt/apt.conf.d/"
done
cat >"$root/etc/apt/apt.conf.d/99zz-fresh-check" <<'EOF'
// scripts/fresh-check.sh: the mirror through fresh-proxy.py's relay
Acquire::http::Proxy "http://127.0.0.1:3142/";
Acquire::https::Proxy "http://127.0.0.1:3142/";
Acquire::http::Pipeline-Depth "0";
EOF
printf '#!/bin/sh\n# no service starts in a chroot\nexit 101\n' \
	>"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
echo fresh-check >"$root/etc/hostname"
cat >"$root/etc/hosts" <<EOF
127.0.0.1	localhost
${addr%/*}	fresh-check
::1		localhost ip6-localhost ip6-loopback
EOF
echo "# no name server: the root reaches only its mirror, through a proxy" \
	>"$root/etc/resolv.conf"

git clone -q --no-hardlinks --no-checkout "$top" "$root/root/libxprt"
git -C "$root/root/libxprt" checkout -q --detach "$commit"
echo "fresh-check: $(git -C "$top" log -1 --format='%h %s' "$commit")"

# The network: loopback and one veth address; the host's end has no
# address at all (IPv6 ones neither), so nothing on the host is reachable.
ip netns add "$ns"
ip link add "$veth" type veth peer name eth0 netns "$ns"
ip link set "$veth" addrgenmode none
ip link set "$veth" up
ip -n "$ns" link set lo up
ip -n "$ns" addr add "$addr" dev eth0
ip -n "$ns" link set eth0 up

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xprt-fresh.XXXXXX")
python3 "$top/scripts/fresh-proxy.py" serve --unix "$tmp/apt.sock" \
	--allow "$allow" ${upstream:+--upstream "$upstream"} &
proxy_pid=$!
ip netns exec "$ns" python3 "$top/scripts/fresh-proxy.py" relay \
	--listen 127.0.0.1:3142 --unix "$tmp/apt.sock" &
relay_pid=$!
for _ in $(seq 50); do
	[[ -S $tmp/apt.sock ]] &&
		ip netns exec "$ns" bash -c '</dev/tcp/127.0.0.1/3142' 2>/dev/null &&
		break
	sleep 0.2
done

# in_root CMD: CMD in the root, its namespace, and mounts of its own
in_root() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$ns" unshare --mount --uts --propagation private \
		bash -euc '
		r=$1; shift
		mount --bind "$r" "$r" # "/" a mount point, as ganesha expects
		mount -t proc proc "$r/proc"
		mount -t sysfs sysfs "$r/sys"
		mount --bind /dev "$r/dev"
		mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts \
			"$r/dev/pts"
		mount --bind "$r/dev/pts/ptmx" "$r/dev/ptmx"
		mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
		mount -t tmpfs -o mode=0755 tmpfs "$r/run"
		hostname fresh-check
		exec chroot "$r" /usr/bin/env -i HOME=/root USER=root \
			LOGNAME=root SHELL=/bin/bash TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -lc "$*"' in_root "$root" "$@"
}

echo "fresh-check: network: $(ip -n "$ns" -br addr | tr -s ' ' | paste -sd';')"
for s in "${steps[@]}"; do
	t0=$(date +%s)
	echo "fresh-check: make $s ($(date -u +%H:%M:%S) UTC)"
	if in_root "cd /root/libxprt && make $s"; then
		echo "fresh-check: make $s passed in $(($(date +%s) - t0)) s"
	else
		rc=$?
		echo "fresh-check: make $s FAILED (exit $rc) after" \
			"$(($(date +%s) - t0)) s"
		exit "$rc"
	fi
done
echo "fresh-check: PASS: ${steps[*]/#/make } on a fresh $suite root at" \
	"$(git -C "$top" rev-parse --short "$commit")"

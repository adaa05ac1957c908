#!/usr/bin/env bash
# Build the RDMA test guest: Debian's own kernel plus a small initramfs
# (busybox applets, dash as /bin/sh, rdma-core, perftest, iproute2, the
# kernel-nfsd user tools and the shared libraries our binaries link).
#
# usage: tests/rdma/build-image.sh [--force]
#
# Everything is fetched with `apt-get download` and unpacked with
# `dpkg-deb -x` into the cache folder; nothing is installed on the host
# (host tools come from `scripts/deps.sh rdma`).  Outputs, under $RDMAVM_DIR
# (default <repo>/.cache/rdmavm):
#   vmlinux        the kernel as an ELF, booted through its PVH entry point
#                  (skips ~6 s of emulated xz decompression under TCG)
#   vmlinuz        the packaged bzImage (fallback)
#   initramfs.img  lz4 (legacy format) newc cpio
#
# Cache: the image is rebuilt only when an input changes: the resolved .deb
# file names (i.e. package versions), this script, tests/rdma/guest/*, the
# host busybox, or the EXTRA_* knobs.  A warm run only hashes those.  The
# kernel tree and the userspace sysroot are unpacked once per package set.
#
# Env knobs:
#   RDMAVM_DIR   cache folder (default <repo>/.cache/rdmavm)
#   KPKG         kernel package (default: what linux-image-amd64 depends on)
#   EXTRA_PKGS   more Debian packages to unpack into the sysroot
#   EXTRA_BINS   more executables (guest paths, taken from the sysroot, else
#                from the host) to copy in with their shared libraries
#   EXTRA_MODS   more kernel modules (with their dependencies)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
D=${RDMAVM_DIR:-$REPO/.cache/rdmavm}
DEBS=$D/debs
KROOT=$D/kernel
SYSROOT=$D/sysroot
STAGE=$D/stage
FORCE=0
case ${1:-} in
--force) FORCE=1 ;;
"") ;;
-h | --help)
	sed -n '2,30p' "$0"
	exit 0
	;;
*)
	echo "build-image.sh: unknown argument '$1'" >&2
	exit 2
	;;
esac

die() {
	echo "build-image.sh: $*" >&2
	exit 1
}
for t in apt-get apt-cache dpkg-deb busybox cpio lz4 xz flock sha256sum; do
	command -v $t >/dev/null ||
		die "missing host tool '$t' (run: scripts/deps.sh rdma)"
done
BB=$(command -v busybox)

t0=$(date +%s.%N)
# content hashes, independent of the path the script was called by
fhash() {
	local f
	for f; do
		printf '%s %s\n' "${f##*/}" "$(sha256sum <"$f" | cut -c1-64)"
	done
}
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
mkdir -p "$DEBS"
# One builder per cache folder: parallel check runs share the cache.
exec 9>"$D/.lock"
flock -w 900 9 || die "timed out waiting for the lock on $D"

# ------------------------------------------------------------ packages
# Roots of the guest userspace.  The shared libraries they depend on are
# added by resolve_closure (every lib* package reachable through Depends),
# so the guest never borrows a library from the host.
ROOTS="dash bash libc6 libgcc-s1 netbase
	ibverbs-utils rdmacm-utils ibverbs-providers libibverbs1 librdmacm1
	libibumad3 perftest iproute2
	nfs-kernel-server nfs-common rpcbind libtirpc3 libtirpc-common
	libnfsidmap1
	liburcu8 libnl-3-200 libnl-route-3-200 libcmocka0 libbsd0
	libasan8 libubsan1
	diod
	${EXTRA_PKGS:-}"

apt_updated=0
apt_update() {
	((apt_updated)) && return 1
	apt_updated=1
	if ((EUID != 0)); then
		echo "build-image.sh: package lists look stale; run 'apt-get update' as root" >&2
		return 1
	fi
	echo "build-image.sh: apt-get update" >&2
	local try
	for ((try = 0; try < 20; try++)); do
		apt-get update -q >"$D/apt.log" 2>&1 && return 0
		grep -qiE 'lock' "$D/apt.log" || break
		sleep 5
	done
	tail -5 "$D/apt.log" >&2
	return 1
}

kernel_pkg() {
	[ -n "${KPKG:-}" ] && { echo "$KPKG"; return; }
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ {print $2; exit}'
}

# Print ROOTS plus every library package (lib*, zlib1g) reachable from them
# through (Pre-)Depends.  Following only libraries keeps daemons' script dependencies
# (python3, debconf, adduser) out while still closing the library graph.
resolve_closure() {
	declare -A seen=()
	local todo=() next p
	for p in "$@"; do
		[ -n "${seen[$p]:-}" ] && continue
		seen[$p]=1
		todo+=("$p")
	done
	while ((${#todo[@]})); do
		next=()
		while read -r p; do
			[ -n "${seen[$p]:-}" ] && continue
			seen[$p]=1
			next+=("$p")
		done < <(apt-cache depends --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances \
			"${todo[@]}" 2>/dev/null |
			awk '$1 ~ /^\|?(Pre)?Depends:$/ && $2 ~ /^(lib|zlib)/ {
				sub(/:any$/, "", $2); print $2 }')
		todo=("${next[@]}")
	done
	printf '%s\n' "${!seen[@]}" | sort
}

# Resolve the package set to .deb file names.  apt's lists only change on
# `apt-get update`, so the answer is cached under a key made of the lists'
# names, sizes and dates plus the roots (and this script).
resolve() {
	local k lkey
	lkey=$({
		echo "${KPKG:-}" $ROOTS
		fhash "$0" # the resolver itself
		stat -c '%n %s %Y' /var/lib/apt/lists/*_Packages* \
			/var/lib/apt/lists/*Release 2>/dev/null
	} | sha256sum | cut -c1-16)
	if [ -s "$D/resolved.list" ] && [ "$(cat "$D/resolved.key" 2>/dev/null)" = "$lkey" ]; then
		return 0
	fi
	k=$(kernel_pkg)
	[ -n "$k" ] || return 1
	local pkgs
	pkgs=$(resolve_closure "$k" $ROOTS) || return 1
	# print-uris: 'URI' FILENAME SIZE HASH; FILENAME is what apt-get
	# download writes (epoch colon escaped as %3a).
	apt-get download --print-uris $pkgs 2>"$D/apt.log" |
		awk '{print $2}' | sort >"$D/resolved.tmp" || return 1
	[ "$(wc -l <"$D/resolved.tmp")" -eq "$(echo $pkgs | wc -w)" ] || return 1
	echo "$k" >"$D/resolved.kernel"
	mv "$D/resolved.tmp" "$D/resolved.list"
	echo "$lkey" >"$D/resolved.key"
}

download() {
	local need=() f
	while read -r f; do
		[ -e "$DEBS/$f" ] || need+=("${f%%_*}")
	done <"$D/resolved.list"
	((${#need[@]})) || return 0
	echo "downloading ${#need[@]} packages: ${need[*]}" >&2
	local tmp
	tmp=$(mktemp -d "$DEBS/dl.XXXXXX")
	# apt-get download runs as _apt when root: let it write there
	chmod 0777 "$tmp"
	if ! (cd "$tmp" && apt-get download -q "${need[@]}" >"$D/apt.log" 2>&1); then
		rm -rf "$tmp"
		return 1
	fi
	mv "$tmp"/*.deb "$DEBS/"
	rm -rf "$tmp"
}

all_cached() {
	local f
	[ -s "$D/resolved.list" ] || return 1
	while read -r f; do
		[ -e "$DEBS/$f" ] || return 1
	done <"$D/resolved.list"
}
if ! { resolve && download; }; then
	# stale or missing package lists: refresh once, then try again;
	# offline with a complete cache, keep the last good package set
	if apt_update && resolve && download; then
		:
	elif all_cached; then
		echo "build-image.sh: WARNING: apt failed; using the cached package set" >&2
	else
		tail -5 "$D/apt.log" >&2 || true
		die "cannot resolve/download packages (see $D/apt.log)"
	fi
fi
while read -r f; do
	[ -e "$DEBS/$f" ] || die "missing $DEBS/$f"
done <"$D/resolved.list"
# keep the cache bounded: drop debs of superseded versions
(cd "$DEBS" && ls -- *.deb 2>/dev/null | sort | comm -23 - "$D/resolved.list" | xargs -r rm -f --)

KPKG=$(cat "$D/resolved.kernel")
KVER=${KPKG#linux-image-}
KDEB=$(grep "^${KPKG}_" "$D/resolved.list")
USERDEBS=$(grep -v "^${KPKG}_" "$D/resolved.list")

# ------------------------------------------------------------ cache key
key=$({
	echo "$KDEB" $USERDEBS
	fhash "$0" "$HERE"/guest/* "$BB"
	echo "mods=${EXTRA_MODS:-} bins=${EXTRA_BINS:-}"
	for b in ${EXTRA_BINS:-}; do [ -e "$b" ] && fhash "$b"; done
} | sha256sum | cut -c1-32)
if ((!FORCE)) && [ "$(cat "$D/image.key" 2>/dev/null)" = "$key" ] &&
	[ -s "$D/initramfs.img" ] && [ -s "$D/vmlinuz" ]; then
	echo "rdma image up to date ($KVER, $(elapsed)s): $D"
	exit 0
fi
rm -f "$D/image.key"

# ------------------------------------------------------------ unpack
if ((FORCE)) || [ "$(cat "$KROOT/.src" 2>/dev/null)" != "$KDEB" ]; then
	echo "unpacking $KDEB"
	rm -rf "$KROOT"
	mkdir -p "$KROOT"
	dpkg-deb -x "$DEBS/$KDEB" "$KROOT"
	# newer kernels ship compressed modules; busybox modprobe wants .ko
	find "$KROOT/lib/modules" -name '*.ko.xz' -print0 |
		xargs -0 -r -P "$(nproc)" -n 64 xz -d
	find "$KROOT/lib/modules" -name '*.ko.zst' -print0 |
		xargs -0 -r -P "$(nproc)" -n 64 zstd -q -d --rm
	# no kmod on the host: busybox writes modules.dep
	"$BB" depmod -b "$KROOT" "$KVER"
	# ELF vmlinux for PVH boot, cut out of the bzImage's xz payload
	rm -f "$KROOT/vmlinux"
	off=$(LC_ALL=C grep -abo $'\xfd7zXZ\x00' "$KROOT/boot/vmlinuz-$KVER" |
		head -1 | cut -d: -f1 || true)
	if [ -n "$off" ] && grep -q '^CONFIG_PVH=y' "$KROOT/boot/config-$KVER"; then
		tail -c +$((off + 1)) "$KROOT/boot/vmlinuz-$KVER" |
			xz -dc >"$KROOT/vmlinux.tmp" 2>/dev/null || true
		if head -c4 "$KROOT/vmlinux.tmp" | grep -q ELF; then
			mv "$KROOT/vmlinux.tmp" "$KROOT/vmlinux"
		fi
		rm -f "$KROOT/vmlinux.tmp"
	fi
	echo "$KDEB" >"$KROOT/.src"
fi
userkey=$(echo $USERDEBS | sha256sum | cut -c1-32)
if ((FORCE)) || [ "$(cat "$SYSROOT/.src" 2>/dev/null)" != "$userkey" ]; then
	echo "unpacking $(echo $USERDEBS | wc -w) userspace packages"
	rm -rf "$SYSROOT"
	mkdir -p "$SYSROOT"
	for f in $USERDEBS; do
		dpkg-deb -x "$DEBS/$f" "$SYSROOT"
	done
	echo "$userkey" >"$SYSROOT/.src"
fi

# ------------------------------------------------------------ stage
rm -rf "$STAGE"
mkdir -p "$STAGE"
cd "$STAGE"
# merged-/usr, so a file may be copied to any Debian path
mkdir -p usr/bin usr/sbin usr/lib/x86_64-linux-gnu usr/lib64 etc proc sys \
	dev run tmp root var/lib mnt usr/local/bin
ln -s usr/bin bin
ln -s usr/sbin sbin
ln -s usr/lib lib
ln -s usr/lib64 lib64
ln -s ../run var/run
cp "$BB" usr/bin/busybox
for a in modprobe insmod rmmod lsmod depmod; do
	ln -s ../bin/busybox usr/sbin/$a # the kernel's request_module() runs modprobe
done

# kernel modules: closure over modules.dep.  crc32_generic is not optional:
# rxe needs the "crc32" shash and Debian builds it as a module; without it
# `rdma link add` fails with ENOENT.
MODS="crc32_generic crc32_pclmul crc32c_generic crc32c_intel
	rdma_rxe ib_uverbs rdma_ucm ib_umad rpcrdma nfsd nfs nfsv3 nfsv4
	9p 9pnet_virtio 9pnet_rdma virtio_pci virtio_net dummy ${EXTRA_MODS:-}"
MD=lib/modules/$KVER
mkdir -p "$MD"
declare -A want=()
for m in $MODS; do
	n=${m//-/_}
	line=$(awk -v n="$n" -F: '{ p = $1; sub(/.*\//, "", p);
		sub(/\.ko.*$/, "", p); gsub(/-/, "_", p);
		if (p == n) { print; exit } }' "$KROOT/$MD/modules.dep")
	if [ -z "$line" ]; then
		grep -qw "$n" "$KROOT/$MD/modules.builtin" 2>/dev/null ||
			echo "warning: module $m not found" >&2
		continue
	fi
	for f in ${line/:/ }; do want[$f]=1; done
done
for f in "${!want[@]}"; do
	mkdir -p "$MD/$(dirname "$f")"
	cp "$KROOT/$MD/$f" "$MD/$f"
done
cp "$KROOT/$MD/modules.builtin" "$KROOT/$MD/modules.order" "$MD/" 2>/dev/null || true
"$BB" depmod -b "$STAGE" "$KVER"

# userspace: each file with its ldd closure, from the sysroot
BINS="/usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong
	/usr/bin/ibv_ud_pingpong /usr/bin/ibv_srq_pingpong
	/usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy
	/usr/bin/rdma_server /usr/bin/rdma_client
	/usr/bin/ib_send_bw /usr/bin/ib_send_lat /usr/bin/ib_write_bw
	/usr/bin/ib_write_lat /usr/bin/ib_read_bw /usr/bin/ib_read_lat
	/bin/rdma /bin/ip
	/sbin/rpcbind /usr/sbin/rpcinfo /usr/sbin/rpc.nfsd /usr/sbin/rpc.mountd
	/usr/sbin/exportfs /usr/sbin/nfsstat /sbin/mount.nfs /sbin/umount.nfs
	/sbin/showmount /sbin/rpc.statd /usr/sbin/rpcdebug
	/usr/sbin/diod
	/bin/dash /bin/bash ${EXTRA_BINS:-}"
# Libraries the project's binaries link or dlopen: rxe provider, the
# libraries in the Makefile's pkg-config set, sanitizer runtimes for
# BUILD=asan, cmocka for unit tests, and libgcc_s which glibc dlopens for
# pthread_exit/cancellation (without it such programs abort).
LIBGLOBS="libibverbs/librxe-rdmav*.so libibverbs.so.1 librdmacm.so.1
	libibumad.so.3 libnl-3.so.200 libnl-route-3.so.200 libtirpc.so.3
	liburcu*.so.8 libcmocka.so.0 libbsd.so.0 libasan.so.8 libubsan.so.1
	libgcc_s.so.1 rsocket/librspreload.so"
LDPATH=$SYSROOT/usr/lib/x86_64-linux-gnu:$SYSROOT/lib/x86_64-linux-gnu
declare -A copied=()
hostlibs=()
copy_one() { # $1 = source file, $2 = path inside the guest
	[ -n "${copied[$2]:-}" ] && return 0
	copied[$2]=1
	mkdir -p "$STAGE$(dirname "$2")"
	cp -L "$1" "$STAGE$2"
}
copy_with_deps() { # $1 = path inside the guest, $2 = source file
	local dep g
	copy_one "$2" "$1"
	while read -r dep; do
		case $dep in
		*/ld-linux-x86-64.so.2) continue ;; # copied once, below
		"$SYSROOT"/*) g=${dep#"$SYSROOT"} ;;
		*) g=$dep ;;
		esac
		if [ -e "$SYSROOT$g" ]; then
			copy_one "$SYSROOT$g" "$g"
		else
			[ -n "${copied[$g]:-}" ] || hostlibs+=("$g")
			copy_one "$dep" "$g"
		fi
	done < <(LD_LIBRARY_PATH=$LDPATH ldd "$2" 2>/dev/null | awk '
		/not found/ { print "build-image.sh: MISSING " $1 > "/dev/stderr"; next }
		$2 == "=>" && $3 ~ /^\// { print $3; next }
		$1 ~ /^\// { print $1 }')
}
for b in $BINS; do
	if [ -e "$SYSROOT$b" ]; then
		copy_with_deps "$b" "$SYSROOT$b"
	elif [ -e "$b" ]; then
		copy_with_deps "$b" "$b"
	else
		die "$b not found in the sysroot or on the host"
	fi
done
for g in $LIBGLOBS; do
	found=0
	for f in "$SYSROOT"/usr/lib/x86_64-linux-gnu/$g "$SYSROOT"/lib/x86_64-linux-gnu/$g; do
		[ -e "$f" ] || continue
		copy_with_deps "${f#"$SYSROOT"}" "$f"
		found=1
	done
	((found)) || die "library $g not found in the sysroot"
done
# the loader under its canonical name, from the same libc6 as libc.so.6
copy_one "$SYSROOT/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" /lib64/ld-linux-x86-64.so.2
if ((${#hostlibs[@]})); then
	echo "warning: taken from the host (add their packages to ROOTS): ${hostlibs[*]}" >&2
fi
# /bin/sh is dash: busybox sh would run its own applets (ip, mount...) in
# preference to the real binaries on $PATH.
ln -sf dash usr/bin/sh

# configuration
mkdir -p etc/libibverbs.d
cp "$SYSROOT/etc/libibverbs.d/rxe.driver" etc/libibverbs.d/
cp "$SYSROOT/etc/netconfig" etc/
for f in services protocols rpc; do
	[ -e "$SYSROOT/etc/$f" ] && cp "$SYSROOT/etc/$f" etc/
done
cp -r "$SYSROOT/etc/iproute2" etc/ 2>/dev/null || true
cat >etc/passwd <<'EOF'
root:x:0:0:root:/root:/bin/sh
_rpc:x:100:65534::/run/rpcbind:/usr/sbin/nologin
statd:x:101:65534::/var/lib/nfs:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >etc/group <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
printf 'passwd: files\ngroup: files\nhosts: files\nservices: files\nprotocols: files\nrpc: files\nnetgroup: files\n' >etc/nsswitch.conf
printf '127.0.0.1 localhost\n10.0.2.15 rdmavm\n' >etc/hosts
echo rdmavm >etc/hostname
: >etc/exports
printf '[nfsd]\nrdma=y\nrdma-port=20049\n' >etc/nfs.conf
mkdir -p var/lib/nfs/sm var/lib/nfs/sm.bak var/lib/nfs/v4recovery
: >var/lib/nfs/etab
: >var/lib/nfs/rmtab
echo "$KVER" >etc/rdmavm-kernel

install -m 0755 "$HERE/guest/init" init
for f in "$HERE"/guest/*; do
	[ "$(basename "$f")" = init ] && continue
	install -m 0755 "$f" usr/local/bin/
done

# ------------------------------------------------------------ pack
# lz4 legacy format: the fastest decompressor under TCG that the kernel's
# initramfs unpacker accepts.
find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | lz4 -l -q -c >"$D/initramfs.img.tmp"
mv "$D/initramfs.img.tmp" "$D/initramfs.img"
cp "$KROOT/boot/vmlinuz-$KVER" "$D/vmlinuz"
if [ -e "$KROOT/vmlinux" ]; then
	ln -f "$KROOT/vmlinux" "$D/vmlinux" 2>/dev/null || cp "$KROOT/vmlinux" "$D/vmlinux"
else
	rm -f "$D/vmlinux"
fi
echo "$key" >"$D/image.key"
printf 'rdma image built in %ss: kernel %s%s, initramfs %s (%s unpacked, %d modules)\n' \
	"$(elapsed)" "$KVER" \
	"$([ -e "$D/vmlinux" ] && echo ' (PVH vmlinux)')" \
	"$(du -h "$D/initramfs.img" | cut -f1)" "$(du -sh "$STAGE" | cut -f1)" "${#want[@]}"

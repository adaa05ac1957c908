#!/usr/bin/env bash
# Install the Debian 12 packages libxprt needs, idempotently.
#
# usage: scripts/deps.sh [--check] [GROUP...]
#   groups: build (default), servers, cost, rdma, fuzz, wire, mpi, deb,
#           format, all
#   --check  only report whether something is missing (exit 1 if so)
#
# Runs `apt-get update` at most once, and only when a package is missing.
# Needs root when it has something to install.
set -euo pipefail

# build: libuv1-dev for examples/loop_uv.c (a libuv loop driving the
# library); the Debian package's Build-Depends has it too (make tools
# builds every example)
# servers: also what the fio engine is built with (scripts/fio-source.sh:
# dpkg-source, and the headers of the libraries Debian's fio is
# configured with, so that the engine's view of fio's structures is the
# installed fio's); and fio's own tools the integration tests read our output
# with (tests/integration/test_bench_fio.sh): fio, its example job files,
# and what fio_jsonplus_clat2csv, fio2gnuplot and fiologparser_hist.py
# need (python3-six, python3-pandas, gnuplot); bc for the tests' timings
# rdma: the qemu guest of tests/rdma (build-image.sh fetches the guest's
# packages with `apt-get download` and unpacks them with dpkg-deb; zstd
# for kernels whose modules are .ko.zst)
declare -A GROUP=(
	[build]="build-essential pkg-config libibverbs-dev librdmacm-dev rdma-core ibverbs-providers libtirpc-dev liburcu-dev libcmocka-dev libuv1-dev rpcsvc-proto libbsd-dev python3 iproute2 procps groff-base"
	[servers]="rpcbind nfs-ganesha nfs-ganesha-vfs diod libnfs-dev libnfs-utils fio fio-examples python3-six python3-pandas gnuplot-nox bc dpkg-dev libnuma-dev zlib1g-dev libaio-dev"
	[rdma]="qemu-system-x86 busybox-static xz-utils lz4 cpio zstd apt dpkg"
	[fuzz]="clang libclang-rt-14-dev"
	[wire]="tshark"
	[mpi]="libopenmpi-dev openmpi-bin gnuplot-nox"
	# make bench-cost: instructions (callgrind) and system calls per call
	[cost]="valgrind strace"
	# make check-deb: dpkg-buildpackage (dpkg-dev) with debhelper, run
	# under fakeroot, checked with lintian; the package's Build-Depends
	# beyond the build group (Open MPI: the benches' multi-node mode)
	[deb]="dpkg-dev debhelper fakeroot lintian libopenmpi-dev"
	# make format, make check-format
	[format]="clang-format"
)

check=0
groups=()
for a in "$@"; do
	case $a in
	--check) check=1 ;;
	all) groups+=("${!GROUP[@]}") ;;
	build|servers|cost|rdma|fuzz|wire|mpi|deb|format) groups+=("$a") ;;
	-h|--help) sed -n '2,10p' "$0"; exit 0 ;;
	*) echo "deps.sh: unknown group '$a'" >&2; exit 2 ;;
	esac
done
((${#groups[@]})) || groups=(build)

missing=()
for g in "${groups[@]}"; do
	for p in ${GROUP[$g]}; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
done
((${#missing[@]})) || exit 0
if ((check)); then
	echo "deps.sh: missing: ${missing[*]}" >&2
	exit 1
fi
if ((EUID != 0)); then
	echo "deps.sh: need root to install: ${missing[*]} (run: sudo make deps)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log=${TMPDIR:-/tmp}/libxprt-apt.log
echo "deps.sh: installing ${missing[*]}" >&2
updated=0
for ((try = 0; try < 20; try++)); do
	if ((!updated)); then
		apt-get update -q >"$log" 2>&1 && updated=1 || { sleep 5; continue; }
	fi
	if apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
		exit 0
	fi
	# dpkg held by another apt: wait and retry; anything else is fatal
	grep -qiE 'could not get lock|lock-frontend|is another process using it' "$log" || break
	sleep 5
done
echo "deps.sh: apt-get install failed; last lines of $log:" >&2
tail -20 "$log" >&2
exit 1

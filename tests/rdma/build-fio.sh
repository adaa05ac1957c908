#!/usr/bin/env bash
# Build the RDMA guest's fio from the cached fio source (the tree
# scripts/fio-source.sh fetches): a copy of it configured without the
# optional engines whose libraries the guest lacks (rbd, rados, gfapi,
# http, numa, pmem, fio's own rdma...), so that it needs only libc, libm
# and zlib, which the guest has.  libaio has no --disable switch in fio's
# configure: found on the host, it is dropped from the configuration.
# Not vectorized: fio's -ffast-math -O3 loops would call glibc's vector
# math library (libmvec), which the guest does not have.
# fio's getrusage() is RUSAGE_SELF, not RUSAGE_THREAD (CONFIG_RUSAGE_THREAD
# taken out, as scripts/bench-fio.sh does): over RDMA the engine has a
# receive thread per connection beside the job's, and make bench-fio-rdma
# takes the job process's CPU time from fio's usr_cpu/sys_cpu.  Only
# lib/getrusage.c reads it: no structure the engine sees changes.
# libxprt's engine is then compiled against this copy's headers and
# config-host.h (mk/rdma.mk), the struct layouts of the fio it loads into.
#
# usage: tests/rdma/build-fio.sh SRC OUTDIR [CONFIGURE-OPTION...]
#   SRC     the fio source tree (printed by scripts/fio-source.sh)
#   OUTDIR  gets src/ (the configured copy) and fio (the program)
# Extra options go to fio's configure.
set -euo pipefail
src=$(cd "${1:?usage: build-fio.sh SRC OUTDIR}" && pwd)
out=${2:?usage: build-fio.sh SRC OUTDIR}
shift 2
mkdir -p "$out"
tree=$out/src
# a fresh copy each time this runs (make runs it when the source or this
# script changed); the cached tree is configured for the host's fio
rm -rf "$tree"
cp -a "$src" "$tree"
rm -f "$tree"/config-host.h "$tree"/config-host.mak
(
	cd "$tree"
	./configure --disable-native --disable-numa --disable-rdma \
		--disable-rados --disable-rbd --disable-http --disable-gfapi \
		--disable-libnfs --disable-pmem --disable-xnvme \
		--disable-libzbc --disable-tcmalloc --disable-dfs \
		--disable-lex --extra-cflags=-fno-tree-vectorize "$@"
) >"$out/configure.log" 2>&1 ||
	{ echo "build-fio.sh: configure failed, see $out/configure.log" >&2; exit 1; }
sed -i '/^#define CONFIG_LIBAIO/d' "$tree/config-host.h"
sed -i '/^CONFIG_LIBAIO/d' "$tree/config-host.mak"
sed -i '/^#define CONFIG_RUSAGE_THREAD$/d' "$tree/config-host.h"
"${MAKE:-make}" -s -C "$tree" fio >"$out/make.log" 2>&1 ||
	{ tail -20 "$out/make.log" >&2; echo "build-fio.sh: make failed" >&2; exit 1; }
# only what the guest has (tests/rdma/README.md lists its libraries)
extra=$(ldd "$tree/fio" | awk '{ n = $1; sub(/.*\//, "", n) }
	n !~ /^(linux-vdso|ld-linux-x86-64|libc|libm|libz|libdl|libpthread)\.so/ { print $1 }')
[[ -z $extra ]] ||
	{ echo "build-fio.sh: fio needs libraries the guest lacks: $extra" >&2; exit 1; }
cp "$tree/fio" "$out/fio.tmp"
mv "$out/fio.tmp" "$out/fio"

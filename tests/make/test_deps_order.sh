#!/usr/bin/env bash
# The benches' MPI mode when Open MPI is installed while make runs.
#
# usage: tests/make/test_deps_order.sh BUILD_DIR
#
# A pkg-config on PATH shows Open MPI (ompi-c) only once a file says it
# is "installed"; the make runs below work on a scratch copy of
# BUILD_DIR's library and engine objects (the benches are linked again,
# nothing else).  After each step bench-mpi.cfg must say MPI=openmpi
# exactly when nfs3-bench links libmpi, and both must be what the step
# leaves installed:
#   1. make demo's build, Open MPI not installed: none
#   2. make check (its installer replaced by "install Open MPI", its
#      steps by building nfs3-bench): openmpi
#   3. a make that read the Makefile before the install links after a
#      make that read it afterwards changed bench-mpi.cfg: the file says
#      what that link used (none); the next make relinks (openmpi)
# Needs Open MPI really installed (scripts/deps.sh mpi).
set -euo pipefail
src=${1:?usage: test_deps_order.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "test_deps_order: FAIL: $*" >&2; exit 1; }
real=$(command -v pkg-config) || fail "no pkg-config"
"$real" --exists ompi-c || fail "Open MPI is not installed (scripts/deps.sh mpi)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xprt-deps-order.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
b=$tmp/build
mkdir -p "$b" "$tmp/bin"
[[ -d $src/obj ]] && cp -a "$src/obj" "$b/"
for f in libxprt.a libbench.a; do
	[[ -e $src/$f ]] && cp -a "$src/$f" "$b/"
done
installed=$tmp/mpi-installed
cat >"$tmp/bin/pkg-config" <<EOF
#!/bin/sh
case " \$* " in *" ompi-c "*) [ -e "$installed" ] || exit 1 ;; esac
exec "$real" "\$@"
EOF
chmod +x "$tmp/bin/pkg-config"
export PATH=$tmp/bin:$PATH
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

bench=$b/bench/nfs3-bench
mk() { make -C "$top" --no-print-directory -s O="$b" BUILD=plain MPI=auto "$@"; }
expect() { # STEP MPI: bench-mpi.cfg and nfs3-bench's libraries say MPI
	local cfg linked=none
	cfg=$(sed -n 's/^MPI=\([a-z]*\) .*/\1/p' "$b/bench-mpi.cfg")
	readelf -d "$bench" | grep -q 'NEEDED.*libmpi' && linked=openmpi
	[[ $cfg == "$2" && $linked == "$2" ]] ||
		fail "$1: bench-mpi.cfg says MPI=$cfg, nfs3-bench links" \
			"$linked; want $2 for both"
	echo "test_deps_order: ok: $1: MPI=$2"
}

mk "$bench"
expect "built before Open MPI is installed" none

mk check DEPS_ALL="touch $installed" CHECK_STEPS="$bench"
expect "make check installs, then builds" openmpi

rm "$installed"
mk "$bench"
expect "Open MPI removed" none
cat >"$tmp/order.mk" <<EOF
.PHONY: install-then-read
$bench: install-then-read
install-then-read:
	touch $installed
	\$(MAKE) -f Makefile O=$b $b/libxprt.a
EOF
mk -f Makefile -f "$tmp/order.mk" "$bench"
expect "a make that decided before the install" none
mk "$bench"
expect "the next make" openmpi

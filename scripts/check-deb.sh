#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make check-deb: build the Debian packages from a scratch copy of the
# tree and try them without installing them on this system.
#
#  1. the version and the ABI in step: VERSION and debian/changelog's
#     newest entry (check-version.sh), libxprt.map and
#     debian/libxprtN.symbols (deb-symbols.py --check)
#  2. a copy of the tree (the files git knows and the new ones it does not
#     ignore; the whole tree but build/ outside git) in build/deb/SRC:
#     dpkg-buildpackage writes the packages to the parent folder
#  3. dpkg-buildpackage -us -uc -b, parallel=2; debian/rules builds the
#     plain build only and overrides dh_auto_test (no second make check);
#     dpkg-gensymbols fails on any difference from the symbols file
#  4. lintian on the result: an error or a warning fails (the tags that
#     remain by design are overridden in debian/*.lintian-overrides, each
#     with its reason)
#  5. the four packages unpacked with dpkg-deb -x into build/deb/root
#     (nothing installed on the host, no dpkg database touched): their
#     contents, their dependencies, every program with its man page; the
#     examples, the benches' --help and xprt-plot run from there with
#     LD_LIBRARY_PATH on the unpacked library, and a program built with
#     the unpacked -dev package's pkg-config file, headers and .so gets
#     the version from lx_xprt_version()
#
# usage: scripts/check-deb.sh    (from make check-deb; KEEP=1 keeps build/deb)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }
step() { printf '  %-58s' "$1"; }
ok() { echo "ok${1:+ ($1)}"; }
has() { # TEXT CMD...: CMD's output contains TEXT (no pipe: pipefail)
	local out
	out=$("${@:2}")
	[[ $out == *"$1"* ]]
}
t0=$(date +%s)

version=$(cat VERSION)
# the library's package follows the soname: libxprt<SOVERSION>
sov=$(sed -n 's/^SOVERSION *:= *//p' Makefile)
lib=libxprt$sov
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
debver=$(dpkg-parsechangelog -S Version)
work=$top/build/deb
src=$work/libxprt-$version
root=$work/root

step "VERSION, debian/changelog and the symbols file in step"
scripts/check-version.sh >/dev/null || { scripts/check-version.sh; exit 1; }
scripts/deb-symbols.py --check || fail "debian/$lib.symbols"
ok "$version, $debver"

step "scratch copy of the tree"
rm -rf "$work"
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# tracked files that still exist, and untracked ones git does not ignore
	git ls-files -z -c -o --exclude-standard |
		while IFS= read -r -d '' f; do
			[[ -e $f || -L $f ]] && printf '%s\0' "$f"
		done | tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi
ok "$(find "$src" -type f | wc -l) files"

# fio's source for the engine, as the source package carries it (its
# second upstream tarball, fiosrc/): fetched once into .cache/fio
step "fio's source for the engine (fiosrc/)"
fsrc=$(scripts/fio-source.sh 2>"$work/fio-source.log" | tail -1) ||
	{ cat "$work/fio-source.log" >&2; fail "scripts/fio-source.sh"; }
cp -a "$fsrc" "$src/fiosrc"
rm -f "$src"/fiosrc/.libxprt-configure*
ok "${fsrc##*/}"

step "dpkg-buildpackage -us -uc -b (parallel=2)"
tb=$(date +%s)
# nothing of the calling make leaks in (its -j, jobserver, BUILD=...)
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -40 "$work/build.log" >&2
	fail "dpkg-buildpackage (log: $work/build.log)"
fi
if grep -n 'dpkg-shlibdeps: warning\|dpkg-gensymbols: warning' "$work/build.log" >&2; then
	fail "warnings from dpkg-shlibdeps or dpkg-gensymbols (log: $work/build.log)"
fi
ok "$(($(date +%s) - tb)) s"

debs=()
for p in $lib libxprt-dev libxprt-tools libxprt-fio; do
	d=$work/${p}_${debver}_$arch.deb
	[[ -f $d ]] || fail "$d was not built"
	debs+=("$d")
done
changes=$work/libxprt_${debver}_$arch.changes

if command -v lintian >/dev/null; then
	step "lintian (errors and warnings fail)"
	tl=$(date +%s)
	if ! lintian --fail-on error,warning --display-info --tag-display-limit 0 \
		"$changes" >"$work/lintian.log" 2>&1; then
		cat "$work/lintian.log" >&2
		fail "lintian"
	fi
	n=$(grep -c '^[EWIP]: ' "$work/lintian.log" || true)
	ok "$(($(date +%s) - tl)) s, $n info tags: $work/lintian.log"
else
	echo "  lintian not installed (scripts/deps.sh deb): not run"
fi

step "contents and dependencies"
rm -rf "$root"
for d in "${debs[@]}"; do
	dpkg-deb -x "$d" "$root"
done
L=$root/usr/lib/$ma
lsdeb() { dpkg-deb -c "$work/${1}_${debver}_$arch.deb" | awk '{print $6}'; }
for f in "./usr/lib/$ma/libxprt.so.$sov" "./usr/lib/$ma/libxprt.so.$version"; do
	has "$f" lsdeb "$lib" || fail "$lib has no $f"
done
bad=$(lsdeb "$lib" | grep -E '\.(a|pc|h)$|/bin/|libxprt\.so$' || true)
[[ -z $bad ]] || fail "$lib holds what belongs to -dev or -tools: $bad"
for f in "./usr/lib/$ma/libxprt.so" "./usr/lib/$ma/libxprt.a" \
	"./usr/lib/$ma/pkgconfig/libxprt.pc" ./usr/include/libxprt/version.h \
	./usr/share/man/man3/libxprt.3.gz; do
	has "$f" lsdeb libxprt-dev || fail "libxprt-dev has no $f"
done
for h in include/libxprt/*.h; do
	cmp -s "$h" "$root/usr/$h" || fail "libxprt-dev's $h differs from the tree's"
done
progs=$(lsdeb libxprt-tools | sed -n 's|^\./usr/bin/\(..*\)|\1|p')
for p in $(make -s --no-print-directory print-INSTALL_MANS1); do
	p=${p##*/}
	p=${p%.1}
	[[ $'\n'$progs$'\n' == *$'\n'$p$'\n'* ]] || fail "libxprt-tools has no $p"
done
for p in $progs; do
	[[ -f $root/usr/share/man/man1/$p.1.gz ]] ||
		fail "libxprt-tools installs $p without its man page"
done
dep=$(dpkg-deb -f "$work/libxprt-tools_${debver}_$arch.deb" Depends)
[[ $dep == *"$lib (>= $version)"* ]] || fail "libxprt-tools Depends: $dep"
dep=$(dpkg-deb -f "$work/libxprt-dev_${debver}_$arch.deb" Depends)
[[ $dep == *"$lib (= $debver)"* ]] || fail "libxprt-dev Depends: $dep"
for f in ./usr/lib/libxprt/fio/libxprt-fio.so \
	./usr/share/man/man7/libxprt-fio.7.gz \
	./usr/share/libxprt/fio/nfs-verify.fio; do
	has "$f" lsdeb libxprt-fio || fail "libxprt-fio has no $f"
done
dep=$(dpkg-deb -f "$work/libxprt-fio_${debver}_$arch.deb" Depends)
[[ $dep == *"fio (<< 3.34~), fio (>= 3.33)"* ]] ||
	fail "libxprt-fio Depends: $dep"
ok "$(wc -w <<<"$progs") programs"

step "the unpacked programs run on the unpacked library"
export LD_LIBRARY_PATH=$L
B=$root/usr/bin
has "$L/libxprt.so.$sov" ldd "$B/rpcping" || fail "rpcping does not use $L/libxprt.so.$sov"
has "$L/libxprt.so.$sov" ldd "$B/nfs3-bench" || fail "nfs3-bench does not use $L"
for p in rpcping nfs3cp p9ls; do
	"$B/$p" -h >/dev/null || fail "$p -h"
done
for p in nfs3-bench p9-bench; do
	has "--iodepth" "$B/$p" --help || fail "$p --help"
done
has "engine $version," "$B/nfs3-bench" --version || fail "nfs3-bench --version"
has "usage: xprt-plot" "$B/xprt-plot" --help || fail "xprt-plot --help"
has "nfs_url" fio --enghelp="$root/usr/lib/libxprt/fio/libxprt-fio.so" ||
	fail "fio does not load the unpacked engine"
# the example's own work, as far as it needs no server: a NULL call to a
# port nothing listens on (tcpmux, 1) fails cleanly, through the library
set +e
"$B/rpcping" -p 1 -c 1 127.0.0.1 100000 2 >/dev/null 2>"$work/rpcping.err"
rc=$?
set -e
if ((rc != 1)) || [[ ! -s $work/rpcping.err ]]; then
	fail "rpcping to a closed port exited $rc: $(cat "$work/rpcping.err")"
fi
ok

step "a program built with the unpacked libxprt-dev"
mkdir -p "$work/user"
cat >"$work/user/v.c" <<'EOF'
#include <stdio.h>
#include <libxprt/nfs3.h>
#include <libxprt/version.h>
int main(void)
{
	printf("%s %s\n", lx_xprt_version(), lx_strerror(-2));
	return 0;
}
EOF
pc=$L/pkgconfig/libxprt.pc
grep -qx 'prefix=/usr' "$pc" || fail "libxprt.pc: $(head -3 "$pc")"
grep -qx "libdir=\${prefix}/lib/$ma" "$pc" || fail "libxprt.pc libdir: $(grep libdir= "$pc")"
# the unpacked .pc relocated by its prefix line alone (a --define-variable
# would move libtirpc's too)
mkdir -p "$work/user/pc"
sed "s|^prefix=.*|prefix=$root/usr|" "$pc" >"$work/user/pc/libxprt.pc"
# shellcheck disable=SC2046 # pkg-config's words
cc -std=c11 -Wall -Wextra -Werror -o "$work/user/v" "$work/user/v.c" \
	$(PKG_CONFIG_PATH=$work/user/pc pkg-config --cflags --libs libxprt) ||
	fail "cc against the unpacked libxprt-dev"
has "$L/libxprt.so.$sov" ldd "$work/user/v" || fail "the program does not use $L"
out=$("$work/user/v")
[[ $out == "$version "* ]] || fail "lx_xprt_version() says '$out', VERSION $version"
ok
unset LD_LIBRARY_PATH

[[ -n ${KEEP:-} ]] || rm -rf "$src" "$root" "$work/user"
echo "check-deb: $lib, libxprt-dev, libxprt-tools, libxprt-fio $debver built," \
	"lintian-clean, unpacked and run ($(($(date +%s) - t0)) s; packages in $work)"

#!/usr/bin/env bash
# make check-install: install into a temporary PREFIX, check what landed
# (versioned soname, exports that are exactly the public headers',
# pkg-config data, headers, man pages, tools, each answering --help),
# build every examples/*.c against it through pkg-config exactly as a user
# would and run it, uninstall and prove nothing is left; then the same with
# DESTDIR staging and PREFIX=/usr, as a distribution package build does.
#
# usage: scripts/check-install.sh BUILDDIR     (MAKE, CC, BUILD from make)
set -euo pipefail
o=${1:?usage: check-install.sh BUILDDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make=(${MAKE:-make} -s --no-print-directory BUILD="${BUILD:-plain}")
cc=${CC:-cc}
cxx=${CXX:-c++}
inst=$top/build/install-test
ex=$top/$o/examples-installed
version=$(cat VERSION)
soversion=$(sed -n 's/^SOVERSION *:= *//p' Makefile)
# the library directory under PREFIX, as the Makefile picks it
# (lib/x86_64-linux-gnu on Debian: multiarch)
lib=$("${make[@]}" print-LIBDIR PREFIX=/PREFIX)
lib=${lib#/PREFIX/}

fail() { echo "check-install: FAIL: $*" >&2; exit 1; }
left() { find "$1" \( -type f -o -type l \) -print 2>/dev/null; }
# has TEXT CMD...: CMD's output contains TEXT (no pipe into grep -q: with
# pipefail the writer's SIGPIPE would fail the test)
has() {
	local out
	out=$("${@:2}")
	[[ $out == *"$1"* ]]
}

# $1: the installation's root (PREFIX, or DESTDIR + PREFIX)
check_tree() {
	local r=$1 f b
	for f in "$lib/libxprt.a" "$lib/libxprt.so" "$lib/libxprt.so.$soversion" \
		"$lib/libxprt.so.$version" "$lib/pkgconfig/libxprt.pc" \
		include/libxprt/nfs3.h include/libxprt/rpc.h include/libxprt/version.h \
		share/man/man3/libxprt.3 bin/xprt-plot bin/nfs3-bench bin/p9-bench \
		bin/rpcping bin/nfs3cp bin/p9ls; do
		[[ -e $r/$f ]] || fail "$r/$f was not installed"
	done
	[[ $(readlink "$r/$lib/libxprt.so") == "libxprt.so.$version" ]] ||
		fail "libxprt.so does not point at libxprt.so.$version"
	has "Library soname: [libxprt.so.$soversion]" readelf -d "$r/$lib/libxprt.so.$version" ||
		fail "no soname libxprt.so.$soversion"
	# exports = libxprt.map = what the public headers declare
	scripts/abi-check.py "$r/$lib/libxprt.so.$version" ||
		fail "the installed library's exports differ from its headers"
	for f in include/libxprt/*.h include/libxprt/proto/*.h; do
		cmp -s "$f" "$r/$f" || fail "$r/$f differs from the source"
	done
	for f in "$r"/bin/*; do # every installed program has its man page
		b=${f##*/}
		[[ -e $r/share/man/man1/$b.1 ]] ||
			fail "$b is installed without its man page"
	done
	[[ -x $r/bin/xprt-plot ]] || fail "xprt-plot is not executable"
	# every installed program answers --help (the library beside it, for
	# programs linked with TOOLS_LINK=shared)
	LD_LIBRARY_PATH=$r/$lib scripts/check-help.sh "$r"/bin/* ||
		fail "an installed program does not answer --help"
}

# --- 0. the programs built but not installed answer --help too --------
# (shared_read, mem-bench, the perf/cost instruments)
"${make[@]}" "$o/bench/mem-bench" cost-tools
scripts/check-help.sh "$o"/examples/* "$o"/bench/mem-bench "$o"/bench/cost/* ||
	fail "a program of the build tree does not answer --help"

# --- 1. PREFIX: build and run the examples against it ----------------
rm -rf "$inst" "$ex"
"${make[@]}" install PREFIX="$inst"
check_tree "$inst"
export PKG_CONFIG_PATH=$inst/$lib/pkgconfig
[[ $(pkg-config --modversion libxprt) == "$version" ]] || fail "pkg-config version"
mkdir -p "$ex"
# every <libxprt/...> header a document names is installed there
docs=(README.md docs/*.md docs/man/*.[13] include/libxprt/*.h
	include/libxprt/proto/*.h)
grep -ohE '(^|[^/A-Za-z0-9_.-])libxprt/[A-Za-z0-9_/]*\.h' "${docs[@]}" |
	sed -E 's/^[^l]*//' | sort -u >"$ex/named"
[[ -s $ex/named ]] || fail "no document names a header (the pattern is wrong)"
while read -r h; do
	[[ -e $inst/include/$h ]] || fail "$(grep -lF "$h" "${docs[@]}" |
		tr '\n' ' ')names <$h>, which is not installed"
done <"$ex/named"
# the documents' programs compile, link and run as written: the
# quickstart's first.c (linked as it says, then run with the library path
# it gives: no arguments, its usage and exit status 2) and libxprt(3)'s
# EXAMPLE (compiled and linked only: it mounts a server named "server")
awk '/^```c$/ { c = 1; buf = ""; next }
	c && /^```$/ { c = 0; if (buf ~ /\/\* first\.c \*\//) printf "%s", buf; next }
	c { buf = buf $0 "\n" }' docs/quickstart.md >"$ex/first.c"
awk '/^\.SH EXAMPLE/ { e = 1 } e && /^\.RS$/ { c = 1; next }
	c && /^\.RE$/ { exit } c' docs/man/libxprt.3 |
	sed -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$ex/man-example.c"
for f in first man-example; do
	[[ -s $ex/$f.c ]] || fail "no program found in the document for $f.c"
	# shellcheck disable=SC2046 # pkg-config's words
	"$cc" -Wall -Wextra -Werror -o "$ex/$f" "$ex/$f.c" \
		$(pkg-config --cflags --libs libxprt) ||
		fail "the documents' $f.c does not build against the installation"
done
rc=0
LD_LIBRARY_PATH=$(pkg-config --variable=libdir libxprt) "$ex/first" \
	2>"$ex/first.err" || rc=$?
if [[ $rc != 2 ]] || ! has usage cat "$ex/first.err"; then
	fail "the quickstart's first (exit $rc): $(cat "$ex/first.err")"
fi
for f in examples/*.c; do
	b=$(basename "$f" .c)
	echo "  CC (installed libxprt) $b"
	pc=(libxprt)
	! grep -q '^#include <uv.h>' "$f" || pc+=(libuv) # loop_uv
	# shellcheck disable=SC2046 # pkg-config's words
	"$cc" -std=c11 -Wall -Wextra -Werror -o "$ex/$b" "$f" \
		$(pkg-config --cflags --libs "${pc[@]}") -Wl,-rpath,"$inst/$lib"
	"$ex/$b" -h >/dev/null || fail "$b -h"
	has "$inst/$lib/libxprt.so.$soversion" ldd "$ex/$b" ||
		fail "$b does not use the installed libxprt.so.$soversion"
done
# every header stands alone, in pedantic C11 and in C++ (extern "C", no
# C++ keyword used as a name); a C++ program links against the library
# shellcheck disable=SC2046
for h in include/libxprt/*.h include/libxprt/proto/*.h; do
	b=${h#include/libxprt/}
	printf '#include <libxprt/%s>\n' "$b" >"$ex/hdr.c"
	"$cc" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only \
		$(pkg-config --cflags libxprt) "$ex/hdr.c" ||
		fail "$b does not compile on its own in C11"
	"$cxx" -x c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only \
		$(pkg-config --cflags libxprt) "$ex/hdr.c" ||
		fail "$b does not compile in C++"
done
# the open flags the nfs3 and p9 calls take come with their headers
for h in nfs3.h p9.h; do
	printf '#include <libxprt/%s>\nint flags = O_CREAT | O_EXCL | O_TRUNC;\n' \
		"$h" >"$ex/hdr.c"
	# shellcheck disable=SC2046
	"$cc" -std=c11 -pedantic -Wall -Werror -fsyntax-only \
		$(pkg-config --cflags libxprt) "$ex/hdr.c" ||
		fail "<libxprt/$h> does not give the O_* flags its open call takes"
done
# the tool tier stands without the protocol-author tier: each of its
# headers compiles with include/libxprt/proto/ out of reach, and uses no
# name the protocol tier declares (docs/api.md, "Two tiers of headers")
rm -rf "$ex/tool" && mkdir -p "$ex/tool/libxprt"
cp include/libxprt/*.h "$ex/tool/libxprt/"
for h in include/libxprt/*.h; do
	b=${h##*/}
	printf '#include <libxprt/%s>\n' "$b" >"$ex/hdr.c"
	# shellcheck disable=SC2046
	"$cc" -std=c11 -Wall -Werror -fsyntax-only -I"$ex/tool" \
		$(pkg-config --cflags-only-other libxprt) \
		$(pkg-config --cflags-only-I libxprt | tr ' ' '\n' |
			grep -v "^-I$inst/include\$") "$ex/hdr.c" ||
		fail "$b (tool tier) needs a protocol-tier header"
done
{
	printf '#include <libxprt/%s>\n' include/libxprt/*.h \
		include/libxprt/proto/*.h | sed 's|include/libxprt/||'
	# ...and the library it runs on says the version pkg-config said
	printf '#include <cstring>\nint main() { return !std::strlen(lx_strerror(-5)) || std::strcmp(lx_xprt_version(), "%s"); }\n' "$version"
} >"$ex/cxx.cc"
# shellcheck disable=SC2046
"$cxx" -std=c++11 -Wall -Wextra -Werror -o "$ex/cxx" "$ex/cxx.cc" \
	$(pkg-config --cflags --libs libxprt) -Wl,-rpath,"$inst/$lib" ||
	fail "a C++ program does not link against libxprt"
"$ex/cxx" || fail "the C++ program failed"
# the static library links too (pkg-config --static)
# shellcheck disable=SC2046
"$cc" -std=c11 -o "$ex/rpcping-static" examples/rpcping.c \
	$(pkg-config --cflags libxprt) "$inst/$lib/libxprt.a" \
	$(pkg-config --static --libs-only-l libxprt | sed 's/-lxprt//') ||
	fail "static link"
has libxprt ldd "$ex/rpcping-static" && fail "rpcping-static uses libxprt.so"
"$ex/rpcping-static" -h >/dev/null || fail "rpcping-static -h"
unset PKG_CONFIG_PATH
"${make[@]}" uninstall PREFIX="$inst"
l=$(left "$inst")
[[ -z $l ]] || fail "uninstall left: $l"

# --- 2. DESTDIR staging with PREFIX=/usr -----------------------------
stage=$inst/stage
"${make[@]}" install DESTDIR="$stage" PREFIX=/usr
check_tree "$stage/usr"
pc=$stage/usr/$lib/pkgconfig/libxprt.pc
grep -qx 'prefix=/usr' "$pc" || fail "libxprt.pc: $(head -3 "$pc")"
grep -q "$stage" "$pc" && fail "libxprt.pc names the staging directory"
[[ -z $(left "$inst" | grep -v "^$stage/") ]] || fail "DESTDIR install wrote outside it"
grep -qx "libdir=\${prefix}/$lib" "$pc" || fail "libxprt.pc is not relocatable"
# the staged tree, relocated by its prefix line alone: what the package's
# users will compile with
mkdir -p "$ex/pc"
sed "s|^prefix=.*|prefix=$stage/usr|" "$pc" >"$ex/pc/libxprt.pc"
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra -Werror -o "$ex/rpcping-staged" examples/rpcping.c \
	$(PKG_CONFIG_PATH=$ex/pc pkg-config --cflags --libs libxprt) \
	-Wl,-rpath,"$stage/usr/$lib"
has "$stage/usr/$lib/libxprt.so" ldd "$ex/rpcping-staged" ||
	fail "rpcping-staged does not use the staged library"
"$ex/rpcping-staged" -h >/dev/null || fail "rpcping against the staged tree"
"${make[@]}" uninstall DESTDIR="$stage" PREFIX=/usr
l=$(left "$inst")
[[ -z $l ]] || fail "uninstall with DESTDIR left: $l"
rm -rf "$inst" "$ex"
echo "check-install: installed, examples built and run against it, uninstalled cleanly (PREFIX and DESTDIR)"

#!/usr/bin/env bash
# Fetch Debian's fio source package at the installed fio's exact version
# and configure it as debian/rules does, so that the libxprt fio engine
# is compiled against the headers (and struct layouts) of the
# /usr/bin/fio it is loaded into.  Nothing of fio is committed: the source
# lives in the ignored cache folder.
#
# usage: scripts/fio-source.sh [CACHE_DIR]     (default: .cache/fio)
#        scripts/fio-source.sh --configure DIR
#        scripts/fio-source.sh --orig OUTDIR
# Prints the configured source tree's path on its last line.  With
# --configure, DIR is a fio source tree unpacked already (the Debian
# package build's fiosrc/, which has no network): only configured.  With
# --orig, the source package's second upstream tarball is written to
# OUTDIR: libxprt_VERSION.orig-fiosrc.tar.xz, Debian's fio source as
# dpkg-source unpacks it (patches applied, its debian/ included: the
# configure line is read from there), unconfigured.
#
# apt runs with a private sources list, state and cache under CACHE_DIR
# (a deb-src line for each Debian "deb" entry of the machine's own
# sources, same mirror, suites and keyring), so the machine's apt
# configuration and lists are left as they are; no root needed.
# Needs: fio installed, apt-get, dpkg-source (dpkg-dev), network the
# first time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(dpkg-query -W -f='${Version}' fio 2>/dev/null) ||
	{ echo "fio-source: fio is not installed (apt-get install fio)" >&2; exit 1; }
upver=${ver#*:}
upver=${upver%-*}
if [[ ${1:-} == --orig ]]; then
	out=$(cd "${2:?fio-source: --orig OUTDIR}" && pwd)
	"$0" >/dev/null
	cache=$top/.cache/fio
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/fio-orig.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	dpkg-source --no-check -x "$(ls "$cache"/dl/fio_"${upver}"*.dsc)" \
		"$tmp/fiosrc" >&2
	tar -C "$tmp" --owner=0 --group=0 --sort=name -cJf \
		"$out/libxprt_$(cat "$top/VERSION").orig-fiosrc.tar.xz" fiosrc
	echo "$out/libxprt_$(cat "$top/VERSION").orig-fiosrc.tar.xz"
	exit 0
fi
if [[ ${1:-} == --configure ]]; then
	src=$(cd "${2:?fio-source: --configure DIR}" && pwd)
	log=$src/.libxprt-configure.log
	[[ -f $src/debian/rules ]] || { echo "fio-source: $src is no fio source package" >&2; exit 1; }
else
	cache=${1:-$top/.cache/fio}
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd)
	src=$cache/fio-$upver
	log=$cache/configure.log
fi
stamp=$src/.libxprt-configured-$ver
if [[ -f $stamp ]]; then
	echo "$src"
	exit 0
fi
# The source, unless it is there: fetched through a private apt
# configuration, unpacked with dpkg-source.
fetch() {
	# deb-src lines from the machine's sources: one-line format
	# (sources.list, *.list) and deb822 (*.sources), "deb" entries of
	# Debian's archive only (the keyring named where the entry names one)
	apt=$cache/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	python3 - "$apt/sources.list" /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources <<-'PY'
	import os, re, sys
	out, files = sys.argv[1], sys.argv[2:]
	lines = []
	def add(uri, suites, comps, opts):
	    if 'debian' not in uri:
	        return
	    for s in suites:
	        lines.append('deb-src %s%s %s %s' % (opts, uri, s, ' '.join(comps)))
	for f in files:
	    if not os.path.isfile(f):
	        continue
	    text = open(f).read()
	    if f.endswith('.sources'):
	        for stanza in re.split(r'\n\s*\n', text):
	            kv = {}
	            for ln in stanza.splitlines():
	                if ln.startswith('#') or ':' not in ln:
	                    continue
	                k, v = ln.split(':', 1)
	                kv[k.strip().lower()] = v.strip()
	            if 'deb' not in kv.get('types', '').split() or \
	               kv.get('enabled', 'yes') == 'no':
	                continue
	            opts = ''
	            if kv.get('signed-by'):
	                opts = '[signed-by=%s] ' % kv['signed-by']
	            for uri in kv.get('uris', '').split():
	                add(uri, kv.get('suites', '').split(),
	                    kv.get('components', 'main').split(), opts)
	    else:
	        for ln in text.splitlines():
	            ln = ln.split('#', 1)[0].strip()
	            m = re.match(r'deb\s+(\[[^]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)', ln)
	            if m:
	                add(m.group(2), [m.group(3)], m.group(4).split(),
	                    m.group(1) or '')
	if not lines:
	    sys.exit('fio-source: no Debian "deb" entry in the apt sources')
	open(out, 'w').write('\n'.join(dict.fromkeys(lines)) + '\n')
	PY
	APT=(apt-get -q
		-o "Dir::Etc::SourceList=$apt/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt/lists"
		-o "Dir::Cache=$apt/cache"
		-o Debug::NoLocking=1)
	command -v dpkg-source >/dev/null ||
		{ echo "fio-source: dpkg-source missing (apt-get install dpkg-dev)" >&2; exit 1; }
	"${APT[@]}" update >&2
	rm -rf "$cache/dl" "$src"
	mkdir -p "$cache/dl"
	(cd "$cache/dl" && "${APT[@]}" source --download-only "fio=$ver" >&2)
	dsc=$(ls "$cache"/dl/fio_"${upver}"*.dsc)
	dpkg-source --no-check -x "$dsc" "$src" >&2
}
[[ -f $src/debian/rules ]] || fetch

# Configure as debian/rules does: its override_dh_auto_configure line,
# read from the package rather than copied, so it follows the version.
# Two of its options add programs or engines only, never a field to the
# structures an engine shares with fio: --enable-gfio (the GTK front-end,
# a separate binary) and --enable-libnbd (the nbd engine); where their
# libraries' headers are not installed they are left out.
cfg=$(sed -n 's/^\t\(\.\/configure .*\)$/\1/p' "$src/debian/rules" | head -1)
[[ -n $cfg ]] || { echo "fio-source: no ./configure line in debian/rules" >&2; exit 1; }
configure() {
	echo "fio-source: $1" >&2
	(cd "$src" && eval "$1" >"$log" 2>&1)
}
if ! configure "$cfg"; then
	for opt in --enable-gfio --enable-libnbd; do
		cfg=${cfg/ $opt/}
	done
	configure "$cfg" ||
		{ echo "fio-source: configure failed, see $log" >&2; exit 1; }
fi

# What shapes the structures an engine sees (struct io_u's union of
# engine-private members) is the libraries fio was built with: compare
# the configuration with what /usr/bin/fio links.
fio_bin=$(command -v fio)
libs=$(ldd "$fio_bin" 2>/dev/null || true)
check() { # MACRO LIBRARY
	local have=no built=no
	grep -q "^#define $1\b" "$src/config-host.h" && have=yes
	grep -q "$2" <<<"$libs" && built=yes
	[[ $have == "$built" ]] && return 0
	echo "fio-source: $1 is $have here, $fio_bin was built with $2: $built" >&2
	return 1
}
check CONFIG_RDMA librdmacm || exit 1
check CONFIG_LIBNUMA libnuma || exit 1
# libaio's struct iocb (64 bytes, kernel ABI) sits in struct io_u's last
# member, a union with glibc's struct aiocb (168 bytes): without libaio's
# header the union keeps its size.  engine/fio_layout.c asserts it.
check CONFIG_LIBAIO libaio.so ||
	grep -q "^#define CONFIG_POSIXAIO\b" "$src/config-host.h" || exit 1
touch "$stamp"
echo "$src"

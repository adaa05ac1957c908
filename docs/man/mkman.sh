#!/usr/bin/env bash
# Assemble the section 1 man pages from their sources (NAME.1.in): the
# version from the top VERSION file, and for the benches the fragments
# common to every program of the bench engine (options, units, presets,
# output, exit status), so the shared text is written once.
#   usage: mkman.sh [--check] [VERSION]     (VERSION: the top VERSION file)
# --check: fail when a committed page differs from what would be generated.
set -euo pipefail
cd "$(dirname "$0")"
check=0
if [[ ${1:-} == --check ]]; then check=1; shift; fi
version=${1:-$(cat ../../VERSION)}
status=0
for src in *.1.in; do
	page=${src%.in}
	case $page in
	nfs3-bench.1) root="export" nullop=", or\\n.B null\\n(the NULL procedure)" ;;
	*) root="attached tree (aname)" nullop="" ;;
	esac
	out=$(awk -v opts=common-options.inc -v tail=common-tail.inc '
		/^@COMMON_OPTIONS@$/ { while ((getline l < opts) > 0) print l; next }
		/^@COMMON_TAIL@$/ { while ((getline l < tail) > 0) print l; next }
		{ print }' "$src" |
		sed -e "s|@VERSION@|$version|g" -e "s|@ROOT@|$root|g" \
		    -e "s|@PROG@|${page%.1}|g" \
		    -e "s|@NULLOP@|$nullop|g")
	if ((check)); then
		if [[ "$out" != "$(cat "$page" 2>/dev/null)" ]]; then
			echo "$page is stale: run docs/man/mkman.sh" >&2
			status=1
		fi
	else
		printf '%s\n' "$out" >"$page"
	fi
done
exit $status

#!/usr/bin/env bash
# Assemble the section 1 and 7 man pages from their sources (NAME.1.in,
# NAME.7.in): the version from the top VERSION file, and for the benches
# the fragments common to every program of the bench engine (options,
# units, presets, output, exit status), so the shared text is written once.
#   usage: mkman.sh [--check] [VERSION]     (VERSION: the top VERSION file)
# --check: fail when a committed page differs from what would be generated.
set -euo pipefail
cd "$(dirname "$0")"
check=0
if [[ ${1:-} == --check ]]; then check=1; shift; fi
version=${1:-$(cat ../../VERSION)}
status=0
for src in *.1.in *.7.in; do
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
# Every page, the sources and the fragments: a macro line's argument that
# does not open with a quote has none inside (roff prints it: a stray
# quote, as in '.BI \-\-runtime " TIME" TIME"'); a quoted argument is
# closed.  A quote to print is \(dq, or "" inside a quoted argument.
python3 - *.1 *.1.in *.7 *.7.in *.inc *.3 <<'PY' || status=1
import re
import sys

bad = 0
for path in sys.argv[1:]:
    for n, line in enumerate(open(path), 1):
        if not line.startswith(".") or line.startswith(".\\\""):
            continue
        text = re.sub(r'\\".*', "", line.rstrip("\n"))  # a comment
        text = text.replace("\\\\", "").replace('\\"', "")
        m = re.match(r"\.\S*\s*", text)
        i, why = m.end(), None
        while i < len(text) and not why:
            if text[i] == " ":
                i += 1
            elif text[i] == '"':
                j = i + 1
                while True:
                    k = text.find('"', j)
                    if k < 0:
                        why = "a quoted argument is not closed"
                        break
                    if text[k + 1:k + 2] == '"':
                        j = k + 2
                        continue
                    i = k + 1
                    break
            else:
                k = text.find(" ", i)
                k = len(text) if k < 0 else k
                if '"' in text[i:k]:
                    why = "a quote inside an unquoted argument"
                i = k
        if why:
            print(f"{path}:{n}: {why}: {line.strip()}", file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
PY
exit $status

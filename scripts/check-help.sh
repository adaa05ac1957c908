#!/usr/bin/env bash
# Every program answers --help as a user expects: exit status 0, its usage
# on stdout (a line that says "usage"), nothing on stderr; and with stdout
# a pipe that is already closed (`PROG --help | head` after head is gone)
# it ends without a word on stderr (no "invalid option", no traceback).
#
# usage: scripts/check-help.sh PROG...      (run by scripts/check-install.sh)
set -uo pipefail
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-help.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() {
	echo "check-help: FAIL: $*" >&2
	fails=$((fails + 1))
}

for p in "$@"; do
	name=${p##*/}
	"$p" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if ((rc != 0)); then
		bad "$name --help: exit status $rc, want 0 ($(head -c 200 "$tmp/err"))"
		continue
	fi
	[[ -s $tmp/out ]] || { bad "$name --help: nothing on stdout"; continue; }
	grep -qi usage "$tmp/out" || bad "$name --help: no usage line on stdout"
	[[ -s $tmp/err ]] && bad "$name --help: on stderr: $(head -c 200 "$tmp/err")"
	# the reader is gone before the program writes (the sleep): whatever
	# the program does then, it says nothing about it
	{ sleep 0.2; exec "$p" --help; } 2>"$tmp/err" | true
	[[ -s $tmp/err ]] &&
		bad "$name --help into a closed pipe: on stderr: $(head -c 300 "$tmp/err")"
done
((fails == 0)) && echo "check-help: $# programs answer --help (exit 0, usage on stdout, quiet into a closed pipe)"
((fails == 0))

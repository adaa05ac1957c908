#!/usr/bin/env bash
# Server control for clients that are not root: an unprivileged test
# (scripts/run-integration.sh runs the library's integration binaries as
# uid 65534) cannot stop, kill or start the root servers itself, so the
# runner, as root, serves its requests through a FIFO.  Only the verbs
# that act on a recorded server are served, and only for ganesha or diod.
#
# usage:
#   servers-ctl.sh serve CTL_DIR RUN_DIR USER   (root) serve until killed;
#                                               CTL_DIR/req is a FIFO the
#                                               user may write
#   servers-ctl.sh VERB RUN_DIR NAME            (the client) as servers.sh:
#                                               stop|kill|start|restart|status,
#                                               ganesha|diod; exit status
#                                               and output are servers.sh's
#
# The client finds CTL_DIR through XPRT_SERVERS_CTL; a request is one line
# "ID VERB NAME" (atomic: under PIPE_BUF), the answer CTL_DIR/ans.ID (the
# output, then "rc=N" as last line).  CTL_DIR is root's (mode 0711: the
# user reads an answer it knows the name of and creates nothing there);
# whoever started the server removes it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [[ ${1:-} == serve ]]; then
	ctl=$2 run=$3 user=$4
	mkdir -p "$ctl" && chmod 0711 "$ctl"
	rm -f "$ctl/req"
	mkfifo -m 0620 "$ctl/req" && chown "root:$user" "$ctl/req" || exit 1
	while true; do
		while read -r id verb name; do
			[[ $id =~ ^[0-9]+$ ]] || continue
			case $verb:$name in
			stop:ganesha | stop:diod | kill:ganesha | kill:diod | \
				start:ganesha | start:diod | restart:ganesha | \
				restart:diod | status: | status:ganesha | status:diod)
				out=$("$here/servers.sh" "$verb" "$run" ${name:+"$name"} 2>&1)
				rc=$?
				;;
			*) out="servers-ctl: refused: '$verb $name'" rc=2 ;;
			esac
			printf '%s\nrc=%d\n' "$out" "$rc" >"$ctl/ans.$id.tmp" &&
				chmod 0644 "$ctl/ans.$id.tmp" &&
				mv "$ctl/ans.$id.tmp" "$ctl/ans.$id"
		done <"$ctl/req"
	done
fi

verb=${1:?usage: servers-ctl.sh VERB RUN_DIR NAME} run=${2:-} name=${3:-}
# (servers.sh also takes the name before the run directory)
case $run in ganesha | diod) run=$name name=$2 ;; esac
ctl=${XPRT_SERVERS_CTL:?no XPRT_SERVERS_CTL: run through scripts/run-integration.sh}
id=$$$RANDOM
echo "$id $verb $name" >"$ctl/req" || exit 1
for ((i = 0; i < 1800; i++)); do # 180 s: a restart waits for its ports
	if [[ -e $ctl/ans.$id ]]; then
		ans=$(cat "$ctl/ans.$id")
		sed '$d' <<<"$ans"
		rc=$(tail -1 <<<"$ans")
		exit "${rc#rc=}"
	fi
	sleep 0.1
done
echo "servers-ctl: no answer to '$verb $name' in 180 s" >&2
exit 1

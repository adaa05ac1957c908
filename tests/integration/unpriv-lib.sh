# shellcheck shell=bash
# The clients of the integration tests run as an unprivileged user (issue
# 14: the library never needs root), the servers staying root.  Sourced by
# scripts/run-integration.sh and by the scripts that run a tool.
#
#   UNPRIV_UID       65534 (nobody/nogroup on Debian)
#   AS=(...)         the command prefix that becomes that user (setpriv,
#                    no supplementary groups), or () when the clients stay
#                    who we are: not root, no setpriv, or XPRT_UNPRIV=0
#   as_user CMD...   CMD through AS
#   unpriv_own P...  chown P to the user when AS is set (a directory the
#                    user's client creates in, a file it must read)
UNPRIV_UID=65534
AS=()
if ((EUID == 0)) && [[ ${XPRT_UNPRIV:-1} != 0 ]] &&
	command -v setpriv >/dev/null; then
	AS=(setpriv "--reuid=$UNPRIV_UID" "--regid=$UNPRIV_UID" --clear-groups)
fi
as_user() { "${AS[@]}" "$@"; }
unpriv_own() {
	((${#AS[@]})) || return 0
	chown "$UNPRIV_UID:$UNPRIV_UID" "$@"
}

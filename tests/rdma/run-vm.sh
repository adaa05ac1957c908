#!/usr/bin/env bash
# Boot the RDMA test guest and run a script or command inside it.
#
# usage: tests/rdma/run-vm.sh [options] SCRIPT [ARGS...]
#        tests/rdma/run-vm.sh [options] -c 'COMMANDS'
#        tests/rdma/run-vm.sh [options] --shell
#
# The repository is shared read-write over virtio-9p at its own path, so
# host-built binaries and scripts run in place; the guest starts in the
# current directory when that is inside a share.  The guest script's output
# streams to our stdout and its exit status becomes ours.
#
# options:
#   -t SECONDS       wall-clock budget for the whole VM (default 600)
#   -s HOST[:GUEST]  extra 9p share, read-write (repeatable)
#   --no-repo        do not share the repository
#   -e NAME=VALUE    environment variable for the guest script (repeatable)
#   -m MB            guest memory (default 2048)
#   -p N             guest vCPUs (default 2)
#   --accel A        auto|kvm|tcg (default auto: KVM only when really usable)
#   --rdma R         rxe|none (default rxe)
#   --net N          virtio|dummy: netdev under rxe (default virtio)
#   --console FILE   guest kernel console (default: copied to
#                    $RDMAVM_DIR/console.log after the run)
#   -v               print the guest console at the end
#   --no-build       do not run build-image.sh first (it is a no-op when warm)
#
# exit status: the script's; 124 budget exceeded; 125 VM died without a
# result; 126 guest setup failed; 2 usage or missing image.
#
# Inside the guest: RDMAVM_DEV=rxe0, RDMAVM_NETDEV=eth0, RDMAVM_IP=10.0.2.15,
# RDMAVM_REPO=<repo path>; /bin/sh is dash, busybox applets are in /bb.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
D=${RDMAVM_DIR:-$REPO/.cache/rdmavm}
TIMEOUT=600 MEM=2048 CPUS=2 ACCEL=auto RDMA=rxe NET=virtio VERBOSE=0
SHELL_MODE=0 BUILD=1 SHARE_REPO=1 CONSOLE="" CMD="" HAVE_CMD=0 SCRIPT=""
SHARES=()
ENVS=()
usage() {
	sed -n '2,30p' "$0"
	exit "${1:-2}"
}
need_arg() { [ $# -ge 2 ] || { echo "run-vm.sh: $1 needs an argument" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	-t | -s | -e | -m | -p | --accel | --rdma | --net | --console | -c) need_arg "$@" ;;
	esac
	case $1 in
	-t) TIMEOUT=$2; shift 2 ;;
	-s) SHARES+=("$2"); shift 2 ;;
	-e) ENVS+=("$2"); shift 2 ;;
	-m) MEM=$2; shift 2 ;;
	-p) CPUS=$2; shift 2 ;;
	--accel) ACCEL=$2; shift 2 ;;
	--rdma) RDMA=$2; shift 2 ;;
	--net) NET=$2; shift 2 ;;
	--console) CONSOLE=$2; shift 2 ;;
	--no-repo) SHARE_REPO=0; shift ;;
	--no-build) BUILD=0; shift ;;
	-v) VERBOSE=1; shift ;;
	-c) CMD=$2; HAVE_CMD=1; shift 2; break ;;
	--shell) SHELL_MODE=1; shift ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	-*) echo "run-vm.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
case $TIMEOUT in '' | *[!0-9]*) echo "run-vm.sh: -t wants whole seconds" >&2; exit 2 ;; esac
if ((!HAVE_CMD && !SHELL_MODE)); then
	[ $# -ge 1 ] || usage 2
	SCRIPT=$1
	shift
	[ -r "$SCRIPT" ] || { echo "run-vm.sh: cannot read $SCRIPT" >&2; exit 2; }
	SCRIPT=$(cd "$(dirname "$SCRIPT")" && pwd)/$(basename "$SCRIPT")
fi
for e in "${ENVS[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || { echo "run-vm.sh: bad -e '$e'" >&2; exit 2; }
done

if ((BUILD)); then
	"$HERE/build-image.sh" >&2 || { echo "run-vm.sh: image build failed" >&2; exit 2; }
fi
KERNEL=$D/vmlinux
[ -r "$KERNEL" ] || KERNEL=$D/vmlinuz
if [ ! -r "$KERNEL" ] || [ ! -r "$D/initramfs.img" ]; then
	echo "run-vm.sh: no image in $D (run tests/rdma/build-image.sh)" >&2
	exit 2
fi
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "run-vm.sh: qemu missing (run: scripts/deps.sh rdma)" >&2; exit 2; }

# A /dev/kvm may exist and still be unusable for a stock kernel (PVM-based
# nested KVM without VMX/SVM: qemu aborts with -cpu host, the guest hangs
# with the default CPU), so demand VMX/SVM and no kvm_pvm.
if [ "$ACCEL" = auto ]; then
	ACCEL=tcg
	if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo &&
		[ ! -d /sys/module/kvm_pvm ]; then
		ACCEL=kvm
	fi
fi
case $ACCEL in
kvm) ACCEL_ARGS=(-accel kvm -cpu "${QEMU_CPU:-host}") ;;
tcg) ACCEL_ARGS=(-accel tcg,thread=multi -cpu "${QEMU_CPU:-max}") ;;
*) echo "run-vm.sh: --accel auto|kvm|tcg" >&2; exit 2 ;;
esac

mkdir -p "$D/runs"
RUN=$(mktemp -d "$D/runs/run.XXXXXX")
QPID=""
KEEP_CONSOLE=""
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	# the last run's console stays in the cache folder for a post-mortem
	[ -n "$KEEP_CONSOLE" ] && cp "$CONSOLE" "$D/console.log" 2>/dev/null
	rm -rf "$RUN"
}
trap cleanup EXIT
trap 'echo "run-vm.sh: interrupted" >&2; exit 130' INT TERM HUP
if [ -z "$CONSOLE" ]; then
	CONSOLE=$RUN/console.log # per run: parallel runs must not share it
	KEEP_CONSOLE=1
fi
: >"$CONSOLE" || exit 2

# shares: the repository first, at its own path
((SHARE_REPO)) && SHARES=("$REPO" "${SHARES[@]}")
FS_ARGS=()
mnt=""
guest_paths=()
i=0
for s in "${SHARES[@]}"; do
	h=${s%%:*}
	g=${s#*:}
	[ "$g" = "$s" ] && g=""
	h=$(cd "$h" && pwd) || exit 2
	[ -n "$g" ] || g=$h
	FS_ARGS+=(-virtfs "local,path=$h,mount_tag=sh$i,security_model=none,id=sh$i")
	mnt="${mnt:+$mnt,}sh$i:$g"
	guest_paths+=("$h:$g")
	i=$((i + 1))
done
# host path -> guest path through the shares, or empty
to_guest() {
	local p=$1 m h g
	for m in "${guest_paths[@]}"; do
		h=${m%%:*}
		g=${m#*:}
		case $p in
		"$h") echo "$g"; return ;;
		"$h"/*) echo "$g${p#"$h"}"; return ;;
		esac
	done
}
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# the per-run payload: /rdmavm/test.sh (and the script when not shared)
mkdir -p "$RUN/p/rdmavm"
{
	echo '#!/bin/sh'
	printf 'export RDMAVM_REPO=%s\n' "$(q "$REPO")"
	for e in "${ENVS[@]}"; do printf 'export %s=%s\n' "${e%%=*}" "$(q "${e#*=}")"; done
	cwd=$(to_guest "$PWD")
	[ -n "$cwd" ] && printf 'cd %s || exit 126\n' "$(q "$cwd")"
	if ((HAVE_CMD)); then
		printf '%s\n' "$CMD"
	elif [ -n "$SCRIPT" ]; then
		gs=$(to_guest "$SCRIPT")
		if [ -z "$gs" ]; then
			cp "$SCRIPT" "$RUN/p/rdmavm/script"
			gs=/rdmavm/script
		fi
		printf 'exec sh %s' "$(q "$gs")"
		for a in "$@"; do printf ' %s' "$(q "$a")"; done
		echo
	fi
} >"$RUN/p/rdmavm/test.sh"
# payload first: an lz4-legacy segment has no end marker, so the image
# must be the last segment of the initrd
(cd "$RUN/p" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$RUN/initrd.img"
cat "$D/initramfs.img" >>"$RUN/initrd.img"

# cryptomgr.notests skips ~1 s of crypto self-tests under TCG
APPEND="console=ttyS0 quiet loglevel=4 panic=-1 cryptomgr.notests"
APPEND="$APPEND rdmavm.rdma=$RDMA rdmavm.net=$NET${mnt:+ rdmavm.mnt=$mnt}"
((SHELL_MODE)) && APPEND="$APPEND rdmavm.shell=1"
case $NET in
virtio)
	NET_ARGS=(-netdev user,id=n0,restrict=on
		-device virtio-net-pci,netdev=n0,romfile=) ;;
dummy) NET_ARGS=(-nic none) ;;
*) echo "run-vm.sh: --net virtio|dummy" >&2; exit 2 ;;
esac
QEMU=(qemu-system-x86_64 "${ACCEL_ARGS[@]}" -smp "$CPUS" -m "$MEM"
	-no-reboot -display none -monitor none -vga none
	-kernel "$KERNEL" -initrd "$RUN/initrd.img" -append "$APPEND"
	"${NET_ARGS[@]}" "${FS_ARGS[@]}")

if ((SHELL_MODE)); then
	"${QEMU[@]}" -serial mon:stdio -serial null -serial null
	exit $?
fi
echo "run-vm.sh: accel=$ACCEL rdma=$RDMA budget=${TIMEOUT}s shares=${mnt:-none}" >&2
t0=$(date +%s.%N)
# ttyS0 = kernel console, ttyS1 = the script's output, ttyS2 = its status
timeout -k 5 "$TIMEOUT" "${QEMU[@]}" \
	-serial "file:$CONSOLE" \
	-chardev stdio,id=out,signal=off -serial chardev:out \
	-serial "file:$RUN/rc" </dev/null &
QPID=$!
wait $QPID
qrc=$?
QPID=""
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
rc=$(tr -dc '0-9' <"$RUN/rc" 2>/dev/null)
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	echo "run-vm.sh: BUDGET EXCEEDED: the VM ran longer than ${TIMEOUT}s; console tail:" >&2
	tail -n 30 "$CONSOLE" >&2
	rc=124
elif [ -z "$rc" ]; then
	echo "run-vm.sh: the VM exited (qemu status $qrc) without a result; console tail:" >&2
	tail -n 30 "$CONSOLE" >&2
	rc=125
elif [ "$rc" = 126 ]; then
	echo "run-vm.sh: guest setup failed; console tail:" >&2
	tail -n 30 "$CONSOLE" >&2
fi
if ((VERBOSE)); then
	echo "----- guest console ($CONSOLE) -----" >&2
	cat "$CONSOLE" >&2
fi
echo "run-vm.sh: exit status $rc, wall ${wall}s (accel=$ACCEL)" >&2
exit "$rc"

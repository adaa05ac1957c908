#!/bin/sh
# Runs INSIDE the RDMA bench guest (started by tests/rdma/bench-rdma.sh):
# nfs3-bench against the kernel NFS client (fio, O_DIRECT) on the same
# kernel nfsd, the same file, the same block size and depth, over RDMA and
# over TCP.  Each run writes its JSON report to OUT (a directory of the
# shared repository); the host turns them into the table.
#
#   bench-rdma-guest.sh OUT REPS RUNTIME
#
# Clients (BENCH_CLIENTS, default "ours kernel"; all four for make
# bench-fio-rdma):
#   ours    nfs3-bench
#   engine  fio + libxprt's engine (the guest's fio, tests/rdma/build-fio.sh,
#           ioengine=external:libxprt-fio.so, nfs_url=...transport=rdma|tcp)
#   kernel  fio on the kernel client's mount, libaio, at the point's depth
#   psync   fio on the kernel client's mount, psync: synchronous, depth 1
#           per job, so DEPTH jobs (each on its own slice of the file) keep
#           DEPTH I/Os in flight; not at points of more than one job
#
# Points: 4 KiB random read (depth 16), 512 KiB sequential read and write
# (depth 4), one job, one connection; over RDMA also the seed's collapse
# case (4 KiB random reads, 16 jobs x 1,024 deep) and the 4 KiB point with
# nfs3-bench's other registration modes (BENCH_REG, default "per-io
# cache-unsafe": ours only, paired with the kernel's run of the same
# repetition).  Each point runs REPS times, its clients back to back, the
# order rotating by one every repetition (with two clients: alternating),
# RUNTIME seconds each after a 1 s ramp.  Every client reads one pre-made
# file and writes another on nfsd's tmpfs export, so no run lays out data
# and the reads never see what a write run left.  Each run also records
# the guest's busy CPU time (/proc/stat: client, nfsd, rxe together) for a
# CPU-per-I/O figure measured the same way for every client.
#
# Then, over RDMA, the system calls of 4 KiB random READs at depth 16 per
# registration mode: nfs3-bench under strace for SYS_N1 and SYS_N2 READs,
# the difference divided by SYS_N2 - SYS_N1 (start-up and tear-down cancel
# out), each write(2) to the verbs device classified by its command (a Send
# or Receive doorbell, a registration...).
set -u
OUT=$1
REPS=${2:-3}
RT=${3:-5}
NB=${RDMAVM_BENCH:-${RDMAVM_BIN:-$RDMAVM_REPO/build/rdma}}/nfs3-bench
FIO_ENG=${RDMAVM_BIN:-$RDMAVM_REPO/build/rdma}/fio/fio
ENG=${RDMAVM_BIN:-$RDMAVM_REPO/build/rdma}/fio/libxprt-fio.so
CLIENTS=${BENCH_CLIENTS:-ours kernel}
IP=${RDMAVM_IP:-10.0.2.15}
FILE_MB=64
MNT=/mnt/knfs

die() {
	echo "bench-rdma: FAIL: $*"
	umount -l $MNT 2>/dev/null
	exit 1
}
has() { # client: whether it is one of CLIENTS
	case " $CLIENTS " in *" $1 "*) return 0 ;; esac
	return 1
}
[ -x "$NB" ] || die "$NB not built (make rdma-tools)"
command -v fio >/dev/null || die "fio not in the image (bench-rdma.sh builds the bench image)"
if has engine && ! { [ -x "$FIO_ENG" ] && [ -f "$ENG" ]; }; then
	die "$FIO_ENG or $ENG not built (make rdma-tools)"
fi
# nfsd's largest transfer follows the guest's memory (256 KiB in 2 GiB):
# 512 KiB lets both clients move a 512 KiB block in one READ or WRITE
NFSD_MAX_BLOCK=524288 rdmavm-nfsd-start >/dev/null || die "nfsd did not start"
echo "bench-rdma: nfsd max_block_size $(cat /proc/fs/nfsd/max_block_size)"
mkdir -p "$OUT" /export/bench $MNT
# random data, made locally (tmpfs): neither client lays it out
dd if=/dev/urandom of=/export/bench/file bs=1M count=$FILE_MB 2>/dev/null &&
	cp /export/bench/file /export/bench/wfile || die "making the test files"
echo "bench-rdma: kernel $(uname -r), $(nproc) vCPUs, file $FILE_MB MiB, $REPS repetition(s) of ${RT}s"
# for the report: under TCG the vCPU's model names it ("QEMU TCG CPU")
echo "the guest: kernel $(uname -r), $(nproc) vCPUs ($(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1))" >"$OUT/guest"

# point NAME:RW:BS:DEPTH[:JOBS[:REG]] (BENCH_POINTS and BENCH_TRANSPORTS
# narrow a run); a point with REG (an nfs3-bench --rdma-reg mode) runs ours
# only, NAME being BASE~REG: the report pairs it with the kernel's BASE run
BASE_POINTS="randread-4k:randread:4k:16 read-512k:read:512k:4 write-512k:write:512k:4"
RDMA_POINTS="$BASE_POINTS collapse-4k:randread:4k:1024:16"
for reg in ${BENCH_REG-per-io cache-unsafe}; do
	RDMA_POINTS="$RDMA_POINTS randread-4k~$reg:randread:4k:16:1:$reg"
done
RDMA_POINTS=${BENCH_POINTS:-$RDMA_POINTS}
TCP_POINTS=${BENCH_POINTS:-$BASE_POINTS}
SYS_N1=${SYS_N1:-500}
SYS_N2=${SYS_N2:-1500}

fname() { # rw: the file it uses
	case $1 in *write*) echo wfile ;; *) echo file ;; esac
}

nfsport() { # transport
	if [ "$1" = rdma ]; then echo 20049; else echo 2049; fi
}

ours() { # transport point rw bs depth rep jobs reg
	"$NB" --server "$IP:$(nfsport "$1")" --export /export --mount-port 20048 \
		--transport "$1" --filename "bench/$(fname "$3")" --size ${FILE_MB}m \
		--rw "$3" --bs "$4" --iodepth "$5" --numjobs "$7" \
		${8:+--rdma-reg "$8"} \
		--ramp_time 1 --time_based --runtime "$RT" --group_reporting --eta never \
		--output-format json --output "$OUT/$1-$2-ours-$6.json" \
		>"$OUT/$1-$2-ours-$6.log" 2>&1
}

# fio_run FIO WHO transport point rw bs depth rep jobs [OPTION...]: a fio
# run with the options every fio client shares (a later OPTION overrides)
fio_run() {
	fr_bin=$1 fr_out=$OUT/$3-$4-$2-$8 fr_rw=$5 fr_bs=$6 fr_depth=$7 fr_jobs=$9
	shift 9
	"$fr_bin" --name=job --size=${FILE_MB}m --rw="$fr_rw" --bs="$fr_bs" \
		--iodepth="$fr_depth" --numjobs="$fr_jobs" --ramp_time=1 \
		--time_based --runtime="$RT" --group_reporting \
		--output-format=json --output="$fr_out.json" "$@" \
		>"$fr_out.log" 2>&1
}

kernel() { # transport point rw bs depth rep jobs
	fio_run fio kernel "$@" --filename="$MNT/bench/$(fname "$3")" \
		--ioengine=libaio --direct=1
}

psync() { # transport point rw bs depth rep jobs: DEPTH jobs of depth 1
	fio_run fio psync "$1" "$2" "$3" "$4" 1 "$6" "$5" \
		--filename="$MNT/bench/$(fname "$3")" --ioengine=psync --direct=1 \
		--size=$((FILE_MB / $5))m --offset_increment=$((FILE_MB / $5))m
}

engine() { # transport point rw bs depth rep jobs
	fio_run "$FIO_ENG" engine "$@" --filename="bench/$(fname "$3")" \
		--ioengine="external:$ENG" \
		--nfs_url="nfs://$IP/export?transport=$1&nfsport=$(nfsport "$1")&mountport=20048"
}

# busy and total jiffies of all CPUs (/proc/stat's first line)
cpu_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i;
		print t - $5 - $6, t; exit }' /proc/stat
}

# IOPS of a report for a progress line: the first "iops" is the read
# direction's, the second the write's
iops() { # report rw
	n=1
	[ "$2" = write ] && n=2
	grep -o '"iops" *: *[0-9.]*' "$1" 2>/dev/null | sed -n ${n}p |
		sed 's/.*: *//' | cut -d. -f1
}

run() { # who transport point rw bs depth rep jobs [reg]
	who=$1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	c0=$(cpu_ticks)
	if "$who" "$@"; then
		st=ok
	else
		st="FAILED (see $OUT/$1-$2-$who-$6.log)"
	fi
	c1=$(cpu_ticks)
	t1=$(cut -d' ' -f1 /proc/uptime)
	# busy/total jiffies over the run (start-up and ramp included: the
	# report takes the busy fraction for the measured window)
	echo "$c0 $c1 $(nproc)" >"$OUT/$1-$2-$who-$6.cpu"
	printf '  %-5s %-11s %-6s rep %s: %6s IOPS  (%s, %.0fs)\n' "$1" "$2" \
		"$who" "$6" "$(iops "$OUT/$1-$2-$who-$6.json" "$3")" "$st" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
	[ "$st" = ok ]
}

rc=0
for tr in ${BENCH_TRANSPORTS:-rdma tcp}; do
	if [ $tr = rdma ]; then
		opts=vers=3,proto=rdma,port=20049
	else
		opts=vers=3,proto=tcp,port=2049
	fi
	mount -t nfs -o $opts,mountport=20048,mountproto=tcp "$IP:/export" $MNT ||
		die "mount -t nfs -o $opts"
	echo "bench-rdma: $tr: kernel client mounted: $(grep " $MNT " /proc/mounts | cut -d' ' -f4)"
	POINTS=$TCP_POINTS
	[ $tr = rdma ] && POINTS=$RDMA_POINTS
	rep=1
	while [ $rep -le "$REPS" ]; do
		for p in $POINTS; do
			IFS=: read -r name rw bs depth jobs reg <<EOF
$p
EOF
			jobs=${jobs:-1}
			if [ -n "$reg" ]; then
				has ours || continue
				run ours $tr "$name" "$rw" "$bs" "$depth" $rep "$jobs" "$reg" || rc=1
				continue
			fi
			# the point's clients, rotated by one each repetition
			set --
			for c in $CLIENTS; do
				[ "$c" = psync ] && [ "$jobs" != 1 ] && continue
				set -- "$@" "$c"
			done
			[ $# -gt 0 ] || continue
			k=$(((rep - 1) % $#))
			while [ $k -gt 0 ]; do
				set -- "$@" "$1"
				shift
				k=$((k - 1))
			done
			for c in "$@"; do
				run "$c" $tr "$name" "$rw" "$bs" "$depth" $rep "$jobs" || rc=1
			done
		done
		rep=$((rep + 1))
	done
	umount $MNT || umount -l $MNT
done

# system calls per 4 KiB READ (depth 16) on the data path, per mode
if command -v strace >/dev/null && [ -z "${NO_SYSCALLS:-}" ] && has ours &&
	echo " ${BENCH_TRANSPORTS:-rdma tcp} " | grep -q ' rdma '; then
	for reg in window per-io cache-unsafe; do
		for n in $SYS_N1 $SYS_N2; do
			strace -f -qq -y -x -s 8 -o "$OUT/sys-$reg-$n.trace" \
				"$NB" --server "$IP:20049" --export /export --mount-port 20048 \
				--transport rdma --filename bench/file --size ${FILE_MB}m \
				--rw randread --bs 4k --iodepth 16 --numjobs 1 \
				--rdma-reg "$reg" --number_ios "$n" --eta never \
				--output-format json --output "$OUT/sys-$reg-$n.json" \
				>"$OUT/sys-$reg-$n.log" 2>&1 || rc=1
			# per system call name; a write or ioctl on the verbs
			# device by its command (the first byte of the header)
			awk -f "$RDMAVM_REPO/tests/rdma/bench-rdma-syscalls.awk" \
				"$OUT/sys-$reg-$n.trace" >"$OUT/sys-$reg-$n.counts"
			rm -f "$OUT/sys-$reg-$n.trace"
		done
		echo "  rdma  syscalls    $reg: $(awk '{ s += $2 } END { print s }' "$OUT/sys-$reg-$SYS_N2.counts") system calls for $SYS_N2 READs"
	done
fi
rm -rf /export/bench
exit $rc

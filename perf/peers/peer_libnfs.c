// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * peer_libnfs: NFSv3 operation rate of libnfs's asynchronous API, the peer
 * for nfs3-bench (a mature userspace NFS client on the same server).
 *
 * One libnfs context = one TCP connection. --depth requests are kept in
 * flight: each completion callback issues the next request from the same
 * slot, so the pipeline stays full without a central scheduler, and the
 * slot remembers when its request left, which gives per-operation latency.
 * The event loop is the one libnfs documents: poll() on nfs_get_fd() for
 * nfs_which_events(), then nfs_service().
 *
 * Modes: null (NFSPROC3_NULL on the mounted connection), randread and
 * randwrite (--bs-aligned offsets drawn uniformly from the file), seqread
 * and seqwrite (consecutive blocks, wrapping at the end of the file).
 * Warm-up (--warmup seconds) runs the same load before the measured window
 * so connection setup and the server's caches are out of the figures.
 *
 * --count N issues exactly --warmup-count + N requests in all, measures the
 * last N and reads no clock per request: the mode `make bench-cost`
 * counts instructions per request in (two counts, differenced; a
 * time-based run would make the count vary).  The event loop is the same.
 *
 * Ports: libnfs 4.0 has no setter for them; the nfsport= and mountport=
 * arguments of a libnfs URL are parsed into the context, so that is how
 * --nfsport/--mountport reach it. Without them libnfs asks rpcbind.
 */
#include "peer_common.h"

#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#define PROG	  "peer_libnfs"
#define MAX_DEPTH 1024

enum mode { M_NULL, M_RANDREAD, M_SEQREAD, M_RANDWRITE, M_SEQWRITE };

static const char *const mode_names[] = {
	[M_NULL] = "null",	   [M_RANDREAD] = "randread",
	[M_SEQREAD] = "seqread",   [M_RANDWRITE] = "randwrite",
	[M_SEQWRITE] = "seqwrite",
};

struct bench;

struct slot {
	struct bench *b;
	uint64_t issued_ns;
};

struct bench {
	struct nfs_context *nfs;
	struct rpc_context *rpc;
	struct nfsfh *fh;
	enum mode mode;
	uint64_t bs, nblk, seq, rng;
	void *wbuf;
	unsigned int outstanding;
	bool stop;
	bool failed;
	bool counted;		 /* --count: a number of requests, not a time */
	uint64_t issue_left;	 /* --count: requests still to issue */
	uint64_t done, warm_ops; /* --count: completions, warm-up length */
	uint64_t end_ns, warm_end_ns;
	struct peer_window w;
};

static void issue(struct slot *s);

/* Account one completion and refill the slot unless the run is over. */
static void complete(struct slot *s, bool ok, const char *what)
{
	struct bench *b = s->b;
	uint64_t now;

	b->outstanding--;
	if (!ok) {
		fprintf(stderr, PROG ": %s failed: %s\n", mode_names[b->mode],
			what ? what : "?");
		b->w.errors++;
		b->failed = true;
		b->stop = true;
		return;
	}
	if (b->counted) {
		if (b->w.running)
			b->w.ops++;
		else if (++b->done == b->warm_ops)
			peer_window_start(&b->w);
		if (!b->stop && b->issue_left)
			issue(s);
		return;
	}
	now = peer_now_ns();
	if (b->w.running) {
		b->w.ops++;
		peer_hist_add(&b->w.hist, now - s->issued_ns);
	}
	if (!b->w.running && !b->stop && now >= b->warm_end_ns) {
		peer_window_start(&b->w);
		b->end_ns = b->w.t0_ns + (b->end_ns - b->warm_end_ns);
		b->warm_end_ns = UINT64_MAX;
	} else if (b->w.running && now >= b->end_ns) {
		peer_window_stop(&b->w);
		b->stop = true;
	}
	if (!b->stop)
		issue(s);
}

static void null_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	complete(priv, status == RPC_STATUS_SUCCESS,
		 status == RPC_STATUS_ERROR ? data : "cancelled");
}

static void rw_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct slot *s = priv;

	if (err < 0) {
		complete(s, false, data);
		return;
	}
	complete(s, (uint64_t)err == s->b->bs, "short transfer");
}

static void issue(struct slot *s)
{
	struct bench *b = s->b;
	uint64_t blk;
	int rc;

	if (b->mode == M_RANDREAD || b->mode == M_RANDWRITE)
		blk = peer_rng_next(&b->rng) % b->nblk;
	else
		blk = b->seq++ % b->nblk;
	if (b->counted)
		b->issue_left--;
	else
		s->issued_ns = peer_now_ns();
	switch (b->mode) {
	case M_NULL:
		rc = rpc_nfs3_null_async(b->rpc, null_cb, s);
		break;
	case M_RANDREAD:
	case M_SEQREAD:
		rc = nfs_pread_async(b->nfs, b->fh, blk * b->bs, b->bs, rw_cb,
				     s);
		break;
	default:
		rc = nfs_pwrite_async(b->nfs, b->fh, blk * b->bs, b->bs,
				      b->wbuf, rw_cb, s);
		break;
	}
	if (rc) {
		fprintf(stderr, PROG ": queueing failed: %s\n",
			nfs_get_error(b->nfs));
		b->failed = true;
		b->stop = true;
		return;
	}
	b->outstanding++;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options]\n"
		"NFSv3 load through libnfs's async API on one TCP connection;\n"
		"prints a RESULT line (see peer_common.h).\n"
		"  --host H        server (default 127.0.0.1)\n"
		"  --export PATH   MOUNT path (default /export)\n"
		"  --nfsport P     NFS port (default 0: ask rpcbind)\n"
		"  --mountport P   MOUNT port (default 0: ask rpcbind)\n"
		"  --mode M        null|randread|seqread|randwrite|seqwrite\n"
		"                  (default randread)\n"
		"  --bs N          bytes per READ/WRITE, k/m suffixes (default 4k)\n"
		"  --depth N       requests in flight (default 16)\n"
		"  --file PATH     file under the export (default /bench.dat);\n"
		"                  read modes need it to exist, write modes\n"
		"                  create it\n"
		"  --size N        file span for write modes (default 64m)\n"
		"  --seconds S     measuring time (default 5)\n"
		"  --warmup S      unmeasured load first (default 0.5)\n"
		"  --count N       exactly N measured requests instead of\n"
		"                  --seconds, no clock read per request (no\n"
		"                  latencies)\n"
		"  --warmup-count N  with --count: N unmeasured requests first\n"
		"                  (default 1000)\n"
		"  --help          this text\n"
		"example: " PROG
		" --nfsport 2049 --mountport 20048 --mode null\n");
}

static uint64_t parse_size_opt(const char *opt, const char *s)
{
	uint64_t v;

	if (peer_parse_size(s, &v))
		peer_die(PROG, "bad value for %s: '%s'", opt, s);
	return v;
}

static void open_file(struct bench *b, const char *file, uint64_t size)
{
	struct nfs_stat_64 st;
	int rc;

	if (b->mode == M_RANDREAD || b->mode == M_SEQREAD) {
		rc = nfs_open(b->nfs, file, O_RDONLY, &b->fh);
		if (rc)
			peer_die(
				PROG,
				"open %s: %s (create it first, e.g. head -c 64M"
				" /dev/urandom > EXPORT_DIR%s, or run a write"
				" mode once)",
				file, nfs_get_error(b->nfs), file);
		if (nfs_fstat64(b->nfs, b->fh, &st))
			peer_die(PROG, "fstat %s: %s", file,
				 nfs_get_error(b->nfs));
		size = st.nfs_size;
	} else {
		rc = nfs_open2(b->nfs, file, O_WRONLY | O_CREAT, 0644, &b->fh);
		if (rc)
			peer_die(PROG, "open/create %s: %s", file,
				 nfs_get_error(b->nfs));
		b->wbuf = malloc(b->bs);
		if (!b->wbuf)
			peer_die(PROG, "out of memory");
		for (uint64_t i = 0; i < b->bs; i++)
			((unsigned char *)b->wbuf)[i] =
				(unsigned char)peer_rng_next(&b->rng);
	}
	b->nblk = size / b->bs;
	if (!b->nblk)
		peer_die(PROG, "%s: %llu bytes, smaller than --bs %llu", file,
			 (unsigned long long)size, (unsigned long long)b->bs);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"host", required_argument, NULL, 'H'},
		{"export", required_argument, NULL, 'e'},
		{"nfsport", required_argument, NULL, 'n'},
		{"mountport", required_argument, NULL, 'm'},
		{"mode", required_argument, NULL, 'M'},
		{"bs", required_argument, NULL, 'b'},
		{"depth", required_argument, NULL, 'd'},
		{"file", required_argument, NULL, 'f'},
		{"size", required_argument, NULL, 'S'},
		PEER_RUN_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *host = "127.0.0.1", *export = "/export";
	const char *file = "/bench.dat";
	uint64_t nfsport = 0, mountport = 0, size = 64ull << 20, depth = 16;
	struct peer_run_opts ro = {.secs = 5, .warm = 0.5, .warm_count = 1000};
	struct slot *slots;
	struct bench b;
	struct nfs_url *url;
	char urlbuf[1024], extra[160];
	int c, i;

	memset(&b, 0, sizeof(b));
	b.mode = M_RANDREAD;
	b.bs = 4096;
	b.rng = 0x9e3779b97f4a7c15ull;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			host = optarg;
			break;
		case 'e':
			export = optarg;
			break;
		case 'n':
			nfsport =
				peer_uint_opt(PROG, "--nfsport", optarg, 65535);
			break;
		case 'm':
			mountport = peer_uint_opt(PROG, "--mountport", optarg,
						  65535);
			break;
		case 'M':
			for (i = 0; i < 5; i++)
				if (!strcmp(optarg, mode_names[i]))
					break;
			if (i == 5)
				peer_die(PROG, "unknown --mode '%s'", optarg);
			b.mode = (enum mode)i;
			break;
		case 'b':
			b.bs = parse_size_opt("--bs", optarg);
			break;
		case 'd':
			depth = peer_uint_opt(PROG, "--depth", optarg,
					      MAX_DEPTH);
			break;
		case 'f':
			file = optarg;
			break;
		case 'S':
			size = parse_size_opt("--size", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (peer_run_opt(PROG, c, optarg, &ro))
				break;
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (!depth)
		peer_die(PROG, "--depth must be 1..%d", MAX_DEPTH);
	if (!b.bs || b.bs > (64u << 20))
		peer_die(PROG, "--bs must be 1..64m");

	b.nfs = nfs_init_context();
	if (!b.nfs)
		peer_die(PROG, "nfs_init_context failed");
	/* The URL parser is the only way to give libnfs 4.0 fixed ports. */
	snprintf(urlbuf, sizeof(urlbuf), "nfs://%s%s", host, export);
	if (nfsport || mountport) {
		size_t n = strlen(urlbuf);

		snprintf(urlbuf + n, sizeof(urlbuf) - n, "?nfsport=%llu",
			 (unsigned long long)nfsport);
		n = strlen(urlbuf);
		if (mountport)
			snprintf(urlbuf + n, sizeof(urlbuf) - n,
				 "&mountport=%llu",
				 (unsigned long long)mountport);
	}
	url = nfs_parse_url_dir(b.nfs, urlbuf);
	if (!url)
		peer_die(PROG, "bad URL %s: %s", urlbuf, nfs_get_error(b.nfs));
	if (nfs_mount(b.nfs, url->server, url->path))
		peer_die(PROG, "mount %s: %s", urlbuf, nfs_get_error(b.nfs));
	nfs_destroy_url(url);
	b.rpc = nfs_get_rpc_context(b.nfs);
	if (b.mode != M_NULL)
		open_file(&b, file, size);
	else
		b.nblk = 1;

	slots = calloc(depth, sizeof(*slots));
	if (!slots)
		peer_die(PROG, "out of memory");
	b.warm_end_ns = peer_now_ns() + (uint64_t)(ro.warm * 1e9);
	b.end_ns = b.warm_end_ns + (uint64_t)(ro.secs * 1e9);
	if (ro.count) {
		b.counted = true;
		b.issue_left = ro.warm_count + ro.count;
		b.warm_ops = ro.warm_count;
		if (!ro.warm_count)
			peer_window_start(&b.w);
	} else if (!ro.warm) {
		peer_window_start(&b.w);
		b.end_ns = b.w.t0_ns + (uint64_t)(ro.secs * 1e9);
		b.warm_end_ns = UINT64_MAX;
	}
	for (i = 0; i < (int)depth && !b.stop && (!ro.count || b.issue_left);
	     i++) {
		slots[i].b = &b;
		issue(&slots[i]);
	}
	while (b.outstanding) {
		struct pollfd pfd = {
			.fd = nfs_get_fd(b.nfs),
			.events = (short)nfs_which_events(b.nfs),
		};

		if (poll(&pfd, 1, 1000) < 0)
			peer_die(PROG, "poll failed");
		if (nfs_service(b.nfs, pfd.revents) < 0)
			peer_die(PROG, "connection failed: %s",
				 nfs_get_error(b.nfs));
	}
	if (b.failed)
		return 1;
	peer_window_stop(&b.w);
	fprintf(stderr,
		PROG ": %s:%s nfsport=%llu mountport=%llu readmax=%llu "
		     "writemax=%llu\n",
		host, export, (unsigned long long)nfsport,
		(unsigned long long)mountport,
		(unsigned long long)nfs_get_readmax(b.nfs),
		(unsigned long long)nfs_get_writemax(b.nfs));
	snprintf(extra, sizeof(extra), "file_blocks=%llu",
		 (unsigned long long)b.nblk);
	peer_print_result(&b.w, "libnfs", mode_names[b.mode],
			  (unsigned int)depth, b.mode == M_NULL ? 0 : b.bs,
			  b.mode == M_NULL ? NULL : extra);
	if (b.fh)
		nfs_close(b.nfs, b.fh);
	nfs_umount(b.nfs);
	nfs_destroy_context(b.nfs);
	free(slots);
	free(b.wbuf);
	return 0;
}

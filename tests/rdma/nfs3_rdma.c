// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3_rdma - NFSv3 over RPC-over-RDMA with our SunRPC client, against
 * the kernel nfsd of the test guest.  Hand-written XDR, a few procedures:
 * just enough to drive every chunk type; the nfs3 library will replace it.
 *
 *   mount     MOUNT v3 over TCP (mountd, port 20048): the export's handle
 *   getattr   GETATTR of the root: a directory
 *   create    CREATE of a test file
 *   write     WRITE large enough that the payload goes in a Read chunk
 *             (the server pulls it from our memory)
 *   read      READ large enough for a Write chunk (the server pushes the
 *             data into our buffer); the bytes must be what was written
 *   read-inl  a small READ whose data comes inline and is placed into the
 *             caller's buffer by the result parser (place())
 *   readdir   READDIR of a directory big enough that the reply needs a
 *             Reply chunk; every entry the test script made is seen
 *   bw        WRITE and READ bandwidth, DEPTH calls of SIZE in flight
 *   pos0      with 1 KiB thresholds, a SYMLINK too large for inline
 *             goes in a position-zero Read chunk (RDMA_NOMSG), READLINK
 *             returns through a Reply chunk, a 2 KiB WRITE uses a Read
 *             chunk
 *   stall     (-T) a READ the server drops times out and is resent only
 *             after a reconnect, with the Write chunk registered once,
 *             and its data arrives
 *
 * Each check prints PASS/FAIL; the RDMA counters show which chunks were
 * used and how their memory was exposed (memory windows by default).  -R
 * per-io selects per-I/O registration, -c the (unsafe) registration
 * cache, to compare their cost.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpc/rpc.h>

#include <libxprt/rdma.h>
#include <libxprt/rpc.h>

#include "nfs3_rdma_xdr.h"

#include "tool.h"

#define MNT_PROG    100005
#define MNT_V3	    3
#define MNTPROC_MNT 1
#define NFS_PROG    100003
#define NFS_V3	    3
#define P_GETATTR   1
#define P_LOOKUP    3
#define P_READ	    6
#define P_WRITE	    7
#define P_CREATE    8
#define P_READLINK  5
#define P_SYMLINK   10
#define P_REMOVE    12
#define P_READDIR   16

static const char *host = "10.0.2.15";
static const char *export_path = "/export";
static const char *dirname_ = "many";
static unsigned int nfs_port = LX_XPRT_RDMA_NFS_PORT, mnt_port = 20048;
static unsigned int expect_entries;
static size_t big = 256 * 1024, bw_size = 256 * 1024;
static unsigned int bw_total_mib = 4, depth = 4;
static bool use_cache;
static enum lx_xprt_rdma_reg_mode reg_mode = LX_XPRT_RDMA_REG_DEFAULT;
/* -X: the mode the connection must end up in (0: any) */
static enum lx_xprt_rdma_reg_mode want_mode;
/* the guest may stall for seconds on a busy host: a long ACK timeout
 * keeps rxe from declaring the peer dead (see lx_xprt_rdma_opts) */
#define TOOL_ACK_TIMEOUT 20
static const struct lx_xprt_rdma_opts stall_ro = {.ack_timeout =
							  TOOL_ACK_TIMEOUT};
static const char *stall_file;

/* ------------------------------------------------------------ calls */

static int call(struct lx_rpc_clnt *cl, uint32_t proc, xdrproc_t enc,
		const void *args, xdrproc_t dec, void *res)
{
	return lx_rpc_call_simple(cl, proc, enc, args, dec, res);
}

static int nfs_write(struct lx_rpc_clnt *cl, struct fh *fh, uint64_t off,
		     const void *data, uint32_t len, struct write_res *res)
{
	struct write_args wa = {.fh = fh, .off = off, .count = len};
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct lx_rpc_call_args a = {
		.proc = P_WRITE,
		.enc = (xdrproc_t)x_write_args,
		.args = &wa,
		.dec = (xdrproc_t)x_write_res,
		.res = res,
		.payload = &iov,
		.npayload = 1,
	};

	memset(res, 0, sizeof(*res));
	return lx_rpc_call_sync(cl, &a, NULL);
}

/* A READ into two buffers: a Write chunk of two segments (two windows,
 * two keys: nfsd 6.1 does not invalidate remotely then). */
static int nfs_read2(struct lx_rpc_clnt *cl, struct fh *fh, uint64_t off,
		     void *b1, void *b2, uint32_t half, struct read_res *res)
{
	struct read_args ra = {.fh = fh, .off = off, .count = 2 * half};
	struct iovec iov[2] = {{.iov_base = b1, .iov_len = half},
			       {.iov_base = b2, .iov_len = half}};
	size_t cap = 2 * (size_t)half;
	struct lx_rpc_call_args a = {
		.proc = P_READ,
		.enc = (xdrproc_t)x_read_args,
		.args = &ra,
		.dec = (xdrproc_t)x_read_res,
		.res = res,
		.place = read_place,
		.place_arg = &cap,
		.rx_iov = iov,
		.rx_iovcnt = 2,
	};

	memset(res, 0, sizeof(*res));
	return lx_rpc_call_sync(cl, &a, NULL);
}

static int nfs_read(struct lx_rpc_clnt *cl, struct fh *fh, uint64_t off,
		    void *buf, uint32_t len, struct read_res *res)
{
	struct read_args ra = {.fh = fh, .off = off, .count = len};
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	size_t cap = len;
	struct lx_rpc_call_args a = {
		.proc = P_READ,
		.enc = (xdrproc_t)x_read_args,
		.args = &ra,
		.dec = (xdrproc_t)x_read_res,
		.res = res,
		.place = read_place,
		.place_arg = &cap,
		.rx_iov = &iov,
		.rx_iovcnt = 1,
	};

	memset(res, 0, sizeof(*res));
	return lx_rpc_call_sync(cl, &a, NULL);
}

/* ------------------------------------------------------------ bandwidth */

struct bw_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int inflight, errors;
	int first_err;
};

struct bw_call {
	struct lx_call call;
	struct bw_state *bs;
	struct write_args wa;
	struct read_args ra;
	struct write_res wres;
	struct read_res rres;
	struct iovec iov;
	size_t cap;
	bool busy;
};

static void bw_done(struct lx_call *c, int status, void *arg)
{
	struct bw_call *bc = arg;
	struct bw_state *bs = bc->bs;

	(void)c;
	if (!status && (bc->wres.status || bc->rres.status))
		status = -EIO;
	pthread_mutex_lock(&bs->lock);
	bs->inflight--;
	bc->busy = false;
	if (status) {
		bs->errors++;
		if (!bs->first_err)
			bs->first_err = status;
	}
	pthread_cond_signal(&bs->cond);
	pthread_mutex_unlock(&bs->lock);
}

/* Move @total bytes in @size calls, @depth in flight.  Return MiB/s. */
static double bw_run(struct lx_rpc_clnt *cl, struct fh *fh, bool write,
		     uint8_t *buf, size_t total, int *err)
{
	struct bw_state bs = {.inflight = 0};
	struct bw_call *calls = calloc(depth, sizeof(*calls));
	size_t off = 0;
	unsigned int i;
	double t0;

	pthread_mutex_init(&bs.lock, NULL);
	pthread_cond_init(&bs.cond, NULL);
	t0 = now_s();
	pthread_mutex_lock(&bs.lock);
	while (off < total || bs.inflight) {
		for (i = 0; i < depth && off < total; i++) {
			struct bw_call *bc = &calls[i];
			struct lx_rpc_call_args a = {0};
			int r;

			if (bc->busy)
				continue;
			bc->bs = &bs;
			bc->busy = true;
			bc->iov.iov_base = buf + (off % (bw_size * depth));
			bc->iov.iov_len = bw_size;
			if (write) {
				bc->wa = (struct write_args){fh, off,
							     (uint32_t)bw_size};
				a.proc = P_WRITE;
				a.enc = (xdrproc_t)x_write_args;
				a.args = &bc->wa;
				a.dec = (xdrproc_t)x_write_res;
				a.res = &bc->wres;
				a.payload = &bc->iov;
				a.npayload = 1;
			} else {
				bc->ra = (struct read_args){fh, off,
							    (uint32_t)bw_size};
				bc->cap = bw_size;
				a.proc = P_READ;
				a.enc = (xdrproc_t)x_read_args;
				a.args = &bc->ra;
				a.dec = (xdrproc_t)x_read_res;
				a.res = &bc->rres;
				a.place = read_place;
				a.place_arg = &bc->cap;
				a.rx_iov = &bc->iov;
				a.rx_iovcnt = 1;
			}
			bs.inflight++;
			off += bw_size;
			pthread_mutex_unlock(&bs.lock);
			bc->call = (struct lx_call){.done = bw_done, .arg = bc};
			r = lx_rpc_call_async(cl, &bc->call, &a);
			pthread_mutex_lock(&bs.lock);
			if (r) {
				bs.inflight--;
				bc->busy = false;
				bs.errors++;
				if (!bs.first_err)
					bs.first_err = r;
			}
		}
		if (bs.inflight)
			pthread_cond_wait(&bs.cond, &bs.lock);
	}
	pthread_mutex_unlock(&bs.lock);
	*err = bs.errors ? (bs.first_err ? bs.first_err : -EIO) : 0;
	free(calls);
	return (double)total / (1 << 20) / (now_s() - t0);
}

/*
 * With 1 KiB inline thresholds (what a server without RFC 8797 parameters
 * gets): a SYMLINK whose 1000-byte target makes the call too large to go
 * inline while it has no bulk payload, so it moves as a whole to a
 * position-zero Read chunk (RDMA_NOMSG); READLINK of it needs a Reply
 * chunk; a 2000-byte WRITE puts its payload in a Read chunk.
 */
static void test_small_inline(struct fh *root)
{
	struct lx_rpc_opts o = {0};
	struct lx_xprt_rdma_opts ro = {.inline_send = 1024,
				       .inline_recv = 1024,
				       .ack_timeout = TOOL_ACK_TIMEOUT};
	struct lx_xprt_rdma_stats s0, s1;
	struct readlink_res *rl = calloc(1, sizeof(*rl));
	struct fh_res lr = {0};
	char target[1001];
	const char *lname = "rdma-long-link";
	struct lx_rpc_clnt *cl;
	uint32_t st = 0;
	int r;

	memset(target, 'x', 1000);
	target[1000] = '\0';
	memcpy(target, "/a/long/", 8);
	o.host = host;
	o.port = (uint16_t)nfs_port;
	o.prog = NFS_PROG;
	o.vers = NFS_V3;
	o.auth.flavor = LX_RPC_AUTH_SYS;
	o.auth.set_ids = true;
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.rdma = &ro;
	r = lx_rpc_create(&cl, &o);
	if (r) {
		report("pos0", false, "client: %s", lx_strerror(r));
		free(rl);
		return;
	}
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	{
		struct symlink_args sa = {{root, lname}, target};

		r = call(cl, P_SYMLINK, (xdrproc_t)x_symlink_args, &sa,
			 (xdrproc_t)x_status_only, &st);
	}
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	report("pos0",
	       !r && !st && s1.pos0_chunks > s0.pos0_chunks &&
		       s1.inline_send == 1024,
	       "SYMLINK with a 1000-byte target, inline %u: %s, status %u, "
	       "position-zero chunks +%llu",
	       s1.inline_send, lx_strerror(r), st,
	       (unsigned long long)(s1.pos0_chunks - s0.pos0_chunks));
	{
		struct diropargs da = {root, lname};

		r = call(cl, P_LOOKUP, (xdrproc_t)x_diropargs, &da,
			 (xdrproc_t)x_lookup_res, &lr);
	}
	if (!r && !lr.status) {
		struct lx_rpc_call_args a = {
			.proc = P_READLINK,
			.enc = (xdrproc_t)x_fh,
			.args = &lr.fh,
			.dec = (xdrproc_t)x_readlink_res,
			.res = rl,
			.reply_hint = 1024 + 256,
		};

		s0 = s1;
		r = lx_rpc_call_sync(cl, &a, NULL);
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
		report("readlink",
		       !r && !rl->status && !strcmp(rl->path, target) &&
			       s1.reply_chunks > s0.reply_chunks,
		       "1000-byte target back through a Reply chunk: %s, "
		       "status %u, %s, reply chunks +%llu",
		       lx_strerror(r), rl->status,
		       strcmp(rl->path, target) ? "differs" : "same",
		       (unsigned long long)(s1.reply_chunks - s0.reply_chunks));
	} else {
		report("readlink", false, "LOOKUP %s: %s, status %u", lname,
		       lx_strerror(r), lr.status);
	}
	{
		uint8_t data[2000];
		struct write_res wr;
		struct create_args ca = {{root, "rdma-small.bin"}, 0644};
		struct fh_res fr = {0};

		memset(data, 0x5a, sizeof(data));
		r = call(cl, P_CREATE, (xdrproc_t)x_create_args, &ca,
			 (xdrproc_t)x_create_res, &fr);
		s0 = s1;
		if (!r && !fr.status && fr.has_fh)
			r = nfs_write(cl, &fr.fh, 0, data, sizeof(data), &wr);
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
		report("write-1k",
		       !r && !wr.status && wr.count == 2000 &&
			       s1.read_chunks > s0.read_chunks,
		       "2000-byte WRITE with a 1 KiB threshold: %s, status %u, "
		       "read chunks +%llu",
		       lx_strerror(r), wr.status,
		       (unsigned long long)(s1.read_chunks - s0.read_chunks));
	}
	{
		struct diropargs da = {root, lname};

		call(cl, P_REMOVE, (xdrproc_t)x_diropargs, &da,
		     (xdrproc_t)x_remove_res, &st);
		da.name = "rdma-small.bin";
		call(cl, P_REMOVE, (xdrproc_t)x_diropargs, &da,
		     (xdrproc_t)x_remove_res, &st);
	}
	lx_rpc_destroy(cl);
	free(rl);
}

/*
 * A call the server drops must time out, and over RDMA the client must not
 * send it again on the same connection: it drops the connection, the
 * reconnect resends it, and once the server answers again it succeeds.
 * The guest test makes nfsd drop calls by freezing mountd and flushing the
 * export cache (nfsd drops a call whose export lookup waits for mountd),
 * when @stall_file appears; it creates @stall_file.ok once stalled and
 * thaws mountd a few seconds later.
 */
static void test_stall(struct fh *root, struct fh *file, const uint8_t *want)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_reply_info info;
	struct attr_res ar = {0};
	struct lx_rpc_call_args a = {
		.proc = P_GETATTR,
		.enc = (xdrproc_t)x_fh,
		.args = root,
		.dec = (xdrproc_t)x_getattr_res,
		.res = &ar,
	};
	/* a READ with a Write chunk: its registration, made once, must
	 * serve the resend on the new connection */
	const size_t len = 65536;
	struct read_args ra = {.fh = file, .off = 0, .count = (uint32_t)len};
	uint8_t *buf = calloc(1, len);
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	size_t cap = len, i, bad = 0;
	struct read_res rr = {0};
	struct lx_rpc_call_args ra_args = {
		.proc = P_READ,
		.enc = (xdrproc_t)x_read_args,
		.args = &ra,
		.dec = (xdrproc_t)x_read_res,
		.res = &rr,
		.place = read_place,
		.place_arg = &cap,
		.rx_iov = &iov,
		.rx_iovcnt = 1,
	};
	struct lx_xprt_rdma_stats rs;
	struct lx_xprt_stats st;
	struct lx_rpc_clnt *cl;
	char ok[512];
	FILE *f;
	double t0;
	int r;

	o.host = host;
	o.port = (uint16_t)nfs_port;
	o.prog = NFS_PROG;
	o.vers = NFS_V3;
	o.auth.flavor = LX_RPC_AUTH_SYS;
	o.auth.set_ids = true;
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.timeo_ms = 500;
	o.timeo_max_ms = 2000;
	o.retrans = 30;
	o.rdma = &stall_ro;
	r = lx_rpc_create(&cl, &o);
	if (!r)
		r = lx_rpc_call_sync(cl, &a,
				     &info); /* warm: the export cached */
	if (r) {
		report("stall", false, "client: %s", lx_strerror(r));
		return;
	}
	snprintf(ok, sizeof(ok), "%s.ok", stall_file);
	f = fopen(stall_file, "w");
	if (f)
		fclose(f);
	t0 = now_s();
	while (!(f = fopen(ok, "r")) && now_s() - t0 < 20)
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	if (f)
		fclose(f);
	t0 = now_s();
	r = lx_rpc_call_sync(cl, &ra_args, &info);
	lx_xprt_stats(lx_rpc_xprt(cl, 0), &st);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &rs);
	for (i = 0; i < len; i++)
		bad += buf[i] != want[i];
	/* registrations serve the resend; windows are tied to their queue
	 * pair: each connection the READ went out on bound a fresh one,
	 * the dead connections' were deallocated, the last was invalidated
	 * by nfsd's reply */
	report("stall",
	       !r && !rr.status && rr.len == len && !bad &&
		       info.retransmits >= 1 && st.disconnects >= 1 &&
		       st.connects >= 2 &&
		       (rs.reg_mode == LX_XPRT_RDMA_REG_WINDOW ?
				rs.write_chunks >= 2 &&
					rs.win_deallocs ==
						rs.write_chunks - 1 &&
					rs.win_live == 0 &&
					rs.win_remote_inv + rs.win_local_inv ==
						1 :
				rs.write_chunks == 1),
	       "64 KiB READ while nfsd drops calls: %s after %.1f s, %zu "
	       "bytes differ, %u retransmission(s), %llu disconnect(s), "
	       "%llu connect(s), write chunks prepared %llu, windows bound "
	       "%llu, deallocated with dead connections %llu, invalidated "
	       "%llu, live %llu",
	       lx_strerror(r), now_s() - t0, bad, info.retransmits,
	       (unsigned long long)st.disconnects,
	       (unsigned long long)st.connects,
	       (unsigned long long)rs.write_chunks,
	       (unsigned long long)rs.win_binds,
	       (unsigned long long)rs.win_deallocs,
	       (unsigned long long)(rs.win_remote_inv + rs.win_local_inv),
	       (unsigned long long)rs.win_live);
	lx_rpc_destroy(cl);
	free(buf);
}

/* ------------------------------------------------------------ main */

static const char *reg_mode_name(enum lx_xprt_rdma_reg_mode m)
{
	switch (m) {
	case LX_XPRT_RDMA_REG_WINDOW:
		return "memory windows";
	case LX_XPRT_RDMA_REG_PER_IO:
		return "per-I/O registration";
	case LX_XPRT_RDMA_REG_CACHE_UNSAFE:
		return "registration cache (unsafe)";
	default:
		return "default";
	}
}

static void print_rdma(struct lx_rpc_clnt *cl, const char *when)
{
	struct lx_xprt_rdma_stats s;

	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s);
	printf("rdma %s: %s, windows bound %llu, invalidated remotely %llu "
	       "locally %llu, deallocated %llu, live %llu, bad invalidations "
	       "%llu\n",
	       when, reg_mode_name(s.reg_mode), (unsigned long long)s.win_binds,
	       (unsigned long long)s.win_remote_inv,
	       (unsigned long long)s.win_local_inv,
	       (unsigned long long)s.win_deallocs,
	       (unsigned long long)s.win_live,
	       (unsigned long long)s.win_bad_inv);
	printf("rdma %s: credits %u, inline %u/%u, chunks read %llu pos0 "
	       "%llu write %llu reply %llu, registrations %llu (%llu "
	       "deregistrations, %llu cache hits, %.1f us each), "
	       "rdma_errors %llu bad_headers %llu\n",
	       when, s.credits, s.inline_send, s.inline_recv,
	       (unsigned long long)s.read_chunks,
	       (unsigned long long)s.pos0_chunks,
	       (unsigned long long)s.write_chunks,
	       (unsigned long long)s.reply_chunks, (unsigned long long)s.regs,
	       (unsigned long long)s.deregs, (unsigned long long)s.reg_hits,
	       s.regs + s.deregs ?
		       (double)s.reg_ns / 1e3 / (double)(s.regs + s.deregs) :
		       0.0,
	       (unsigned long long)s.rdma_errors,
	       (unsigned long long)s.bad_headers);
}

static uint8_t pat(size_t i)
{
	return (uint8_t)(i * 13 + (i >> 9) + 1);
}

int main(int argc, char **argv)
{
	struct lx_rpc_opts o = {0};
	struct lx_xprt_rdma_opts ro = {.ack_timeout = TOOL_ACK_TIMEOUT};
	struct lx_rpc_clnt *mnt, *cl;
	struct mnt_res mr = {0};
	struct attr_res ar = {0};
	struct fh_res fr = {0}, dr = {0};
	struct write_res wr;
	struct read_res rr;
	struct fh root, file, dir;
	struct lx_xprt_rdma_stats s0, s1;
	uint8_t *wbuf, *rbuf, *bw;
	const char *fname = "rdma-test.bin";
	unsigned int total_entries = 0, rounds = 0;
	uint64_t cookie = 0;
	char verf[8] = {0};
	double t0, mibs;
	uint64_t multi_local = 0;
	size_t i, bad;
	int c, r, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "a:p:m:e:d:n:s:S:D:M:cR:X:IT:G:")) !=
	       -1) {
		switch (c) {
		case 'a':
			host = optarg;
			break;
		case 'p':
			nfs_port = (unsigned int)atoi(optarg);
			break;
		case 'm':
			mnt_port = (unsigned int)atoi(optarg);
			break;
		case 'e':
			export_path = optarg;
			break;
		case 'd':
			dirname_ = optarg;
			break;
		case 'n':
			expect_entries = (unsigned int)atoi(optarg);
			break;
		case 's':
			big = (size_t)atol(optarg);
			break;
		case 'S':
			bw_size = (size_t)atol(optarg);
			break;
		case 'D':
			depth = (unsigned int)atoi(optarg);
			break;
		case 'M':
			bw_total_mib = (unsigned int)atoi(optarg);
			break;
		case 'c':
			use_cache = true;
			break;
		case 'R':
			if (!strcmp(optarg, "per-io"))
				reg_mode = LX_XPRT_RDMA_REG_PER_IO;
			else if (!strcmp(optarg, "window"))
				reg_mode = LX_XPRT_RDMA_REG_WINDOW;
			else
				reg_mode = LX_XPRT_RDMA_REG_DEFAULT;
			break;
		case 'I':
			ro.no_remote_inv = true;
			break;
		case 'X':
			want_mode = !strcmp(optarg, "window") ?
					    LX_XPRT_RDMA_REG_WINDOW :
				    !strcmp(optarg, "per-io") ?
					    LX_XPRT_RDMA_REG_PER_IO :
					    LX_XPRT_RDMA_REG_CACHE_UNSAFE;
			break;
		case 'T':
			stall_file = optarg;
			break;
		case 'G':
			ro.max_seg_size = (unsigned int)atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: nfs3_rdma [-a IP] [-p NFS_PORT] [-m "
				"MNT_PORT] [-e EXPORT] [-d DIR -n ENTRIES] "
				"[-s IO_SIZE] [-S BW_SIZE -D DEPTH -M MIB] "
				"[-c | -R per-io|window] [-X EXPECTED_MODE] [-I] "
				"[-T STALL_FILE] [-G MAX_SEG_SIZE]\n");
			return 2;
		}
	}

	/* MOUNT over TCP */
	o.host = host;
	o.port = (uint16_t)mnt_port;
	o.prog = MNT_PROG;
	o.vers = MNT_V3;
	o.auth.flavor = LX_RPC_AUTH_SYS;
	o.auth.set_ids = true;
	r = lx_rpc_create(&mnt, &o);
	if (!r) {
		r = call(mnt, MNTPROC_MNT, (xdrproc_t)x_mnt_args, &export_path,
			 (xdrproc_t)x_mnt_res, &mr);
		lx_rpc_destroy(mnt);
	}
	report("mount", !r && !mr.status,
	       "MNT %s over TCP: %s, status %u, "
	       "handle %u bytes",
	       export_path, lx_strerror(r), mr.status, mr.fh.len);
	if (r || mr.status)
		return 1;
	root = mr.fh;

	/* NFS over RDMA */
	o.port = (uint16_t)nfs_port;
	o.prog = NFS_PROG;
	o.vers = NFS_V3;
	o.transport = LX_XPRT_TRANSPORT_RDMA;
	o.max_reqs = 16;
	o.buf_size = 64 * 1024; /* READDIR replies land here */
	ro.reg_mode = use_cache ? LX_XPRT_RDMA_REG_CACHE_UNSAFE : reg_mode;
	o.rdma = &ro;
	r = lx_rpc_create(&cl, &o);
	if (!r)
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	report("connect", !r && (!want_mode || s0.reg_mode == want_mode),
	       "NFSv3 over RDMA to %s:%u: %s (%s%s)", host, nfs_port,
	       lx_strerror(r), r ? "-" : reg_mode_name(s0.reg_mode),
	       !r && s0.remote_inv_offered ? ", Send With Invalidate offered" :
					     "");
	if (r)
		return 1;

	r = call(cl, P_GETATTR, (xdrproc_t)x_fh, &root,
		 (xdrproc_t)x_getattr_res, &ar);
	report("getattr", !r && !ar.status && ar.type == 2,
	       "root: %s, status %u, type %u", lx_strerror(r), ar.status,
	       ar.type);

	{
		struct create_args ca = {{&root, fname}, 0644};

		r = call(cl, P_CREATE, (xdrproc_t)x_create_args, &ca,
			 (xdrproc_t)x_create_res, &fr);
	}
	if (!r && !fr.status && !fr.has_fh) {
		struct diropargs da = {&root, fname};

		r = call(cl, P_LOOKUP, (xdrproc_t)x_diropargs, &da,
			 (xdrproc_t)x_lookup_res, &fr);
	}
	report("create", !r && !fr.status && fr.has_fh, "%s: %s, status %u",
	       fname, lx_strerror(r), fr.status);
	if (r || fr.status)
		goto out;
	file = fr.fh;

	/* WRITE: a Read chunk */
	wbuf = malloc(big);
	rbuf = malloc(big);
	for (i = 0; i < big; i++)
		wbuf[i] = pat(i);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
	t0 = now_s();
	r = nfs_write(cl, &file, 0, wbuf, (uint32_t)big, &wr);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	report("write",
	       !r && !wr.status && wr.count == big &&
		       s1.read_chunks > s0.read_chunks,
	       "%zu bytes in %.1f ms: %s, status %u, count %u, read chunks "
	       "+%llu",
	       big, (now_s() - t0) * 1e3, lx_strerror(r), wr.status, wr.count,
	       (unsigned long long)(s1.read_chunks - s0.read_chunks));

	/* READ: a Write chunk */
	memset(rbuf, 0, big);
	s0 = s1;
	t0 = now_s();
	r = nfs_read(cl, &file, 0, rbuf, (uint32_t)big, &rr);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	for (bad = 0, i = 0; i < big; i++)
		bad += rbuf[i] != wbuf[i];
	if (s1.remote_inv_offered && s1.win_binds - s0.win_binds > 1)
		multi_local += s1.win_local_inv - s0.win_local_inv;
	report("read",
	       !r && !rr.status && rr.count == big && rr.len == big && !bad &&
		       s1.write_chunks > s0.write_chunks,
	       "%zu bytes in %.1f ms: %s, status %u, count %u, data length "
	       "%u, %zu bytes differ, write chunks +%llu",
	       big, (now_s() - t0) * 1e3, lx_strerror(r), rr.status, rr.count,
	       rr.len, bad,
	       (unsigned long long)(s1.write_chunks - s0.write_chunks));

	/* a READ into two buffers: two windows, two keys */
	if (big >= 8192) {
		size_t half = big / 2;
		uint8_t *b2 = malloc(half);
		/* a window per buffer, or per max_seg_size piece of it */
		uint64_t nseg2 = ro.max_seg_size ?
					 2 * ((half + ro.max_seg_size - 1) /
					      ro.max_seg_size) :
					 2;

		memset(rbuf, 0, big);
		s0 = s1;
		r = nfs_read2(cl, &file, 0, rbuf, b2, (uint32_t)half, &rr);
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
		for (bad = 0, i = 0; i < half; i++)
			bad += rbuf[i] != wbuf[i] || b2[i] != wbuf[half + i];
		report("read-2seg",
		       !r && !rr.status && rr.len == 2 * half && !bad &&
			       (s1.reg_mode != LX_XPRT_RDMA_REG_WINDOW ||
				s1.win_binds - s0.win_binds == nseg2),
		       "%zu bytes into two buffers: %s, status %u, %zu bytes "
		       "differ; windows bound +%llu, invalidated remotely "
		       "+%llu, locally +%llu",
		       2 * half, lx_strerror(r), rr.status, bad,
		       (unsigned long long)(s1.win_binds - s0.win_binds),
		       (unsigned long long)(s1.win_remote_inv -
					    s0.win_remote_inv),
		       (unsigned long long)(s1.win_local_inv -
					    s0.win_local_inv));
		if (s1.remote_inv_offered)
			multi_local += s1.win_local_inv - s0.win_local_inv;
		free(b2);
	}

	/* a small READ: data inline, placed by the result parser */
	memset(rbuf, 0, 2000);
	s0 = s1;
	r = nfs_read(cl, &file, 5, rbuf, 1000, &rr);
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	for (bad = 0, i = 0; i < 1000; i++)
		bad += rbuf[i] != wbuf[i + 5];
	for (i = 1000; i < 2000; i++)
		bad += rbuf[i] != 0; /* nothing past what was asked */
	report("read-inline",
	       !r && !rr.status && rr.len == 1000 && !bad &&
		       s1.write_chunks == s0.write_chunks,
	       "1000 bytes at offset 5: %s, status %u, data length %u, %zu "
	       "bytes wrong, write chunks +%llu",
	       lx_strerror(r), rr.status, rr.len, bad,
	       (unsigned long long)(s1.write_chunks - s0.write_chunks));

	/* READDIR: a Reply chunk */
	{
		struct diropargs da = {&root, dirname_};

		r = call(cl, P_LOOKUP, (xdrproc_t)x_diropargs, &da,
			 (xdrproc_t)x_lookup_res, &dr);
	}
	if (!r && !dr.status) {
		dir = dr.fh;
		s0 = s1;
		do {
			struct readdir_args ra = {&dir, cookie, {0}, 32768};
			struct readdir_res res = {0};
			struct lx_rpc_call_args a = {
				.proc = P_READDIR,
				.enc = (xdrproc_t)x_readdir_args,
				.args = &ra,
				.dec = (xdrproc_t)x_readdir_res,
				.res = &res,
				.reply_hint = 32768 + 512,
			};

			memcpy(ra.verf, verf, 8);
			r = lx_rpc_call_sync(cl, &a, NULL);
			if (r || res.status) {
				r = r ? r : -EIO;
				break;
			}
			memcpy(verf, res.verf, 8);
			total_entries += res.entries;
			cookie = res.last_cookie;
			rounds++;
			if (res.eof)
				break;
		} while (rounds < 100);
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
		report("readdir",
		       !r &&
			       (!expect_entries ||
				total_entries == expect_entries + 2) &&
			       s1.reply_chunks > s0.reply_chunks,
		       "%s: %u entries (with . and ..) in %u call(s), "
		       "expected %u + 2: %s; reply chunks +%llu",
		       dirname_, total_entries, rounds, expect_entries,
		       lx_strerror(r),
		       (unsigned long long)(s1.reply_chunks - s0.reply_chunks));
		if (ro.max_seg_size && !r) {
			/* the 64 KiB receive buffer in segments of at most
			 * max_seg_size, each its own window; nfsd 6.1 sends
			 * With Invalidate only for one distinct key, so
			 * every one is invalidated by us before done() */
			unsigned int segs =
				(unsigned int)((o.buf_size + ro.max_seg_size -
						1) /
					       ro.max_seg_size);
			uint64_t binds = s1.win_binds - s0.win_binds;
			uint64_t local = s1.win_local_inv - s0.win_local_inv;
			uint64_t remote = s1.win_remote_inv - s0.win_remote_inv;
			bool win = s1.reg_mode == LX_XPRT_RDMA_REG_WINDOW;

			if (s1.remote_inv_offered)
				multi_local += local;
			report("readdir-multiseg",
			       segs > 1 && (!win ||
					    (binds == (uint64_t)segs * rounds &&
					     local == binds && !remote &&
					     !s1.win_live)),
			       "Reply chunk of %u segments (%u-byte limit) "
			       "per READDIR, %u calls: windows bound +%llu, "
			       "invalidated locally +%llu remotely +%llu, "
			       "live %llu",
			       segs, ro.max_seg_size, rounds,
			       (unsigned long long)binds,
			       (unsigned long long)local,
			       (unsigned long long)remote,
			       (unsigned long long)s1.win_live);
		}
	} else {
		report("readdir", false, "LOOKUP %s: %s, status %u", dirname_,
		       lx_strerror(r), dr.status);
	}
	print_rdma(cl, "after checks");
	test_small_inline(&root);
	if (stall_file && big >= 65536)
		test_stall(&root, &file, wbuf);

	/* bandwidth */
	if (bw_total_mib) {
		size_t total = (size_t)bw_total_mib << 20;

		bw = malloc(bw_size * depth);
		for (i = 0; i < bw_size * depth; i++)
			bw[i] = pat(i);
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s0);
		mibs = bw_run(cl, &file, true, bw, total, &err);
		report("bw-write", !err,
		       "%u MiB in %zu KiB WRITEs, %u in flight: %.1f MiB/s "
		       "(%s)",
		       bw_total_mib, bw_size >> 10, depth, mibs,
		       lx_strerror(err));
		mibs = bw_run(cl, &file, false, bw, total, &err);
		for (bad = 0, i = 0; i < bw_size * depth; i++)
			bad += bw[i] != pat(i);
		report("bw-read", !err && !bad,
		       "%u MiB in %zu KiB READs, %u in flight: %.1f MiB/s (%s, "
		       "%zu bytes differ)",
		       bw_total_mib, bw_size >> 10, depth, mibs,
		       lx_strerror(err), bad);
		lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
		printf("bandwidth registration: %llu reg+dereg, %.1f us each, "
		       "%llu cache hits\n",
		       (unsigned long long)(s1.regs - s0.regs + s1.deregs -
					    s0.deregs),
		       s1.regs - s0.regs + s1.deregs - s0.deregs ?
			       (double)(s1.reg_ns - s0.reg_ns) / 1e3 /
				       (double)(s1.regs - s0.regs + s1.deregs -
						s0.deregs) :
			       0.0,
		       (unsigned long long)(s1.reg_hits - s0.reg_hits));
		free(bw);
	}
	print_rdma(cl, "at the end");
	lx_xprt_rdma_stats(lx_rpc_xprt(cl, 0), &s1);
	if (s1.reg_mode == LX_XPRT_RDMA_REG_WINDOW)
		/* every window accounted for; who invalidated: the server
		 * for calls with one key when offered, we otherwise */
		report("invalidation",
		       s1.win_live == 0 && s1.win_bad_inv == 0 &&
			       s1.win_remote_inv + s1.win_local_inv +
					       s1.win_deallocs ==
				       s1.win_binds &&
			       (s1.remote_inv_offered ?
					s1.win_remote_inv > 0 &&
						s1.win_local_inv ==
							multi_local :
					s1.win_remote_inv == 0 &&
						s1.win_local_inv ==
							s1.win_binds),
		       "Send With Invalidate %s: %llu windows bound, %llu "
		       "invalidated by nfsd, %llu by us (%llu of calls with "
		       "several keys), %llu deallocated, %llu live",
		       s1.remote_inv_offered ? "offered" : "not offered",
		       (unsigned long long)s1.win_binds,
		       (unsigned long long)s1.win_remote_inv,
		       (unsigned long long)s1.win_local_inv,
		       (unsigned long long)multi_local,
		       (unsigned long long)s1.win_deallocs,
		       (unsigned long long)s1.win_live);
	free(wbuf);
	free(rbuf);
	{
		struct diropargs da = {&root, fname};
		uint32_t st = 0;

		r = call(cl, P_REMOVE, (xdrproc_t)x_diropargs, &da,
			 (xdrproc_t)x_remove_res, &st);
		report("remove", !r && !st, "%s: %s, status %u", fname,
		       lx_strerror(r), st);
	}
out:
	lx_rpc_destroy(cl);
	return fails ? 1 : 0;
}

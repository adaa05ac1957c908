// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3-read: NFSv3 READs of BS bytes at random BS-aligned offsets of one
 * file through libxprt's API, DEPTH of them in flight.
 *
 * lx_nfs3_create(), lx_nfs3_lookup_path() for the file's handle and size,
 * then at DEPTH 1 one blocking lx_nfs3_read() after the other (as p9-read
 * does at DEPTH 1: the caller's thread receives its own reply); deeper,
 * DEPTH calls of lx_nfs3_read_buf_async(), each into a buffer of its own (the
 * library reads the data from the socket straight into it); each
 * completion starts the next READ from its callback, with LX_CALL_NOWAIT
 * as the API asks there, until WARMUP + COUNT READs have been made.
 * Threaded (the default) the callbacks run on the library's receive
 * thread and the main thread sleeps until the last one completes; with
 * --mode caller the client is caller-driven and the main thread runs its
 * loop, lx_nfs3_loop_run() (at DEPTH 1 the blocking READs run it
 * themselves).  No clock is read per call: `make bench-cost` counts this
 * program's instructions and system calls per READ
 * (scripts/bench-cost.py).
 *
 *   cc -o nfs3-read nfs3_read.c $(pkg-config --cflags --libs libxprt)
 *   nfs3-read --port 2049 --mount-port 20048 -f bench.dat -n 10000 127.0.0.1
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cost_util.h"
#include <libxprt/nfs3.h>
#include <libxprt/rdma.h>

struct run {
	struct cost_run run;
	struct lx_nfs3_clnt *clnt;
	struct lx_nfs3_fh fh;
	uint32_t bs;
	uint64_t nblocks;
	atomic_ulong seq; /* draws of the offset sequence */
	struct slot *slots;
};

/* one READ in flight: its call, its result and its buffer */
struct slot {
	struct lx_call call;
	struct lx_nfs3_read_res res;
	struct run *run;
	void *buf;
};

static void read_done(struct lx_call *call, int status, void *arg);

/* a random block: splitmix64 of a counter, safe from any thread */
static uint64_t next_block(struct run *r)
{
	return cost_mix64(atomic_fetch_add(&r->seq, 1) + 1) % r->nblocks;
}

/* Start one READ on @s if any are left; false when none was started. */
static bool start(struct slot *s, unsigned int flags)
{
	struct run *r = s->run;
	int ret;

	if (!cost_claim(&r->run))
		return false;
	s->call.done = read_done;
	s->call.arg = s;
	s->call.flags = flags;
	ret = lx_nfs3_read_buf_async(r->clnt, &s->call, &r->fh,
				     next_block(r) * r->bs, r->bs, s->buf,
				     &s->res);
	if (ret)
		cost_unclaim(&r->run, ret);
	return !ret;
}

static void read_done(struct lx_call *call, int status, void *arg)
{
	struct slot *s = arg;
	struct run *r = s->run;

	if (!status && s->res.count != r->bs)
		status = -EIO; /* short: the file is smaller than it said */
	/* @s is ours again as soon as this runs: it carries the next */
	if (!status)
		start(s, LX_CALL_NOWAIT);
	cost_done(&r->run, status);
}

/* caller mode: the main thread services the client until none is left */
static int drive(void *ctx)
{
	struct run *r = ctx;

	return lx_nfs3_loop_run(r->clnt, NULL, 0, 0);
}

static bool prime(void *ctx, unsigned long i)
{
	struct run *r = ctx;

	return start(&r->slots[i], 0);
}

/* DEPTH 1: one blocking READ after the other, into the first buffer */
static int read_sync(struct run *r, unsigned long n)
{
	struct iovec iov = {.iov_base = r->slots[0].buf, .iov_len = r->bs};
	struct lx_nfs3_read_res res;
	unsigned long i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = lx_nfs3_read(r->clnt, &r->fh, next_block(r) * r->bs,
				   r->bs, &iov, 1, &res);
		if (ret)
			return ret;
		if (res.count != r->bs)
			return -EIO; /* short: the file is smaller than it said */
	}
	return 0;
}

static int run_reads(struct run *r, unsigned long depth, unsigned long n)
{
	return depth == 1 ? read_sync(r, n) :
			    cost_run_calls(&r->run, n, depth, prime, r);
}

/* -r, --reg MODE: how the READ buffers reach the server over RDMA */
struct reg {
	struct lx_xprt_rdma_opts *ro;
	bool bufs; /* window: the buffers registered once */
};

static int reg_opt(void *ctx, int opt, const char *arg)
{
	struct reg *g = ctx;

	if (opt != 'r')
		return -ENOENT;
	if (!strcmp(arg, "cache"))
		g->ro->reg_mode = LX_XPRT_RDMA_REG_CACHE_UNSAFE;
	else if (!strcmp(arg, "per-io"))
		g->ro->reg_mode = LX_XPRT_RDMA_REG_PER_IO;
	else if (!strcmp(arg, "window"))
		g->bufs = true;
	else
		return -EINVAL;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nfs3-read [options] HOST\n"
		"Mount HOST's export and READ COUNT blocks of BS bytes at "
		"random offsets of\nFILE, DEPTH in flight: lx_nfs3_read() one "
		"after the other at DEPTH 1,\nlx_nfs3_read_buf_async() "
		"deeper.\n"
		"  -p, --port N        NFS port (default: ask rpcbind)\n"
		"  -m, --mount-port N  MOUNT port (default: ask rpcbind)\n"
		"  -e, --export PATH   export to mount (default /export)\n"
		"  -t, --transport T   tcp, or rdma: NFS over RPC-over-RDMA, "
		"MOUNT over TCP\n"
		"                      (default tcp)\n"
		"  -r, --reg MODE      over RDMA, how the READ buffers reach "
		"the server: window\n"
		"                      (registered once, a memory window per "
		"READ), per-io\n"
		"                      (a registration per READ) or cache (the "
		"unsafe\n"
		"                      registration cache); default: the "
		"library's (windows,\n"
		"                      the buffers not registered)\n"
		"  -f, --file PATH     file to read, relative to the export "
		"(default\n"
		"                      bench64m.dat)\n"
		"  -b, --bs N          bytes per READ, 1..65536 (default 4096)\n"
		"  -d, --depth N       READs in flight, 1..32 (default 16)\n"
		"  -n, --count N       READs to make (default 10000)\n"
		"  -w, --warmup N      READs made first, not counted "
		"(default 1000)\n" COST_HELP_MODE
		"  -h, --help          this text\n"
		"Prints one line: READs, seconds, READs/s.  Exit status 0, or "
		"1 when a call\nfailed, 2 for a usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COST_OPT_PORT,
		COST_OPT_MOUNTPORT,
		COST_OPT_EXPORT,
		COST_OPT_TRANSPORT,
		{"reg", required_argument, NULL, 'r'},
		COST_OPT_FILE,
		COST_OPT_BS,
		COST_OPT_DEPTH,
		COST_OPT_COUNT,
		COST_OPT_WARMUP,
		COST_OPT_MODE,
		COST_OPT_HELP,
		{NULL, 0, NULL, 0},
	};
	struct cost_opts co = {.export_path = "/export",
			       .file = "bench64m.dat",
			       .bs = 4096,
			       .bs_max = 65536,
			       .depth = 16,
			       .count = 10000,
			       .warmup = 1000};
	unsigned long depth, count, warmup, bs, i;
	const char *file;
	struct lx_nfs3_fattr attr;
	struct lx_xprt_rdma_opts ro = {0};
	struct reg reg = {.ro = &ro};
	struct lx_nfs3_opts o = {0};
	struct run r = {.run = COST_RUN_INIT};
	struct slot *slots = NULL;
	char *bufs = NULL;
	struct lx_xprt_rdma_mem *mem = NULL;
	char errmsg[256] = "";
	double t0, t1;
	int ret;

	ret = cost_parse(argc, argv, "nfs3-read", "p:m:e:t:r:f:b:d:n:w:h",
			 longopts, &co, reg_opt, &reg, usage);
	if (ret >= 0)
		return ret;
	depth = co.depth;
	count = co.count;
	warmup = co.warmup;
	bs = co.bs;
	file = co.file;
	o.export_path = co.export_path;
	if (co.rdma)
		o.transport = LX_XPRT_TRANSPORT_RDMA;
	if (co.caller) {
		o.mode = LX_XPRT_MODE_CALLER;
		r.run.drive = drive;
	}
	o.host = co.host;
	o.nfs_port = (uint16_t)co.port;
	o.mount_port = (uint16_t)co.mount_port;
	o.rdma = &ro;
	o.errmsg = errmsg;
	o.errmsg_len = sizeof(errmsg);
	r.bs = (uint32_t)bs;

	ret = lx_nfs3_create(&r.clnt, &o);
	if (ret) {
		fprintf(stderr, "nfs3-read: mount %s:%s: %s (%s)\n", o.host,
			o.export_path, lx_strerror(ret), errmsg);
		return 1;
	}
	ret = lx_nfs3_lookup_path(r.clnt, file, &r.fh, &attr);
	if (ret) {
		fprintf(stderr, "nfs3-read: %s: %s\n", file, lx_strerror(ret));
		goto out_destroy;
	}
	r.nblocks = attr.size / bs;
	if (!r.nblocks) {
		fprintf(stderr, "nfs3-read: %s is smaller than %lu bytes\n",
			file, bs);
		ret = -EINVAL;
		goto out_destroy;
	}
	slots = calloc(depth, sizeof(*slots));
	bufs = malloc(depth * bs);
	if (!slots || !bufs) {
		fprintf(stderr, "nfs3-read: out of memory\n");
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < depth; i++) {
		slots[i].run = &r;
		slots[i].buf = bufs + i * bs;
	}
	r.slots = slots;
	if (reg.bufs) {
		ret = lx_xprt_rdma_mem_register(bufs, depth * bs, &mem);
		if (ret) {
			fprintf(stderr,
				"nfs3-read: registering the buffers: "
				"%s\n",
				lx_strerror(ret));
			goto out_free;
		}
	}
	ret = run_reads(&r, depth, warmup);
	t0 = now_s();
	if (!ret)
		ret = run_reads(&r, depth, count);
	t1 = now_s();
	if (ret)
		fprintf(stderr, "nfs3-read: READ: %s\n", lx_strerror(ret));
	else
		printf("reads=%lu depth=%lu bs=%lu seconds=%.3f "
		       "reads_per_s=%.0f\n",
		       count, depth, bs, t1 - t0, cost_rate(count, t0, t1));
out_free:
	lx_nfs3_destroy(r.clnt);
	r.clnt = NULL;
	lx_xprt_rdma_mem_unregister(mem);
	free(bufs);
	free(slots);
out_destroy:
	lx_nfs3_destroy(r.clnt);
	return ret ? 1 : 0;
}

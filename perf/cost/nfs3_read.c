// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3-read: NFSv3 READs of BS bytes at random BS-aligned offsets of one
 * file through libxprt's async API, DEPTH of them in flight.
 *
 * lx_nfs3_create(), lx_nfs3_lookup_path() for the file's handle and size, then
 * DEPTH calls of lx_nfs3_read_buf_async(), each into a buffer of its own (the
 * library reads the data from the socket straight into it); each
 * completion (on the library's receive thread) starts the next READ from
 * its callback, with LX_CALL_NOWAIT as the API asks there, until
 * WARMUP + COUNT READs have been made; the main thread sleeps until the
 * last one completes.  No clock is read per call: `make bench-cost`
 * counts this program's instructions and system calls per READ
 * (scripts/bench-cost.py).
 *
 *   cc -o nfs3-read nfs3_read.c $(pkg-config --cflags --libs libxprt)
 *   nfs3-read --port 2049 --mount-port 20048 -f bench.dat -n 10000 127.0.0.1
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost_util.h"
#include <libxprt/nfs3.h>
#include <libxprt/rdma.h>

struct run {
	struct lx_nfs3_clnt *clnt;
	struct lx_nfs3_fh fh;
	uint32_t bs;
	uint64_t nblocks;
	atomic_ulong seq;      /* draws of the offset sequence */
	atomic_ulong to_issue; /* calls not started yet */
	atomic_ulong active;   /* calls started and not completed */
	atomic_int err;	       /* first failure */
	pthread_mutex_t lock;
	pthread_cond_t idle; /* signalled when active drops to 0 */
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
	unsigned long left = atomic_load(&r->to_issue);
	int ret;

	do {
		if (!left || atomic_load(&r->err))
			return false;
	} while (!atomic_compare_exchange_weak(&r->to_issue, &left, left - 1));
	s->call.done = read_done;
	s->call.arg = s;
	s->call.flags = flags;
	atomic_fetch_add(&r->active, 1);
	ret = lx_nfs3_read_buf_async(r->clnt, &s->call, &r->fh,
				     next_block(r) * r->bs, r->bs, s->buf,
				     &s->res);
	if (ret) {
		/* with DEPTH below the client's max_reqs a slot is always
		 * free, so a failure here is a real one */
		atomic_store(&r->err, ret);
		atomic_fetch_sub(&r->active, 1);
		return false;
	}
	return true;
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
	else
		atomic_store(&r->err, status);
	if (atomic_fetch_sub(&r->active, 1) == 1) {
		pthread_mutex_lock(&r->lock);
		pthread_cond_signal(&r->idle);
		pthread_mutex_unlock(&r->lock);
	}
}

/* @n calls, @depth in flight; returns when all have completed */
static int run_calls(struct run *r, struct slot *slots, unsigned long depth,
		     unsigned long n)
{
	unsigned long i;

	atomic_store(&r->to_issue, n);
	for (i = 0; i < depth; i++)
		if (!start(&slots[i], 0))
			break;
	pthread_mutex_lock(&r->lock);
	while (atomic_load(&r->active))
		pthread_cond_wait(&r->idle, &r->lock);
	pthread_mutex_unlock(&r->lock);
	return atomic_load(&r->err);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nfs3-read [options] HOST\n"
		"Mount HOST's export and READ COUNT blocks of BS bytes at "
		"random offsets of\nFILE with lx_nfs3_read_buf_async(), DEPTH in "
		"flight.\n"
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
		"(default 1000)\n"
		"  -h, --help          this text\n"
		"Prints one line: READs, seconds, READs/s.  Exit status 0, or "
		"1 when a call\nfailed, 2 for a usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"port", required_argument, NULL, 'p'},
		{"mount-port", required_argument, NULL, 'm'},
		{"export", required_argument, NULL, 'e'},
		{"transport", required_argument, NULL, 't'},
		{"reg", required_argument, NULL, 'r'},
		{"file", required_argument, NULL, 'f'},
		{"bs", required_argument, NULL, 'b'},
		{"depth", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'n'},
		{"warmup", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long port = 0, mport = 0, depth = 16, count = 10000;
	unsigned long warmup = 1000, bs = 4096, i;
	const char *file = "bench64m.dat";
	struct lx_nfs3_fattr attr;
	struct lx_xprt_rdma_opts ro = {0};
	struct lx_nfs3_opts o = {.export_path = "/export"};
	struct run r = {.lock = PTHREAD_MUTEX_INITIALIZER,
			.idle = PTHREAD_COND_INITIALIZER};
	struct slot *slots = NULL;
	char *bufs = NULL;
	struct lx_xprt_rdma_mem *mem = NULL;
	bool reg_bufs = false;
	char errmsg[256] = "";
	double t0, t1;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "p:m:e:t:r:f:b:d:n:w:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'p':
			ret = parse_num(optarg, 65535, &port);
			break;
		case 'm':
			ret = parse_num(optarg, 65535, &mport);
			break;
		case 'e':
			o.export_path = optarg;
			ret = 0;
			break;
		case 't':
			ret = 0;
			if (!strcmp(optarg, "rdma"))
				o.transport = LX_XPRT_TRANSPORT_RDMA;
			else if (strcmp(optarg, "tcp"))
				ret = -EINVAL;
			break;
		case 'r':
			ret = 0;
			if (!strcmp(optarg, "cache"))
				ro.reg_mode = LX_XPRT_RDMA_REG_CACHE_UNSAFE;
			else if (!strcmp(optarg, "per-io"))
				ro.reg_mode = LX_XPRT_RDMA_REG_PER_IO;
			else if (!strcmp(optarg, "window"))
				reg_bufs = true;
			else
				ret = -EINVAL;
			break;
		case 'f':
			file = optarg;
			ret = 0;
			break;
		case 'b':
			ret = parse_num(optarg, 65536, &bs);
			if (!bs)
				ret = -EINVAL;
			break;
		case 'd':
			ret = parse_num(optarg, 32, &depth);
			if (!depth)
				ret = -EINVAL;
			break;
		case 'n':
			ret = parse_num(optarg, 1ul << 40, &count);
			break;
		case 'w':
			ret = parse_num(optarg, 1ul << 40, &warmup);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (ret) {
			fprintf(stderr, "nfs3-read: bad value '%s'\n", optarg);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	o.host = argv[optind];
	o.nfs_port = (uint16_t)port;
	o.mount_port = (uint16_t)mport;
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
	if (reg_bufs) {
		ret = lx_xprt_rdma_mem_register(bufs, depth * bs, &mem);
		if (ret) {
			fprintf(stderr,
				"nfs3-read: registering the buffers: "
				"%s\n",
				lx_strerror(ret));
			goto out_free;
		}
	}
	ret = run_calls(&r, slots, depth, warmup);
	t0 = now_s();
	if (!ret)
		ret = run_calls(&r, slots, depth, count);
	t1 = now_s();
	if (ret)
		fprintf(stderr, "nfs3-read: READ: %s\n", lx_strerror(ret));
	else
		printf("reads=%lu depth=%lu bs=%lu seconds=%.3f "
		       "reads_per_s=%.0f\n",
		       count, depth, bs, t1 - t0,
		       t1 > t0 ? (double)count / (t1 - t0) : 0.0);
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

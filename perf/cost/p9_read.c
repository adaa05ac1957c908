// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p9-read: 9P2000.L Treads of BS bytes at random BS-aligned offsets of one
 * file through libxprt, DEPTH of them in flight.
 *
 * lx_p9_create() (Tversion, Tattach), lx_p9_open_path() (Twalk, Tlopen) and
 * lx_p9_stat_path() for the size; then, at DEPTH 1, the blocking lx_p9_read()
 * WARMUP + COUNT times; deeper, DEPTH calls of lx_p9_read_async(), each into
 * a buffer of its own (the library reads the data from the socket straight
 * into it), each completion (on the library's receive thread) starting the
 * next Tread from its callback with LX_CALL_NOWAIT, as the API asks there,
 * while the main thread sleeps until the last one completes.  No clock is
 * read per call: `make bench-cost` counts this program's instructions and
 * system calls per Tread (scripts/bench-cost.py).
 *
 *   cc -o p9-read p9_read.c $(pkg-config --cflags --libs libxprt)
 *   p9-read -p 564 -a /srv/export -f bench.dat -d 16 -n 10000 127.0.0.1
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost_util.h"
#include <libxprt/p9.h>

struct run {
	struct lx_p9_clnt *clnt;
	uint32_t fid, bs;
	uint64_t nblocks;
	atomic_ulong seq;      /* draws of the offset sequence */
	atomic_ulong to_issue; /* Treads not started yet */
	atomic_ulong active;   /* Treads started and not completed */
	atomic_int err;	       /* first failure */
	pthread_mutex_t lock;
	pthread_cond_t idle; /* signalled when active drops to 0 */
};

/* one async Tread in flight: its buffer */
struct slot {
	struct lx_call call;
	struct run *run;
	void *buf;
};

/* a random block: splitmix64 of a counter, safe from any thread */
static uint64_t next_block(struct run *r)
{
	return cost_mix64(atomic_fetch_add(&r->seq, 1) + 1) % r->nblocks;
}

/* DEPTH 1: one blocking Tread after the other */
static int read_sync(struct run *r, void *buf, unsigned long n)
{
	unsigned long i;
	uint32_t got;
	int ret;

	for (i = 0; i < n; i++) {
		ret = lx_p9_read(r->clnt, r->fid, next_block(r) * r->bs, r->bs,
				 buf, &got);
		if (ret)
			return ret;
		if (got != r->bs)
			return -EIO; /* short: the file is smaller than it said */
	}
	return 0;
}

static void read_done(struct lx_call *call, int status, void *arg);

/* Start one Tread on @s if any are left; false when none was started. */
static bool start(struct slot *s, unsigned int flags)
{
	struct run *r = s->run;
	unsigned long left = atomic_load(&r->to_issue);
	int ret;

	do {
		if (!left || atomic_load(&r->err))
			return false;
	} while (!atomic_compare_exchange_weak(&r->to_issue, &left, left - 1));
	atomic_fetch_add(&r->active, 1);
	s->call.done = read_done;
	s->call.arg = s;
	s->call.flags = flags;
	ret = lx_p9_read_async(r->clnt, &s->call, r->fid, next_block(r) * r->bs,
			       r->bs, s->buf);
	if (ret) {
		/* with DEPTH below the client's max_reqs a tag is always
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

	if (!status && call->count != r->bs)
		status = -EIO;
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

/* @n Treads, @depth in flight; returns when all have completed */
static int read_async(struct run *r, struct slot *slots, unsigned long depth,
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

static int run_reads(struct run *r, struct slot *slots, unsigned long depth,
		     unsigned long n)
{
	return depth == 1 ? read_sync(r, slots[0].buf, n) :
			    read_async(r, slots, depth, n);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: p9-read [options] HOST\n"
		"Attach to HOST's 9P2000.L tree and Tread COUNT blocks of BS "
		"bytes at random\noffsets of FILE, DEPTH in flight: lx_p9_read() "
		"at DEPTH 1, lx_p9_read_async() above.\n"
		"  -p, --port N        9P port (default 564)\n"
		"  -a, --aname PATH    tree to attach (diod: the exported "
		"directory; required)\n"
		"  -f, --file PATH     file to read, relative to the tree "
		"(default bench64m.dat)\n"
		"  -b, --bs N          bytes per Tread, 1..65000 (default "
		"4096)\n"
		"  -d, --depth N       Treads in flight, 1..32 (default 1)\n"
		"  -n, --count N       Treads to make (default 10000)\n"
		"  -w, --warmup N      Treads made first, not counted "
		"(default 1000)\n"
		"  -s, --shared-pool   buffers from a shared pool (buf_size 0) "
		"instead of\n"
		"                      the session's own\n"
		"  -h, --help          this text\n"
		"Prints one line: Treads, seconds, Treads/s.  Exit status 0, "
		"or 1 when a call\nfailed, 2 for a usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"port", required_argument, NULL, 'p'},
		{"aname", required_argument, NULL, 'a'},
		{"file", required_argument, NULL, 'f'},
		{"bs", required_argument, NULL, 'b'},
		{"depth", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'n'},
		{"warmup", required_argument, NULL, 'w'},
		{"shared-pool", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long port = 0, depth = 1, count = 10000, warmup = 1000;
	unsigned long bs = 4096, i;
	const char *file = "bench64m.dat";
	struct run r = {.lock = PTHREAD_MUTEX_INITIALIZER,
			.idle = PTHREAD_COND_INITIALIZER};
	struct lx_p9_opts o = {0};
	struct lx_xprt_pool_opts spo = {.max_bytes = 16u << 20};
	struct lx_xprt_pool *spool = NULL;
	struct slot *slots = NULL;
	struct lx_p9_attr attr;
	char errbuf[256] = "";
	char *bufs = NULL;
	double t0, t1;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "p:a:f:b:d:n:w:sh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'p':
			ret = parse_num(optarg, 65535, &port);
			break;
		case 'a':
			o.aname = optarg;
			ret = 0;
			break;
		case 'f':
			file = optarg;
			ret = 0;
			break;
		case 'b':
			ret = parse_num(optarg, 65000, &bs);
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
		case 's':
			/* the buffers from a shared pool (buf_size 0): what a
			 * call costs when they come and go per call */
			ret = lx_xprt_pool_create(&spool, &spo);
			o.pool = spool;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (ret) {
			fprintf(stderr, "p9-read: bad value '%s'\n", optarg);
			return 2;
		}
	}
	if (optind != argc - 1 || !o.aname) {
		usage(stderr);
		return 2;
	}
	o.host = argv[optind];
	o.port = (uint16_t)port;
	o.errbuf = errbuf;
	o.errbuf_len = sizeof(errbuf);
	r.bs = (uint32_t)bs;

	ret = lx_p9_create(&r.clnt, &o);
	if (ret) {
		fprintf(stderr, "p9-read: %s aname %s: %s (%s)\n", o.host,
			o.aname, lx_strerror(ret), errbuf);
		return 1;
	}
	ret = lx_p9_stat_path(r.clnt, file, LX_P9_GETATTR_SIZE, &attr);
	if (!ret)
		ret = lx_p9_open_path(r.clnt, file, O_RDONLY, 0, &r.fid, NULL);
	if (ret) {
		fprintf(stderr, "p9-read: %s: %s\n", file, lx_strerror(ret));
		goto out_close;
	}
	r.nblocks = attr.size / bs;
	if (!r.nblocks || bs > lx_p9_iosize(r.clnt)) {
		fprintf(stderr,
			"p9-read: %s is smaller than %lu bytes, or %lu is "
			"above msize - 24\n",
			file, bs, bs);
		ret = -EINVAL;
		goto out_clunk;
	}
	slots = calloc(depth, sizeof(*slots));
	bufs = malloc(depth * bs);
	if (!slots || !bufs) {
		fprintf(stderr, "p9-read: out of memory\n");
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < depth; i++) {
		slots[i].run = &r;
		slots[i].buf = bufs + i * bs;
	}
	ret = run_reads(&r, slots, depth, warmup);
	t0 = now_s();
	if (!ret)
		ret = run_reads(&r, slots, depth, count);
	t1 = now_s();
	if (ret)
		fprintf(stderr, "p9-read: Tread: %s\n", lx_strerror(ret));
	else
		printf("reads=%lu depth=%lu bs=%lu seconds=%.3f "
		       "reads_per_s=%.0f\n",
		       count, depth, bs, t1 - t0,
		       t1 > t0 ? (double)count / (t1 - t0) : 0.0);
out_free:
	free(bufs);
	free(slots);
out_clunk:
	lx_p9_clunk(r.clnt, r.fid);
out_close:
	lx_p9_destroy(r.clnt);
	lx_xprt_pool_destroy(spool); /* after the client (NULL: none) */
	return ret ? 1 : 0;
}

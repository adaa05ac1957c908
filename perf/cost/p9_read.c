// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p9-read: 9P2000.L Treads of BS bytes at random BS-aligned offsets of one
 * file through libxprt, DEPTH of them in flight.
 *
 * lx_p9_create() (Tversion, Tattach), lx_p9_open_path() (Twalk, Tlopen) and
 * lx_p9_stat_path() for the size; then, at DEPTH 1, the blocking lx_p9_read()
 * WARMUP + COUNT times; deeper, DEPTH calls of lx_p9_read_async(), each into
 * a buffer of its own (the library reads the data from the socket straight
 * into it), each completion starting the next Tread from its callback with
 * LX_CALL_NOWAIT, as the API asks there.  Threaded (the default) the
 * callbacks run on the library's receive thread while the main thread
 * sleeps until the last one completes; with --mode caller the session is
 * caller-driven and the main thread runs its loop, lx_p9_loop_run() (at
 * DEPTH 1 the blocking Treads run it themselves).  No clock is read per
 * call: `make bench-cost` counts this program's instructions and system
 * calls per Tread (scripts/bench-cost.py).
 *
 *   cc -o p9-read p9_read.c $(pkg-config --cflags --libs libxprt)
 *   p9-read -p 564 -a /srv/export -f bench.dat -d 16 -n 10000 127.0.0.1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "cost_util.h"
#include <libxprt/p9.h>

struct run {
	struct cost_run run;
	struct lx_p9_clnt *clnt;
	uint32_t fid, bs;
	uint64_t nblocks;
	atomic_ulong seq; /* draws of the offset sequence */
	struct slot *slots;
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
	int ret;

	if (!cost_claim(&r->run))
		return false;
	s->call.done = read_done;
	s->call.arg = s;
	s->call.flags = flags;
	ret = lx_p9_read_async(r->clnt, &s->call, r->fid, next_block(r) * r->bs,
			       r->bs, s->buf);
	if (ret)
		cost_unclaim(&r->run, ret);
	return !ret;
}

static void read_done(struct lx_call *call, int status, void *arg)
{
	struct slot *s = arg;
	struct run *r = s->run;

	if (!status && call->count != r->bs)
		status = -EIO;
	if (!status)
		start(s, LX_CALL_NOWAIT);
	cost_done(&r->run, status);
}

/* caller mode: the main thread services the session until none is left */
static int drive(void *ctx)
{
	struct run *r = ctx;

	return lx_p9_loop_run(r->clnt, NULL, 0, 0);
}

static bool prime(void *ctx, unsigned long i)
{
	struct run *r = ctx;

	return start(&r->slots[i], 0);
}

static int run_reads(struct run *r, unsigned long depth, unsigned long n)
{
	return depth == 1 ? read_sync(r, r->slots[0].buf, n) :
			    cost_run_calls(&r->run, n, depth, prime, r);
}

/* p9-read's own options: -a, --aname; -s, --shared-pool */
struct own {
	struct lx_p9_opts *o;
	struct lx_xprt_pool_opts spo;
	struct lx_xprt_pool *spool;
};

static int own_opt(void *ctx, int opt, const char *arg)
{
	struct own *w = ctx;
	int ret;

	switch (opt) {
	case 'a':
		w->o->aname = arg;
		return 0;
	case 's':
		/* the buffers from a shared pool (buf_size 0): what a call
		 * costs when they come and go per call */
		ret = lx_xprt_pool_create(&w->spool, &w->spo);
		w->o->pool = w->spool;
		return ret;
	default:
		return -ENOENT;
	}
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
		"                      the session's own\n" COST_HELP_MODE
		"  -h, --help          this text\n"
		"Prints one line: Treads, seconds, Treads/s.  Exit status 0, "
		"or 1 when a call\nfailed, 2 for a usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COST_OPT_PORT,	    {"aname", required_argument, NULL, 'a'},
		COST_OPT_FILE,	    COST_OPT_BS,
		COST_OPT_DEPTH,	    COST_OPT_COUNT,
		COST_OPT_WARMUP,    {"shared-pool", no_argument, NULL, 's'},
		COST_OPT_MODE,	    COST_OPT_HELP,
		{NULL, 0, NULL, 0},
	};
	struct cost_opts co = {.file = "bench64m.dat",
			       .bs = 4096,
			       .bs_max = 65000,
			       .depth = 1,
			       .count = 10000,
			       .warmup = 1000};
	unsigned long depth, count, warmup, bs, i;
	const char *file;
	struct run r = {.run = COST_RUN_INIT};
	struct lx_p9_opts o = {0};
	struct own own = {.o = &o, .spo = {.max_bytes = 16u << 20}};
	struct slot *slots = NULL;
	struct lx_p9_attr attr;
	char errbuf[256] = "";
	char *bufs = NULL;
	double t0, t1;
	int ret;

	ret = cost_parse(argc, argv, "p9-read", "p:a:f:b:d:n:w:sh", longopts,
			 &co, own_opt, &own, usage);
	if (ret < 0 && !o.aname) {
		usage(stderr);
		ret = 2;
	}
	if (ret >= 0) {
		lx_xprt_pool_destroy(own.spool); /* NULL: none */
		return ret;
	}
	depth = co.depth;
	count = co.count;
	warmup = co.warmup;
	bs = co.bs;
	file = co.file;
	o.host = co.host;
	o.port = (uint16_t)co.port;
	if (co.caller) {
		o.mode = LX_XPRT_MODE_CALLER;
		r.run.drive = drive;
	}
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
	r.slots = slots;
	ret = run_reads(&r, depth, warmup);
	t0 = now_s();
	if (!ret)
		ret = run_reads(&r, depth, count);
	t1 = now_s();
	if (ret)
		fprintf(stderr, "p9-read: Tread: %s\n", lx_strerror(ret));
	else
		printf("reads=%lu depth=%lu bs=%lu seconds=%.3f "
		       "reads_per_s=%.0f\n",
		       count, depth, bs, t1 - t0, cost_rate(count, t0, t1));
out_free:
	free(bufs);
	free(slots);
out_clunk:
	lx_p9_clunk(r.clnt, r.fid);
out_close:
	lx_p9_destroy(r.clnt);
	lx_xprt_pool_destroy(own.spool); /* after the client (NULL: none) */
	return ret ? 1 : 0;
}

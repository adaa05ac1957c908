// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3-null-async: NFSv3 NULL calls through libxprt's async API, DEPTH of
 * them in flight on one connection.
 *
 * lx_nfs3_create(), then DEPTH calls of lx_nfs3_null_async(); each completion
 * starts the next call from its callback, with LX_CALL_NOWAIT as the API
 * asks there, until WARMUP + COUNT calls have been made.  Threaded (the
 * default) the callbacks run on the library's receive thread and the main
 * thread sleeps until the last one completes; with --mode caller the
 * client is caller-driven and the main thread runs its loop,
 * lx_nfs3_loop_run(), the callbacks inside it.  No clock is read per
 * call: `make bench-cost` counts this program's instructions and system
 * calls per call (scripts/bench-cost.py).
 *
 *   cc -o nfs3-null-async nfs3_null_async.c \
 *       $(pkg-config --cflags --libs libxprt)
 *   nfs3-null-async --port 2049 --mount-port 20048 -d 16 -n 10000 127.0.0.1
 */
#include <stdio.h>
#include <stdlib.h>

#include "cost_util.h"
#include <libxprt/nfs3.h>

struct run {
	struct cost_run run;
	struct lx_nfs3_clnt *clnt;
	struct lx_call *calls;
};

static void null_done(struct lx_call *call, int status, void *arg);

/* Start one call on @call if any are left; false when none was started. */
static bool start(struct run *r, struct lx_call *call, unsigned int flags)
{
	int ret;

	if (!cost_claim(&r->run))
		return false;
	call->done = null_done;
	call->arg = r;
	call->flags = flags;
	ret = lx_nfs3_null_async(r->clnt, call);
	if (ret)
		cost_unclaim(&r->run, ret);
	return !ret;
}

static void null_done(struct lx_call *call, int status, void *arg)
{
	struct run *r = arg;

	/* @call is ours again as soon as this runs: it carries the next */
	if (!status)
		start(r, call, LX_CALL_NOWAIT);
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

	return start(r, &r->calls[i], 0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nfs3-null-async [options] HOST\n"
		"Mount HOST's export and make COUNT NFSv3 NULL calls with "
		"lx_nfs3_null_async(),\nDEPTH in flight.\n"
		"  -p, --port N        NFS port (default: ask rpcbind)\n"
		"  -m, --mount-port N  MOUNT port (default: ask rpcbind)\n"
		"  -e, --export PATH   export to mount (default /export)\n"
		"  -d, --depth N       calls in flight, 1..32 (default 16)\n"
		"  -n, --count N       calls to make (default 10000)\n"
		"  -w, --warmup N      calls made first, not counted "
		"(default 1000)\n" COST_HELP_MODE
		"  -h, --help          this text\n"
		"Prints one line: calls, seconds, calls/s.  Exit status 0, or "
		"1 when a call\nfailed, 2 for a usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COST_OPT_PORT,	COST_OPT_MOUNTPORT, COST_OPT_EXPORT,
		COST_OPT_DEPTH, COST_OPT_COUNT,	    COST_OPT_WARMUP,
		COST_OPT_MODE,	COST_OPT_HELP,	    {NULL, 0, NULL, 0},
	};
	struct cost_opts co = {.export_path = "/export",
			       .depth = 16,
			       .count = 10000,
			       .warmup = 1000};
	unsigned long depth, count, warmup;
	struct lx_nfs3_opts o = {0};
	struct run r = {.run = COST_RUN_INIT};
	char errmsg[256] = "";
	double t0, t1;
	int ret;

	ret = cost_parse(argc, argv, "nfs3-null-async", "p:m:e:d:n:w:h",
			 longopts, &co, NULL, NULL, usage);
	if (ret >= 0)
		return ret;
	depth = co.depth;
	count = co.count;
	warmup = co.warmup;
	o.export_path = co.export_path;
	if (co.caller) {
		o.mode = LX_XPRT_MODE_CALLER;
		r.run.drive = drive;
	}
	o.host = co.host;
	o.nfs_port = (uint16_t)co.port;
	o.mount_port = (uint16_t)co.mount_port;
	o.errmsg = errmsg;
	o.errmsg_len = sizeof(errmsg);
	r.calls = calloc(depth, sizeof(*r.calls));
	if (!r.calls) {
		fprintf(stderr, "nfs3-null-async: out of memory\n");
		return 1;
	}

	ret = lx_nfs3_create(&r.clnt, &o);
	if (ret) {
		fprintf(stderr, "nfs3-null-async: mount %s:%s: %s (%s)\n",
			o.host, o.export_path, lx_strerror(ret), errmsg);
		free(r.calls);
		return 1;
	}
	ret = cost_run_calls(&r.run, warmup, depth, prime, &r);
	t0 = now_s();
	if (!ret)
		ret = cost_run_calls(&r.run, count, depth, prime, &r);
	t1 = now_s();
	lx_nfs3_destroy(r.clnt);
	free(r.calls);
	if (ret) {
		fprintf(stderr, "nfs3-null-async: NULL call: %s\n",
			lx_strerror(ret));
		return 1;
	}
	printf("calls=%lu depth=%lu seconds=%.3f calls_per_s=%.0f\n", count,
	       depth, t1 - t0, cost_rate(count, t0, t1));
	return 0;
}

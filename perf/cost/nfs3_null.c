// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3-null: synchronous NFSv3 NULL calls through libxprt, one at a time.
 *
 * The smallest program on the public API: lx_nfs3_create(), then lx_nfs3_null()
 * COUNT times, then lx_nfs3_destroy().  It is what `make bench-cost` counts
 * the instructions and system calls of (scripts/bench-cost.py): nothing in
 * the loop but the library call, so the per-call difference between two
 * counts is the library's own cost.  --mode caller creates the client
 * caller-driven (LX_XPRT_MODE_CALLER): each lx_nfs3_null() then runs the
 * client's loop on the calling thread until its reply is in.
 *
 *   cc -o nfs3-null nfs3_null.c $(pkg-config --cflags --libs libxprt)
 *   nfs3-null --port 2049 --mount-port 20048 -n 10000 127.0.0.1
 */
#include <stdio.h>

#include "cost_util.h"
#include <libxprt/nfs3.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nfs3-null [options] HOST\n"
		"Mount HOST's export and make COUNT synchronous NFSv3 NULL "
		"calls (lx_nfs3_null()).\n"
		"  -p, --port N        NFS port (default: ask rpcbind)\n"
		"  -m, --mount-port N  MOUNT port (default: ask rpcbind)\n"
		"  -e, --export PATH   export to mount (default /export)\n"
		"  -t, --transport T   tcp, or rdma: NFS over RPC-over-RDMA, "
		"MOUNT over TCP\n"
		"                      (default tcp)\n"
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
		COST_OPT_PORT,	    COST_OPT_MOUNTPORT, COST_OPT_EXPORT,
		COST_OPT_TRANSPORT, COST_OPT_COUNT,	COST_OPT_WARMUP,
		COST_OPT_MODE,	    COST_OPT_HELP,	{NULL, 0, NULL, 0},
	};
	struct cost_opts co = {
		.export_path = "/export", .count = 10000, .warmup = 1000};
	unsigned long count, warmup, i;
	struct lx_nfs3_opts o = {0};
	struct lx_nfs3_clnt *c;
	char errmsg[256] = "";
	double t0, t1;
	int ret;

	ret = cost_parse(argc, argv, "nfs3-null", "p:m:e:t:n:w:h", longopts,
			 &co, NULL, NULL, usage);
	if (ret >= 0)
		return ret;
	count = co.count;
	warmup = co.warmup;
	o.export_path = co.export_path;
	if (co.rdma)
		o.transport = LX_XPRT_TRANSPORT_RDMA;
	if (co.caller)
		o.mode = LX_XPRT_MODE_CALLER;
	o.host = co.host;
	o.nfs_port = (uint16_t)co.port;
	o.mount_port = (uint16_t)co.mount_port;
	o.errmsg = errmsg;
	o.errmsg_len = sizeof(errmsg);

	ret = lx_nfs3_create(&c, &o);
	if (ret) {
		fprintf(stderr, "nfs3-null: mount %s:%s: %s (%s)\n", o.host,
			o.export_path, lx_strerror(ret), errmsg);
		return 1;
	}
	for (i = 0; i < warmup && !ret; i++)
		ret = lx_nfs3_null(c);
	t0 = now_s();
	for (i = 0; i < count && !ret; i++)
		ret = lx_nfs3_null(c);
	t1 = now_s();
	lx_nfs3_destroy(c);
	if (ret) {
		fprintf(stderr, "nfs3-null: NULL call: %s\n", lx_strerror(ret));
		return 1;
	}
	printf("calls=%lu seconds=%.3f calls_per_s=%.0f\n", count, t1 - t0,
	       cost_rate(count, t0, t1));
	return 0;
}

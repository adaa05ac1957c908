// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3-null: synchronous NFSv3 NULL calls through libxprt, one at a time.
 *
 * The smallest program on the public API: lx_nfs3_create(), then lx_nfs3_null()
 * COUNT times, then lx_nfs3_destroy().  It is what `make bench-cost` counts
 * the instructions and system calls of (scripts/bench-cost.py): nothing in
 * the loop but the library call, so the per-call difference between two
 * counts is the library's own cost.
 *
 *   cc -o nfs3-null nfs3_null.c $(pkg-config --cflags --libs libxprt)
 *   nfs3-null --port 2049 --mount-port 20048 -n 10000 127.0.0.1
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		"(default 1000)\n"
		"  -h, --help          this text\n"
		"Prints one line: calls, seconds, calls/s.  Exit status 0, or "
		"1 when a call\nfailed, 2 for a usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"port", required_argument, NULL, 'p'},
		{"mount-port", required_argument, NULL, 'm'},
		{"export", required_argument, NULL, 'e'},
		{"transport", required_argument, NULL, 't'},
		{"count", required_argument, NULL, 'n'},
		{"warmup", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long port = 0, mport = 0, count = 10000, warmup = 1000, i;
	struct lx_nfs3_opts o = {.export_path = "/export"};
	struct lx_nfs3_clnt *c;
	char errmsg[256] = "";
	double t0, t1;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "p:m:e:t:n:w:h", longopts,
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
			fprintf(stderr, "nfs3-null: bad value '%s'\n", optarg);
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
	       t1 > t0 ? (double)count / (t1 - t0) : 0.0);
	return 0;
}

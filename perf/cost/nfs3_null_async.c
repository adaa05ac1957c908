// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3-null-async: NFSv3 NULL calls through libxprt's async API, DEPTH of
 * them in flight on one connection.
 *
 * lx_nfs3_create(), then DEPTH calls of lx_nfs3_null_async(); each completion
 * (on the library's receive thread) starts the next call from its
 * callback, with LX_CALL_NOWAIT as the API asks there, until
 * WARMUP + COUNT calls have been made; the main thread sleeps until the
 * last one completes.  No clock is read per call: `make bench-cost`
 * counts this program's instructions and system calls per call
 * (scripts/bench-cost.py).
 *
 *   cc -o nfs3-null-async nfs3_null_async.c \
 *       $(pkg-config --cflags --libs libxprt)
 *   nfs3-null-async --port 2049 --mount-port 20048 -d 16 -n 10000 127.0.0.1
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

struct run {
	struct lx_nfs3_clnt *clnt;
	atomic_ulong to_issue; /* calls not started yet */
	atomic_ulong active;   /* calls started and not completed */
	atomic_int err;	       /* first failure */
	pthread_mutex_t lock;
	pthread_cond_t idle; /* signalled when active drops to 0 */
};

static void null_done(struct lx_call *call, int status, void *arg);

/* Start one call on @call if any are left; false when none was started. */
static bool start(struct run *r, struct lx_call *call, unsigned int flags)
{
	unsigned long left = atomic_load(&r->to_issue);
	int ret;

	do {
		if (!left || atomic_load(&r->err))
			return false;
	} while (!atomic_compare_exchange_weak(&r->to_issue, &left, left - 1));
	call->done = null_done;
	call->arg = r;
	call->flags = flags;
	atomic_fetch_add(&r->active, 1);
	ret = lx_nfs3_null_async(r->clnt, call);
	if (ret) {
		/* with DEPTH below the client's max_reqs a slot is always
		 * free, so a failure here is a real one */
		atomic_store(&r->err, ret);
		atomic_fetch_sub(&r->active, 1);
		return false;
	}
	return true;
}

static void null_done(struct lx_call *call, int status, void *arg)
{
	struct run *r = arg;

	/* @call is ours again as soon as this runs: it carries the next */
	if (!status)
		start(r, call, LX_CALL_NOWAIT);
	else
		atomic_store(&r->err, status);
	if (atomic_fetch_sub(&r->active, 1) == 1) {
		pthread_mutex_lock(&r->lock);
		pthread_cond_signal(&r->idle);
		pthread_mutex_unlock(&r->lock);
	}
}

/* @n calls, @depth in flight; returns when all have completed */
static int run_calls(struct run *r, struct lx_call *calls, unsigned long depth,
		     unsigned long n)
{
	unsigned long i;

	atomic_store(&r->to_issue, n);
	for (i = 0; i < depth; i++)
		if (!start(r, &calls[i], 0))
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
		"usage: nfs3-null-async [options] HOST\n"
		"Mount HOST's export and make COUNT NFSv3 NULL calls with "
		"lx_nfs3_null_async(),\nDEPTH in flight.\n"
		"  -p, --port N        NFS port (default: ask rpcbind)\n"
		"  -m, --mount-port N  MOUNT port (default: ask rpcbind)\n"
		"  -e, --export PATH   export to mount (default /export)\n"
		"  -d, --depth N       calls in flight, 1..32 (default 16)\n"
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
		{"depth", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'n'},
		{"warmup", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long port = 0, mport = 0, depth = 16, count = 10000;
	unsigned long warmup = 1000;
	struct lx_nfs3_opts o = {.export_path = "/export"};
	struct run r = {.lock = PTHREAD_MUTEX_INITIALIZER,
			.idle = PTHREAD_COND_INITIALIZER};
	struct lx_call *calls;
	char errmsg[256] = "";
	double t0, t1;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "p:m:e:d:n:w:h", longopts,
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
			fprintf(stderr, "nfs3-null-async: bad value '%s'\n",
				optarg);
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
	calls = calloc(depth, sizeof(*calls));
	if (!calls) {
		fprintf(stderr, "nfs3-null-async: out of memory\n");
		return 1;
	}

	ret = lx_nfs3_create(&r.clnt, &o);
	if (ret) {
		fprintf(stderr, "nfs3-null-async: mount %s:%s: %s (%s)\n",
			o.host, o.export_path, lx_strerror(ret), errmsg);
		free(calls);
		return 1;
	}
	ret = run_calls(&r, calls, depth, warmup);
	t0 = now_s();
	if (!ret)
		ret = run_calls(&r, calls, depth, count);
	t1 = now_s();
	lx_nfs3_destroy(r.clnt);
	free(calls);
	if (ret) {
		fprintf(stderr, "nfs3-null-async: NULL call: %s\n",
			lx_strerror(ret));
		return 1;
	}
	printf("calls=%lu depth=%lu seconds=%.3f calls_per_s=%.0f\n", count,
	       depth, t1 - t0, t1 > t0 ? (double)count / (t1 - t0) : 0.0);
	return 0;
}

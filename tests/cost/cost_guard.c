// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cost-guard: the client workloads of the per-call cost guard (make
 * check-cost), against the in-process fake NFSv3 server
 * of tests/unit/test_nfs3_fakesrv.h.
 *
 *   cost-guard null N     lx_nfs3_create(), 200 + N synchronous lx_nfs3_null()
 *   cost-guard read16 N   200 + N READs of 4 KiB at varying offsets,
 *                         16 in flight (lx_nfs3_read_buf_async(), each
 *                         completion starting the next)
 *
 * scripts/bench-cost.py --guard runs it under callgrind with one output
 * file per thread, at two values of N, and adds up the client's threads
 * only (the fake server's threads run fakesrv.c's accept_main and
 * conn_main): the difference per call is compared with
 * tests/cost/baseline.txt.  Nothing in the loops but the library calls.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h> /* the fake server checks what it gets with it */

#include <libxprt/nfs3.h>

#include "test_nfs3_fakesrv.h"

#define WARMUP 200
#define DEPTH  16
#define BS     4096

struct run {
	struct lx_nfs3_clnt *clnt;
	struct lx_nfs3_fh fh;
	atomic_ulong to_issue, active, seq;
	atomic_int err;
	pthread_mutex_t lock;
	pthread_cond_t idle;
};

struct slot {
	struct lx_call call;
	struct lx_nfs3_read_res res;
	struct run *run;
	uint8_t buf[BS];
};

static void read_done(struct lx_call *call, int status, void *arg);

static bool start(struct slot *s, unsigned int flags)
{
	struct run *r = s->run;
	unsigned long left = atomic_load(&r->to_issue), blk;
	int ret;

	do {
		if (!left || atomic_load(&r->err))
			return false;
	} while (!atomic_compare_exchange_weak(&r->to_issue, &left, left - 1));
	/* a fixed stride over the file's 256 blocks */
	blk = (atomic_fetch_add(&r->seq, 1) * 97) % (FSIZE_MAX / BS);
	s->call.done = read_done;
	s->call.arg = s;
	s->call.flags = flags;
	atomic_fetch_add(&r->active, 1);
	ret = lx_nfs3_read_buf_async(r->clnt, &s->call, &r->fh, blk * BS, BS,
				     s->buf, &s->res);
	if (ret) {
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

	if (!status && s->res.count != BS)
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

static int reads(struct run *r, struct slot *slots, unsigned long n)
{
	unsigned int i;

	atomic_store(&r->to_issue, n);
	for (i = 0; i < DEPTH; i++)
		if (!start(&slots[i], 0))
			break;
	pthread_mutex_lock(&r->lock);
	while (atomic_load(&r->active))
		pthread_cond_wait(&r->idle, &r->lock);
	pthread_mutex_unlock(&r->lock);
	return atomic_load(&r->err);
}

int main(int argc, char **argv)
{
	struct run r = {.lock = PTHREAD_MUTEX_INITIALIZER,
			.idle = PTHREAD_COND_INITIALIZER};
	struct slot *slots = NULL;
	struct lx_nfs3_opts o;
	unsigned long n, i;
	char msg[256] = "";
	bool rd;
	int ret;

	if (argc != 3 ||
	    (strcmp(argv[1], "null") && strcmp(argv[1], "read16"))) {
		fprintf(stderr, "usage: cost-guard null|read16 COUNT\n");
		return 2;
	}
	rd = !strcmp(argv[1], "read16");
	n = strtoul(argv[2], NULL, 10);
	if (setup(NULL)) {
		fprintf(stderr, "cost-guard: the fake server did not start\n");
		return 1;
	}
	S->size = FSIZE_MAX;
	for (i = 0; i < FSIZE_MAX; i++)
		S->cache[i] = (uint8_t)(i * 7);
	opts_init(&o, msg, sizeof(msg));
	ret = lx_nfs3_create(&r.clnt, &o);
	if (ret) {
		fprintf(stderr, "cost-guard: mount: %s (%s)\n",
			lx_strerror(ret), msg);
		goto out_srv;
	}
	if (rd) {
		r.fh = file_fh();
		slots = calloc(DEPTH, sizeof(*slots));
		if (!slots) {
			ret = -ENOMEM;
			goto out_clnt;
		}
		for (i = 0; i < DEPTH; i++)
			slots[i].run = &r;
		ret = reads(&r, slots, WARMUP);
		if (!ret)
			ret = reads(&r, slots, n);
	} else {
		for (i = 0; i < WARMUP + n && !ret; i++)
			ret = lx_nfs3_null(r.clnt);
	}
	if (ret)
		fprintf(stderr, "cost-guard: %s: %s\n", argv[1],
			lx_strerror(ret));
	free(slots);
out_clnt:
	lx_nfs3_destroy(r.clnt);
out_srv:
	teardown(NULL);
	return ret ? 1 : 0;
}

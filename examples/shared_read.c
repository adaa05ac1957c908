// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared_read: read one file over NFSv3 and over 9P at once, both clients
 * on one shared buffer pool, with the same asynchronous code for both
 * protocols: a struct lx_call whose done() starts the next read until the
 * end of the file.  Then it compares the two copies and prints the pool's
 * counters (one pool, its size classes, over RDMA one registration).
 *
 *   cc -o shared_read shared_read.c $(pkg-config --cflags --libs libxprt)
 *
 *   shared_read -n 2049 -m 20048 -p 564 -A /export server /export file
 *   shared_read -r -p 5640 -A /export server /export file   # both RDMA
 *
 * The core is the 30 lines between "the same shape" and main().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/nfs3.h>
#include <libxprt/p9.h>

#define CHUNK 32768u
#define CAP   (64u << 20) /* the largest file read */

/* ---------------------------------------------------- the same shape */

struct reader {
	struct lx_call call; /* one call object, restarted from done() */
	int (*read)(struct reader *r); /* start the read at r->off */
	char *buf;
	uint64_t off;
	int status;
	sem_t *finished;
	struct lx_nfs3_clnt *nfs; /* NFSv3: the client, the file, a result */
	struct lx_nfs3_fh fh;
	struct lx_nfs3_read_res res;
	struct lx_p9_clnt *p9; /* 9P: the session, an open fid */
	uint32_t fid;
};

static int nfs_read(struct reader *r)
{
	return lx_nfs3_read_buf_async(r->nfs, &r->call, &r->fh, r->off, CHUNK,
				      r->buf + r->off, &r->res);
}

static int p9_read(struct reader *r)
{
	return lx_p9_read_async(r->p9, &r->call, r->fid, r->off, CHUNK,
				r->buf + r->off);
}

/* On a receive thread: must not block, so the next read is NOWAIT. */
static void read_done(struct lx_call *call, int status, void *arg)
{
	struct reader *r = arg;

	if (!status && call->count) { /* 0 bytes: the end of the file */
		r->off += call->count;
		call->flags = LX_CALL_NOWAIT;
		status = r->off + CHUNK > CAP ? -EFBIG : r->read(r);
		if (!status)
			return; /* done() runs again for that read */
	}
	r->status = status;
	sem_post(r->finished);
}

static int start(struct reader *r, sem_t *finished)
{
	r->call = (struct lx_call){.done = read_done, .arg = r};
	r->finished = finished;
	r->buf = malloc(CAP);
	return r->buf ? r->read(r) : -ENOMEM;
}

/* ---------------------------------------------------------- set-up */

static void usage(FILE *f, const char *me)
{
	fprintf(f,
		"usage: %s [-r] [-n NFSPORT] [-m MNTPORT] [-p P9PORT] "
		"[-A ANAME] HOST EXPORT FILE\n"
		"Read FILE (relative to the export and to the 9P tree) over "
		"NFSv3 and 9P at once,\non one shared buffer pool; compare "
		"the copies.  -r: both over RDMA.\n",
		me);
}

static int die(const char *what, int err, const char *msg)
{
	fprintf(stderr, "shared_read: %s: %s%s%s\n", what, lx_strerror(err),
		*msg ? ": " : "", msg);
	return 1;
}

/* The library prints nothing itself: its messages ("server HOST:PORT not
 * responding, still trying", "server HOST:PORT OK") come here. */
static void say(void *arg, int level, const char *msg)
{
	(void)level;
	fprintf(stderr, "%s: %s\n", (const char *)arg, msg);
}

/* --help beside -h: the one long option every program answers */
static const struct option long_opts[] = {
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int main(int argc, char **argv)
{
	struct lx_xprt_pool_opts po = {.max_bytes = 8u << 20};
	struct lx_nfs3_opts no = {0};
	struct lx_p9_opts p9o = {0};
	struct reader nr = {.read = nfs_read}, pr = {.read = p9_read};
	struct lx_xprt_pool_stats st;
	struct lx_xprt_pool *pool;
	char msg[256] = "";
	sem_t finished;
	int c, err;

	while ((c = getopt_long(argc, argv, "rn:m:p:A:h", long_opts,
				  NULL)) != -1) {
		switch (c) {
		case 'r':
			no.transport = p9o.transport = LX_XPRT_TRANSPORT_RDMA;
			break;
		case 'n':
			no.nfs_port = (uint16_t)atoi(optarg);
			break;
		case 'm':
			no.mount_port = (uint16_t)atoi(optarg);
			break;
		case 'p':
			p9o.port = (uint16_t)atoi(optarg);
			break;
		case 'A':
			p9o.aname = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (argc - optind != 3) {
		usage(stderr, argv[0]);
		return 2;
	}
	/* buf_size 0: a pool to share, buffers in size classes */
	err = lx_xprt_pool_create(&pool, &po);
	if (err)
		return die("pool", err, "");
	no.host = p9o.host = argv[optind];
	no.export_path = argv[optind + 1];
	no.set_ids = true;
	no.errmsg = msg;
	no.errmsg_len = sizeof(msg);
	no.pool = p9o.pool = pool;
	no.log = p9o.log = say;
	no.log_arg = p9o.log_arg = "shared_read";
	err = lx_nfs3_create(&nr.nfs, &no);
	if (err)
		return die("NFSv3 mount", err, msg);
	p9o.errbuf = msg;
	p9o.errbuf_len = sizeof(msg);
	err = lx_p9_create(&pr.p9, &p9o);
	if (err)
		return die("9P attach", err, msg);
	err = lx_nfs3_lookup_path(nr.nfs, argv[optind + 2], &nr.fh, NULL);
	if (err)
		return die("NFSv3 lookup", err, "");
	err = lx_p9_open_path(pr.p9, argv[optind + 2], O_RDONLY, 0, &pr.fid,
			      NULL);
	if (err)
		return die("9P open", err, "");

	sem_init(&finished, 0, 0);
	err = start(&nr, &finished);
	if (err)
		return die("NFSv3 READ", err, "");
	err = start(&pr, &finished);
	if (err)
		return die("9P Tread", err, "");
	while (sem_wait(&finished) || sem_wait(&finished))
		; /* both readers finished (EINTR: wait again) */

	err = nr.status || pr.status || nr.off != pr.off ||
	      memcmp(nr.buf, pr.buf, nr.off);
	printf("nfs3: %llu bytes (%s), 9p: %llu bytes (%s), %s\n",
	       (unsigned long long)nr.off, lx_strerror(nr.status),
	       (unsigned long long)pr.off, lx_strerror(pr.status),
	       err ? "DIFFERENT data" : "same data");
	lx_p9_clunk(pr.p9, pr.fid);
	lx_p9_destroy(pr.p9);
	lx_nfs3_destroy(nr.nfs);
	/* both clients' traffic, in their size classes, all given back */
	lx_xprt_pool_stats(pool, &st);
	printf("pool: classes %llu, gets %llu, puts %llu, in use %llu, "
	       "registrations %llu\n",
	       (unsigned long long)st.classes, (unsigned long long)st.gets,
	       (unsigned long long)st.puts, (unsigned long long)st.bufs_in_use,
	       (unsigned long long)st.regs);
	lx_xprt_pool_destroy(pool); /* after every client that used it */
	free(nr.buf);
	free(pr.buf);
	return err ? 1 : 0;
}

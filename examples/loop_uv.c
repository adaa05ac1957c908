// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * loop_uv: read one file over NFSv3 and over 9P at once from a single
 * libuv loop, with no thread of the library's: both clients are created
 * caller-driven (LX_XPRT_MODE_CALLER), each client's descriptor is watched
 * by a uv_poll_t, and its callback calls the client's service, inside
 * which the reads' done() run.  Each client keeps several reads in flight
 * (-d, 8 by default): a read's done() starts the next chunk.  No uv_timer:
 * the descriptor is also the clients' clock (it turns readable at their
 * next deadline).  The process keeps its one thread.
 *
 *   cc -o loop_uv loop_uv.c $(pkg-config --cflags --libs libxprt libuv)
 *   loop_uv -n 2049 -m 20048 -p 564 -A /export server /export file
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt() */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include <libxprt/nfs3.h>
#include <libxprt/p9.h>

#define CHUNK	  65536u
#define DEPTH_MAX 16u

struct client;

/* one read in flight: a chunk of the file, read until it is all in */
struct slot {
	struct lx_call call;
	struct client *cl;
	uint64_t off; /* where the rest of the chunk starts */
	uint32_t len; /* bytes of the chunk still to read */
	struct lx_nfs3_read_res res;
	unsigned char buf[CHUNK];
};

struct client {
	const char *name;
	int (*read)(struct slot *s);
	int (*service)(struct client *cl, unsigned int revents);
	unsigned int (*events)(struct client *cl);
	uv_poll_t poll;
	struct lx_nfs3_clnt *nfs;
	struct lx_nfs3_fh fh;
	struct lx_p9_clnt *p9;
	uint32_t fid;
	uint64_t next;	/* the next chunk to hand out */
	uint64_t bytes; /* read so far */
	uint64_t sum;	/* of (offset + 1) * byte: order does not matter */
	unsigned int busy, peak; /* reads in flight, now and at most */
	int status;
	struct slot slot[DEPTH_MAX];
};

static int nfs_read(struct slot *s)
{
	return lx_nfs3_read_buf_async(s->cl->nfs, &s->call, &s->cl->fh, s->off,
				      s->len, s->buf, &s->res);
}

static int p9_read(struct slot *s)
{
	return lx_p9_read_async(s->cl->p9, &s->call, s->cl->fid, s->off, s->len,
				s->buf);
}

static int nfs_service(struct client *cl, unsigned int revents)
{
	return lx_nfs3_loop_service(cl->nfs, revents);
}

static int p9_service(struct client *cl, unsigned int revents)
{
	return lx_p9_loop_service(cl->p9, revents);
}

static unsigned int nfs_events(struct client *cl)
{
	return lx_nfs3_loop_events(cl->nfs);
}

static unsigned int p9_events(struct client *cl)
{
	return lx_p9_loop_events(cl->p9);
}

/* Start @s's read; from done() too, hence LX_CALL_NOWAIT (never block). */
static void start(struct slot *s)
{
	struct client *cl = s->cl;
	int err;

	if (!s->len) {
		s->off = cl->next;
		s->len = CHUNK;
		cl->next += CHUNK;
	}
	s->call.flags = LX_CALL_NOWAIT;
	err = cl->read(s);
	if (err) {
		if (!cl->status)
			cl->status = err;
		return;
	}
	if (++cl->busy > cl->peak)
		cl->peak = cl->busy;
}

/*
 * Inside the client's service, on the loop's thread.  A read may be
 * short (9P clamps it to the iounit): the slot reads the rest of its
 * chunk before it takes the next.  A read of 0 bytes is past the end of
 * the file: that slot is finished.
 */
static void read_done(struct lx_call *call, int status, void *arg)
{
	struct slot *s = arg;
	struct client *cl = s->cl;
	uint32_t i;

	cl->busy--;
	if (status && !cl->status)
		cl->status = status;
	if (status || !call->count)
		return;
	for (i = 0; i < call->count; i++)
		cl->sum += (s->off + i + 1) * s->buf[i];
	cl->bytes += call->count;
	s->off += call->count;
	s->len -= call->count;
	if (!cl->status)
		start(s);
}

static int uv_events(unsigned int events)
{
	return (events & POLLIN ? UV_READABLE : 0) |
	       (events & POLLOUT ? UV_WRITABLE : 0);
}

/* libuv saw the client's descriptor ready: service it, wait again */
static void on_ready(uv_poll_t *h, int status, int uvev)
{
	struct client *cl = h->data;
	unsigned int revents = 0;

	if (status < 0) {
		fprintf(stderr, "loop_uv: %s: poll: %s\n", cl->name,
			uv_strerror(status));
		if (!cl->status)
			cl->status = -EIO;
	} else {
		revents = (uvev & UV_READABLE ? POLLIN : 0) |
			  (uvev & UV_WRITABLE ? POLLOUT : 0) |
			  (uvev & UV_DISCONNECT ? POLLHUP : 0);
	}
	cl->service(cl, revents);
	/* all read, or failed: the loop ends when both handles are closed */
	if (!cl->busy || status < 0)
		uv_close((uv_handle_t *)h, NULL);
	else
		uv_poll_start(h, uv_events(cl->events(cl)), on_ready);
}

static int watch(uv_loop_t *loop, struct client *cl, int fd, unsigned int depth)
{
	unsigned int i;
	int err;

	err = uv_poll_init(loop, &cl->poll, fd);
	if (err)
		return err;
	cl->poll.data = cl;
	for (i = 0; i < depth; i++) {
		cl->slot[i].cl = cl;
		cl->slot[i].call = (struct lx_call){.done = read_done,
						    .arg = &cl->slot[i]};
		start(&cl->slot[i]);
	}
	if (!cl->busy) { /* none started: nothing to wait for */
		uv_close((uv_handle_t *)&cl->poll, NULL);
		return 0;
	}
	return uv_poll_start(&cl->poll, uv_events(cl->events(cl)), on_ready);
}

static unsigned int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* --help beside -h: the one long option every program answers */
static const struct option long_opts[] = {
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int usage(FILE *f, const char *me, bool ok)
{
	fprintf(f,
		"usage: %s [-n NFSPORT] [-m MNTPORT] [-p P9PORT] [-A ANAME] "
		"[-d DEPTH] HOST EXPORT FILE\nRead FILE over NFSv3 and 9P at "
		"once from one libuv loop, DEPTH reads in flight on each\n"
		"(1..%u, default 8), no library thread.\n",
		me, DEPTH_MAX);
	return ok ? 0 : 2;
}

static int die(const char *what, int err, const char *msg)
{
	fprintf(stderr, "loop_uv: %s: %s%s%s\n", what, lx_strerror(err),
		*msg ? ": " : "", msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct lx_nfs3_opts no = {.mode = LX_XPRT_MODE_CALLER};
	struct lx_p9_opts po = {.mode = LX_XPRT_MODE_CALLER};
	static struct client clients[2] = {
		/* 1 MiB of buffers each: not on the stack */
		{.name = "nfs3",
		 .read = nfs_read,
		 .service = nfs_service,
		 .events = nfs_events},
		{.name = "9p",
		 .read = p9_read,
		 .service = p9_service,
		 .events = p9_events},
	};
	struct client *nc = &clients[0], *pc = &clients[1];
	unsigned int depth = 8;
	char msg[256] = "";
	uv_loop_t loop;
	int c, err;

	while ((c = getopt_long(argc, argv, "n:m:p:A:d:h", long_opts, NULL)) !=
	       -1) {
		if (c == 'n')
			no.nfs_port = (uint16_t)atoi(optarg);
		else if (c == 'm')
			no.mount_port = (uint16_t)atoi(optarg);
		else if (c == 'p')
			po.port = (uint16_t)atoi(optarg);
		else if (c == 'A')
			po.aname = optarg;
		else if (c == 'd' && atoi(optarg) >= 1 &&
			 (unsigned int)atoi(optarg) <= DEPTH_MAX)
			depth = (unsigned int)atoi(optarg);
		else
			return usage(c == 'h' ? stdout : stderr, argv[0],
				     c == 'h');
	}
	if (argc - optind != 3)
		return usage(stderr, argv[0], false);
	no.host = po.host = argv[optind];
	no.export_path = argv[optind + 1];
	no.set_ids = true;
	no.errmsg = po.errbuf = msg;
	no.errmsg_len = po.errbuf_len = sizeof(msg);
	/* set-up and lookups run the clients' loops themselves */
	err = lx_nfs3_create(&nc->nfs, &no);
	if (err)
		return die("NFSv3 mount", err, msg);
	err = lx_p9_create(&pc->p9, &po);
	if (err)
		return die("9P attach", err, msg);
	err = lx_nfs3_lookup_path(nc->nfs, argv[optind + 2], &nc->fh, NULL);
	if (!err)
		err = lx_p9_open_path(pc->p9, argv[optind + 2], O_RDONLY, 0,
				      &pc->fid, NULL);
	if (err)
		return die("open", err, "");

	/* ---- the loop: one uv_poll_t per client descriptor ---- */
	err = uv_loop_init(&loop);
	if (!err)
		err = watch(&loop, nc, lx_nfs3_loop_fd(nc->nfs), depth);
	if (!err)
		err = watch(&loop, pc, lx_p9_loop_fd(pc->p9), depth);
	if (err) {
		fprintf(stderr, "loop_uv: libuv: %s\n", uv_strerror(err));
		return 1;
	}
	uv_run(&loop, UV_RUN_DEFAULT); /* until both handles are closed */
	uv_loop_close(&loop);

	printf("nfs3: %llu bytes (%s, %u in flight), "
	       "9p: %llu bytes (%s, %u in flight), threads %u\n",
	       (unsigned long long)nc->bytes, lx_strerror(nc->status), nc->peak,
	       (unsigned long long)pc->bytes, lx_strerror(pc->status), pc->peak,
	       threads());
	err = nc->status || pc->status || nc->bytes != pc->bytes ||
	      nc->sum != pc->sum || threads() != 1;
	if (nc->sum != pc->sum)
		fprintf(stderr, "loop_uv: the two reads differ\n");
	lx_p9_clunk(pc->p9, pc->fid);
	lx_p9_destroy(pc->p9);
	lx_nfs3_destroy(nc->nfs);
	return err ? 1 : 0;
}

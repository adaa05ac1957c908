// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * loop_epoll: read one file over NFSv3 and over 9P at once from a single
 * epoll loop, with no thread of the library's: both clients are created
 * caller-driven (LX_XPRT_MODE_CALLER), their descriptors go into the
 * program's epoll set, and each read's done() runs inside the service
 * call and starts the next.  The process keeps its one thread.
 *
 *   cc -o loop_epoll loop_epoll.c $(pkg-config --cflags --libs libxprt)
 *   loop_epoll -n 2049 -m 20048 -p 564 -A /export server /export file
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt() */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <libxprt/nfs3.h>
#include <libxprt/p9.h>

#define CHUNK 65536u

struct reader {
	struct lx_call call; /* restarted from done() */
	int (*read)(struct reader *r);
	char buf[CHUNK];
	uint64_t off;
	int status; /* 1 while reading */
	struct lx_nfs3_clnt *nfs;
	struct lx_nfs3_fh fh;
	struct lx_nfs3_read_res res;
	struct lx_p9_clnt *p9;
	uint32_t fid;
};

static int nfs_read(struct reader *r)
{
	return lx_nfs3_read_buf_async(r->nfs, &r->call, &r->fh, r->off, CHUNK,
				      r->buf, &r->res);
}

static int p9_read(struct reader *r)
{
	return lx_p9_read_async(r->p9, &r->call, r->fid, r->off, CHUNK, r->buf);
}

/* Inside lx_*_loop_service(), on the loop's thread: start the next. */
static void read_done(struct lx_call *call, int status, void *arg)
{
	struct reader *r = arg;

	if (!status && call->count) {
		r->off += call->count;
		call->flags = LX_CALL_NOWAIT;
		status = r->read(r);
		if (!status)
			return;
	}
	r->status = status;
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
		"HOST EXPORT FILE\nRead FILE over NFSv3 and 9P at once from "
		"one epoll loop, no library thread.\n",
		me);
	return ok ? 0 : 2;
}

static int die(const char *what, int err, const char *msg)
{
	fprintf(stderr, "loop_epoll: %s: %s%s%s\n", what, lx_strerror(err),
		*msg ? ": " : "", msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct lx_nfs3_opts no = {.mode = LX_XPRT_MODE_CALLER};
	struct lx_p9_opts po = {.mode = LX_XPRT_MODE_CALLER};
	static struct reader readers[2]; /* 64 KiB each: not on the stack */
	struct reader *nr = &readers[0], *pr = &readers[1];
	struct epoll_event ev = {.events = EPOLLIN}, got[2];
	char msg[256] = "";
	int c, err, ep, i, n;

	while ((c = getopt_long(argc, argv, "n:m:p:A:h", long_opts, NULL)) !=
	       -1) {
		if (c == 'n')
			no.nfs_port = (uint16_t)atoi(optarg);
		else if (c == 'm')
			no.mount_port = (uint16_t)atoi(optarg);
		else if (c == 'p')
			po.port = (uint16_t)atoi(optarg);
		else if (c == 'A')
			po.aname = optarg;
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
	err = lx_nfs3_create(&nr->nfs, &no);
	if (err)
		return die("NFSv3 mount", err, msg);
	err = lx_p9_create(&pr->p9, &po);
	if (err)
		return die("9P attach", err, msg);
	err = lx_nfs3_lookup_path(nr->nfs, argv[optind + 2], &nr->fh, NULL);
	if (!err)
		err = lx_p9_open_path(pr->p9, argv[optind + 2], O_RDONLY, 0,
				      &pr->fid, NULL);
	if (err)
		return die("open", err, "");

	/* ---- the loop: one epoll set, both clients' descriptors ---- */
	ep = epoll_create1(0);
	ev.data.ptr = nr;
	epoll_ctl(ep, EPOLL_CTL_ADD, lx_nfs3_loop_fd(nr->nfs), &ev);
	ev.data.ptr = pr;
	epoll_ctl(ep, EPOLL_CTL_ADD, lx_p9_loop_fd(pr->p9), &ev);
	nr->read = nfs_read;
	pr->read = p9_read;
	nr->call = (struct lx_call){.done = read_done, .arg = nr};
	pr->call = (struct lx_call){.done = read_done, .arg = pr};
	nr->status = nfs_read(nr) ? -EIO : 1;
	pr->status = p9_read(pr) ? -EIO : 1;
	while (nr->status == 1 || pr->status == 1) {
		n = epoll_wait(ep, got, 2, -1);
		for (i = 0; i < n; i++) {
			if (got[i].data.ptr == nr)
				lx_nfs3_loop_service(nr->nfs, got[i].events);
			else
				lx_p9_loop_service(pr->p9, got[i].events);
		}
	}
	printf("nfs3: %llu bytes (%s), 9p: %llu bytes (%s), threads %u\n",
	       (unsigned long long)nr->off, lx_strerror(nr->status),
	       (unsigned long long)pr->off, lx_strerror(pr->status), threads());
	err = nr->status || pr->status || nr->off != pr->off || threads() != 1;
	lx_p9_clunk(pr->p9, pr->fid);
	lx_p9_destroy(pr->p9);
	lx_nfs3_destroy(nr->nfs);
	return err ? 1 : 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt's fio engine: what its files share.  The engine proper
 * (engine.c) speaks fio; a protocol (nfs3.c, p9.c) speaks libxprt; the
 * completion source (complete.c) carries finished I/Os from where libxprt
 * reports them to fio's job thread.  Nothing here includes fio's headers,
 * so the protocol files build against libxprt alone.
 */
#ifndef LXFIO_H
#define LXFIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <libxprt/call.h>
#include <libxprt/xprt.h>

struct lx_url;

/*
 * Who runs the job's client (the engine's libxprt_mode option): auto is
 * the caller-driven mode where the library has it (TCP without
 * zerocopy), else the threaded one.
 */
enum lxfio_mode {
	LXFIO_MODE_AUTO,
	LXFIO_MODE_CALLER,
	LXFIO_MODE_THREADED,
};

/*
 * A server: one client of the protocol the URL's scheme names.  @want is
 * the job's choice (before connect), @caller what the client is: created
 * caller-driven, it is run by the job's thread (complete.c).
 */
struct lxfio_conn {
	const struct lxfio_proto *proto;
	void *clnt;	 /* struct lx_nfs3_clnt or struct lx_p9_clnt */
	void *root;	 /* the protocol's state of the URL's directory */
	uint32_t iosize; /* the largest READ/WRITE one call carries */
	enum lxfio_mode want;
	bool rdma, caller;
};

/*
 * An open file: a handle or a fid.  NFS: the write verifier its unstable
 * WRITEs came back with since the last COMMIT (@unstable: there were
 * some; @verf_changed: two replies disagreed, the server restarted).
 */
struct lxfio_file {
	uint64_t size; /* when opened, after sizing */
	uint32_t fid;
	unsigned char fh[72]; /* struct lx_nfs3_fh */
	unsigned char verf[8];
	bool verf_set, unstable, verf_changed;
};

enum lxfio_op {
	LXFIO_READ,
	LXFIO_WRITE,
	LXFIO_SYNC,
	LXFIO_DATASYNC,
};

/*
 * One call of an I/O: an I/O longer than the server's transfer size is
 * several calls in flight together.  @res is room for the protocol's
 * result structure.
 */
struct lxfio_piece {
	struct lx_call call;
	struct lxfio_io *io;
	int status; /* done()'s */
	uint64_t res[40];
};

/* one fio io_u's state; completes when its last piece has */
struct lxfio_io {
	void *io_u; /* struct io_u */
	struct lxfio_cq *cq;
	enum lxfio_op op;
	unsigned int npieces;
	unsigned int nsent; /* pieces started for this I/O */
	unsigned int left;  /* atomic: pieces not completed yet */
	int error;	    /* atomic: the first piece's error, positive */
	uint64_t done;	    /* atomic: bytes moved */
	struct lxfio_piece piece[];
};

/**
 * struct lxfio_proto - one protocol's calls, all on the job's own client
 * @connect: make the client of @u, a URL of the protocol's scheme (blocks),
 *	in the mode lxfio_xprt_mode() says; a sentence in @err on failure
 * @open: look up @name below the URL's directory; create it with @create;
 *	then grow it to @size when it is shorter (0: leave it)
 * @size: the size of @name (-ENOENT when absent), without opening it
 * @start: send one call: @op at @off, @len bytes at @buf (read, write) or
 *	the file's flush (@len 0); done() of @p->call reports it
 * @finish: on the job's thread, once the I/O's calls are done: look at
 *	their results (NULL: nothing to look at); 0 or a negative errno
 *	with a sentence in @err
 * @close: forget @lf (NFS: COMMIT what is unstable), a sentence in @err
 *	on failure
 * @run: caller-driven: service the client until @min_done requests
 *	completed or @deadline_ns (CLOCK_MONOTONIC, 0: none) passed (the
 *	library's run-until call, its return values)
 * @xprt: the client's transport @i (0 on), NULL past the last: its
 *	counters (the engine's libxprt_stats option)
 * @unlink, @disconnect: as named
 * @stable: writes are FILE_SYNC (sync=1); the protocol may ignore it
 */
struct lxfio_proto {
	const char *scheme;
	const char *name;
	int (*connect)(struct lxfio_conn *c, const struct lx_url *u, char *err,
		       size_t errlen);
	int (*open)(struct lxfio_conn *c, const char *name, bool create,
		    uint64_t size, struct lxfio_file *lf);
	int (*size)(struct lxfio_conn *c, const char *name, uint64_t *size);
	int (*start)(struct lxfio_conn *c, struct lxfio_file *lf,
		     struct lxfio_piece *p, enum lxfio_op op, void *buf,
		     uint32_t len, uint64_t off, bool stable);
	int (*finish)(struct lxfio_conn *c, struct lxfio_file *lf,
		      struct lxfio_io *io, char *err, size_t errlen);
	int (*close)(struct lxfio_conn *c, struct lxfio_file *lf, char *err,
		     size_t errlen);
	int (*run)(struct lxfio_conn *c, unsigned int min_done,
		   uint64_t deadline_ns);
	struct lx_xprt *(*xprt)(struct lxfio_conn *c, unsigned int i);
	int (*unlink)(struct lxfio_conn *c, const char *name);
	void (*disconnect)(struct lxfio_conn *c);
};

extern const struct lxfio_proto lxfio_nfs3, lxfio_p9;

/* ------------------------------------------------- completion source */

/*
 * Finished I/Os on their way to fio's job thread (complete.c).  Filled
 * by lxfio_cq_push() from where libxprt completes a call, drained by
 * lxfio_cq_wait() on the job's thread.  @conn: the caller-driven client
 * the job's thread runs for them (no lock then); NULL: a threaded
 * client's receive threads push under @lock and signal @cond.
 */
struct lxfio_cq {
	struct lxfio_conn *conn;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void **ring; /* io_us, @cap entries */
	unsigned int cap, head, count;
};

enum lx_xprt_mode lxfio_xprt_mode(const struct lxfio_conn *c, bool rdma,
				  bool zerocopy);
int lxfio_cq_init(struct lxfio_cq *q, unsigned int cap, struct lxfio_conn *c);
void lxfio_cq_destroy(struct lxfio_cq *q);
void lxfio_cq_push(struct lxfio_cq *q, void *io_u);
void lxfio_cq_sent(struct lxfio_cq *q);
int lxfio_cq_wait(struct lxfio_cq *q, void **out, unsigned int min,
		  unsigned int max, const struct timespec *t);

/* the I/O's call completions, for the protocols' done() */
void lxfio_piece_done(struct lx_call *call, int status, void *arg);

#endif /* LXFIO_H */

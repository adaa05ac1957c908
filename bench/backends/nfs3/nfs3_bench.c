/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nfs3-bench: the bench engine's NFSv3 back-end, on libxprt's async NFSv3
 * API (docs/man/nfs3-bench.1 is the user's side of this file).
 *
 * Set-up mounts the export once (MOUNT v3 over TCP, then the NFS client
 * with --nconnect connections and AUTH_SYS --uid/--gid).  Every job then
 * shares that one client; each job is its own fairness owner in the
 * transmit queue (bench_io.owner goes into lx_call.owner), so a job
 * with a deep queue cannot starve the others.
 *
 * --libxprt-mode=caller (TCP without --zerocopy): no client runs a thread
 * (libxprt's LX_XPRT_MODE_CALLER).  Set-up's client serves the main
 * thread's calls (stat, opening files, COMMIT); job_open() of a job's
 * first file mounts a client of the job's own, with --nconnect
 * connections, and the job's I/O goes through it alone.  The job's
 * thread services it in job_service() (lx_nfs3_loop_run() until one
 * completion or the engine's deadline), so nfs_done() and the
 * resubmission it makes run on that thread, as fio's engine runs its
 * jobs (fio/).  The process keeps one thread per job besides the main
 * one.
 *
 * Over RDMA each job's I/O buffers are registered once
 * (lx_xprt_rdma_mem_register(): local access and bind rights, no remote
 * access), so with the default memory windows an I/O costs no
 * registration: the server gets a window over the one buffer for the one
 * call.  --rdma-reg picks another mode for comparison (per-io, or the
 * unsafe cache, which leaves remote access standing between calls).
 *
 * One engine I/O is exactly one NFS call: setup() reports the smaller of
 * rsize and wsize as the largest transfer, so the engine never asks for a
 * READ or WRITE the server would split.  The call's state (its struct
 * lx_call, the iovec and the decoded result) lives in the slot's private
 * area, so nothing is allocated per operation; the completion runs on the
 * transport's receive thread and hands the outcome straight to
 * bench_io_done(), which resubmits the slot with LX_CALL_NOWAIT.
 *
 * Request slots.  A completing call keeps its transport slot until its
 * callback returns, and that callback already starts the next call; and
 * calls spread round-robin over the connections, so one connection may
 * briefly carry nearly all of them.  Each connection therefore gets
 * max_inflight + nconnect + 1 slots: a NOWAIT resubmission never finds
 * the slots exhausted (-EBUSY stays a rare hand-off, counted in the
 * stats as "eagain").  Slots are cheap; the header buffers behind them
 * come from a pool that grows on demand, and are kept at 4 KiB because
 * READ and WRITE data never pass through them.
 *
 * Files.  A job's file is created when missing (UNCHECKED, 0644).  For a
 * workload that only writes, the first job to open a file truncates it
 * and extends it to --size (a sparse file), so every run starts from the
 * same state.  A workload that reads keeps what is there; the engine lays
 * the file out (writes it whole) when it is shorter than --size.
 *
 * Stability.  --stable unstable (the default, as the Linux client) sends
 * UNSTABLE writes; each job that wrote sends a COMMIT for its file from
 * the engine's job_sync() hook after every phase that wrote (before the
 * verify pass reads it back) and from job_end(), outside the measured
 * time.  Each job keeps the write verifier its WRITE replies carried; a
 * reply or a COMMIT with another one means the server restarted and may
 * have lost unstable data.  With --verify the engine knows every block's
 * contents, so the job writes its file's known blocks again (coalesced up
 * to wsize) and COMMITs again, until a COMMIT carries the verifier the
 * data went out under: nothing acknowledged is lost.  Without --verify
 * the contents are not defined and the run fails with a clear message.
 * COMMITs, their total time, verifier changes and resent bytes are in the
 * report's back-end counters.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/nfs3.h>
#include <libxprt/url.h>
#include <libxprt/rdma.h>
#include <libxprt/rpcbind.h>

#include "engine/engine.h"

#define NFS_DEF_PORT  2049u
#define NFS_BUF_SIZE  4096u /* call/reply headers only: no data */
#define NFS_FILE_MODE 0644u
/* Smaller transfer sizes (FSINFO rtmax, wtmax) than this are no server's
 * real limit: 1 KiB is the Linux client's floor (NFS_MIN_FILE_IO_SIZE) */
#define NFS_MIN_IO    1024u
#define NFS_CACHELINE 64
#define NFS_HOST_MAX  256
#define NFS_FILE_ALLOC \
	((sizeof(struct nfs_file) + NFS_CACHELINE - 1) & ~(NFS_CACHELINE - 1ul))

/* the per-I/O private area (bench_io.priv) */
struct nfs_io {
	struct lx_call call;
	struct nfs_be *be;
	struct iovec iov;
	union {
		struct lx_nfs3_read_res rd;
		struct lx_nfs3_write_res wr;
		struct lx_nfs3_getattr_res ga;
		struct lx_nfs3_commit_res cm;
	} res;
};

#define NFS_SYNC_ROUNDS 5 /* COMMITs after verifier changes before giving up */

/*
 * the per-job state (bench_job_info.priv), cache-line aligned: its
 * completion-side words are written by the job's WRITE replies
 */
struct nfs_file {
	struct lx_nfs3_fh fh;
	_Atomic bool dirty; /* unstable data written since the last COMMIT */
	_Atomic uint64_t verf;
	_Atomic int verf_state;	       /* 0 none, 1 being set, 2 set */
	_Atomic uint64_t verf_changes; /* replies with another verifier */
	struct lx_xprt_rdma_mem *mem;  /* the job's buffers (RDMA) */
};

struct nfs_be {
	/* options */
	char host[NFS_HOST_MAX];
	uint16_t nfs_port, mount_port;
	const char *export_path;
	char export_buf[LX_NFS3_MAXPATHLEN + 1]; /* an export from a URL */
	uint32_t stable;
	enum lx_xprt_rdma_reg_mode reg_mode;
	unsigned int jukebox_delay_ms, jukebox_retries; /* 0: the library's */
	bool xmit_fifo;					/* --xmit-order fifo */
	unsigned int max_in_flight; /* --max-in-flight, 0: all */
	const struct bench_config *cfg;
	char where[NFS_HOST_MAX + 1026]; /* host:export (MOUNT paths: 1024) */

	/* run */
	struct lx_nfs3_clnt *clnt;
	struct lx_nfs3_clnt **jclnt; /* caller mode: each job's own client */
	unsigned int njclnt;
	unsigned int max_reqs;
	struct lx_xprt_rdma_opts rdma;

	/* completion-side counters */
	_Atomic uint64_t unstable_writes
		__attribute__((aligned(NFS_CACHELINE)));
	_Atomic uint64_t eagain;

	/* main-thread counters */
	uint64_t commits, commit_ns, verf_changes, resent_bytes;
};

enum {
	NO_SERVER,
	NO_EXPORT,
	NO_MOUNT_PORT,
	NO_STABLE,
	NO_RDMA_REG,
	NO_JUKEBOX_DELAY,
	NO_JUKEBOX_RETRIES,
	NO_XMIT_ORDER,
	NO_MAX_IN_FLIGHT,
};

static const struct bench_option nfs_options[] = {
	{"server", "HOST[:PORT]|URL",
	 "NFS server (required) [port: rpcbind, then 2049],\n"
	 "                       or a URL: nfs://HOST[:PORT]/EXPORT?...",
	 NO_SERVER},
	{"export", "PATH", "export to mount with MOUNT v3 (required)",
	 NO_EXPORT},
	{"mount-port", "N", "MOUNT service port [ask rpcbind]", NO_MOUNT_PORT},
	{"stable", "unstable|datasync|filesync",
	 "WRITE stability; unstable: COMMIT after writing [unstable]",
	 NO_STABLE},
	{"rdma-reg", "window|per-io|cache-unsafe",
	 "RDMA chunk memory: a memory window per chunk and call, a "
	 "registration per I/O, or the registration cache (remote access "
	 "stays open between calls: trusted servers only) [window, per-io "
	 "without memory windows]",
	 NO_RDMA_REG},
	{"jukebox-delay", "TIME",
	 "a call answered NFS3ERR_JUKEBOX goes out again (new XID) this "
	 "long after [5s, as Linux]",
	 NO_JUKEBOX_DELAY},
	{"jukebox-retries", "N",
	 "at most this many times, then the I/O fails saying so [6]",
	 NO_JUKEBOX_RETRIES},
	{"xmit-order", "fair|fifo",
	 "order of calls waiting for a connection: round robin over the "
	 "jobs, or arrival order (an ablation of fair queueing) [fair]",
	 NO_XMIT_ORDER},
	{"max-in-flight", "N",
	 "calls sent and not yet answered per connection, at most N; the "
	 "rest wait in the transmit queue, as behind RDMA credits [all]",
	 NO_MAX_IN_FLIGHT},
	{NULL, NULL, NULL, 0},
};

/* ------------------------------------------------------------ options */

static int nfs_init(void *priv)
{
	struct nfs_be *n = priv;

	n->stable = LX_NFS3_UNSTABLE;
	return 0;
}

/* "host", "host:port", "[v6]", "[v6]:port"; a bare v6 address has no port */
static int parse_server(struct nfs_be *n, const char *arg)
{
	const char *end, *colon = NULL;
	uint64_t port;
	size_t len;

	if (arg[0] == '[') {
		end = strchr(arg, ']');
		if (!end || end == arg + 1)
			return -EINVAL;
		len = (size_t)(end - arg - 1);
		arg++;
		if (end[1] == ':')
			colon = end + 1;
		else if (end[1])
			return -EINVAL;
	} else {
		colon = strchr(arg, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL; /* IPv6 without brackets: no port */
		len = colon ? (size_t)(colon - arg) : strlen(arg);
	}
	if (!len || len >= sizeof(n->host))
		return -EINVAL;
	memcpy(n->host, arg, len);
	n->host[len] = '\0';
	if (colon) {
		if (bench_parse_u64(colon + 1, 65535, &port) || !port)
			return -EINVAL;
		n->nfs_port = (uint16_t)port;
	}
	return 0;
}

static int nfs_parse_option(void *priv, int id, const char *arg)
{
	struct nfs_be *n = priv;
	uint64_t v;

	switch (id) {
	case NO_SERVER:
		if (parse_server(n, arg))
			goto bad;
		return 0;
	case NO_EXPORT:
		if (arg[0] != '/' || strlen(arg) > LX_NFS3_MAXPATHLEN) {
			bench_error("--export: '%s' must be an absolute path",
				    arg);
			return -EINVAL;
		}
		n->export_path = arg;
		return 0;
	case NO_MOUNT_PORT:
		if (bench_parse_u64(arg, 65535, &v) || !v)
			goto bad;
		n->mount_port = (uint16_t)v;
		return 0;
	case NO_STABLE:
		if (!strcmp(arg, "unstable"))
			n->stable = LX_NFS3_UNSTABLE;
		else if (!strcmp(arg, "datasync"))
			n->stable = LX_NFS3_DATA_SYNC;
		else if (!strcmp(arg, "filesync"))
			n->stable = LX_NFS3_FILE_SYNC;
		else
			goto bad;
		return 0;
	case NO_RDMA_REG:
		if (!strcmp(arg, "window"))
			n->reg_mode = LX_XPRT_RDMA_REG_WINDOW;
		else if (!strcmp(arg, "per-io"))
			n->reg_mode = LX_XPRT_RDMA_REG_PER_IO;
		else if (!strcmp(arg, "cache-unsafe"))
			n->reg_mode = LX_XPRT_RDMA_REG_CACHE_UNSAFE;
		else
			goto bad;
		return 0;
	case NO_JUKEBOX_DELAY:
		if (bench_parse_time(arg, &v) || v < 1000000 ||
		    v > 3600000000000ull)
			goto bad;
		n->jukebox_delay_ms = (unsigned int)(v / 1000000);
		return 0;
	case NO_JUKEBOX_RETRIES:
		if (bench_parse_u64(arg, 1000000, &v) || !v)
			goto bad;
		n->jukebox_retries = (unsigned int)v;
		return 0;
	case NO_XMIT_ORDER:
		if (!strcmp(arg, "fair"))
			n->xmit_fifo = false;
		else if (!strcmp(arg, "fifo"))
			n->xmit_fifo = true;
		else
			goto bad;
		return 0;
	case NO_MAX_IN_FLIGHT:
		if (bench_parse_u64(arg, 65535, &v) || !v)
			goto bad;
		n->max_in_flight = (unsigned int)v;
		return 0;
	}
bad:
	bench_error("--%s: '%s' is not valid (see --help)",
		    nfs_options[id].name, arg ? arg : "");
	return -EINVAL;
}

/*
 * An nfs:// URL, parsed by libxprt (libxprt/url.h).  In --server the path
 * is the export; in --filename it is the export and the file, split as
 * libnfs's tools split it (the export is everything before the last '/')
 * unless --export or a --server URL said where the export ends.  Of the
 * arguments the engine did not take, the ports and the JUKEBOX handling
 * are nfs3-bench's too; those that set what nfs3-bench decides itself
 * (calls in flight, transfer sizes, the flavour) are refused.
 */
static int nfs_url(void *priv, struct lx_url *u, char *file, size_t len)
{
	struct nfs_be *n = priv;
	struct lx_nfs3_opts o = {0};

	if (file && bench_url_file(u, n->export_path, file, len))
		return -EINVAL;
	lx_url_nfs3_opts(u, &o);
	if (o.max_reqs || o.rsize || o.wsize || o.auth_none) {
		bench_error("URL: nfs3-bench sizes and authenticates its "
			    "clients itself: no max-reqs=, rsize=, wsize= or "
			    "sec=none");
		return -EINVAL;
	}
	if (strlen(o.host) >= sizeof(n->host) ||
	    strlen(o.export_path) > LX_NFS3_MAXPATHLEN) {
		bench_error("URL: the server's name or the export is too long");
		return -EINVAL;
	}
	strcpy(n->host, o.host);
	strcpy(n->export_buf, o.export_path);
	n->export_path = n->export_buf;
	if (o.nfs_port)
		n->nfs_port = o.nfs_port;
	if (o.mount_port)
		n->mount_port = o.mount_port;
	if (o.jukebox_delay_ms)
		n->jukebox_delay_ms = o.jukebox_delay_ms;
	if (o.jukebox_retries)
		n->jukebox_retries = o.jukebox_retries;
	return 0;
}

static int nfs_check(void *priv, const struct bench_config *cfg)
{
	struct nfs_be *n = priv;

	if (!n->host[0] || !n->export_path) {
		bench_error("--server and --export are required (or an "
			    "nfs:// URL in --server or --filename)");
		return -EINVAL;
	}
	/* one connection carries everything in the worst case (see top) */
	if ((uint64_t)cfg->max_inflight + cfg->nconnect + 1 > 65535) {
		bench_error("%u I/Os in flight (--numjobs x --iodepth) is more "
			    "than one connection can carry (65534)",
			    cfg->max_inflight);
		return -EINVAL;
	}
	if (cfg->xprt_mode == BENCH_XPRT_CALLER &&
	    (cfg->transport == BENCH_TRANSPORT_RDMA || cfg->zerocopy)) {
		bench_error("--libxprt-mode caller runs over TCP without "
			    "--zerocopy only (libxprt's caller-driven mode)");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------ set-up */

/* what an unreachable portmapper's error says to a user */
static const char *rpcbind_failure(int err)
{
	switch (err) {
	case -ECONNREFUSED:
		return "connection refused (is the server up?)";
	case -ETIMEDOUT:
		return "no answer (is the host up and reachable?)";
	case -EBADMSG:
		return "it answered a port above 65535";
	default:
		return lx_strerror(err);
	}
}

/*
 * The ports, asked here rather than inside lx_nfs3_create() so that each
 * failure says what is missing: the man page's "rpcbind, then 2049" for
 * NFS; for MOUNT, "give --mount-port" only when the portmapper answered
 * that MOUNT is not registered.  A portmapper that cannot be reached
 * (refused: the host runs none; no answer: a host down or unreachable) is
 * asked once: the message names it and what failed, not a MOUNT port.
 */
static int resolve_ports(struct nfs_be *n)
{
	const char *what =
		n->nfs_port ? "MOUNT v3 port" : "NFS and MOUNT v3 ports";
	struct lx_rpcbind_opts ro = {.host = n->host, .timeo_ms = 3000};
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	uint16_t port;
	int err;

	err = getaddrinfo(n->host, NULL, &hints, &ai);
	if (err) {
		bench_error("cannot resolve %s: %s", n->host,
			    gai_strerror(err));
		return -EHOSTUNREACH;
	}
	freeaddrinfo(ai);
	if (!n->nfs_port) {
		err = lx_rpcbind_getport(&ro, LX_NFS3_PROGRAM, LX_NFS3_VERSION,
					 IPPROTO_TCP, &port);
		n->nfs_port = err ? NFS_DEF_PORT : port;
		/* no portmapper: the MOUNT port cannot be learnt either */
		if (err && err != -EPFNOSUPPORT && !n->mount_port)
			goto out_unreached;
	}
	if (!n->mount_port) {
		err = lx_rpcbind_getport(&ro, LX_MOUNT3_PROGRAM,
					 LX_MOUNT3_VERSION, IPPROTO_TCP, &port);
		if (err == -EPFNOSUPPORT) {
			bench_error("the portmapper (rpcbind) on %s port %u "
				    "answered: MOUNT v3 over TCP is not "
				    "registered (is the NFS server running? "
				    "A MOUNT service it does not know: give "
				    "--mount-port)",
				    n->host, LX_RPCBIND_PORT);
			return err;
		}
		if (err)
			goto out_unreached;
		n->mount_port = port;
	}
	return 0;

out_unreached:
	bench_error("cannot learn the %s from the portmapper (rpcbind) on %s "
		    "port %u: %s",
		    what, n->host, LX_RPCBIND_PORT, rpcbind_failure(err));
	return err;
}

/* A client mounted with the run's options into *@c (n->max_reqs slots per
 * connection); a message when it fails. */
static int make_clnt(struct nfs_be *n, struct lx_nfs3_clnt **c)
{
	const struct bench_config *cfg = n->cfg;
	struct lx_nfs3_opts o = {0};
	char msg[512] = "";
	int err;

	o.host = n->host;
	o.export_path = n->export_path;
	o.nfs_port = n->nfs_port;
	o.mount_port = n->mount_port;
	o.transport = cfg->transport == BENCH_TRANSPORT_RDMA ?
			      LX_XPRT_TRANSPORT_RDMA :
			      LX_XPRT_TRANSPORT_TCP;
	o.mode = cfg->xprt_mode == BENCH_XPRT_CALLER ? LX_XPRT_MODE_CALLER :
						       LX_XPRT_MODE_THREADED;
	o.nconnect = cfg->nconnect;
	o.max_reqs = n->max_reqs;
	o.set_ids = true;
	o.uid = cfg->uid;
	o.gid = cfg->gid;
	o.buf_size = NFS_BUF_SIZE;
	if (o.transport == LX_XPRT_TRANSPORT_RDMA) {
		/* windows by default (the jobs' buffers are registered in
		 * job_open); the cache only when asked: an entry per slot
		 * and some for the header buffers of Reply chunks */
		n->rdma.reg_mode = n->reg_mode;
		n->rdma.reg_cache_entries = n->max_reqs + 16;
		o.rdma = &n->rdma;
	}
	/* mount-style --timeo/--retrans/--hard; set-up steps within 30 s */
	o.timeo_ms = cfg->timeo_ds * 100;
	if (cfg->retrans >= 0)
		o.retrans = cfg->retrans ? (unsigned int)cfg->retrans :
					   LX_RPC_NO_RETRANS;
	o.hard = cfg->hard;
	o.zerocopy = cfg->zerocopy;
	o.jukebox_delay_ms = n->jukebox_delay_ms;
	o.jukebox_retries = n->jukebox_retries;
	o.xmit_fifo = n->xmit_fifo;
	o.max_in_flight = n->max_in_flight;
	o.log = bench_xprt_log;
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	err = lx_nfs3_create(c, &o);
	if (err) {
		if (cfg->transport == BENCH_TRANSPORT_RDMA &&
		    err == -EPROTONOSUPPORT)
			bench_error("%s:%u: the RDMA transport is not "
				    "available in this build of libxprt",
				    n->host, n->nfs_port);
		else if (cfg->transport == BENCH_TRANSPORT_RDMA &&
			 err == -ENODEV)
			bench_error("%s:%u: no RDMA device reaches this "
				    "server (is an RDMA NIC driver, or "
				    "rdma_rxe/siw, set up?)",
				    n->host, n->nfs_port);
		else
			bench_error("%s", msg[0] ? msg : lx_strerror(err));
		*c = NULL;
	}
	return err;
}

static int nfs_setup(void *priv, const struct bench_config *cfg,
		     struct bench_limits *lim)
{
	struct nfs_be *n = priv;
	int err;

	n->cfg = cfg;
	err = resolve_ports(n);
	if (err)
		return err;
	/* a client per job in caller mode: the job's I/Os alone */
	if (cfg->xprt_mode == BENCH_XPRT_CALLER) {
		n->jclnt = calloc(cfg->numjobs, sizeof(*n->jclnt));
		if (!n->jclnt)
			return -ENOMEM;
		n->njclnt = cfg->numjobs;
		n->max_reqs = cfg->job_inflight + cfg->nconnect + 1;
	} else {
		n->max_reqs = cfg->max_inflight + cfg->nconnect + 1;
	}
	err = make_clnt(n, &n->clnt);
	if (err)
		return err;
	lim->max_io = lx_nfs3_rsize(n->clnt) < lx_nfs3_wsize(n->clnt) ?
			      lx_nfs3_rsize(n->clnt) :
			      lx_nfs3_wsize(n->clnt);
	/* the transfer sizes are the server's (FSINFO), not the user's: one
	 * too small to carry any I/O is the server's fault, not a --bs the
	 * user should lower (the engine's usage error) */
	if (lim->max_io < NFS_MIN_IO) {
		bench_error("%s offers reads of at most %u bytes and writes of "
			    "at most %u (FSINFO rtmax, wtmax): below %u, too "
			    "small for any I/O",
			    n->host, lx_nfs3_rsize(n->clnt),
			    lx_nfs3_wsize(n->clnt), NFS_MIN_IO);
		return -EPROTO; /* the client goes in teardown() */
	}
	return 0;
}

static int set_size(struct nfs_be *n, const struct lx_nfs3_fh *fh,
		    uint64_t size)
{
	struct lx_nfs3_sattr sa = {.set_size = true, .size = size};
	struct lx_nfs3_wcc_res res;

	return lx_nfs3_setattr(n->clnt, fh, &sa, NULL, &res);
}

/* Look up (or create) @name in @dir; its handle and attributes. */
static int open_name(struct nfs_be *n, const struct lx_nfs3_fh *dir,
		     const char *name, bool create, struct lx_nfs3_fh *fh,
		     struct lx_nfs3_fattr *attr)
{
	struct lx_nfs3_sattr sa = {.set_mode = true, .mode = NFS_FILE_MODE};
	union {
		struct lx_nfs3_lookup_res lr;
		struct lx_nfs3_create_res cr;
		struct lx_nfs3_getattr_res gr;
	} u;
	bool have = false;
	int err;

	err = lx_nfs3_lookup(n->clnt, dir, name, &u.lr);
	if (!err) {
		*fh = u.lr.fh;
		have = u.lr.attr.present;
		*attr = u.lr.attr.attr;
	} else if (err == -ENOENT && create) {
		err = lx_nfs3_create_file(n->clnt, dir, name,
					  LX_NFS3_CREATE_UNCHECKED, &sa, NULL,
					  &u.cr);
		if (err)
			return err;
		if (!u.cr.fh_present)
			return open_name(n, dir, name, false, fh, attr);
		*fh = u.cr.fh;
		have = u.cr.attr.present;
		*attr = u.cr.attr.attr;
	}
	if (err || have)
		return err;
	err = lx_nfs3_getattr(n->clnt, fh, &u.gr);
	if (!err)
		*attr = u.gr.attr;
	return err;
}

/* stat(): LOOKUP the path; the size from its attributes (GETATTR when
 * the reply had none), for fio's --size=P% */
static int nfs_stat(void *priv, const char *filename, uint64_t *size)
{
	struct nfs_be *n = priv;
	struct lx_nfs3_fattr attr;
	struct lx_nfs3_fh fh;
	int err;

	err = lx_nfs3_lookup_path(n->clnt, filename, &fh, &attr);
	if (err)
		return err;
	if (attr.type == NF3DIR)
		return -EISDIR;
	if (attr.type != NF3REG) {
		bench_error("%s in %s on %s: not a regular file (type %u)",
			    filename, n->export_path, n->host,
			    (unsigned int)attr.type);
		return -EINVAL;
	}
	*size = attr.size;
	return 0;
}

static int nfs_job_open(void *priv, struct bench_job_info *job)
{
	struct nfs_be *n = priv;
	const char *slash, *name;
	char dir[LX_NFS3_MAXPATHLEN + 1] = "";
	struct lx_nfs3_fattr attr;
	struct lx_nfs3_fh dfh;
	struct nfs_file *f;
	bool cut;
	int err;

	job->priv = NULL;
	job->file_size = 0;
	if (n->jclnt && !job->filenum) {
		err = make_clnt(n, &n->jclnt[job->index]);
		if (err)
			return err;
	}
	if (!job->filename)
		return 0; /* --rw null */
	slash = strrchr(job->filename, '/');
	name = slash ? slash + 1 : job->filename;
	if (slash) {
		if ((size_t)(slash - job->filename) >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, job->filename, (size_t)(slash - job->filename));
		dir[slash - job->filename] = '\0';
	}
	f = aligned_alloc(NFS_CACHELINE, NFS_FILE_ALLOC);
	if (!f)
		return -ENOMEM;
	memset(f, 0, sizeof(*f));
	err = lx_nfs3_lookup_path(n->clnt, dir, &dfh, NULL);
	if (err) {
		bench_error("directory '%s' in %s on %s: %s", dir,
			    n->export_path, n->host, lx_strerror(err));
		goto out_free;
	}
	err = open_name(n, &dfh, name, job->open_flags & BENCH_OPEN_CREATE,
			&f->fh, &attr);
	if (err)
		goto out_err;
	if (attr.type != NF3REG && attr.type != NF3DIR) {
		/* a type NFSv3 has, or one a server made up: said as such */
		bench_error("%s in %s on %s: not a regular file (type %u)",
			    job->filename, n->export_path, n->host,
			    (unsigned int)attr.type);
		err = -EINVAL;
		goto out_free;
	}
	if (attr.type == NF3DIR) {
		err = -EISDIR;
		goto out_err;
	}
	job->file_size = attr.size;
	/*
	 * A workload that only writes starts from an empty file of --size
	 * bytes (only the first of the jobs sharing a file may cut it).  So
	 * does any verified writer: a reading one is laid out whole after
	 * this anyway.  Other readers keep the data that is there.
	 */
	cut = (job->open_flags & BENCH_OPEN_EXTEND) &&
	      (!(n->cfg->ops_used & BENCH_OP_BIT(BENCH_OP_READ)) ||
	       n->cfg->verify);
	if (cut && (!job->shared || job->index == 0)) {
		if (attr.size)
			err = set_size(n, &f->fh, 0);
		if (!err)
			err = set_size(n, &f->fh, job->size);
		if (err)
			goto out_err;
		job->file_size = job->size;
	}
	if (n->cfg->transport == BENCH_TRANSPORT_RDMA && job->buf_base &&
	    job->buf_len && n->reg_mode != LX_XPRT_RDMA_REG_PER_IO &&
	    n->reg_mode != LX_XPRT_RDMA_REG_CACHE_UNSAFE) {
		/* once for the run: windows over it per I/O */
		err = lx_xprt_rdma_mem_register(job->buf_base, job->buf_len,
						&f->mem);
		if (err) {
			bench_error("job %s: registering its %zu bytes of "
				    "buffers for RDMA: %s",
				    job->filename, job->buf_len,
				    lx_strerror(err));
			goto out_free;
		}
	}
	job->priv = f;
	return 0;

out_err:
	if (err == -EACCES || err == -EPERM)
		bench_error("%s in %s on %s: permission denied to uid %u gid "
			    "%u (--uid/--gid)",
			    job->filename, n->export_path, n->host, n->cfg->uid,
			    n->cfg->gid);
	else
		bench_error("%s in %s on %s: %s", job->filename, n->export_path,
			    n->host, lx_strerror(err));
out_free:
	free(f);
	return err;
}

/* ------------------------------------------------------------ I/O */

static uint64_t verf_word(const uint8_t *v)
{
	uint64_t w;

	memcpy(&w, v, sizeof(w));
	return w;
}

/*
 * A WRITE reply's verifier: the first one the job sees becomes its
 * reference (state 0 -> 1 -> 2); later ones that differ are counted.  A
 * reply racing with the very first one (state 1) is not compared: the
 * COMMIT's verifier is checked against the reference in any case.
 * Context: completions (any thread) and job_sync() (nothing in flight).
 */
static void note_verf(struct nfs_file *f, const uint8_t *v)
{
	uint64_t w = verf_word(v);
	int st = atomic_load_explicit(&f->verf_state, memory_order_acquire);

	if (st == 2) {
		if (atomic_load_explicit(&f->verf, memory_order_relaxed) != w)
			atomic_fetch_add_explicit(&f->verf_changes, 1,
						  memory_order_relaxed);
		return;
	}
	if (st == 0 && atomic_compare_exchange_strong_explicit(
			       &f->verf_state, &st, 1, memory_order_relaxed,
			       memory_order_relaxed)) {
		atomic_store_explicit(&f->verf, w, memory_order_relaxed);
		atomic_store_explicit(&f->verf_state, 2, memory_order_release);
	}
}

/* An UNSTABLE WRITE reply: the file needs a COMMIT; check its verifier. */
static void note_unstable(struct nfs_be *n, struct nfs_file *f,
			  const uint8_t *verf)
{
	atomic_fetch_add_explicit(&n->unstable_writes, 1, memory_order_relaxed);
	/* read first: no cache-line ping-pong once set */
	if (!atomic_load_explicit(&f->dirty, memory_order_relaxed))
		atomic_store_explicit(&f->dirty, true, memory_order_relaxed);
	note_verf(f, verf);
}

/* Completion: on the transport's receive thread, or the job's own
 * inside nfs_job_service() (caller mode); must not block. */
static void nfs_done(struct lx_call *call, int status, void *arg)
{
	struct bench_io *io = arg;
	struct nfs_io *ni = io->priv;
	struct nfs_be *n = ni->be;
	size_t bytes = 0;

	if (status) {
		bench_io_done(io, status, 0);
		return;
	}
	if (io->op == BENCH_OP_READ) {
		bytes = ni->res.rd.count;
	} else if (io->op == BENCH_OP_WRITE) {
		bytes = ni->res.wr.count;
		if (ni->res.wr.committed == LX_NFS3_UNSTABLE)
			note_unstable(n, io->job->priv, ni->res.wr.verf);
	}
	bench_io_done(io, 0, bytes);
}

static int nfs_submit(void *priv, struct bench_io *io, unsigned int flags)
{
	struct nfs_be *n = priv;
	struct nfs_io *ni = io->priv;
	struct nfs_file *f = io->job->priv;
	struct lx_nfs3_clnt *c = n->jclnt ? n->jclnt[io->job->index] : n->clnt;
	int err;

	ni->call.done = nfs_done;
	ni->call.arg = io;
	ni->call.owner = io->owner;
	ni->call.flags = flags & BENCH_SUBMIT_NOWAIT ? LX_CALL_NOWAIT : 0;
	ni->be = n;
	switch (io->op) {
	case BENCH_OP_READ:
		ni->iov.iov_base = io->buf;
		ni->iov.iov_len = io->len;
		err = lx_nfs3_read_async(c, &ni->call, &f->fh, io->offset,
					 io->len, &ni->iov, 1, &ni->res.rd);
		break;
	case BENCH_OP_WRITE:
		ni->iov.iov_base = io->buf;
		ni->iov.iov_len = io->len;
		err = lx_nfs3_write_async(c, &ni->call, &f->fh, io->offset,
					  &ni->iov, 1, n->stable, &ni->res.wr);
		break;
	case BENCH_OP_GETATTR:
		err = lx_nfs3_getattr_async(c, &ni->call, &f->fh, &ni->res.ga);
		break;
	case BENCH_OP_NULL:
		err = lx_nfs3_null_async(c, &ni->call);
		break;
	case BENCH_OP_FSYNC: /* fio's fsync=N: COMMIT the whole file */
		err = lx_nfs3_commit_async(c, &ni->call, &f->fh, 0, 0,
					   &ni->res.cm);
		break;
	default:
		return -EINVAL;
	}
	if (err == -EBUSY)
		atomic_fetch_add_explicit(&n->eagain, 1, memory_order_relaxed);
	return err;
}

/*
 * Caller mode: the job's thread services its client until a completion
 * (nfs_done() runs here) or the engine's deadline.  lx_nfs3_loop_run()
 * waits first when it waits for a completion, inside the service's own
 * look at the descriptor: one system call per wake-up.
 */
static int nfs_job_service(void *priv, struct bench_job_info *job,
			   uint64_t deadline_ns)
{
	struct lx_nfs3_clnt *c = ((struct nfs_be *)priv)->jclnt[job->index];

	return lx_nfs3_loop_run(c, NULL, 1, deadline_ns);
}

/* ------------------------------------------------------------ the end */

/* blocks to write again, coalesced into one WRITE of up to @cap bytes */
struct nfs_resend {
	struct nfs_be *n;
	struct nfs_file *f;
	uint8_t *buf;
	size_t cap, len;
	uint64_t off;
};

/* WRITE rs->buf at rs->off, all of it (a short write goes on) */
static int resend_flush(struct nfs_resend *rs)
{
	struct nfs_be *n = rs->n;
	struct lx_nfs3_write_res res;
	struct iovec iov;
	size_t done = 0;
	int err;

	while (done < rs->len) {
		iov.iov_base = rs->buf + done;
		iov.iov_len = rs->len - done;
		err = lx_nfs3_write(n->clnt, &rs->f->fh, rs->off + done, &iov,
				    1, n->stable, &res);
		if (!err && !res.count)
			err = -EIO;
		if (err)
			return err;
		if (res.committed == LX_NFS3_UNSTABLE)
			note_unstable(n, rs->f, res.verf);
		done += res.count;
		n->resent_bytes += res.count;
	}
	rs->len = 0;
	return 0;
}

/* bench_block_fn: one known block, its bytes made again from its tag */
static int resend_block(void *arg, uint64_t off, uint32_t len, uint32_t tag)
{
	struct nfs_resend *rs = arg;
	int err;

	if (rs->len && (rs->off + rs->len != off || rs->len + len > rs->cap)) {
		err = resend_flush(rs);
		if (err)
			return err;
	}
	if (!rs->len)
		rs->off = off;
	bench_pattern_fill(rs->buf + rs->len, off, len, tag);
	rs->len += len;
	return 0;
}

/* Write every block of the job's file the run knows again. */
static int resend_known(struct nfs_be *n, struct bench_job_info *job)
{
	struct nfs_resend rs = {.n = n, .f = job->priv};
	int err;

	rs.cap = lx_nfs3_wsize(n->clnt);
	if (rs.cap < n->cfg->bs)
		rs.cap = n->cfg->bs;
	rs.buf = malloc(rs.cap);
	if (!rs.buf)
		return -ENOMEM;
	err = bench_job_known_blocks(job, resend_block, &rs);
	if (!err && rs.len)
		err = resend_flush(&rs);
	free(rs.buf);
	if (err)
		bench_error("writing %s again on %s failed: %s", job->filename,
			    n->host, lx_strerror(err));
	return err;
}

/* Did the server's verifier change since the job's writes went out? */
static bool verf_changed(struct nfs_file *f, const uint8_t *commit_verf)
{
	int st = atomic_load_explicit(&f->verf_state, memory_order_acquire);

	return atomic_load(&f->verf_changes) ||
	       (st == 2 && verf_word(commit_verf) != atomic_load(&f->verf));
}

/*
 * job_sync() and job_end(): COMMIT the job's unstable writes; after a
 * verifier change write the known blocks again under the new verifier
 * and COMMIT again (see "Stability" at the top).
 */
static int nfs_job_sync(void *priv, struct bench_job_info *job)
{
	struct nfs_be *n = priv;
	struct nfs_file *f = job->priv;
	struct lx_nfs3_commit_res res;
	unsigned int round;
	uint64_t t0;
	int err;

	if (!f || !atomic_load(&f->dirty))
		return 0;
	for (round = 0;; round++) {
		t0 = bench_now_ns();
		err = lx_nfs3_commit(n->clnt, &f->fh, 0, 0, &res);
		n->commit_ns += bench_now_ns() - t0;
		n->commits++;
		if (err) {
			bench_error("COMMIT of %s on %s failed: %s",
				    job->filename, n->host, lx_strerror(err));
			return err;
		}
		if (!verf_changed(f, res.verf))
			break;
		n->verf_changes++;
		if (!n->cfg->verify) {
			bench_error("%s: the server's write verifier changed "
				    "during the run (did it restart?): "
				    "unstable writes may have been lost; with "
				    "--verify they are written again",
				    n->host);
			return -EIO;
		}
		if (round == NFS_SYNC_ROUNDS) {
			bench_error("%s: the server's write verifier kept "
				    "changing (%u COMMITs): %s not durable",
				    n->host, round + 1, job->filename);
			return -EIO;
		}
		/* the new reference, for the writes that follow */
		atomic_store(&f->verf, verf_word(res.verf));
		atomic_store(&f->verf_state, 2);
		atomic_store(&f->verf_changes, 0);
		err = resend_known(n, job);
		if (err)
			return err;
	}
	atomic_store(&f->dirty, false);
	return 0;
}

static void nfs_job_close(void *priv, struct bench_job_info *job)
{
	struct nfs_file *f = job->priv;

	(void)priv;
	if (f && f->mem && lx_xprt_rdma_mem_unregister(f->mem))
		bench_error("job %s: its RDMA buffer registration is still "
			    "in use",
			    job->filename);
	free(job->priv);
	job->priv = NULL;
}

/* Where the jobs' files live, for the engine's error hints. */
static const char *nfs_where(void *priv)
{
	struct nfs_be *n = priv;

	snprintf(n->where, sizeof(n->where), "%s:%s", n->host,
		 n->export_path ? n->export_path : "");
	return n->where;
}

/*
 * The transport counters of every client (set-up's and the jobs' own),
 * summed: lx_rpc_stats() sums a client's connections, all of its fields
 * counters.
 */
static void clients_stats(struct nfs_be *n, struct lx_xprt_stats *sum)
{
	uint64_t *to = (uint64_t *)sum;
	struct lx_rpc_stats rs;
	struct lx_nfs3_clnt *c;
	unsigned int i, k;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i <= n->njclnt; i++) {
		c = i ? n->jclnt[i - 1] : n->clnt;
		if (!c)
			continue;
		lx_rpc_stats(lx_nfs3_rpc(c), &rs);
		for (k = 0; k < sizeof(rs.xprt) / sizeof(uint64_t); k++)
			to[k] += ((const uint64_t *)&rs.xprt)[k];
	}
}

static void nfs_stats(void *priv, bench_stat_fn fn, void *arg)
{
	struct nfs_be *n = priv;
	struct lx_xprt_stats sum;
	struct lx_rpc_clnt *rpc;
	unsigned int i, nc;

	if (!n->clnt)
		return;
	rpc = lx_nfs3_rpc(n->clnt);
	nc = lx_rpc_nconnect(rpc);
	clients_stats(n, &sum);
	fn(arg, "clients", 1 + n->njclnt);
	fn(arg, "nconnect", nc);
	fn(arg, "max_reqs_per_conn", n->max_reqs);
	fn(arg, "xmit_fifo", n->xmit_fifo);
	fn(arg, "max_in_flight", n->max_in_flight);
	fn(arg, "rsize", lx_nfs3_rsize(n->clnt));
	fn(arg, "wsize", lx_nfs3_wsize(n->clnt));
	fn(arg, "calls", sum.submitted);
	fn(arg, "replies", sum.replies);
	fn(arg, "sends", sum.sends);
	fn(arg, "send_syscalls", sum.send_calls);
	fn(arg, "direct_sends", sum.direct_sends);
	fn(arg, "worker_sends", sum.worker_sends);
	fn(arg, "retransmits", sum.retransmits);
	fn(arg, "timeouts", sum.timeouts);
	fn(arg, "connects", sum.connects);
	fn(arg, "disconnects", sum.disconnects);
	fn(arg, "unknown_replies", sum.bad_keys);
	fn(arg, "early_disconnects", sum.early_disconnects);
	fn(arg, "not_responding", sum.not_responding);
	fn(arg, "garbage_records", sum.garbage);
	fn(arg, "jukebox_retries", sum.resubmits);
	fn(arg, "orphans", sum.orphans);
	fn(arg, "orphan_replies", sum.orphan_replies);
	fn(arg, "orphans_expired", sum.orphans_expired);
	fn(arg, "bytes_sent", sum.bytes_sent);
	fn(arg, "bytes_received", sum.bytes_received);
	fn(arg, "bytes_received_direct", sum.direct_rx_bytes);
	if (n->cfg->zerocopy) {
		fn(arg, "zerocopy_sends", sum.zerocopy_sends);
		fn(arg, "zerocopy_completions", sum.zerocopy_completions);
		fn(arg, "zerocopy_copied", sum.zerocopy_copied);
	}
	fn(arg, "nowait_refused", atomic_load(&n->eagain));
	fn(arg, "unstable_writes", atomic_load(&n->unstable_writes));
	fn(arg, "commits", n->commits);
	fn(arg, "commit_us", n->commit_ns / 1000);
	fn(arg, "write_verifier_changes", n->verf_changes);
	fn(arg, "resent_bytes", n->resent_bytes);
	if (n->cfg->transport == BENCH_TRANSPORT_RDMA) {
		struct lx_xprt_rdma_stats r, rs = {0};

		for (i = 0; i < nc; i++) {
			if (lx_xprt_rdma_stats(lx_rpc_xprt(rpc, i), &r))
				continue;
			rs.reg_mode = r.reg_mode;
			rs.send_doorbells += r.send_doorbells;
			rs.recv_doorbells += r.recv_doorbells;
			rs.win_binds += r.win_binds;
			rs.win_remote_inv += r.win_remote_inv;
			rs.win_local_inv += r.win_local_inv;
			rs.win_deallocs += r.win_deallocs;
			rs.win_allocs += r.win_allocs;
			rs.win_bad_inv += r.win_bad_inv;
			rs.inv_waits += r.inv_waits;
			rs.regs += r.regs;
			rs.deregs += r.deregs;
			rs.reg_hits += r.reg_hits;
		}
		fn(arg, "rdma_reg_mode", rs.reg_mode);
		fn(arg, "rdma_send_doorbells", rs.send_doorbells);
		fn(arg, "rdma_recv_doorbells", rs.recv_doorbells);
		fn(arg, "rdma_win_binds", rs.win_binds);
		fn(arg, "rdma_win_remote_inv", rs.win_remote_inv);
		fn(arg, "rdma_win_local_inv", rs.win_local_inv);
		fn(arg, "rdma_win_deallocs", rs.win_deallocs);
		fn(arg, "rdma_win_allocs", rs.win_allocs);
		fn(arg, "rdma_win_bad_inv", rs.win_bad_inv);
		fn(arg, "rdma_inv_waits", rs.inv_waits);
		fn(arg, "rdma_regs", rs.regs);
		fn(arg, "rdma_deregs", rs.deregs);
		fn(arg, "rdma_reg_hits", rs.reg_hits);
	}
}

/* After a failed I/O: what the connections saw, and what to change. */
static void nfs_explain(void *priv, int err)
{
	struct nfs_be *n = priv;
	const struct bench_config *cfg = n->cfg;
	struct lx_xprt_stats sum;
	char seen[384];
	double timeo;
	unsigned int retrans;

	if (!n->clnt)
		return;
	clients_stats(n, &sum);
	lx_xprt_stats_explain(&sum, seen, sizeof(seen));
	timeo = (cfg->timeo_ds ? cfg->timeo_ds : 600) / 10.0;
	retrans = cfg->retrans >= 0 ? (unsigned int)cfg->retrans : 2;
	switch (err) {
	case -ETIMEDOUT:
		bench_error("%s:%u did not answer in time: --timeo %.0f (%.1f "
			    "s, doubling) with --retrans %u; --hard waits "
			    "for ever (seen: %s)",
			    n->host, n->nfs_port, timeo * 10, timeo, retrans,
			    seen);
		break;
	case -ECONNRESET:
		bench_error("%s:%u closed the connection each time before "
			    "replying (seen: %s)",
			    n->host, n->nfs_port, seen);
		break;
	case -EAGAIN:
		bench_error("%s:%u answered NFS3ERR_JUKEBOX (busy, try later) "
			    "to every try: %u retries %.1f s apart "
			    "(--jukebox-retries, --jukebox-delay)",
			    n->host, n->nfs_port,
			    n->jukebox_retries ? n->jukebox_retries : 6,
			    (n->jukebox_delay_ms ? n->jukebox_delay_ms : 5000) /
				    1000.0);
		break;
	default:
		bench_error("the connections to %s:%u saw: %s", n->host,
			    n->nfs_port, seen);
	}
}

static void nfs_teardown(void *priv)
{
	struct nfs_be *n = priv;
	unsigned int i;

	for (i = 0; i < n->njclnt; i++)
		lx_nfs3_destroy(n->jclnt[i]);
	free(n->jclnt);
	n->jclnt = NULL;
	n->njclnt = 0;
	lx_nfs3_destroy(n->clnt);
	n->clnt = NULL;
}

static const struct bench_backend_ops nfs3_backend = {
	.name = "nfs3",
	.summary = "Benchmark an NFSv3 server with fio-style jobs over "
		   "libxprt (no kernel mount).",
	.priv_size = sizeof(struct nfs_be),
	.io_priv_size = sizeof(struct nfs_io),
	.ops_supported =
		BENCH_OP_BIT(BENCH_OP_READ) | BENCH_OP_BIT(BENCH_OP_WRITE) |
		BENCH_OP_BIT(BENCH_OP_NULL) | BENCH_OP_BIT(BENCH_OP_GETATTR) |
		BENCH_OP_BIT(BENCH_OP_FSYNC),
	.options = nfs_options,
	.usage_extra =
		"Examples:\n"
		"  nfs3-bench --server nfs1 --export /export --preset "
		"nfs-randrw --time_based --runtime 60\n"
		"  nfs3-bench --server 192.0.2.10:2049 --mount-port 20048 "
		"--export /export \\\n"
		"      --rw randread --bs 4k --iodepth 64 --numjobs 4 "
		"--time_based --runtime 30\n"
		"  nfs3-bench --server nfs1 --export /export --rw null "
		"--iodepth 16 --runtime 10\n",
	.init = nfs_init,
	.parse_option = nfs_parse_option,
	.check = nfs_check,
	.setup = nfs_setup,
	.stat = nfs_stat,
	.job_open = nfs_job_open,
	.submit = nfs_submit,
	.job_service = nfs_job_service,
	.job_end = nfs_job_sync,
	.job_sync = nfs_job_sync,
	.job_close = nfs_job_close,
	.stats = nfs_stats,
	.where = nfs_where,
	.explain = nfs_explain,
	.url_scheme = "nfs",
	.url = nfs_url,
	.teardown = nfs_teardown,
};

int main(int argc, char **argv)
{
	return bench_main(&nfs3_backend, argc, argv);
}

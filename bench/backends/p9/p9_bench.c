/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p9-bench: the 9P2000.L back-end of the bench engine.
 *
 * Completions run on the sessions' receive threads, which hand them to
 * the engine, which resubmits with LX_CALL_NOWAIT.  Sessions, request slots
 * and the recovery of a lost session: see p9_sess.c.  Transfers larger
 * than one message, --alloc malloc, the helper thread and resubmission:
 * see p9_io.c.
 *
 * --libxprt-mode caller (TCP without --zerocopy, one session per job): no
 * thread but the engine's.  Set-up's session, caller-driven, serves the
 * main thread's stat() until the first job_open(); job_open() of a job's
 * first file makes the job a session of its own, caller-driven too, and
 * opens its files there; the job's thread services it (p9b_job_service():
 * lx_p9_loop_run() until a completion or the engine's deadline), so
 * completions, resubmissions and the recovery of a lost session all run
 * on that thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p9_bench.h"

#define P9B_DEF_MSIZE	     (512u << 10)
#define P9B_DEF_RECONNECT_NS 30000000000ull /* 30 s */

enum {
	PO_SERVER,
	PO_ANAME,
	PO_MSIZE,
	PO_ALLOC,
	PO_MAX_REQS,
	PO_RECONNECT,
};

static const struct bench_option p9b_options[] = {
	{"server", "HOST[:PORT]|URL",
	 "9P server (required) [port 564 tcp, 5640 rdma],\n"
	 "                       or a URL: 9p://HOST[:PORT]/ANAME?...",
	 PO_SERVER},
	{"aname", "PATH", "tree to attach, e.g. the exported path (required)",
	 PO_ANAME},
	{"msize", "SIZE", "largest message to offer in Tversion [512k]",
	 PO_MSIZE},
	{"alloc", "pool|malloc",
	 "pool, or malloc: 2 x msize buffers per message [pool]", PO_ALLOC},
	{"max-reqs", "N",
	 "request slots per session [every I/O in flight + 16]", PO_MAX_REQS},
	{"reconnect-timeout", "TIME",
	 "re-establish a lost session for TIME, 0: never [30s]", PO_RECONNECT},
	{NULL, NULL, NULL, 0},
};
/* ------------------------------------------------------------ options */

static int p9b_init(void *priv)
{
	struct p9b *p = priv;

	p->msize = P9B_DEF_MSIZE;
	p->alloc = P9B_ALLOC_POOL;
	p->reconnect_ns = P9B_DEF_RECONNECT_NS;
	return 0;
}

/* HOST, HOST:PORT, [V6], [V6]:PORT, or a bare IPv6 address */
static int parse_server(struct p9b *p, const char *arg)
{
	const char *host = arg, *end, *port = NULL;
	uint64_t v;

	if (arg[0] == '[') {
		end = strchr(arg, ']');
		if (!end || end == arg + 1)
			return -EINVAL;
		host = arg + 1;
		if (end[1] == ':')
			port = end + 2;
		else if (end[1])
			return -EINVAL;
	} else {
		end = strchr(arg, ':');
		if (end && !strchr(end + 1, ':'))
			port = end + 1;
		else
			end = arg + strlen(arg); /* no port, or bare IPv6 */
	}
	if (end == host)
		return -EINVAL;
	if (port) {
		if (bench_parse_u64(port, 65535, &v) || !v)
			return -EINVAL;
		p->port = (uint16_t)v;
	}
	free(p->host);
	p->host = strndup(host, (size_t)(end - host));
	return p->host ? 0 : -ENOMEM;
}

static int p9b_parse_option(void *priv, int id, const char *arg)
{
	struct p9b *p = priv;
	uint64_t v;

	switch (id) {
	case PO_SERVER:
		if (parse_server(p, arg))
			break;
		return 0;
	case PO_ANAME:
		p->aname = arg;
		return 0;
	case PO_MSIZE:
		if (bench_parse_size(arg, &v) || v < LX_P9_MIN_MSIZE ||
		    v > LX_P9_MAX_MSIZE) {
			bench_error("--msize: '%s' is not a size from %u to %u "
				    "bytes (4k to 8m)",
				    arg, LX_P9_MIN_MSIZE, LX_P9_MAX_MSIZE);
			return -EINVAL;
		}
		p->msize = (uint32_t)v;
		return 0;
	case PO_ALLOC:
		if (!strcmp(arg, "pool"))
			p->alloc = P9B_ALLOC_POOL;
		else if (!strcmp(arg, "malloc"))
			p->alloc = P9B_ALLOC_MALLOC;
		else
			break;
		return 0;
	case PO_MAX_REQS:
		if (bench_parse_u64(arg, 0xFFFF, &v) || v < 2)
			break;
		p->max_reqs_opt = (unsigned int)v;
		return 0;
	case PO_RECONNECT:
		if (bench_parse_time(arg, &v))
			break;
		p->reconnect_ns = v;
		p->reconnect_set = true;
		return 0;
	}
	bench_error("--%s: '%s' is not valid (see --help)",
		    p9b_options[id].name, arg ? arg : "");
	return -EINVAL;
}

/*
 * A 9p:// URL, parsed by libxprt (libxprt/url.h): 9p://HOST[:PORT]/ANAME
 * with msize= and max-reqs= besides the engine's arguments.  In
 * --filename the path is the aname and the file, split at the last '/'
 * unless --aname or a --server URL said where the aname ends.  The aname
 * is the exported directory for diod, the export's pseudo path for
 * ganesha.
 */
static int p9b_url(void *priv, struct lx_url *u, char *file, size_t len)
{
	struct p9b *p = priv;
	struct lx_p9_opts o = {0};
	char *host;

	if (file && bench_url_file(u, p->aname, file, len))
		return -EINVAL;
	lx_url_p9_opts(u, &o);
	/* (timeo= went to the engine's --timeo with the others) */
	if (o.uname || o.max_fids) {
		bench_error("URL: p9-bench attaches by uid= and chooses its "
			    "fids itself: no USER@, uname= or max-fids=");
		return -EINVAL;
	}
	if (strlen(o.aname) >= sizeof(p->aname_buf)) {
		bench_error("URL: the aname is too long");
		return -EINVAL;
	}
	host = strdup(o.host);
	if (!host)
		return -ENOMEM;
	free(p->host);
	p->host = host;
	if (o.port)
		p->port = o.port;
	if (o.msize)
		p->msize = o.msize;
	if (o.max_reqs)
		p->max_reqs_opt = o.max_reqs;
	strcpy(p->aname_buf, o.aname);
	p->aname = p->aname_buf;
	return 0;
}

static int p9b_check(void *priv, const struct bench_config *cfg)
{
	struct p9b *p = priv;

	if (!p->host) {
		bench_error("--server HOST[:PORT] is required");
		return -EINVAL;
	}
	if (!p->aname) {
		bench_error("--aname PATH is required (the tree to attach: "
			    "diod wants the exported directory, ganesha its "
			    "pseudo path)");
		return -EINVAL;
	}
	if (cfg->xprt_mode != BENCH_XPRT_CALLER)
		return 0;
	if (cfg->transport == BENCH_TRANSPORT_RDMA || cfg->zerocopy) {
		bench_error("--libxprt-mode caller runs over TCP without "
			    "--zerocopy only (libxprt's caller-driven mode: no "
			    "RDMA, no MSG_ZEROCOPY yet)");
		return -EINVAL;
	}
	if (cfg->nconnect > 1) {
		bench_error("--libxprt-mode caller gives each job one 9P "
			    "session of its own, one connection: --nconnect %u "
			    "spreads the jobs over shared sessions in threaded "
			    "mode only",
			    cfg->nconnect);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------ setup */

static int p9b_setup(void *priv, const struct bench_config *cfg,
		     struct bench_limits *lim)
{
	struct p9b *p = priv;
	int ret;

	p->cfg = cfg;
	p->nc = cfg->nconnect ? cfg->nconnect : 1;
	p->caller = cfg->xprt_mode == BENCH_XPRT_CALLER;
	ret = p9b_helper_start(p);
	if (ret)
		return ret;
	ret = p9b_sess_setup(p);
	if (ret)
		return ret;
	/* layout writes of up to one message; --bs may take up to
	 * P9B_MAX_PARTS */
	if (cfg->bs <= (size_t)P9B_MAX_PARTS * p->iosize)
		p->max_io = cfg->bs > p->iosize ? cfg->bs : p->iosize;
	else
		p->max_io = (size_t)P9B_MAX_PARTS * p->iosize;
	lim->max_io = p->max_io;
	getrusage(RUSAGE_SELF, &p->ru0);
	return 0;
}

/*
 * Open (create, extend) the job's file on @c.  On error nothing is left
 * open on @c.
 */
static int p9b_job_open_on(struct p9b *p, struct bench_job_info *job,
			   struct p9b_job *pj, struct lx_p9_clnt *c)
{
	struct lx_p9_attr attr;
	uint32_t flags = pj->oflags, iounit = 0;
	int ret;

	if (job->open_flags & BENCH_OPEN_CREATE)
		flags |= O_CREAT;
	ret = lx_p9_open_path(c, job->filename, flags, 0644, &pj->fid, &iounit);
	if (ret)
		return ret;
	ret = lx_p9_getattr(c, pj->fid, LX_P9_GETATTR_SIZE, &attr);
	if (ret)
		goto out_clunk;
	if ((job->open_flags & BENCH_OPEN_EXTEND) && attr.size < job->size) {
		struct lx_p9_iattr ia = {.valid = LX_P9_SETATTR_SIZE,
					 .size = job->size};

		ret = lx_p9_setattr(c, pj->fid, &ia);
		if (ret)
			goto out_clunk;
		attr.size = job->size;
	}
	pj->chunk = p->iosize;
	if (iounit && iounit < pj->chunk)
		pj->chunk = iounit;
	if (p9b_parts_for(p->max_io, pj->chunk) > P9B_MAX_PARTS) {
		bench_error("%s: the server's iounit %u makes a %zu-byte "
			    "transfer %u messages, more than %u: lower --bs",
			    job->filename, iounit, p->max_io,
			    p9b_parts_for(p->max_io, pj->chunk), P9B_MAX_PARTS);
		ret = -EFBIG;
		goto out_clunk;
	}
	job->file_size = attr.size;
	return 0;

out_clunk:
	lx_p9_clunk(c, pj->fid);
	return ret;
}

/* stat(): Twalk to the file, Tgetattr its size, Tclunk (fio's
 * --size=P%); a lost session is re-established first */
static int p9b_stat(void *priv, const char *filename, uint64_t *size)
{
	struct p9b *p = priv;
	struct p9b_sess *s = &p->sess[0];
	struct lx_p9_attr attr;
	struct lx_p9_clnt *c;
	struct lx_p9_qid qid;
	unsigned int gen;
	uint32_t fid;
	int ret;

	for (;;) {
		p9b_sess_get(s, &c, &gen);
		ret = lx_p9_walk_path(c, LX_P9_NOFID, filename, &fid, &qid);
		if (!ret) {
			ret = lx_p9_getattr(c, fid, LX_P9_GETATTR_SIZE, &attr);
			lx_p9_clunk(c, fid);
		}
		if (!ret || !p9b_sess_lost(p, ret))
			break;
		ret = p9b_sess_recover(p, s, gen, "Twalk");
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	if (qid.type & LX_P9_QTDIR)
		return -EISDIR;
	*size = attr.size;
	return 0;
}

static int p9b_job_open(void *priv, struct bench_job_info *job)
{
	struct p9b *p = priv;
	struct p9b_job *pj;
	struct lx_p9_clnt *c;
	unsigned int gen;
	int ret;

	if (!job->filename)
		return -EINVAL; /* p9-bench has no file-less workload */
	pj = calloc(1, sizeof(*pj));
	if (!pj)
		return -ENOMEM;
	pj->path = strdup(job->filename);
	if (!pj->path) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (p->caller) {
		/* the job's own session, made with its first file */
		if (!job->filenum) {
			ret = p9b_sess_open_job(p, job->index);
			if (ret)
				goto out_free;
		}
		pj->s = &p->sess[p->nc + job->index];
	} else {
		pj->s = &p->sess[job->index % p->nc];
	}
	pj->oflags = job->open_flags & BENCH_OPEN_WRITE ? O_RDWR : O_RDONLY;
	/* no I/O is in flight yet: the session changes only here */
	for (;;) {
		p9b_sess_get(pj->s, &c, &gen);
		ret = p9b_job_open_on(p, job, pj, c);
		if ((ret == -EROFS || ret == -EACCES || ret == -EPERM) &&
		    (job->open_flags & BENCH_OPEN_LAYOUT) &&
		    pj->oflags != O_RDONLY) {
			/* a read-only export: reading needs no more */
			pj->oflags = O_RDONLY;
			job->read_only = true;
			continue;
		}
		if (!ret || !p9b_sess_lost(p, ret))
			break;
		ret = p9b_sess_recover(p, pj->s, gen, "Twalk");
		if (ret)
			break;
	}
	if (ret)
		goto out_free;
	p9b_sess_add_job(pj);
	job->priv = pj;
	return 0;

out_free:
	free(pj->path);
	free(pj);
	return ret;
}

/* ------------------------------------------------------------ the rest */

/*
 * job_sync(): fio's --end_fsync=1, a Tfsync of the job's file once a
 * phase that wrote is over (the engine calls it after the last one too,
 * so a job_end() would sync twice).  Without it nothing is due: a
 * completed Twrite is on the server already (no unstable writes as in
 * NFS), as a completed write(2) is for fio.  A session lost meanwhile is
 * re-established first.
 */
static int p9b_job_sync(void *priv, struct bench_job_info *job)
{
	struct p9b *p = priv;
	struct p9b_job *pj = job->priv;
	struct lx_p9_clnt *c;
	unsigned int gen;
	int ret;

	if (!p->cfg->end_fsync || !pj || pj->oflags == O_RDONLY)
		return 0;
	for (;;) {
		p9b_sess_get(pj->s, &c, &gen);
		ret = lx_p9_fsync(c, pj->fid, false);
		if (!ret || !p9b_sess_lost(p, ret))
			break;
		ret = p9b_sess_recover(p, pj->s, gen, "Tfsync");
		if (ret)
			return ret; /* said by p9b_sess_recover() */
	}
	if (ret)
		bench_error("%s: Tfsync: %s", job->filename, lx_strerror(ret));
	else
		p->end_fsyncs++;
	return ret;
}

static void p9b_job_close(void *priv, struct bench_job_info *job)
{
	struct p9b_job *pj = job->priv;
	struct lx_p9_clnt *c;
	unsigned int gen;

	if (!pj)
		return;
	p9b_sess_del_job(pj);
	/* a session lost for good has nothing to clunk: its error is moot */
	p9b_sess_get(pj->s, &c, &gen);
	lx_p9_clunk(c, pj->fid);
	free(pj->path);
	free(pj);
	job->priv = NULL;
}

static void p9b_stats(void *priv, bench_stat_fn fn, void *arg)
{
	struct p9b *p = priv;
	struct p9b_counters sum;
	struct rusage ru;

	p9b_sess_counters(p, &sum);
	getrusage(RUSAGE_SELF, &ru);
	fn(arg, "sessions", p->nsess); /* caller mode: set-up's + a job's */
	fn(arg, "msize", p->msize_got);
	fn(arg, "iosize", p->iosize);
	fn(arg, "max_reqs", p->max_reqs);
	fn(arg, "alloc_malloc", p->alloc == P9B_ALLOC_MALLOC);
	fn(arg, "messages", sum.messages);
	fn(arg, "split_ios", atomic_load(&p->split_ios));
	fn(arg, "deferred", atomic_load(&p->deferred));
	fn(arg, "end_fsyncs", p->end_fsyncs);
	fn(arg, "direct_sends", sum.direct_sends);
	fn(arg, "worker_sends", sum.worker_sends);
	fn(arg, "send_syscalls", sum.send_syscalls);
	fn(arg, "bytes_sent", sum.bytes_sent);
	fn(arg, "bytes_received", sum.bytes_received);
	fn(arg, "bytes_received_direct", sum.bytes_received_direct);
	if (p->cfg->zerocopy) {
		fn(arg, "zerocopy_sends", sum.zerocopy_sends);
		fn(arg, "zerocopy_completions", sum.zerocopy_completions);
		fn(arg, "zerocopy_copied", sum.zerocopy_copied);
	}
	fn(arg, "pool_gets", sum.pool_gets);
	fn(arg, "pool_misses", sum.pool_misses);
	fn(arg, "pool_high_water", sum.pool_high_water);
	fn(arg, "flushes", sum.flushes);
	fn(arg, "late_replies", sum.late_replies);
	fn(arg, "minor_faults", (uint64_t)(ru.ru_minflt - p->ru0.ru_minflt));
	fn(arg, "reconnects", atomic_load(&p->reconnects));
	fn(arg, "early_session_losses", atomic_load(&p->early_losses));
	fn(arg, "resubmitted", atomic_load(&p->resubmitted));
	fn(arg, "completed_twice", atomic_load(&p->completed_twice));
	fn(arg, "rss_kib_first_reconnect",
	   atomic_load(&p->rss_kib_first_reconnect));
	fn(arg, "rss_kib", p9b_rss_kib());
}

static void p9b_teardown(void *priv)
{
	struct p9b *p = priv;

	p9b_helper_stop(p);
	p9b_sess_teardown(p);
}

/* Where the jobs' files live, for the engine's error hints. */
static const char *p9b_where(void *priv)
{
	struct p9b *p = priv;

	snprintf(p->where, sizeof(p->where), "%s (aname %s)",
		 p->host ? p->host : "?", p->aname ? p->aname : "?");
	return p->where;
}

/* After a failed I/O: what the sessions' connections saw, what to change. */
static void p9b_explain(void *priv, int err)
{
	struct p9b *p = priv;
	const struct bench_config *cfg = p->cfg;
	struct lx_xprt_stats sum = {0}, st;
	char seen[384];
	unsigned int i;
	double secs;

	if (!p->sess)
		return;
	for (i = 0; i < p->nsess; i++) {
		if (!p->sess[i].c)
			continue;
		lx_xprt_stats(lx_p9_xprt(p->sess[i].c), &st);
		sum.connects += st.connects;
		sum.early_disconnects += st.early_disconnects;
		sum.replies += st.replies;
		sum.garbage += st.garbage;
		sum.bad_keys += st.bad_keys;
	}
	lx_xprt_stats_explain(&sum, seen, sizeof(seen));
	secs = cfg->timeo_ds ?
		       cfg->timeo_ds / 10.0 *
			       (cfg->retrans > 0 ? cfg->retrans + 1 : 1) :
		       30.0;
	if (err == -ECONNRESET || err == -ENOTCONN)
		bench_error("%s closed the session each time I/Os were in "
			    "flight: %llu sessions lost within 5 s of being "
			    "made (--hard retries for ever); the current "
			    "sessions saw: %s",
			    p->host,
			    (unsigned long long)atomic_load(&p->early_losses),
			    seen);
	else if (err == -ETIMEDOUT)
		bench_error("%s did not answer a call within %.1f s (--timeo "
			    "x (--retrans + 1); --hard waits for ever); the "
			    "current sessions saw: %s",
			    p->host, secs, seen);
	else
		bench_error("the current sessions to %s saw: %s (%llu "
			    "sessions lost early)",
			    p->host, seen,
			    (unsigned long long)atomic_load(&p->early_losses));
}

static void p9b_destroy(void *priv)
{
	struct p9b *p = priv;

	p9b_teardown(p);
	free(p->host);
	p->host = NULL;
}

static const struct bench_backend_ops p9b_ops = {
	.name = "p9",
	.summary = "Benchmark a 9P2000.L server (diod, nfs-ganesha...) from "
		   "user space with libxprt,\nfio-style or ior-style.",
	.priv_size = sizeof(struct p9b),
	.io_priv_size = sizeof(struct p9b_io),
	.ops_supported =
		BENCH_OP_BIT(BENCH_OP_READ) | BENCH_OP_BIT(BENCH_OP_WRITE) |
		BENCH_OP_BIT(BENCH_OP_GETATTR) | BENCH_OP_BIT(BENCH_OP_FSYNC),
	.options = p9b_options,
	.usage_extra =
		"Transfers larger than msize - 24 bytes are split into that "
		"many Tread/Twrite\nmessages, sent together.  --libxprt-mode "
		"caller: each job's thread drives a 9P\nsession of its own "
		"(TCP only, no --zerocopy, --nconnect 1).  Examples:\n"
		"  p9-bench --server 127.0.0.1:564 --aname /srv/9p --rw "
		"randread --bs 4k \\\n"
		"      --iodepth 16 --runtime 10\n"
		"  p9-bench --server 127.0.0.1 --aname /srv/9p --preset "
		"ior-32b --alloc malloc\n",
	.init = p9b_init,
	.parse_option = p9b_parse_option,
	.check = p9b_check,
	.setup = p9b_setup,
	.stat = p9b_stat,
	.job_open = p9b_job_open,
	.job_sync =
		p9b_job_sync, /* no job_end: job_sync ran after the last write */
	.submit = p9b_submit,
	.job_service = p9b_job_service,
	.run_sync = p9b_run_sync,
	.job_close = p9b_job_close,
	.stats = p9b_stats,
	.where = p9b_where,
	.explain = p9b_explain,
	.url_scheme = "9p",
	.url = p9b_url,
	.teardown = p9b_teardown,
	.destroy = p9b_destroy,
};

int main(int argc, char **argv)
{
	return bench_main(&p9b_ops, argc, argv);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * p9-bench: the 9P2000.L back-end of the bench engine.
 *
 * Sessions.  --nconnect N opens N 9P sessions (one connection, one
 * Tversion and one Tattach each); job i uses session i mod N, walks and
 * opens (or creates) its own fid there, and passes its owner to every
 * call, so each job is a separate owner in that session's fair transmit
 * queue.  Completions run on the session's receive thread, which hands
 * them to the engine, which resubmits with P9_NOWAIT.
 *
 * Request slots.  A completion callback resubmits while its own call
 * still holds its slot (the slot is released after the callback
 * returns), so a session gets more slots than it can ever have calls in
 * flight: its jobs x the engine's slots per job x the messages one I/O
 * takes, plus headroom for Tflush.  In the steady state a NOWAIT submit
 * therefore never finds the slots exhausted.
 *
 * Transfers larger than one message, --alloc malloc and the helper
 * thread: see p9_io.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p9_bench.h"

/* Slots beyond the calls in flight: Tflush (two slots each) and clunks */
#define P9B_SLOT_SPARE 16u
#define P9B_RDMA_PORT  5640u
#define P9B_DEF_MSIZE  (512u << 10)

enum {
	PO_SERVER,
	PO_ANAME,
	PO_MSIZE,
	PO_ALLOC,
	PO_MAX_REQS,
};

static const struct bench_option p9b_options[] = {
	{"server", "HOST[:PORT]",
	 "9P server (required); port 564 (tcp), 5640 (rdma)", PO_SERVER},
	{"aname", "PATH", "tree to attach, e.g. the exported path (required)",
	 PO_ANAME},
	{"msize", "SIZE", "largest message to offer in Tversion [512k]",
	 PO_MSIZE},
	{"alloc", "pool|malloc",
	 "pool, or malloc: 2 x msize buffers per message [pool]", PO_ALLOC},
	{"max-reqs", "N",
	 "request slots per session [every I/O in flight + 16]", PO_MAX_REQS},
	{NULL, NULL, NULL, 0},
};
/* ------------------------------------------------------------ options */

static int p9b_init(void *priv)
{
	struct p9b *p = priv;

	p->msize = P9B_DEF_MSIZE;
	p->alloc = P9B_ALLOC_POOL;
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
		if (bench_parse_size(arg, &v) || v < P9_MIN_MSIZE ||
		    v > P9_MAX_MSIZE) {
			bench_error("--msize: '%s' is not a size from %u to %u "
				    "bytes (4k to 8m)",
				    arg, P9_MIN_MSIZE, P9_MAX_MSIZE);
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
	}
	bench_error("--%s: '%s' is not valid (see --help)",
		    p9b_options[id].name, arg ? arg : "");
	return -EINVAL;
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
	return 0;
}

/* ------------------------------------------------------------ setup */

/*
 * Slots one session needs: its jobs' slots, each with the messages of
 * its largest I/O in flight, and the spare.  The largest I/O is the
 * larger of --bs and one message (layout writes are at most max_io).
 */
static unsigned int slots_needed(const struct p9b *p, uint32_t iosize)
{
	const struct bench_config *cfg = p->cfg;
	unsigned int per_conn = (cfg->numjobs + p->nc - 1) / p->nc;
	unsigned int per_job = cfg->max_inflight / cfg->numjobs;
	uint64_t n = (uint64_t)per_conn * per_job *
		     p9b_parts_for(cfg->bs ? cfg->bs : 1, iosize);

	if (p->max_reqs_opt)
		return p->max_reqs_opt;
	n += P9B_SLOT_SPARE;
	return n > 0xFFFF ? 0xFFFF : (unsigned int)n;
}

static int p9b_connect_one(struct p9b *p, uint32_t msize, unsigned int max_reqs,
			   struct p9_clnt **cp)
{
	const struct bench_config *cfg = p->cfg;
	unsigned int per_conn = (cfg->numjobs + p->nc - 1) / p->nc;
	char err[256] = "";
	const char *hint = "";
	struct p9_opts o = {
		.host = p->host,
		.port = p->port,
		.aname = p->aname,
		.n_uname = cfg->uid,
		.n_gid = cfg->gid,
		.msize = msize,
		.max_reqs = max_reqs,
		/* ganesha refuses fids >= 1024: stay below unless the jobs
		 * need more */
		.max_fids = per_conn + 16 > 1024 ? per_conn + 16 : 1024,
		.transport = cfg->transport == BENCH_TRANSPORT_RDMA ?
				     XPRT_TRANSPORT_RDMA :
				     XPRT_TRANSPORT_TCP,
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	int ret;

	if (!o.port)
		o.port = cfg->transport == BENCH_TRANSPORT_RDMA ?
				 P9B_RDMA_PORT :
				 P9_DEF_PORT;
	if (o.max_fids > 0xFFFF)
		o.max_fids = 0xFFFF;
	ret = p9_connect(cp, &o);
	if (!ret)
		return 0;
	if (!err[0])
		snprintf(err, sizeof(err), "%s:%u: %s", p->host, o.port,
			 p9_strerror(ret));
	if (strstr(err, "Tattach"))
		hint = "\n  (--aname: diod wants the exported directory's "
		       "absolute path, ganesha the\n  export's pseudo path)";
	else if (strstr(err, "Tversion") || ret == -EPROTONOSUPPORT)
		hint = "\n  (is that port a 9P2000.L server's?)";
	bench_error("%s%s", err, hint);
	return ret;
}

static int p9b_setup(void *priv, const struct bench_config *cfg,
		     struct bench_limits *lim)
{
	struct p9b *p = priv;
	unsigned int i, need;
	int ret;

	p->cfg = cfg;
	p->nc = cfg->nconnect ? cfg->nconnect : 1;
	p->c = calloc(p->nc, sizeof(*p->c));
	if (!p->c)
		return -ENOMEM;
	ret = p9b_helper_start(p);
	if (ret)
		return ret;

	/* the slots depend on msize, which the first session negotiates */
	p->max_reqs = slots_needed(p, p->msize - P9_IOHDRSZ);
	ret = p9b_connect_one(p, p->msize, p->max_reqs, &p->c[0]);
	if (ret)
		return ret;
	p->msize_got = p9_msize(p->c[0]);
	p->iosize = p9_iosize(p->c[0]);
	need = slots_needed(p, p->iosize);
	if (need > p->max_reqs) {
		p9_close(p->c[0]);
		p->c[0] = NULL;
		p->max_reqs = need;
		ret = p9b_connect_one(p, p->msize_got, need, &p->c[0]);
		if (ret)
			return ret;
	}
	for (i = 1; i < p->nc; i++) {
		ret = p9b_connect_one(p, p->msize_got, p->max_reqs, &p->c[i]);
		if (ret)
			return ret;
		if (p9_msize(p->c[i]) != p->msize_got) {
			bench_error("session %u negotiated msize %u, the first "
				    "%u",
				    i, p9_msize(p->c[i]), p->msize_got);
			return -EPROTO;
		}
	}
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

static int p9b_job_open(void *priv, struct bench_job_info *job)
{
	struct p9b *p = priv;
	struct p9b_job *pj;
	struct p9_attr attr;
	uint32_t flags, iounit = 0;
	int ret;

	if (!job->filename)
		return -EINVAL; /* p9-bench has no file-less workload */
	pj = calloc(1, sizeof(*pj));
	if (!pj)
		return -ENOMEM;
	pj->c = p->c[job->index % p->nc];
	flags = job->open_flags & BENCH_OPEN_WRITE ? O_RDWR : O_RDONLY;
	if (job->open_flags & BENCH_OPEN_CREATE)
		flags |= O_CREAT;
	ret = p9_open_path(pj->c, job->filename, flags, 0644, &pj->fid,
			   &iounit);
	if (ret)
		goto out_free;
	ret = p9_getattr(pj->c, pj->fid, P9_GETATTR_SIZE, &attr);
	if (ret)
		goto out_clunk;
	if ((job->open_flags & BENCH_OPEN_EXTEND) && attr.size < job->size) {
		struct p9_iattr ia = {.valid = P9_SETATTR_SIZE,
				      .size = job->size};

		ret = p9_setattr(pj->c, pj->fid, &ia);
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
	job->priv = pj;
	return 0;

out_clunk:
	p9_clunk(pj->c, pj->fid);
out_free:
	free(pj);
	return ret;
}

/* ------------------------------------------------------------ the rest */

static void p9b_job_close(void *priv, struct bench_job_info *job)
{
	struct p9b_job *pj = job->priv;

	if (!pj)
		return;
	p9_clunk(pj->c, pj->fid);
	free(pj);
	job->priv = NULL;
}

static void p9b_stats(void *priv, bench_stat_fn fn, void *arg)
{
	struct p9b *p = priv;
	struct xprt_stats xs, sum = {0};
	struct xprt_pool_stats ps, psum = {0};
	struct p9_stats st, ssum = {0};
	struct rusage ru;
	unsigned int i;

	for (i = 0; i < p->nc; i++) {
		if (!p->c[i])
			continue;
		xprt_get_stats(p9_xprt(p->c[i]), &xs);
		sum.submitted += xs.submitted;
		sum.direct_sends += xs.direct_sends;
		sum.worker_sends += xs.worker_sends;
		sum.send_calls += xs.send_calls;
		sum.bytes_sent += xs.bytes_sent;
		sum.bytes_received += xs.bytes_received;
		sum.direct_rx_bytes += xs.direct_rx_bytes;
		xprt_pool_stats(xprt_pool(p9_xprt(p->c[i])), &ps);
		psum.gets += ps.gets;
		psum.misses += ps.misses;
		psum.high_water += ps.high_water;
		p9_get_stats(p->c[i], &st);
		ssum.flushes += st.flushes;
		ssum.late_replies += st.late_replies;
	}
	getrusage(RUSAGE_SELF, &ru);
	fn(arg, "sessions", p->nc);
	fn(arg, "msize", p->msize_got);
	fn(arg, "iosize", p->iosize);
	fn(arg, "max_reqs", p->max_reqs);
	fn(arg, "alloc_malloc", p->alloc == P9B_ALLOC_MALLOC);
	fn(arg, "messages", sum.submitted);
	fn(arg, "split_ios", atomic_load(&p->split_ios));
	fn(arg, "deferred", atomic_load(&p->deferred));
	fn(arg, "direct_sends", sum.direct_sends);
	fn(arg, "worker_sends", sum.worker_sends);
	fn(arg, "send_syscalls", sum.send_calls);
	fn(arg, "bytes_sent", sum.bytes_sent);
	fn(arg, "bytes_received", sum.bytes_received);
	fn(arg, "bytes_received_direct", sum.direct_rx_bytes);
	fn(arg, "pool_gets", psum.gets);
	fn(arg, "pool_misses", psum.misses);
	fn(arg, "pool_high_water", psum.high_water);
	fn(arg, "flushes", ssum.flushes);
	fn(arg, "late_replies", ssum.late_replies);
	fn(arg, "minor_faults", (uint64_t)(ru.ru_minflt - p->ru0.ru_minflt));
}

static void p9b_teardown(void *priv)
{
	struct p9b *p = priv;
	unsigned int i;

	p9b_helper_stop(p);
	for (i = 0; p->c && i < p->nc; i++) {
		p9_close(p->c[i]);
		p->c[i] = NULL;
	}
}

static void p9b_destroy(void *priv)
{
	struct p9b *p = priv;

	p9b_teardown(p);
	free(p->c);
	p->c = NULL;
	free(p->host);
	p->host = NULL;
}

static const struct bench_backend_ops p9b_ops = {
	.name = "p9",
	.summary = "Benchmark a 9P2000.L server (diod, nfs-ganesha...) from "
		   "user space with libxprt,\nfio-style or ior-style.",
	.priv_size = sizeof(struct p9b),
	.io_priv_size = sizeof(struct p9b_io),
	.ops_supported = BENCH_OP_BIT(BENCH_OP_READ) |
			 BENCH_OP_BIT(BENCH_OP_WRITE) |
			 BENCH_OP_BIT(BENCH_OP_GETATTR),
	.options = p9b_options,
	.usage_extra =
		"Transfers larger than msize - 24 bytes are split into that "
		"many Tread/Twrite\nmessages, sent together.  Examples:\n"
		"  p9-bench --server 127.0.0.1:564 --aname /srv/9p --rw "
		"randread --bs 4k \\\n"
		"      --iodepth 16 --runtime 10\n"
		"  p9-bench --server 127.0.0.1 --aname /srv/9p --preset "
		"ior-32b --alloc malloc\n",
	.init = p9b_init,
	.parse_option = p9b_parse_option,
	.check = p9b_check,
	.setup = p9b_setup,
	.job_open = p9b_job_open,
	.submit = p9b_submit,
	.job_close = p9b_job_close,
	.stats = p9b_stats,
	.teardown = p9b_teardown,
	.destroy = p9b_destroy,
};

int main(int argc, char **argv)
{
	return bench_main(&p9b_ops, argc, argv);
}

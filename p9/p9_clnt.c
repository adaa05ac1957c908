// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P session: connect, version negotiation, attach, close.
 *
 * Buffers are msize bytes and come from a pool of the client, but msize
 * is only known after Tversion, which itself needs a request and so a
 * pool.  The transport is therefore created with a pool for the msize we
 * propose; when the server answers with a smaller one, a pool of the
 * agreed size replaces it before any other call (lx_xprt_set_pool()), and the
 * first pool is kept, idle, until close (the receive thread may still
 * cache the Tversion buffers).  Both test servers agree to 65536, the
 * default, so usually there is one pool.
 *
 * The transport accepts messages up to twice msize: a reply between msize
 * and that is refused per call by the request engine (-EMSGSIZE, the
 * message discarded, the session goes on); a size field beyond it cannot
 * be a 9P message at all and drops the connection, which ends the session
 * (9P state does not survive a connection: the LX_XPRT_FAIL policy).
 *
 * Over RDMA the session is the same on the transport's whole-message
 * binding (xprt/rdma/rdma_msg.c, framed as Linux's trans_rdma: one 9P message
 * per Send into receive buffers of msize).  Only three things differ: the
 * pools are created with the RDMA registration hook, so every buffer a
 * Send gathers from is registered once per slab, never per call; the
 * default port is 5640; and the default number of calls in flight is 32,
 * trans_rdma's send and receive queue depth, which servers written for the
 * Linux client size their posted receives to (more would only make Sends
 * wait in RNR retries).  A smaller msize from the server still swaps the
 * pool: the transport's receive buffers keep the size proposed, which
 * holds any reply of the agreed size.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/proto/rdma.h>

#include "p9_int.h"
#include "xprt/core/proto.h"

static void lx_p9_errmsg(const struct lx_p9_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void lx_p9_errmsg(const struct lx_p9_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->errbuf || !o->errbuf_len)
		return;
	va_start(ap, fmt);
	vsnprintf(o->errbuf, o->errbuf_len, fmt, ap);
	va_end(ap);
}

static int lx_p9_check_opts(const struct lx_p9_opts *o)
{
	if (!o->host || !*o->host)
		return -EINVAL;
	if (o->msize &&
	    (o->msize < LX_P9_MIN_MSIZE || o->msize > LX_P9_MAX_MSIZE))
		return -EINVAL;
	if (o->max_reqs && (o->max_reqs < 2 || o->max_reqs > 0xFFFF))
		return -EINVAL;
	if (o->max_fids && (o->max_fids < 2 || o->max_fids > 0xFFFF))
		return -EINVAL;
	if (o->transport != LX_XPRT_TRANSPORT_TCP &&
	    o->transport != LX_XPRT_TRANSPORT_RDMA)
		return -EINVAL;
	if (o->aname && strlen(o->aname) > 0xFFFF)
		return -ENAMETOOLONG;
	if (o->uname && strlen(o->uname) > 0xFFFF)
		return -ENAMETOOLONG;
	return 0;
}

static void lx_p9_apply_defaults(struct lx_p9_opts *o)
{
	bool rdma = o->transport == LX_XPRT_TRANSPORT_RDMA;

	if (!o->port)
		o->port = rdma ? LX_XPRT_RDMA_9P_PORT : LX_P9_DEF_PORT;
	if (!o->msize)
		o->msize = LX_P9_DEF_MSIZE;
	if (!o->max_reqs)
		o->max_reqs =
			rdma ? LX_P9_RDMA_DEF_MAX_REQS : LX_P9_DEF_MAX_REQS;
	if (!o->max_fids)
		o->max_fids = LX_P9_DEF_MAX_FIDS;
	if (!o->timeout_ms)
		o->timeout_ms = LX_P9_DEF_TIMEOUT_MS;
	if (!o->connect_timeout_ms)
		o->connect_timeout_ms = LX_P9_DEF_CONNECT_MS;
}

static int lx_p9_make_pool(struct lx_p9_clnt *c, struct lx_xprt_pool **pp,
			   uint32_t msize)
{
	struct lx_xprt_pool_opts po = {0};
	unsigned int max_reqs = c->opts.max_reqs;

	po.buf_size = msize;
	/* RDMA Sends gather from pool buffers: registered per slab */
	if (c->opts.transport == LX_XPRT_TRANSPORT_RDMA)
		po.reg = lx_xprt_rdma_pool_reg();
	/* a send and a receive buffer per slot, and the per-thread caches
	 * other threads may hold */
	po.max_bytes = 2 * (size_t)msize * max_reqs + 64 * (size_t)msize;
	return lx_xprt_pool_create(pp, &po);
}

/* What the session's connection saw, for a set-up step's message. */
static const char *lx_p9_seen(struct lx_p9_clnt *c, char *buf, size_t len)
{
	struct lx_xprt_stats st;

	lx_xprt_stats(c->x, &st);
	return lx_xprt_stats_explain(&st, buf, len);
}

/* Why a set-up step got no answer, in words: a timeout is the step's
 * bound (connect_timeout_ms), not a flushed call (Tversion has no tag to
 * flush). */
static const char *lx_p9_step_why(struct lx_p9_clnt *c, int err, char *buf,
				  size_t len)
{
	if (err == -ETIMEDOUT)
		snprintf(buf, len, "no reply within %u ms (connect_timeout_ms)",
			 c->opts.connect_timeout_ms);
	else if (err == -ECONNRESET || err == -ENOTCONN)
		snprintf(buf, len, "the connection was lost");
	else
		snprintf(buf, len, "%s", lx_strerror(err));
	return buf;
}

/* Tversion: agree on 9P2000.L and msize. */
/*
 * @s[0..len), a string a server sent, as a message can show it: bytes
 * outside printable ASCII (a NUL included) as \ooo, a quote or backslash
 * after a backslash, so that "9P2000.L\000junk" does not read as
 * "9P2000.L"; cut with "..." where @out is too small.
 */
static const char *lx_p9_escape(const char *s, size_t len, char *out,
				size_t outlen)
{
	size_t i, o = 0;
	unsigned char b;

	for (i = 0; i < len && o + 8 < outlen; i++) {
		b = (unsigned char)s[i];
		if (b == '"' || b == '\\') {
			out[o++] = '\\';
			out[o++] = (char)b;
		} else if (b >= 0x20 && b < 0x7f) {
			out[o++] = (char)b;
		} else {
			o += (size_t)snprintf(out + o, outlen - o, "\\%03o", b);
		}
	}
	if (i < len)
		o += (size_t)snprintf(out + o, outlen - o, "...");
	out[o] = '\0';
	return out;
}

static int lx_p9_negotiate(struct lx_p9_clnt *c)
{
	struct lx_p9_result res;
	struct lx_xprt_pool *pool;
	const struct lx_p9_str *v;
	uint32_t msize;
	int err;

	err = lx_p9_version_call(c, c->opts.msize, lx_p9_str_c(LX_P9_VERSION_L),
				 &res);
	if (err) {
		if (res.server_err) {
			lx_p9_errmsg(
				&c->opts,
				"%s:%u refused Tversion(\"%s\"): %s: not a "
				"9P2000.L server",
				c->host, c->opts.port, LX_P9_VERSION_L,
				strerror(-err));
			return -EPROTONOSUPPORT;
		}
		char seen[256], why[128], ml[240] = "";

		/* over RDMA the first call registers what creation did not
		 * (the pool's first slab): the limit may refuse it here */
		if (c->opts.transport == LX_XPRT_TRANSPORT_RDMA)
			lx_xprt_memlock_explain(err, 0, ml, sizeof(ml));
		lx_p9_errmsg(&c->opts,
			     "Tversion to %s:%u failed: %s%s (seen: %s)%s%s",
			     c->host, c->opts.port,
			     lx_p9_step_why(c, err, why, sizeof(why)),
			     err == -ECONNRESET || err == -ENOTCONN ?
				     ": is that port a 9P2000.L server?" :
				     "",
			     lx_p9_seen(c, seen, sizeof(seen)),
			     ml[0] ? ": " : "", ml);
		return err;
	}
	v = &res.rx.u.version.version;
	msize = res.rx.u.version.msize;
	if (v->len != strlen(LX_P9_VERSION_L) ||
	    memcmp(v->s, LX_P9_VERSION_L, v->len)) {
		char shown[80];

		lx_p9_errmsg(&c->opts,
			     "%s:%u answered Tversion with version \"%s\": it "
			     "does not speak %s",
			     c->host, c->opts.port,
			     lx_p9_escape(v->s, v->len, shown, sizeof(shown)),
			     LX_P9_VERSION_L);
		lx_p9_result_put(&res);
		return -EPROTONOSUPPORT;
	}
	lx_p9_result_put(&res);
	if (msize < LX_P9_MIN_MSIZE) {
		lx_p9_errmsg(&c->opts,
			     "%s:%u offers msize %u, below the minimum %u",
			     c->host, c->opts.port, msize, LX_P9_MIN_MSIZE);
		return -EPROTO;
	}
	if (msize >= c->opts.msize)
		return 0; /* a larger answer is not ours to take */

	if (c->opts.pool) {
		/* shared: the class of the agreed msize (the proposed one's
		 * buffers went back to theirs after Tversion) */
		err = lx_xprt_pool_class(c->opts.pool, msize, &pool);
		if (!err)
			err = lx_xprt_set_pool(c->x, pool);
		if (err)
			return err;
		c->msize = msize;
		c->iosize = msize - LX_P9_IOHDRSZ;
		return 0;
	}
	err = lx_p9_make_pool(c, &pool, msize);
	if (err)
		return err;
	err = lx_xprt_set_pool(c->x, pool);
	if (err) {
		lx_xprt_pool_destroy(pool);
		return err;
	}
	c->boot_pool = c->pool;
	c->pool = pool;
	c->msize = msize;
	c->iosize = msize - LX_P9_IOHDRSZ;
	return 0;
}

static int lx_p9_attach_root(struct lx_p9_clnt *c)
{
	int err;

	err = lx_p9_fid_alloc(c, &c->root_fid);
	if (err)
		return err;
	err = lx_p9_attach(c, c->root_fid, LX_P9_NOFID, c->uname, c->aname,
			   c->opts.n_uname, &c->root_qid);
	if (err == -ETIMEDOUT || err == -ECONNRESET || err == -ENOTCONN ||
	    err == -EPROTO) {
		char seen[256], why[128];

		lx_p9_errmsg(&c->opts,
			     "Tattach(aname \"%s\") to %s:%u failed: %s (seen: "
			     "%s)",
			     c->aname, c->host, c->opts.port,
			     lx_p9_step_why(c, err, why, sizeof(why)),
			     lx_p9_seen(c, seen, sizeof(seen)));
		return err;
	}
	if (err) {
		lx_p9_errmsg(
			&c->opts,
			"%s:%u refused Tattach(aname \"%s\", uname \"%s\", "
			"n_uname %u): %s",
			c->host, c->opts.port, c->aname, c->uname,
			c->opts.n_uname, lx_strerror(err));
		return err;
	}
	c->attached = true;
	return 0;
}

static void lx_p9_free(struct lx_p9_clnt *c)
{
	free(c->host);
	free(c->aname);
	free(c->uname);
	pthread_mutex_destroy(&c->flush_lock);
	free(c);
}

int lx_p9_create(struct lx_p9_clnt **cp, const struct lx_p9_opts *opts)
{
	struct lx_xprt_opts xo = {0};
	struct lx_p9_clnt *c;
	int err;

	if (!cp || !opts)
		return -EINVAL;
	err = lx_p9_check_opts(opts);
	if (err) {
		lx_p9_errmsg(opts, "bad options: %s", strerror(-err));
		return err;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->opts = *opts;
	lx_p9_apply_defaults(&c->opts);
	c->msize = c->opts.msize;
	c->iosize = c->msize - LX_P9_IOHDRSZ;
	c->root_fid = LX_P9_NOFID;
	err = -pthread_mutex_init(&c->flush_lock, NULL);
	if (err) {
		free(c);
		return err;
	}
	c->host = strdup(opts->host);
	c->aname = strdup(opts->aname ? opts->aname : "");
	c->uname = strdup(opts->uname ? opts->uname : "");
	if (!c->host || !c->aname || !c->uname) {
		err = -ENOMEM;
		goto out_free;
	}
	c->opts.host = c->host;
	c->opts.aname = c->aname;
	c->opts.uname = c->uname;

	/* a shared pool (opts.pool) serves the transport its class of
	 * msize; c->pool is only ever a pool of our own */
	err = c->opts.pool ? 0 : lx_p9_make_pool(c, &c->pool, c->msize);
	if (err) {
		char ml[240] = "";

		if (c->opts.transport == LX_XPRT_TRANSPORT_RDMA)
			lx_xprt_memlock_explain(err, 0, ml, sizeof(ml));
		lx_p9_errmsg(&c->opts, "buffer pool of msize %u: %s%s%s",
			     c->msize, strerror(-err), ml[0] ? ": " : "", ml);
		goto out_free;
	}
	xo.transport = c->opts.transport;
	xo.rdma = c->opts.rdma; /* NULL: the binding picks the framing's */
	xo.host = c->host;
	xo.port = c->opts.port;
	xo.framing = &lx_xprt_framing_9p;
	xo.max_reqs = c->opts.max_reqs;
	xo.buf_size = c->msize;
	xo.max_msg = 2 * (size_t)c->msize;
	xo.pool = c->opts.pool ? c->opts.pool : c->pool;
	xo.req_priv = sizeof(struct lx_p9_call);
	xo.policy = LX_XPRT_FAIL;
	xo.connect_timeout_ms = c->opts.connect_timeout_ms;
	xo.log = c->opts.log;
	xo.log_arg = c->opts.log_arg;
	xo.zerocopy = c->opts.zerocopy;
	xo.mode = c->opts.mode;
	err = lx_xprt_create(&c->x, &xo);
	if (err == -EOPNOTSUPP && xo.mode == LX_XPRT_MODE_CALLER) {
		lx_p9_errmsg(&c->opts, "the caller-driven mode runs over TCP "
				       "only, without zerocopy");
		goto out_pool;
	}
	if (err) {
		char ml[240] = "";

		/* over RDMA, -ENOMEM/-EPERM: maybe RLIMIT_MEMLOCK (no
		 * figure: the pool's alone would be less than the whole,
		 * which the transport's own log line gives) */
		if (xo.transport == LX_XPRT_TRANSPORT_RDMA)
			lx_xprt_memlock_explain(err, 0, ml, sizeof(ml));
		/* the transport's -ENOENT means the name did not resolve */
		lx_p9_errmsg(
			&c->opts, "connect to %s:%u%s: %s%s%s", c->host,
			c->opts.port,
			xo.transport == LX_XPRT_TRANSPORT_RDMA ? " (RDMA)" : "",
			err == -ENOENT ? "host name does not resolve" :
					 strerror(-err),
			ml[0] ? ": " : "", ml);
		goto out_pool;
	}
	/* our pools hold two buffers a slot (lx_p9_make_pool()); a shared
	 * one's buffers go back after each call, for its other clients */
	if (c->pool)
		lx_xprt__keep_bufs(c->x);
	/* the handshake runs under the connect timeout, calls after it
	 * under theirs */
	c->timeout_ns = (uint64_t)c->opts.connect_timeout_ms * 1000000u;
	err = lx_p9_negotiate(c);
	if (err)
		goto out_xprt;
	err = lx_p9_fids_init(c);
	if (err)
		goto out_xprt;
	err = lx_p9_attach_root(c);
	if (err)
		goto out_fids;
	c->timeout_ns = c->opts.timeout_ms == LX_P9_NO_TIMEOUT ?
				0 :
				(uint64_t)c->opts.timeout_ms * 1000000u;
	*cp = c;
	return 0;

out_fids:
	lx_p9_fids_destroy(c);
out_xprt:
	atomic_store(&c->closing, true);
	lx_xprt_destroy(c->x);
out_pool:
	lx_xprt_pool_destroy(c->pool);
	if (c->boot_pool)
		lx_xprt_pool_destroy(c->boot_pool);
out_free:
	lx_p9_free(c);
	return err;
}

void lx_p9_destroy(struct lx_p9_clnt *c)
{
	struct lx_p9_fcall tx = {.type = LX_P9_TCLUNK};
	/* never wait for a slot: calls in flight may hold them all */
	struct lx_p9_call_opts o = {.timeout_ms = 1000};
	struct lx_p9_result res;

	if (!c)
		return;
	/* best effort: a dead session has nothing to clunk, nor one whose
	 * server left a Tflush unanswered (stopped, or deaf to us: the
	 * Tclunk would only wait out its timeout and its own flush's) */
	if (c->attached && !lx_xprt__forked(c->x) && !atomic_load(&c->broken) &&
	    !atomic_load(&c->fl_stuck) &&
	    lx_xprt_state(c->x) == LX_XPRT_CONNECTED) {
		tx.u.tfid.fid = c->root_fid;
		if (c->timeout_ns && c->timeout_ns < 1000000000ull)
			o.timeout_ms = (unsigned int)(c->timeout_ns / 1000000u);
		if (!lx_p9_rpc_flags(c, &tx, &o, LX_CALL_NOWAIT, &res))
			lx_p9_result_put(&res);
	}
	atomic_store(&c->closing, true);
	lx_xprt_destroy(c->x);
	lx_xprt_pool_destroy(c->pool);
	if (c->boot_pool)
		lx_xprt_pool_destroy(c->boot_pool);
	lx_p9_fids_destroy(c);
	lx_p9_free(c);
}

uint32_t lx_p9_msize(const struct lx_p9_clnt *c)
{
	return c ? c->msize : 0;
}

uint32_t lx_p9_iosize(const struct lx_p9_clnt *c)
{
	return c ? c->iosize : 0;
}

uint32_t lx_p9_root_fid(const struct lx_p9_clnt *c)
{
	return c ? c->root_fid : LX_P9_NOFID;
}

struct lx_p9_qid lx_p9_root_qid(const struct lx_p9_clnt *c)
{
	struct lx_p9_qid q = {0};

	return c ? c->root_qid : q;
}

struct lx_xprt *lx_p9_xprt(const struct lx_p9_clnt *c)
{
	return c ? c->x : NULL;
}

void lx_p9_stats(const struct lx_p9_clnt *cc, struct lx_p9_stats *st)
{
	struct lx_p9_clnt *c = (struct lx_p9_clnt *)cc;

	if (!c || !st)
		return;
	st->calls = atomic_load(&c->st.calls);
	st->flushes = atomic_load(&c->st.flushes);
	st->flush_replies = atomic_load(&c->st.flush_replies);
	st->late_replies = atomic_load(&c->st.late_replies);
	st->flush_expired = atomic_load(&c->st.flush_expired);
	st->fids_lost = atomic_load(&c->st.fids_lost);
	st->fids_in_use = lx_xprt_tags_in_use(c->fids);
	lx_xprt_stats(c->x, &st->xprt);
}

int lx_p9_loop_fd(const struct lx_p9_clnt *c)
{
	return c ? lx_xprt_loop_fd(c->x) : -EINVAL;
}

unsigned int lx_p9_loop_events(const struct lx_p9_clnt *c)
{
	return c ? lx_xprt_loop_events(c->x) : 0;
}

int lx_p9_loop_service(struct lx_p9_clnt *c, unsigned int revents)
{
	return c ? lx_xprt_loop_service(c->x, revents) : -EINVAL;
}

int lx_p9_loop_run(struct lx_p9_clnt *c, struct lx_call *until,
		   unsigned int min_done, uint64_t deadline_ns)
{
	return c ? lx_xprt_loop_run(c->x, until, min_done, deadline_ns) :
		   -EINVAL;
}

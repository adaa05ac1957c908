// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NFSv3 client: mounting, status mapping, messages.
 *
 * lx_nfs3_create() is three steps, each with its own message on failure so a
 * user can tell a wrong server from a missing export from a refused
 * mount: MNT over a short-lived MOUNT v3 client gives the root handle;
 * the NFS v3 RPC client is created (nconnect connections, AUTH_SYS, a
 * buffer per call sized for headers and directory replies only, since
 * READ and WRITE data never pass through it); FSINFO on the root gives
 * rtmax/wtmax/dtpref, which the split I/O helpers and the directory
 * iterator use.
 *
 * Over RDMA only the NFS connections change (RPC-over-RDMA, port 20049
 * unless given: rpcbind maps TCP); MOUNT stays on TCP as with the Linux
 * client.  Nothing else here depends on the transport: READ and WRITE
 * payloads are already caller memory the RPC layer maps to chunks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>

#include <libxprt/proto/rdma.h>
#include <libxprt/rpcbind.h>

#include "nfs3_int.h"
#include "xprt/blocks/util.h"

/* Largest READ/WRITE piece.  ganesha announces rtmax/wtmax of 64 MiB in
 * FSINFO but serves at most 1 MiB; 1 MiB is also the Linux client's
 * ceiling, and a piece must fit the transport's message limit. */
#define LX_NFS3_IO_MAX (1u << 20)

void lx_nfs3_seterr(const struct lx_nfs3_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o || !o->errmsg || !o->errmsg_len)
		return;
	va_start(ap, fmt);
	vsnprintf(o->errmsg, o->errmsg_len, fmt, ap);
	va_end(ap);
}

static void lx_rpc_opts_from(struct lx_rpc_opts *ro,
			     const struct lx_nfs3_opts *o, uint32_t prog,
			     uint16_t port)
{
	memset(ro, 0, sizeof(*ro));
	ro->host = o->host;
	ro->port = port;
	ro->prog = prog;
	ro->vers =
		prog == LX_NFS3_PROGRAM ? LX_NFS3_VERSION : LX_MOUNT3_VERSION;
	ro->auth.flavor = o->auth_none ? LX_RPC_AUTH_NONE : LX_RPC_AUTH_SYS;
	ro->auth.set_ids = o->set_ids;
	ro->auth.uid = o->uid;
	ro->auth.gid = o->gid;
	ro->transport = o->transport;
	ro->rdma = o->rdma;
	ro->timeo_ms = o->timeo_ms;
	ro->retrans = o->retrans;
	ro->hard = o->hard;
	ro->log = o->log;
	ro->log_arg = o->log_arg;
	ro->mode = o->mode;
}

static unsigned int setup_ms(const struct lx_nfs3_opts *o)
{
	return o->setup_timeout_ms ? o->setup_timeout_ms :
				     LX_NFS3_SETUP_TIMEOUT_MS;
}

/*
 * Why a set-up step got no usable answer, and what the connections saw,
 * for the step's message: "no reply within 30 s (seen: 1 connection; 0
 * replies, 40 for calls we did not make (unknown XID or tag), 2
 * retransmissions)".
 */
static void step_why(const struct lx_nfs3_opts *o, struct lx_rpc_clnt *rc,
		     int err, const char *service, uint64_t t0, char *buf,
		     size_t len)
{
	double secs = (double)(lx_xprt_now_ns() - t0) / 1e9;

	struct lx_xprt_stats sum = {0}, st;
	char seen[256];
	unsigned int i;

	for (i = 0; i < lx_rpc_nconnect(rc); i++) {
		lx_xprt_stats(lx_rpc_xprt(rc, i), &st);
		sum.connects += st.connects;
		sum.early_disconnects += st.early_disconnects;
		sum.replies += st.replies;
		sum.garbage += st.garbage;
		sum.bad_keys += st.bad_keys;
		sum.retransmits += st.retransmits;
		sum.resubmits += st.resubmits;
		sum.orphans_expired += st.orphans_expired;
	}
	lx_xprt_stats_explain(&sum, seen, sizeof(seen));
	if (err == -ETIMEDOUT)
		snprintf(buf, len,
			 "no reply in %.1f s (the step's bound: %.1f s; "
			 "--timeo/--retrans may end it sooner) (seen: %s)",
			 secs, (double)setup_ms(o) / 1000.0, seen);
	else if (err == -ECONNRESET)
		snprintf(buf, len,
			 "the server closed the connection each time before "
			 "replying: is that port %s service? (seen: %s)",
			 service, seen);
	else
		snprintf(buf, len, "%s (seen: %s)", lx_strerror(err), seen);
}

static int opts_ok(const struct lx_nfs3_opts *o)
{
	if (!o || !o->host || !*o->host || o->nconnect > 16)
		return -EINVAL;
	if (o->transport != LX_XPRT_TRANSPORT_TCP &&
	    o->transport != LX_XPRT_TRANSPORT_RDMA)
		return -EINVAL;
	if (o->buf_size && o->buf_size < 4096)
		return -EINVAL;
	return 0;
}

int lx_nfs3_mnt_clnt_create(struct lx_rpc_clnt **mcp,
			    const struct lx_nfs3_opts *opts)
{
	struct lx_rpc_opts ro;
	int err = opts_ok(opts);

	if (err || !mcp)
		return -EINVAL;
	lx_rpc_opts_from(&ro, opts, LX_MOUNT3_PROGRAM, opts->mount_port);
	/* MNT is small and rare: MOUNT is always TCP, one connection
	 * (servers do not even listen for it over RDMA) */
	ro.transport = LX_XPRT_TRANSPORT_TCP;
	ro.rdma = NULL;
	ro.max_reqs = 4;
	ro.buf_size = LX_NFS3_DEF_BUF_SIZE;
	/* every MOUNT call is a set-up step: bounded, hard or soft */
	ro.deadline_ms = setup_ms(opts);
	return lx_rpc_create(mcp, &ro);
}

static const char *step_err(int err)
{
	switch (err) {
	case -EPFNOSUPPORT:
		return "the server does not run that program there (wrong server or port?)";
	case -EPROTONOSUPPORT:
		return "the server does not serve version 3 there";
	case -EACCES:
		return "credentials refused (AUTH_SYS needed?)";
	default:
		return lx_strerror(err);
	}
}

/*
 * Is @path among the server's exports?  1 yes, 0 no, negative: could not
 * tell.  Asked when MNT says ACCES: ganesha answers ACCES, not NOENT, for
 * a path it does not export, and "no such export" is the clearer message.
 */
static int export_listed(struct lx_rpc_clnt *mc, const char *path, char *names,
			 size_t names_len)
{
	struct lx_nfs3_mnt_entry ent[64];
	char strs[8192];
	struct lx_nfs3_mnt_list ml = {.ent = ent,
				      .cap = LX_XPRT_ARRAY_SIZE(ent),
				      .strbuf = strs,
				      .strsize = sizeof(strs)};
	size_t used = 0;
	unsigned int i;
	int found = 0, err;

	err = lx_nfs3_mnt_export(mc, &ml);
	if (err)
		return err;
	names[0] = '\0';
	for (i = 0; i < ml.n; i++) {
		if (!strcmp(ent[i].dir, path))
			found = 1;
		if (used < names_len)
			used += (size_t)snprintf(names + used, names_len - used,
						 "%s%s", i ? " " : "",
						 ent[i].dir);
	}
	return found;
}

/*
 * The TCP port of @prog from the host's portmapper, when the caller gave
 * none (*@port is 0).  Asked here rather than left to lx_rpc_create(), so
 * that a portmapper that is down or unreachable is named as such, apart
 * from a service that is not registered and from a service that does not
 * answer on the port it registered.  Return: 0 with *@port set; a
 * negative errno after the message.
 */
static int learn_port(const struct lx_nfs3_opts *o, uint32_t prog,
		      uint32_t vers, const char *name, uint16_t *port)
{
	struct lx_rpcbind_opts ro = {.host = o->host};
	const char *why;
	int err;

	if (*port)
		return 0;
	err = lx_rpcbind_getport(&ro, prog, vers, IPPROTO_TCP, port);
	if (!err)
		return 0;
	if (err == -EPFNOSUPPORT) {
		lx_nfs3_seterr(
			o,
			"the portmapper (rpcbind) on %s port %u answered: "
			"%s over TCP is not registered (is the server "
			"running?)",
			o->host, LX_RPCBIND_PORT, name);
		return err;
	}
	if (err == -ECONNREFUSED)
		why = "connection refused (is the server up?)";
	else if (err == -ETIMEDOUT)
		why = "no answer (is the host up and reachable?)";
	else
		why = lx_strerror(err);
	lx_nfs3_seterr(o,
		       "cannot learn the %s port from the portmapper (rpcbind) "
		       "on %s port %u: %s",
		       name, o->host, LX_RPCBIND_PORT, why);
	return err;
}

static int do_mnt(const struct lx_nfs3_opts *o, struct lx_nfs3_fh *root)
{
	struct lx_nfs3_opts mo = *o;
	char names[256];
	struct lx_nfs3_mnt_res res;
	struct lx_rpc_clnt *mc;
	uint64_t t0;
	int err;

	err = learn_port(o, LX_MOUNT3_PROGRAM, LX_MOUNT3_VERSION, "MOUNT v3",
			 &mo.mount_port);
	if (err)
		return err;
	err = lx_nfs3_mnt_clnt_create(&mc, &mo);
	if (err) {
		lx_nfs3_seterr(o, "cannot reach MOUNT v3 on %s port %u: %s",
			       o->host, mo.mount_port, step_err(err));
		return err;
	}
	memset(&res, 0, sizeof(res));
	t0 = lx_xprt_now_ns();
	err = lx_nfs3_mnt_mnt(mc, o->export_path, &res);
	if (err == -ETIMEDOUT || err == -ECONNRESET || err == -EBADMSG) {
		char why[512];

		step_why(o, mc, err, "a MOUNT v3", t0, why, sizeof(why));
		lx_nfs3_seterr(o, "MNT %s on %s failed: %s", o->export_path,
			       lx_xprt_peer(lx_rpc_xprt(mc, 0)), why);
		lx_rpc_destroy(mc);
		return err;
	}
	if (err == -EACCES && res.status == LX_MNT3ERR_ACCES &&
	    export_listed(mc, o->export_path, names, sizeof(names)) == 0) {
		lx_rpc_destroy(mc);
		lx_nfs3_seterr(
			o, "export %s does not exist on %s (exports: %s)",
			o->export_path, o->host, names[0] ? names : "none");
		return -ENOENT;
	}
	lx_rpc_destroy(mc);
	if (!err) {
		*root = res.fh;
		return 0;
	}
	switch (res.status) {
	case LX_MNT3ERR_NOENT:
		lx_nfs3_seterr(o, "export %s does not exist on %s",
			       o->export_path, o->host);
		break;
	case LX_MNT3ERR_ACCES:
	case LX_MNT3ERR_PERM:
		lx_nfs3_seterr(o, "%s refused to mount %s (not exported to us)",
			       o->host, o->export_path);
		break;
	case LX_MNT3ERR_NOTDIR:
		lx_nfs3_seterr(o, "export %s on %s is not a directory",
			       o->export_path, o->host);
		break;
	default:
		if (res.status)
			lx_nfs3_seterr(o, "MNT %s on %s failed: %s",
				       o->export_path, o->host,
				       lx_nfs3_stat_name(res.status));
		else
			lx_nfs3_seterr(o, "MNT %s on %s failed: %s",
				       o->export_path, o->host, step_err(err));
	}
	return err;
}

static void set_sizes(struct lx_nfs3_clnt *c, const struct lx_nfs3_opts *o)
{
	const struct lx_nfs3_fsinfo_res *fi = &c->fsinfo;
	uint32_t r = fi->rtmax ? fi->rtmax : fi->rtpref;
	uint32_t w = fi->wtmax ? fi->wtmax : fi->wtpref;

	if (!r)
		r = 32768;
	if (!w)
		w = 32768;
	if (o->rsize && o->rsize < r)
		r = o->rsize;
	if (o->wsize && o->wsize < w)
		w = o->wsize;
	c->rsize = LX_XPRT_MIN(r, LX_NFS3_IO_MAX);
	c->wsize = LX_XPRT_MIN(w, LX_NFS3_IO_MAX);
	/* directory replies land in the per-call buffer */
	c->dirsize = (uint32_t)(c->buf_size - LX_NFS3_DIR_SLACK);
	if (fi->dtpref && fi->dtpref < c->dirsize)
		c->dirsize = LX_XPRT_MAX(fi->dtpref, 1024u);
}

/* The client on a known root handle: NFS connections, FSINFO. */
static int nfs3_connect(struct lx_nfs3_clnt **cp,
			const struct lx_nfs3_opts *opts,
			const struct lx_nfs3_fh *root)
{
	uint64_t t0;
	struct lx_rpc_opts ro;
	struct lx_nfs3_clnt *c;
	int err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->root = *root;
	c->buf_size = opts->buf_size ? opts->buf_size : LX_NFS3_DEF_BUF_SIZE;
	c->jukebox_delay_ms = opts->jukebox_delay_ms ? opts->jukebox_delay_ms :
						       LX_NFS3_JUKEBOX_DELAY_MS;
	c->jukebox_retries = opts->jukebox_retries ? opts->jukebox_retries :
						     LX_NFS3_JUKEBOX_RETRIES;
	lx_rpc_opts_from(&ro, opts, LX_NFS3_PROGRAM, opts->nfs_port);
	/* rpcbind maps TCP ports: over RDMA the IANA port is the default */
	if (!ro.port && opts->transport == LX_XPRT_TRANSPORT_RDMA)
		ro.port = LX_XPRT_RDMA_NFS_PORT;
	err = learn_port(opts, LX_NFS3_PROGRAM, LX_NFS3_VERSION, "NFS v3",
			 &ro.port);
	if (err)
		goto out_free;
	ro.nconnect = opts->nconnect;
	ro.xmit_fifo = opts->xmit_fifo; /* NFS only, as the rest here */
	ro.max_reqs = opts->max_reqs;
	ro.max_in_flight = opts->max_in_flight;
	ro.buf_size = c->buf_size;
	ro.pool = opts->pool;	      /* NULL: the RPC client's own */
	ro.zerocopy = opts->zerocopy; /* NFS only: MOUNT sends nothing big */
	err = lx_rpc_create(&c->rpc, &ro);
	if (err == -EOPNOTSUPP && ro.mode == LX_XPRT_MODE_CALLER) {
		/* refused here, not by the server */
		lx_nfs3_seterr(opts, "the caller-driven mode runs over TCP "
				     "only, without zerocopy");
		goto out_free;
	}
	if (err) {
		char ml[240] = "";

		/* over RDMA, -ENOMEM/-EPERM: maybe RLIMIT_MEMLOCK */
		if (ro.transport == LX_XPRT_TRANSPORT_RDMA)
			lx_xprt_memlock_explain(err, 0, ml, sizeof(ml));
		lx_nfs3_seterr(
			opts, "cannot reach NFS v3 on %s port %u%s: %s%s%s",
			opts->host, ro.port,
			ro.transport == LX_XPRT_TRANSPORT_RDMA ? " (RDMA)" : "",
			step_err(err), ml[0] ? ": " : "", ml);
		goto out_free;
	}
	c->deadline_ms = setup_ms(opts);
	t0 = lx_xprt_now_ns();
	err = lx_nfs3_fsinfo(c, &c->root, &c->fsinfo);
	c->deadline_ms = 0;
	if (err == -ETIMEDOUT || err == -ECONNRESET || err == -EBADMSG) {
		char why[512];

		step_why(opts, c->rpc, err, "an NFS v3", t0, why, sizeof(why));
		lx_nfs3_seterr(opts, "FSINFO of the root on %s failed: %s",
			       lx_xprt_peer(lx_rpc_xprt(c->rpc, 0)), why);
		goto out_rpc;
	}
	if (err) {
		char ml[240] = "";

		/* over RDMA the first call registers what creation did not
		 * (the pool's first slab): the limit may refuse it here */
		if (!c->fsinfo.status && ro.transport == LX_XPRT_TRANSPORT_RDMA)
			lx_xprt_memlock_explain(err, 0, ml, sizeof(ml));
		lx_nfs3_seterr(opts, "FSINFO of the root on %s failed: %s%s%s",
			       opts->host,
			       c->fsinfo.status ?
				       lx_nfs3_stat_name(c->fsinfo.status) :
				       step_err(err),
			       ml[0] ? ": " : "", ml);
		goto out_rpc;
	}
	set_sizes(c, opts);
	*cp = c;
	return 0;

out_rpc:
	lx_rpc_destroy(c->rpc);
out_free:
	free(c);
	return err;
}

int lx_nfs3_create(struct lx_nfs3_clnt **cp, const struct lx_nfs3_opts *opts)
{
	struct lx_nfs3_fh root;
	int err = opts_ok(opts);

	if (err || !cp || !opts->export_path == !opts->root)
		return -EINVAL;
	if (opts->root)
		return lx_nfs3_fh_ok(opts->root) ?
			       -EINVAL :
			       nfs3_connect(cp, opts, opts->root);
	if (opts->export_path[0] != '/' ||
	    strlen(opts->export_path) > LX_NFS3_MAXPATHLEN)
		return -EINVAL;
	err = do_mnt(opts, &root);
	if (err)
		return err;
	return nfs3_connect(cp, opts, &root);
}

void lx_nfs3_destroy(struct lx_nfs3_clnt *c)
{
	if (!c)
		return;
	lx_rpc_destroy(c->rpc);
	free(c);
}

const struct lx_nfs3_fh *lx_nfs3_root(const struct lx_nfs3_clnt *c)
{
	return &c->root;
}

const struct lx_nfs3_fsinfo_res *
lx_nfs3_fsinfo_cached(const struct lx_nfs3_clnt *c)
{
	return &c->fsinfo;
}

uint32_t lx_nfs3_rsize(const struct lx_nfs3_clnt *c)
{
	return c->rsize;
}

uint32_t lx_nfs3_wsize(const struct lx_nfs3_clnt *c)
{
	return c->wsize;
}

uint32_t lx_nfs3_dirsize(const struct lx_nfs3_clnt *c)
{
	return c->dirsize;
}

void lx_nfs3_stats(const struct lx_nfs3_clnt *cc, struct lx_nfs3_stats *st)
{
	struct lx_nfs3_clnt *c = (struct lx_nfs3_clnt *)cc;

	lx_rpc_stats(c->rpc, &st->rpc);
	st->nfs_errors = atomic_load(&c->ctr.nfs_errors);
	st->jukebox = atomic_load(&c->ctr.jukebox);
	st->commits = atomic_load(&c->ctr.commits);
	st->verf_changes = atomic_load(&c->ctr.verf_changes);
	st->resent_bytes = atomic_load(&c->ctr.resent_bytes);
}

struct lx_rpc_clnt *lx_nfs3_rpc(const struct lx_nfs3_clnt *c)
{
	return c->rpc;
}

int lx_nfs3_loop_fd(const struct lx_nfs3_clnt *c)
{
	return c ? lx_rpc_loop_fd(c->rpc) : -EINVAL;
}

unsigned int lx_nfs3_loop_events(const struct lx_nfs3_clnt *c)
{
	return c ? lx_rpc_loop_events(c->rpc) : 0;
}

int lx_nfs3_loop_service(struct lx_nfs3_clnt *c, unsigned int revents)
{
	return c ? lx_rpc_loop_service(c->rpc, revents) : -EINVAL;
}

int lx_nfs3_loop_run(struct lx_nfs3_clnt *c, struct lx_call *until,
		     unsigned int min_done, uint64_t deadline_ns)
{
	return c ? lx_rpc_loop_run(c->rpc, until, min_done, deadline_ns) :
		   -EINVAL;
}

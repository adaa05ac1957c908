// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NFSv3 client: mounting, status mapping, messages.
 *
 * nfs3_mount() is three steps, each with its own message on failure so a
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

#include <libxprt/rdma.h>

#include "nfs3_int.h"
#include "xprt/util.h"

/* Largest READ/WRITE piece.  ganesha announces rtmax/wtmax of 64 MiB in
 * FSINFO but serves at most 1 MiB; 1 MiB is also the Linux client's
 * ceiling, and a piece must fit the transport's message limit. */
#define NFS3_IO_MAX (1u << 20)

void nfs3_seterr(const struct nfs3_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o || !o->errmsg || !o->errmsg_len)
		return;
	va_start(ap, fmt);
	vsnprintf(o->errmsg, o->errmsg_len, fmt, ap);
	va_end(ap);
}

static void rpc_opts_from(struct rpc_clnt_opts *ro, const struct nfs3_opts *o,
			  uint32_t prog, uint16_t port)
{
	memset(ro, 0, sizeof(*ro));
	ro->host = o->host;
	ro->port = port;
	ro->prog = prog;
	ro->vers = prog == NFS3_PROGRAM ? NFS3_VERSION : MOUNT3_VERSION;
	ro->auth.flavor = o->auth_none ? RPC_AUTH_NONE : RPC_AUTH_SYS;
	ro->auth.set_ids = o->set_ids;
	ro->auth.uid = o->uid;
	ro->auth.gid = o->gid;
	ro->transport = o->transport;
	ro->rdma = o->rdma;
	ro->timeo_ms = o->timeo_ms;
	ro->retrans = o->retrans;
}

static int opts_ok(const struct nfs3_opts *o)
{
	if (!o || !o->host || !*o->host || o->nconnect > 16)
		return -EINVAL;
	if (o->transport != XPRT_TRANSPORT_TCP &&
	    o->transport != XPRT_TRANSPORT_RDMA)
		return -EINVAL;
	if (o->buf_size && o->buf_size < 4096)
		return -EINVAL;
	return 0;
}

int nfs3_mnt_clnt_create(struct rpc_clnt **mcp, const struct nfs3_opts *opts)
{
	struct rpc_clnt_opts ro;
	int err = opts_ok(opts);

	if (err || !mcp)
		return -EINVAL;
	rpc_opts_from(&ro, opts, MOUNT3_PROGRAM, opts->mount_port);
	/* MNT is small and rare: MOUNT is always TCP, one connection
	 * (servers do not even listen for it over RDMA) */
	ro.transport = XPRT_TRANSPORT_TCP;
	ro.rdma = NULL;
	ro.max_reqs = 4;
	ro.buf_size = NFS3_DEF_BUF_SIZE;
	return rpc_clnt_create(mcp, &ro);
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
		return nfs3_strerror(err);
	}
}

/*
 * Is @path among the server's exports?  1 yes, 0 no, negative: could not
 * tell.  Asked when MNT says ACCES: ganesha answers ACCES, not NOENT, for
 * a path it does not export, and "no such export" is the clearer message.
 */
static int export_listed(struct rpc_clnt *mc, const char *path, char *names,
			 size_t names_len)
{
	struct nfs3_mnt_entry ent[64];
	char strs[8192];
	struct nfs3_mnt_list ml = {.ent = ent,
				   .cap = XPRT_ARRAY_SIZE(ent),
				   .strbuf = strs,
				   .strsize = sizeof(strs)};
	size_t used = 0;
	unsigned int i;
	int found = 0, err;

	err = nfs3_mnt_export(mc, &ml);
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

static int do_mnt(const struct nfs3_opts *o, struct nfs3_fh *root)
{
	char names[256];
	struct nfs3_mnt_res res;
	struct rpc_clnt *mc;
	int err;

	err = nfs3_mnt_clnt_create(&mc, o);
	if (err) {
		nfs3_seterr(o, "cannot reach MOUNT v3 on %s port %u: %s",
			    o->host, o->mount_port, step_err(err));
		return err;
	}
	memset(&res, 0, sizeof(res));
	err = nfs3_mnt_mnt(mc, o->export_path, &res);
	if (err == -EACCES && res.status == MNT3ERR_ACCES &&
	    export_listed(mc, o->export_path, names, sizeof(names)) == 0) {
		rpc_clnt_destroy(mc);
		nfs3_seterr(o, "export %s does not exist on %s (exports: %s)",
			    o->export_path, o->host, names[0] ? names : "none");
		return -ENOENT;
	}
	rpc_clnt_destroy(mc);
	if (!err) {
		*root = res.fh;
		return 0;
	}
	switch (res.status) {
	case MNT3ERR_NOENT:
		nfs3_seterr(o, "export %s does not exist on %s", o->export_path,
			    o->host);
		break;
	case MNT3ERR_ACCES:
	case MNT3ERR_PERM:
		nfs3_seterr(o, "%s refused to mount %s (not exported to us)",
			    o->host, o->export_path);
		break;
	case MNT3ERR_NOTDIR:
		nfs3_seterr(o, "export %s on %s is not a directory",
			    o->export_path, o->host);
		break;
	default:
		if (res.status)
			nfs3_seterr(o, "MNT %s on %s failed: %s",
				    o->export_path, o->host,
				    nfs3_stat_name(res.status));
		else
			nfs3_seterr(o, "MNT %s on %s failed: %s",
				    o->export_path, o->host, step_err(err));
	}
	return err;
}

static void set_sizes(struct nfs3_clnt *c, const struct nfs3_opts *o)
{
	const struct nfs3_fsinfo_res *fi = &c->fsinfo;
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
	c->rsize = XPRT_MIN(r, NFS3_IO_MAX);
	c->wsize = XPRT_MIN(w, NFS3_IO_MAX);
	/* directory replies land in the per-call buffer */
	c->dirsize = (uint32_t)(c->buf_size - NFS3_DIR_SLACK);
	if (fi->dtpref && fi->dtpref < c->dirsize)
		c->dirsize = XPRT_MAX(fi->dtpref, 1024u);
}

int nfs3_connect(struct nfs3_clnt **cp, const struct nfs3_opts *opts,
		 const struct nfs3_fh *root)
{
	struct rpc_clnt_opts ro;
	struct nfs3_clnt *c;
	int err = opts_ok(opts);

	if (err || !cp || nfs3_fh_ok(root))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->root = *root;
	c->buf_size = opts->buf_size ? opts->buf_size : NFS3_DEF_BUF_SIZE;
	rpc_opts_from(&ro, opts, NFS3_PROGRAM, opts->nfs_port);
	/* rpcbind maps TCP ports: over RDMA the IANA port is the default */
	if (!ro.port && opts->transport == XPRT_TRANSPORT_RDMA)
		ro.port = XPRT_RDMA_NFS_PORT;
	ro.nconnect = opts->nconnect;
	ro.max_reqs = opts->max_reqs;
	ro.buf_size = c->buf_size;
	err = rpc_clnt_create(&c->rpc, &ro);
	if (err) {
		nfs3_seterr(opts, "cannot reach NFS v3 on %s port %u%s: %s",
			    opts->host, ro.port,
			    ro.transport == XPRT_TRANSPORT_RDMA ? " (RDMA)" :
								  "",
			    step_err(err));
		goto out_free;
	}
	err = nfs3_fsinfo(c, &c->root, &c->fsinfo);
	if (err) {
		nfs3_seterr(
			opts, "FSINFO of the root on %s failed: %s", opts->host,
			c->fsinfo.status ? nfs3_stat_name(c->fsinfo.status) :
					   step_err(err));
		goto out_rpc;
	}
	set_sizes(c, opts);
	*cp = c;
	return 0;

out_rpc:
	rpc_clnt_destroy(c->rpc);
out_free:
	free(c);
	return err;
}

int nfs3_mount(struct nfs3_clnt **cp, const struct nfs3_opts *opts)
{
	struct nfs3_fh root;
	int err = opts_ok(opts);

	if (err || !cp || !opts->export_path || opts->export_path[0] != '/' ||
	    strlen(opts->export_path) > NFS3_MAXPATHLEN)
		return -EINVAL;
	err = do_mnt(opts, &root);
	if (err)
		return err;
	return nfs3_connect(cp, opts, &root);
}

void nfs3_destroy(struct nfs3_clnt *c)
{
	if (!c)
		return;
	rpc_clnt_destroy(c->rpc);
	free(c);
}

const struct nfs3_fh *nfs3_root(const struct nfs3_clnt *c)
{
	return &c->root;
}

const struct nfs3_fsinfo_res *nfs3_fsinfo_cached(const struct nfs3_clnt *c)
{
	return &c->fsinfo;
}

uint32_t nfs3_rsize(const struct nfs3_clnt *c)
{
	return c->rsize;
}

uint32_t nfs3_wsize(const struct nfs3_clnt *c)
{
	return c->wsize;
}

uint32_t nfs3_dirsize(const struct nfs3_clnt *c)
{
	return c->dirsize;
}

struct rpc_clnt *nfs3_clnt_rpc(const struct nfs3_clnt *c)
{
	return c->rpc;
}

/* ---------------------------------------------------------------- status */

static const struct {
	uint32_t stat;
	int err;
	const char *name;
} nfs3_stats[] = {
	{NFS3_OK, 0, "NFS3_OK"},
	{NFS3ERR_PERM, -EPERM, "NFS3ERR_PERM"},
	{NFS3ERR_NOENT, -ENOENT, "NFS3ERR_NOENT"},
	{NFS3ERR_IO, -EIO, "NFS3ERR_IO"},
	{NFS3ERR_NXIO, -ENXIO, "NFS3ERR_NXIO"},
	{NFS3ERR_ACCES, -EACCES, "NFS3ERR_ACCES"},
	{NFS3ERR_EXIST, -EEXIST, "NFS3ERR_EXIST"},
	{NFS3ERR_XDEV, -EXDEV, "NFS3ERR_XDEV"},
	{NFS3ERR_NODEV, -ENODEV, "NFS3ERR_NODEV"},
	{NFS3ERR_NOTDIR, -ENOTDIR, "NFS3ERR_NOTDIR"},
	{NFS3ERR_ISDIR, -EISDIR, "NFS3ERR_ISDIR"},
	{NFS3ERR_INVAL, -EINVAL, "NFS3ERR_INVAL"},
	{NFS3ERR_FBIG, -EFBIG, "NFS3ERR_FBIG"},
	{NFS3ERR_NOSPC, -ENOSPC, "NFS3ERR_NOSPC"},
	{NFS3ERR_ROFS, -EROFS, "NFS3ERR_ROFS"},
	{NFS3ERR_MLINK, -EMLINK, "NFS3ERR_MLINK"},
	{NFS3ERR_NAMETOOLONG, -ENAMETOOLONG, "NFS3ERR_NAMETOOLONG"},
	{NFS3ERR_NOTEMPTY, -ENOTEMPTY, "NFS3ERR_NOTEMPTY"},
	{NFS3ERR_DQUOT, -EDQUOT, "NFS3ERR_DQUOT"},
	{NFS3ERR_STALE, -ESTALE, "NFS3ERR_STALE"},
	{NFS3ERR_REMOTE, -EREMOTE, "NFS3ERR_REMOTE"},
	{NFS3ERR_BADHANDLE, -EBADF, "NFS3ERR_BADHANDLE"},
	{NFS3ERR_NOT_SYNC, -EBUSY, "NFS3ERR_NOT_SYNC"},
	{NFS3ERR_BAD_COOKIE, -EILSEQ, "NFS3ERR_BAD_COOKIE"},
	{NFS3ERR_NOTSUPP, -ENOTSUP, "NFS3ERR_NOTSUPP"},
	{NFS3ERR_TOOSMALL, -ERANGE, "NFS3ERR_TOOSMALL"},
	{NFS3ERR_SERVERFAULT, -EREMOTEIO, "NFS3ERR_SERVERFAULT"},
	{NFS3ERR_BADTYPE, -EPROTOTYPE, "NFS3ERR_BADTYPE"},
	{NFS3ERR_JUKEBOX, -EAGAIN, "NFS3ERR_JUKEBOX"},
};

int nfs3_stat_errno(uint32_t status)
{
	size_t i;

	for (i = 0; i < XPRT_ARRAY_SIZE(nfs3_stats); i++)
		if (nfs3_stats[i].stat == status)
			return nfs3_stats[i].err;
	return -EREMOTEIO;
}

const char *nfs3_stat_name(uint32_t status)
{
	size_t i;

	for (i = 0; i < XPRT_ARRAY_SIZE(nfs3_stats); i++)
		if (nfs3_stats[i].stat == status)
			return nfs3_stats[i].name;
	return "NFS3ERR_unknown";
}

const char *nfs3_strerror(int err)
{
	switch (err) {
	case -EOVERFLOW:
		return "reply carries more data than asked for";
	case -E2BIG:
		return "reply has more entries than the caller's arrays hold";
	case -ELOOP:
		return "directory cookie loop (server sent a cookie twice)";
	case -ESTALE:
		return "stale file handle (NFS3ERR_STALE)";
	case -EBADF:
		return "file handle not understood (NFS3ERR_BADHANDLE)";
	case -EBUSY:
		return "object changed since the guard (NFS3ERR_NOT_SYNC)";
	case -EILSEQ:
		return "directory cookie no longer valid (NFS3ERR_BAD_COOKIE)";
	case -ERANGE:
		return "buffer too small for one entry (NFS3ERR_TOOSMALL)";
	case -EPROTOTYPE:
		return "object type not supported (NFS3ERR_BADTYPE)";
	case -EAGAIN:
		return "try again later (NFS3ERR_JUKEBOX, or no free slot)";
	case -ENOSPC:
		return "no space left on the server's file system";
	case -EROFS:
		return "read-only file system";
	case -ENOENT:
		return "no such file, directory or export";
	default:
		return rpc_strerror(err);
	}
}

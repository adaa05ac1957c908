// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rpcbind client: PMAPPROC_GETPORT (version 2), RPCBPROC_GETADDR
 * (versions 3 and 4) and DUMP, over TCP to port 111.
 *
 * These run rarely (at mount time, in tools), so they use libtirpc's
 * decoders for the variable-length results (which allocate) and free them
 * with xdr_free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/rpc.h>
#include <rpc/pmap_prot.h>
#include <rpc/rpcb_prot.h>

#include <libxprt/rpcbind.h>

#include "rpc_int.h"

static int lx_rpcbind_open(struct lx_rpc_clnt **clp,
			   const struct lx_rpcbind_opts *o, uint32_t vers,
			   enum lx_xprt_mode mode)
{
	struct lx_rpc_opts co = {0};

	co.mode = mode;
	co.host = o->host;
	co.port = o->port ? o->port : LX_RPCBIND_PORT;
	co.prog = RPCBPROG;
	co.vers = vers;
	co.auth.flavor = LX_RPC_AUTH_NONE;
	co.max_reqs = 4;
	co.buf_size = 64 * 1024;
	co.timeo_ms = o->timeo_ms ? o->timeo_ms : 5000;
	co.retrans = LX_RPC_NO_RETRANS;
	return lx_rpc__create(clp, &co, NULL);
}

/* lx_rpcbind_getport() on a client of @mode */
static int rpcbind_getport(const struct lx_rpcbind_opts *o, uint32_t prog,
			   uint32_t vers, int proto, uint16_t *port,
			   enum lx_xprt_mode mode)
{
	struct lx_rpc_clnt *cl;
	struct pmap pm = {0};
	u_long res = 0;
	int err;

	if (!o || !o->host || !port)
		return -EINVAL;
	err = lx_rpcbind_open(&cl, o, PMAPVERS, mode);
	if (err)
		return err;
	pm.pm_prog = prog;
	pm.pm_vers = vers;
	pm.pm_prot = (u_long)proto;
	err = lx_rpc_call_simple(cl, PMAPPROC_GETPORT, (xdrproc_t)xdr_pmap, &pm,
				 (xdrproc_t)xdr_u_long, &res);
	lx_rpc_destroy(cl);
	if (err)
		return err;
	if (res > 65535)
		return -EBADMSG; /* no port is: a broken reply */
	if (res == 0)
		return -EPFNOSUPPORT; /* not registered */
	*port = (uint16_t)res;
	return 0;
}

int lx_rpcbind_getport(const struct lx_rpcbind_opts *o, uint32_t prog,
		       uint32_t vers, int proto, uint16_t *port)
{
	return rpcbind_getport(o, prog, vers, proto, port,
			       LX_XPRT_MODE_THREADED);
}

int lx_rpcbind_getport_tcp(const char *host, uint32_t prog, uint32_t vers,
			   enum lx_xprt_mode mode, uint16_t *port)
{
	struct lx_rpcbind_opts o = {.host = host};

	return rpcbind_getport(&o, prog, vers, IPPROTO_TCP, port, mode);
}

int lx_rpcbind_getaddr(const struct lx_rpcbind_opts *o, uint32_t rpcbvers,
		       uint32_t prog, uint32_t vers, const char *netid,
		       char *uaddr, size_t len)
{
	struct lx_rpc_clnt *cl;
	struct rpcb args = {0};
	char *res = NULL;
	int err;

	if (!o || !o->host || !netid || !uaddr || !len ||
	    (rpcbvers != RPCBVERS && rpcbvers != RPCBVERS4))
		return -EINVAL;
	err = lx_rpcbind_open(&cl, o, rpcbvers, LX_XPRT_MODE_THREADED);
	if (err)
		return err;
	args.r_prog = prog;
	args.r_vers = vers;
	args.r_netid = (char *)netid;
	args.r_addr = (char *)"";
	args.r_owner = (char *)"";
	err = lx_rpc_call_simple(cl, RPCBPROC_GETADDR, (xdrproc_t)xdr_rpcb,
				 &args, (xdrproc_t)xdr_wrapstring, &res);
	lx_rpc_destroy(cl);
	if (err)
		goto out;
	if (!res || !*res) {
		err = -EPFNOSUPPORT;
		goto out;
	}
	if (strlen(res) >= len) {
		err = -ENAMETOOLONG;
		goto out;
	}
	strcpy(uaddr, res);
out:
	if (res)
		xdr_free((xdrproc_t)xdr_wrapstring, (char *)&res);
	return err;
}

int lx_rpcbind_uaddr_port(const char *uaddr, uint16_t *port)
{
	const char *p1, *p2;
	unsigned long hi, lo;
	char *end;

	if (!uaddr || !port)
		return -EINVAL;
	/* universal address: "h1.h2.h3.h4.p1.p2" (or IPv6 "...:p1.p2") */
	p2 = strrchr(uaddr, '.');
	if (!p2 || p2 == uaddr)
		return -EINVAL;
	p1 = p2 - 1;
	while (p1 > uaddr && *p1 != '.')
		p1--;
	if (*p1 != '.')
		return -EINVAL;
	hi = strtoul(p1 + 1, &end, 10);
	if (end != p2 || hi > 255)
		return -EINVAL;
	lo = strtoul(p2 + 1, &end, 10);
	if (*end || lo > 255)
		return -EINVAL;
	*port = (uint16_t)(hi << 8 | lo);
	return 0;
}

int lx_rpcbind_dump(const struct lx_rpcbind_opts *o, uint32_t rpcbvers,
		    lx_rpcbind_dump_fn fn, void *arg)
{
	struct lx_rpc_clnt *cl;
	int err, n = 0;

	if (!o || !o->host || !fn)
		return -EINVAL;
	if (rpcbvers == PMAPVERS) {
		struct pmaplist *head = NULL, *pl;

		err = lx_rpcbind_open(&cl, o, PMAPVERS, LX_XPRT_MODE_THREADED);
		if (err)
			return err;
		err = lx_rpc_call_simple(cl, PMAPPROC_DUMP, NULL, NULL,
					 (xdrproc_t)xdr_pmaplist_ptr, &head);
		lx_rpc_destroy(cl);
		for (pl = head; !err && pl; pl = pl->pml_next, n++) {
			struct lx_rpcbind_entry e = {
				.prog = (uint32_t)pl->pml_map.pm_prog,
				.vers = (uint32_t)pl->pml_map.pm_vers,
				.netid = pl->pml_map.pm_prot == IPPROTO_UDP ?
						 "udp" :
						 "tcp",
				.port = (uint16_t)pl->pml_map.pm_port,
			};
			fn(&e, arg);
		}
		xdr_free((xdrproc_t)xdr_pmaplist_ptr, (char *)&head);
		return err ? err : n;
	}
	if (rpcbvers == RPCBVERS || rpcbvers == RPCBVERS4) {
		rpcblist_ptr head = NULL, rl;

		err = lx_rpcbind_open(&cl, o, rpcbvers, LX_XPRT_MODE_THREADED);
		if (err)
			return err;
		err = lx_rpc_call_simple(cl, RPCBPROC_DUMP, NULL, NULL,
					 (xdrproc_t)xdr_rpcblist_ptr, &head);
		lx_rpc_destroy(cl);
		for (rl = head; !err && rl; rl = rl->rpcb_next, n++) {
			struct lx_rpcbind_entry e = {
				.prog = (uint32_t)rl->rpcb_map.r_prog,
				.vers = (uint32_t)rl->rpcb_map.r_vers,
				.netid = rl->rpcb_map.r_netid,
				.uaddr = rl->rpcb_map.r_addr,
				.owner = rl->rpcb_map.r_owner,
			};
			uint16_t port;

			if (!lx_rpcbind_uaddr_port(e.uaddr, &port))
				e.port = port;
			fn(&e, arg);
		}
		xdr_free((xdrproc_t)xdr_rpcblist_ptr, (char *)&head);
		return err ? err : n;
	}
	return -EINVAL;
}

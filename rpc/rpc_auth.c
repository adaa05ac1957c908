// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Call header and credentials.
 *
 * Everything in a call header but the XID and the procedure is the same for
 * every call of a client, so it is encoded once, with libtirpc's
 * xdr_callmsg (and xdr_authunix_parms for an AUTH_SYS credential), into a
 * template that each call copies and patches: two 32-bit stores instead of
 * an XDR pass per call.  AUTH_SYS credentials carry no expiry or sequence,
 * so one encoding stays valid for the client's life (the Linux client also
 * caches its AUTH_SYS credential).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpc_int.h"

static int lx_rpc_encode_authsys(struct lx_rpc_clnt *cl, uint8_t *buf,
				 size_t len, size_t *outlen)
{
	const struct lx_rpc_auth_opts *a = &cl->opts.auth;
	gid_t gids[LX_RPC_AUTH_SYS_MAX_GIDS];
	struct authunix_parms p = {0};
	unsigned int i;
	XDR xdr;

	if (a->machine) {
		strncpy(cl->machine, a->machine, sizeof(cl->machine) - 1);
	} else if (gethostname(cl->machine, sizeof(cl->machine) - 1) < 0) {
		strcpy(cl->machine, "localhost");
	}
	/* RFC 5531 appendix A: machinename is at most 255 bytes */
	cl->machine[255] = '\0';
	p.aup_time = (u_long)time(NULL);
	p.aup_machname = cl->machine;
	p.aup_uid = a->set_ids ? a->uid : getuid();
	p.aup_gid = a->set_ids ? a->gid : getgid();
	if (a->ngids > LX_RPC_AUTH_SYS_MAX_GIDS)
		return -EINVAL;
	for (i = 0; i < a->ngids; i++)
		gids[i] = a->gids[i];
	p.aup_len = a->ngids;
	p.aup_gids = gids;
	xdrmem_create(&xdr, (char *)buf, (u_int)len, XDR_ENCODE);
	if (!xdr_authunix_parms(&xdr, &p))
		return -EINVAL;
	*outlen = xdr_getpos(&xdr);
	xdr_destroy(&xdr);
	return 0;
}

int lx_rpc_build_header(struct lx_rpc_clnt *cl)
{
	uint8_t cred[MAX_AUTH_BYTES];
	struct rpc_msg m = {0};
	size_t credlen = 0;
	XDR xdr;
	int err;

	m.rm_xid = 0;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	m.rm_call.cb_prog = cl->opts.prog;
	m.rm_call.cb_vers = cl->opts.vers;
	m.rm_call.cb_proc = 0;
	m.rm_call.cb_cred.oa_flavor = AUTH_NONE;
	m.rm_call.cb_verf.oa_flavor = AUTH_NONE;
	switch (cl->opts.auth.flavor) {
	case LX_RPC_AUTH_NONE:
		break;
	case LX_RPC_AUTH_SYS:
		err = lx_rpc_encode_authsys(cl, cred, sizeof(cred), &credlen);
		if (err)
			return err;
		m.rm_call.cb_cred.oa_flavor = AUTH_SYS;
		m.rm_call.cb_cred.oa_base = (caddr_t)cred;
		m.rm_call.cb_cred.oa_length = (u_int)credlen;
		break;
	default:
		return -EINVAL;
	}
	xdrmem_create(&xdr, (char *)cl->hdr, sizeof(cl->hdr), XDR_ENCODE);
	if (!xdr_callmsg(&xdr, &m))
		return -EINVAL;
	cl->hdr_len = xdr_getpos(&xdr);
	xdr_destroy(&xdr);
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lx_strerror(): one text for every error any layer returns (contract in
 * include/libxprt/call.h).  The errnos are shared by the layers: the same
 * number means the same thing at every layer, so one table serves them
 * all; where a protocol status maps onto an errno, the status is named.
 * Here, at the bottom, because it calls nothing: every layer may use it
 * in its messages.
 */
#include <errno.h>
#include <string.h>

#include <libxprt/call.h>

const char *lx_strerror(int err)
{
	if (err > 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case -EPFNOSUPPORT:
		return "program unavailable (PROG_UNAVAIL)";
	case -EPROTONOSUPPORT:
		return "version not served (PROG_MISMATCH; 9P: not a 9P2000.L server)";
	case -EOPNOTSUPP:
		return "procedure unavailable (PROC_UNAVAIL)";
	case -EINVAL:
		return "invalid argument (or GARBAGE_ARGS, NFS3ERR_INVAL)";
	case -EREMOTEIO:
		return "server failure (SYSTEM_ERR, NFS3ERR_SERVERFAULT)";
	case -EPROTO:
		return "protocol error (RPC_MISMATCH, or a reply that breaks 9P)";
	case -EACCES:
		return "permission denied (AUTH_ERROR, NFS3ERR_ACCES)";
	case -EBADMSG:
		return "malformed reply";
	case -EMSGSIZE:
		return "message larger than the buffers (buf_size, msize)";
	case -ETIMEDOUT:
		return "timed out (no reply after the retransmissions; 9P: flushed)";
	case -ECANCELED:
		return "cancelled";
	case -ENOTCONN:
		return "not connected (gave up reconnecting; 9P: session gone)";
	case -ECONNRESET:
		return "connection lost with the call in flight";
	case -ESHUTDOWN:
		return "client shutting down";
	case -EBUSY:
		return "no free request slot or buffer (or NFS3ERR_NOT_SYNC)";
	case -EAGAIN:
		return "server busy: NFS3ERR_JUKEBOX to every retry (try "
		       "again later)";
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
	case -EILSEQ:
		return "directory cookie no longer valid (NFS3ERR_BAD_COOKIE)";
	case -ERANGE:
		return "buffer too small for one entry (NFS3ERR_TOOSMALL)";
	case -EPROTOTYPE:
		return "object type not supported (NFS3ERR_BADTYPE)";
	case -ENFILE:
		return "no free fid below the fid ceiling";
	case -ENOSPC:
		return "no space left on the server's file system";
	case -EROFS:
		return "read-only file system";
	case -ENOENT:
		return "no such file, directory or export (or host)";
	case -ECHILD:
		return "client made in another process (inherited across "
		       "fork(): make a new one here)";
	default:
		return strerror(-err);
	}
}

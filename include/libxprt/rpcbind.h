/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt rpcbind client (RFC 1833): port lookups and registrations dump,
 * over TCP.  Rarely called (at mount time, in tools): these open a short
 * connection per call.
 */
#ifndef LIBXPRT_RPCBIND_H
#define LIBXPRT_RPCBIND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LX_RPCBIND_PORT 111

/**
 * struct lx_rpcbind_opts - where rpcbind is
 * @host: server
 * @port: 0 = 111
 * @timeo_ms: per call, 0 = 5000
 */
struct lx_rpcbind_opts {
	const char *host;
	uint16_t port;
	unsigned int timeo_ms;
};

/**
 * struct lx_rpcbind_entry - one registration
 * @prog, @vers: program and version
 * @netid: "tcp", "udp", "tcp6", ...
 * @port: port (from the universal address for versions 3/4)
 * @uaddr, @owner: versions 3/4 only, else NULL
 */
struct lx_rpcbind_entry {
	uint32_t prog, vers;
	const char *netid;
	uint16_t port;
	const char *uaddr;
	const char *owner;
};

typedef void (*lx_rpcbind_dump_fn)(const struct lx_rpcbind_entry *e, void *arg);

/**
 * lx_rpcbind_getport() - PMAPPROC_GETPORT (portmapper version 2)
 * @proto: IPPROTO_TCP or IPPROTO_UDP
 * Return: %0 with *@port set; %-EPFNOSUPPORT when not registered;
 * %-EBADMSG when the port it answers is above 65535; an RPC or connection
 * error (see rpc.h).
 */
int lx_rpcbind_getport(const struct lx_rpcbind_opts *o, uint32_t prog,
		       uint32_t vers, int proto, uint16_t *port);

/**
 * lx_rpcbind_getaddr() - RPCBPROC_GETADDR (rpcbind version 3 or 4)
 * @rpcbvers: 3 or 4
 * @netid: "tcp", "udp", ...
 * @uaddr: receives the universal address ("127.0.0.1.8.1")
 * @len: its size
 * Return: %0; %-EPFNOSUPPORT when not registered; %-ENAMETOOLONG when
 * @uaddr is too small; an RPC or connection error.
 */
int lx_rpcbind_getaddr(const struct lx_rpcbind_opts *o, uint32_t rpcbvers,
		       uint32_t prog, uint32_t vers, const char *netid,
		       char *uaddr, size_t len);

/**
 * lx_rpcbind_uaddr_port() - the port of a universal address
 * Return: %0; %-EINVAL when @uaddr is malformed.
 */
int lx_rpcbind_uaddr_port(const char *uaddr, uint16_t *port);

/**
 * lx_rpcbind_dump() - list the registrations (PMAPPROC_DUMP for version 2,
 * RPCBPROC_DUMP for 3 and 4), calling @fn for each
 * Return: the number of entries, or a negative errno.
 */
int lx_rpcbind_dump(const struct lx_rpcbind_opts *o, uint32_t rpcbvers,
		    lx_rpcbind_dump_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_RPCBIND_H */

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The peer's address, for every transport: TCP connects to it, RDMA hands
 * it to rdma_resolve_addr().  One getaddrinfo() at lx_xprt_create(), kept
 * for every reconnection (a name that later resolves elsewhere does not
 * move a live transport, as with the Linux client's mount).
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "xprt/core/xprt_int.h"

/* See xprt_int.h. */
int lx_xprt_resolve(const struct lx_xprt *x, struct sockaddr_storage *ss,
		    socklen_t *lenp)
{
	struct addrinfo hints = {0}, *res;
	char port[16];
	int r;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%u", x->opts.port);
	r = getaddrinfo(x->opts.host, port, &hints, &res);
	if (r)
		return r == EAI_SYSTEM ? -errno : -ENOENT;
	if (res->ai_addrlen > sizeof(*ss)) {
		freeaddrinfo(res);
		return -EAFNOSUPPORT;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	if (lenp)
		*lenp = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The two framings' header arithmetic, inline: framing.c builds the ops
 * tables (libxprt/proto/xprt.h) from these, and the TCP receive path's
 * whole-message case (tcp_rx.c, rx_whole()) uses them directly for the
 * framings it knows, without three indirect calls per reply.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_FRAMING_H
#define LX_XPRT_FRAMING_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xprt/blocks/byteorder.h"

#define LX_RPC_LAST_FRAG 0x80000000u
#define LX_RPC_FRAG_MASK 0x7fffffffu

/* RFC 5531 record marker: length and last-fragment bit; never wrong */
static inline void lx_rpc_mark(const void *hdr, size_t *len, bool *last)
{
	uint32_t w = lx_xprt_get_be32(hdr);

	*len = w & LX_RPC_FRAG_MASK;
	*last = (w & LX_RPC_LAST_FRAG) != 0;
}

/* the record marker of a one-fragment record of @len bytes: its length */
static inline size_t lx_rpc_mark_put(void *hdr, size_t len)
{
	lx_xprt_put_be32(hdr, LX_RPC_LAST_FRAG | (uint32_t)len);
	return 4;
}

/* XID */
static inline uint32_t lx_rpc_msg_key(const void *msg)
{
	return lx_xprt_get_be32(msg);
}

/* msg_type REPLY (1): 0, or -EBADMSG */
static inline int lx_rpc_msg_check(const void *msg)
{
	return lx_xprt_get_be32((const uint8_t *)msg + 4) == 1 ? 0 : -EBADMSG;
}

/* size[4] type[1] tag[2] */
#define LX_P9_HDR_LEN	    7

/*
 * The fewest stream bytes before the bulk data of a reply that carries
 * some, marker included: where a read that must not reach into the data
 * of a reply not seen yet may stop (tcp_rx.c, a hinted first reply).
 * RPC: the marker and an accepted reply's header with an empty verifier
 * (XID, message type, reply status, verifier flavor and length, accept
 * status: RFC 5531); 9P: Rread's size[4] type[1] tag[2] count[4].
 */
#define LX_RPC_BULK_HDR_MIN (4 + 24)
#define LX_P9_BULK_HDR_MIN  11

/* 9P size (of the whole message, itself included): the rest after it */
static inline int lx_p9_mark(const void *hdr, size_t *len, bool *last)
{
	uint32_t size = lx_xprt_get_le32(hdr);

	if (size < LX_P9_HDR_LEN)
		return -EBADMSG;
	*len = size - 4;
	*last = true;
	return 0;
}

/* tag */
static inline uint32_t lx_p9_msg_key(const void *msg)
{
	return lx_xprt_get_le16((const uint8_t *)msg + 5);
}

/* every R-message type is its T-message's plus one, and those are even */
static inline int lx_p9_msg_check(const void *msg)
{
	return ((const uint8_t *)msg)[4] & 1 ? 0 : -EBADMSG;
}

#endif /* LX_XPRT_FRAMING_H */

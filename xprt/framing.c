// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stream framing for the TCP transport: how a message starts and ends.
 *
 * SunRPC over TCP uses record marking (RFC 5531 section 11): each fragment
 * is preceded by a 4-byte big-endian word, bit 31 set on the last fragment
 * of a record, bits 0-30 the fragment length.  We always send a record as
 * one fragment; we accept up to LX_XPRT_MAX_FRAGS of them.  The reply key
 * is the XID, the first word of the RPC message; the second must say
 * REPLY, or the stream is not what we think (tcp_rx.c drops it).
 *
 * 9P has no separate framing: every message starts with size[4], little
 * endian, counting itself, then type[1] and tag[2].  The "marker" is the
 * size field and stays part of the message; the key is the tag.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libxprt/proto/xprt.h>

#include "xprt/byteorder.h"

#define LX_RPC_LAST_FRAG 0x80000000u
#define LX_RPC_FRAG_MASK 0x7fffffffu

static size_t lx_rpc_encode(void *hdr, size_t len)
{
	lx_xprt_put_be32(hdr, LX_RPC_LAST_FRAG | (uint32_t)len);
	return 4;
}

static int lx_rpc_decode(const void *hdr, size_t *len, bool *last)
{
	uint32_t w = lx_xprt_get_be32(hdr);

	*len = w & LX_RPC_FRAG_MASK;
	*last = (w & LX_RPC_LAST_FRAG) != 0;
	return 0;
}

static uint32_t lx_rpc_key(const void *msg)
{
	return lx_xprt_get_be32(msg);
}

/* msg_type (RFC 5531 section 9): a client is only ever sent REPLY (1) */
static int lx_rpc_check(const void *msg)
{
	return lx_xprt_get_be32((const uint8_t *)msg + 4) == 1 ? 0 : -EBADMSG;
}

const struct lx_xprt_framing_ops lx_xprt_framing_rpc = {
	.name = "rpc-record-marking",
	.hdr_len = 4,
	.keep_hdr = false,
	.key_len = 8, /* XID and msg_type */
	.encode = lx_rpc_encode,
	.decode = lx_rpc_decode,
	.key = lx_rpc_key,
	.check = lx_rpc_check,
};

/* size[4] type[1] tag[2] */
#define LX_P9_HDR_LEN 7

static size_t lx_p9_encode(void *hdr, size_t len)
{
	(void)hdr;
	(void)len;
	return 0;
}

static int lx_p9_decode(const void *hdr, size_t *len, bool *last)
{
	uint32_t size = lx_xprt_get_le32(hdr);

	if (size < LX_P9_HDR_LEN)
		return -EBADMSG;
	*len = size - 4;
	*last = true;
	return 0;
}

static uint32_t lx_p9_key(const void *msg)
{
	return lx_xprt_get_le16((const uint8_t *)msg + 5);
}

/* every R-message type is its T-message's plus one, and those are even */
static int lx_p9_check(const void *msg)
{
	return ((const uint8_t *)msg)[4] & 1 ? 0 : -EBADMSG;
}

const struct lx_xprt_framing_ops lx_xprt_framing_9p = {
	.name = "9p",
	.hdr_len = 4,
	.keep_hdr = true,
	.key_len = LX_P9_HDR_LEN,
	.encode = lx_p9_encode,
	.decode = lx_p9_decode,
	.key = lx_p9_key,
	.check = lx_p9_check,
};

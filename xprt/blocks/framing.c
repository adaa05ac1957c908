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

#include "xprt/blocks/framing.h"

static size_t lx_rpc_encode(void *hdr, size_t len)
{
	return lx_rpc_mark_put(hdr, len);
}

static int lx_rpc_decode(const void *hdr, size_t *len, bool *last)
{
	lx_rpc_mark(hdr, len, last);
	return 0;
}

static uint32_t lx_rpc_key(const void *msg)
{
	return lx_rpc_msg_key(msg);
}

/* msg_type (RFC 5531 section 9): a client is only ever sent REPLY (1) */
static int lx_rpc_check(const void *msg)
{
	return lx_rpc_msg_check(msg);
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

static size_t lx_p9_encode(void *hdr, size_t len)
{
	(void)hdr;
	(void)len;
	return 0;
}

static int lx_p9_decode(const void *hdr, size_t *len, bool *last)
{
	return lx_p9_mark(hdr, len, last);
}

static uint32_t lx_p9_key(const void *msg)
{
	return lx_p9_msg_key(msg);
}

/* every R-message type is its T-message's plus one, and those are even */
static int lx_p9_check(const void *msg)
{
	return lx_p9_msg_check(msg);
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

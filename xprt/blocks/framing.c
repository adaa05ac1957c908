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

/*
 * The tables point at framing.h's inline helpers where their signature
 * is the hook's; only the RPC decoder (whose marker is never wrong) and
 * 9P's encoder (no marker of its own) need a function here.
 */
static int lx_rpc_decode(const void *hdr, size_t *len, bool *last)
{
	lx_rpc_mark(hdr, len, last);
	return 0;
}

const struct lx_xprt_framing_ops lx_xprt_framing_rpc = {
	.name = "rpc-record-marking",
	.hdr_len = 4,
	.keep_hdr = false,
	.key_len = 8, /* XID and msg_type */
	.encode = lx_rpc_mark_put,
	.decode = lx_rpc_decode,
	.key = lx_rpc_msg_key,
	.check = lx_rpc_msg_check, /* a client is only ever sent REPLY */
};

static size_t lx_p9_encode(void *hdr, size_t len)
{
	return 0;
}

const struct lx_xprt_framing_ops lx_xprt_framing_9p = {
	.name = "9p",
	.hdr_len = 4,
	.keep_hdr = true,
	.key_len = LX_P9_HDR_LEN,
	.encode = lx_p9_encode,
	.decode = lx_p9_mark,
	.key = lx_p9_msg_key,
	.check = lx_p9_msg_check, /* an R-message's type is odd */
};

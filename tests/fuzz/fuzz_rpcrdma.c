// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the RPC-over-RDMA v1 header codec and reply checks
 * (rpc/rpc_rdma.c) - what a hostile server controls on an RDMA
 * connection: the transport header of every reply, its chunk lists and
 * credit grant, RDMA_ERROR bodies, and the RFC 8797 connection private
 * data.
 *
 * Input: byte 0 picks the call's offer (bit 0: a Write chunk of two
 * segments, bit 1: a Reply chunk of one); bytes 1..8 are the server's
 * CM private data; the rest is the received message.
 *
 * Checks: the decoder never claims more header than it was given; a
 * header it accepts (of a procedure we can send) encodes back to the same
 * bytes; a reply that passes the checks returned only what was offered:
 * the RPC message lies inside the received bytes, the Write chunk's data
 * and the Reply chunk's message fit the offered lengths; negotiated
 * thresholds never exceed ours nor drop below 1024.
 */
#include <string.h>

#include "harness.h"
#include "rpc/rpc_rdma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void make_offer(uint8_t sel, struct lx_rpcrdma_offer *o)
{
	memset(o, 0, sizeof(*o));
	if (sel & 1) {
		o->write.nsegs = 2;
		o->write.segs[0] =
			(struct lx_rpcrdma_seg){0x1001, 4096, 0x1000};
		o->write.segs[1] =
			(struct lx_rpcrdma_seg){0x1002, 8192, 0x9000};
	}
	if (sel & 2) {
		o->reply.nsegs = 1;
		o->reply.segs[0] = (struct lx_rpcrdma_seg){0x2001, 65536, 0x0};
	}
}

static size_t offered(const struct lx_rpcrdma_wchunk *c)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < c->nsegs; i++)
		n += c->segs[i].length;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t enc[LX_RPCRDMA_HDR_MAX * 4];
	struct lx_rpcrdma_reply_info ri;
	struct lx_rpcrdma_offer o;
	struct lx_rpcrdma_hdr h;
	unsigned int send, recv;
	const uint8_t *msg;
	size_t len;
	long hl, el;

	if (size < 9)
		return 0;
	make_offer(data[0], &o);
	FZ_ASSERT(lx_rpcrdma_cm_negotiate(data + 1, 8, 4096, 4096, &send,
					  &recv) >= 0);
	FZ_ASSERT(send >= 1024 && send <= 4096);
	FZ_ASSERT(recv >= 1024 && recv <= 4096);
	msg = data + 9;
	len = size - 9;

	memset(&h, 0, sizeof(h));
	hl = lx_rpcrdma_decode(msg, len, &h);
	if (hl < 0)
		return 0;
	FZ_ASSERT((size_t)hl <= len && hl >= 16); /* RDMA_DONE: 4 words */
	FZ_ASSERT(h.nr_reads <= LX_RPCRDMA_MAX_SEGS);
	FZ_ASSERT(h.nr_writes <= LX_RPCRDMA_MAX_WCHUNKS);
	if (h.proc == RDMA_MSG || h.proc == RDMA_NOMSG ||
	    h.proc == RDMA_ERROR) {
		el = lx_rpcrdma_encode(enc, sizeof(enc), &h);
		FZ_ASSERT(el == hl);
		FZ_ASSERT(!memcmp(enc, msg, (size_t)el));
	}
	if (lx_rpcrdma_check_reply(&h, (size_t)hl, len, &o, &ri))
		return 0;
	if (ri.in_reply_chunk) {
		FZ_ASSERT(o.reply.nsegs);
		FZ_ASSERT(ri.reply_len <= offered(&o.reply));
	} else {
		FZ_ASSERT(ri.msg_off >= (size_t)hl);
		FZ_ASSERT(ri.msg_off <= len && ri.msg_len <= len - ri.msg_off);
	}
	if (ri.write_used) {
		FZ_ASSERT(o.write.nsegs);
		FZ_ASSERT(ri.write_len <= offered(&o.write));
	}
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RPC-over-RDMA version 1 (RFC 8166, updated by RFC 8797): the transport
 * header, its chunk lists, the chunk decisions of a call and the checks of
 * a reply.  Pure functions over byte buffers and plain structs: no verbs,
 * no allocation, no global state, so unit tests and fuzz targets call them
 * directly and a hostile peer can only ever get an error code back.
 *
 * Wire format (XDR, big-endian 32-bit words):
 *
 *   xid  vers  credits  proc
 *   RDMA_MSG / RDMA_NOMSG:
 *     Read list:   { 1  position handle length offset(2 words) } ...  0
 *     Write list:  { 1  count  { handle length offset(2) } x count } ... 0
 *     Reply chunk: 1  count { handle length offset(2) } x count   |  0
 *     (RDMA_MSG: the RPC message follows the header inline)
 *   RDMA_ERROR:
 *     ERR_VERS  low high  |  ERR_CHUNK
 *
 * Internal header: not installed.
 */
#ifndef LX_RPC_RPC_RDMA_H
#define LX_RPC_RPC_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LX_RPCRDMA_VERSION     1u
#define LX_RPCRDMA_CM_MAGIC    0xf6ab0e18u /* RFC 8797 section 4.1 */
#define LX_RPCRDMA_CM_VERSION  1u
#define LX_RPCRDMA_DEF_INLINE  1024u /* RFC 8166 section 3.3.2 */
#define LX_RPCRDMA_MIN_INLINE  1024u
#define LX_RPCRDMA_MAX_INLINE  65536u
#define LX_RPCRDMA_HDR_MIN     28u /* four words and three empty lists */
#define LX_RPCRDMA_ERR_HDR_MIN 20u /* four words and the error code */

/*
 * Segments per chunk we build and accept (Linux's RPCRDMA_MAX_HDR_SEGS is
 * 16: about 400 bytes of chunk lists, leaving room for the RPC message in
 * a 1 KiB threshold).  A peer sending more gets -E2BIG, the local
 * equivalent of ERR_CHUNK.
 */
#define LX_RPCRDMA_MAX_SEGS    16u
/* Write chunks accepted in one list: we offer at most one per call */
#define LX_RPCRDMA_MAX_WCHUNKS 4u
/* Largest header we ever encode: room for the slot's header area */
#define LX_RPCRDMA_HDR_MAX     1024u
/* header of RDMA_MSG without chunks: 4 words and three empty lists */
#define LX_RPCRDMA_PLAIN_LEN   28u

enum lx_rpcrdma_proc {
	RDMA_MSG = 0,
	RDMA_NOMSG = 1,
	RDMA_MSGP = 2, /* deprecated by RFC 8166 */
	RDMA_DONE = 3, /* deprecated by RFC 8166 */
	RDMA_ERROR = 4,
};

enum lx_rpcrdma_errcode {
	LX_RPCRDMA_ERR_VERS = 1,
	LX_RPCRDMA_ERR_CHUNK = 2,
};

/** struct lx_rpcrdma_seg - a registered memory segment (RFC 8166 4.1.1) */
struct lx_rpcrdma_seg {
	uint32_t handle;
	uint32_t length;
	uint64_t offset;
};

/** struct lx_rpcrdma_read_seg - a Read list entry: position + segment */
struct lx_rpcrdma_read_seg {
	uint32_t position;
	struct lx_rpcrdma_seg seg;
};

/** struct lx_rpcrdma_wchunk - one Write chunk: a counted array of segments */
struct lx_rpcrdma_wchunk {
	uint32_t nsegs;
	struct lx_rpcrdma_seg segs[LX_RPCRDMA_MAX_SEGS];
};

/**
 * struct lx_rpcrdma_hdr - a decoded (or to-be-encoded) transport header
 * @xid, @vers, @credits, @proc: the four fixed words
 * @nr_reads, @reads: Read list (each entry its own position)
 * @nr_writes, @writes: Write list
 * @has_reply, @reply: Reply chunk
 * @err, @vers_low, @vers_high: RDMA_ERROR body
 */
struct lx_rpcrdma_hdr {
	uint32_t xid, vers, credits, proc;
	uint32_t nr_reads;
	struct lx_rpcrdma_read_seg reads[LX_RPCRDMA_MAX_SEGS];
	uint32_t nr_writes;
	struct lx_rpcrdma_wchunk writes[LX_RPCRDMA_MAX_WCHUNKS];
	bool has_reply;
	struct lx_rpcrdma_wchunk reply;
	uint32_t err, vers_low, vers_high;
};

/**
 * lx_rpcrdma_hdr_len() - bytes lx_rpcrdma_encode() would write for @h
 * Return: the length; 0 for a NULL @h or counts beyond the limits.
 */
size_t lx_rpcrdma_hdr_len(const struct lx_rpcrdma_hdr *h);

/**
 * lx_rpcrdma_encode() - encode a transport header
 * @buf: destination, @cap bytes
 * @h: header; only the fields of its @proc are used
 * Return: bytes written; %-EMSGSIZE when @cap is too small; %-EINVAL for
 * NULL arguments, counts beyond the limits, or a @proc other than
 * RDMA_MSG, RDMA_NOMSG, RDMA_ERROR.  Nothing is written on error.
 */
long lx_rpcrdma_encode(void *buf, size_t cap, const struct lx_rpcrdma_hdr *h);

/**
 * lx_rpcrdma_decode() - decode a received transport header
 * @buf: the received bytes
 * @len: their number
 * @h: decoded header (filled as far as the decoder got, xid first)
 *
 * Never reads past @buf + @len and never trusts a count before checking
 * that the bytes it announces are there.
 * Return: header length in bytes (for RDMA_MSG the RPC message starts
 * there); %-EBADMSG when truncated or malformed (a list discriminator
 * other than 0/1, an unknown procedure or error code); %-E2BIG when a
 * list holds more entries than LX_RPCRDMA_MAX_SEGS / LX_RPCRDMA_MAX_WCHUNKS;
 * %-EPROTONOSUPPORT for a version other than 1 on anything but
 * RDMA_ERROR (whose layout every version shares).  @h->xid is valid
 * whenever @len >= 4, even on error.
 */
long lx_rpcrdma_decode(const void *buf, size_t len, struct lx_rpcrdma_hdr *h);

/* ------------------------------------------------------------ calls */

enum lx_rpcrdma_read_kind {
	LX_RPCRDMA_READ_NONE,	 /* whole call inline */
	LX_RPCRDMA_READ_PAYLOAD, /* RDMA_MSG, payload in a Read chunk at its
			       * XDR position */
	LX_RPCRDMA_READ_POS0,	 /* RDMA_NOMSG, whole call in a position-zero
			       * Read chunk */
};

/**
 * struct lx_rpcrdma_plan_in - what the chunk decisions depend on
 * @call_len: RPC call header and arguments (contiguous)
 * @payload_len: bulk payload after them (WRITE data), XDR pad excluded
 * @payload_segs: its segments
 * @rx_dst_len: caller memory offered for bulk results (READ data), 0 none
 * @rx_dst_segs: its segments
 * @reply_hint: largest reply expected apart from bulk data, 0 = small
 * @reply_cap: the call's receive buffer: what a Reply chunk can cover
 * @reply_segs: segments a Reply chunk over it takes (the transport's
 *	segment limit), 0 taken as 1
 * @inline_send, @inline_recv: thresholds in force
 */
struct lx_rpcrdma_plan_in {
	size_t call_len;
	size_t payload_len;
	unsigned int payload_segs;
	size_t rx_dst_len;
	unsigned int rx_dst_segs;
	size_t reply_hint;
	size_t reply_cap;
	unsigned int reply_segs;
	size_t inline_send;
	size_t inline_recv;
};

/**
 * struct lx_rpcrdma_plan - the chunk decisions for one call
 * @proc: RDMA_MSG or RDMA_NOMSG
 * @read: see enum lx_rpcrdma_read_kind
 * @write: offer a Write chunk over the caller's result memory
 * @reply: offer a Reply chunk over the receive buffer
 * @reply_segs: in @reply_segs segments (0 without a Reply chunk)
 * @hdr_len: length of the transport header these choices produce
 * @inline_len: bytes of the RPC message sent after the header
 */
struct lx_rpcrdma_plan {
	enum lx_rpcrdma_proc proc;
	enum lx_rpcrdma_read_kind read;
	bool write;
	bool reply;
	unsigned int reply_segs;
	size_t hdr_len;
	size_t inline_len;
};

/*
 * Size assumed for a reply's non-bulk part when the caller gives no hint:
 * an RPC accepted-reply header with a short verifier and NFSv3 READ
 * results (post_op_attr, count, eof, data length) fit in it.
 */
#define LX_RPCRDMA_SMALL_REPLY 256u

/**
 * lx_rpcrdma_plain_fits() - whether a call goes inline without chunks
 * @call_len: the RPC call's bytes, with no payload and no bulk results
 * @reply_hint: its reply's expected size (0: LX_RPCRDMA_SMALL_REPLY)
 * @inline_send, @inline_recv: thresholds in force
 *
 * The common call (a NULL, a GETATTR, a LOOKUP): lx_rpcrdma_plan() then
 * decides RDMA_MSG, no chunk either way, the 28-byte header
 * (lx_rpcrdma_plan_plain()), and the caller may skip it.
 * Return: true when it does; false means ask lx_rpcrdma_plan().
 */
static inline bool lx_rpcrdma_plain_fits(size_t call_len, size_t reply_hint,
					 size_t inline_send, size_t inline_recv)
{
	return inline_send >= LX_RPCRDMA_MIN_INLINE &&
	       inline_recv >= LX_RPCRDMA_MIN_INLINE &&
	       call_len <= inline_send - LX_RPCRDMA_PLAIN_LEN &&
	       (reply_hint ? reply_hint : LX_RPCRDMA_SMALL_REPLY) <=
		       inline_recv - LX_RPCRDMA_PLAIN_LEN;
}

/**
 * lx_rpcrdma_plan_plain() - the plan of a call lx_rpcrdma_plain_fits()
 * @out: the plan: RDMA_MSG, no chunk, header and @call_len inline
 * @call_len: the call's bytes
 */
static inline void lx_rpcrdma_plan_plain(struct lx_rpcrdma_plan *out,
					 size_t call_len)
{
	*out = (struct lx_rpcrdma_plan){
		.proc = RDMA_MSG,
		.read = LX_RPCRDMA_READ_NONE,
		.hdr_len = LX_RPCRDMA_PLAIN_LEN,
		.inline_len = call_len,
	};
}

/**
 * lx_rpcrdma_encode_plain() - the header of an RDMA_MSG without chunks
 * @buf: at least LX_RPCRDMA_PLAIN_LEN bytes
 * @xid, @credits: its fields (version 1)
 *
 * What lx_rpcrdma_encode() writes for that header, without the general
 * encoder's checks.
 * Return: LX_RPCRDMA_PLAIN_LEN.
 */
size_t lx_rpcrdma_encode_plain(void *buf, uint32_t xid, uint32_t credits);

/**
 * lx_rpcrdma_plan() - decide the chunks of a call (RFC 8166 section 3.5,
 * the choices of Linux's client)
 *
 * Results: no chunk when the whole reply fits the receive threshold; a
 * Write chunk when bulk result memory is given and the results do not fit
 * inline; a Reply chunk when the non-bulk reply may not fit.  Call: inline
 * when header and message fit the send threshold; else the payload in a
 * Read chunk when the rest fits; else the whole call in a position-zero
 * Read chunk.
 * Return: %0; %-EINVAL for NULL arguments or thresholds below 1024;
 * %-E2BIG when a chunk would need more than LX_RPCRDMA_MAX_SEGS segments,
 * or its segments make a call header beyond the send threshold or a reply
 * header (the chunks echoed) beyond the receive threshold.
 */
int lx_rpcrdma_plan(const struct lx_rpcrdma_plan_in *in,
		    struct lx_rpcrdma_plan *out);

/* ----------------------------------------------------------- replies */

/**
 * struct lx_rpcrdma_offer - the chunks a call offered, to check its reply
 * @write: the Write chunk (nsegs 0: none)
 * @reply: the Reply chunk (nsegs 0: none)
 */
struct lx_rpcrdma_offer {
	struct lx_rpcrdma_wchunk write;
	struct lx_rpcrdma_wchunk reply;
};

/**
 * struct lx_rpcrdma_reply_info - where a checked reply's RPC message is
 * @msg_off, @msg_len: RDMA_MSG: the RPC reply inline in the receive buffer
 * @in_reply_chunk: RDMA_NOMSG: the RPC reply was written into the Reply
 *	chunk, @reply_len bytes of it
 * @write_used: the server returned the Write chunk; @write_len bytes of
 *	bulk data were written into it, contiguously from its start (the
 *	inline or Reply-chunk message is then the reduced stream)
 */
struct lx_rpcrdma_reply_info {
	size_t msg_off, msg_len;
	bool in_reply_chunk;
	size_t reply_len;
	bool write_used;
	size_t write_len;
};

/* the checks of lx_rpcrdma_check_reply() beyond the common reply */
int lx_rpcrdma__check_reply(const struct lx_rpcrdma_hdr *h, size_t hdr_len,
			    size_t rx_len, const struct lx_rpcrdma_offer *o,
			    struct lx_rpcrdma_reply_info *ri);

/**
 * lx_rpcrdma_check_reply() - check a decoded reply against the call's offer
 * @h: the decoded header
 * @hdr_len: what lx_rpcrdma_decode() returned (> 0)
 * @rx_len: bytes received (header included)
 * @o: the chunks the call offered
 * @ri: the result
 *
 * A reply may return only chunks it was offered, with the same handles,
 * lengths no larger than offered, and the Write chunk filled from its
 * start without holes; it carries no Read list.
 * Return: %0; %-EBADMSG for a reply breaking those rules (or RDMA_MSGP,
 * RDMA_DONE, an RDMA_MSG with no RPC message, an RDMA_NOMSG without
 * Reply chunk); for RDMA_ERROR: %-EPROTO (ERR_VERS: the server does not
 * speak version 1, its range is in @h) or %-EMSGSIZE (ERR_CHUNK: it could
 * not use the chunks, e.g. the reply did not fit them).  The common reply,
 * RDMA_MSG inline without chunks, is decided inline: nothing to check
 * against the offer then (a chunk offered may go unused).
 * Context: any thread; pure.
 */
static inline int lx_rpcrdma_check_reply(const struct lx_rpcrdma_hdr *h,
					 size_t hdr_len, size_t rx_len,
					 const struct lx_rpcrdma_offer *o,
					 struct lx_rpcrdma_reply_info *ri)
{
	size_t msg_len = rx_len - hdr_len;

	if (h && ri && h->proc == RDMA_MSG &&
	    !(h->nr_reads | h->nr_writes | (uint32_t)h->has_reply) &&
	    rx_len >= hdr_len && msg_len >= 4) {
		*ri = (struct lx_rpcrdma_reply_info){.msg_off = hdr_len,
						     .msg_len = msg_len};
		return 0;
	}
	return lx_rpcrdma__check_reply(h, hdr_len, rx_len, o, ri);
}

/* -------------------------------------------------- connection data */

/** RFC 8797 connection private data, 8 bytes on the wire */
#define LX_RPCRDMA_CM_PDATA_LEN	     8u
/* RFC 8797 section 4.1: the sender accepts Send With Invalidate */
#define LX_RPCRDMA_CM_F_SND_W_INV_OK 0x01u

/**
 * lx_rpcrdma_cm_encode() - our RDMA-CM private data (RFC 8797 section 4.1)
 * @buf: 8 bytes
 * @send_size, @recv_size: our thresholds, multiples of 1024 in 1 KiB ..
 *	256 KiB (the size byte is size / 1024 - 1)
 * @flags: %LX_RPCRDMA_CM_F_SND_W_INV_OK or 0
 * Return: bytes written (8); %-EINVAL for sizes out of range or unknown
 * flags.
 */
int lx_rpcrdma_cm_encode(void *buf, unsigned int send_size,
			 unsigned int recv_size, unsigned int flags);

/**
 * lx_rpcrdma_cm_negotiate() - thresholds in force after the server's reply
 * @pdata: the server's private data, NULL or @len bytes
 * @our_send, @our_recv: what we offered
 * @send, @recv: thresholds to use: ours capped by the server's receive and
 *	send sizes; 1024 each when the server sent no (or not RFC 8797)
 *	private data
 * Return: %1 when the server sent valid parameters, %0 when defaults
 * apply.
 */
int lx_rpcrdma_cm_negotiate(const void *pdata, size_t len,
			    unsigned int our_send, unsigned int our_recv,
			    unsigned int *send, unsigned int *recv);

#endif /* LX_RPC_RPC_RDMA_H */

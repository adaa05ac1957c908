/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The TCP receive state machine (tcp_rx.c): bytes of a stream in, replies
 * placed into their requests out.  Split from the socket side (tcp.c) so
 * it can be driven on any stream descriptor by whoever holds the receiver
 * role - the receive thread, a synchronous caller, or a fuzz harness
 * feeding it a socketpair (tests/fuzz/).
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_TCP_RX_H
#define LX_XPRT_TCP_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xprt/core/xprt_int.h"

#define LX_XPRT_TCP_STAGE_SIZE (64u * 1024)
#define LX_XPRT_TCP_DIRECT_MIN \
	4096u /* read bulk data in place from this size */
#define LX_XPRT_TCP_MAX_KEY    16u
/*
 * A reply placing this much bulk data or more puts the stream in "large"
 * mode: reads are then sized to what the state machine needs next (the
 * header up to where the data starts, as the last large reply had it;
 * then the data itself, straight into the caller's memory), so no
 * payload byte of the next large reply lands in the staging buffer.
 * Small replies keep the 64 KiB batched reads: a reply that places no
 * data ends the mode (one that places a little keeps it).
 */
#define LX_XPRT_TCP_LARGE_MIN  (32u * 1024)
/*
 * A request expecting that much bulk data was submitted (req->rx_hint,
 * lx_xprt_tcp_rx_hint()): large mode from the next read on, before a
 * byte of its reply is read, so that the first large reply of a
 * connection is not staged either; the mode then outlives this many
 * messages that place no large data (replies to calls sent before it).
 */
#define LX_XPRT_TCP_HINT_GRACE 4u

enum lx_xprt_tcp_rx_phase {
	RX_MARK,
	RX_KEY,
	RX_HEAD,
	RX_DATA,
	RX_PAD,
	RX_TAIL,
	RX_DISCARD,
};

/**
 * struct lx_xprt_tcp_rx - receive state of one stream
 * Owned by whoever holds the receiver role; zeroed, then @stage set to
 * LX_XPRT_TCP_STAGE_SIZE bytes (lx_xprt_tcp_rx_init()).
 */
struct lx_xprt_tcp_rx {
	uint8_t *stage;
	size_t head, tail;
	uint8_t mark[8];
	size_t mark_have;
	size_t frag_left;
	bool frag_last;
	bool in_msg;
	enum lx_xprt_tcp_rx_phase phase, resume;
	size_t msg_have;  /* message bytes consumed */
	size_t msg_known; /* message bytes announced so far */
	uint8_t key[LX_XPRT_TCP_MAX_KEY];
	size_t key_have;
	struct lx_xprt_rqst *rq; /* pinned target, NULL while discarding */
	size_t want;		 /* HEAD: bytes wanted in rbuf */
	bool data_due;		 /* HEAD: bulk data starts at want */
	size_t data_left;	 /* DATA: bytes left for rx_data */
	size_t pad_left;	 /* PAD: bytes left to drop */
	unsigned int frags;	 /* fragments of the message so far */
	int fatal; /* the stream is garbage: the error to end it with */
	const char *fatal_why; /* what it was, for the message */
	int err;	       /* outcome to report at the end of the message */
	bool large;	       /* reads sized to the message (see above) */
	bool large_seen;       /* large data placed since the last boundary */
	uint64_t large_nread;  /* nread at that boundary */
	size_t large_hdr; /* stream bytes from a record's start to its data */
	unsigned int hint_grace; /* hinted large mode: see HINT_GRACE */
	atomic_bool hint;     /* a large reply is coming (any thread sets it) */
	uint64_t nread;	      /* bytes read from the stream so far */
	uint64_t stall_nread; /* nread when a stall was first suspected */
	uint64_t stall_since; /* monotonic ns of that */
};

/**
 * lx_xprt_tcp_rx_init() - zero @rx and allocate its staging buffer
 * Return: %0 or %-ENOMEM.
 */
int lx_xprt_tcp_rx_init(struct lx_xprt_tcp_rx *rx);

/** lx_xprt_tcp_rx_fini() - free the staging buffer (after a reset) */
void lx_xprt_tcp_rx_fini(struct lx_xprt_tcp_rx *rx);

/**
 * lx_xprt_tcp_rx_hint() - a request whose reply is to place @bulk bytes
 * of data was submitted on @rx's stream
 *
 * From %LX_XPRT_TCP_LARGE_MIN on, the receiver's next read already
 * stops before the data of such a reply (large mode), as it does after
 * a large reply.  Call it before the request can be sent.
 * Context: any thread; lock-free (a load, and a store when the flag
 * changes).
 */
static inline void lx_xprt_tcp_rx_hint(struct lx_xprt_tcp_rx *rx, size_t bulk)
{
	if (lx_xprt_unlikely(bulk >= LX_XPRT_TCP_LARGE_MIN) &&
	    !atomic_load_explicit(&rx->hint, memory_order_relaxed))
		atomic_store_explicit(&rx->hint, true, memory_order_release);
}

/**
 * lx_xprt_tcp_rx_read() - read @fd until it would block, feeding the replies
 * to the requests of @x
 * @x: the transport whose reply index, framing and max_msg apply
 * @rx: the stream's receive state
 * @fd: a non-blocking stream socket (recv() and readv() are used)
 *
 * Context: the caller holds the receiver role of @x (nobody else reads
 * @fd or touches @rx); done() callbacks run on the calling thread.
 * Return: %0 when @fd would block; %-ECONNRESET at end of stream;
 * %-EMSGSIZE or %-EBADMSG for a marker no valid reply can carry (the
 * stream cannot be resynchronised: drop the connection); another negative
 * errno from recv()/readv().  After an error, call lx_xprt_tcp_rx_reset()
 * before reading another stream.
 */
int lx_xprt_tcp_rx_read(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx, int fd);

/**
 * lx_xprt_tcp_rx_read_wait() - lx_xprt_tcp_rx_read() whose first read
 * blocks (a synchronous caller waiting for its reply: one recv() instead
 * of poll() and recv()), for as long as the socket's SO_RCVTIMEO
 * @fd: a blocking stream socket with a receive timeout
 * Return: as lx_xprt_tcp_rx_read(); %0 also when the timeout passed.
 */
int lx_xprt_tcp_rx_read_wait(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx,
			     int fd);

/**
 * lx_xprt_tcp_rx_stalled() - a reply stopped half-way while its request
 * has already been failed, and nothing came for @stall_ns: the peer is
 * gone.  The first call that sees the stall starts its clock: no clock
 * read per byte read, nor per call while nothing is stalled.
 */
bool lx_xprt_tcp_rx_stalled(struct lx_xprt_tcp_rx *rx, uint64_t stall_ns);

/**
 * lx_xprt_tcp_rx_reset() - forget a half-received message (its request is
 * unpinned, not completed) and start over at a marker
 * Context: as lx_xprt_tcp_rx_read().
 */
void lx_xprt_tcp_rx_reset(struct lx_xprt *x, struct lx_xprt_tcp_rx *rx);

#endif /* LX_XPRT_TCP_RX_H */

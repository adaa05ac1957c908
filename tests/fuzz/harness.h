/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every libFuzzer target of tests/fuzz shares.
 *
 * Transport: the fuzz build links everything of libxprt except xprt/tcp/tcp.c
 * (the socket side) and gets harness.c's lx_xprt_tcp_ops instead: a
 * transport that "sends" by dropping the bytes and never receives on its
 * own.  lx_xprt_create(), lx_rpc_create() and the NFSv3 calls above them
 * run unchanged; no thread ever reads a socket.
 *
 * Replies: a target hands the server's side of the stream to
 * fz_stream_feed(), which writes it into a socketpair in pieces and runs
 * the real receive state machine (xprt/tcp/tcp_rx.c) on the other end after
 * each piece: markers, keys, placement, the direct readv() of bulk data,
 * and the done() callbacks all run on the fuzzing thread, in order.
 *
 * Input: targets read their parameters from the front of the input with
 * the fz_in helpers (a byte of flags, a chunk size...), the rest is the
 * stream.  Fixed keys make the corpus replayable: RPC targets pin their
 * calls to XIDs FZ_XID, FZ_XID + 1, ...; seeds carry those XIDs.
 */
#ifndef TESTS_FUZZ_HARNESS_H
#define TESTS_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xprt/tcp/tcp_rx.h"

/* The XID of a target's first call ("XPRT"); seeds are rewritten to it. */
#define FZ_XID 0x58505254u

/* Crash with a message: what libFuzzer reports as a finding. */
#define FZ_ASSERT(cond)                                     \
	do {                                                \
		if (!(cond))                                \
			fz_fail(__FILE__, __LINE__, #cond); \
	} while (0)

void fz_fail(const char *file, int line, const char *what)
	__attribute__((noreturn));

/* Reading parameters off the front of an input. */
struct fz_in {
	const uint8_t *p;
	size_t left;
};

uint8_t fz_u8(struct fz_in *in);
uint16_t fz_u16(struct fz_in *in);

/* The server's side of one connection. */
struct fz_stream {
	int wfd, rfd;
	struct lx_xprt_tcp_rx rx;
};

/* Once per process; aborts on failure (the target cannot run). */
void fz_stream_open(struct fz_stream *s);

/*
 * Feed @len bytes to @x's receive state machine, @chunk bytes at a time
 * (0: all at once).  Return 0, or the fatal stream error of
 * lx_xprt_tcp_rx_read() (the bytes after it are dropped, as a client drops
 * the connection).
 */
int fz_stream_feed(struct fz_stream *s, struct lx_xprt *x, const uint8_t *data,
		   size_t len, size_t chunk);

/* End of input: forget a half-received message, drain the socket. */
void fz_stream_reset(struct fz_stream *s, struct lx_xprt *x);

/*
 * Wait until the transport's worker thread has let go of @req (a submit
 * may find the transmit lock taken and leave the send to the worker,
 * which holds a reference until it is done): from then on only the
 * fuzzing thread touches it, and done() runs on it.  Aborts after 10 s.
 */
void fz_wait_sent(struct lx_xprt_req *req);

/* fz_wait_sent() for every request submitted on @x (for callers that
 * hold no handle, as the NFS API gives none). */
void fz_wait_xprt_sent(struct lx_xprt *x);

/* Same for a whole transport: every slot free again. */
void fz_wait_idle(struct lx_xprt *x);

struct lx_rpc_clnt;

/*
 * An RPC client on the null transport (once per process; aborts on
 * failure) and the way to pin its next XID, so that the replies of a
 * corpus find their call.
 */
struct lx_rpc_clnt *fz_rpc_clnt(size_t buf_size, unsigned int max_reqs);
void fz_rpc_next_xid(struct lx_rpc_clnt *cl, uint32_t xid);
struct lx_xprt *fz_rpc_xprt(struct lx_rpc_clnt *cl);

/* Chunk sizes worth trying: 1 byte, a marker, odd sizes, a stage. */
size_t fz_chunk(uint8_t sel);

#endif /* TESTS_FUZZ_HARNESS_H */

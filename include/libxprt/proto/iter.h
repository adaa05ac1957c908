/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt scatter/gather iterator.
 *
 * One cursor type walks several kinds of memory through a table of
 * operations, so the transports and protocol codecs have one copy of the
 * copy/advance/revert logic instead of a switch in every loop:
 *   - KVEC: an array of iovecs the library owns (headers, staging buffers)
 *   - IOVEC: a caller's iovec array (READ destinations, WRITE sources);
 *     never modified
 *   - BUFCHAIN: a chain of pool buffers linked through lx_xprt_buf.next, each
 *     contributing its @len bytes
 *   - DISCARD: a sink of a given length (bytes to drop, e.g. the excess of
 *     a reply larger than the caller's buffer)
 * The iterator never owns the memory it walks.
 */
#ifndef LIBXPRT_PROTO_ITER_H
#define LIBXPRT_PROTO_ITER_H

#include <stddef.h>
#include <sys/uio.h>

#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

enum lx_xprt_iter_type {
	LX_XPRT_ITER_KVEC,
	LX_XPRT_ITER_IOVEC,
	LX_XPRT_ITER_BUFCHAIN,
	LX_XPRT_ITER_DISCARD,
};

struct lx_xprt_iter_ops;

/**
 * struct lx_xprt_iter - cursor over memory
 * @ops: the operations of this kind of memory
 * @type: which kind
 * @count: bytes left from the cursor to the end
 * @off: offset of the cursor in the current segment
 * @done: bytes consumed since initialisation (for revert)
 * @iov: KVEC/IOVEC: current segment; @nr_segs segments from here on
 *	(BUFCHAIN and DISCARD leave @nr_segs at 0)
 * @buf: BUFCHAIN: current buffer
 * @first: the first segment (or buffer) given at initialisation
 * @first_nr: number of segments given at initialisation
 * @total: @count given at initialisation (after clamping)
 *
 * Fields are readable by callers; change them only through the functions.
 * While @count > 0 the cursor (@iov or @buf, and @off) designates the next
 * byte; zero-length segments are never current then.
 *
 * The iterator is not thread-safe: one thread uses it at a time.  The
 * copy, advance and revert functions return 0 and change nothing when
 * @it is NULL or was never initialised (its @ops is NULL), or when the
 * source or destination pointer is NULL.
 */
struct lx_xprt_iter {
	const struct lx_xprt_iter_ops *ops;
	enum lx_xprt_iter_type type;
	size_t count;
	size_t off;
	size_t done;
	union {
		const struct iovec *iov;
		struct lx_xprt_buf *buf;
	};
	unsigned int nr_segs;
	const void *first;
	unsigned int first_nr;
	size_t total;
};

/**
 * lx_xprt_iter_kvec() / lx_xprt_iter_iovec() - iterate over an iovec array
 * @it: the iterator to initialise
 * @iov: the segments (zero-length segments are skipped)
 * @nr: number of segments
 * @count: bytes to cover; clamped to the sum of the segment lengths
 *
 * Only the segments that the (clamped) @count reaches are ever read.
 * Return: %0; %-EINVAL for NULL @it, NULL @iov with @nr > 0, or a segment
 * within @count with a NULL base and a non-zero length (@it is then left
 * untouched).
 */
int lx_xprt_iter_kvec(struct lx_xprt_iter *it, const struct iovec *iov,
		      unsigned int nr, size_t count);
int lx_xprt_iter_iovec(struct lx_xprt_iter *it, const struct iovec *iov,
		       unsigned int nr, size_t count);

/**
 * lx_xprt_iter_bufchain() - iterate over pool buffers chained through ->next
 * @it: the iterator to initialise
 * @head: first buffer; each contributes its ->len bytes
 * @count: bytes to cover; clamped to the chain's total length
 *
 * A NULL @head is an empty chain.  Only the buffers that the (clamped)
 * @count reaches are ever read; the chain must not change while the
 * iterator is in use (lx_xprt_iter_revert() walks it again from @head).
 * Return: %0; %-EINVAL for NULL @it, or a buffer within @count with NULL
 * ->data and a non-zero ->len (@it is then left untouched).
 */
int lx_xprt_iter_bufchain(struct lx_xprt_iter *it, struct lx_xprt_buf *head,
			  size_t count);

/**
 * lx_xprt_iter_discard() - a sink that accepts and drops @count bytes
 * Copying from a DISCARD iterator yields nothing (returns 0).
 * Return: %0; %-EINVAL for NULL @it.
 */
int lx_xprt_iter_discard(struct lx_xprt_iter *it, size_t count);

/**
 * lx_xprt_iter_copy_to() - copy bytes into the memory at the cursor, advancing
 * @it: destination
 * @src: source bytes
 * @len: how many
 * Return: bytes copied: min(@len, bytes left); 0 for a NULL @src.
 * A DISCARD iterator accepts and drops them.
 */
size_t lx_xprt_iter_copy_to(struct lx_xprt_iter *it, const void *src,
			    size_t len);

/**
 * lx_xprt_iter_copy_from() - copy bytes out of the memory at the cursor,
 * advancing
 * Return: bytes copied: min(@len, bytes left); 0 for a NULL @dst; 0 for
 * DISCARD, whose cursor then does not move.
 */
size_t lx_xprt_iter_copy_from(struct lx_xprt_iter *it, void *dst, size_t len);

/**
 * lx_xprt_iter_advance() - move the cursor forward
 * Return: bytes advanced: min(@n, bytes left).
 */
size_t lx_xprt_iter_advance(struct lx_xprt_iter *it, size_t n);

/**
 * lx_xprt_iter_revert() - move the cursor back, e.g. after a short send
 * Return: bytes reverted: min(@n, bytes consumed so far).  KVEC/IOVEC step
 * back through the array; BUFCHAIN walks the chain again from its head.
 */
size_t lx_xprt_iter_revert(struct lx_xprt_iter *it, size_t n);

/** lx_xprt_iter_count() - bytes left */
static inline size_t lx_xprt_iter_count(const struct lx_xprt_iter *it)
{
	return it->count;
}

/**
 * lx_xprt_iter_to_iovec() - describe the next bytes as iovecs, without
 * advancing (for readv/writev/recvmsg and RDMA scatter lists)
 * @it: the iterator
 * @out: array to fill
 * @max: its size
 * @maxbytes: stop after this many bytes
 *
 * Zero-length segments are left out, so every iovec filled has a non-zero
 * length; the first may start inside a segment.
 * Return: number of iovecs filled.  A DISCARD iterator yields none; the
 * caller drains it with a scratch buffer of its own.  0 for a NULL @it or
 * @out, or @max or @maxbytes of 0.
 */
unsigned int lx_xprt_iter_to_iovec(const struct lx_xprt_iter *it,
				   struct iovec *out, unsigned int max,
				   size_t maxbytes);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_PROTO_ITER_H */

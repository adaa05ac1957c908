// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Scatter/gather iterator.
 *
 * Design
 * ------
 * Every kind of memory gets one table of operations (struct
 * lx_xprt_iter_ops); the public functions validate and clamp their arguments
 * once, then make one indirect call.  Callers therefore never switch on the
 * kind, and a new kind (RDMA-registered regions, say) is one more table, not
 * one more case in every loop of every transport.
 *
 * Cursor invariant, shared by the kinds that walk segments: while
 * @count > 0 the cursor designates a byte that exists, i.e. the current
 * segment is non-empty and @off < its length.  Zero-length segments are
 * skipped when the cursor moves forward onto them, so the copy loops never
 * test for them.  When @count reaches 0 the cursor stays where it stopped
 * (possibly at the end of a segment, or inside one when @count was smaller
 * than the segments' sum): it never steps past the last segment it used, so
 * it never points outside the caller's array.
 *
 * Revert: KVEC and IOVEC step backwards through the array, which is cheap
 * for the common case (a short send gives back a few bytes of the last
 * segment).  A buffer chain is singly linked, so BUFCHAIN rewinds to the
 * head stored at initialisation and walks forward again to the new
 * position; chains are a handful of buffers, and the walk touches
 * descriptors only, never data.
 *
 * Segments beyond @count are never read, so only the segments within it
 * are validated at initialisation (a NULL base with a non-zero length is
 * refused).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <libxprt/proto/iter.h>

#include "xprt/blocks/util.h"

/**
 * struct lx_xprt_iter_ops - what one kind of memory knows how to do
 * @copy_to: copy @len bytes into the memory at the cursor and advance
 * @copy_from: copy @len bytes out of the memory at the cursor and advance
 * @advance: move forward @n bytes
 * @revert: move back @n bytes
 * @to_iovec: describe up to @maxbytes bytes from the cursor in @out
 *
 * The public wrappers have already checked the arguments and clamped @len
 * and @n: 0 < @len, @n <= @count for forward moves, 0 < @n <= @done for
 * revert, and @max > 0, @maxbytes > 0, @count > 0 for to_iovec.  Each
 * operation returns the bytes it handled, which is then exactly @len or @n
 * (DISCARD's copy_from excepted: it yields nothing).
 */
struct lx_xprt_iter_ops {
	size_t (*copy_to)(struct lx_xprt_iter *it, const void *src, size_t len);
	size_t (*copy_from)(struct lx_xprt_iter *it, void *dst, size_t len);
	size_t (*advance)(struct lx_xprt_iter *it, size_t n);
	size_t (*revert)(struct lx_xprt_iter *it, size_t n);
	unsigned int (*to_iovec)(const struct lx_xprt_iter *it,
				 struct iovec *out, unsigned int max,
				 size_t maxbytes);
};

/* The copy direction of the shared walkers; constant at every call site so
 * the compiler emits one specialised loop per operation. */
enum iter_dir {
	ITER_SKIP,
	ITER_TO,
	ITER_FROM,
};

static inline void iter_move(void *seg, char *buf, size_t n, enum iter_dir dir)
{
	if (dir == ITER_TO)
		memcpy(seg, buf, n);
	else if (dir == ITER_FROM)
		memcpy(buf, seg, n);
}

/* ------------------------------------------------ KVEC, IOVEC, BUFCHAIN */

/*
 * KVEC and IOVEC walk a const iovec array the same way (they differ in
 * who owns the array, which matters to callers, not to the walk);
 * BUFCHAIN walks pool buffers linked through ->next.  One set of walkers
 * serves both lists: the list is an argument constant at every call site,
 * so after inlining each operation compiles to its own loop over its own
 * list, with no test of the list left in it.
 */
enum iter_seg {
	SEG_IOV, /* struct iovec array: it->iov, it->nr_segs */
	SEG_BUF, /* struct lx_xprt_buf chain: it->buf */
};

static inline size_t seg_len(const void *s, enum iter_seg k)
{
	if (k == SEG_IOV)
		return ((const struct iovec *)s)->iov_len;
	return ((const struct lx_xprt_buf *)s)->len;
}

static inline char *seg_base(const void *s, enum iter_seg k)
{
	if (k == SEG_IOV)
		return ((const struct iovec *)s)->iov_base;
	return (char *)((const struct lx_xprt_buf *)s)->data;
}

static inline const void *seg_next(const void *s, enum iter_seg k)
{
	if (k == SEG_IOV)
		return (const struct iovec *)s + 1;
	return ((const struct lx_xprt_buf *)s)->next;
}

/* Step from @s onto the next non-empty segment (@nr counts an array's). */
static inline const void *seg_skip(const void *s, unsigned int *nr,
				   enum iter_seg k)
{
	do {
		s = seg_next(s, k);
		if (k == SEG_IOV)
			(*nr)--;
	} while (seg_len(s, k) == 0);
	return s;
}

/*
 * The walkers keep the cursor in locals and store it back once: memcpy()
 * may write anywhere as far as the compiler knows, so cursor fields kept in
 * *it would be reloaded (and, as measured with GCC 12, partly reloaded as
 * 16-byte vectors right after 8-byte stores, stalling store forwarding)
 * after every segment.
 *
 * Moving on from a segment only happens while bytes are left, and @count
 * never exceeds the segments' sum, so a non-empty segment always follows.
 */
static inline size_t seg_walk(struct lx_xprt_iter *it, char *buf, size_t len,
			      enum iter_dir dir, enum iter_seg k)
{
	const void *s = k == SEG_IOV ? (const void *)it->iov : it->buf;
	unsigned int nr = it->nr_segs;
	size_t count = it->count - len;
	size_t off = it->off;
	size_t left = len;

	for (;;) {
		size_t n = LX_XPRT_MIN(seg_len(s, k) - off, left);

		iter_move(seg_base(s, k) + off, buf, n, dir);
		if (dir != ITER_SKIP)
			buf += n;
		left -= n;
		off += n;
		if (!left)
			break;
		s = seg_skip(s, &nr, k);
		off = 0;
	}
	/* Keep the invariant: a cursor with bytes left sits on a byte. */
	if (count && off == seg_len(s, k)) {
		s = seg_skip(s, &nr, k);
		off = 0;
	}
	if (k == SEG_IOV) {
		it->iov = s;
		it->nr_segs = nr;
	} else {
		it->buf = (struct lx_xprt_buf *)s;
	}
	it->off = off;
	it->count = count;
	it->done += len;
	return len;
}

static inline unsigned int seg_to_iovec(const struct lx_xprt_iter *it,
					struct iovec *out, unsigned int max,
					size_t maxbytes, enum iter_seg k)
{
	const void *s = k == SEG_IOV ? (const void *)it->iov : it->buf;
	size_t left = LX_XPRT_MIN(it->count, maxbytes);
	size_t off = it->off;
	unsigned int i = 0;

	while (left && i < max) {
		size_t n = LX_XPRT_MIN(seg_len(s, k) - off, left);

		if (n) {
			out[i].iov_base = seg_base(s, k) + off;
			out[i].iov_len = n;
			i++;
			left -= n;
		}
		if (!left)
			break;
		s = seg_next(s, k);
		off = 0;
	}
	return i;
}

static size_t iov_revert(struct lx_xprt_iter *it, size_t n)
{
	size_t left = n;

	/* n <= done, and exactly @done bytes lie behind the cursor, so the
	 * walk never steps before the first segment. */
	for (;;) {
		size_t step = LX_XPRT_MIN(it->off, left);

		it->off -= step;
		left -= step;
		if (!left)
			break;
		it->iov--;
		it->nr_segs++;
		it->off = it->iov->iov_len;
	}
	it->count += n;
	it->done -= n;
	return n;
}

/* Step onto the next non-empty buffer; only called while @count > 0. */
static inline void bc_next(struct lx_xprt_iter *it)
{
	it->buf = (struct lx_xprt_buf *)seg_skip(it->buf, NULL, SEG_BUF);
	it->off = 0;
}

/* Put the cursor on the first byte of the chain, as initialisation did. */
static void bc_rewind(struct lx_xprt_iter *it)
{
	it->buf = (struct lx_xprt_buf *)it->first;
	it->off = 0;
	it->count = it->total;
	it->done = 0;
	if (it->count && it->buf->len == 0)
		bc_next(it);
}

static size_t bc_revert(struct lx_xprt_iter *it, size_t n)
{
	size_t target = it->done - n;

	bc_rewind(it);
	if (target)
		seg_walk(it, NULL, target, ITER_SKIP, SEG_BUF);
	return n;
}

/*
 * The table @name##_ops of list @k: the walkers above specialised for @k,
 * and @name##_revert (a chain rewinds, an array steps back).
 */
#define SEG_OPS(name, k)                                                       \
	static size_t name##_copy_to(struct lx_xprt_iter *it, const void *src, \
				     size_t len)                               \
	{                                                                      \
		return seg_walk(it, (char *)src, len, ITER_TO, k);             \
	}                                                                      \
	static size_t name##_copy_from(struct lx_xprt_iter *it, void *dst,     \
				       size_t len)                             \
	{                                                                      \
		return seg_walk(it, dst, len, ITER_FROM, k);                   \
	}                                                                      \
	static size_t name##_advance(struct lx_xprt_iter *it, size_t n)        \
	{                                                                      \
		return seg_walk(it, NULL, n, ITER_SKIP, k);                    \
	}                                                                      \
	static unsigned int name##_to_iovec(const struct lx_xprt_iter *it,     \
					    struct iovec *out,                 \
					    unsigned int max, size_t maxbytes) \
	{                                                                      \
		return seg_to_iovec(it, out, max, maxbytes, k);                \
	}                                                                      \
	static const struct lx_xprt_iter_ops name##_ops = {                    \
		.copy_to = name##_copy_to,                                     \
		.copy_from = name##_copy_from,                                 \
		.advance = name##_advance,                                     \
		.revert = name##_revert,                                       \
		.to_iovec = name##_to_iovec,                                   \
	}

/* KVEC and IOVEC share their table (the iterator's @type tells them apart) */
SEG_OPS(iov, SEG_IOV);
SEG_OPS(bc, SEG_BUF);

/* ----------------------------------------------------------------- DISCARD */

static size_t discard_advance(struct lx_xprt_iter *it, size_t n)
{
	it->count -= n;
	it->done += n;
	return n;
}

static size_t discard_copy_to(struct lx_xprt_iter *it, const void *src,
			      size_t len)
{
	return discard_advance(it, len);
}

/* A sink holds no bytes: reading from it yields nothing and moves nothing,
 * so a caller that mistakes it for a source sees an immediate short read
 * instead of silently consuming the count. */
static size_t discard_copy_from(struct lx_xprt_iter *it, void *dst, size_t len)
{
	return 0;
}

static size_t discard_revert(struct lx_xprt_iter *it, size_t n)
{
	it->count += n;
	it->done -= n;
	return n;
}

static unsigned int discard_to_iovec(const struct lx_xprt_iter *it,
				     struct iovec *out, unsigned int max,
				     size_t maxbytes)
{
	return 0;
}

static const struct lx_xprt_iter_ops iter_discard_ops = {
	.copy_to = discard_copy_to,
	.copy_from = discard_copy_from,
	.advance = discard_advance,
	.revert = discard_revert,
	.to_iovec = discard_to_iovec,
};

/* ---------------------------------------------------------- initialisation */

static int iter_init_iov(struct lx_xprt_iter *it, enum lx_xprt_iter_type type,
			 const struct lx_xprt_iter_ops *ops,
			 const struct iovec *iov, unsigned int nr, size_t count)
{
	size_t sum = 0;
	unsigned int i;

	if (!it || (!iov && nr))
		return -EINVAL;
	for (i = 0; i < nr && sum < count; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			return -EINVAL;
		/* Saturate: segment lengths may add up past SIZE_MAX. */
		if (iov[i].iov_len > count - sum)
			sum = count;
		else
			sum += iov[i].iov_len;
	}

	/* every field, one store each (no memset first: this runs per call) */
	it->ops = ops;
	it->type = type;
	it->count = LX_XPRT_MIN(count, sum);
	it->off = 0;
	it->done = 0;
	it->total = it->count;
	it->iov = iov;
	it->nr_segs = nr;
	it->first = iov;
	it->first_nr = nr;
	if (it->count && iov->iov_len == 0) {
		/* Leading empty segments: step onto the first byte. */
		while (it->iov->iov_len == 0) {
			it->iov++;
			it->nr_segs--;
		}
	}
	return 0;
}

/**
 * lx_xprt_iter_kvec() - iterate over an iovec array the library owns
 * See include/libxprt/iter.h.
 */
int lx_xprt_iter_kvec(struct lx_xprt_iter *it, const struct iovec *iov,
		      unsigned int nr, size_t count)
{
	return iter_init_iov(it, LX_XPRT_ITER_KVEC, &iov_ops, iov, nr, count);
}

/**
 * lx_xprt_iter_iovec() - iterate over a caller's iovec array
 * See include/libxprt/iter.h.
 */
int lx_xprt_iter_iovec(struct lx_xprt_iter *it, const struct iovec *iov,
		       unsigned int nr, size_t count)
{
	return iter_init_iov(it, LX_XPRT_ITER_IOVEC, &iov_ops, iov, nr, count);
}

/**
 * lx_xprt_iter_bufchain() - iterate over pool buffers chained through ->next
 * See include/libxprt/iter.h.
 */
int lx_xprt_iter_bufchain(struct lx_xprt_iter *it, struct lx_xprt_buf *head,
			  size_t count)
{
	const struct lx_xprt_buf *b;
	size_t sum = 0;

	if (!it)
		return -EINVAL;
	for (b = head; b && sum < count; b = b->next) {
		if (!b->data && b->len)
			return -EINVAL;
		if (b->len > count - sum)
			sum = count;
		else
			sum += b->len;
	}

	memset(it, 0, sizeof(*it));
	it->ops = &bc_ops;
	it->type = LX_XPRT_ITER_BUFCHAIN;
	it->count = LX_XPRT_MIN(count, sum);
	it->total = it->count;
	it->buf = head;
	it->first = head;
	if (it->count && head->len == 0)
		bc_next(it);
	return 0;
}

/**
 * lx_xprt_iter_discard() - a sink that accepts and drops @count bytes
 * See include/libxprt/iter.h.
 */
int lx_xprt_iter_discard(struct lx_xprt_iter *it, size_t count)
{
	if (!it)
		return -EINVAL;
	memset(it, 0, sizeof(*it));
	it->ops = &iter_discard_ops;
	it->type = LX_XPRT_ITER_DISCARD;
	it->count = count;
	it->total = count;
	return 0;
}

/* ---------------------------------------------------------------- dispatch */

/* @n clamped to the bytes that lie ahead of the cursor (behind it when
 * @back); 0 when @it is NULL or was never initialised. */
static inline size_t iter_clamp(const struct lx_xprt_iter *it, bool back,
				size_t n)
{
	if (!it || !it->ops)
		return 0;
	return LX_XPRT_MIN(n, back ? it->done : it->count);
}

/**
 * lx_xprt_iter_copy_to() - copy bytes into the memory at the cursor, advancing
 * See include/libxprt/iter.h.
 */
size_t lx_xprt_iter_copy_to(struct lx_xprt_iter *it, const void *src,
			    size_t len)
{
	len = src ? iter_clamp(it, false, len) : 0;
	if (!len)
		return 0;
	/* the kinds every reply is placed into: their walk inline here */
	if (lx_xprt_likely(it->type <= LX_XPRT_ITER_IOVEC))
		return seg_walk(it, (char *)src, len, ITER_TO, SEG_IOV);
	return it->ops->copy_to(it, src, len);
}

/**
 * lx_xprt_iter_copy_from() - copy bytes out of the memory at the cursor
 * See include/libxprt/iter.h.
 */
size_t lx_xprt_iter_copy_from(struct lx_xprt_iter *it, void *dst, size_t len)
{
	len = dst ? iter_clamp(it, false, len) : 0;
	if (!len)
		return 0;
	if (lx_xprt_likely(it->type <= LX_XPRT_ITER_IOVEC))
		return seg_walk(it, dst, len, ITER_FROM, SEG_IOV);
	return it->ops->copy_from(it, dst, len);
}

/**
 * lx_xprt_iter_advance() - move the cursor forward
 * See include/libxprt/iter.h.
 */
size_t lx_xprt_iter_advance(struct lx_xprt_iter *it, size_t n)
{
	n = iter_clamp(it, false, n);
	return n ? it->ops->advance(it, n) : 0;
}

/**
 * lx_xprt_iter_revert() - move the cursor back
 * See include/libxprt/iter.h.
 */
size_t lx_xprt_iter_revert(struct lx_xprt_iter *it, size_t n)
{
	n = iter_clamp(it, true, n);
	return n ? it->ops->revert(it, n) : 0;
}

/**
 * lx_xprt_iter_to_iovec() - describe the next bytes as iovecs
 * See include/libxprt/iter.h.
 */
unsigned int lx_xprt_iter_to_iovec(const struct lx_xprt_iter *it,
				   struct iovec *out, unsigned int max,
				   size_t maxbytes)
{
	if (!it || !it->ops || !out || !max || !maxbytes || !it->count)
		return 0;
	return it->ops->to_iovec(it, out, max, maxbytes);
}

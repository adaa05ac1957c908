/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Congestion credits of one connection.
 *
 * Units are 1/256 request as in the Linux client (RPC_CWNDSCALE): @cong is
 * 256 times the requests holding a credit, @cwnd 256 times the requests
 * allowed.  Three modes:
 *   FIXED  the window is the slot table size (TCP, where the socket and the
 *          server's own flow control do the rest)
 *   AIMD   Van Jacobson: when a reply arrives while the window was full,
 *          cwnd += (256*256 + cwnd/2) / cwnd (about 1/cwnd request); on a
 *          timeout the window halves; never below one request, never above
 *          the maximum.  The increment rounds to 0 once cwnd exceeds
 *          131072 (512 requests), so AIMD growth stops there, as in Linux
 *   GRANT  RPC-over-RDMA: each reply's credit grant overwrites the window
 *          (0 counts as 1, clamped to the local maximum); reset to 1 on
 *          reconnect (RFC 8166 section 3.3.3)
 * State is one 64-bit word updated with compare-and-swap: no lock, any
 * thread.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_CONG_H
#define LX_XPRT_CONG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define LX_XPRT_CWND_SHIFT 8
#define LX_XPRT_CWND_SCALE (1u << LX_XPRT_CWND_SHIFT)

enum lx_xprt_cong_mode {
	LX_XPRT_CONG_FIXED,
	LX_XPRT_CONG_AIMD,
	LX_XPRT_CONG_GRANT,
};

/**
 * struct lx_xprt_cong - credits of one connection
 * @state: cwnd in the high 32 bits, cong in the low 32 bits (both scaled)
 * @max_reqs: the local maximum window, in requests
 * @mode: how the window moves
 */
struct lx_xprt_cong {
	atomic_uint_least64_t state;
	uint32_t max_reqs;
	enum lx_xprt_cong_mode mode;
};

/**
 * lx_xprt_cong_init() - set the mode and the local maximum
 * @max_reqs: 1 .. 65536
 *
 * FIXED starts with the window at @max_reqs; AIMD and GRANT start at one
 * request.  Not concurrent with other calls on @c.
 * Return: %0; %-EINVAL for NULL @c, a bad mode or @max_reqs (@c is left
 * untouched).
 */
int lx_xprt_cong_init(struct lx_xprt_cong *c, enum lx_xprt_cong_mode mode,
		      uint32_t max_reqs);

/**
 * lx_xprt_cong_get() - take one credit if the window allows
 * Every function below is lock-free and may be called from any thread.
 * Return: true when taken; false when congested (cong >= cwnd) or @c is
 * NULL.  As in Linux, a fractional AIMD window admits ceil(cwnd/256)
 * requests.
 */
bool lx_xprt_cong_get(struct lx_xprt_cong *c);

/* lx_xprt_cong_get() inline, for a @c known to exist (the transmitters) */
static inline bool lx_xprt__cong_get(struct lx_xprt_cong *c)
{
	uint64_t old = atomic_load_explicit(&c->state, memory_order_relaxed);
	uint64_t new;

	do {
		/* used (low half) against cwnd (high half) */
		if ((uint32_t)old >= (uint32_t)(old >> 32))
			return false;
		new = old + LX_XPRT_CWND_SCALE;
	} while (!atomic_compare_exchange_weak_explicit(&c->state, &old, new,
							memory_order_acq_rel,
							memory_order_relaxed));
	return true;
}

/**
 * lx_xprt_cong_put() - return one credit
 * Return: true when the connection was congested before this put (a queued
 * sender may now go; after a shrinking grant or a timeout the window may
 * still be full, and its get fails again); false otherwise.  When no credit
 * is held (unbalanced put, or a credit taken before lx_xprt_cong_reset()) or
 * @c is NULL: false, and nothing changes.
 */
bool lx_xprt_cong_put(struct lx_xprt_cong *c);

/**
 * lx_xprt_cong_reply() - a reply arrived for a request holding a credit:
 * AIMD additive increase if the window was full, then return the credit
 * Return: as lx_xprt_cong_put().
 */
bool lx_xprt_cong_reply(struct lx_xprt_cong *c);

/**
 * lx_xprt_cong_timeout() - a request holding a credit timed out: AIMD halves
 * the window (floor one request), then the credit is returned
 * Return: as lx_xprt_cong_put().
 */
bool lx_xprt_cong_timeout(struct lx_xprt_cong *c);

/**
 * lx_xprt_cong_grant() - GRANT mode: the server granted @credits
 * 0 counts as 1 (never deadlock); values above the local maximum are
 * clamped.  Ignored in other modes.  Credits already held stay held; a
 * window shrunk below them makes gets fail until enough are put.
 * Return: the window now in force, in requests (the current window in
 * other modes; 0 for NULL @c).
 */
uint32_t lx_xprt_cong_grant(struct lx_xprt_cong *c, uint32_t credits);

/**
 * lx_xprt_cong_reset() - a new connection: no credit is held any more, and
 * GRANT (and AIMD) windows restart at one request; FIXED at @max_reqs.
 * Credits taken before the reset must not be put after it.  NULL: no-op.
 */
void lx_xprt_cong_reset(struct lx_xprt_cong *c);

/** lx_xprt_cong_window() - the window in requests (rounded down, >= 1; 0 for
 * NULL) */
uint32_t lx_xprt_cong_window(const struct lx_xprt_cong *c);

/** lx_xprt_cong_held() - credits held now (0 for NULL) */
uint32_t lx_xprt_cong_held(const struct lx_xprt_cong *c);

#endif /* LX_XPRT_CONG_H */

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Congestion credits of one connection.
 *
 * Design
 * ------
 * The window (@cwnd) and the credits in use (@cong) must change together:
 * "take a credit if cong < cwnd" and "shrink the window and return a
 * credit" are each one decision over both numbers.  Packing both into one
 * 64-bit word (cwnd in the high half, cong in the low half, each in units
 * of 1/256 request) makes every operation a single compare-and-swap: no
 * lock, no torn pair, and any thread may call any function at any time.
 * Each loop computes the new word from the old one only, so a failed CAS
 * simply recomputes from the value it just observed.
 *
 * Window rules (see xprt/blocks/cong.h): FIXED never moves; AIMD adds about 1/cwnd
 * request per reply received while the window was full and halves on a
 * timeout, within [1, max_reqs] requests; GRANT takes each server grant as
 * the window.  Like the Linux client, a get succeeds while cong < cwnd, so
 * a fractional AIMD window admits ceil(cwnd / 256) requests.
 *
 * Largest values: max_reqs 65536 gives cwnd at most 2^24, and a get is
 * admitted only while cong < cwnd, so cong stays at or below 2^24: both
 * halves are far from 32-bit overflow.
 */
#include <errno.h>

#include "xprt/blocks/cong.h"

#define LX_XPRT_CONG_MAX_REQS 65536u

static inline uint32_t cong_cwnd(uint64_t state)
{
	return (uint32_t)(state >> 32);
}

static inline uint32_t cong_used(uint64_t state)
{
	return (uint32_t)state;
}

static inline uint64_t cong_pack(uint32_t cwnd, uint32_t cong)
{
	return (uint64_t)cwnd << 32 | cong;
}

static inline bool cong_full(uint64_t state)
{
	return cong_used(state) >= cong_cwnd(state);
}

/* The window a fresh connection starts with in @mode. */
static uint32_t cong_initial_cwnd(enum lx_xprt_cong_mode mode,
				  uint32_t max_reqs)
{
	return mode == LX_XPRT_CONG_FIXED ? max_reqs << LX_XPRT_CWND_SHIFT :
					    LX_XPRT_CWND_SCALE;
}

/**
 * lx_xprt_cong_init() - set the mode and the local maximum
 * @c: the credits to initialise
 * @mode: %LX_XPRT_CONG_FIXED, %LX_XPRT_CONG_AIMD or %LX_XPRT_CONG_GRANT
 * @max_reqs: 1 .. 65536
 *
 * Context: before any other call on @c; not concurrent with them.
 * Return: %0; %-EINVAL for NULL @c, a bad @mode or @max_reqs (@c is then
 * left untouched).
 */
int lx_xprt_cong_init(struct lx_xprt_cong *c, enum lx_xprt_cong_mode mode,
		      uint32_t max_reqs)
{
	if (!c || max_reqs < 1 || max_reqs > LX_XPRT_CONG_MAX_REQS)
		return -EINVAL;
	switch (mode) {
	case LX_XPRT_CONG_FIXED:
	case LX_XPRT_CONG_AIMD:
	case LX_XPRT_CONG_GRANT:
		break;
	default:
		return -EINVAL;
	}
	c->max_reqs = max_reqs;
	c->mode = mode;
	atomic_init(&c->state, cong_pack(cong_initial_cwnd(mode, max_reqs), 0));
	return 0;
}

/**
 * lx_xprt_cong_get() - take one credit if the window allows
 * @c: the credits
 *
 * Context: any thread; lock-free.
 * Return: true when taken; false when congested (cong >= cwnd: queue the
 * request and retry when a put reports it was congested) or @c is NULL.
 */
bool lx_xprt_cong_get(struct lx_xprt_cong *c)
{
	return c && lx_xprt__cong_get(c);
}

enum cong_event {
	CONG_PUT,
	CONG_REPLY,
	CONG_TIMEOUT,
};

/*
 * Return one credit, adjusting an AIMD window for @ev first.  The window
 * test of the increase ("was it full?") uses the state before the credit
 * is returned, as the rule in cong.h says.
 */
static bool cong_release(struct lx_xprt_cong *c, enum cong_event ev)
{
	uint32_t max_cwnd, cwnd, used;
	uint64_t old;

	if (!c)
		return false;
	max_cwnd = c->max_reqs << LX_XPRT_CWND_SHIFT;
	old = atomic_load_explicit(&c->state, memory_order_relaxed);
	do {
		cwnd = cong_cwnd(old);
		used = cong_used(old);
		/* Nothing held (an unbalanced put, or one from before a
		 * reset): refusing keeps @cong from wrapping. */
		if (used < LX_XPRT_CWND_SCALE)
			return false;
		if (c->mode == LX_XPRT_CONG_AIMD) {
			if (ev == CONG_REPLY && cwnd <= used) {
				/* Round to nearest: + cwnd/2 before dividing
				 * gives about 1/cwnd request per reply. */
				cwnd += (LX_XPRT_CWND_SCALE *
						 LX_XPRT_CWND_SCALE +
					 cwnd / 2) /
					cwnd;
				if (cwnd > max_cwnd)
					cwnd = max_cwnd;
			} else if (ev == CONG_TIMEOUT) {
				cwnd >>= 1;
				if (cwnd < LX_XPRT_CWND_SCALE)
					cwnd = LX_XPRT_CWND_SCALE;
			}
		}
	} while (!atomic_compare_exchange_weak_explicit(
		&c->state, &old, cong_pack(cwnd, used - LX_XPRT_CWND_SCALE),
		memory_order_acq_rel, memory_order_relaxed));
	return cong_full(old);
}

/**
 * lx_xprt_cong_put() - return one credit
 * @c: the credits
 *
 * Context: any thread; lock-free.
 * Return: true when the connection was congested before this put (a
 * queued sender may now go; after a shrinking grant or timeout the window
 * may still be full, and that sender's get then fails again); false
 * otherwise, and false with nothing changed when no credit is held or @c
 * is NULL.
 */
bool lx_xprt_cong_put(struct lx_xprt_cong *c)
{
	return cong_release(c, CONG_PUT);
}

/**
 * lx_xprt_cong_reply() - a reply arrived for a request holding a credit
 * @c: the credits
 *
 * AIMD: when the window was full (cwnd <= cong) before the credit is
 * returned, cwnd += (256 * 256 + cwnd / 2) / cwnd, at most max_reqs * 256.
 * Context: any thread; lock-free.
 * Return: as lx_xprt_cong_put().
 */
bool lx_xprt_cong_reply(struct lx_xprt_cong *c)
{
	return cong_release(c, CONG_REPLY);
}

/**
 * lx_xprt_cong_timeout() - a request holding a credit timed out
 * @c: the credits
 *
 * AIMD: cwnd >>= 1, at least 256 (one request), then the credit returns.
 * Context: any thread; lock-free.
 * Return: as lx_xprt_cong_put().
 */
bool lx_xprt_cong_timeout(struct lx_xprt_cong *c)
{
	return cong_release(c, CONG_TIMEOUT);
}

/**
 * lx_xprt_cong_grant() - GRANT mode: the server granted @credits
 * @c: the credits
 * @credits: the grant; 0 counts as 1, above max_reqs counts as max_reqs
 *
 * Credits already held are kept: when the grant shrinks the window below
 * them, gets fail until enough are returned.
 * Context: any thread; lock-free.
 * Return: the window now in force, in requests (in FIXED and AIMD mode the
 * grant is ignored and the current window is returned); 0 for NULL @c.
 */
uint32_t lx_xprt_cong_grant(struct lx_xprt_cong *c, uint32_t credits)
{
	uint64_t old;
	uint32_t cwnd;

	if (!c)
		return 0;
	if (c->mode != LX_XPRT_CONG_GRANT)
		return lx_xprt_cong_window(c);
	if (credits < 1)
		credits = 1;
	if (credits > c->max_reqs)
		credits = c->max_reqs;
	cwnd = credits << LX_XPRT_CWND_SHIFT;
	old = atomic_load_explicit(&c->state, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(
		&c->state, &old, cong_pack(cwnd, cong_used(old)),
		memory_order_acq_rel, memory_order_relaxed))
		;
	return credits;
}

/**
 * lx_xprt_cong_reset() - a new connection: no credit is held any more
 * @c: the credits; NULL is a no-op
 *
 * AIMD and GRANT windows restart at one request, FIXED at max_reqs.
 * Credits taken before the reset must not be put afterwards (they would
 * be counted against the new connection's holders); the transport forgets
 * them with the old connection.  A put with no credit held is ignored.
 * Context: any thread; lock-free.
 */
void lx_xprt_cong_reset(struct lx_xprt_cong *c)
{
	if (!c)
		return;
	atomic_store_explicit(
		&c->state,
		cong_pack(cong_initial_cwnd(c->mode, c->max_reqs), 0),
		memory_order_release);
}

/**
 * lx_xprt_cong_window() - the window in requests
 * @c: the credits
 *
 * Rounded down, >= 1; 0 for NULL @c.  An AIMD window between two whole
 * numbers admits one request more than this (see the design comment).
 */
uint32_t lx_xprt_cong_window(const struct lx_xprt_cong *c)
{
	if (!c)
		return 0;
	return cong_cwnd(
		       atomic_load_explicit(&c->state, memory_order_relaxed)) >>
	       LX_XPRT_CWND_SHIFT;
}

/**
 * lx_xprt_cong_held() - credits held now
 * @c: the credits; 0 for NULL
 */
uint32_t lx_xprt_cong_held(const struct lx_xprt_cong *c)
{
	if (!c)
		return 0;
	return cong_used(
		       atomic_load_explicit(&c->state, memory_order_relaxed)) >>
	       LX_XPRT_CWND_SHIFT;
}

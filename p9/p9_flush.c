// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tflush: cancelling and timing out 9P calls on the transport core.
 *
 * When a call times out or is cancelled it is not failed at once:
 * its tag must stay out of use until the server has said, with an Rflush,
 * that it will not answer it any more (flush(5)); otherwise a late reply
 * would be taken for the reply to a new call reusing the tag.  So:
 *
 *   1. The call stays submitted and in the reply index, undecided.  A
 *      Tflush(oldtag) is sent in a new slot, queued under the call's own
 *      fairness owner so the transmit queue (FIFO per owner) can never put
 *      it on the wire before the call itself.  The Tflush holds a
 *      reference on the call's slot: the tag cannot be reallocated, even
 *      after the call has completed, until the Tflush is finished.
 *   2. A reply to the call arriving before the Rflush completes the call
 *      normally: it is the call's real outcome (a Twalk that succeeded did
 *      create its fid, and the caller gets it).
 *   3. The Rflush ends the Tflush: the call, if still undecided, fails
 *      with the flush's status (-ETIMEDOUT or -ECANCELED), then the
 *      reference on its slot is dropped and the tag is free again.
 *   4. An Rflush to a later Tflush of the same call answers the earlier
 *      ones too (a server may answer only the last): they are completed
 *      locally at that point (one whose submission has not returned yet,
 *      when two threads cancel at once, is completed by its sender right
 *      after: failing a request while it is being submitted would race
 *      the transmit queue).
 *   5. If no Rflush comes within the call's timeout, the call completes
 *      with its flush status then (callers are never held longer than
 *      twice the timeout; the completion goes through the call's own
 *      timer, which the transport holds back while the receive thread
 *      is placing the call's reply), but the Tflush stays in flight and keeps both
 *      tags reserved until its Rflush arrives or the session ends.  When
 *      such pairs hold every slot, the session is shut down: nothing
 *      could run any more.
 *   6. A Tflush answered with anything but Rflush (Rlerror, another type,
 *      garbage) breaks the protocol: whether the server still works on the
 *      call is unknown, so the tag can never be trusted again.  The call
 *      completes with its flush status and the session is shut down
 *      (later calls: -ENOTCONN).
 *   7. With every slot taken, a Tflush cannot be sent at once: the call's
 *      timer retries every 5 ms; after another timeout without a slot the
 *      session is shut down, since no call is being answered.
 *
 * The flush state of a call lives in its private area under one client
 * mutex, taken only on these rare paths; the fast path never locks.
 * Completion callbacks run on the receive thread (or on whichever thread
 * decided the outcome); a Tflush's completion may complete the flushed
 * call from within it.
 */
#include <errno.h>
#include <string.h>

#include "p9_int.h"
#include "xprt/blocks/util.h"

/*
 * Complete the flushed call @req with its flush status, from its own
 * timer (armed to fire at once) rather than from here: the transport
 * holds a timer back while the receive thread is placing that call's
 * reply, and failing a request the receive thread holds would wait for
 * it - forever, when this runs on the receive thread itself (another
 * request's timer) while that reply has stalled half-way.
 */
static void lx_p9_flush_finish_soon(struct lx_xprt_req *req)
{
	atomic_store(&lx_p9_call_of(req)->fl_finish, true);
	lx_xprt_req_set_timer(req, 1);
}

/*
 * Start flushing @req (a reference on it is held by the caller: the
 * canceller's handle, or the timer).  See the top of this file.
 */
int lx_p9_flush_start(struct lx_xprt_req *req, int status)
{
	struct lx_p9_call *pc = lx_p9_call_of(req);
	struct lx_p9_clnt *c = pc->c;
	uint64_t grace;

	pthread_mutex_lock(&c->flush_lock);
	if (atomic_load(&pc->finished)) {
		pthread_mutex_unlock(&c->flush_lock);
		return -EALREADY;
	}
	if (pc->fl_n + pc->fl_want >= LX_P9_MAX_FLUSH) {
		pthread_mutex_unlock(&c->flush_lock);
		return -EBUSY;
	}
	pc->fl_used = true;
	if (!atomic_load(&pc->fl_status)) {
		/* a call without a timeout still gets a bounded flush */
		grace = pc->timeout_ns ?
				pc->timeout_ns :
			c->timeout_ns ?
				c->timeout_ns :
				(uint64_t)LX_P9_DEF_TIMEOUT_MS * 1000000u;
		pc->fl_grace = grace;
		pc->fl_deadline = lx_xprt_now_ns() + grace;
		atomic_store(&pc->fl_status, status);
	}
	pc->fl_want++;
	pthread_mutex_unlock(&c->flush_lock);
	/* from now on the Tflush's timer decides */
	lx_xprt_req_set_timer(req, 0);
	lx_p9_flush_send(req);
	return 0;
}

/*
 * Clear the flush state of the call in @pc before its slot's next call
 * (lx_p9_alloc(), only when it was used: the slot is the caller's alone).
 * A Tflush's slot is zeroed whole instead (lx_p9_flush_send()).
 */
void lx_p9_flush_reset(struct lx_p9_call *pc)
{
	atomic_store_explicit(&pc->fl_status, 0, memory_order_relaxed);
	atomic_store_explicit(&pc->fl_finish, false, memory_order_relaxed);
	pc->fl_grace = 0;
	pc->fl_deadline = 0;
	pc->fl_n = 0;
	pc->fl_want = 0;
	pc->fl_busy = 0;
	pc->fl_confirmed = false;
	pc->fl_used = false;
}

/* Send the Tflush messages @req still wants. */
void lx_p9_flush_send(struct lx_xprt_req *req)
{
	struct lx_p9_call *pc = lx_p9_call_of(req), *fpc;
	struct lx_p9_clnt *c = pc->c;
	struct lx_p9_fcall tx = {.type = LX_P9_TFLUSH};
	struct lx_xprt_req *f;
	unsigned int want, i;
	bool orphan;
	int err;

	for (;;) {
		/*
		 * Claim the sending of a wanted Tflush.  One thread at a
		 * time sends a call's Tflushes (a canceller, another one,
		 * the retry timer may all be here; the others leave theirs
		 * to the sender's loop): so they reach the wire in the
		 * order of pc->fl, which an Rflush answering the earlier
		 * ones relies on.  Two senders could push in the other
		 * order, and the earlier one, ended by the later one's
		 * Rflush, would free its tag while its own Rflush is still
		 * coming - to be taken for the answer of whatever call got
		 * the tag next.
		 */
		pthread_mutex_lock(&c->flush_lock);
		want = pc->fl_want && !pc->fl_busy;
		if (want)
			pc->fl_busy = 1;
		pthread_mutex_unlock(&c->flush_lock);
		if (!want)
			return;
		/*
		 * Not before the call itself is on the wire: the transmit
		 * queue keeps one owner's messages in order, but a request a
		 * receive batch holds back, or one half written, may still be
		 * overtaken by a message sent at once.  A Tflush ahead of its
		 * call is answered first, and the call's reply then comes
		 * under a tag already freed.  Retried from the call's timer.
		 */
		if (!lx_xprt_req_sent(req)) {
			pthread_mutex_lock(&c->flush_lock);
			pc->fl_busy = 0;
			pthread_mutex_unlock(&c->flush_lock);
			lx_xprt_req_set_timer(req, LX_P9_FLUSH_RETRY_NS);
			return;
		}
		err = lx_xprt_req_alloc(c->x, LX_XPRT_NOWAIT, &f);
		if (err) {
			pthread_mutex_lock(&c->flush_lock);
			pc->fl_busy--;
			pthread_mutex_unlock(&c->flush_lock);
		}
		if (err == -EBUSY) {
			if (lx_xprt_now_ns() > pc->fl_deadline) {
				/* nothing is being answered: give up */
				lx_p9_mark_broken(c);
				lx_p9_flush_finish_soon(req);
				lx_p9_set_broken(c);
				return;
			}
			lx_xprt_req_set_timer(req, LX_P9_FLUSH_RETRY_NS);
			return;
		}
		if (err)
			return; /* closing: lx_xprt_destroy() fails the call */
		fpc = lx_p9_call_of(f);
		memset(fpc, 0, sizeof(*fpc));
		fpc->c = c;
		fpc->kind = LX_P9C_FLUSH;
		fpc->ttype = LX_P9_TFLUSH;
		fpc->target = req;
		fpc->timeout_ns = pc->fl_grace;
		f->ops = &lx_p9_flush_ops;
		tx.u.tflush.oldtag = (uint16_t)req->slot;
		err = lx_p9_encode_req(f, &tx, (uint16_t)f->slot);
		if (err) {
			pthread_mutex_lock(&c->flush_lock);
			pc->fl_busy--;
			pthread_mutex_unlock(&c->flush_lock);
			lx_xprt_req_put(f);
			return;
		}
		/* behind the call in its owner's FIFO, never before it */
		f->owner = req->owner;
		/* the call's tag stays reserved until this Tflush ends */
		lx_xprt_req_get(req);
		pthread_mutex_lock(&c->flush_lock);
		pc->fl_want--;
		pc->fl[pc->fl_n++] = f; /* still ours to send: fl_busy */
		pthread_mutex_unlock(&c->flush_lock);
		atomic_fetch_add_explicit(&c->st.flushes, 1,
					  memory_order_relaxed);
		/* held across the submit and what follows: its Rflush may
		 * come back and end it before the submit returns, and its
		 * slot must not become another call's while we look at it */
		lx_xprt_req_get(f);
		err = lx_p9_submit(f, (uint16_t)f->slot);
		if (!err) {
			/* an Rflush to a later Tflush may have answered this
			 * one while it was being submitted: it is ended here,
			 * now that failing it cannot race its submission */
			pthread_mutex_lock(&c->flush_lock);
			fpc->fl_sent = true;
			orphan = fpc->fl_orphan;
			pc->fl_busy = 0;
			pthread_mutex_unlock(&c->flush_lock);
			if (orphan)
				lx_xprt_req_fail(f, -ECANCELED);
			lx_xprt_req_put(f);
			continue;
		}
		lx_xprt_req_put(f);
		/* the session is going away: end the call now */
		pthread_mutex_lock(&c->flush_lock);
		pc->fl_busy = 0;
		for (i = 0; i < pc->fl_n; i++) {
			if (pc->fl[i] == f) {
				memmove(&pc->fl[i], &pc->fl[i + 1],
					(pc->fl_n - i - 1) * sizeof(pc->fl[0]));
				pc->fl_n--;
				break;
			}
		}
		pthread_mutex_unlock(&c->flush_lock);
		lx_xprt_req_fail(req, atomic_load(&pc->fl_status));
		lx_xprt_req_put(req);
		lx_xprt_req_put(f);
		return;
	}
}

/* A Tflush is finished: its Rflush arrived, a later Tflush's Rflush
 * answered it, or the session ended. */
static void lx_p9_flush_done(struct lx_xprt_req *f, int status)
{
	struct lx_p9_call *fpc = lx_p9_call_of(f);
	struct lx_xprt_req *req = fpc->target, *earlier[LX_P9_MAX_FLUSH];
	struct lx_p9_call *pc = lx_p9_call_of(req);
	struct lx_p9_clnt *c = fpc->c;
	unsigned int i, k, n = 0;
	bool found = false, broken = false;

	if (!status) {
		/* a flush may be answered by Rflush and nothing else */
		broken = f->rlen != LX_P9_HDRSZ ||
			 f->rx_msg_len != LX_P9_HDRSZ ||
			 ((const uint8_t *)f->rbuf->data)[4] != LX_P9_RFLUSH;
	} else if (status != -ECONNRESET && status != -ESHUTDOWN &&
		   status != -ECANCELED) {
		broken = true; /* garbage with the Tflush's tag */
	}

	pthread_mutex_lock(&c->flush_lock);
	for (k = 0; k < pc->fl_n; k++) {
		if (pc->fl[k] == f) {
			found = true;
			break;
		}
	}
	if (found) {
		for (i = 0; i < k; i++) {
			/* one still being submitted is ended by its sender */
			if (lx_p9_call_of(pc->fl[i])->fl_sent)
				earlier[n++] = pc->fl[i];
			else
				lx_p9_call_of(pc->fl[i])->fl_orphan = true;
		}
		memmove(&pc->fl[0], &pc->fl[k + 1],
			(pc->fl_n - k - 1) * sizeof(pc->fl[0]));
		pc->fl_n -= k + 1;
		if (!status && !broken)
			pc->fl_confirmed = true;
	}
	pthread_mutex_unlock(&c->flush_lock);

	/* an answer to a later Tflush answers the earlier ones: the server
	 * will not answer them any more */
	for (i = 0; i < n; i++)
		lx_xprt_req_fail(earlier[i], -ECANCELED);
	if (found) {
		if (!status && !broken)
			atomic_fetch_add_explicit(&c->st.flush_replies, 1,
						  memory_order_relaxed);
		if (broken)
			lx_p9_mark_broken(c);
		/* the server is done with the call: if it has not answered
		 * it by now, it never will */
		lx_xprt_req_fail(req, atomic_load(&pc->fl_status));
		if (broken)
			lx_p9_set_broken(c);
	}
	if (atomic_exchange(&fpc->fl_stuck, false))
		atomic_fetch_sub(&c->fl_stuck, 1);
	lx_xprt_req_put(req);
	lx_xprt_req_put(f);
}

/*
 * A Tflush got no Rflush within the timeout: complete the call now, keep
 * the Tflush (and so both tags) until its answer or the session's end.
 * Once such pairs hold every slot, the server is plainly not answering
 * and new calls could only wait for a slot forever: the session is shut
 * down instead.
 */
static void lx_p9_flush_expired(struct lx_xprt_req *f)
{
	struct lx_p9_call *fpc = lx_p9_call_of(f);
	struct lx_xprt_req *req = fpc->target;
	struct lx_p9_call *pc = lx_p9_call_of(req);
	struct lx_p9_clnt *c = pc->c;
	unsigned int stuck = 0;

	atomic_fetch_add_explicit(&c->st.flush_expired, 1,
				  memory_order_relaxed);
	if (!atomic_exchange(&fpc->fl_stuck, true))
		stuck = atomic_fetch_add(&c->fl_stuck, 1) + 1;
	if (2 * stuck >= c->opts.max_reqs)
		lx_p9_mark_broken(c);
	lx_p9_flush_finish_soon(req);
	if (2 * stuck >= c->opts.max_reqs)
		lx_p9_set_broken(c);
}

/* A Tflush's own hooks: its reply is one header, all into rbuf. */
const struct lx_xprt_req_ops lx_p9_flush_ops = {
	.done = lx_p9_flush_done,
	.timeout = lx_p9_flush_expired,
};

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lx_call_cancel(): one cancel for the calls of every layer (contract in
 * include/libxprt/call.h, the private words in call_int.h).
 *
 * The call object names its request slot and the slot's generation.  A
 * reference taken only while the slot still holds that generation
 * (lx_xprt_req_tryget()) pins the slot to this call: it cannot complete
 * into reuse while we look, and a call that completed and whose slot went
 * to someone else is recognised and left alone.  The protocol's cancel
 * hook then decides (RPC: fail with -ECANCELED; 9P: Tflush first).
 */
#include <errno.h>

#include "xprt/core/call_int.h"
#include "xprt/core/xprt_int.h"

int lx_call_cancel(struct lx_call *call)
{
	struct lx_call_core *cc;
	int (*multi)(struct lx_call * call);
	struct lx_xprt_req *req;
	uint32_t g1, g2;

	if (!call)
		return -EINVAL;
	cc = lx_call_core(call);
	/* a seqlock read (call_int.h): the acquire on the pointer keeps the
	 * second generation load after it */
	g1 = atomic_load_explicit(&cc->gen, memory_order_acquire);
	req = atomic_load_explicit(&cc->req, memory_order_acquire);
	g2 = atomic_load_explicit(&cc->gen, memory_order_relaxed);
	if (!req) {
		multi = atomic_load_explicit(&cc->cancel, memory_order_acquire);
		return multi ? multi(call) : -EALREADY;
	}
	if (!g1 || g1 != g2)
		return -EALREADY; /* being restarted */
	return lx_xprt_req_cancel_gen(req, g1);
}

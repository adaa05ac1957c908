// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MSG_ZEROCOPY sends of the TCP transport: numbering the sends, holding
 * their requests, reading the kernel's reports.  See tcp_zc.h.
 */
#include <errno.h>
#include <time.h> /* before linux/errqueue.h, which uses timespec */
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xprt/tcp/tcp_zc.h"

#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

/* requests completed per round of lx_xprt_tcp_zc_release() */
#define ZC_BATCH 32

int lx_xprt_tcp_zc_init(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc)
{
	int err;

	memset(zc, 0, sizeof(*zc));
	if (x->opts.zerocopy) {
		zc->held = calloc(x->max_reqs, sizeof(*zc->held));
		if (!zc->held)
			return -ENOMEM;
	}
	err = -pthread_mutex_init(&zc->lock, NULL);
	if (err) {
		free(zc->held);
		zc->held = NULL;
	}
	return err;
}

void lx_xprt_tcp_zc_fini(struct lx_xprt_tcp_zc *zc)
{
	pthread_mutex_destroy(&zc->lock);
	free(zc->held);
	zc->held = NULL;
}

void lx_xprt_tcp_zc_connected(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc,
			      int fd)
{
	bool on = !setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &(int){1},
			      sizeof(int));

	if (!on)
		lx_xprt_log(x, LX_XPRT_LOG_INFO,
			    "libxprt: %s: SO_ZEROCOPY: %s: sends are copied",
			    x->peer, strerror(errno));
	pthread_mutex_lock(&zc->lock);
	zc->on = on;
	zc->next = zc->done_below = 0;
	zc->bits = 0;
	pthread_mutex_unlock(&zc->lock);
}

bool lx_xprt_tcp_zc_wanted(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc,
			   struct lx_xprt_rqst **reqs, unsigned int n)
{
	unsigned int i;
	bool room;

	for (i = 0; i < n; i++)
		if (reqs[i]->tx_total - reqs[i]->marker_len -
			    reqs[i]->pub.sbuf->len >=
		    x->opts.zerocopy_min)
			break;
	if (i == n)
		return false;
	pthread_mutex_lock(&zc->lock);
	room = zc->next - zc->done_below < LX_XPRT_TCP_ZC_WINDOW;
	pthread_mutex_unlock(&zc->lock);
	return room;
}

/*
 * The report of the send just made was read already (another thread read
 * the error queue between our sendmsg() and lx_xprt_tcp_zc_sent()): let
 * go of @rq, held by an earlier send, now - no report will come for it
 * any more.  It is the transmitter's still (RQ_XMIT), so delivery waits
 * and the reference dropped is not its last.  zc->lock held.
 */
static void zc_unhold(struct lx_xprt_tcp_zc *zc, struct lx_xprt_rqst *rq)
{
	unsigned int i;

	for (i = 0; i < zc->nheld; i++) {
		if (zc->held[i] != rq)
			continue;
		zc->held[i] = zc->held[--zc->nheld];
		atomic_fetch_and(&rq->st, ~(uint64_t)RQ_ZC);
		lx_xprt_req_put(&rq->pub);
		return;
	}
}

void lx_xprt_tcp_zc_sent(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc,
			 struct lx_xprt_rqst **reqs, unsigned int n, size_t w)
{
	unsigned int i;
	bool reported;
	uint32_t id;

	pthread_mutex_lock(&zc->lock);
	id = zc->next++;
	reported = (int32_t)(id - zc->done_below) < 0;
	for (i = 0; i < n && w; i++) {
		struct lx_xprt_rqst *rq = reqs[i];
		size_t left = rq->tx_total - rq->tx_done;
		bool held = rq_flags(atomic_load(&rq->st)) & RQ_ZC;

		rq->zc_id = id;
		if (lx_xprt_unlikely(reported)) {
			/* the kernel is done with it, and with its earlier
			 * sends: all below done_below are reported */
			if (held)
				zc_unhold(zc, rq);
		} else if (!held) {
			lx_xprt_rq_get(rq);
			atomic_fetch_or(&rq->st, RQ_ZC);
			zc->held[zc->nheld++] = rq;
		}
		w -= LX_XPRT_MIN(w, left);
	}
	pthread_mutex_unlock(&zc->lock);
	atomic_fetch_add_explicit(&x->stats.zc_sends, 1, memory_order_relaxed);
}

/* Sends @lo .. @hi (the kernel's numbers, inclusive) are reported.
 * zc->lock held. */
static void zc_mark(struct lx_xprt_tcp_zc *zc, uint32_t lo, uint32_t hi)
{
	int64_t s = (int32_t)(lo - zc->done_below);
	int64_t e = (int32_t)(hi - zc->done_below);

	if (s < 0)
		s = 0; /* reported before: cannot be, a report comes once */
	if (e >= (int64_t)LX_XPRT_TCP_ZC_WINDOW)
		e = LX_XPRT_TCP_ZC_WINDOW - 1; /* never sent (the window) */
	for (; s <= e; s++)
		zc->bits |= 1ull << s;
	while (zc->bits & 1) {
		zc->bits >>= 1;
		zc->done_below++;
	}
}

/* One report (a cmsg of the error queue); zc->lock held.  Return 1 if it
 * was a zerocopy report. */
static int zc_report(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc,
		     const struct cmsghdr *cm)
{
	struct sock_extended_err ee;
	uint64_t n;

	if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
	      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
		return 0;
	memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
	if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee.ee_errno)
		return 0;
	zc_mark(zc, ee.ee_info, ee.ee_data);
	n = (uint64_t)(uint32_t)(ee.ee_data - ee.ee_info) + 1;
	atomic_fetch_add_explicit(&x->stats.zc_completions, n,
				  memory_order_relaxed);
	if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
		atomic_fetch_add_explicit(&x->stats.zc_copied, n,
					  memory_order_relaxed);
	return 1;
}

/* Read @fd's error queue until it is empty (only zerocopy reports are
 * queued there: IP_RECVERR is off).  zc->lock held. */
static int zc_read_locked(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct sock_extended_err) +
				    sizeof(struct sockaddr_in6))];
		struct cmsghdr align;
	} cbuf;
	int got = 0;

	for (;;) {
		struct msghdr msg = {.msg_control = cbuf.buf,
				     .msg_controllen = sizeof(cbuf.buf)};
		struct cmsghdr *cm;

		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return got; /* EAGAIN: no more */
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
			got += zc_report(x, zc, cm);
	}
}

int lx_xprt_tcp_zc_read(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc, int fd)
{
	int got;

	pthread_mutex_lock(&zc->lock);
	got = zc_read_locked(x, zc, fd);
	pthread_mutex_unlock(&zc->lock);
	return got;
}

/*
 * Take up to ZC_BATCH requests whose sends are all reported (@all: every
 * one) off the held list into @out.  zc->lock held.  Return: how many.
 */
static unsigned int zc_collect(struct lx_xprt_tcp_zc *zc,
			       struct lx_xprt_rqst **out, bool all)
{
	unsigned int i, k = 0, n = 0;

	for (i = 0; i < zc->nheld; i++) {
		struct lx_xprt_rqst *rq = zc->held[i];

		if (n < ZC_BATCH &&
		    (all || (int32_t)(rq->zc_id - zc->done_below) < 0))
			out[n++] = rq;
		else
			zc->held[k++] = rq;
	}
	zc->nheld = k;
	return n;
}

void lx_xprt_tcp_zc_release(struct lx_xprt_tcp_zc *zc, bool all)
{
	struct lx_xprt_rqst *out[ZC_BATCH];
	unsigned int n, i;

	do {
		pthread_mutex_lock(&zc->lock);
		n = zc_collect(zc, out, all);
		pthread_mutex_unlock(&zc->lock);
		for (i = 0; i < n; i++) {
			atomic_fetch_and(&out[i]->st, ~(uint64_t)RQ_ZC);
			lx_xprt_try_complete(out[i]);
			lx_xprt_req_put(&out[i]->pub);
		}
	} while (n == ZC_BATCH);
}

void lx_xprt_tcp_zc_drain(struct lx_xprt *x, struct lx_xprt_tcp_zc *zc, int fd)
{
	uint64_t end = lx_xprt_now_ns() + LX_XPRT_TCP_ZC_DRAIN_MS * 1000000ull;
	bool out;

	for (;;) {
		pthread_mutex_lock(&zc->lock);
		zc_read_locked(x, zc, fd);
		out = zc->done_below != zc->next;
		pthread_mutex_unlock(&zc->lock);
		if (!out || lx_xprt_now_ns() >= end)
			break;
		usleep(1000);
	}
	if (out) {
		lx_xprt_log(x, LX_XPRT_LOG_INFO,
			    "libxprt: %s: zerocopy sends unreported at "
			    "close: connection aborted",
			    x->peer);
		setsockopt(fd, SOL_SOCKET, SO_LINGER,
			   &(struct linger){.l_onoff = 1, .l_linger = 0},
			   sizeof(struct linger));
	}
}

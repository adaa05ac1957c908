// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mb_iter: what the iterator's ops table costs against an open-coded
 * switch on the memory kind.
 *
 * Each operation initialises an iterator and copies one payload into
 * (copy_to) or out of (copy_from) a 4-segment iovec (4 x 1 KiB) or a
 * 2-buffer chain (2 x 2 KiB).  The "switch" iterator below is written the
 * way the code would look without the ops table: same fields, same
 * validation, same cursor rules, one function per operation that switches
 * on the kind.  Its functions are kept out of line (noinline) because the
 * library's are in another translation unit: the comparison is dispatch
 * against dispatch, not a call against inlined code.
 *
 * Timing: the two variants run in alternating rounds and each keeps its
 * best round, which filters out most of the noise of a shared machine.
 * The 64-byte rows (header-sized copies) show the dispatch cost where it
 * is largest relative to the copy; the target is on the 4 KiB rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/proto/iter.h>

#include "mbench.h"

/* ------------------------------------------- the open-coded alternative */

struct sw_iter {
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
	size_t total;
};

#define SW_NOINLINE __attribute__((noinline))

static SW_NOINLINE int sw_init_iovec(struct sw_iter *it,
				     const struct iovec *iov, unsigned int nr,
				     size_t count)
{
	size_t sum = 0;
	unsigned int i;

	if (!it || (!iov && nr))
		return -1;
	for (i = 0; i < nr && sum < count; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			return -1;
		if (iov[i].iov_len > count - sum)
			sum = count;
		else
			sum += iov[i].iov_len;
	}
	memset(it, 0, sizeof(*it));
	it->type = LX_XPRT_ITER_IOVEC;
	it->count = count < sum ? count : sum;
	it->total = it->count;
	it->iov = iov;
	it->nr_segs = nr;
	it->first = iov;
	if (it->count)
		while (it->iov->iov_len == 0) {
			it->iov++;
			it->nr_segs--;
		}
	return 0;
}

static SW_NOINLINE int sw_init_bufchain(struct sw_iter *it,
					struct lx_xprt_buf *head, size_t count)
{
	const struct lx_xprt_buf *b;
	size_t sum = 0;

	if (!it)
		return -1;
	for (b = head; b && sum < count; b = b->next) {
		if (!b->data && b->len)
			return -1;
		if (b->len > count - sum)
			sum = count;
		else
			sum += b->len;
	}
	memset(it, 0, sizeof(*it));
	it->type = LX_XPRT_ITER_BUFCHAIN;
	it->count = count < sum ? count : sum;
	it->total = it->count;
	it->buf = head;
	it->first = head;
	if (it->count)
		while (it->buf->len == 0)
			it->buf = it->buf->next;
	return 0;
}

/*
 * One copy routine switching on the kind; @to selects the direction.  The
 * loops are the library's (cursor in locals, stored back once), so the two
 * variants differ only in how they reach them.
 */
static inline size_t sw_copy(struct sw_iter *it, char *p, size_t len, int to)
{
	size_t left, off, count;

	if (!it || !p)
		return 0;
	len = len < it->count ? len : it->count;
	if (!len)
		return 0;
	left = len;
	off = it->off;
	count = it->count - len;
	switch (it->type) {
	case LX_XPRT_ITER_KVEC:
	case LX_XPRT_ITER_IOVEC: {
		const struct iovec *v = it->iov;
		unsigned int nr = it->nr_segs;

		for (;;) {
			size_t n = v->iov_len - off;
			char *seg = (char *)v->iov_base + off;

			n = n < left ? n : left;
			if (to)
				memcpy(seg, p, n);
			else
				memcpy(p, seg, n);
			p += n;
			left -= n;
			off += n;
			if (!left)
				break;
			do {
				v++;
				nr--;
			} while (v->iov_len == 0);
			off = 0;
		}
		if (count && off == v->iov_len) {
			do {
				v++;
				nr--;
			} while (v->iov_len == 0);
			off = 0;
		}
		it->iov = v;
		it->nr_segs = nr;
		break;
	}
	case LX_XPRT_ITER_BUFCHAIN: {
		struct lx_xprt_buf *b = it->buf;

		for (;;) {
			size_t n = b->len - off;
			char *seg = (char *)b->data + off;

			n = n < left ? n : left;
			if (to)
				memcpy(seg, p, n);
			else
				memcpy(p, seg, n);
			p += n;
			left -= n;
			off += n;
			if (!left)
				break;
			do {
				b = b->next;
			} while (b->len == 0);
			off = 0;
		}
		if (count && off == b->len) {
			do {
				b = b->next;
			} while (b->len == 0);
			off = 0;
		}
		it->buf = b;
		break;
	}
	case LX_XPRT_ITER_DISCARD:
		if (!to)
			return 0;
		break;
	}
	it->off = off;
	it->count = count;
	it->done += len;
	return len;
}

static SW_NOINLINE size_t sw_copy_to(struct sw_iter *it, const void *src,
				     size_t len)
{
	return sw_copy(it, (char *)src, len, 1);
}

static SW_NOINLINE size_t sw_copy_from(struct sw_iter *it, void *dst,
				       size_t len)
{
	return sw_copy(it, dst, len, 0);
}

/* ------------------------------------------------------------ workloads */

struct fixture {
	char *flat;		    /* the caller's side of the copy */
	char *seg[4];		    /* 4 segments, one allocation each */
	struct iovec iov[4];	    /* the 4-segment iovec */
	struct lx_xprt_buf bufs[2]; /* the 2-buffer chain */
	size_t payload;		    /* bytes per operation */
};

static void *xaligned(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, n ? n : 64))
		abort();
	memset(p, 0x3c, n);
	return p;
}

static void fixture_init(struct fixture *f, size_t payload)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->payload = payload;
	f->flat = xaligned(payload);
	for (i = 0; i < 4; i++) {
		f->seg[i] = xaligned(payload / 2);
		f->iov[i].iov_base = f->seg[i];
		f->iov[i].iov_len = payload / 4;
	}
	/* The chain reuses segments 0 and 1, each contributing half. */
	for (i = 0; i < 2; i++) {
		f->bufs[i].data = f->seg[i];
		f->bufs[i].cap = (uint32_t)(payload / 2);
		f->bufs[i].len = (uint32_t)(payload / 2);
		f->bufs[i].next = i ? NULL : &f->bufs[1];
	}
}

static void fixture_free(struct fixture *f)
{
	int i;

	free(f->flat);
	for (i = 0; i < 4; i++)
		free(f->seg[i]);
}

enum wl {
	WL_IOV_TO,
	WL_IOV_FROM,
	WL_CHAIN_TO,
	WL_CHAIN_FROM,
	WL_NR,
};

static const char *const wl_name[WL_NR] = {
	"copy_to iovec x4",
	"copy_from iovec x4",
	"copy_to chain x2",
	"copy_from chain x2",
};

/* @iters operations of @wl through the ops table; returns bytes moved. */
static size_t run_ops(struct fixture *f, enum wl wl, unsigned long iters)
{
	struct lx_xprt_iter it;
	size_t moved = 0;
	unsigned long i;

	for (i = 0; i < iters; i++) {
		switch (wl) {
		case WL_IOV_TO:
			lx_xprt_iter_iovec(&it, f->iov, 4, f->payload);
			moved += lx_xprt_iter_copy_to(&it, f->flat, f->payload);
			break;
		case WL_IOV_FROM:
			lx_xprt_iter_iovec(&it, f->iov, 4, f->payload);
			moved += lx_xprt_iter_copy_from(&it, f->flat,
							f->payload);
			break;
		case WL_CHAIN_TO:
			lx_xprt_iter_bufchain(&it, f->bufs, f->payload);
			moved += lx_xprt_iter_copy_to(&it, f->flat, f->payload);
			break;
		default:
			lx_xprt_iter_bufchain(&it, f->bufs, f->payload);
			moved += lx_xprt_iter_copy_from(&it, f->flat,
							f->payload);
			break;
		}
		mb_use(f->flat);
		mb_use(f->seg[0]);
	}
	return moved;
}

/* The same through the switch iterator. */
static size_t run_sw(struct fixture *f, enum wl wl, unsigned long iters)
{
	struct sw_iter it;
	size_t moved = 0;
	unsigned long i;

	for (i = 0; i < iters; i++) {
		switch (wl) {
		case WL_IOV_TO:
			sw_init_iovec(&it, f->iov, 4, f->payload);
			moved += sw_copy_to(&it, f->flat, f->payload);
			break;
		case WL_IOV_FROM:
			sw_init_iovec(&it, f->iov, 4, f->payload);
			moved += sw_copy_from(&it, f->flat, f->payload);
			break;
		case WL_CHAIN_TO:
			sw_init_bufchain(&it, f->bufs, f->payload);
			moved += sw_copy_to(&it, f->flat, f->payload);
			break;
		default:
			sw_init_bufchain(&it, f->bufs, f->payload);
			moved += sw_copy_from(&it, f->flat, f->payload);
			break;
		}
		mb_use(f->flat);
		mb_use(f->seg[0]);
	}
	return moved;
}

typedef size_t (*run_fn)(struct fixture *, enum wl, unsigned long);

static double time_ns(run_fn fn, struct fixture *f, enum wl wl,
		      unsigned long iters)
{
	uint64_t t0 = mb_now_ns();
	size_t moved = fn(f, wl, iters);
	uint64_t t1 = mb_now_ns();

	if (moved != iters * f->payload) {
		fprintf(stderr, "mb_iter: %s moved %zu of %zu bytes\n",
			wl_name[wl], moved, iters * f->payload);
		exit(1);
	}
	return (double)(t1 - t0) / (double)iters;
}

/*
 * Best-of-rounds ns/op for both variants of one workload, alternating
 * ops/switch so that a burst of interference hits both alike.
 */
static void measure(struct fixture *f, enum wl wl, double budget_s,
		    double *ops_ns, double *sw_ns)
{
	unsigned int rounds = mb_opts.quick ? 7 : 31, r;
	unsigned long iters = 1000;
	double per;

	/* Calibrate: a round should take budget / (2 * rounds). */
	per = time_ns(run_ops, f, wl, iters);
	iters = (unsigned long)(budget_s * 1e9 / (2.0 * rounds) / per);
	if (iters < 100)
		iters = 100;
	*ops_ns = *sw_ns = 1e30;
	for (r = 0; r < rounds; r++) {
		double a, b;

		if (r & 1) {
			b = time_ns(run_sw, f, wl, iters);
			a = time_ns(run_ops, f, wl, iters);
		} else {
			a = time_ns(run_ops, f, wl, iters);
			b = time_ns(run_sw, f, wl, iters);
		}
		*ops_ns = a < *ops_ns ? a : *ops_ns;
		*sw_ns = b < *sw_ns ? b : *sw_ns;
	}
}

int main(int argc, char **argv)
{
	static const char *const cols[] = {"workload", "ops ns/op",
					   "switch ns/op", "ops/switch"};
	static const size_t payloads[] = {4096, 64};
	double sum_ops = 0, sum_sw = 0;
	struct mb_table *tab;
	struct fixture f;
	unsigned int p;
	int wl;

	mb_init(argc, argv, "mb_iter",
		"iterator ops table vs open-coded switch, init + one copy");
	tab = mb_table_new("ns per operation (best of alternating rounds)", 4,
			   cols);
	for (p = 0; p < 2; p++) {
		fixture_init(&f, payloads[p]);
		for (wl = 0; wl < WL_NR; wl++) {
			char label[64];
			double v[3];

			measure(&f, wl, mb_opts.seconds / 4, &v[0], &v[1]);
			v[2] = v[0] / v[1];
			snprintf(label, sizeof(label), "%s, %zu B", wl_name[wl],
				 payloads[p]);
			mb_table_row(tab, label, v);
			if (payloads[p] == 4096) {
				sum_ops += v[0];
				sum_sw += v[1];
			}
		}
		fixture_free(&f);
	}
	printf("\n");
	mb_target("ops table / switch time, 4 KiB", sum_ops / sum_sw, 1.01,
		  false);
	return mb_finish();
}

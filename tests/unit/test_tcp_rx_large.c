// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Large READ replies over TCP land in the caller's buffer with one copy:
 * the receive state machine (xprt/tcp/tcp_rx.c) reads them from the socket
 * straight into place, never through its staging buffer.  The counters
 * say so: of the bytes received, direct_rx_bytes are those read into the
 * caller's memory, and it grows by exactly each large reply's payload -
 * the first one of a connection's too, because its request said how
 * much data to expect (req->rx_hint), which puts the stream in reads
 * sized to the message before its first byte.
 *
 * The replies come from the fake NFS server of tests/unit in one write
 * each; their sizes are odd (XDR padding after the data), interleaved
 * with small replies (GETATTR, small READs) that end large mode, so the
 * record boundaries fall at every alignment against the 64 KiB segments
 * the loopback delivers.  Splits byte by byte are the business of
 * tests/fuzz/fuzz_tcp_rx.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>
#include <libxprt/rpc.h>

#include "test_nfs3_fakesrv.h"

static uint8_t got[FSIZE_MAX];

static void pattern(uint8_t *p, size_t n, unsigned int seed)
{
	uint32_t v = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		v = v * 1103515245u + 12345u;
		p[i] = (uint8_t)(v >> 16);
	}
}

static void xstats(struct lx_nfs3_clnt *c, uint64_t *rx, uint64_t *direct)
{
	struct lx_nfs3_stats st;

	lx_nfs3_stats(c, &st);
	*rx = st.rpc.xprt.bytes_received;
	*direct = st.rpc.xprt.direct_rx_bytes;
}

/* READ @count at @off; return the direct bytes it added */
static uint64_t rd(struct lx_nfs3_clnt *c, uint64_t off, uint32_t count)
{
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_read_res rr;
	struct iovec iov = {got, count};
	uint64_t rx0, d0, rx1, d1;

	memset(got, 0, count);
	xstats(c, &rx0, &d0);
	assert_int_equal(lx_nfs3_read(c, &fh, off, count, &iov, 1, &rr), 0);
	xstats(c, &rx1, &d1);
	assert_int_equal(rr.count, count);
	assert_memory_equal(got, S->cache + off, count);
	assert_true(d1 - d0 <= count);
	assert_true(rx1 - rx0 > count);
	return d1 - d0;
}

static void test_large_reads_one_copy(void **state)
{
	static const uint32_t sizes[] = {
		524288, 524288,	 1048576 - 4096, 65537,	 200001,
		524287, 1000003, 40000,		 524288,
	};
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_fh fh = file_fh();
	struct lx_nfs3_getattr_res ga;
	size_t i;
	int round;

	(void)state;
	pattern(S->cache, FSIZE_MAX, 17);
	S->size = FSIZE_MAX;
	for (round = 0; round < 3; round++) {
		/* a small reply first: the stream is in batched mode */
		assert_int_equal(lx_nfs3_getattr(c, &fh, &ga), 0);
		rd(c, 7, 1000);
		/* every large reply is read straight into place, the
		 * first of the connection and the first after small ones
		 * included */
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			uint64_t off = (i * 4099u) % (FSIZE_MAX - sizes[i] + 1);

			assert_int_equal(rd(c, off, sizes[i]), sizes[i]);
		}
	}
	lx_nfs3_destroy(c);
}

/*
 * The reply split in two at a chosen byte (fakesrv_set_cut(): the first
 * piece, a pause, the rest), at every byte of the record mark and the
 * header (132 bytes up to the data: mark, RPC reply header, READ
 * status, attributes, count, eof, opaque length), then around the start
 * and end of the data and in the padding: wherever the first read ends,
 * the data lands straight in the caller's buffer and right.
 */
static void test_split_replies_one_copy(void **state)
{
	enum { COUNT = 65537, DATA_AT = 132 };
	static const size_t more[] = {
		DATA_AT + 1,	     DATA_AT + 4095,	  DATA_AT + 4096,
		DATA_AT + 40000,     DATA_AT + COUNT - 1, DATA_AT + COUNT,
		DATA_AT + COUNT + 1, DATA_AT + COUNT + 2,
	};
	struct lx_nfs3_clnt *c = mk();
	size_t cut, i;

	(void)state;
	pattern(S->cache, FSIZE_MAX, 29);
	S->size = FSIZE_MAX;
	for (cut = 1; cut <= DATA_AT + 8; cut++) {
		fakesrv_set_cut(fs, cut);
		assert_int_equal(rd(c, cut * 7, COUNT), COUNT);
	}
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		fakesrv_set_cut(fs, more[i]);
		assert_int_equal(rd(c, i * 4099, COUNT), COUNT);
	}
	fakesrv_set_cut(fs, 0);
	lx_nfs3_destroy(c);
}

/*
 * READs in flight, so the replies come back to back: a read of the last
 * bytes of a reply's data also takes its pad and the next reply's header
 * (tcp_rx.c, rx_direct_tail()), which is right when the next one is a
 * READ reply of the same shape and wrong when it is a GETATTR or a READ
 * of a few bytes.  Every payload lands intact, and after the first large
 * reply every payload byte is read straight into place.
 */
struct pcall {
	struct lx_call call;
	struct lx_nfs3_read_res rr;
	struct lx_nfs3_getattr_res ga;
	atomic_int done;
	int status;
};

static void p_done(struct lx_call *call, int status, void *arg)
{
	struct pcall *p = arg;

	(void)call;
	p->status = status;
	atomic_store(&p->done, 1); /* the last store: the test reads after */
}

static void test_pipelined_reads_one_copy(void **state)
{
	enum { DEPTH = 4, ROUNDS = 6 };
	static const uint32_t sizes[] = {
		262144, 131071, 1000, 200003, 65536, 7, 262144, 99999,
	};
	static uint8_t buf[DEPTH][262144];
	static struct pcall pc[DEPTH];
	struct lx_nfs3_clnt *c = mk();
	struct lx_nfs3_fh fh = file_fh();
	uint64_t rx0, d0, rx1, d1, want = 0, small = 0;
	unsigned int r, i, k = 0;

	(void)state;
	pattern(S->cache, FSIZE_MAX, 23);
	S->size = FSIZE_MAX;
	/* from the connection's first reply on: no warm-up */
	xstats(c, &rx0, &d0);
	for (r = 0; r < ROUNDS; r++) {
		uint64_t off[DEPTH];

		for (i = 0; i < DEPTH; i++, k++) {
			uint32_t n =
				sizes[k % (sizeof(sizes) / sizeof(*sizes))];
			struct pcall *p = &pc[i];

			memset(p, 0, sizeof(*p));
			memset(buf[i], 0, sizeof(buf[i]));
			p->call.done = p_done;
			p->call.arg = p;
			off[i] = (k * 8191u) % (FSIZE_MAX - sizeof(buf[i]));
			if (!n) {
				assert_int_equal(
					lx_nfs3_getattr_async(c, &p->call, &fh,
							      &p->ga),
					0);
				off[i] = UINT64_MAX;
				continue;
			}
			assert_int_equal(lx_nfs3_read_buf_async(c, &p->call,
								&fh, off[i], n,
								buf[i], &p->rr),
					 0);
			if (n >= 4096)
				want += n;
			else
				small += n;
		}
		for (i = 0; i < DEPTH; i++) {
			while (!atomic_load(&pc[i].done))
				usleep(100);
			assert_int_equal(pc[i].status, 0);
			if (off[i] == UINT64_MAX)
				continue;
			assert_memory_equal(buf[i], S->cache + off[i],
					    pc[i].rr.count);
		}
	}
	xstats(c, &rx1, &d1);
	/* large payloads all direct; a few small ones may be staged */
	assert_true(d1 - d0 >= want);
	assert_true(d1 - d0 <= want + small);
	lx_nfs3_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_large_reads_one_copy,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_replies_one_copy,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipelined_reads_one_copy,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

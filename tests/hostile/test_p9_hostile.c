// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The 9P client against tests/hostile/p9_hostile.py, one scenario per
 * server process (started here with fork/exec, its port read from the
 * "PORT n" line it prints).  Each scenario must end in the errno the API
 * documents, within the configured timeout (twice it when the server also
 * ignores the Tflush), without writing past the caller's buffer, and leave
 * the session either usable or cleanly gone (-ENOTCONN); ASan checks for
 * leaks at exit.
 *
 * The server script is found relative to this file's path as the build
 * saw it (the tests run from the top of the tree), or under $XPRT_TOP.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/p9.h>

#include "helpers/spawn.h"

#define TIMEOUT_MS 200u

struct hostile {
	struct spawned sp;
	uint16_t port;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void hostile_start(struct hostile *h, const char *scenario)
{
	char *argv[] = {"python3",    "tests/hostile/p9_hostile.py",
			"--scenario", (char *)scenario,
			"--port",     "0",
			NULL};

	assert_int_equal(spawn_server(argv, &h->sp), 0);
	h->port = h->sp.port;
}

static void hostile_stop(struct hostile *h)
{
	spawn_stop(&h->sp);
}

static struct lx_p9_clnt *hostile_conn(struct hostile *h)
{
	char err[256];
	struct lx_p9_opts o = {
		.host = "127.0.0.1",
		.port = h->port,
		.aname = "/hostile",
		.msize = 8192,
		.max_reqs = 8,
		.timeout_ms = TIMEOUT_MS,
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	struct lx_p9_clnt *c = NULL;
	int r = lx_p9_create(&c, &o);

	if (r)
		fail_msg("lx_p9_create: %d (%s)", r, err);
	return c;
}

enum after { USABLE, GONE };

/*
 * Run @scenario: read 64 bytes (or readlink), expect @want (or @alt when
 * not 0) within @bound_ms, then check the session is @after.
 */
static void run_alt(const char *scenario, bool readlink, int want, int alt,
		    uint64_t bound_ms, enum after after)
{
	uint8_t buf[64 + 32];
	char link[128];
	struct hostile h;
	struct lx_p9_clnt *c;
	struct lx_p9_attr a;
	uint32_t n = 12345, i;
	uint64_t t0, dt;
	int r;

	hostile_start(&h, scenario);
	c = hostile_conn(&h);
	memset(buf, 0xC5, sizeof(buf));
	t0 = now_ms();
	if (readlink)
		r = lx_p9_readlink(c, lx_p9_root_fid(c), link, sizeof(link));
	else
		r = lx_p9_read(c, lx_p9_root_fid(c), 1000, 64, buf, &n);
	dt = now_ms() - t0;
	if (r != want && (!alt || r != alt))
		fail_msg("%s: %d (%s), want %d", scenario, r, lx_strerror(r),
			 want);
	if (dt > bound_ms)
		fail_msg("%s: took %llu ms, bound %llu", scenario,
			 (unsigned long long)dt, (unsigned long long)bound_ms);
	/* never a byte past the 64 asked for */
	for (i = 64; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xC5);
	if (!readlink && !r) {
		assert_int_equal(n, 64);
		for (i = 0; i < 64; i++)
			assert_int_equal(buf[i], (uint8_t)(1000 + i));
	} else if (!readlink) {
		assert_int_equal(n, 12345); /* untouched on error */
	}
	r = lx_p9_getattr(c, lx_p9_root_fid(c), LX_P9_GETATTR_BASIC, &a);
	assert_int_equal(r, after == USABLE ? 0 : -ENOTCONN);
	lx_p9_destroy(c);
	hostile_stop(&h);
}

static void run(const char *scenario, bool readlink, int want,
		uint64_t bound_ms, enum after after)
{
	run_alt(scenario, readlink, want, 0, bound_ms, after);
}

/* The bounds leave room for a loaded machine (TSan, two cores). */
#define ONE  (TIMEOUT_MS + 2000)
#define TWO  (2 * TIMEOUT_MS + 2000)
#define FAST 2000

static void test_ok_reads_the_data(void **state)
{
	(void)state;
	run("ok", false, 0, FAST, USABLE);
}

static void test_wrong_tag_is_dropped_then_times_out(void **state)
{
	(void)state;
	run("wrong_tag", false, -ETIMEDOUT, ONE, USABLE);
}

static void test_unused_tag_is_dropped(void **state)
{
	(void)state;
	run("unused_tag", false, 0, FAST, USABLE);
}

static void test_size_over_msize_is_emsgsize(void **state)
{
	(void)state;
	run("size_over_msize", false, -EMSGSIZE, FAST, USABLE);
}

static void test_size_huge_drops_the_connection(void **state)
{
	(void)state;
	run("size_huge", false, -ECONNRESET, FAST, GONE);
}

static void test_size_under_header_drops_the_connection(void **state)
{
	(void)state;
	run("size_under_header", false, -ECONNRESET, FAST, GONE);
}

static void test_string_past_end_is_ebadmsg(void **state)
{
	(void)state;
	run("string_past_end", true, -EBADMSG, FAST, USABLE);
}

static void test_count_over_request_is_eproto(void **state)
{
	(void)state;
	run("count_over_request", false, -EPROTO, FAST, USABLE);
}

static void test_truncated_data_is_ebadmsg(void **state)
{
	(void)state;
	run("truncated_data", false, -EBADMSG, FAST, USABLE);
}

static void test_rflush_for_an_unflushed_tag_is_eproto(void **state)
{
	(void)state;
	run("rflush_unflushed", false, -EPROTO, FAST, USABLE);
}

static void test_rlerror_to_tflush_ends_the_session(void **state)
{
	(void)state;
	run("rlerror_to_tflush", false, -ETIMEDOUT, ONE, GONE);
}

static void test_wrong_type_is_eproto(void **state)
{
	(void)state;
	run("wrong_type", false, -EPROTO, FAST, USABLE);
}

static void test_rerror_107_carries_the_errno(void **state)
{
	(void)state;
	run("rerror_107", false, -EACCES, FAST, USABLE);
}

static void test_silence_times_out_after_the_flush(void **state)
{
	(void)state;
	run("drop", false, -ETIMEDOUT, ONE, USABLE);
}

static void test_silence_and_no_rflush_bounded_by_twice(void **state)
{
	(void)state;
	run("drop_noflush", false, -ETIMEDOUT, TWO, USABLE);
}

static void test_reply_before_rflush_wins(void **state)
{
	(void)state;
	run("late_reply", false, 0, ONE, USABLE);
}

static void test_close_is_econnreset(void **state)
{
	(void)state;
	run("close_on_read", false, -ECONNRESET, FAST, GONE);
}

static void test_reply_stalled_half_way_drops_the_connection(void **state)
{
	(void)state;
	/* past the deadline the reply is pinned and cannot be failed; a
	 * second without a byte and the connection goes */
	/* (on a loaded machine the call may time out before the half reply
	 * is read: then its flush expires too, and both the timeout and the
	 * dropped connection race to end it) */
	run_alt("stall_mid_reply", false, -ECONNRESET, -ETIMEDOUT, TWO + 1000,
		GONE);
}

static void test_version_unknown_is_eprotonosupport(void **state)
{
	char err[256] = "";
	struct hostile h;
	struct lx_p9_opts o = {
		.host = "127.0.0.1", .errbuf = err, .errbuf_len = sizeof(err)};
	struct lx_p9_clnt *c = NULL;

	(void)state;
	hostile_start(&h, "version_unknown");
	o.port = h.port;
	assert_int_equal(lx_p9_create(&c, &o), -EPROTONOSUPPORT);
	assert_non_null(strstr(err, "\"unknown\""));
	hostile_stop(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok_reads_the_data),
		cmocka_unit_test(test_wrong_tag_is_dropped_then_times_out),
		cmocka_unit_test(test_unused_tag_is_dropped),
		cmocka_unit_test(test_size_over_msize_is_emsgsize),
		cmocka_unit_test(test_size_huge_drops_the_connection),
		cmocka_unit_test(test_size_under_header_drops_the_connection),
		cmocka_unit_test(test_string_past_end_is_ebadmsg),
		cmocka_unit_test(test_count_over_request_is_eproto),
		cmocka_unit_test(test_truncated_data_is_ebadmsg),
		cmocka_unit_test(test_rflush_for_an_unflushed_tag_is_eproto),
		cmocka_unit_test(test_rlerror_to_tflush_ends_the_session),
		cmocka_unit_test(test_wrong_type_is_eproto),
		cmocka_unit_test(test_rerror_107_carries_the_errno),
		cmocka_unit_test(test_silence_times_out_after_the_flush),
		cmocka_unit_test(test_silence_and_no_rflush_bounded_by_twice),
		cmocka_unit_test(test_reply_before_rflush_wins),
		cmocka_unit_test(test_close_is_econnreset),
		cmocka_unit_test(
			test_reply_stalled_half_way_drops_the_connection),
		cmocka_unit_test(test_version_unknown_is_eprotonosupport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

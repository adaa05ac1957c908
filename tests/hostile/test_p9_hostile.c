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

static void test_rlerror_storm_fails_each_call_fast(void **state)
{
	struct lx_xprt_stats st;
	struct hostile h;
	struct lx_p9_clnt *c;
	uint8_t buf[64];
	uint32_t n;
	uint64_t t0, dt;
	int i;

	(void)state;
	hostile_start(&h, "rlerror_storm");
	c = hostile_conn(&h);
	t0 = now_ms();
	/* every call gets its error at once: no retry, no reconnect, the
	 * session stays (an Rlerror is an answer) */
	for (i = 0; i < 200; i++)
		assert_int_equal(
			lx_p9_read(c, lx_p9_root_fid(c), 0, 64, buf, &n), -EIO);
	dt = now_ms() - t0;
	lx_xprt_stats(lx_p9_xprt(c), &st);
	print_message("rlerror_storm: 200 x -EIO in %llu ms, %llu "
		      "connection(s)\n",
		      (unsigned long long)dt, (unsigned long long)st.connects);
	assert_true(dt < FAST);
	assert_int_equal(st.connects, 1);
	assert_int_equal(st.disconnects, 0);
	lx_p9_destroy(c);
	hostile_stop(&h);
}

/* ------------------------------------------------ at the first message */

/* The connect timeout of the Tversion-level cases: each of Tversion and
 * Tattach is bounded by it (p9.h), so these bound lx_p9_create(). */
#define SETUP_MS 1000u

/* a server's connections, from its --log CONN lines */
static int conns_in(const char *log)
{
	char line[256];
	FILE *f = fopen(log, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, "CONN ", 5);
	fclose(f);
	return n;
}

/*
 * lx_p9_create() against @scenario misbehaving at Tversion: it must fail
 * with @want (or @alt when not 0) within @bound_ms, after exactly one
 * connection (a session is never re-made behind the caller's back), with
 * a message naming the step and the server, and containing @needle.
 */
static void setup_fails(const char *scenario, const char *delay, int want,
			int alt, uint64_t bound_ms, const char *needle)
{
	char err[512] = "", log[64], where[64];
	char *argv[12] = {"python3",	"tests/hostile/p9_hostile.py",
			  "--scenario", (char *)scenario,
			  "--port",	"0",
			  "--log",	log};
	struct hostile h;
	struct lx_p9_opts o = {.host = "127.0.0.1",
			       .aname = "/hostile",
			       .connect_timeout_ms = SETUP_MS,
			       .errbuf = err,
			       .errbuf_len = sizeof(err)};
	struct lx_p9_clnt *c = NULL;
	uint64_t t0, dt;
	int r, n = 8;

	snprintf(log, sizeof(log), "/tmp/libxprt-p9hostile-%d.log",
		 (int)getpid());
	unlink(log);
	if (delay) {
		argv[n++] = "--delay";
		argv[n++] = (char *)delay;
	}
	argv[n] = NULL;
	assert_int_equal(spawn_server(argv, &h.sp), 0);
	o.port = h.sp.port;
	t0 = now_ms();
	r = lx_p9_create(&c, &o);
	dt = now_ms() - t0;
	print_message("%s: %d after %llu ms, %d connection(s): %s\n", scenario,
		      r, (unsigned long long)dt, conns_in(log), err);
	if (r != want && (!alt || r != alt))
		fail_msg("%s: %d (%s), want %d", scenario, r, lx_strerror(r),
			 want);
	assert_null(c);
	if (dt > bound_ms)
		fail_msg("%s: took %llu ms, bound %llu", scenario,
			 (unsigned long long)dt, (unsigned long long)bound_ms);
	assert_non_null(strstr(err, "Tversion to 127.0.0.1:"));
	snprintf(where, sizeof(where), "127.0.0.1:%u", (unsigned)o.port);
	assert_non_null(strstr(err, where));
	if (needle && !strstr(err, needle))
		fail_msg("%s: message \"%s\" lacks \"%s\"", scenario, err,
			 needle);
	spawn_stop(&h.sp);
	assert_int_equal(conns_in(log), 1);
	unlink(log);
}

static void test_reset_on_accept_fails_create(void **state)
{
	(void)state;
	/* the reset lands before Tversion is sent or after: either way the
	 * session is gone, and the message asks whether that port is 9P */
	setup_fails("reset_on_accept", NULL, -ECONNRESET, -ENOTCONN, FAST,
		    "a 9P2000.L server?");
}

static void test_short_record_drops_the_connection(void **state)
{
	(void)state;
	setup_fails("short_record", NULL, -ECONNRESET, 0, FAST,
		    "a 9P2000.L server?");
}

static void test_garbage_drops_the_connection(void **state)
{
	(void)state;
	/* 64 random bytes: a size field no message can have (almost
	 * always), else a message under a tag we never used */
	setup_fails("garbage", NULL, -ECONNRESET, -ETIMEDOUT, SETUP_MS + 2000,
		    NULL);
}

static void test_unknown_tag_forever_times_out(void **state)
{
	(void)state;
	setup_fails("unknown_tag_forever", NULL, -ETIMEDOUT, 0, SETUP_MS + 2000,
		    "for calls we did not make");
}

static void test_trickled_rversion_is_bounded(void **state)
{
	(void)state;
	/* one byte every 0.3 s: 21 bytes would take 6.3 s */
	setup_fails("trickle", "0.3", -ETIMEDOUT, -ECONNRESET, SETUP_MS + 2000,
		    NULL);
}

static void test_no_read_times_out(void **state)
{
	(void)state;
	setup_fails("no_read", NULL, -ETIMEDOUT, 0, SETUP_MS + 2000,
		    "no reply");
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
		cmocka_unit_test(test_rlerror_storm_fails_each_call_fast),
		cmocka_unit_test(test_reset_on_accept_fails_create),
		cmocka_unit_test(test_short_record_drops_the_connection),
		cmocka_unit_test(test_garbage_drops_the_connection),
		cmocka_unit_test(test_unknown_tag_forever_times_out),
		cmocka_unit_test(test_trickled_rversion_is_bounded),
		cmocka_unit_test(test_no_read_times_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

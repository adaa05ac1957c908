// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lx_xprt_memlock_explain(): under a low RLIMIT_MEMLOCK (set here with
 * setrlimit(), as an unprivileged user's limits.conf would) a failed RDMA
 * registration's -ENOMEM or -EPERM is explained by naming the limit; other
 * errors and an unlimited limit get no sentence.
 *
 * An unlimited limit cannot be set for real: the hard limit is finite
 * (8 MiB on Debian, root's too) and raising it needs CAP_SYS_RESOURCE,
 * which a container's root may lack.  So this program's getrlimit(), the
 * one the library (linked in statically) calls, can answer an injected
 * limit instead of the kernel's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/xprt.h>

static struct rlimit saved;

/* RLIMIT_MEMLOCK as the library will read it, while inject is set.
 * TSan's runtime calls getrlimit() before it is set up: nothing here may
 * be instrumented for it. */
static bool inject;
static struct rlimit injected;

__attribute__((no_sanitize("thread"))) int getrlimit(__rlimit_resource_t res,
						     struct rlimit *rl)
{
	if (inject && res == RLIMIT_MEMLOCK) {
		*rl = injected;
		return 0;
	}
	/* the kernel's (not glibc's prlimit(): a sanitizer's runtime asks
	 * before it can take an intercepted call) */
	return (int)syscall(SYS_prlimit64, 0, res, NULL, rl);
}

static int save_limit(void **state)
{
	(void)state;
	return getrlimit(RLIMIT_MEMLOCK, &saved);
}

static int restore_limit(void **state)
{
	(void)state;
	inject = false;
	/* raising back needs the privilege lowering did not: best effort */
	(void)setrlimit(RLIMIT_MEMLOCK, &saved);
	return 0;
}

static void set_soft(rlim_t v)
{
	struct rlimit rl = saved;

	rl.rlim_cur = v;
	if (rl.rlim_max != RLIM_INFINITY && v != RLIM_INFINITY &&
	    v > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
}

static void test_low_limit_is_named(void **state)
{
	char buf[256];
	size_t n;

	(void)state;
	set_soft(64 * 1024);
	n = lx_xprt_memlock_explain(-ENOMEM, 2u << 20, buf, sizeof(buf));
	print_message("%s\n", buf);
	assert_true(n > 0 && n == strlen(buf));
	assert_non_null(strstr(buf, "RLIMIT_MEMLOCK (ulimit -l) is 64 KiB"));
	assert_non_null(strstr(buf, "registers about 2048 KiB"));
	assert_non_null(strstr(buf, "ulimit -l unlimited"));
	assert_non_null(strstr(buf, strerror(ENOMEM)));
	/* EPERM (some providers) too, and without a size */
	assert_true(lx_xprt_memlock_explain(-EPERM, 0, buf, sizeof(buf)) > 0);
	assert_null(strstr(buf, "registers about"));
	assert_non_null(strstr(buf, "RLIMIT_MEMLOCK"));
}

static void test_other_errors_are_not_explained(void **state)
{
	char buf[256] = "x";

	(void)state;
	set_soft(64 * 1024);
	assert_int_equal(
		lx_xprt_memlock_explain(-ECONNREFUSED, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(lx_xprt_memlock_explain(-ENODEV, 0, buf, sizeof(buf)),
			 0);
}

static void test_truncates_safely(void **state)
{
	char buf[16];

	(void)state;
	set_soft(64 * 1024);
	assert_int_equal(lx_xprt_memlock_explain(-ENOMEM, 0, buf, sizeof(buf)),
			 15);
	assert_int_equal(strlen(buf), 15);
}

static void test_unlimited_is_not_the_cause(void **state)
{
	char buf[256];

	(void)state;
	injected = (struct rlimit){RLIM_INFINITY, RLIM_INFINITY};
	inject = true;
	assert_int_equal(lx_xprt_memlock_explain(-ENOMEM, 0, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "");
	assert_int_equal(
		lx_xprt_memlock_explain(-EPERM, 1u << 20, buf, sizeof(buf)), 0);
	/* the same call under a finite limit does explain: the injected
	 * limit is the one read */
	injected.rlim_cur = 8192 * 1024;
	assert_true(lx_xprt_memlock_explain(-ENOMEM, 0, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "RLIMIT_MEMLOCK (ulimit -l) is 8192 KiB"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_low_limit_is_named,
						save_limit, restore_limit),
		cmocka_unit_test_setup_teardown(
			test_other_errors_are_not_explained, save_limit,
			restore_limit),
		cmocka_unit_test_setup_teardown(test_truncates_safely,
						save_limit, restore_limit),
		cmocka_unit_test_setup_teardown(test_unlimited_is_not_the_cause,
						save_limit, restore_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

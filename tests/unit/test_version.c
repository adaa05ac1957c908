// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of lx_xprt_version() (xprt/core/version.c): the library says the
 * version of the VERSION file it was built from (the one place the
 * version is written; LX_TEST_VERSION_FILE is its path), in the
 * MAJOR.MINOR.PATCH form the header promises, from static storage.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <libxprt/version.h>

#ifndef LX_TEST_VERSION_FILE
#error "LX_TEST_VERSION_FILE: the Makefile gives the VERSION file's path"
#endif

static void version_is_the_version_file(void **state)
{
	char want[64] = "";
	FILE *f = fopen(LX_TEST_VERSION_FILE, "r");
	size_t n;

	assert_non_null(f);
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	n = strcspn(want, "\r\n");
	want[n] = '\0';
	assert_true(n > 0);
	assert_string_equal(lx_xprt_version(), want);
}

static void version_is_major_minor_patch(void **state)
{
	const char *v = lx_xprt_version();
	unsigned int dots = 0;

	assert_non_null(v);
	assert_true(isdigit((unsigned char)v[0]));
	for (; *v; v++) {
		if (*v == '.') {
			dots++;
			/* no empty component: "1..2", "1.2." */
			assert_true(isdigit((unsigned char)v[1]));
		} else {
			assert_true(isdigit((unsigned char)*v));
		}
	}
	assert_int_equal(dots, 2);
}

static void version_is_static(void **state)
{
	assert_ptr_equal(lx_xprt_version(), lx_xprt_version());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version_is_the_version_file),
		cmocka_unit_test(version_is_major_minor_patch),
		cmocka_unit_test(version_is_static),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

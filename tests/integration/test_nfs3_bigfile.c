// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A 256 MiB file written through our client (UNSTABLE writes, then
 * fsync's COMMIT with verifier check) and read back through a different
 * client, libnfs's nfs-cat, with XPRT_NFS_URL: the checksums must match,
 * and so must our own read-back.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/nfs3.h>

#include "helpers/testenv.h"

#define BIG   (256u << 20)
#define CHUNK (8u << 20)

/* FNV-1a, 64 bits, over a stream */
static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ull

/* the bytes at @off, a function of the offset only */
static void pattern(uint8_t *b, size_t n, uint64_t off)
{
	size_t i;

	for (i = 0; i < n; i += 8) {
		uint64_t v = (off + i) * 0x9e3779b97f4a7c15ull;

		memcpy(b + i, &v, n - i < 8 ? n - i : 8);
	}
}

static void test_256m_write_then_nfs_cat(void **state)
{
	struct lx_nfs3_opts o = {0};
	struct lx_nfs3_file_opts fo = {.stable = LX_NFS3_UNSTABLE};
	struct lx_nfs3_file_stats st;
	struct lx_nfs3_clnt *c;
	struct lx_nfs3_file *f;
	uint8_t *buf = malloc(CHUNK);
	uint64_t off, h_us = FNV_INIT, h_them = FNV_INIT, h_back = FNV_INIT;
	size_t got = 0, n;
	char msg[256] = "", url[1024], cmd[1200];
	const char *u = test_env("XPRT_NFS_URL"), *q;
	FILE *p;

	(void)state;
	o.host = test_env("XPRT_NFS_HOST");
	o.export_path = test_env("XPRT_NFS_EXPORT");
	o.nfs_port = (uint16_t)atoi(test_env("XPRT_NFS_PORT"));
	o.mount_port = (uint16_t)atoi(test_env("XPRT_MNT_PORT"));
	o.set_ids = true;
	o.nconnect = 2;
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	if (lx_nfs3_create(&c, &o))
		fail_msg("mount: %s", msg);
	assert_int_equal(
		lx_nfs3_open(c, "big256", O_CREAT | O_TRUNC, 0644, &fo, &f), 0);
	for (off = 0; off < BIG; off += CHUNK) {
		pattern(buf, CHUNK, off);
		h_us = fnv(h_us, buf, CHUNK);
		assert_int_equal(lx_nfs3_file_pwrite(f, buf, CHUNK, off), 0);
	}
	assert_int_equal(lx_nfs3_file_fsync(f), 0);
	lx_nfs3_file_stats(f, &st);
	printf("wrote 256 MiB: %llu COMMITs, %llu verifier changes\n",
	       (unsigned long long)st.commits,
	       (unsigned long long)st.verf_changes);
	assert_int_equal(st.uncommitted, 0);

	/* read back ourselves */
	for (off = 0; off < BIG; off += CHUNK) {
		assert_int_equal(lx_nfs3_file_pread(f, buf, CHUNK, off, &n), 0);
		assert_int_equal(n, CHUNK);
		h_back = fnv(h_back, buf, CHUNK);
	}
	assert_int_equal(lx_nfs3_file_close(f), 0);
	assert_true(h_back == h_us);

	/* and through libnfs: nfs://host/export/big256?ports */
	q = strchr(u, '?');
	snprintf(url, sizeof(url), "%.*s/big256%s",
		 (int)(q ? q - u : (long)strlen(u)), u, q ? q : "");
	snprintf(cmd, sizeof(cmd), "nfs-cat '%s'", url);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(buf, 1, CHUNK, p)) > 0) {
		h_them = fnv(h_them, buf, n);
		got += n;
	}
	assert_int_equal(pclose(p), 0);
	printf("nfs-cat read %zu bytes: fnv %016llx, ours %016llx\n", got,
	       (unsigned long long)h_them, (unsigned long long)h_us);
	assert_int_equal(got, BIG);
	assert_true(h_them == h_us);
	{
		/* 256 MiB in the run directory is worth giving back */
		struct lx_nfs3_wcc_res wr;

		assert_int_equal(
			lx_nfs3_remove(c, lx_nfs3_root(c), "big256", &wr), 0);
	}
	lx_nfs3_destroy(c);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_256m_write_then_nfs_cat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libnfs and libxprt side by side in one process, against ganesha (issue
 * 15 item 6).  When libxprt exported nfs3_{access,create,link,...}_async,
 * nine names that Debian's libnfs.so.13 also exports (unversioned, for its
 * own internal calls), a program linked -lxprt -lnfs had libnfs's
 * nfs_access() call into our ACCESS and crash (so did a static link with
 * libxprt.a), and with -lnfs -lxprt a caller's own async ACCESS landed
 * in libnfs's.  With every name of ours under lx_, both
 * libraries keep their own calls whatever the link order; the Makefile
 * links this program three ways (libxprt.so first, libnfs first, and
 * libxprt.a) and test_libnfs_side.sh runs each.
 *
 *   usage: side NFS_URL     (libnfs URL; the rest comes from XPRT_*)
 *
 * Prints "ok - ..." or "FAIL - ..." per step; exit status 0 when all pass.
 */
#include <stdio.h>
#include <unistd.h>

#include "side.h"

#define SIZE 10000 /* bytes libnfs writes and libxprt reads the size of */

static int step(int rc, const char *what, const char *err)
{
	if (rc)
		printf("FAIL - %s: %s\n", what, err);
	else
		printf("ok - %s\n", what);
	fflush(stdout);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct side_xprt *x = NULL;
	struct side_nfs *n = NULL;
	char err[512] = "", dir[64];
	int fails = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s NFS_URL\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "side.%d", (int)getpid());
	/* libxprt first, so its connection is up while libnfs works */
	if (step(side_xprt_mount(&x, err, sizeof(err)), "lx_nfs3_create", err))
		return 1;
	fails += step(side_xprt_access_root(x, err, sizeof(err)),
		      "lx_nfs3_access and lx_nfs3_access_async of the root",
		      err);
	if (step(side_nfs_mount(&n, argv[1], err, sizeof(err)),
		 "libnfs nfs_mount", err)) {
		side_xprt_destroy(x);
		return 1;
	}
	fails += step(side_nfs_work(n, dir, SIZE, err, sizeof(err)),
		      "libnfs nfs_access, nfs_stat64, mkdir, creat, write, "
		      "rename, symlink, readlink, link",
		      err);
	fails += step(side_xprt_check(x, dir, SIZE, err, sizeof(err)),
		      "libxprt sees libnfs's file: lookup, size, access, "
		      "getattr",
		      err);
	fails += step(side_nfs_cleanup(n, dir, err, sizeof(err)),
		      "libnfs unlink, rmdir", err);
	side_nfs_destroy(n);
	side_xprt_destroy(x);
	printf("side: %d failure(s)\n", fails);
	return fails ? 1 : 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnfs and libxprt in one program: the two halves live in
 * two translation units because libnfs's headers and libtirpc's (which
 * <libxprt/nfs3.h> includes for XDR) both define bool_t and friends.
 * Only plain C types cross this header.
 */
#ifndef SIDE_H
#define SIDE_H

#include <stddef.h>

struct side_nfs;  /* a libnfs context, side_libnfs.c */
struct side_xprt; /* a libxprt client, side_libxprt.c */

/* Each returns 0, or -1 with a message in err. */
int side_nfs_mount(struct side_nfs **np, const char *url, char *err,
		   size_t errlen);
/* through libnfs: ACCESS, STAT, MKDIR, CREATE, WRITE, RENAME, SYMLINK,
 * READLINK, LINK in directory dir; the file dir/data holds size bytes */
int side_nfs_work(struct side_nfs *n, const char *dir, size_t size, char *err,
		  size_t errlen);
int side_nfs_cleanup(struct side_nfs *n, const char *dir, char *err,
		     size_t errlen);
void side_nfs_destroy(struct side_nfs *n);

int side_xprt_mount(struct side_xprt **xp, char *err, size_t errlen);
/* through libxprt: ACCESS of the root, sync and async */
int side_xprt_access_root(struct side_xprt *x, char *err, size_t errlen);
/* through libxprt: LOOKUP dir/data, its size, ACCESS and GETATTR of it */
int side_xprt_check(struct side_xprt *x, const char *dir, size_t size,
		    char *err, size_t errlen);
void side_xprt_destroy(struct side_xprt *x);

#endif

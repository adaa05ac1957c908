// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The libnfs half of the side-by-side program (see side_main.c): only
 * libnfs's headers here.  Every call below runs one of the procedures
 * whose libnfs-internal entry points, libnfs's own
 * nfs3_{access,create,write,rename,symlink,readlink,link,rmdir}_async,
 * our library once exported under the same names.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#include "side.h"

struct side_nfs {
	struct nfs_context *nfs;
};

static int fail(struct nfs_context *nfs, char *err, size_t errlen,
		const char *what, int rc)
{
	snprintf(err, errlen, "libnfs %s: %d (%s)", what, rc,
		 nfs ? nfs_get_error(nfs) : "no context");
	return -1;
}

int side_nfs_mount(struct side_nfs **np, const char *url, char *err,
		   size_t errlen)
{
	struct side_nfs *n = calloc(1, sizeof(*n));
	struct nfs_url *u;
	int rc;

	if (!n)
		return fail(NULL, err, errlen, "calloc", -1);
	n->nfs = nfs_init_context();
	if (!n->nfs) {
		free(n);
		return fail(NULL, err, errlen, "nfs_init_context", -1);
	}
	u = nfs_parse_url_dir(n->nfs, url);
	if (!u) {
		rc = fail(n->nfs, err, errlen, "nfs_parse_url_dir", -1);
		goto out_destroy;
	}
	rc = nfs_mount(n->nfs, u->server, u->path);
	nfs_destroy_url(u);
	if (rc) {
		rc = fail(n->nfs, err, errlen, "nfs_mount", rc);
		goto out_destroy;
	}
	*np = n;
	return 0;

out_destroy:
	nfs_destroy_context(n->nfs);
	free(n);
	return rc;
}

int side_nfs_work(struct side_nfs *n, const char *dir, size_t size, char *err,
		  size_t errlen)
{
	char p[256], q[256], buf[256];
	struct nfs_stat_64 st;
	struct nfsfh *fh;
	char *data;
	int rc;

	rc = nfs_access(n->nfs, "/", R_OK | X_OK); /* not ours to export */
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_access /", rc);
	rc = nfs_stat64(n->nfs, "/", &st);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_stat64 /", rc);
	snprintf(p, sizeof(p), "/%s", dir);
	rc = nfs_mkdir(n->nfs, p);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_mkdir", rc);
	snprintf(p, sizeof(p), "/%s/tmp", dir);
	rc = nfs_creat(n->nfs, p, 0644, &fh);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_creat", rc);
	data = malloc(size);
	if (!data) {
		nfs_close(n->nfs, fh);
		return fail(n->nfs, err, errlen, "malloc", -1);
	}
	memset(data, 'x', size);
	rc = nfs_write(n->nfs, fh, size, data);
	free(data);
	nfs_close(n->nfs, fh);
	if (rc != (int)size)
		return fail(n->nfs, err, errlen, "nfs_write", rc);
	snprintf(q, sizeof(q), "/%s/data", dir);
	rc = nfs_rename(n->nfs, p, q);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_rename", rc);
	rc = nfs_access(n->nfs, q, R_OK | W_OK);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_access data", rc);
	snprintf(p, sizeof(p), "/%s/sym", dir);
	rc = nfs_symlink(n->nfs, "data", p);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_symlink", rc);
	memset(buf, 0, sizeof(buf));
	rc = nfs_readlink(n->nfs, p, buf, sizeof(buf) - 1);
	if (rc || strcmp(buf, "data"))
		return fail(n->nfs, err, errlen, "nfs_readlink", rc);
	snprintf(p, sizeof(p), "/%s/hard", dir);
	rc = nfs_link(n->nfs, q, p);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_link", rc);
	rc = nfs_stat64(n->nfs, p, &st);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_stat64 hard", rc);
	if (st.nfs_size != size || st.nfs_nlink != 2) {
		snprintf(err, errlen,
			 "libnfs: hard link has size %llu, %llu "
			 "links, want %zu and 2",
			 (unsigned long long)st.nfs_size,
			 (unsigned long long)st.nfs_nlink, size);
		return -1;
	}
	return 0;
}

int side_nfs_cleanup(struct side_nfs *n, const char *dir, char *err,
		     size_t errlen)
{
	static const char *const names[] = {"sym", "hard", "data"};
	char p[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "/%s/%s", dir, names[i]);
		rc = nfs_unlink(n->nfs, p);
		if (rc)
			return fail(n->nfs, err, errlen, "nfs_unlink", rc);
	}
	snprintf(p, sizeof(p), "/%s", dir);
	rc = nfs_rmdir(n->nfs, p);
	if (rc)
		return fail(n->nfs, err, errlen, "nfs_rmdir", rc);
	return 0;
}

void side_nfs_destroy(struct side_nfs *n)
{
	nfs_destroy_context(n->nfs);
	free(n);
}

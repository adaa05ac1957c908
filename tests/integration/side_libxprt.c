// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The libxprt half of the side-by-side program (see side_main.c): only
 * libxprt's headers here.  The server comes from servers.env (XPRT_*).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/nfs3.h>

#include "side.h"

struct side_xprt {
	struct lx_nfs3_clnt *c;
};

static const char *env(const char *k)
{
	const char *v = getenv(k);

	if (!v || !*v) {
		fprintf(stderr, "missing %s: run through make integration\n",
			k);
		exit(1);
	}
	return v;
}

int side_xprt_mount(struct side_xprt **xp, char *err, size_t errlen)
{
	struct side_xprt *x = calloc(1, sizeof(*x));
	struct lx_nfs3_opts o;
	char msg[256] = "";
	int rc;

	if (!x) {
		snprintf(err, errlen, "calloc failed");
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.host = env("XPRT_NFS_HOST");
	o.export_path = env("XPRT_NFS_EXPORT");
	o.nfs_port = (uint16_t)atoi(env("XPRT_NFS_PORT"));
	o.mount_port = (uint16_t)atoi(env("XPRT_MNT_PORT"));
	o.timeo_ms = 5000;
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	rc = lx_nfs3_create(&x->c, &o);
	if (rc) {
		snprintf(err, errlen, "lx_nfs3_create: %s (%s)",
			 lx_strerror(rc), msg);
		free(x);
		return -1;
	}
	*xp = x;
	return 0;
}

static int access_of(struct side_xprt *x, const struct lx_nfs3_fh *fh,
		     uint32_t want, char *err, size_t errlen)
{
	struct lx_nfs3_access_res res;
	int rc;

	rc = lx_nfs3_access(x->c, fh, want, &res);
	if (rc) {
		snprintf(err, errlen, "lx_nfs3_access: %s", lx_strerror(rc));
		return -1;
	}
	if ((res.access & want) != want) {
		snprintf(err, errlen, "lx_nfs3_access: granted %#x of %#x",
			 res.access, want);
		return -1;
	}
	return 0;
}

struct wait {
	pthread_mutex_t mtx;
	pthread_cond_t cv;
	int done, status;
};

static void access_done(struct lx_call *call, int status, void *arg)
{
	struct wait *w = arg;

	(void)call;
	pthread_mutex_lock(&w->mtx);
	w->status = status;
	w->done = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mtx);
}

int side_xprt_access_root(struct side_xprt *x, char *err, size_t errlen)
{
	const uint32_t want = LX_NFS3_ACCESS_READ | LX_NFS3_ACCESS_LOOKUP;
	struct wait w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0,
			 0};
	struct lx_nfs3_access_res res;
	struct lx_call call;
	int rc;

	if (access_of(x, lx_nfs3_root(x->c), want, err, errlen))
		return -1;
	/* the async form too: the name a caller's own code binds to */
	memset(&call, 0, sizeof(call));
	call.done = access_done;
	call.arg = &w;
	rc = lx_nfs3_access_async(x->c, &call, lx_nfs3_root(x->c), want, &res);
	if (rc) {
		snprintf(err, errlen, "lx_nfs3_access_async: %s",
			 lx_strerror(rc));
		return -1;
	}
	pthread_mutex_lock(&w.mtx);
	while (!w.done)
		pthread_cond_wait(&w.cv, &w.mtx);
	pthread_mutex_unlock(&w.mtx);
	if (w.status || (res.access & want) != want) {
		snprintf(err, errlen, "lx_nfs3_access_async: %s, granted %#x",
			 lx_strerror(w.status), res.access);
		return -1;
	}
	return 0;
}

int side_xprt_check(struct side_xprt *x, const char *dir, size_t size,
		    char *err, size_t errlen)
{
	struct lx_nfs3_getattr_res ga;
	struct lx_nfs3_fattr attr;
	struct lx_nfs3_fh fh;
	char path[256];
	int rc;

	snprintf(path, sizeof(path), "%s/data", dir);
	rc = lx_nfs3_lookup_path(x->c, path, &fh, &attr);
	if (rc) {
		snprintf(err, errlen, "lx_nfs3_lookup_path %s: %s", path,
			 lx_strerror(rc));
		return -1;
	}
	if (attr.size != size) {
		snprintf(err, errlen,
			 "libxprt sees %llu bytes, libnfs wrote %zu",
			 (unsigned long long)attr.size, size);
		return -1;
	}
	if (access_of(x, &fh, LX_NFS3_ACCESS_READ | LX_NFS3_ACCESS_MODIFY, err,
		      errlen))
		return -1;
	rc = lx_nfs3_getattr(x->c, &fh, &ga);
	if (rc || ga.attr.nlink != 2) {
		snprintf(err, errlen, "lx_nfs3_getattr: %s, %u links, want 2",
			 lx_strerror(rc), rc ? 0 : ga.attr.nlink);
		return -1;
	}
	return 0;
}

void side_xprt_destroy(struct side_xprt *x)
{
	lx_nfs3_destroy(x->c);
	free(x);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Path lookup and directory iteration.
 *
 * lx_nfs3_readdirplus_iter() asks for replies as large as the client's
 * per-call buffer allows (lx_nfs3_dirsize()), decodes each into one entry
 * array and one name buffer allocated once per iteration, and carries the
 * last entry's cookie and the reply's cookie verifier to the next call.
 *
 * A server can make a naive iterator run forever: by sending a reply
 * without entries that is not the end, or by handing back a cookie it
 * handed out before (a loop).  Each reply's last cookie is remembered in a
 * small hash set (xprt/blocks/cookies.h; one per reply, not per entry, so the set stays small);
 * a reply whose last cookie is already there, equals the cookie asked
 * for, or is 0 (reserved for the start) ends the iteration with -ELOOP
 * before its entries are delivered, so no entry is reported twice
 * because of a loop.  A bound on the total number of entries stops a
 * server that keeps inventing new cookies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfs3_int.h"
#include "xprt/blocks/cookies.h"

#define LX_NFS3_ITER_DEF_MAX (16ull << 20)

int lx_nfs3_lookup_path(struct lx_nfs3_clnt *c, const char *path,
			struct lx_nfs3_fh *fh, struct lx_nfs3_fattr *attr)
{
	struct lx_nfs3_lookup_res lr;
	struct lx_nfs3_getattr_res gr;
	struct lx_nfs3_fh cur;
	bool have_attr = false;
	char name[LX_NFS3_MAXNAMLEN + 1];
	const char *p, *end;
	int err;

	if (!c || !path || !fh)
		return -EINVAL;
	cur = c->root;
	for (p = path; *p; p = end) {
		size_t n;

		while (*p == '/')
			p++;
		end = p;
		while (*end && *end != '/')
			end++;
		n = (size_t)(end - p);
		if (!n || (n == 1 && p[0] == '.'))
			continue;
		if (n > LX_NFS3_MAXNAMLEN)
			return -ENAMETOOLONG;
		memcpy(name, p, n);
		name[n] = '\0';
		err = lx_nfs3_lookup(c, &cur, name, &lr);
		if (err)
			return err;
		cur = lr.fh;
		have_attr = lr.attr.present;
		if (have_attr && attr)
			*attr = lr.attr.attr;
	}
	if (attr && !have_attr) {
		err = lx_nfs3_getattr(c, &cur, &gr);
		if (err)
			return err;
		*attr = gr.attr;
	}
	*fh = cur;
	return 0;
}

/* ------------------------------------------------------ iteration */

static bool dot_or_dotdot(const struct lx_nfs3_dirent *e)
{
	return (e->namelen == 1 && e->name[0] == '.') ||
	       (e->namelen == 2 && e->name[0] == '.' && e->name[1] == '.');
}

int lx_nfs3_readdirplus_iter(struct lx_nfs3_clnt *c,
			     const struct lx_nfs3_fh *dir, uint64_t max_entries,
			     lx_nfs3_dir_fn fn, void *arg)
{
	uint8_t verf[LX_NFS3_VERFSIZE] = {0};
	struct lx_xprt_cookies seen = {0};
	struct lx_nfs3_readdir_res res;
	struct lx_nfs3_dirbuf db;
	uint64_t cookie = 0, total = 0;
	uint32_t maxcount;
	unsigned int i;
	int err;

	if (!c || lx_nfs3_fh_ok(dir) || !fn)
		return -EINVAL;
	if (!max_entries)
		max_entries = LX_NFS3_ITER_DEF_MAX;
	maxcount = c->dirsize;
	db.cap = maxcount / LX_NFS3_DIRENTPLUS_MIN + 1;
	db.names_size = maxcount;
	db.ent = calloc(db.cap, sizeof(*db.ent));
	db.names = malloc(db.names_size);
	if (!db.ent || !db.names) {
		err = -ENOMEM;
		goto out_free;
	}
	for (;;) {
		uint64_t last;

		err = lx_nfs3_readdirplus(c, dir, cookie, verf, maxcount,
					  maxcount, &db, &res);
		if (err)
			break;
		memcpy(verf, res.cookieverf, sizeof(verf));
		if (!res.n && !res.eof) {
			err = -ELOOP; /* no progress, and not the end */
			break;
		}
		last = res.n ? db.ent[res.n - 1].cookie : cookie;
		if (!res.eof && (last == cookie || !last ||
				 lx_xprt__cookies_has(&seen, last))) {
			err = -ELOOP;
			break;
		}
		if (total + res.n > max_entries) {
			err = -E2BIG;
			break;
		}
		total += res.n;
		for (i = 0; i < res.n; i++) {
			if (dot_or_dotdot(&db.ent[i]))
				continue;
			err = fn(&db.ent[i], arg);
			if (err)
				goto out_free;
		}
		if (res.eof)
			break;
		err = lx_xprt__cookies_add(&seen, last);
		if (err)
			break;
		cookie = last;
	}
out_free:
	lx_xprt__cookies_free(&seen);
	free(db.names);
	free(db.ent);
	return err;
}

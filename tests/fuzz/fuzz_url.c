// SPDX-License-Identifier: LGPL-2.1-or-later
/* Fuzz target: the URL parser (url/url.c, url/url_args.c).  Input: the
 * first byte picks the root given to lx_url_split() (none, "/", or the
 * path up to one of its '/'), the rest is the URL.  Checks: a rejected
 * URL leaves nothing allocated and a message; an accepted one has a
 * non-empty host without control characters, a path that is empty (9p://
 * only) or starts with '/' and has no "//", arguments that fill the
 * options of its scheme and not the other's; the URL written again from
 * its parts (everything escaped) parses to the same parts; a split gives
 * a root and a non-empty file that make up the path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/url.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *put(char *o, const char *s, const char *keep)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || (c && strchr(keep, c)))
			*o++ = (char)c;
		else
			o += sprintf(o, "%%%02X", c);
	}
	return o;
}

/* @u written again with every special character escaped */
static void unparse(const struct lx_url *u, char *o)
{
	unsigned int i;

	o += sprintf(o, "%s://", u->scheme == LX_URL_NFS ? "nfs" : "9p");
	if (u->user) {
		o = put(o, u->user, "-._~");
		*o++ = '@';
	}
	if (strchr(u->host, ':')) {
		*o++ = '[';
		o = put(o, u->host, "-.:");
		*o++ = ']';
	} else {
		o = put(o, u->host, "-.");
	}
	if (u->port)
		o += sprintf(o, ":%u", u->port);
	o = put(o, u->path, "/-._~");
	for (i = 0; i < u->nargs; i++) {
		*o++ = i ? '&' : '?';
		o = put(o, u->args[i].key, "-._");
		if (*u->args[i].value) {
			*o++ = '=';
			o = put(o, u->args[i].value, "-._,");
		}
	}
	*o = '\0';
}

static void same(const struct lx_url *a, const struct lx_url *b)
{
	unsigned int i;

	FZ_ASSERT(a->scheme == b->scheme && a->port == b->port &&
		  a->nargs == b->nargs);
	FZ_ASSERT(!a->user == !b->user);
	FZ_ASSERT(!a->user || !strcmp(a->user, b->user));
	FZ_ASSERT(!strcmp(a->host, b->host) && !strcmp(a->path, b->path));
	for (i = 0; i < a->nargs; i++)
		FZ_ASSERT(!strcmp(a->args[i].key, b->args[i].key) &&
			  !strcmp(a->args[i].value, b->args[i].value));
}

static void check_split(struct lx_url *u, uint8_t sel)
{
	char root[LX_URL_MAX + 1];
	const char *r = NULL, *s;
	size_t n;
	int ret;

	if (sel % 3 == 1) {
		r = "/";
	} else if (sel % 3 == 2) {
		/* the path up to its (sel / 3)th '/' */
		unsigned int k = sel / 3;

		for (s = u->path; *s && k; s++)
			k -= *s == '/';
		n = (size_t)(s - u->path);
		memcpy(root, u->path, n);
		root[n] = '\0';
		r = root;
	}
	ret = lx_url_split(u, r);
	if (ret) {
		FZ_ASSERT(ret == -EINVAL && u->error[0] && !u->root &&
			  !u->file);
		return;
	}
	FZ_ASSERT(u->root && u->file && *u->file && *u->root == '/');
	n = strlen(u->root);
	/* root, '/', file make up the path ("/" and file for the top) */
	if (n == 1)
		FZ_ASSERT(!strcmp(u->path + 1, u->file));
	else
		FZ_ASSERT(!strncmp(u->path, u->root, n) && u->path[n] == '/' &&
			  !strcmp(u->path + n + 1, u->file));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[LX_URL_MAX + 64], again[LX_URL_MAX * 3 + 64];
	struct lx_nfs3_opts no = {0};
	struct lx_p9_opts po = {0};
	struct lx_url u, v;
	const char *p;
	uint8_t sel;
	int ret;

	if (!size || size > LX_URL_MAX + 32)
		return 0;
	sel = data[0];
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	ret = lx_url_parse(s, &u);
	if (ret) {
		FZ_ASSERT(ret == -EINVAL || ret == -EPROTONOSUPPORT ||
			  ret == -ENOTSUP || ret == -ENAMETOOLONG);
		FZ_ASSERT(u.error[0] && !u.host && !u.path && !u.args &&
			  !u.user && !u.nargs);
		return 0;
	}
	FZ_ASSERT(!u.error[0] && u.host && *u.host && u.path);
	for (p = u.host; *p; p++)
		FZ_ASSERT((unsigned char)*p > ' ' && *p != '/');
	FZ_ASSERT(*u.path == '/' || (!*u.path && u.scheme == LX_URL_9P));
	FZ_ASSERT(!strstr(u.path, "//"));
	if (u.scheme == LX_URL_NFS) {
		FZ_ASSERT(lx_url_nfs3_opts(&u, &no) == 0);
		FZ_ASSERT(no.host == u.host && no.export_path == u.path);
		FZ_ASSERT(no.nconnect <= 16);
		FZ_ASSERT(lx_url_p9_opts(&u, &po) == -EINVAL);
	} else {
		FZ_ASSERT(lx_url_p9_opts(&u, &po) == 0);
		FZ_ASSERT(po.host == u.host && po.aname == u.path);
		FZ_ASSERT(!po.msize || (po.msize >= LX_P9_MIN_MSIZE &&
					po.msize <= LX_P9_MAX_MSIZE));
		FZ_ASSERT(lx_url_nfs3_opts(&u, &no) == -EINVAL);
	}
	unparse(&u, again);
	ret = lx_url_parse(again, &v);
	/* escaping may lengthen it past the limit; otherwise the same */
	FZ_ASSERT(!ret || (ret == -ENAMETOOLONG && strlen(again) > LX_URL_MAX));
	if (!ret) {
		same(&u, &v);
		lx_url_free(&v);
	}
	check_split(&u, sel);
	lx_url_free(&u);
	FZ_ASSERT(!u.host && !u.root);
	return 0;
}

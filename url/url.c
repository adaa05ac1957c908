// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Server URLs: split SCHEME://[USER@]HOST[:PORT][/PATH][?ARGS] at its
 * delimiters first and %-decode each part after, so that an escaped '?',
 * '&', '=' or '/' stays data (libnfs decodes the whole string first, which
 * makes its own README's "my%3Fpath" split at the '?').  The arguments are
 * checked by url_args.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "url_int.h"

#define HOST_MAX 255 /* a DNS name's limit; addresses are shorter */

static void seterr(struct lx_url *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void seterr(struct lx_url *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->error, sizeof(u->error), fmt, ap);
	va_end(ap);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * %-decode [s, e) into a new string at *@out; @path: runs of '/' become
 * one.  @what names the part in a message.
 */
static int decode(struct lx_url *u, const char *s, const char *e, bool path,
		  const char *what, char **out)
{
	char *d = malloc((size_t)(e - s) + 1);
	size_t n = 0;
	int hi, lo;

	if (!d) {
		seterr(u, "out of memory");
		return -ENOMEM;
	}
	for (; s < e; s++) {
		char c = *s;

		if (c == '%') {
			hi = e - s > 2 ? hexval(s[1]) : -1;
			lo = hi >= 0 ? hexval(s[2]) : -1;
			if (lo < 0 || !(hi | lo)) {
				seterr(u,
				       "%s: '%.*s' is not a %%-escape of a "
				       "character (%%XX, not %%00)",
				       what, (int)(e - s < 3 ? e - s : 3), s);
				free(d);
				return -EINVAL;
			}
			c = (char)(hi << 4 | lo);
			s += 2;
		}
		if (path && c == '/' && n && d[n - 1] == '/')
			continue;
		d[n++] = c;
	}
	d[n] = '\0';
	*out = d;
	return 0;
}

/* [USER@]HOST[:PORT] in [s, e) */
static int parse_authority(struct lx_url *u, const char *s, const char *e)
{
	const char *at = memchr(s, '@', (size_t)(e - s)), *h, *hend, *p;
	unsigned long port = 0;
	int ret;

	if (at) {
		if (at == s || memchr(s, ':', (size_t)(at - s))) {
			seterr(u,
			       "'%.*s@': a user name, without a password, "
			       "goes before '@'",
			       (int)(at - s > 40 ? 40 : at - s), s);
			return -EINVAL;
		}
		ret = decode(u, s, at, false, "the user", &u->user);
		if (ret)
			return ret;
		s = at + 1;
	}
	if (*s == '[') {
		h = s + 1;
		hend = memchr(h, ']', (size_t)(e - h));
		if (!hend) {
			seterr(u, "'%.*s': an IPv6 address without its ']'",
			       (int)(e - s > 60 ? 60 : e - s), s);
			return -EINVAL;
		}
		p = hend + 1;
		if (p < e && *p != ':') {
			seterr(u, "'%.*s': only :PORT may follow ']'",
			       (int)(e - s > 60 ? 60 : e - s), s);
			return -EINVAL;
		}
	} else {
		h = s;
		hend = memchr(s, ':', (size_t)(e - s));
		if (hend && memchr(hend + 1, ':', (size_t)(e - hend - 1))) {
			seterr(u,
			       "'%.*s': an IPv6 address goes in brackets "
			       "([ADDRESS] or [ADDRESS]:PORT)",
			       (int)(e - s > 60 ? 60 : e - s), s);
			return -EINVAL;
		}
		if (!hend)
			hend = e;
		p = hend;
	}
	if (p < e) { /* ":PORT"; an empty one is no port (RFC 3986) */
		for (p++; p < e; p++) {
			if (*p < '0' || *p > '9' || port > 65535)
				break;
			port = port * 10 + (unsigned long)(*p - '0');
		}
		if (p < e || port > 65535 || (!port && p[-1] != ':')) {
			seterr(u,
			       "'%.*s': the port must be a number from 1 "
			       "to 65535",
			       (int)(e - s > 60 ? 60 : e - s), s);
			return -EINVAL;
		}
		u->port = (uint16_t)port;
	}
	ret = decode(u, h, hend, false, "the host", &u->host);
	if (ret)
		return ret;
	if (!*u->host || strlen(u->host) > HOST_MAX) {
		seterr(u, "the URL names no server (SCHEME://HOST/...)");
		return -EINVAL;
	}
	for (p = u->host; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '/' ||
		    *p == '@') {
			seterr(u, "host '%.60s': not a server name or address",
			       u->host);
			return -EINVAL;
		}
	}
	return 0;
}

/* KEY[=VALUE][&KEY[=VALUE]]... in [s, e) */
static int parse_query(struct lx_url *u, const char *s, const char *e)
{
	const char *amp, *eq, *p;
	unsigned int n = 1;
	struct lx_url_arg *a;
	int ret;

	for (p = s; p < e; p++)
		n += *p == '&';
	u->args = calloc(n, sizeof(*u->args));
	if (!u->args) {
		seterr(u, "out of memory");
		return -ENOMEM;
	}
	for (; s < e; s = amp + 1) {
		amp = memchr(s, '&', (size_t)(e - s));
		if (!amp)
			amp = e;
		if (amp == s)
			continue; /* "&&", a trailing '&' */
		eq = memchr(s, '=', (size_t)(amp - s));
		if (eq == s) {
			seterr(u, "'%.*s': an argument without a name",
			       (int)(amp - s > 40 ? 40 : amp - s), s);
			return -EINVAL;
		}
		a = &u->args[u->nargs++];
		ret = decode(u, s, eq ? eq : amp, false, "an argument's name",
			     &a->key);
		if (!ret)
			ret = decode(u, eq ? eq + 1 : amp, amp, false,
				     "an argument's value", &a->value);
		if (ret)
			return ret;
		if (amp == e)
			break;
	}
	return 0;
}

int lx_url_parse(const char *url, struct lx_url *u)
{
	const char *sep, *auth, *path, *q, *end;
	char err[sizeof(u->error)];
	size_t len;
	int ret;

	if (!u)
		return -EINVAL;
	memset(u, 0, sizeof(*u));
	if (!url) {
		seterr(u, "no URL");
		return -EINVAL;
	}
	len = strlen(url);
	if (len > LX_URL_MAX) {
		seterr(u, "the URL is longer than %u bytes", LX_URL_MAX);
		return -ENAMETOOLONG;
	}
	end = url + len;
	sep = strstr(url, "://");
	if (!sep || sep == url) {
		seterr(u,
		       "'%.60s' is not a URL (nfs://HOST/EXPORT or "
		       "9p://HOST/ANAME)",
		       url);
		return -EINVAL;
	}
	if (sep - url == 3 && !strncasecmp(url, "nfs", 3)) {
		u->scheme = LX_URL_NFS;
	} else if (sep - url == 2 && !strncasecmp(url, "9p", 2)) {
		u->scheme = LX_URL_9P;
	} else {
		seterr(u, "'%.*s://': libxprt reads nfs:// and 9p:// URLs",
		       (int)(sep - url > 20 ? 20 : sep - url), url);
		return -EPROTONOSUPPORT;
	}
	auth = sep + 3;
	path = auth + strcspn(auth, "/?");
	q = strchr(path, '?');
	ret = parse_authority(u, auth, path);
	if (!ret)
		ret = decode(u, path, q ? q : end, true, "the path", &u->path);
	if (!ret && u->scheme == LX_URL_NFS && !*u->path) {
		seterr(u, "nfs://%.60s names no export (nfs://HOST/EXPORT)",
		       u->host);
		ret = -EINVAL;
	}
	if (!ret && q)
		ret = parse_query(u, q + 1, end);
	if (!ret) {
		ret = lx_url__check_args(u, err, sizeof(err));
		if (ret)
			seterr(u, "%s", err);
	}
	if (ret) {
		memcpy(err, u->error, sizeof(err));
		lx_url_free(u);
		memcpy(u->error, err, sizeof(err));
	}
	return ret;
}

void lx_url_free(struct lx_url *u)
{
	unsigned int i;

	if (!u)
		return;
	for (i = 0; i < u->nargs; i++) {
		free(u->args[i].key);
		free(u->args[i].value);
	}
	free(u->args);
	free(u->user);
	free(u->host);
	free(u->path);
	free(u->root);
	memset(u, 0, sizeof(*u));
}

int lx_url_split(struct lx_url *u, const char *root)
{
	const char *path, *rest;
	size_t rlen;

	if (!u || !u->path)
		return -EINVAL;
	free(u->root);
	u->root = NULL;
	u->file = NULL;
	u->error[0] = '\0';
	path = u->path;
	if (root && *root) {
		rlen = strlen(root);
		while (rlen > 1 && root[rlen - 1] == '/')
			rlen--;
		if (rlen == 1 && root[0] == '/') {
			rest = path + (*path == '/');
		} else if (strncmp(path, root, rlen) ||
			   (path[rlen] != '/' && path[rlen])) {
			seterr(u, "%.80s is not under %.80s", path, root);
			return -EINVAL;
		} else {
			rest = path[rlen] ? path + rlen + 1 : path + rlen;
		}
	} else {
		rest = strrchr(path, '/');
		if (!rest) {
			seterr(u, "the URL has no path to split");
			return -EINVAL;
		}
		root = path;
		rlen = rest > path ? (size_t)(rest - path) : 1;
		rest++;
	}
	if (!*rest) {
		seterr(u, "%.80s names no file below %.*s", path,
		       (int)(rlen > 80 ? 80 : rlen), root);
		return -EINVAL;
	}
	u->root = strndup(root, rlen);
	if (!u->root) {
		seterr(u, "out of memory");
		return -ENOMEM;
	}
	u->file = rest;
	return 0;
}

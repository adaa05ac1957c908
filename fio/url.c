/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's URLs: nfs://HOST[:PORT]/PATH[?ARG=VALUE&...] in libnfs's
 * form, and 9p://HOST[:PORT]/ANAME[?ARG=VALUE&...] of the same shape.
 * A minimal parser of the engine's own, until the library's public one
 * (libxprt/url.h) is there to replace it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lxfio.h"

/* %-decode [s, e) into @out of @len bytes */
static int decode(const char *s, const char *e, char *out, size_t len)
{
	size_t n = 0;

	for (; s < e; s++) {
		char c = *s;

		if (c == '%') {
			char hex[3] = {0};

			if (e - s < 3 || !isxdigit((unsigned char)s[1]) ||
			    !isxdigit((unsigned char)s[2]))
				return -EINVAL;
			memcpy(hex, s + 1, 2);
			c = (char)strtol(hex, NULL, 16);
			s += 2;
		}
		if (n + 1 >= len || !c)
			return -EINVAL;
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

int lxfio_url_parse(const char *s, struct lxfio_url *u)
{
	const char *p, *host, *hend, *path, *q, *amp, *eq;
	size_t n;

	memset(u, 0, sizeof(*u));
	p = s ? strstr(s, "://") : NULL;
	if (!p || p == s || (size_t)(p - s) >= sizeof(u->scheme))
		return -EINVAL;
	for (n = 0; s + n < p; n++)
		u->scheme[n] = (char)tolower((unsigned char)s[n]);
	host = p + 3;
	path = host + strcspn(host, "/?");
	q = strchr(path, '?');
	if (*host == '[') {
		hend = memchr(host, ']', (size_t)(path - host));
		if (!hend || decode(host + 1, hend, u->host, sizeof(u->host)))
			return -EINVAL;
		p = hend + 1;
	} else {
		hend = memchr(host, ':', (size_t)(path - host));
		p = hend ? hend : path;
		if (decode(host, p, u->host, sizeof(u->host)))
			return -EINVAL;
	}
	if (!u->host[0])
		return -EINVAL;
	if (*p == ':') {
		char *end;
		unsigned long port = strtoul(p + 1, &end, 10);

		if (end != path || !port || port > 65535)
			return -EINVAL;
		u->port = (uint16_t)port;
	} else if (p != path) {
		return -EINVAL;
	}
	if (decode(path, q ? q : path + strlen(path), u->path, sizeof(u->path)))
		return -EINVAL;
	for (p = q ? q + 1 : NULL; p && *p; p = amp ? amp + 1 : NULL) {
		const char *end;

		amp = strchr(p, '&');
		end = amp ? amp : p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		if (u->nargs == LXFIO_URL_MAX_ARGS)
			return -EINVAL;
		if (decode(p, eq ? eq : end, u->args[u->nargs].key,
			   sizeof(u->args[0].key)) ||
		    (eq && decode(eq + 1, end, u->args[u->nargs].value,
				  sizeof(u->args[0].value))))
			return -EINVAL;
		u->nargs++;
	}
	return 0;
}

const char *lxfio_url_arg(const struct lxfio_url *u, const char *key)
{
	const char *v = NULL;
	unsigned int i;

	for (i = 0; i < u->nargs; i++)
		if (!strcmp(u->args[i].key, key))
			v = u->args[i].value;
	return v;
}

int lxfio_url_num(const struct lxfio_url *u, const char *key, uint64_t max,
		  uint64_t dflt, uint64_t *v)
{
	const char *s = lxfio_url_arg(u, key);
	char *end;

	*v = dflt;
	if (!s)
		return 0;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (!*s || *end || errno || *v > max)
		return -EINVAL;
	return 0;
}

int lxfio_url_transport(const struct lxfio_url *u)
{
	const char *s = lxfio_url_arg(u, "transport");

	if (!s || !strcmp(s, "tcp"))
		return LX_XPRT_TRANSPORT_TCP;
	if (!strcmp(s, "rdma"))
		return LX_XPRT_TRANSPORT_RDMA;
	return -EINVAL;
}

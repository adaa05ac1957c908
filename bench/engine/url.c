/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Server URLs: libnfs's nfs://server[:port]/path?key=value&... (the form
 * the libnfs tools and the project's test harness write), and p9-bench's
 * 9p:// of the same shape.  The engine splits them and takes the
 * parameters every back-end shares (uid, gid, transport); the back-end
 * reads the rest (bench_backend_ops.url).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine_int.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* %-decode [s, e) into @out (@len bytes) */
static int decode(const char *s, const char *e, char *out, size_t len)
{
	size_t n = 0;
	int hi, lo;

	for (; s < e; s++) {
		char c = *s;

		if (c == '%') {
			if (e - s < 3 || (hi = hexval(s[1])) < 0 ||
			    (lo = hexval(s[2])) < 0)
				return -EINVAL;
			c = (char)(hi << 4 | lo);
			s += 2;
		}
		if (n + 1 >= len || !c)
			return -EINVAL;
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

int bench_url_parse(const char *s, struct bench_url *u)
{
	const char *p, *host, *hend, *path, *q, *amp, *eq;
	uint64_t port;
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
	if (*host == '[') { /* [v6]:port */
		hend = memchr(host, ']', (size_t)(path - host));
		if (!hend)
			return -EINVAL;
		if (decode(host + 1, hend, u->host, sizeof(u->host)))
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
		char num[8];

		if (path - p - 1 <= 0 || path - p - 1 >= (long)sizeof(num))
			return -EINVAL;
		memcpy(num, p + 1, (size_t)(path - p - 1));
		num[path - p - 1] = '\0';
		if (bench_parse_u64(num, 65535, &port) || !port)
			return -EINVAL;
		u->port = (uint16_t)port;
	} else if (p != path) {
		return -EINVAL;
	}
	if (decode(path, q ? q : path + strlen(path), u->path, sizeof(u->path)))
		return -EINVAL;
	if (!u->path[0])
		strcpy(u->path, "/");
	for (p = q ? q + 1 : NULL; p && *p; p = amp ? amp + 1 : NULL) {
		amp = strchr(p, '&');
		eq = strchr(p, '=');
		if (!eq || (amp && eq > amp) ||
		    u->nparams == BENCH_URL_MAX_PARAMS)
			return -EINVAL;
		if (decode(p, eq, u->params[u->nparams].key,
			   sizeof(u->params[0].key)) ||
		    decode(eq + 1, amp ? amp : eq + 1 + strlen(eq + 1),
			   u->params[u->nparams].value,
			   sizeof(u->params[0].value)))
			return -EINVAL;
		u->nparams++;
	}
	return 0;
}

/* take uid, gid, transport: the engine's own settings */
static int take_engine_params(struct bench *b, struct bench_url *u)
{
	unsigned int i, k = 0;
	uint64_t v;

	for (i = 0; i < u->nparams; i++) {
		const char *key = u->params[i].key, *val = u->params[i].value;

		if (!strcmp(key, "uid") || !strcmp(key, "gid")) {
			if (bench_parse_u64(val, UINT32_MAX, &v)) {
				bench_error("URL: %s=%s is not a number", key,
					    val);
				return -EINVAL;
			}
			if (key[0] == 'u')
				b->o.uid = (uint32_t)v;
			else
				b->o.gid = (uint32_t)v;
		} else if (!strcmp(key, "transport")) {
			if (!strcmp(val, "rdma"))
				b->o.transport = BENCH_TRANSPORT_RDMA;
			else if (!strcmp(val, "tcp"))
				b->o.transport = BENCH_TRANSPORT_TCP;
			else {
				bench_error("URL: transport=%s is not tcp or "
					    "rdma",
					    val);
				return -EINVAL;
			}
		} else {
			u->params[k++] = u->params[i];
		}
	}
	u->nparams = k;
	return 0;
}

/**
 * bench_url_is() - @s is a URL of the back-end's scheme
 */
bool bench_url_is(const struct bench *b, const char *s)
{
	size_t n;

	if (!b->ops->url || !b->ops->url_scheme || !s)
		return false;
	n = strlen(b->ops->url_scheme);
	return !strncasecmp(s, b->ops->url_scheme, n) &&
	       !strncmp(s + n, "://", 3);
}

/**
 * bench_url_apply() - a --server (@file NULL) or --filename URL: the
 * engine's parameters, then the back-end's
 * Return: 0 or -EINVAL after a message.
 */
int bench_url_apply(struct bench *b, const char *s, char *file, size_t len)
{
	struct bench_url *u = malloc(sizeof(*u));
	int ret;

	if (!u)
		return -ENOMEM;
	ret = bench_url_parse(s, u);
	if (ret) {
		bench_error("'%s' is not a URL of the form %s://SERVER[:PORT]"
			    "/PATH[?KEY=VALUE&...]",
			    s, b->ops->url_scheme);
		goto out;
	}
	ret = take_engine_params(b, u);
	if (!ret)
		ret = b->ops->url(b->priv, u, file, len);
out:
	free(u);
	return ret;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The arguments of a URL's query: one table per scheme, each row naming
 * the options field it sets and how its value reads.  lx_url_parse() runs
 * a URL's arguments through the table on scratch options, so that a
 * wrong one is reported once, at parse time, by name; lx_url_nfs3_opts()
 * and lx_url_p9_opts() run them again on the caller's options, where they
 * cannot fail.
 *
 * libnfs's own arguments are in the NFS table too: the ones whose absence
 * changes no outcome (caches, hints, what libxprt does anyway) are
 * checked and dropped; the ones that would change one are refused by
 * name, since a tool that asked for read-only or Kerberos must not get
 * a client that is neither.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "url_int.h"

enum kind {
	K_NUM,	  /* decimal in [min, max], stored times mul */
	K_SIZE,	  /* bytes with an optional k/m/g suffix, in [min, max] */
	K_FLAG,	  /* no value: the field becomes min */
	K_IGNORE, /* libnfs's, without effect here: an integer in [min, max] */
	K_REFUSE, /* libnfs's, that libxprt cannot honour: -ENOTSUP */
	K_FN,	  /* its own reader */
};

struct arg;
typedef int (*arg_fn)(const struct arg *a, void *o, const char *val, char *err,
		      size_t len);

/*
 * @what: the value's description in messages ("a port"), or for K_REFUSE
 * the reason
 */
struct arg {
	const char *key;
	enum kind kind;
	size_t off, size;
	long long min, max;
	unsigned int mul;
	arg_fn fn;
	const char *what;
};

#define NFS(f) \
	offsetof(struct lx_nfs3_opts, f), sizeof(((struct lx_nfs3_opts *)0)->f)
#define P9(f) \
	offsetof(struct lx_p9_opts, f), sizeof(((struct lx_p9_opts *)0)->f)

static void store(void *o, const struct arg *a, unsigned long long v)
{
	char *p = (char *)o + a->off;

	switch (a->size) {
	case 1: {
		bool b = v != 0;

		memcpy(p, &b, 1);
		break;
	}
	case 2: {
		uint16_t x = (uint16_t)v;

		memcpy(p, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;

		memcpy(p, &x, 4);
		break;
	}
	default: {
		uint64_t x = v;

		memcpy(p, &x, 8);
		break;
	}
	}
}

/* a decimal integer, the whole of @s */
static int read_int(const char *s, long long *v)
{
	char *end;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -EINVAL;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* bytes: N, Nk, Nm, Ng (KiB, MiB, GiB) */
static int read_size(const char *s, long long *v)
{
	unsigned int shift = 0;
	char *end;
	unsigned long long n;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (shift && end[1])
		return -EINVAL;
	if (n > (1ull << 40) >> shift)
		return -EINVAL;
	*v = (long long)(n << shift);
	return 0;
}

static int range(const struct arg *a, const char *val, long long v, char *err,
		 size_t len)
{
	if (v >= a->min && v <= a->max)
		return 0;
	snprintf(err, len, "%s=%.40s: %s must be %s from %lld to %lld", a->key,
		 val, a->key, a->what, a->min, a->max);
	return -EINVAL;
}

static int fn_transport(const struct arg *a, void *o, const char *val,
			char *err, size_t len)
{
	if (!strcmp(val, "tcp"))
		store(o, a, LX_XPRT_TRANSPORT_TCP);
	else if (!strcmp(val, "rdma"))
		store(o, a, LX_XPRT_TRANSPORT_RDMA);
	else {
		snprintf(err, len, "transport=%.40s: tcp or rdma", val);
		return -EINVAL;
	}
	return 0;
}

/* uid= and gid= over AUTH_SYS: the one not given is the process's own */
static int fn_nfs_id(const struct arg *a, void *o, const char *val, char *err,
		     size_t len)
{
	struct lx_nfs3_opts *no = o;
	long long v;

	if (read_int(val, &v) || v < 0 || v > UINT32_MAX) {
		snprintf(err, len, "%s=%.40s: %s must be a number from 0 to %u",
			 a->key, val, a->key, UINT32_MAX);
		return -EINVAL;
	}
	if (!no->set_ids) {
		no->set_ids = true;
		no->uid = (uint32_t)getuid();
		no->gid = (uint32_t)getgid();
	}
	store(o, a, (unsigned long long)v);
	return 0;
}

static int fn_nfs_version(const struct arg *a, void *o, const char *val,
			  char *err, size_t len)
{
	(void)a;
	(void)o;
	if (!strcmp(val, "3"))
		return 0;
	snprintf(err, len,
		 "version=%.40s: libxprt speaks NFS version 3 only (version=3)",
		 val);
	return -EPROTONOSUPPORT;
}

static int fn_p9_version(const struct arg *a, void *o, const char *val,
			 char *err, size_t len)
{
	(void)a;
	(void)o;
	if (!strcasecmp(val, "9p2000.L"))
		return 0;
	snprintf(err, len, "version=%.40s: libxprt speaks 9P2000.L only", val);
	return -EPROTONOSUPPORT;
}

static int fn_sec(const struct arg *a, void *o, const char *val, char *err,
		  size_t len)
{
	if (!strcmp(val, "sys") || !strcmp(val, "none")) {
		store(o, a, val[0] == 'n');
		return 0;
	}
	if (!strncmp(val, "krb5", 4)) {
		snprintf(err, len,
			 "sec=%.40s: libxprt has no Kerberos (RPCSEC_GSS); "
			 "sec=sys or sec=none",
			 val);
		return -ENOTSUP;
	}
	snprintf(err, len, "sec=%.40s: sys or none", val);
	return -EINVAL;
}

static int fn_xprtsec(const struct arg *a, void *o, const char *val, char *err,
		      size_t len)
{
	(void)a;
	(void)o;
	if (!strcmp(val, "none"))
		return 0;
	if (!strcmp(val, "tls") || !strcmp(val, "mtls")) {
		snprintf(err, len,
			 "xprtsec=%s: libxprt has no RPC-with-TLS; "
			 "xprtsec=none",
			 val);
		return -ENOTSUP;
	}
	snprintf(err, len, "xprtsec=%.40s: none, tls or mtls", val);
	return -EINVAL;
}

/* 0 is nfs(5)'s "no retransmission", not the options' "default" */
static int fn_retrans(const struct arg *a, void *o, const char *val, char *err,
		      size_t len)
{
	long long v;

	if (read_int(val, &v))
		v = -1;
	if (range(a, val, v, err, len))
		return -EINVAL;
	store(o, a, v ? (unsigned long long)v : LX_RPC_NO_RETRANS);
	return 0;
}

static int fn_jukebox_retries(const struct arg *a, void *o, const char *val,
			      char *err, size_t len)
{
	long long v;

	if (!strcmp(val, "forever")) {
		store(o, a, LX_NFS3_JUKEBOX_FOREVER);
		return 0;
	}
	if (read_int(val, &v) || v < a->min || v > a->max) {
		snprintf(err, len,
			 "jukebox-retries=%.40s: a number from %lld to %lld, "
			 "or forever",
			 val, a->min, a->max);
		return -EINVAL;
	}
	store(o, a, (unsigned long long)v);
	return 0;
}

/* libnfs: 1 (its default) crosses into nested exports; we never do */
static int fn_traverse(const struct arg *a, void *o, const char *val, char *err,
		       size_t len)
{
	(void)a;
	(void)o;
	if (!strcmp(val, "0"))
		return 0;
	if (!strcmp(val, "1")) {
		snprintf(err, len,
			 "auto-traverse-mounts=1: libxprt does not cross "
			 "into nested exports (auto-traverse-mounts=0)");
		return -ENOTSUP;
	}
	snprintf(err, len, "auto-traverse-mounts=%.40s: 0 or 1", val);
	return -EINVAL;
}

/* libnfs: -1 reconnects for ever, as the transports here do */
static int fn_autoreconnect(const struct arg *a, void *o, const char *val,
			    char *err, size_t len)
{
	long long v;

	(void)a;
	(void)o;
	if (read_int(val, &v) || v < -1 || v > INT_MAX) {
		snprintf(err, len, "autoreconnect=%.40s: -1, 0 or a count",
			 val);
		return -EINVAL;
	}
	if (v == -1)
		return 0;
	snprintf(err, len,
		 "autoreconnect=%s: libxprt always reconnects "
		 "(autoreconnect=-1); soft calls fail after timeo and retrans",
		 val);
	return -ENOTSUP;
}

/* libnfs: COUNT or DIRCOUNT,MAXCOUNT; READDIRPLUS sizes, a hint */
static int fn_readdir_buffer(const struct arg *a, void *o, const char *val,
			     char *err, size_t len)
{
	const char *comma = strchr(val, ',');
	char first[24];
	long long v;
	size_t n = comma ? (size_t)(comma - val) : strlen(val);

	(void)a;
	(void)o;
	if (n < sizeof(first)) {
		memcpy(first, val, n);
		first[n] = '\0';
		if (!read_int(first, &v) && v >= 0 && v <= UINT32_MAX &&
		    (!comma ||
		     (!read_int(comma + 1, &v) && v >= 0 && v <= UINT32_MAX)))
			return 0;
	}
	snprintf(err, len,
		 "readdir-buffer=%.40s: COUNT or DIRCOUNT,MAXCOUNT in bytes",
		 val);
	return -EINVAL;
}

static const struct arg nfs_args[] = {
	{"uid", K_FN, NFS(uid), 0, 0, 0, fn_nfs_id, NULL},
	{"gid", K_FN, NFS(gid), 0, 0, 0, fn_nfs_id, NULL},
	{"version", K_FN, 0, 0, 0, 0, 0, fn_nfs_version, NULL},
	{"nfsport", K_NUM, NFS(nfs_port), 1, 65535, 1, NULL, "a port"},
	{"mountport", K_NUM, NFS(mount_port), 1, 65535, 1, NULL, "a port"},
	{"transport", K_FN, NFS(transport), 0, 0, 0, fn_transport, NULL},
	{"nconnect", K_NUM, NFS(nconnect), 1, 16, 1, NULL, "a number"},
	{"max-reqs", K_NUM, NFS(max_reqs), 1, 65535, 1, NULL, "a number"},
	{"timeo", K_NUM, NFS(timeo_ms), 1, 36000, 100, NULL,
	 "tenths of a second"},
	{"retrans", K_FN, NFS(retrans), 0, 1000, 1, fn_retrans, "a number"},
	{"hard", K_FLAG, NFS(hard), 1, 0, 0, NULL, NULL},
	{"soft", K_FLAG, NFS(hard), 0, 0, 0, NULL, NULL},
	{"rsize", K_SIZE, NFS(rsize), 4096, 1ll << 30, 1, NULL, "a size"},
	{"wsize", K_SIZE, NFS(wsize), 4096, 1ll << 30, 1, NULL, "a size"},
	{"sec", K_FN, NFS(auth_none), 0, 0, 0, fn_sec, NULL},
	{"jukebox-delay", K_NUM, NFS(jukebox_delay_ms), 1, 3600000, 1, NULL,
	 "milliseconds"},
	{"jukebox-retries", K_FN, NFS(jukebox_retries), 1, 1000000, 1,
	 fn_jukebox_retries, NULL},
	{"zerocopy", K_FLAG, NFS(zerocopy), 1, 0, 0, NULL, NULL},
	/* libnfs's, checked and dropped */
	{"tcp-syncnt", K_IGNORE, 0, 0, 0, INT_MAX, 0, NULL, "a number"},
	{"debug", K_IGNORE, 0, 0, 0, INT_MAX, 0, NULL, "a number"},
	{"readahead", K_IGNORE, 0, 0, 0, UINT32_MAX, 0, NULL, "a size"},
	{"pagecache", K_IGNORE, 0, 0, 0, UINT32_MAX, 0, NULL, "a number"},
	{"dircache", K_IGNORE, 0, 0, 0, 1, 0, NULL, "a number"},
	{"readdir-buffer", K_FN, 0, 0, 0, 0, 0, fn_readdir_buffer, NULL},
	{"xprtsec", K_FN, 0, 0, 0, 0, 0, fn_xprtsec, NULL},
	{"auto-traverse-mounts", K_FN, 0, 0, 0, 0, 0, fn_traverse, NULL},
	{"autoreconnect", K_FN, 0, 0, 0, 0, 0, fn_autoreconnect, NULL},
	/* libnfs's, that would change the outcome */
	{"if", K_REFUSE, 0, 0, 0, 0, 0, NULL,
	 "libxprt does not bind to an interface"},
	{"readonly", K_REFUSE, 0, 0, 0, 0, 0, NULL,
	 "libxprt has no read-only mode"},
};

static const struct arg p9_args[] = {
	{"uname", K_FN, 0, 0, 0, 0, 0, NULL, NULL}, /* lx_url_p9_opts() */
	{"uid", K_NUM, P9(n_uname), 0, UINT32_MAX, 1, NULL, "a number"},
	{"gid", K_NUM, P9(n_gid), 0, UINT32_MAX, 1, NULL, "a number"},
	{"version", K_FN, 0, 0, 0, 0, 0, fn_p9_version, NULL},
	{"transport", K_FN, P9(transport), 0, 0, 0, fn_transport, NULL},
	{"msize", K_SIZE, P9(msize), LX_P9_MIN_MSIZE, LX_P9_MAX_MSIZE, 1, NULL,
	 "a size"},
	{"max-reqs", K_NUM, P9(max_reqs), 2, 65535, 1, NULL, "a number"},
	{"max-fids", K_NUM, P9(max_fids), 2, 65535, 1, NULL, "a number"},
	{"timeo", K_NUM, P9(timeout_ms), 1, 36000, 100, NULL,
	 "tenths of a second"},
	{"zerocopy", K_FLAG, P9(zerocopy), 1, 0, 0, NULL, NULL},
};

static const struct arg *find(enum lx_url_scheme scheme, const char *key)
{
	const struct arg *t = scheme == LX_URL_NFS ? nfs_args : p9_args;
	size_t i, n = scheme == LX_URL_NFS ?
			      sizeof(nfs_args) / sizeof(nfs_args[0]) :
			      sizeof(p9_args) / sizeof(p9_args[0]);

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].key, key))
			return &t[i];
	return NULL;
}

/* apply one argument to options @o (of @scheme's type) */
static int apply(enum lx_url_scheme scheme, const struct lx_url_arg *ua,
		 void *o, char *err, size_t len)
{
	const struct arg *a = find(scheme, ua->key);
	const char *val = ua->value;
	long long v;

	if (!a) {
		snprintf(err, len, "'%.40s' is not an argument of %s:// URLs",
			 ua->key, scheme == LX_URL_NFS ? "nfs" : "9p");
		return -EINVAL;
	}
	if (a->kind == K_FLAG) {
		if (*val) {
			snprintf(err, len, "%s=%.40s: %s takes no value",
				 a->key, val, a->key);
			return -EINVAL;
		}
		store(o, a, (unsigned long long)a->min);
		return 0;
	}
	if (a->kind == K_REFUSE) {
		snprintf(err, len, "%s: %s", a->key, a->what);
		return -ENOTSUP;
	}
	if (!*val) {
		snprintf(err, len, "%s: a value is needed (%s=...)", a->key,
			 a->key);
		return -EINVAL;
	}
	switch (a->kind) {
	case K_NUM:
	case K_IGNORE:
		if (read_int(val, &v))
			v = a->min - 1;
		if (range(a, val, v, err, len))
			return -EINVAL;
		if (a->kind == K_NUM)
			store(o, a, (unsigned long long)v * a->mul);
		return 0;
	case K_SIZE:
		if (read_size(val, &v))
			v = a->min - 1;
		if (range(a, val, v, err, len))
			return -EINVAL;
		store(o, a, (unsigned long long)v);
		return 0;
	default:
		/* uname has none: a string, lx_url_p9_opts() takes it */
		return a->fn ? a->fn(a, o, val, err, len) : 0;
	}
}

static int apply_all(const struct lx_url *u, void *o, char *err, size_t len)
{
	unsigned int i;
	int ret;

	for (i = 0; i < u->nargs; i++) {
		ret = apply(u->scheme, &u->args[i], o, err, len);
		if (ret)
			return ret;
	}
	return 0;
}

int lx_url__check_args(struct lx_url *u, char *err, size_t len)
{
	struct lx_nfs3_opts no = {0};
	struct lx_p9_opts po = {0};

	return apply_all(u, u->scheme == LX_URL_NFS ? (void *)&no : (void *)&po,
			 err, len);
}

int lx_url_nfs3_opts(const struct lx_url *u, struct lx_nfs3_opts *o)
{
	char err[sizeof(u->error)];

	if (!u || !o || u->scheme != LX_URL_NFS || !u->host || !u->path)
		return -EINVAL;
	o->host = u->host;
	o->export_path = u->root ? u->root : u->path;
	if (u->port)
		o->nfs_port = u->port;
	return apply_all(u, o, err, sizeof(err));
}

int lx_url_p9_opts(const struct lx_url *u, struct lx_p9_opts *o)
{
	char err[sizeof(u->error)];
	unsigned int i;

	if (!u || !o || u->scheme != LX_URL_9P || !u->host || !u->path)
		return -EINVAL;
	o->host = u->host;
	o->aname = u->root ? u->root : u->path;
	if (u->port)
		o->port = u->port;
	if (u->user)
		o->uname = u->user;
	for (i = 0; i < u->nargs; i++)
		if (!strcmp(u->args[i].key, "uname"))
			o->uname = u->args[i].value;
	return apply_all(u, o, err, sizeof(err));
}

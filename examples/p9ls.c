// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p9ls: list a directory of a 9P2000.L server (diod, nfs-ganesha, QEMU's
 * virtfs proxy...) through libxprt, like ls.  An example of a tool built
 * on the installed library:
 *
 *   cc -o p9ls p9ls.c $(pkg-config --cflags --libs libxprt)
 *
 *   p9ls -A /srv/export server            # the root of the attached tree
 *   p9ls -l -p 5640 -A /export server dir # long listing of dir
 *   p9ls -l '9p://server:5640/export?msize=256k' dir    # the same, a URL
 *
 * It uses the path helpers of <libxprt/p9.h>: lx_p9_create() (Tversion and
 * Tattach), lx_p9_opendir() / lx_p9_readdir_next() (Treaddir, the entries of
 * one reply at a time), lx_p9_stat_path() (Twalk + Tgetattr + Tclunk) and,
 * for symbolic links, lx_p9_walk_path() + lx_p9_readlink().  Every call is
 * synchronous; see rpcping.c for asynchronous calls.  A 9p:// URL is read
 * by <libxprt/url.h> (lx_url_parse(), lx_url_p9_opts()).
 *
 * Names are printed escaped, so that a name a server made up can be told
 * from a real one: a backslash as \\, and a byte below 0x20, 0x7f, a '/'
 * or a NUL (which no real file name holds) as \ and three octal digits.
 * An entry whose name holds a '/' or a NUL is not looked up (-l).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt(), strdup() */
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxprt/p9.h>
#include <libxprt/url.h>

struct opts {
	bool lng, all, classify;
};

static void usage(FILE *f, const char *me)
{
	fprintf(f,
		"usage: %s [options] HOST|URL [PATH...]\n"
		"List directories of a 9P2000.L server through libxprt.\n"
		"PATH is relative to the attached tree (default: its root).\n"
		"URL: 9p://[UNAME@]HOST[:PORT]/ANAME[?msize=SIZE&uid=N&"
		"transport=rdma...]\n"
		"     (see libxprt(3)); it overrides -p, -A, -u and -m\n"
		"options:\n"
		"  -p PORT     server port [564]\n"
		"  -A ANAME    the tree to attach: diod wants the exported "
		"directory,\n"
		"              ganesha its pseudo path (/export) [\"\"]\n"
		"  -u UID      numeric user sent in Tattach [the caller's]\n"
		"  -m MSIZE    largest 9P message to offer [65536]\n"
		"  -l          long listing: type and mode, links, owner, size, "
		"time\n"
		"  -a          show . and .. too\n"
		"  -F          append / to directories, @ to links\n"
		"  -h          this help\n"
		"Exit status: 0 listed, 1 failed, 2 usage error.\n",
		me);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @s[0..len) escaped (see the top), in a new string */
static char *escape(const char *s, size_t len)
{
	char *out = malloc(4 * len + 1), *p = out;
	unsigned char b;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < len; i++) {
		b = (unsigned char)s[i];
		if (b == '\\') {
			*p++ = '\\';
			*p++ = '\\';
		} else if (b < 0x20 || b == 0x7f || b == '/') {
			p += sprintf(p, "\\%03o", b);
		} else {
			*p++ = (char)b;
		}
	}
	*p = '\0';
	return out;
}

static void mode_str(uint32_t m, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	out[0] = S_ISDIR(m)  ? 'd' :
		 S_ISLNK(m)  ? 'l' :
		 S_ISCHR(m)  ? 'c' :
		 S_ISBLK(m)  ? 'b' :
		 S_ISFIFO(m) ? 'p' :
		 S_ISSOCK(m) ? 's' :
			       '-';
	for (i = 0; i < 9; i++)
		out[i + 1] = m & (1u << (8 - i)) ? rwx[i] : '-';
	out[10] = '\0';
}

static void join(char *out, size_t len, const char *dir, const char *name)
{
	if (!*dir)
		snprintf(out, len, "%s", name);
	else
		snprintf(out, len, "%s/%s", dir, name);
}

/* One line of the listing; @path is the entry's path from the root (NULL:
 * a name no path can hold, not looked up), @name as printed. */
static int show(struct lx_p9_clnt *c, const struct opts *o, const char *path,
		const char *name, uint8_t qtype)
{
	struct lx_p9_attr at;
	char mode[11], when[32], target[4096] = "";
	const char *mark = "";
	struct tm tm;
	time_t t;
	uint32_t fid;
	int ret;

	if (!o->lng) {
		if (o->classify)
			mark = qtype & LX_P9_QTDIR	    ? "/" :
			       qtype & LX_P9_QTSYMLINK ? "@" :
						      "";
		printf("%s%s\n", name, mark);
		return 0;
	}
	if (!path) {
		fprintf(stderr, "p9ls: %s: the server sent a name holding a "
			"'/' or a NUL: not looked up\n", name);
		return -EINVAL;
	}
	ret = lx_p9_stat_path(c, path, LX_P9_GETATTR_BASIC, &at);
	if (ret) {
		fprintf(stderr, "p9ls: %s: %s\n", path, lx_strerror(ret));
		return ret;
	}
	if (S_ISLNK(at.mode) && !lx_p9_walk_path(c, LX_P9_NOFID, path, &fid, NULL)) {
		if (lx_p9_readlink(c, fid, target, sizeof(target)))
			target[0] = '\0';
		lx_p9_clunk(c, fid);
	}
	if (o->classify)
		mark = S_ISDIR(at.mode) ? "/" : S_ISLNK(at.mode) ? "@" : "";
	mode_str(at.mode, mode);
	t = (time_t)at.mtime_sec;
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	printf("%s %3" PRIu64 " %5u %5u %10" PRIu64 " %s %s%s%s%s\n", mode,
	       at.nlink, at.uid, at.gid, at.size, when, name, mark,
	       target[0] ? " -> " : "", target);
	return 0;
}

/* List @path: a directory's entries sorted by name, or the file itself. */
static int list(struct lx_p9_clnt *c, const struct opts *o, const char *path)
{
	struct lx_p9_dirent e;
	struct lx_p9_dir *dir;
	struct {
		char *name; /* escaped, for printing and sorting */
		char *raw;  /* as sent; NULL when it holds a '/' or a NUL */
		uint8_t qtype;
	} *ents = NULL, *tmp;
	size_t n = 0, cap = 0, i;
	char full[4096], *name, *raw;
	int ret, status = 0;
	bool bad;

	ret = lx_p9_opendir(c, path, &dir);
	if (ret == -ENOTDIR)
		return show(c, o, path, path, 0) ? 1 : 0;
	if (ret) {
		fprintf(stderr, "p9ls: %s: %s\n", *path ? path : "/",
			lx_strerror(ret));
		return 1;
	}
	while ((ret = lx_p9_readdir_next(dir, &e)) == 1) {
		if (!o->all && e.name.len <= 2 && e.name.s[0] == '.' &&
		    (e.name.len == 1 || e.name.s[1] == '.'))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			tmp = realloc(ents, cap * sizeof(*ents));
			if (!tmp) {
				ret = -ENOMEM;
				break;
			}
			ents = tmp;
		}
		/* the name is valid until the next call: keep a copy */
		bad = memchr(e.name.s, '/', e.name.len) ||
		      memchr(e.name.s, '\0', e.name.len);
		name = escape(e.name.s, e.name.len);
		raw = bad ? NULL : strndup(e.name.s, e.name.len);
		if (!name || (!bad && !raw)) {
			free(name);
			free(raw);
			ret = -ENOMEM;
			break;
		}
		ents[n].name = name;
		ents[n].raw = raw;
		ents[n].qtype = e.qid.type;
		n++;
	}
	lx_p9_closedir(dir);
	if (ret == -ELOOP)
		fprintf(stderr, "p9ls: %s: the server's directory offsets "
			"loop (it handed back one it gave before): listing "
			"stopped\n", *path ? path : "/");
	else if (ret == -E2BIG)
		fprintf(stderr, "p9ls: %s: more than 16 Mi entries: listing "
			"stopped\n", *path ? path : "/");
	else if (ret < 0)
		fprintf(stderr, "p9ls: %s: %s\n", *path ? path : "/",
			lx_strerror(ret));
	if (ret < 0)
		status = 1;
	if (n) /* an empty directory has no array */
		qsort(ents, n, sizeof(*ents), cmp_names);
	for (i = 0; i < n; i++) {
		join(full, sizeof(full), path, ents[i].raw ? ents[i].raw : "");
		if (show(c, o, ents[i].raw ? full : NULL, ents[i].name,
			 ents[i].qtype))
			status = 1;
		free(ents[i].name);
		free(ents[i].raw);
	}
	free(ents);
	return status;
}

/* The library prints nothing itself: its messages ("server HOST:PORT not
 * responding, still trying", "server HOST:PORT OK", why an RDMA
 * registration failed) come here, a line each, from any of its threads. */
static void say(void *arg, int level, const char *msg)
{
	(void)level;
	fprintf(stderr, "%s: %s\n", (const char *)arg, msg);
}

/* --help beside -h: the one long option every program answers */
static const struct option long_opts[] = {
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int main(int argc, char **argv)
{
	struct lx_p9_opts po = {.n_uname = (uint32_t)getuid()};
	struct opts o = {0};
	struct lx_p9_clnt *c;
	struct lx_url url = {0};
	char errbuf[256] = "";
	int ch, i, ret, status = 0;
	long v;

	while ((ch = getopt_long(argc, argv, "p:A:u:m:laFh", long_opts,
				  NULL)) != -1) {
		switch (ch) {
		case 'p':
		case 'u':
		case 'm':
			v = strtol(optarg, NULL, 10);
			if (v < 0 || (ch == 'p' && (v < 1 || v > 65535))) {
				fprintf(stderr, "p9ls: -%c %s: out of range\n",
					ch, optarg);
				return 2;
			}
			if (ch == 'p')
				po.port = (uint16_t)v;
			else if (ch == 'u')
				po.n_uname = (uint32_t)v;
			else
				po.msize = (uint32_t)v;
			break;
		case 'A':
			po.aname = optarg;
			break;
		case 'l':
			o.lng = true;
			break;
		case 'a':
			o.all = true;
			break;
		case 'F':
			o.classify = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr, argv[0]);
		return 2;
	}
	if (!strncasecmp(argv[optind], "9p://", 5)) {
		if (lx_url_parse(argv[optind], &url)) {
			fprintf(stderr, "p9ls: %s\n", url.error);
			return 2;
		}
		lx_url_p9_opts(&url, &po);
		optind++;
	} else {
		po.host = argv[optind++];
	}
	po.errbuf = errbuf;
	po.errbuf_len = sizeof(errbuf);
	po.log = say;
	po.log_arg = "p9ls";
	ret = lx_p9_create(&c, &po);
	if (ret) {
		fprintf(stderr, "p9ls: %s: %s\n", po.host,
			errbuf[0] ? errbuf : lx_strerror(ret));
		lx_url_free(&url);
		return 1;
	}
	lx_url_free(&url); /* lx_p9_create() copied what it keeps */
	if (optind >= argc)
		status = list(c, &o, "");
	for (i = optind; i < argc; i++) {
		if (argc - optind > 1)
			printf("%s%s:\n", i > optind ? "\n" : "", argv[i]);
		status |= list(c, &o, argv[i]);
	}
	lx_p9_destroy(c);
	return status;
}

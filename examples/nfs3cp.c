// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3cp: copy a file to or from an NFSv3 export through libxprt, without
 * mounting anything.  An example of a tool built on the installed library:
 *
 *   cc -o nfs3cp nfs3cp.c $(pkg-config --cflags --libs libxprt)
 *
 *   nfs3cp -s server -e /export big.iso :isos/big.iso     # upload
 *   nfs3cp -s server -e /export :isos/big.iso copy.iso    # download
 *   nfs3cp nfs://server/export/isos/big.iso copy.iso      # libnfs's URL
 *
 * An nfs:// URL is read by <libxprt/url.h>: lx_url_parse(), lx_url_split()
 * (where the export ends and the file begins) and lx_url_nfs3_opts().
 * It uses the blocking file helpers of <libxprt/nfs3.h>: lx_nfs3_create(),
 * lx_nfs3_open(), lx_nfs3_file_pread() and lx_nfs3_file_pwrite() (which split each
 * call at the server's rsize/wsize and keep the pieces in flight
 * together), and lx_nfs3_file_close(), which COMMITs the UNSTABLE writes and
 * checks the server's write verifier.  Should the server restart before
 * the COMMIT and lose data, the file asks for it again through the
 * resupply callback, which reads it back from the local source: nothing
 * has to be kept in memory meanwhile.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt(), pread() */
#endif
#include <errno.h>
#include <fcntl.h>
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

#include <libxprt/nfs3.h>
#include <libxprt/url.h>

struct opts {
	const char *host, *export_path;
	uint16_t nfs_port, mount_port;
	size_t chunk;
	unsigned int nconnect;
	bool stable, force, verbose;
};

static void usage(FILE *f, const char *me)
{
	fprintf(f,
		"usage: %s -s HOST -e EXPORT [options] SRC DST\n"
		"       %s [options] SRC DST   (one of them an nfs:// URL)\n"
		"Copy a file between this machine and an NFSv3 export, through "
		"libxprt.\n"
		"Exactly one of SRC and DST is on the server, written :PATH "
		"(relative to the\nexport's root):\n"
		"  %s -s HOST -e /export local.dat :dir/copy.dat   upload\n"
		"  %s -s HOST -e /export :dir/copy.dat local.dat   download\n"
		"or an nfs:// URL in libnfs's syntax instead of :PATH and "
		"-s/-e/-p/-m:\n"
		"  nfs://HOST[:PORT]/EXPORT/PATH?nfsport=N&mountport=N&uid=N&"
		"gid=N&version=3\n"
		"  (and transport=rdma, nconnect=N... see libxprt(3)); the "
		"export is what\n  precedes the last '/', unless -e says where "
		"it ends\n"
		"options:\n"
		"  -s HOST     server name or address (required)\n"
		"  -e EXPORT   export path, as the server's MOUNT knows it "
		"(required)\n"
		"  -p PORT     NFS port (default: ask the server's rpcbind)\n"
		"  -m PORT     MOUNT port (default: ask the server's rpcbind)\n"
		"  -b SIZE     bytes per read/write call, k/m suffixes [1m]\n"
		"  -n N        connections to the server [1]\n"
		"  -S          FILE_SYNC writes (default: UNSTABLE, then "
		"COMMIT)\n"
		"  -f          replace an existing destination\n"
		"  -v          print size, time and throughput\n"
		"  -h          this help\n"
		"Exit status: 0 copied, 1 failed, 2 usage error.\n",
		me, me, me, me);
}

static bool is_url(const char *s)
{
	return !strncasecmp(s, "nfs://", 6);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	}
	if (*end || !v || v > (256u << 20))
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

/* The server lost unstable writes: read the range again from the source. */
static int resupply(void *arg, uint64_t offset, void *buf, size_t len)
{
	int fd = *(int *)arg;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done,
			  (off_t)(offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO; /* the source shrank */
		done += (size_t)n;
	}
	return 0;
}

static int upload(struct lx_nfs3_clnt *c, const struct opts *o, const char *src,
		  const char *dst, void *buf, uint64_t *bytes)
{
	struct lx_nfs3_file_opts fo = {0};
	struct lx_nfs3_file *f;
	struct stat st;
	uint64_t off = 0;
	ssize_t n;
	int fd, ret;

	fd = open(src, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "nfs3cp: %s: %s\n", src, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	fo.stable = o->stable ? LX_NFS3_FILE_SYNC : LX_NFS3_UNSTABLE;
	fo.resupply = resupply;
	fo.resupply_arg = &fd;
	ret = lx_nfs3_open(c, dst, O_CREAT | (o->force ? O_TRUNC : O_EXCL),
			st.st_mode & 0777, &fo, &f);
	if (ret) {
		fprintf(stderr, "nfs3cp: :%s: %s%s\n", dst, lx_strerror(ret),
			ret == -EEXIST ? " (-f replaces it)" : "");
		close(fd);
		return 1;
	}
	for (;;) {
		n = read(fd, buf, o->chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "nfs3cp: %s: %s\n", src,
				strerror(errno));
			ret = -EIO;
			break;
		}
		if (!n)
			break;
		ret = lx_nfs3_file_pwrite(f, buf, (size_t)n, off);
		if (ret) {
			fprintf(stderr,
				"nfs3cp: writing :%s at %" PRIu64 ": %s\n", dst,
				off, lx_strerror(ret));
			break;
		}
		off += (uint64_t)n;
	}
	/* COMMIT what was written unstable (resupplying after a restart) */
	n = lx_nfs3_file_close(f);
	if (n && !ret) {
		fprintf(stderr, "nfs3cp: committing :%s: %s\n", dst,
			lx_strerror((int)n));
		ret = (int)n;
	}
	close(fd);
	*bytes = off;
	return ret ? 1 : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

static int download(struct lx_nfs3_clnt *c, const struct opts *o, const char *src,
		    const char *dst, void *buf, uint64_t *bytes)
{
	struct lx_nfs3_getattr_res ga;
	struct lx_nfs3_file *f;
	uint64_t off = 0;
	size_t got;
	int fd, ret;

	ret = lx_nfs3_open(c, src, 0, 0, NULL, &f);
	if (!ret)
		ret = lx_nfs3_getattr(c, lx_nfs3_file_fh(f), &ga);
	if (ret) {
		fprintf(stderr, "nfs3cp: :%s: %s\n", src, lx_strerror(ret));
		return 1;
	}
	fd = open(dst, O_WRONLY | O_CREAT | (o->force ? O_TRUNC : O_EXCL),
		  ga.attr.mode & 0777);
	if (fd < 0) {
		fprintf(stderr, "nfs3cp: %s: %s%s\n", dst, strerror(errno),
			errno == EEXIST ? " (-f replaces it)" : "");
		lx_nfs3_file_close(f);
		return 1;
	}
	for (;;) {
		ret = lx_nfs3_file_pread(f, buf, o->chunk, off, &got);
		if (ret) {
			fprintf(stderr,
				"nfs3cp: reading :%s at %" PRIu64 ": %s\n", src,
				off, lx_strerror(ret));
			break;
		}
		if (!got)
			break; /* end of file */
		ret = write_all(fd, buf, got);
		if (ret) {
			fprintf(stderr, "nfs3cp: %s: %s\n", dst,
				strerror(-ret));
			break;
		}
		off += got;
	}
	lx_nfs3_file_close(f);
	if (close(fd) && !ret) {
		fprintf(stderr, "nfs3cp: %s: %s\n", dst, strerror(errno));
		ret = -EIO;
	}
	*bytes = off;
	return ret ? 1 : 0;
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
	struct opts o = {.chunk = 1u << 20, .nconnect = 1};
	struct lx_nfs3_opts no = {0};
	struct lx_nfs3_clnt *c;
	struct lx_url url = {0};
	char errmsg[256] = "";
	const char *src, *dst;
	char rpath[1024];
	bool up;
	uint64_t bytes = 0;
	double t0, dt;
	void *buf;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "s:e:p:m:b:n:Sfvh", long_opts,
				  NULL)) != -1) {
		switch (ch) {
		case 's':
			o.host = optarg;
			break;
		case 'e':
			o.export_path = optarg;
			break;
		case 'p':
		case 'm': {
			long v = strtol(optarg, NULL, 10);

			if (v <= 0 || v > 65535) {
				fprintf(stderr, "nfs3cp: -%c %s: not a port\n",
					ch, optarg);
				return 2;
			}
			if (ch == 'p')
				o.nfs_port = (uint16_t)v;
			else
				o.mount_port = (uint16_t)v;
			break;
		}
		case 'b':
			if (parse_size(optarg, &o.chunk)) {
				fprintf(stderr,
					"nfs3cp: -b %s: a size from 1 to 256m\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			o.nconnect = (unsigned int)atoi(optarg);
			if (o.nconnect < 1 || o.nconnect > 16) {
				fprintf(stderr, "nfs3cp: -n: 1 to 16\n");
				return 2;
			}
			break;
		case 'S':
			o.stable = true;
			break;
		case 'f':
			o.force = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr, argv[0]);
		return 2;
	}
	src = argv[optind];
	dst = argv[optind + 1];
	if ((src[0] == ':' || is_url(src)) == (dst[0] == ':' || is_url(dst))) {
		fprintf(stderr,
			"nfs3cp: exactly one of SRC and DST is :PATH or an "
			"nfs:// URL on the server\n");
		return 2;
	}
	up = dst[0] == ':' || is_url(dst);
	if (is_url(up ? dst : src)) {
		/* the URL's export ends where -e says, else at its last '/' */
		rc = lx_url_parse(up ? dst : src, &url);
		if (!rc)
			rc = lx_url_split(&url, o.export_path);
		if (rc) {
			fprintf(stderr, "nfs3cp: %s\n", url.error);
			lx_url_free(&url);
			return 2;
		}
		snprintf(rpath, sizeof(rpath), "%s", url.file);
		o.host = url.host;
		o.export_path = url.root;
	} else {
		if (!(up ? dst : src)[1]) {
			fprintf(stderr, "nfs3cp: ':' needs a path after it\n");
			return 2;
		}
		snprintf(rpath, sizeof(rpath), "%s", (up ? dst : src) + 1);
	}
	if (!o.host || !o.export_path) {
		usage(stderr, argv[0]);
		return 2;
	}

	no.host = o.host;
	no.export_path = o.export_path;
	no.nfs_port = o.nfs_port;
	no.mount_port = o.mount_port;
	no.nconnect = o.nconnect;
	/* the URL's server, ports and arguments over the options' */
	if (url.host)
		lx_url_nfs3_opts(&url, &no);
	no.errmsg = errmsg;
	no.errmsg_len = sizeof(errmsg);
	no.log = say;
	no.log_arg = "nfs3cp";
	rc = lx_nfs3_create(&c, &no);
	if (rc) {
		fprintf(stderr, "nfs3cp: %s:%s: %s\n", no.host, no.export_path,
			errmsg[0] ? errmsg : lx_strerror(rc));
		lx_url_free(&url);
		return 1;
	}
	buf = malloc(o.chunk);
	if (!buf) {
		fprintf(stderr, "nfs3cp: out of memory\n");
		lx_nfs3_destroy(c);
		lx_url_free(&url);
		return 1;
	}
	t0 = now_s();
	if (up)
		rc = upload(c, &o, src, rpath, buf, &bytes);
	else
		rc = download(c, &o, rpath, dst, buf, &bytes);
	dt = now_s() - t0;
	if (o.verbose && !rc)
		printf("%" PRIu64 " bytes in %.3f s: %.1f MiB/s (rsize %u, "
		       "wsize %u)\n",
		       bytes, dt, dt > 0 ? (double)bytes / 1048576.0 / dt : 0.0,
		       lx_nfs3_rsize(c), lx_nfs3_wsize(c));
	free(buf);
	lx_nfs3_destroy(c);
	lx_url_free(&url);
	return rc;
}

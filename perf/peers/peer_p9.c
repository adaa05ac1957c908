// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * peer_p9: 9P2000.L Tread/Twrite rate of a deliberately plain C client, the
 * peer for p9-bench. No library, no threads: one TCP connection, one buffer,
 * blocking send() and recv(). It shows what the servers give to a client
 * with next to no overhead of its own.
 *
 * Sequence: Tversion(msize, "9P2000.L"), Tattach(fid 1, afid NOFID,
 * n_uname --uid), Twalk(1 -> 2, FILE split at '/'), Tlopen(2), Tgetattr(2)
 * for the size; then --depth requests in flight, tag = slot number, each
 * reply answered by the next request of the same slot. Offsets are
 * --bs-aligned, uniformly random (default) or sequential (--seq) within
 * the file. Warm-up (--warmup seconds) runs the same load unmeasured.
 *
 * Replies are received straight into one buffer, several per recv() when
 * they are there; what is left of a partial reply is moved to the front
 * only when the free tail could not hold a largest message, so no bytes
 * are copied in user space per reply.
 *
 * --count N sends exactly --warmup-count + N requests in all, measures the
 * last N and reads no clock per request: the mode `make bench-cost`
 * counts instructions per request in (two counts, differenced).
 *
 * Server quirks handled (see tests/servers/README.md): ganesha answers
 * errors with type 107 (Rerror) carrying an Rlerror body, so 7 and 107 are
 * both errors; counts above msize-24 fail on diod, so --bs is capped there;
 * fids stay below 1024 for ganesha.
 */
#include "peer_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG	  "peer_p9"
#define MAX_DEPTH 1024
#define NOTAG	  0xffffu
#define NOFID	  0xffffffffu
#define IOHDRSZ	  24 /* largest header of Tread/Twrite/Rread/Rwrite */

enum {
	TLERROR = 7,
	TLOPEN = 12,
	TGETATTR = 24,
	TVERSION = 100,
	TATTACH = 104,
	RERROR = 107,
	TWALK = 110,
	TREAD = 116,
	TWRITE = 118,
	TCLUNK = 120,
};

struct conn {
	int fd;
	uint8_t *rbuf;
	size_t rstart, rlen, rcap, consumed; /* data: rbuf[rstart, rlen) */
	size_t maxmsg; /* the largest reply: keep room for one at the end */
};

struct msg {
	uint8_t *b;
	size_t n, cap;
};

static void put2(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put4(uint8_t *p, uint32_t v)
{
	put2(p, (uint16_t)v);
	put2(p + 2, (uint16_t)(v >> 16));
}

static void put8(uint8_t *p, uint64_t v)
{
	put4(p, (uint32_t)v);
	put4(p + 4, (uint32_t)(v >> 32));
}

static uint16_t get2(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get4(const uint8_t *p)
{
	return (uint32_t)get2(p) | (uint32_t)get2(p + 2) << 16;
}

static uint64_t get8(const uint8_t *p)
{
	return (uint64_t)get4(p) | (uint64_t)get4(p + 4) << 32;
}

static void m_need(struct msg *m, size_t n)
{
	if (m->n + n > m->cap)
		peer_die(PROG, "message too large");
}

static void m_init(struct msg *m, uint8_t type, uint16_t tag)
{
	m->n = 7;
	m->b[4] = type;
	put2(m->b + 5, tag);
}

static void m_u16(struct msg *m, uint16_t v)
{
	m_need(m, 2);
	put2(m->b + m->n, v);
	m->n += 2;
}

static void m_u32(struct msg *m, uint32_t v)
{
	m_need(m, 4);
	put4(m->b + m->n, v);
	m->n += 4;
}

static void m_u64(struct msg *m, uint64_t v)
{
	m_need(m, 8);
	put8(m->b + m->n, v);
	m->n += 8;
}

static void m_str(struct msg *m, const char *s, size_t len)
{
	if (len > 0xffff)
		peer_die(PROG, "string too long");
	m_u16(m, (uint16_t)len);
	m_need(m, len);
	memcpy(m->b + m->n, s, len);
	m->n += len;
}

static void send_all(struct conn *c, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			peer_die(PROG, "send: %s", strerror(errno));
		}
		p += w;
		n -= (size_t)w;
	}
}

static void m_send(struct conn *c, struct msg *m)
{
	put4(m->b, (uint32_t)m->n);
	send_all(c, m->b, m->n);
}

/* Next complete reply; valid until the following call. */
static const uint8_t *recv_frame(struct conn *c)
{
	c->rstart += c->consumed;
	c->consumed = 0;
	if (c->rstart == c->rlen) {
		c->rstart = c->rlen = 0;
	} else if (c->rcap - c->rlen < c->maxmsg) {
		/* rare: only a partial reply, moved to make room */
		memmove(c->rbuf, c->rbuf + c->rstart, c->rlen - c->rstart);
		c->rlen -= c->rstart;
		c->rstart = 0;
	}
	for (;;) {
		size_t have = c->rlen - c->rstart;
		ssize_t r;

		if (have >= 4) {
			uint32_t sz = get4(c->rbuf + c->rstart);

			if (sz < 7 || sz > c->maxmsg)
				peer_die(PROG, "bad reply size %u", sz);
			if (have >= sz) {
				c->consumed = sz;
				return c->rbuf + c->rstart;
			}
		}
		r = recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			peer_die(PROG, "connection closed by the server");
		c->rlen += (size_t)r;
	}
}

static const char *tname(uint8_t t)
{
	switch (t) {
	case TVERSION:
		return "Tversion";
	case TATTACH:
		return "Tattach";
	case TWALK:
		return "Twalk";
	case TLOPEN:
		return "Tlopen";
	case TGETATTR:
		return "Tgetattr";
	case TREAD:
		return "Tread";
	case TWRITE:
		return "Twrite";
	case TCLUNK:
		return "Tclunk";
	default:
		return "T?";
	}
}

/* Die on an error reply: 7 is Rlerror, 107 is ganesha's Rerror(ecode). */
static void check_reply(const uint8_t *f, uint8_t ttype)
{
	if (f[4] == TLERROR || f[4] == RERROR) {
		uint32_t e = get4(f) >= 11 ? get4(f + 7) : 0;

		peer_die(PROG, "%s -> error (type %u) %u: %s", tname(ttype),
			 f[4], e, strerror((int)e));
	}
	if (f[4] != ttype + 1)
		peer_die(PROG, "%s -> unexpected reply type %u", tname(ttype),
			 f[4]);
}

static const uint8_t *rpc(struct conn *c, struct msg *m)
{
	const uint8_t *f;

	m_send(c, m);
	f = recv_frame(c);
	check_reply(f, m->b[4]);
	return f;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options] HOST PORT ANAME FILE\n"
		"9P2000.L Tread (or Twrite) load from a plain C client on one\n"
		"TCP connection; prints a RESULT line (see peer_common.h).\n"
		"FILE is relative to ANAME and must exist (not created).\n"
		"  --op read|write  (default read)\n"
		"  --bs N        bytes per request, k suffix ok (default 4k;\n"
		"                at most msize-24)\n"
		"  --depth N     requests in flight (default 1)\n"
		"  --seq         sequential offsets (default random)\n"
		"  --msize N     Tversion msize (default 65536)\n"
		"  --uid N       n_uname for Tattach (default 0)\n"
		"  --seconds S   measuring time (default 5)\n"
		"  --warmup S    unmeasured load first (default 0.5)\n"
		"  --count N     exactly N measured requests instead of\n"
		"                --seconds, no clock read per request\n"
		"  --warmup-count N  with --count: N unmeasured requests first\n"
		"                (default 1000)\n"
		"  --help        this text\n"
		"example: " PROG
		" --depth 16 127.0.0.1 5640 /srv/export f.dat\n");
}

static int dial(const char *host, const char *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	uint64_t p;
	int fd, one = 1;

	if (peer_parse_uint(port, 65535, &p) || !p)
		peer_die(PROG, "bad PORT '%s'", port);
	sin.sin_port = htons((uint16_t)p);
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		peer_die(PROG, "HOST must be a numeric IPv4 address");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		peer_die(PROG, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		peer_die(PROG, "connect %s:%s: %s", host, port,
			 strerror(errno));
	/* one small request per reply: Nagle would add its delay to each */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

struct run {
	struct conn c;
	bool write, seq;
	uint32_t bs;
	uint64_t nblk, rng, seqblk;
	uint8_t **req; /* per slot: a ready-made Tread/Twrite */
	size_t reqlen;
	uint64_t *issued_ns;
	bool counted; /* --count: no clock read per request */
};

static void issue(struct run *r, uint16_t slot)
{
	uint64_t blk;
	uint8_t *q = r->req[slot];

	if (r->seq)
		blk = r->seqblk++ % r->nblk;
	else
		blk = peer_rng_next(&r->rng) % r->nblk;
	/* size[4] type[1] tag[2] fid[4] offset[8] count[4] (data) */
	put8(q + 11, blk * r->bs);
	if (!r->counted)
		r->issued_ns[slot] = peer_now_ns();
	send_all(&r->c, q, r->reqlen);
}

/* The next Rread/Rwrite, checked; returns its tag (= its slot). */
static uint16_t next_reply(struct run *r, uint64_t depth)
{
	const uint8_t *f = recv_frame(&r->c);
	uint16_t tag;
	uint32_t count;

	check_reply(f, r->write ? TWRITE : TREAD);
	tag = get2(f + 5);
	count = get4(f + 7);
	if (tag >= depth || count != r->bs)
		peer_die(PROG, "bad reply: tag %u count %u", tag, count);
	return tag;
}

/*
 * --count: @warm + @n requests in all, @depth in flight; the window
 * covers the last @n completions.
 */
static void run_counted(struct run *r, uint64_t depth, uint64_t warm,
			uint64_t n, struct peer_window *w)
{
	uint64_t left = warm + n, done = 0, outstanding = 0, i;

	r->counted = true;
	if (!warm)
		peer_window_start(w);
	for (i = 0; i < depth && left; i++, left--, outstanding++)
		issue(r, (uint16_t)i);
	while (outstanding) {
		uint16_t tag = next_reply(r, depth);

		outstanding--;
		if (w->running)
			w->ops++;
		else if (++done == warm)
			peer_window_start(w);
		if (left) {
			issue(r, tag);
			left--;
			outstanding++;
		}
	}
	peer_window_stop(w);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"op", required_argument, NULL, 'o'},
		{"bs", required_argument, NULL, 'b'},
		{"depth", required_argument, NULL, 'd'},
		{"seq", no_argument, NULL, 'q'},
		{"msize", required_argument, NULL, 'm'},
		{"uid", required_argument, NULL, 'u'},
		PEER_RUN_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t bs = 4096, depth = 1, msize = 65536, uid = 0, size;
	uint64_t warm_end, end_ns = 0, now;
	struct peer_run_opts ro = {.secs = 5, .warm = 0.5, .warm_count = 1000};
	unsigned int outstanding = 0, i;
	bool stop = false, measuring;
	const char *file, *p, *slash;
	struct peer_window w;
	uint8_t mbuf[4096];
	struct msg m = {.b = mbuf, .cap = sizeof(mbuf)};
	const uint8_t *f;
	struct run r;
	char extra[160];
	uint16_t nwname = 0;
	int c;

	memset(&r, 0, sizeof(r));
	memset(&w, 0, sizeof(w));
	r.rng = 0x9e3779b97f4a7c15ull;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "write"))
				r.write = true;
			else if (strcmp(optarg, "read"))
				peer_die(PROG, "--op is read or write");
			break;
		case 'b':
			if (peer_parse_size(optarg, &bs) || !bs)
				peer_die(PROG, "bad --bs '%s'", optarg);
			break;
		case 'd':
			depth = peer_uint_opt(PROG, "--depth", optarg,
					      MAX_DEPTH);
			break;
		case 'q':
			r.seq = true;
			break;
		case 'm':
			msize = peer_uint_opt(PROG, "--msize", optarg,
					      1u << 24);
			break;
		case 'u':
			uid = peer_uint_opt(PROG, "--uid", optarg, UINT32_MAX);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (peer_run_opt(PROG, c, optarg, &ro))
				break;
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 4) {
		usage(stderr);
		return 2;
	}
	if (!depth)
		peer_die(PROG, "--depth must be 1..%d", MAX_DEPTH);
	if (msize < 4096)
		peer_die(PROG, "--msize must be at least 4096");

	r.c.fd = dial(argv[optind], argv[optind + 1]);
	r.c.rcap = (size_t)msize * (depth + 1) + 4096;
	r.c.maxmsg = (size_t)msize;
	r.c.rbuf = malloc(r.c.rcap);
	if (!r.c.rbuf)
		peer_die(PROG, "out of memory");

	m_init(&m, TVERSION, NOTAG);
	m_u32(&m, (uint32_t)msize);
	m_str(&m, "9P2000.L", 8);
	f = rpc(&r.c, &m);
	msize = get4(f + 7);
	if (msize < r.c.maxmsg)
		r.c.maxmsg = (size_t)msize;
	if (get2(f + 11) != 8 || memcmp(f + 13, "9P2000.L", 8))
		peer_die(PROG, "server did not accept 9P2000.L");
	if (bs > msize - IOHDRSZ)
		peer_die(PROG, "--bs %llu exceeds msize-24 = %llu",
			 (unsigned long long)bs,
			 (unsigned long long)(msize - IOHDRSZ));
	r.bs = (uint32_t)bs;

	m_init(&m, TATTACH, 0);
	m_u32(&m, 1);
	m_u32(&m, NOFID);
	m_str(&m, "root", 4);
	m_str(&m, argv[optind + 2], strlen(argv[optind + 2]));
	m_u32(&m, (uint32_t)uid);
	rpc(&r.c, &m);

	m_init(&m, TWALK, 0);
	m_u32(&m, 1);
	m_u32(&m, 2);
	m_u16(&m, 0); /* nwname, patched below */
	file = argv[optind + 3];
	for (p = file; *p; p = *slash ? slash + 1 : slash) {
		slash = strchrnul(p, '/');
		if (slash == p)
			continue;
		m_str(&m, p, (size_t)(slash - p));
		nwname++;
	}
	if (!nwname || nwname > 16)
		peer_die(PROG, "FILE needs 1..16 path components");
	put2(m.b + 15, nwname);
	f = rpc(&r.c, &m);
	if (get2(f + 7) != nwname)
		peer_die(PROG, "walk to %s: not found", file);

	m_init(&m, TLOPEN, 0);
	m_u32(&m, 2);
	m_u32(&m, r.write ? O_WRONLY : O_RDONLY);
	rpc(&r.c, &m);

	m_init(&m, TGETATTR, 0);
	m_u32(&m, 2);
	m_u64(&m, 0x200); /* P9_GETATTR_SIZE */
	f = rpc(&r.c, &m);
	/* valid[8] qid[13] mode uid gid [4 each] nlink rdev [8 each] size */
	size = get8(f + 7 + 8 + 13 + 12 + 16);
	r.nblk = size / r.bs;
	if (!r.nblk)
		peer_die(PROG, "%s has %llu bytes, less than --bs", file,
			 (unsigned long long)size);

	r.reqlen = 23 + (r.write ? r.bs : 0);
	r.req = calloc(depth, sizeof(*r.req));
	r.issued_ns = calloc(depth, sizeof(*r.issued_ns));
	if (!r.req || !r.issued_ns)
		peer_die(PROG, "out of memory");
	for (i = 0; i < depth; i++) {
		uint8_t *q = malloc(r.reqlen);

		if (!q)
			peer_die(PROG, "out of memory");
		put4(q, (uint32_t)r.reqlen);
		q[4] = r.write ? TWRITE : TREAD;
		put2(q + 5, (uint16_t)i);
		put4(q + 7, 2);
		put4(q + 19, r.bs);
		for (size_t k = 23; k < r.reqlen; k++)
			q[k] = (uint8_t)peer_rng_next(&r.rng);
		r.req[i] = q;
	}

	if (ro.count) {
		run_counted(&r, depth, ro.warm_count, ro.count, &w);
		goto done;
	}
	warm_end = peer_now_ns() + (uint64_t)(ro.warm * 1e9);
	measuring = false;
	if (!ro.warm) {
		peer_window_start(&w);
		end_ns = w.t0_ns + (uint64_t)(ro.secs * 1e9);
		measuring = true;
	}
	for (i = 0; i < depth; i++, outstanding++)
		issue(&r, (uint16_t)i);
	while (outstanding) {
		uint16_t tag = next_reply(&r, depth);

		outstanding--;
		now = peer_now_ns();
		if (measuring && !stop) {
			w.ops++;
			peer_hist_add(&w.hist, now - r.issued_ns[tag]);
			if (now >= end_ns) {
				peer_window_stop(&w);
				stop = true;
			}
		} else if (!measuring && now >= warm_end) {
			peer_window_start(&w);
			end_ns = w.t0_ns + (uint64_t)(ro.secs * 1e9);
			measuring = true;
		}
		if (!stop) {
			issue(&r, tag);
			outstanding++;
		}
	}

done:
	m_init(&m, TCLUNK, 0);
	m_u32(&m, 2);
	rpc(&r.c, &m);
	m_init(&m, TCLUNK, 0);
	m_u32(&m, 1);
	rpc(&r.c, &m);
	fprintf(stderr,
		PROG ": %s:%s aname %s file %s (%llu bytes) msize %llu\n",
		argv[optind], argv[optind + 1], argv[optind + 2], file,
		(unsigned long long)size, (unsigned long long)msize);
	snprintf(extra, sizeof(extra), "pattern=%s msize=%llu",
		 r.seq ? "seq" : "rand", (unsigned long long)msize);
	peer_print_result(&w, "p9", r.write ? "write" : "read",
			  (unsigned int)depth, r.bs, extra);
	for (i = 0; i < depth; i++)
		free(r.req[i]);
	free(r.req);
	free(r.issued_ns);
	free(r.c.rbuf);
	close(r.c.fd);
	return 0;
}

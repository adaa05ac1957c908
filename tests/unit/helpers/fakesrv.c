// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fakesrv: in-process TCP server for transport unit tests (see fakesrv.h).
 */
#include "fakesrv.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FS_MAX_CONNS 64
#define FS_MAX_MSG   (4u << 20)

struct fs_conn {
	struct fakesrv *s;
	int fd;
	pthread_t th;
	bool used;
};

struct fakesrv {
	bool rpc;
	fakesrv_fn fn;
	void *arg;
	int lfd;
	uint16_t port;
	pthread_t accept_th;
	atomic_bool accepting;
	atomic_bool stop;
	pthread_mutex_t lock;
	struct fs_conn conns[FS_MAX_CONNS];
	atomic_uint nconns;
	atomic_uint nmsgs;
	atomic_size_t cut; /* fakesrv_set_cut() */
};

void fs_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint32_t fs_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

void fs_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

uint32_t fs_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

size_t fs_rpc_accepted(uint8_t *out, uint32_t xid, uint32_t stat)
{
	fs_put_be32(out, xid);
	fs_put_be32(out + 4, 1);  /* REPLY */
	fs_put_be32(out + 8, 0);  /* MSG_ACCEPTED */
	fs_put_be32(out + 12, 0); /* verifier AUTH_NONE, empty */
	fs_put_be32(out + 16, 0);
	fs_put_be32(out + 20, stat);
	return 24;
}

static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = read(fd, (char *)buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	ssize_t r;

	while (done < len) {
		r = send(fd, (const char *)buf + done, len - done,
			 MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/* A reply: in one send(), or its first @s->cut bytes, a pause, then the
 * rest (fakesrv_set_cut()). */
static int write_reply(struct fakesrv *s, int fd, const uint8_t *buf,
		       size_t len)
{
	size_t cut = atomic_load(&s->cut);
	int one = 1;

	if (!cut || cut >= len)
		return write_full(fd, buf, len);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (write_full(fd, buf, cut))
		return -1;
	usleep(2000); /* the peer's read most likely ends at the cut */
	return write_full(fd, buf + cut, len - cut);
}

/* Read one message; return its length or -1. */
static long read_msg(struct fakesrv *s, int fd, uint8_t *buf)
{
	uint8_t hdr[4];
	size_t len = 0, flen;
	bool last = false;

	if (s->rpc) {
		while (!last) {
			if (read_full(fd, hdr, 4))
				return -1;
			flen = fs_get_be32(hdr) & 0x7fffffffu;
			last = (hdr[0] & 0x80) != 0;
			if (len + flen > FS_MAX_MSG)
				return -1;
			if (read_full(fd, buf + len, flen))
				return -1;
			len += flen;
		}
		return (long)len;
	}
	if (read_full(fd, buf, 4))
		return -1;
	len = fs_get_le32(buf);
	if (len < 7 || len > FS_MAX_MSG)
		return -1;
	if (read_full(fd, buf + 4, len - 4))
		return -1;
	return (long)len;
}

static void *conn_main(void *p)
{
	struct fs_conn *c = p;
	struct fakesrv *s = c->s;
	uint8_t *in = malloc(FS_MAX_MSG), *out = malloc(FS_MAX_MSG + 4);
	long len;

	while (in && out && !atomic_load(&s->stop)) {
		enum fakesrv_action a;
		size_t outlen = FS_MAX_MSG;
		unsigned int nth;

		len = read_msg(s, c->fd, in);
		if (len < 0)
			break;
		nth = atomic_fetch_add(&s->nmsgs, 1) + 1;
		a = s->fn(s->arg, in, (size_t)len, out + 4, &outlen, nth);
		if (a == FAKESRV_REPLY) {
			if (s->rpc) {
				fs_put_be32(out,
					    0x80000000u | (uint32_t)outlen);
				if (write_reply(s, c->fd, out, outlen + 4))
					break;
			} else if (write_reply(s, c->fd, out + 4, outlen)) {
				break;
			}
		} else if (a == FAKESRV_RAW) {
			if (write_full(c->fd, out + 4, outlen))
				break;
		} else if (a == FAKESRV_CLOSE || a == FAKESRV_RESET) {
			if (a == FAKESRV_RESET) {
				struct linger lg = {1, 0};

				setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg,
					   sizeof(lg));
			}
			if (outlen)
				write_full(c->fd, out + 4, outlen);
			break;
		}
	}
	free(in);
	free(out);
	pthread_mutex_lock(&s->lock);
	close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void *accept_main(void *p)
{
	struct fakesrv *s = p;
	struct pollfd pfd = {.fd = s->lfd, .events = POLLIN};
	int fd, i, one = 1;

	while (!atomic_load(&s->stop) && atomic_load(&s->accepting)) {
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_mutex_lock(&s->lock);
		for (i = 0; i < FS_MAX_CONNS; i++) {
			if (s->conns[i].used && s->conns[i].fd < 0) {
				pthread_join(s->conns[i].th, NULL);
				s->conns[i].used = false;
			}
			if (!s->conns[i].used)
				break;
		}
		if (i == FS_MAX_CONNS) {
			close(fd);
		} else {
			s->conns[i].s = s;
			s->conns[i].fd = fd;
			s->conns[i].used = true;
			atomic_fetch_add(&s->nconns, 1);
			pthread_create(&s->conns[i].th, NULL, conn_main,
				       &s->conns[i]);
		}
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

static int listen_on(struct fakesrv *s, uint16_t port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sa);
	int one = 1;

	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		return -errno;
	setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s->lfd, 64) < 0) {
		close(s->lfd);
		return -errno;
	}
	getsockname(s->lfd, (struct sockaddr *)&sa, &sl);
	s->port = ntohs(sa.sin_port);
	atomic_store(&s->accepting, true);
	return -pthread_create(&s->accept_th, NULL, accept_main, s);
}

int fakesrv_start(struct fakesrv **sp, bool rpc_framing, fakesrv_fn fn,
		  void *arg)
{
	struct fakesrv *s = calloc(1, sizeof(*s));
	int err, i;

	if (!s)
		return -ENOMEM;
	s->rpc = rpc_framing;
	s->fn = fn;
	s->arg = arg;
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < FS_MAX_CONNS; i++)
		s->conns[i].fd = -1;
	err = listen_on(s, 0);
	if (err) {
		free(s);
		return err;
	}
	*sp = s;
	return 0;
}

uint16_t fakesrv_port(const struct fakesrv *s)
{
	return s->port;
}

void fakesrv_drop_conns(struct fakesrv *s)
{
	int i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < FS_MAX_CONNS; i++)
		if (s->conns[i].used && s->conns[i].fd >= 0)
			shutdown(s->conns[i].fd, SHUT_RDWR);
	pthread_mutex_unlock(&s->lock);
}

void fakesrv_pause(struct fakesrv *s)
{
	atomic_store(&s->accepting, false);
	pthread_join(s->accept_th, NULL);
	close(s->lfd);
	fakesrv_drop_conns(s);
}

int fakesrv_resume(struct fakesrv *s)
{
	return listen_on(s, s->port);
}

unsigned int fakesrv_conns(const struct fakesrv *s)
{
	return atomic_load(&((struct fakesrv *)s)->nconns);
}

void fakesrv_set_cut(struct fakesrv *s, size_t cut)
{
	atomic_store(&s->cut, cut);
}

unsigned int fakesrv_msgs(const struct fakesrv *s)
{
	return atomic_load(&((struct fakesrv *)s)->nmsgs);
}

void fakesrv_stop(struct fakesrv *s)
{
	int i;

	if (!s)
		return;
	atomic_store(&s->stop, true);
	if (atomic_load(&s->accepting)) {
		atomic_store(&s->accepting, false);
		pthread_join(s->accept_th, NULL);
		close(s->lfd);
	}
	fakesrv_drop_conns(s);
	for (i = 0; i < FS_MAX_CONNS; i++)
		if (s->conns[i].used)
			pthread_join(s->conns[i].th, NULL);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

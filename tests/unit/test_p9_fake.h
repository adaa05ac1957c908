/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small in-process 9P2000.L server for the client's unit tests, on top
 * of fakesrv (one thread per connection, one message at a time).  It keeps
 * a tiny tree in memory (/, /file, /dir, /dir/inner, created files), maps
 * fids to nodes, and decodes and encodes with the library's own codec
 * (which test_p9_msg.c checks byte by byte on its own).
 *
 * Tests steer it through struct p9f: answers to Tversion and Tattach, and
 * misbehaviours per message type: hold a message without answering (until
 * a Tflush), answer a Tflush in one of several ways, send a wrong type, an
 * oversize message, an Rread larger than asked.  Every message received is
 * logged (type, tag, Tflush oldtag) for the assertions.
 *
 * Included by test_p9_clnt.c and test_p9_flush.c.
 */
#ifndef TEST_P9_FAKE_H
#define TEST_P9_FAKE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxprt/p9.h>

#include "helpers/fakesrv.h"

#define P9F_UNUSED	 __attribute__((unused))
#define P9F_MAXFID	 4096
#define P9F_NODES	 32
#define P9F_LOG		 4096
#define P9F_FILE_SIZE	 100000
#define P9F_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum p9f_flush {
	P9F_FLUSH_RFLUSH,	  /* Rflush at once */
	P9F_FLUSH_REPLY_FIRST,	  /* the held call's reply, then Rflush */
	P9F_FLUSH_SILENT,	  /* never answer a Tflush */
	P9F_FLUSH_RLERROR,	  /* Rlerror(EINVAL) to the Tflush */
	P9F_FLUSH_SECOND_ONLY,	  /* ignore the first, answer the second */
	P9F_FLUSH_SECOND_BOTH,	  /* at the second: Rflush both, in order */
	P9F_FLUSH_SILENT_RELEASE, /* silent; a Tgetattr of fid 4000 sends
				     the Rflush it owes */
	P9F_FLUSH_PARTIAL,	  /* the first half of the held call's
				     reply, then nothing */
};

enum p9f_bad {
	P9F_BAD_NONE,
	P9F_BAD_COUNT_OVER, /* Rread with 10 bytes more than asked */
	P9F_BAD_WRONG_TYPE, /* Rgetattr-shaped answer */
	P9F_BAD_OVERSIZE,   /* a valid Rread made larger than msize */
	P9F_BAD_RERROR,	    /* ganesha's type 107 with EACCES */
	P9F_BAD_RFLUSH,	    /* an Rflush with the call's own tag */
	P9F_BAD_UNUSED_TAG, /* a reply for tag 0x7777 first, then the right
			       one */
	P9F_BAD_TRUNCATED,  /* Rgetattr cut short (size field agrees) */
	P9F_BAD_CLOSE,	    /* close the connection */
};

/* Treaddir answers other than the tree's */
enum p9f_dir {
	P9F_DIR_TREE,	 /* the entries of the tree, offset i + 1 */
	P9F_DIR_SELF,	 /* one entry "x", offset 5, whatever is asked */
	P9F_DIR_CYCLE,	 /* 0 -> 900 -> 5 -> 900: offsets that go down,
			    then one handed out before */
	P9F_DIR_DOWN,	 /* 0 -> 900 -> 5 -> end: going down is fine */
	P9F_DIR_INVENT,	 /* a full reply of new offsets, for ever */
	P9F_DIR_ODDNAME, /* "a\0b", "../x", "ok", then the end */
};

struct p9f_node {
	char name[64];
	int parent;
	bool dir;
	bool used;
	uint64_t path;
	uint8_t *data;
	size_t size;
};

struct p9f_log {
	uint8_t type;
	uint16_t tag;
	uint16_t oldtag;
};

struct p9f {
	pthread_mutex_t lock;
	struct fakesrv *srv;
	/* Tversion / Tattach */
	uint32_t msize;
	const char *version;
	size_t version_len; /* 0: strlen(version) */
	int version_err;
	int attach_err;
	uint16_t version_tag;
	/* misbehaviour */
	uint8_t hold_type; /* 0: none */
	enum p9f_flush flush;
	uint8_t bad_type; /* the message type @bad applies to */
	enum p9f_bad bad;
	bool unlinkat_unsupported;
	enum p9f_dir dir;
	int fail_type, fail_errno; /* answer @fail_type with Rlerror */
	/* state */
	uint32_t cur_msize;
	int fids[P9F_MAXFID];
	struct p9f_node nodes[P9F_NODES];
	uint8_t held[512];
	size_t held_len;
	unsigned int flushes_seen;
	uint8_t owed[64]; /* SILENT_RELEASE: the Rflush not sent yet */
	size_t owed_len;
	/* log */
	struct p9f_log log[P9F_LOG];
	unsigned int nlog;
	unsigned int max_count_seen;
	uint16_t max_tag;
};

static P9F_UNUSED int p9f_add(struct p9f *s, int parent, const char *name,
			      bool dir, size_t size)
{
	int i;
	size_t k;

	for (i = 0; i < P9F_NODES; i++) {
		struct p9f_node *n = &s->nodes[i];

		if (n->used)
			continue;
		memset(n, 0, sizeof(*n));
		n->used = true;
		n->parent = parent;
		n->dir = dir;
		n->path = 1000 + (uint64_t)i;
		snprintf(n->name, sizeof(n->name), "%s", name);
		if (size) {
			n->data = malloc(size);
			for (k = 0; k < size; k++)
				n->data[k] = (uint8_t)(k * 31 + 7);
		}
		n->size = size;
		return i;
	}
	return -1;
}

static P9F_UNUSED void p9f_reset(struct p9f *s)
{
	int i;

	for (i = 0; i < P9F_NODES; i++)
		free(s->nodes[i].data);
	memset(s->nodes, 0, sizeof(s->nodes));
	for (i = 0; i < P9F_MAXFID; i++)
		s->fids[i] = -1;
	s->msize = 65536;
	s->version = LX_P9_VERSION_L;
	s->version_len = 0;
	s->version_err = 0;
	s->attach_err = 0;
	s->version_tag = 0;
	s->hold_type = 0;
	s->flush = P9F_FLUSH_RFLUSH;
	s->bad_type = 0;
	s->bad = P9F_BAD_NONE;
	s->unlinkat_unsupported = false;
	s->dir = P9F_DIR_TREE;
	s->fail_type = 0;
	s->held_len = 0;
	s->flushes_seen = 0;
	s->owed_len = 0;
	s->nlog = 0;
	s->max_count_seen = 0;
	s->max_tag = 0;
	p9f_add(s, -1, "", true, 0);		     /* 0: root */
	p9f_add(s, 0, "file", false, P9F_FILE_SIZE); /* 1 */
	i = p9f_add(s, 0, "dir", true, 0);	     /* 2 */
	p9f_add(s, i, "inner", false, 10);	     /* 3 */
}

static struct lx_p9_qid p9f_qid(const struct p9f_node *n)
{
	struct lx_p9_qid q = {n->dir ? LX_P9_QTDIR : LX_P9_QTFILE, 0, n->path};

	return q;
}

static int p9f_child(struct p9f *s, int dir, const struct lx_p9_str *name)
{
	int i;

	if (name->len == 2 && !memcmp(name->s, "..", 2))
		return s->nodes[dir].parent >= 0 ? s->nodes[dir].parent : dir;
	for (i = 0; i < P9F_NODES; i++) {
		struct p9f_node *n = &s->nodes[i];

		if (n->used && n->parent == dir &&
		    strlen(n->name) == name->len &&
		    !memcmp(n->name, name->s, name->len))
			return i;
	}
	return -1;
}

/* Rreaddir data of the odd directories (enum p9f_dir) at @off */
static const uint8_t *p9f_dir_odd(struct p9f *s, uint64_t off, uint32_t count,
				  uint32_t *len)
{
	static uint8_t dbuf[65536];
	static const struct {
		const char *name;
		uint16_t len;
	} odd[] = {{"a\0b", 3}, {"../x", 4}, {"ok", 2}};
	struct lx_p9_dirent d = {.qid = {LX_P9_QTFILE, 0, 77}, .type = 8};
	size_t pos = 0;

	if (count > sizeof(dbuf))
		count = sizeof(dbuf);
	switch (s->dir) {
	case P9F_DIR_SELF:
		d.offset = 5;
		break;
	case P9F_DIR_CYCLE:
	case P9F_DIR_DOWN:
		if (off == 5 && s->dir == P9F_DIR_DOWN)
			goto out;
		d.offset = off == 900 ? 5 : 900;
		break;
	case P9F_DIR_INVENT:
		d.name = lx_p9_str_c("n");
		do
			d.offset = ++off;
		while (!lx_p9_dirent_put(dbuf, count, &pos, &d));
		goto out;
	default: /* P9F_DIR_ODDNAME: one entry a reply, offsets 1 to 3 */
		if (off >= P9F_ARRAY_LEN(odd))
			goto out;
		d.name.s = odd[off].name;
		d.name.len = odd[off].len;
		d.offset = off + 1;
		break;
	}
	if (!d.name.s)
		d.name = lx_p9_str_c("x");
	lx_p9_dirent_put(dbuf, count, &pos, &d);
out:
	*len = (uint32_t)pos;
	return dbuf;
}

static size_t p9f_err(uint8_t *out, size_t cap, uint16_t tag, int e)
{
	struct lx_p9_fcall r = {.type = LX_P9_RLERROR, .tag = tag};
	size_t len = 0;

	r.u.rlerror.ecode = (uint32_t)e;
	lx_p9_msg_encode(&r, out, cap, 0, &len);
	return len;
}

static int p9f_fid(struct p9f *s, uint32_t fid)
{
	return fid < P9F_MAXFID ? s->fids[fid] : -1;
}

/* The normal answer to @t; return its length. */
static size_t p9f_answer(struct p9f *s, const struct lx_p9_fcall *t,
			 uint8_t *out, size_t cap)
{
	struct lx_p9_fcall r = {.type = (uint8_t)(t->type + 1), .tag = t->tag};
	struct p9f_node *n;
	unsigned int i;
	size_t len = 0, pos;
	int node, c;

	switch (t->type) {
	case LX_P9_TATTACH:
		if (s->attach_err)
			return p9f_err(out, cap, t->tag, s->attach_err);
		if (t->u.tattach.fid >= P9F_MAXFID)
			return p9f_err(out, cap, t->tag, ERANGE);
		s->fids[t->u.tattach.fid] = 0;
		r.u.rqid.qid = p9f_qid(&s->nodes[0]);
		break;
	case LX_P9_TAUTH:
		return p9f_err(out, cap, t->tag, EOPNOTSUPP);
	case LX_P9_TWALK:
		node = p9f_fid(s, t->u.twalk.fid);
		if (node < 0 || t->u.twalk.newfid >= P9F_MAXFID)
			return p9f_err(out, cap, t->tag, EBADF);
		for (i = 0; i < t->u.twalk.nwname; i++) {
			c = s->nodes[node].dir ?
				    p9f_child(s, node, &t->u.twalk.wname[i]) :
				    -1;
			if (c < 0)
				break;
			node = c;
			r.u.rwalk.wqid[i] = p9f_qid(&s->nodes[c]);
		}
		if (i == 0 && t->u.twalk.nwname)
			return p9f_err(out, cap, t->tag, ENOENT);
		r.u.rwalk.nwqid = (uint16_t)i;
		if (i == t->u.twalk.nwname)
			s->fids[t->u.twalk.newfid] = node;
		break;
	case LX_P9_TLOPEN:
		node = p9f_fid(s, t->u.tlopen.fid);
		if (node < 0)
			return p9f_err(out, cap, t->tag, EBADF);
		r.u.ropen.qid = p9f_qid(&s->nodes[node]);
		break;
	case LX_P9_TLCREATE:
		node = p9f_fid(s, t->u.tlcreate.fid);
		if (node < 0 || !s->nodes[node].dir)
			return p9f_err(out, cap, t->tag, ENOTDIR);
		if (p9f_child(s, node, &t->u.tlcreate.name) >= 0)
			return p9f_err(out, cap, t->tag, EEXIST);
		{
			char nm[64];

			snprintf(nm, sizeof(nm), "%.*s",
				 (int)t->u.tlcreate.name.len,
				 t->u.tlcreate.name.s);
			c = p9f_add(s, node, nm, false, 0);
		}
		if (c < 0)
			return p9f_err(out, cap, t->tag, ENOSPC);
		s->fids[t->u.tlcreate.fid] = c;
		r.u.ropen.qid = p9f_qid(&s->nodes[c]);
		break;
	case LX_P9_TMKDIR:
		node = p9f_fid(s, t->u.tmkdir.dfid);
		if (node < 0)
			return p9f_err(out, cap, t->tag, EBADF);
		if (p9f_child(s, node, &t->u.tmkdir.name) >= 0)
			return p9f_err(out, cap, t->tag, EEXIST);
		{
			char nm[64];

			snprintf(nm, sizeof(nm), "%.*s",
				 (int)t->u.tmkdir.name.len, t->u.tmkdir.name.s);
			c = p9f_add(s, node, nm, true, 0);
		}
		r.u.rqid.qid = p9f_qid(&s->nodes[c]);
		break;
	case LX_P9_TREAD:
		node = p9f_fid(s, t->u.tread.fid);
		if (node < 0)
			return p9f_err(out, cap, t->tag, EBADF);
		if (t->u.tread.count > s->cur_msize - LX_P9_IOHDRSZ)
			return p9f_err(out, cap, t->tag, EIO); /* as diod */
		n = &s->nodes[node];
		r.u.rread.count = 0;
		if (t->u.tread.offset < n->size)
			r.u.rread.count =
				(uint32_t)(n->size - t->u.tread.offset);
		if (r.u.rread.count > t->u.tread.count)
			r.u.rread.count = t->u.tread.count;
		r.u.rread.data = n->data + t->u.tread.offset;
		break;
	case LX_P9_TWRITE:
		node = p9f_fid(s, t->u.twrite.fid);
		if (node < 0)
			return p9f_err(out, cap, t->tag, EBADF);
		if (t->u.twrite.count > s->cur_msize - LX_P9_IOHDRSZ)
			return p9f_err(out, cap, t->tag, EIO);
		n = &s->nodes[node];
		if (t->u.twrite.offset + t->u.twrite.count > n->size) {
			n->data = realloc(n->data, t->u.twrite.offset +
							   t->u.twrite.count);
			if (t->u.twrite.offset > n->size)
				memset(n->data + n->size, 0,
				       t->u.twrite.offset - n->size);
			n->size = t->u.twrite.offset + t->u.twrite.count;
		}
		memcpy(n->data + t->u.twrite.offset, t->u.twrite.data,
		       t->u.twrite.count);
		r.u.rwrite.count = t->u.twrite.count;
		break;
	case LX_P9_TCLUNK:
	case LX_P9_TREMOVE:
		node = p9f_fid(s, t->u.tfid.fid);
		if (node < 0)
			return p9f_err(out, cap, t->tag, EBADF);
		s->fids[t->u.tfid.fid] = -1;
		if (t->type == LX_P9_TREMOVE) {
			free(s->nodes[node].data);
			s->nodes[node].data = NULL;
			s->nodes[node].used = false;
		}
		break;
	case LX_P9_TGETATTR:
		node = p9f_fid(s, t->u.tgetattr.fid);
		if (node < 0)
			return p9f_err(out, cap, t->tag, EBADF);
		n = &s->nodes[node];
		r.u.rgetattr.valid = LX_P9_GETATTR_BASIC;
		r.u.rgetattr.qid = p9f_qid(n);
		r.u.rgetattr.mode = n->dir ? 040755 : 0100644;
		r.u.rgetattr.size = n->size;
		r.u.rgetattr.nlink = 1;
		break;
	case LX_P9_TSTATFS:
		r.u.rstatfs.bsize = 4096;
		r.u.rstatfs.namelen = 255;
		break;
	case LX_P9_TREADDIR:
		node = p9f_fid(s, t->u.tread.fid);
		if (node < 0 || !s->nodes[node].dir)
			return p9f_err(out, cap, t->tag, ENOTDIR);
		if (s->dir != P9F_DIR_TREE) {
			r.u.rread.data =
				p9f_dir_odd(s, t->u.tread.offset,
					    t->u.tread.count, &r.u.rread.count);
			break;
		}
		{
			static uint8_t dbuf[65536];
			struct lx_p9_dirent d;

			pos = 0;
			for (i = (unsigned int)t->u.tread.offset; i < P9F_NODES;
			     i++) {
				size_t before = pos;

				n = &s->nodes[i];
				if (!n->used || n->parent != node)
					continue;
				d.qid = p9f_qid(n);
				d.offset = i + 1;
				d.type = n->dir ? 4 : 8;
				d.name = lx_p9_str_c(n->name);
				if (lx_p9_dirent_put(dbuf, t->u.tread.count,
						     &pos, &d))
					break;
				(void)before;
			}
			r.u.rread.count = (uint32_t)pos;
			r.u.rread.data = dbuf;
		}
		break;
	case LX_P9_TUNLINKAT:
		if (s->unlinkat_unsupported)
			return p9f_err(out, cap, t->tag, EOPNOTSUPP);
		node = p9f_fid(s, t->u.tunlinkat.dfid);
		c = node < 0 ? -1 : p9f_child(s, node, &t->u.tunlinkat.name);
		if (c < 0)
			return p9f_err(out, cap, t->tag, ENOENT);
		s->nodes[c].used = false;
		free(s->nodes[c].data);
		s->nodes[c].data = NULL;
		break;
	case LX_P9_TFSYNC:
	case LX_P9_TSETATTR:
	case LX_P9_TRENAMEAT:
	case LX_P9_TRENAME:
	case LX_P9_TLINK:
	case LX_P9_TXATTRCREATE:
		break;
	case LX_P9_TREADLINK:
		r.u.rreadlink.target = lx_p9_str_c("target/of/link");
		break;
	case LX_P9_TSYMLINK:
	case LX_P9_TMKNOD:
		r.u.rqid.qid.path = 77;
		break;
	case LX_P9_TLOCK:
		r.u.rlock.status = LX_P9_LOCK_SUCCESS;
		break;
	case LX_P9_TGETLOCK:
		r.u.rgetlock = t->u.tgetlock.lock;
		r.u.rgetlock.type = LX_P9_LOCK_TYPE_UNLCK;
		r.u.rgetlock.client_id = lx_p9_str_c("fake-owner");
		break;
	case LX_P9_TXATTRWALK:
		r.u.rxattrwalk.size = 5;
		break;
	default:
		return p9f_err(out, cap, t->tag, ENOSYS);
	}
	if (lx_p9_msg_encode(&r, out, cap, 0, &len))
		return p9f_err(out, cap, t->tag, EIO);
	return len;
}

/* The misbehaving answer to @t (type s->bad_type). */
static enum fakesrv_action p9f_bad(struct p9f *s, const struct lx_p9_fcall *t,
				   uint8_t *out, size_t cap, size_t *outlen)
{
	struct lx_p9_fcall r = {.tag = t->tag};
	static uint8_t big[1 << 20];
	size_t len = 0, n;

	switch (s->bad) {
	case P9F_BAD_COUNT_OVER:
		r.type = LX_P9_RREAD;
		r.u.rread.count = t->u.tread.count + 10;
		r.u.rread.data = big;
		memset(big, 0xEE, r.u.rread.count);
		break;
	case P9F_BAD_WRONG_TYPE:
		r.type = LX_P9_RGETATTR;
		break;
	case P9F_BAD_OVERSIZE:
		r.type = LX_P9_RREAD;
		r.u.rread.count = s->cur_msize; /* 11 + msize > msize */
		r.u.rread.data = big;
		break;
	case P9F_BAD_RERROR:
		r.type = LX_P9_RERROR;
		r.u.rlerror.ecode = EACCES;
		break;
	case P9F_BAD_RFLUSH:
		r.type = LX_P9_RFLUSH;
		break;
	case P9F_BAD_UNUSED_TAG:
		*outlen = p9f_err(out, cap, 0x7777, EIO);
		n = p9f_answer(s, t, out + *outlen, cap - *outlen);
		*outlen += n;
		return FAKESRV_REPLY;
	case P9F_BAD_TRUNCATED:
		n = p9f_answer(s, t, out, cap);
		out[0] = 40; /* keep the first 40 bytes, say so */
		out[1] = out[2] = out[3] = 0;
		*outlen = n < 40 ? n : 40;
		return FAKESRV_REPLY;
	case P9F_BAD_CLOSE:
		*outlen = 0;
		return FAKESRV_CLOSE;
	default:
		break;
	}
	if (lx_p9_msg_encode(&r, out, cap, 0, &len))
		return FAKESRV_CLOSE;
	*outlen = len;
	return FAKESRV_REPLY;
}

static enum fakesrv_action p9f_flush(struct p9f *s, const struct lx_p9_fcall *t,
				     uint8_t *out, size_t cap, size_t *outlen)
{
	struct lx_p9_fcall r = {.type = LX_P9_RFLUSH, .tag = t->tag}, held;
	size_t len = 0;

	s->flushes_seen++;
	switch (s->flush) {
	case P9F_FLUSH_SILENT:
		return FAKESRV_NOREPLY;
	case P9F_FLUSH_SILENT_RELEASE:
		lx_p9_msg_encode(&r, s->owed, sizeof(s->owed), 0, &s->owed_len);
		return FAKESRV_NOREPLY;
	case P9F_FLUSH_RLERROR:
		*outlen = p9f_err(out, cap, t->tag, EINVAL);
		return FAKESRV_REPLY;
	case P9F_FLUSH_SECOND_ONLY:
		if (s->flushes_seen == 1)
			return FAKESRV_NOREPLY;
		break;
	case P9F_FLUSH_SECOND_BOTH:
		if (s->flushes_seen == 1) {
			lx_p9_msg_encode(&r, s->owed, sizeof(s->owed), 0,
					 &s->owed_len);
			return FAKESRV_NOREPLY;
		}
		memcpy(out, s->owed, s->owed_len);
		len = s->owed_len;
		s->owed_len = 0;
		break;
	case P9F_FLUSH_REPLY_FIRST:
		if (s->held_len &&
		    !lx_p9_msg_decode(s->held, s->held_len, 0, &held))
			len = p9f_answer(s, &held, out, cap);
		break;
	case P9F_FLUSH_PARTIAL:
		if (!s->held_len ||
		    lx_p9_msg_decode(s->held, s->held_len, 0, &held))
			return FAKESRV_NOREPLY;
		len = p9f_answer(s, &held, out, cap);
		*outlen = len / 2;
		s->held_len = 0;
		return FAKESRV_RAW;
	default:
		break;
	}
	s->held_len = 0;
	lx_p9_msg_encode(&r, out + len, cap - len, 0, outlen);
	*outlen += len;
	return FAKESRV_REPLY;
}

static P9F_UNUSED enum fakesrv_action p9f_fn(void *arg, const uint8_t *msg,
					     size_t mlen, uint8_t *out,
					     size_t *outlen, unsigned int nth)
{
	struct p9f *s = arg;
	struct lx_p9_fcall t, r = {.type = LX_P9_RVERSION};
	enum fakesrv_action a = FAKESRV_REPLY;
	size_t cap = *outlen, len = 0;

	(void)nth;
	if (lx_p9_msg_decode(msg, mlen, 0, &t))
		return FAKESRV_CLOSE;
	pthread_mutex_lock(&s->lock);
	if (s->nlog < P9F_LOG) {
		s->log[s->nlog].type = t.type;
		s->log[s->nlog].tag = t.tag;
		s->log[s->nlog].oldtag =
			t.type == LX_P9_TFLUSH ? t.u.tflush.oldtag : 0;
		s->nlog++;
	}
	if (t.type != LX_P9_TVERSION && t.tag > s->max_tag)
		s->max_tag = t.tag;
	if ((t.type == LX_P9_TREAD || t.type == LX_P9_TWRITE) &&
	    (t.type == LX_P9_TREAD ? t.u.tread.count : t.u.twrite.count) >
		    s->max_count_seen)
		s->max_count_seen = t.type == LX_P9_TREAD ? t.u.tread.count :
							    t.u.twrite.count;
	if (t.type == LX_P9_TVERSION) {
		s->version_tag = t.tag;
		if (s->version_err) {
			*outlen = p9f_err(out, cap, t.tag, s->version_err);
			goto out;
		}
		r.tag = t.tag;
		r.u.version.msize = t.u.version.msize < s->msize ?
					    t.u.version.msize :
					    s->msize;
		s->cur_msize = r.u.version.msize;
		r.u.version.version = lx_p9_str_c(s->version);
		if (s->version_len)
			r.u.version.version.len = (uint16_t)s->version_len;
		lx_p9_msg_encode(&r, out, cap, 0, outlen);
		goto out;
	}
	if (t.type == LX_P9_TFLUSH) {
		a = p9f_flush(s, &t, out, cap, outlen);
		goto out;
	}
	if (t.type == LX_P9_TGETATTR && t.u.tgetattr.fid == 4000) {
		/* SILENT_RELEASE: pay the Rflush owed, then answer */
		memcpy(out, s->owed, s->owed_len);
		len = s->owed_len;
		s->owed_len = 0;
		*outlen = len + p9f_err(out + len, cap - len, t.tag, EBADF);
		goto out;
	}
	if (s->hold_type && t.type == s->hold_type && mlen <= sizeof(s->held)) {
		memcpy(s->held, msg, mlen);
		s->held_len = mlen;
		a = FAKESRV_NOREPLY;
		goto out;
	}
	if (s->fail_type && t.type == s->fail_type) {
		*outlen = p9f_err(out, cap, t.tag, s->fail_errno);
		goto out;
	}
	if (s->bad != P9F_BAD_NONE && t.type == s->bad_type) {
		a = p9f_bad(s, &t, out, cap, outlen);
		goto out;
	}
	*outlen = p9f_answer(s, &t, out, cap);
out:
	pthread_mutex_unlock(&s->lock);
	return a;
}

static P9F_UNUSED int p9f_start(struct p9f *s)
{
	pthread_mutex_init(&s->lock, NULL);
	p9f_reset(s);
	return fakesrv_start(&s->srv, false, p9f_fn, s);
}

static P9F_UNUSED void p9f_stop(struct p9f *s)
{
	int i;

	fakesrv_stop(s->srv);
	for (i = 0; i < P9F_NODES; i++)
		free(s->nodes[i].data);
	pthread_mutex_destroy(&s->lock);
}

/* Count logged messages of @type. */
static P9F_UNUSED unsigned int p9f_count(struct p9f *s, uint8_t type)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nlog; i++)
		n += s->log[i].type == type;
	pthread_mutex_unlock(&s->lock);
	return n;
}

#endif /* TEST_P9_FAKE_H */

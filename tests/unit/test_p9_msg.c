// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 9P2000.L codec: every message type, T and R, encoded and decoded back
 * (re-encoding the decoded message must give the same bytes, which checks
 * every field), cut short at every byte (always -EBADMSG, never a read
 * past the end: ASan watches), squeezed into every smaller buffer
 * (-EMSGSIZE), and the malformed shapes a server can send: strings, counts
 * and lists past the end, trailing bytes, a lying size field, oversize
 * messages, unknown types, and ganesha's type-107 errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libxprt/p9.h>

#define S(x) ((struct lx_p9_str){(x), (uint16_t)(sizeof(x) - 1)})

static const uint8_t payload[] = "0123456789abcdefghijklmnopqrstuvwxyz";
static const struct lx_p9_qid q1 = {LX_P9_QTDIR, 0x01020304u,
				    0x1122334455667788ull};
static const struct lx_p9_qid q2 = {LX_P9_QTFILE, 7, 42};

/* One sample of every message type with every field non-zero. */
static unsigned int samples(struct lx_p9_fcall *f)
{
	unsigned int n = 0, i;

#define NEXT(t)                                           \
	(memset(&f[n], 0, sizeof(f[n])), f[n].type = (t), \
	 f[n].tag = (uint16_t)(0x100 + n), &f[n++])
	struct lx_p9_fcall *m;

	m = NEXT(LX_P9_TVERSION);
	m->tag = LX_P9_NOTAG;
	m->u.version.msize = 65536;
	m->u.version.version = S("9P2000.L");
	m = NEXT(LX_P9_RVERSION);
	m->u.version.msize = 8192;
	m->u.version.version = S("unknown");
	m = NEXT(LX_P9_TAUTH);
	m->u.tauth.afid = 3;
	m->u.tauth.uname = S("root");
	m->u.tauth.aname = S("/export");
	m->u.tauth.n_uname = 1000;
	m = NEXT(LX_P9_RAUTH);
	m->u.rqid.qid = q1;
	m = NEXT(LX_P9_TATTACH);
	m->u.tattach.fid = 1;
	m->u.tattach.afid = LX_P9_NOFID;
	m->u.tattach.uname = S("bob");
	m->u.tattach.aname = S("/srv/a");
	m->u.tattach.n_uname = 0;
	m = NEXT(LX_P9_RATTACH);
	m->u.rqid.qid = q1;
	m = NEXT(LX_P9_RLERROR);
	m->u.rlerror.ecode = ENOENT;
	m = NEXT(LX_P9_RERROR);
	m->u.rlerror.ecode = EACCES;
	m = NEXT(LX_P9_TFLUSH);
	m->u.tflush.oldtag = 0x1234;
	m = NEXT(LX_P9_RFLUSH);
	m = NEXT(LX_P9_TWALK);
	m->u.twalk.fid = 1;
	m->u.twalk.newfid = 2;
	m->u.twalk.nwname = LX_P9_MAXWELEM;
	for (i = 0; i < LX_P9_MAXWELEM; i++)
		m->u.twalk.wname[i] = i & 1 ? S("component") : S("d");
	m = NEXT(LX_P9_RWALK);
	m->u.rwalk.nwqid = LX_P9_MAXWELEM;
	for (i = 0; i < LX_P9_MAXWELEM; i++)
		m->u.rwalk.wqid[i] = i & 1 ? q1 : q2;
	m = NEXT(LX_P9_TLOPEN);
	m->u.tlopen.fid = 5;
	m->u.tlopen.flags = 02;
	m = NEXT(LX_P9_RLOPEN);
	m->u.ropen.qid = q2;
	m->u.ropen.iounit = 8168;
	m = NEXT(LX_P9_TLCREATE);
	m->u.tlcreate.fid = 5;
	m->u.tlcreate.name = S("new.txt");
	m->u.tlcreate.flags = 0102;
	m->u.tlcreate.mode = 0644;
	m->u.tlcreate.gid = 100;
	m = NEXT(LX_P9_RLCREATE);
	m->u.ropen.qid = q2;
	m->u.ropen.iounit = 1;
	m = NEXT(LX_P9_TREAD);
	m->u.tread.fid = 9;
	m->u.tread.offset = 0xfedcba9876543210ull;
	m->u.tread.count = 4096;
	m = NEXT(LX_P9_RREAD);
	m->u.rread.count = sizeof(payload) - 1;
	m->u.rread.data = payload;
	m = NEXT(LX_P9_TWRITE);
	m->u.twrite.fid = 9;
	m->u.twrite.offset = 77;
	m->u.twrite.count = sizeof(payload) - 1;
	m->u.twrite.data = payload;
	m = NEXT(LX_P9_RWRITE);
	m->u.rwrite.count = 36;
	m = NEXT(LX_P9_TCLUNK);
	m->u.tfid.fid = 11;
	m = NEXT(LX_P9_RCLUNK);
	m = NEXT(LX_P9_TREMOVE);
	m->u.tfid.fid = 12;
	m = NEXT(LX_P9_RREMOVE);
	m = NEXT(LX_P9_TGETATTR);
	m->u.tgetattr.fid = 13;
	m->u.tgetattr.request_mask = LX_P9_GETATTR_ALL;
	m = NEXT(LX_P9_RGETATTR);
	m->u.rgetattr = (struct lx_p9_attr){LX_P9_GETATTR_ALL,
					    q2,
					    0100644,
					    1000,
					    100,
					    1,
					    2,
					    12345,
					    4096,
					    24,
					    11,
					    12,
					    13,
					    14,
					    15,
					    16,
					    17,
					    18,
					    19,
					    20};
	m = NEXT(LX_P9_TSETATTR);
	m->u.tsetattr.fid = 14;
	m->u.tsetattr.attr = (struct lx_p9_iattr){
		LX_P9_SETATTR_SIZE, 0600, 1, 2, 999, 3, 4, 5, 6};
	m = NEXT(LX_P9_RSETATTR);
	m = NEXT(LX_P9_TREADDIR);
	m->u.tread.fid = 15;
	m->u.tread.offset = 3;
	m->u.tread.count = 8000;
	m = NEXT(LX_P9_RREADDIR);
	m->u.rread.count = 10;
	m->u.rread.data = payload;
	m = NEXT(LX_P9_TFSYNC);
	m->u.tfsync.fid = 16;
	m->u.tfsync.datasync = 1;
	m = NEXT(LX_P9_RFSYNC);
	m = NEXT(LX_P9_TMKDIR);
	m->u.tmkdir.dfid = 17;
	m->u.tmkdir.name = S("sub");
	m->u.tmkdir.mode = 0755;
	m->u.tmkdir.gid = 5;
	m = NEXT(LX_P9_RMKDIR);
	m->u.rqid.qid = q1;
	m = NEXT(LX_P9_TUNLINKAT);
	m->u.tunlinkat.dfid = 18;
	m->u.tunlinkat.name = S("gone");
	m->u.tunlinkat.flags = LX_P9_AT_REMOVEDIR;
	m = NEXT(LX_P9_RUNLINKAT);
	m = NEXT(LX_P9_TRENAMEAT);
	m->u.trenameat.olddfid = 19;
	m->u.trenameat.oldname = S("a");
	m->u.trenameat.newdfid = 20;
	m->u.trenameat.newname = S("bb");
	m = NEXT(LX_P9_RRENAMEAT);
	m = NEXT(LX_P9_TSTATFS);
	m->u.tfid.fid = 21;
	m = NEXT(LX_P9_RSTATFS);
	m->u.rstatfs =
		(struct lx_p9_statfs){0x01021997, 4096, 1, 2, 3, 4, 5, 6, 255};
	m = NEXT(LX_P9_TSYMLINK);
	m->u.tsymlink.fid = 22;
	m->u.tsymlink.name = S("ln");
	m->u.tsymlink.symtgt = S("../target");
	m->u.tsymlink.gid = 7;
	m = NEXT(LX_P9_RSYMLINK);
	m->u.rqid.qid = q2;
	m = NEXT(LX_P9_TMKNOD);
	m->u.tmknod.dfid = 23;
	m->u.tmknod.name = S("fifo");
	m->u.tmknod.mode = 010644;
	m->u.tmknod.major = 1;
	m->u.tmknod.minor = 2;
	m->u.tmknod.gid = 3;
	m = NEXT(LX_P9_RMKNOD);
	m->u.rqid.qid = q2;
	m = NEXT(LX_P9_TRENAME);
	m->u.trename.fid = 24;
	m->u.trename.dfid = 25;
	m->u.trename.name = S("moved");
	m = NEXT(LX_P9_RRENAME);
	m = NEXT(LX_P9_TREADLINK);
	m->u.tfid.fid = 26;
	m = NEXT(LX_P9_RREADLINK);
	m->u.rreadlink.target = S("/abs/target");
	m = NEXT(LX_P9_TLINK);
	m->u.tlink.dfid = 27;
	m->u.tlink.fid = 28;
	m->u.tlink.name = S("hard");
	m = NEXT(LX_P9_RLINK);
	m = NEXT(LX_P9_TLOCK);
	m->u.tlock.fid = 29;
	m->u.tlock.lock = (struct lx_p9_flock){LX_P9_LOCK_TYPE_WRLCK,
					       LX_P9_LOCK_FLAGS_BLOCK,
					       10,
					       20,
					       4242,
					       S("host")};
	m = NEXT(LX_P9_RLOCK);
	m->u.rlock.status = LX_P9_LOCK_BLOCKED;
	m = NEXT(LX_P9_TGETLOCK);
	m->u.tgetlock.fid = 30;
	m->u.tgetlock.lock =
		(struct lx_p9_getlock){LX_P9_LOCK_TYPE_RDLCK, 1, 2, 3, S("me")};
	m = NEXT(LX_P9_RGETLOCK);
	m->u.rgetlock = (struct lx_p9_getlock){LX_P9_LOCK_TYPE_UNLCK, 4, 5, 6,
					       S("other")};
	m = NEXT(LX_P9_TXATTRWALK);
	m->u.txattrwalk.fid = 31;
	m->u.txattrwalk.newfid = 32;
	m->u.txattrwalk.name = S("user.x");
	m = NEXT(LX_P9_RXATTRWALK);
	m->u.rxattrwalk.size = 123456789;
	m = NEXT(LX_P9_TXATTRCREATE);
	m->u.txattrcreate.fid = 33;
	m->u.txattrcreate.name = S("user.y");
	m->u.txattrcreate.attr_size = 10;
	m->u.txattrcreate.flags = 1;
	m = NEXT(LX_P9_RXATTRCREATE);
#undef NEXT
	return n;
}

#define MAXS 80

static size_t enc(const struct lx_p9_fcall *f, uint8_t *buf, size_t cap)
{
	size_t len = 0;

	assert_int_equal(lx_p9_msg_encode(f, buf, cap, 0, &len), 0);
	return len;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void set_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void test_every_type_round_trips_byte_exact(void **state)
{
	struct lx_p9_fcall f[MAXS], d;
	uint8_t a[4096], b[4096];
	unsigned int n = samples(f), i, seen_t = 0, seen_r = 0;
	size_t la, lb;

	(void)state;
	for (i = 0; i < n; i++) {
		la = enc(&f[i], a, sizeof(a));
		assert_int_equal(la, lx_p9_msg_size(&f[i]));
		assert_int_equal(le32(a), la);
		assert_int_equal(a[4], f[i].type);
		assert_int_equal(a[5] | a[6] << 8, f[i].tag);
		memset(&d, 0xa5, sizeof(d));
		assert_int_equal(lx_p9_msg_decode(a, la, 0, &d), 0);
		assert_int_equal(d.type, f[i].type);
		assert_int_equal(d.tag, f[i].tag);
		lb = enc(&d, b, sizeof(b));
		assert_int_equal(lb, la);
		assert_memory_equal(a, b, la);
		if (f[i].type & 1)
			seen_r++;
		else
			seen_t++;
	}
	/* the 28 T-messages of 9P2000.L, their replies, Rlerror, Rerror */
	assert_int_equal(seen_t, 28);
	assert_int_equal(seen_r, 30);
}

static void test_decoded_fields_are_the_encoded_ones(void **state)
{
	struct lx_p9_fcall f[MAXS], d;
	unsigned int n = samples(f), i;
	uint8_t buf[4096];
	size_t len;

	(void)state;
	for (i = 0; i < n; i++) {
		len = enc(&f[i], buf, sizeof(buf));
		assert_int_equal(lx_p9_msg_decode(buf, len, 0, &d), 0);
		switch (d.type) {
		case LX_P9_TWALK:
			assert_int_equal(d.u.twalk.nwname, 16);
			assert_int_equal(d.u.twalk.wname[1].len, 9);
			assert_memory_equal(d.u.twalk.wname[1].s, "component",
					    9);
			assert_int_equal(d.u.twalk.newfid, 2);
			break;
		case LX_P9_RWALK:
			assert_int_equal(d.u.rwalk.wqid[1].path, q1.path);
			assert_int_equal(d.u.rwalk.wqid[1].version, q1.version);
			assert_int_equal(d.u.rwalk.wqid[2].type, q2.type);
			break;
		case LX_P9_RREAD:
			assert_int_equal(d.u.rread.count, sizeof(payload) - 1);
			/* data points into the message, not copied */
			assert_ptr_equal(d.u.rread.data, buf + 11);
			break;
		case LX_P9_TREAD:
			assert_int_equal(d.u.tread.offset,
					 0xfedcba9876543210ull);
			break;
		case LX_P9_RGETATTR:
			assert_int_equal(d.u.rgetattr.size, 12345);
			assert_int_equal(d.u.rgetattr.data_version, 20);
			break;
		case LX_P9_RERROR:
			/* ganesha's form: a bare errno */
			assert_int_equal(d.u.rlerror.ecode, EACCES);
			assert_int_equal(len, 11);
			break;
		case LX_P9_TLOCK:
			assert_int_equal(d.u.tlock.lock.proc_id, 4242);
			assert_memory_equal(d.u.tlock.lock.client_id.s, "host",
					    4);
			break;
		default:
			break;
		}
	}
}

/* Cut a message short at every byte and say so in its size field: the
 * decoder must refuse each without reading past the cut (ASan checks the
 * copy is exactly that long). */
static void test_truncation_at_every_byte_is_ebadmsg(void **state)
{
	struct lx_p9_fcall f[MAXS], d;
	unsigned int n = samples(f), i;
	uint8_t full[4096];
	size_t len, cut;
	int r;

	(void)state;
	for (i = 0; i < n; i++) {
		len = enc(&f[i], full, sizeof(full));
		for (cut = 0; cut < len; cut++) {
			uint8_t *m = malloc(cut ? cut : 1);

			memcpy(m, full, cut);
			if (cut >= 4)
				set_le32(m, (uint32_t)cut);
			r = lx_p9_msg_decode(m, cut, 0, &d);
			if (r != -EBADMSG)
				fail_msg("%s cut at %zu of %zu: %d",
					 lx_p9_msg_name(f[i].type), cut, len,
					 r);
			/* the same bytes with the full size announced */
			if (cut >= 4) {
				set_le32(m, (uint32_t)len);
				assert_int_equal(
					lx_p9_msg_decode(m, cut, 0, &d),
					-EBADMSG);
			}
			free(m);
		}
	}
}

static void test_encode_into_every_smaller_buffer_is_emsgsize(void **state)
{
	struct lx_p9_fcall f[MAXS];
	unsigned int n = samples(f), i;
	uint8_t *buf;
	size_t len, cap, out;

	(void)state;
	for (i = 0; i < n; i++) {
		len = lx_p9_msg_size(&f[i]);
		for (cap = 0; cap < len; cap++) {
			buf = malloc(cap ? cap : 1);
			assert_int_equal(
				lx_p9_msg_encode(&f[i], buf, cap, 0, &out),
				-EMSGSIZE);
			free(buf);
		}
	}
}

static void test_trailing_bytes_are_ebadmsg(void **state)
{
	struct lx_p9_fcall f[MAXS], d;
	unsigned int n = samples(f), i;
	uint8_t buf[4096];
	size_t len;

	(void)state;
	for (i = 0; i < n; i++) {
		if (f[i].type == LX_P9_RERROR)
			continue; /* longer bodies are the ename form */
		len = enc(&f[i], buf, sizeof(buf));
		buf[len] = 0;
		set_le32(buf, (uint32_t)len + 1);
		assert_int_equal(lx_p9_msg_decode(buf, len + 1, 0, &d),
				 -EBADMSG);
	}
}

static void test_size_field_must_match_and_fit_msize(void **state)
{
	struct lx_p9_fcall f = {.type = LX_P9_RWRITE, .tag = 1}, d;
	uint8_t buf[64];
	size_t len = enc(&f, buf, sizeof(buf));

	(void)state;
	assert_int_equal(lx_p9_msg_decode(buf, len, len, &d), 0);
	assert_int_equal(lx_p9_msg_decode(buf, len, len - 1, &d), -EMSGSIZE);
	set_le32(buf, (uint32_t)len - 1); /* lies: shorter than the bytes */
	assert_int_equal(lx_p9_msg_decode(buf, len, 0, &d), -EBADMSG);
	set_le32(buf, 3); /* smaller than a header */
	assert_int_equal(lx_p9_msg_decode(buf, len, 0, &d), -EBADMSG);
	assert_int_equal(lx_p9_msg_decode(buf, 6, 0, &d), -EBADMSG);
}

static void test_string_length_past_the_end_is_ebadmsg(void **state)
{
	/* Rreadlink whose string says 100 bytes, 3 follow */
	uint8_t m[] = {0, 0,   0,   0,	LX_P9_RREADLINK, 1, 0, 100,
		       0, 'a', 'b', 'c'};
	/* Rread whose count says 0xffffffff */
	uint8_t r[] = {0, 0,	0,    0,    LX_P9_RREAD, 1,
		       0, 0xff, 0xff, 0xff, 0xff,	 'x'};
	/* Rwalk with 17 qids announced */
	uint8_t w[9] = {0, 0, 0, 0, LX_P9_RWALK, 1, 0, 17, 0};
	/* Twalk with 17 names announced */
	uint8_t t[17] = {0, 0, 0, 0, LX_P9_TWALK, 1, 0};
	struct lx_p9_fcall d;

	(void)state;
	set_le32(m, sizeof(m));
	set_le32(r, sizeof(r));
	set_le32(w, sizeof(w));
	set_le32(t, sizeof(t));
	t[15] = 17;
	assert_int_equal(lx_p9_msg_decode(m, sizeof(m), 0, &d), -EBADMSG);
	assert_int_equal(lx_p9_msg_decode(r, sizeof(r), 0, &d), -EBADMSG);
	assert_int_equal(lx_p9_msg_decode(w, sizeof(w), 0, &d), -EBADMSG);
	assert_int_equal(lx_p9_msg_decode(t, sizeof(t), 0, &d), -EBADMSG);
}

static void test_unknown_types_are_eproto(void **state)
{
	uint8_t m[7] = {7, 0, 0, 0, 0, 1, 0};
	struct lx_p9_fcall d, e = {.type = 200};
	unsigned int t, known = 0;
	size_t len;

	(void)state;
	for (t = 0; t < 256; t++) {
		int r;

		m[4] = (uint8_t)t;
		r = lx_p9_msg_decode(m, sizeof(m), 0, &d);
		if (r == -EPROTO)
			assert_string_equal(lx_p9_msg_name((uint8_t)t),
					    t == LX_P9_TLERROR ? "Tlerror" :
								 "unknown");
		else
			known++;
	}
	assert_true(known > 0);
	/* Terror (106) and Tlerror (6) do not exist on the wire */
	m[4] = 106;
	assert_int_equal(lx_p9_msg_decode(m, sizeof(m), 0, &d), -EPROTO);
	assert_int_equal(lx_p9_msg_encode(&e, m, sizeof(m), 0, &len), -EINVAL);
	assert_int_equal(lx_p9_msg_size(&e), 0);
}

static void test_rerror_forms(void **state)
{
	/* ganesha: type 107, body = errno[4] */
	uint8_t g[11] = {11, 0, 0, 0, LX_P9_RERROR, 3, 0, 13, 0, 0, 0};
	/* 9P2000: ename[s] */
	uint8_t p[13] = {13, 0, 0,   0,	  LX_P9_RERROR, 3,  0,
			 4,  0, 'n', 'o', 'p',		'e'};
	/* 9P2000.u: ename[s] errno[4] */
	uint8_t u[17] = {17, 0, 0,   0,	  LX_P9_RERROR, 3,   0,
			 4,  0, 'n', 'o', 'p',		'e', 2,
			 0,  0, 0};
	struct lx_p9_fcall d;

	(void)state;
	assert_int_equal(lx_p9_msg_decode(g, sizeof(g), 0, &d), 0);
	assert_int_equal(d.u.rlerror.ecode, EACCES);
	assert_int_equal(d.u.rlerror.ename.len, 0);
	assert_int_equal(lx_p9_msg_decode(p, sizeof(p), 0, &d), 0);
	assert_int_equal(d.u.rlerror.ecode, EIO);
	assert_memory_equal(d.u.rlerror.ename.s, "nope", 4);
	assert_int_equal(lx_p9_msg_decode(u, sizeof(u), 0, &d), 0);
	assert_int_equal(d.u.rlerror.ecode, ENOENT);
}

static void test_encode_refuses_bad_fields(void **state)
{
	struct lx_p9_fcall f = {.type = LX_P9_TWALK};
	uint8_t buf[512];
	size_t len;

	(void)state;
	f.u.twalk.nwname = 17;
	assert_int_equal(lx_p9_msg_encode(&f, buf, sizeof(buf), 0, &len),
			 -EINVAL);
	f.u.twalk.nwname = 1;
	f.u.twalk.wname[0].s = NULL;
	f.u.twalk.wname[0].len = 3;
	assert_int_equal(lx_p9_msg_encode(&f, buf, sizeof(buf), 0, &len),
			 -EINVAL);
	f = (struct lx_p9_fcall){.type = LX_P9_RWALK};
	f.u.rwalk.nwqid = 17;
	assert_int_equal(lx_p9_msg_encode(&f, buf, sizeof(buf), 0, &len),
			 -EINVAL);
	f = (struct lx_p9_fcall){.type = LX_P9_TWRITE};
	f.u.twrite.count = 5; /* no data */
	assert_int_equal(lx_p9_msg_encode(&f, buf, sizeof(buf), 0, &len),
			 -EINVAL);
	assert_int_equal(lx_p9_msg_encode(NULL, buf, sizeof(buf), 0, &len),
			 -EINVAL);
	assert_int_equal(lx_p9_msg_encode(&f, NULL, sizeof(buf), 0, &len),
			 -EINVAL);
	assert_int_equal(lx_p9_msg_encode(&f, buf, sizeof(buf), 0x80, &len),
			 -EINVAL);
	assert_int_equal(lx_p9_msg_decode(NULL, 10, 0, &f), -EINVAL);
	assert_int_equal(lx_p9_msg_decode(buf, 10, 0, NULL), -EINVAL);
}

static void test_nodata_counts_but_does_not_copy(void **state)
{
	struct lx_p9_fcall f = {.type = LX_P9_TWRITE, .tag = 9};
	uint8_t buf[64];
	size_t len;

	(void)state;
	f.u.twrite.fid = 1;
	f.u.twrite.count = 1000;
	f.u.twrite.data = NULL; /* comes from elsewhere */
	assert_int_equal(lx_p9_msg_encode(&f, buf, 23, LX_P9_ENC_NODATA, &len),
			 0);
	assert_int_equal(len, 23);
	assert_int_equal(le32(buf), 1023);
	assert_int_equal(le32(buf + 19), 1000);
}

static void test_dirents_round_trip_and_truncate(void **state)
{
	struct lx_p9_dirent a = {q1, 1, 4, S(".")},
			    b = {q2, 2, 8, S("file.txt")};
	struct lx_p9_dirent d;
	uint8_t buf[128];
	size_t pos = 0, len, cut, p;

	(void)state;
	assert_int_equal(lx_p9_dirent_put(buf, sizeof(buf), &pos, &a), 0);
	assert_int_equal(lx_p9_dirent_put(buf, sizeof(buf), &pos, &b), 0);
	len = pos;
	assert_int_equal(len, 2 * 24 + 1 + 8);
	pos = 0;
	assert_int_equal(lx_p9_dirent_next(buf, len, &pos, &d), 1);
	assert_int_equal(d.offset, 1);
	assert_int_equal(d.qid.path, q1.path);
	assert_int_equal(lx_p9_dirent_next(buf, len, &pos, &d), 1);
	assert_int_equal(d.type, 8);
	assert_memory_equal(d.name.s, "file.txt", 8);
	assert_int_equal(lx_p9_dirent_next(buf, len, &pos, &d), 0);
	/* the first entry is 25 bytes; cut the second anywhere */
	for (cut = 26; cut < len; cut++) {
		p = 25;
		assert_int_equal(lx_p9_dirent_next(buf, cut, &p, &d), -EBADMSG);
		assert_int_equal(p, 25);
	}
	pos = 0;
	assert_int_equal(lx_p9_dirent_put(buf, 20, &pos, &a), -EMSGSIZE);
	assert_int_equal(pos, 0);
}

static void test_str_c_and_names(void **state)
{
	struct lx_p9_str s = lx_p9_str_c("abc");

	(void)state;
	assert_int_equal(s.len, 3);
	assert_int_equal(lx_p9_str_c(NULL).len, 0);
	assert_string_equal(lx_p9_msg_name(LX_P9_TWALK), "Twalk");
	assert_string_equal(lx_p9_msg_name(LX_P9_RERROR), "Rerror");
	assert_string_equal(lx_p9_msg_name(250), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type_round_trips_byte_exact),
		cmocka_unit_test(test_decoded_fields_are_the_encoded_ones),
		cmocka_unit_test(test_truncation_at_every_byte_is_ebadmsg),
		cmocka_unit_test(
			test_encode_into_every_smaller_buffer_is_emsgsize),
		cmocka_unit_test(test_trailing_bytes_are_ebadmsg),
		cmocka_unit_test(test_size_field_must_match_and_fit_msize),
		cmocka_unit_test(test_string_length_past_the_end_is_ebadmsg),
		cmocka_unit_test(test_unknown_types_are_eproto),
		cmocka_unit_test(test_rerror_forms),
		cmocka_unit_test(test_encode_refuses_bad_fields),
		cmocka_unit_test(test_nodata_counts_but_does_not_copy),
		cmocka_unit_test(test_dirents_round_trip_and_truncate),
		cmocka_unit_test(test_str_c_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

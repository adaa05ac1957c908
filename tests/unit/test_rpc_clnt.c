// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SunRPC client against an in-process server (fakesrv) that answers per
 * procedure number with every accept and reject status, malformed headers,
 * silence (retransmission with the same XID), and bulk results.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/rpc.h>

#include "helpers/fakesrv.h"

#define TPROG 0x20000077u
#define TVERS 3u

enum {
	P_NULL = 0,
	P_ADD1 = 1,
	P_PROG_UNAVAIL,
	P_PROG_MISMATCH,
	P_PROC_UNAVAIL,
	P_GARBAGE,
	P_SYSERR,
	P_RPC_MISMATCH,
	P_AUTH_TOOWEAK,
	P_BAD_HEADER,
	P_SILENT,
	P_BULK,
	P_CRED, /* returns the AUTH_SYS uid and gid it saw */
	P_BAD_RESULTS,
};

struct srv {
	atomic_uint silent_calls;
	atomic_uint silent_xid;
	atomic_uint silent_xid_changes; /* a P_SILENT call with a new XID */
};

static struct srv srvst;
static struct fakesrv *fs;

/* skip an opaque_auth at p, return the offset after it */
static size_t skip_auth(const uint8_t *p, size_t off)
{
	uint32_t len = fs_get_be32(p + off + 4);

	return off + 8 + ((len + 3) & ~3u);
}

static enum fakesrv_action srv_fn(void *arg, const uint8_t *msg, size_t len,
				  uint8_t *out, size_t *outlen,
				  unsigned int nth)
{
	struct srv *s = arg;
	uint32_t xid = fs_get_be32(msg), proc = fs_get_be32(msg + 20);
	size_t argoff = skip_auth(msg, skip_auth(msg, 24)), n, i;

	(void)nth;
	(void)len;
	switch (proc) {
	case P_NULL:
		n = fs_rpc_accepted(out, xid, 0);
		break;
	case P_ADD1:
		n = fs_rpc_accepted(out, xid, 0);
		fs_put_be32(out + n, fs_get_be32(msg + argoff) + 1);
		n += 4;
		break;
	case P_PROG_UNAVAIL:
		n = fs_rpc_accepted(out, xid, 1);
		break;
	case P_PROG_MISMATCH:
		n = fs_rpc_accepted(out, xid, 2);
		fs_put_be32(out + n, 2);
		fs_put_be32(out + n + 4, 4);
		n += 8;
		break;
	case P_PROC_UNAVAIL:
		n = fs_rpc_accepted(out, xid, 3);
		break;
	case P_GARBAGE:
		n = fs_rpc_accepted(out, xid, 4);
		break;
	case P_SYSERR:
		n = fs_rpc_accepted(out, xid, 5);
		break;
	case P_RPC_MISMATCH:
		fs_put_be32(out, xid);
		fs_put_be32(out + 4, 1);
		fs_put_be32(out + 8, 1);  /* MSG_DENIED */
		fs_put_be32(out + 12, 0); /* RPC_MISMATCH */
		fs_put_be32(out + 16, 2);
		fs_put_be32(out + 20, 2);
		n = 24;
		break;
	case P_AUTH_TOOWEAK:
		fs_put_be32(out, xid);
		fs_put_be32(out + 4, 1);
		fs_put_be32(out + 8, 1);
		fs_put_be32(out + 12, 1); /* AUTH_ERROR */
		fs_put_be32(out + 16, 5); /* AUTH_TOOWEAK */
		n = 20;
		break;
	case P_BAD_HEADER:
		fs_put_be32(out, xid);
		fs_put_be32(out + 4, 7); /* not a REPLY */
		n = 8;
		break;
	case P_SILENT:
		if (atomic_exchange(&s->silent_xid, xid) != xid &&
		    atomic_load(&s->silent_calls))
			atomic_fetch_add(&s->silent_xid_changes, 1);
		if (atomic_fetch_add(&s->silent_calls, 1) < 2)
			return FAKESRV_NOREPLY;
		n = fs_rpc_accepted(out, xid, 0);
		break;
	case P_BULK: {
		uint32_t cnt = fs_get_be32(msg + argoff);

		n = fs_rpc_accepted(out, xid, 0);
		fs_put_be32(out + n, 0xabcd); /* a field before the data */
		fs_put_be32(out + n + 4, cnt);
		n += 8;
		for (i = 0; i < cnt; i++)
			out[n + i] = (uint8_t)(i ^ 0x5a);
		n += cnt;
		while (n & 3)
			out[n++] = 0;
		fs_put_be32(out + n, 0x600d); /* a field after it */
		n += 4;
		break;
	}
	case P_CRED: {
		/* cred: flavor len stamp machname<> uid gid gids<> */
		uint32_t flavor = fs_get_be32(msg + 24);
		uint32_t mlen = fs_get_be32(msg + 36);
		size_t o = 40 + ((mlen + 3) & ~3u);

		n = fs_rpc_accepted(out, xid, 0);
		fs_put_be32(out + n, flavor);
		fs_put_be32(out + n + 4,
			    flavor == 1 ? fs_get_be32(msg + o) : 0);
		fs_put_be32(out + n + 8,
			    flavor == 1 ? fs_get_be32(msg + o + 4) : 0);
		n += 12;
		break;
	}
	case P_BAD_RESULTS:
		n = fs_rpc_accepted(out, xid, 0); /* results missing */
		break;
	default:
		n = fs_rpc_accepted(out, xid, 3);
		break;
	}
	*outlen = n;
	return FAKESRV_REPLY;
}

static struct lx_rpc_clnt *mk_clnt(unsigned int nconnect, unsigned int timeo_ms)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_clnt *cl = NULL;

	o.host = "127.0.0.1";
	o.port = fakesrv_port(fs);
	o.prog = TPROG;
	o.vers = TVERS;
	o.auth.flavor = LX_RPC_AUTH_SYS;
	o.auth.set_ids = true;
	o.auth.uid = 1234;
	o.auth.gid = 5678;
	o.nconnect = nconnect;
	o.timeo_ms = timeo_ms;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	return cl;
}

static int setup(void **state)
{
	(void)state;
	memset(&srvst, 0, sizeof(srvst));
	return fakesrv_start(&fs, true, srv_fn, &srvst);
}

static int teardown(void **state)
{
	(void)state;
	fakesrv_stop(fs);
	return 0;
}

static void test_null_and_xdr(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(1, 0);
	uint32_t in = 41, out = 0;

	(void)state;
	assert_int_equal(lx_rpc_null(cl), 0);
	assert_int_equal(lx_rpc_call_simple(cl, P_ADD1, (xdrproc_t)xdr_u_int,
					    &in, (xdrproc_t)xdr_u_int, &out),
			 0);
	assert_int_equal(out, 42);
	lx_rpc_destroy(cl);
}

static void test_accept_reject_statuses(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(1, 0);
	struct lx_rpc_call_args a = {0};
	struct lx_rpc_reply_info info;

	(void)state;
	a.proc = P_PROG_UNAVAIL;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EPFNOSUPPORT);
	assert_int_equal(info.accept_stat, 1);
	a.proc = P_PROG_MISMATCH;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EPROTONOSUPPORT);
	assert_int_equal(info.low, 2);
	assert_int_equal(info.high, 4);
	a.proc = P_PROC_UNAVAIL;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EOPNOTSUPP);
	a.proc = P_GARBAGE;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EINVAL);
	a.proc = P_SYSERR;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EREMOTEIO);
	a.proc = P_RPC_MISMATCH;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EPROTO);
	assert_int_equal(info.reply_stat, 1);
	assert_int_equal(info.low, 2);
	a.proc = P_AUTH_TOOWEAK;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EACCES);
	assert_int_equal(info.auth_stat, 5);
	/* not a REPLY: garbage, the connection is dropped, again after each
	 * reconnect: a soft client (retrans 2) gives up after the call went
	 * out on 3 such connections (0, 0.1, 0.3 s), well before timeo */
	a.proc = P_BAD_HEADER;
	a.timeo_ms = 5000;
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -ECONNRESET);
	{
		struct lx_xprt_stats st;

		lx_xprt_stats(lx_rpc_xprt(cl, 0), &st);
		assert_true(st.garbage >= 3);
	}
	a.timeo_ms = 0;
	/* results that fail to decode */
	{
		uint32_t out;

		assert_int_equal(lx_rpc_call_simple(cl, P_BAD_RESULTS, NULL,
						    NULL, (xdrproc_t)xdr_u_int,
						    &out),
				 -EBADMSG);
	}
	/* the client still works */
	assert_int_equal(lx_rpc_null(cl), 0);
	lx_rpc_destroy(cl);
}

static void test_auth_sys_credential(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(1, 0);
	uint32_t out[3];

	(void)state;
	assert_int_equal(lx_rpc_call_simple(cl, P_CRED, NULL, NULL,
					    (xdrproc_t)xdr_u_int, &out[0]),
			 0);
	assert_int_equal(out[0], 1); /* AUTH_SYS */
	lx_rpc_destroy(cl);
}

static bool_t dec_cred(XDR *x, void *p)
{
	uint32_t *v = p;

	return xdr_u_int(x, &v[0]) && xdr_u_int(x, &v[1]) &&
	       xdr_u_int(x, &v[2]);
}

static void test_auth_sys_ids(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(1, 0);
	uint32_t v[3] = {0};

	(void)state;
	assert_int_equal(lx_rpc_call_simple(cl, P_CRED, NULL, NULL,
					    (xdrproc_t)dec_cred, v),
			 0);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 1234);
	assert_int_equal(v[2], 5678);
	lx_rpc_destroy(cl);
}

/* Wait (bounded, 30 s) until the fake server has seen at least n P_SILENT
 * calls: a transmission written before the client gave up may still be in
 * the socket when a loaded machine returns from the call. */
static unsigned int wait_silent_calls(unsigned int n)
{
	for (int i = 0; i < 30000 && atomic_load(&srvst.silent_calls) < n; i++)
		usleep(1000);
	return atomic_load(&srvst.silent_calls);
}

/* The server ignores the first two transmissions and answers from the
 * third on.  The retransmit timeout stays short (50 ms, doubling) but the
 * retransmissions are not bounded by a wall-clock window: a practically
 * unlimited retrans and a 30 s deadline, so that a loaded machine (ASan)
 * where a reply takes longer than the third wait gives one more
 * retransmission, not -ETIMEDOUT.  What is asserted is counted by the
 * server: it saw at least the three transmissions, never more than the
 * client sent, all with the XID the call completed with. */
static void test_retransmit_same_xid(void **state)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_clnt *cl = NULL;
	struct lx_rpc_call_args a = {.proc = P_SILENT, .deadline_ms = 30000};
	struct lx_rpc_reply_info info;
	unsigned int seen;

	(void)state;
	o.host = "127.0.0.1";
	o.port = fakesrv_port(fs);
	o.prog = TPROG;
	o.vers = TVERS;
	o.timeo_ms = 50;
	o.retrans = 1000;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), 0);
	assert_true(info.retransmits >= 2);
	seen = atomic_load(&srvst.silent_calls);
	assert_true(seen >= 3); /* it only answers the third */
	assert_true(seen <= info.retransmits + 1);
	assert_int_equal(atomic_load(&srvst.silent_xid_changes), 0);
	assert_int_equal(atomic_load(&srvst.silent_xid), info.xid);
	lx_rpc_destroy(cl);
}

/* retrans 1: two transmissions, both ignored, then -ETIMEDOUT.  Whatever
 * the load the server never answers them (it answers from the third), so
 * the timeout is certain; the count is read once the server has read what
 * was sent (and a third would have been a bug: none was sent). */
static void test_major_timeout(void **state)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_clnt *cl;
	struct lx_rpc_call_args a = {.proc = P_SILENT};

	(void)state;
	atomic_store(&srvst.silent_calls, 0);
	o.host = "127.0.0.1";
	o.port = fakesrv_port(fs);
	o.prog = TPROG;
	o.vers = TVERS;
	o.timeo_ms = 30;
	o.retrans = 1;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	assert_int_equal(lx_rpc_call_sync(cl, &a, NULL), -ETIMEDOUT);
	assert_int_equal(wait_silent_calls(2), 2);
	assert_int_equal(atomic_load(&srvst.silent_xid_changes), 0);
	lx_rpc_destroy(cl);
	assert_int_equal(atomic_load(&srvst.silent_calls), 2);
}

struct bulk {
	uint32_t before, len, after;
};

static bool_t dec_bulk(XDR *x, void *p)
{
	struct bulk *b = p;

	/* the data and its XDR padding were taken out of the reply: the
	 * data is in the caller's buffer */
	return xdr_u_int(x, &b->before) && xdr_u_int(x, &b->len) &&
	       xdr_u_int(x, &b->after);
}

static int place_bulk(void *arg, const uint8_t *body, size_t have, size_t *off,
		      size_t *len)
{
	uint32_t max = *(uint32_t *)arg, n;

	if (have < 8)
		return 8;
	n = fs_get_be32(body + 4);
	if (n > max)
		return -EOVERFLOW;
	*off = 8;
	*len = n;
	return 0;
}

static void run_bulk(struct lx_rpc_clnt *cl, uint32_t cnt)
{
	uint8_t *buf = calloc(1, cnt + 16);
	struct iovec iov = {buf, cnt + 16}; /* room past cnt: never written */
	struct bulk b = {0};
	struct lx_rpc_call_args a = {0};
	uint32_t i;

	a.proc = P_BULK;
	a.enc = (xdrproc_t)xdr_u_int;
	a.args = &cnt;
	a.dec = (xdrproc_t)dec_bulk;
	a.res = &b;
	a.place = place_bulk;
	a.place_arg = &cnt;
	a.rx_iov = &iov;
	a.rx_iovcnt = 1;
	a.rx_len = cnt;
	assert_int_equal(lx_rpc_call_sync(cl, &a, NULL), 0);
	assert_int_equal(b.before, 0xabcd);
	assert_int_equal(b.len, cnt);
	assert_int_equal(b.after, 0x600d);
	for (i = 0; i < cnt; i++)
		if (buf[i] != (uint8_t)(i ^ 0x5a))
			fail_msg("byte %u", i);
	for (i = cnt; i < cnt + 16; i++)
		assert_int_equal(buf[i], 0);
	free(buf);
}

static void test_bulk_results(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(2, 0);

	(void)state;
	run_bulk(cl, 1);
	run_bulk(cl, 4096);
	run_bulk(cl, 100001);
	run_bulk(cl, 1u << 20);
	lx_rpc_destroy(cl);
}

struct async_ctx {
	atomic_uint done;
	atomic_uint bad;
	uint32_t out[256];
	struct lx_call calls[256];
};

static void async_done(struct lx_call *call, int status, void *arg)
{
	struct async_ctx *c = arg;

	if (status || !lx_rpc_call_info(call))
		atomic_fetch_add(&c->bad, 1);
	atomic_fetch_add(&c->done, 1);
}

static void test_async_nconnect(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(4, 0);
	struct async_ctx *c = calloc(1, sizeof(*c));
	uint32_t in[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < 256; i++) {
		struct lx_rpc_call_args a = {0};

		in[i] = i * 3;
		a.proc = P_ADD1;
		a.enc = (xdrproc_t)xdr_u_int;
		a.args = &in[i];
		a.dec = (xdrproc_t)xdr_u_int;
		a.res = &c->out[i];
		c->calls[i].done = async_done;
		c->calls[i].arg = c;
		assert_int_equal(lx_rpc_call_async(cl, &c->calls[i], &a), 0);
	}
	for (i = 0; i < 1000 && atomic_load(&c->done) < 256; i++)
		usleep(10000);
	assert_int_equal(atomic_load(&c->done), 256);
	assert_int_equal(atomic_load(&c->bad), 0);
	for (i = 0; i < 256; i++)
		assert_int_equal(c->out[i], i * 3 + 1);
	assert_int_equal(lx_rpc_nconnect(cl), 4);
	assert_int_equal(fakesrv_conns(fs), 4);
	{
		struct lx_rpc_stats st;

		lx_rpc_stats(cl, &st); /* summed over the four connections */
		assert_int_equal(st.nconnect, 4);
		assert_true(st.xprt.completed >= 256);
		assert_true(st.xprt.connects >= 4);
	}
	lx_rpc_destroy(cl);
	free(c);
}

/* the again() hook: every reply asks for another go, 200 ms later */
static unsigned int again_always(void *arg, const void *res, unsigned int n)
{
	(void)res;
	(void)n;
	atomic_fetch_add((atomic_uint *)arg, 1);
	return 200;
}

struct one {
	atomic_int status, calls;
};

static void one_done(struct lx_call *call, int status, void *arg)
{
	struct one *o = arg;

	(void)call;
	atomic_store(&o->status, status);
	atomic_fetch_add(&o->calls, 1);
}

/* A call waiting to go out again is cancelled at once, its callback run
 * once with -ECANCELED; and destroying the client ends one -ESHUTDOWN. */
static void test_again_cancel_and_destroy(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(1, 0);
	struct lx_rpc_call_args a = {.proc = 0};
	static struct lx_call call;
	atomic_uint asked = 0;
	struct one o = {0};
	int i;

	(void)state;
	a.again = again_always;
	a.again_arg = &asked;
	call = (struct lx_call){.done = one_done, .arg = &o};
	assert_int_equal(lx_rpc_call_async(cl, &call, &a), 0);
	for (i = 0; i < 10000 && atomic_load(&asked) < 2; i++)
		usleep(1000); /* bounded at 10 s: a loaded machine */
	assert_int_equal(atomic_load(&asked), 2); /* sent again once */
	usleep(50000);				  /* waiting for its next go */
	assert_int_equal(lx_call_cancel(&call), 0);
	assert_int_equal(atomic_load(&o.calls), 1);
	assert_int_equal(atomic_load(&o.status), -ECANCELED);
	usleep(300000);
	assert_int_equal(atomic_load(&o.calls), 1);
	assert_int_equal(atomic_load(&asked), 2);

	memset(&o, 0, sizeof(o));
	call = (struct lx_call){.done = one_done, .arg = &o};
	assert_int_equal(lx_rpc_call_async(cl, &call, &a), 0);
	usleep(50000);
	lx_rpc_destroy(cl);
	assert_int_equal(atomic_load(&o.calls), 1);
	assert_int_equal(atomic_load(&o.status), -ESHUTDOWN);
}

static void test_cancel_async(void **state)
{
	struct lx_rpc_clnt *cl = mk_clnt(1, 0);
	struct async_ctx *c = calloc(1, sizeof(*c));
	struct lx_rpc_call_args a = {.proc = P_SILENT};
	struct lx_call *call = &c->calls[0];

	(void)state;
	atomic_store(&srvst.silent_calls, 0);
	call->done = async_done;
	call->arg = c;
	assert_int_equal(lx_rpc_call_async(cl, call, &a), 0);
	assert_int_equal(lx_call_cancel(call), 0);
	for (int i = 0; i < 10000 && !atomic_load(&c->done); i++)
		usleep(1000); /* bounded at 10 s: a loaded machine */
	assert_int_equal(atomic_load(&c->done), 1);
	assert_int_equal(atomic_load(&c->bad), 1);
	/* decided, and the slot may be another call's now: left alone */
	assert_int_equal(lx_call_cancel(call), -EALREADY);
	lx_rpc_destroy(cl);
	free(c);
}

static void test_create_validation(void **state)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_clnt *cl;

	(void)state;
	assert_int_equal(lx_rpc_create(&cl, &o), -EINVAL);
	o.host = "127.0.0.1";
	o.port = fakesrv_port(fs);
	o.nconnect = 17;
	assert_int_equal(lx_rpc_create(&cl, &o), -EINVAL);
	o.nconnect = 1;
	o.buf_size = 100; /* smaller than a call header */
	assert_int_equal(lx_rpc_create(&cl, &o), -EINVAL);
	o.buf_size = 0;
	o.auth.flavor = 6; /* RPCSEC_GSS: not supported */
	assert_int_equal(lx_rpc_create(&cl, &o), -EINVAL);
	assert_int_equal(lx_rpc_call_sync(NULL, NULL, NULL), -EINVAL);
	assert_string_equal(lx_strerror(-EPFNOSUPPORT),
			    "program unavailable (PROG_UNAVAIL)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_and_xdr, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_accept_reject_statuses,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_sys_credential, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_auth_sys_ids, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_retransmit_same_xid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_major_timeout, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bulk_results, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_async_nconnect, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_again_cancel_and_destroy,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_async, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_create_validation, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

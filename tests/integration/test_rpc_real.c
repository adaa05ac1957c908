// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SunRPC client against real servers started by tests/servers: nfs-ganesha
 * (NFS v3 and MOUNT v3) and rpcbind.  Server addresses come from the
 * XPRT_* environment written by servers.sh.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/rpc.h>
#include <libxprt/rpcbind.h>

#include "helpers/testenv.h"

#define NFS_PROG   100003u
#define MOUNT_PROG 100005u

static struct lx_rpc_clnt *mk(uint32_t prog, uint32_t vers, uint16_t port,
			      unsigned int timeo_ms, unsigned int retrans)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_clnt *cl = NULL;

	o.host = test_env("XPRT_NFS_HOST");
	o.port = port;
	o.prog = prog;
	o.vers = vers;
	o.auth.flavor = LX_RPC_AUTH_SYS;
	o.timeo_ms = timeo_ms;
	o.retrans = retrans;
	o.reconnect_give_up_ms = 0;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	return cl;
}

static uint16_t nfs_port(void)
{
	return (uint16_t)atoi(test_env("XPRT_NFS_PORT"));
}

static uint16_t mnt_port(void)
{
	return (uint16_t)atoi(test_env("XPRT_MNT_PORT"));
}

static void test_null_nfs3_and_mount3(void **state)
{
	struct lx_rpc_clnt *nfs = mk(NFS_PROG, 3, nfs_port(), 0, 0);
	struct lx_rpc_clnt *mnt = mk(MOUNT_PROG, 3, mnt_port(), 0, 0);

	(void)state;
	assert_int_equal(lx_rpc_null(nfs), 0);
	assert_int_equal(lx_rpc_null(mnt), 0);
	lx_rpc_destroy(nfs);
	lx_rpc_destroy(mnt);
}

static void test_wrong_program_and_version(void **state)
{
	struct lx_rpc_clnt *cl;
	struct lx_rpc_call_args a = {.proc = 0};
	struct lx_rpc_reply_info info;

	(void)state;
	cl = mk(NFS_PROG + 77, 1, nfs_port(), 0, 0);
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EPFNOSUPPORT);
	lx_rpc_destroy(cl);

	cl = mk(NFS_PROG, 7, nfs_port(), 0, 0);
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EPROTONOSUPPORT);
	/* ganesha serves v3 here (and v4 when built with it) */
	assert_true(info.low <= 3 && info.high >= 3);
	printf("PROG_MISMATCH range reported: %u..%u\n", info.low, info.high);
	lx_rpc_destroy(cl);
}

struct fh {
	char data[64];
	u_int len;
};

static bool_t enc_fh(XDR *x, void *p)
{
	struct fh *fh = p;
	char *d = fh->data;

	return xdr_bytes(x, &d, &fh->len, 64);
}

static bool_t enc_path(XDR *x, void *p)
{
	char *s = p;

	return xdr_string(x, &s, 1024);
}

/* MNT3 result: status, then on success fhandle3 and auth flavors */
static bool_t dec_mnt(XDR *x, void *p)
{
	struct fh *fh = p;
	char *d = fh->data;
	u_int st;

	if (!xdr_u_int(x, &st) || st != 0)
		return FALSE;
	return xdr_bytes(x, &d, &fh->len, 64);
}

static void test_auth_none_too_weak(void **state)
{
	struct lx_rpc_opts o = {0};
	struct lx_rpc_clnt *cl;
	struct lx_rpc_reply_info info;
	struct fh fh = {.len = 0};
	struct lx_rpc_call_args a = {.proc = 1, /* GETATTR */
				     .enc = (xdrproc_t)enc_fh,
				     .args = &fh};

	(void)state;
	/* MOUNT accepts AUTH_NONE and gives a real root handle */
	o.host = test_env("XPRT_NFS_HOST");
	o.port = mnt_port();
	o.prog = MOUNT_PROG;
	o.vers = 3;
	o.auth.flavor = LX_RPC_AUTH_NONE;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	assert_int_equal(lx_rpc_call_simple(cl, 1, (xdrproc_t)enc_path,
					    test_env("XPRT_NFS_EXPORT"),
					    (xdrproc_t)dec_mnt, &fh),
			 0);
	assert_true(fh.len > 0);
	lx_rpc_destroy(cl);
	o.host = test_env("XPRT_NFS_HOST");
	o.port = nfs_port();
	o.prog = NFS_PROG;
	o.vers = 3;
	o.auth.flavor = LX_RPC_AUTH_NONE;
	assert_int_equal(lx_rpc_create(&cl, &o), 0);
	/* ganesha refuses every procedure but NULL without AUTH_SYS */
	assert_int_equal(lx_rpc_call_sync(cl, &a, &info), -EACCES);
	assert_int_equal(info.auth_stat, 5); /* AUTH_TOOWEAK */
	assert_int_equal(lx_rpc_null(cl), 0);
	lx_rpc_destroy(cl);
}

struct dump_seen {
	int nfs3_tcp, mnt3;
	uint16_t nfs_port;
};

static void dump_cb(const struct lx_rpcbind_entry *e, void *arg)
{
	struct dump_seen *s = arg;

	if (e->prog == NFS_PROG && e->vers == 3 && !strcmp(e->netid, "tcp")) {
		s->nfs3_tcp++;
		s->nfs_port = e->port;
	}
	if (e->prog == MOUNT_PROG && e->vers == 3)
		s->mnt3++;
}

static void test_rpcbind(void **state)
{
	struct lx_rpcbind_opts o = {.host = test_env("XPRT_RPCBIND")};
	struct dump_seen s = {0};
	char uaddr[64];
	uint16_t port = 0;
	int n;

	(void)state;
	assert_int_equal(
		lx_rpcbind_getport(&o, NFS_PROG, 3, IPPROTO_TCP, &port), 0);
	assert_int_equal(port, nfs_port());
	assert_int_equal(
		lx_rpcbind_getport(&o, 0x31337u, 1, IPPROTO_TCP, &port),
		-EPFNOSUPPORT);
	assert_int_equal(lx_rpcbind_getaddr(&o, 4, NFS_PROG, 3, "tcp", uaddr,
					    sizeof(uaddr)),
			 0);
	assert_int_equal(lx_rpcbind_uaddr_port(uaddr, &port), 0);
	assert_int_equal(port, nfs_port());
	assert_int_equal(lx_rpcbind_getaddr(&o, 3, MOUNT_PROG, 3, "tcp", uaddr,
					    sizeof(uaddr)),
			 0);
	assert_int_equal(lx_rpcbind_uaddr_port(uaddr, &port), 0);
	assert_int_equal(port, mnt_port());
	n = lx_rpcbind_dump(&o, 2, dump_cb, &s);
	assert_true(n > 0);
	assert_int_equal(s.nfs3_tcp, 1);
	assert_int_equal(s.nfs_port, nfs_port());
	memset(&s, 0, sizeof(s));
	n = lx_rpcbind_dump(&o, 4, dump_cb, &s);
	assert_true(n > 0);
	assert_true(s.nfs3_tcp >= 1);
	assert_true(s.mnt3 >= 1);
}

static void test_port_from_rpcbind(void **state)
{
	struct lx_rpc_clnt *cl = mk(NFS_PROG, 3, 0, 0, 0);

	(void)state;
	assert_int_equal(lx_rpc_null(cl), 0);
	lx_rpc_destroy(cl);
}

struct nulls {
	struct lx_rpc_clnt *cl;
	atomic_uint ok;
};

static void *null_thread(void *p)
{
	struct nulls *n = p;
	int i;

	for (i = 0; i < 200; i++)
		if (lx_rpc_null(n->cl) == 0)
			atomic_fetch_add(&n->ok, 1);
	return NULL;
}

struct async_state {
	atomic_uint done, ok;
	atomic_uchar count[64];
	struct lx_call calls[64];
};

static void async_cb(struct lx_call *call, int status, void *arg)
{
	struct async_state *s = arg;

	(void)call;
	(void)status;
	atomic_fetch_add(&s->done, 1);
	if (!status)
		atomic_fetch_add(&s->ok, 1);
}

/* 64 NULLs in flight on one connection, from 8 threads */
static void test_64_in_flight_8_threads(void **state)
{
	struct nulls n = {.cl = mk(NFS_PROG, 3, nfs_port(), 0, 0)};
	struct async_state *s = calloc(1, sizeof(*s));
	pthread_t th[8];
	struct lx_xprt_stats st;
	int i;

	(void)state;
	/* 64 async calls put on the wire at once... */
	for (i = 0; i < 64; i++) {
		struct lx_rpc_call_args a = {.proc = 0};

		s->calls[i] = (struct lx_call){.done = async_cb, .arg = s};
		assert_int_equal(lx_rpc_call_async(n.cl, &s->calls[i], &a), 0);
	}
	/* ...while 8 threads make sync calls on the same connection */
	for (i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, null_thread, &n);
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 1000 && atomic_load(&s->done) < 64; i++)
		usleep(10000);
	assert_int_equal(atomic_load(&s->done), 64);
	assert_int_equal(atomic_load(&s->ok), 64);
	assert_int_equal(atomic_load(&n.ok), 8 * 200);
	lx_xprt_stats(lx_rpc_xprt(n.cl, 0), &st);
	assert_int_equal(st.connects, 1);
	assert_int_equal(st.bad_keys, 0);
	lx_rpc_destroy(n.cl);
	free(s);
}

static int servers_sh(const char *verb)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s %s %s ganesha >/dev/null 2>&1",
		 test_env("XPRT_SERVERS_SH"), verb,
		 test_env("XPRT_SERVERS_RUN_DIR"));
	return system(cmd);
}

#define RESTART_CALLS 400

struct restart_state {
	atomic_uint done;
	atomic_uint ok, timedout, other;
	atomic_uint per_call[RESTART_CALLS];
};

struct restart_arg {
	struct lx_call call;
	struct restart_state *s;
	unsigned int i;
};

static void restart_cb(struct lx_call *call, int status, void *arg)
{
	struct restart_arg *ra = arg;
	struct restart_state *s = ra->s;

	(void)call;
	atomic_fetch_add(&s->per_call[ra->i], 1);
	if (!status)
		atomic_fetch_add(&s->ok, 1);
	else if (status == -ETIMEDOUT)
		atomic_fetch_add(&s->timedout, 1);
	else
		atomic_fetch_add(&s->other, 1);
	atomic_fetch_add(&s->done, 1);
}

/*
 * The server is killed in the middle of a stream of calls and started
 * again: every call completes exactly once, either successfully (resent
 * after the reconnect) or with -ETIMEDOUT; none hangs.
 */
static void test_server_killed_mid_run(void **state)
{
	struct lx_rpc_clnt *cl = mk(NFS_PROG, 3, nfs_port(), 700, 3);
	struct restart_state *s = calloc(1, sizeof(*s));
	struct restart_arg *ra = calloc(RESTART_CALLS, sizeof(*ra));
	struct lx_xprt_stats st;
	unsigned int i;

	(void)state;
	for (i = 0; i < RESTART_CALLS; i++) {
		struct lx_rpc_call_args a = {.proc = 0};

		ra[i] = (struct restart_arg){.s = s, .i = i};
		ra[i].call =
			(struct lx_call){.done = restart_cb, .arg = &ra[i]};
		if (i == RESTART_CALLS / 4)
			assert_int_equal(servers_sh("kill"), 0);
		if (i == RESTART_CALLS / 2) {
			usleep(300000);
			assert_int_equal(servers_sh("start"), 0);
		}
		assert_int_equal(lx_rpc_call_async(cl, &ra[i].call, &a), 0);
		usleep(2000);
	}
	/* bounded: timeo 0.7 s doubling over 3 retransmissions < 6 s */
	for (i = 0; i < 3000 && atomic_load(&s->done) < RESTART_CALLS; i++)
		usleep(10000);
	printf("after restart: ok %u timed out %u other %u\n",
	       atomic_load(&s->ok), atomic_load(&s->timedout),
	       atomic_load(&s->other));
	assert_int_equal(atomic_load(&s->done), RESTART_CALLS);
	for (i = 0; i < RESTART_CALLS; i++)
		assert_int_equal(atomic_load(&s->per_call[i]), 1);
	assert_int_equal(atomic_load(&s->other), 0);
	assert_true(atomic_load(&s->ok) >= RESTART_CALLS / 2);
	lx_xprt_stats(lx_rpc_xprt(cl, 0), &st);
	assert_true(st.connects >= 2);
	/* and it works normally afterwards */
	assert_int_equal(lx_rpc_null(cl), 0);
	lx_rpc_destroy(cl);
	free(ra);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_nfs3_and_mount3),
		cmocka_unit_test(test_wrong_program_and_version),
		cmocka_unit_test(test_auth_none_too_weak),
		cmocka_unit_test(test_rpcbind),
		cmocka_unit_test(test_port_from_rpcbind),
		cmocka_unit_test(test_64_in_flight_8_threads),
		cmocka_unit_test(test_server_killed_mid_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

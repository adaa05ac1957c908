// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the URL parser (url/): libnfs's nfs:// syntax and the 9p://
 * form, IPv6 in brackets, %-escapes, every argument of both schemes, the
 * export/file split, the options filled, and the messages that name the
 * bad part.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxprt/url.h>

/* parse @s, expecting success */
static void ok(const char *s, struct lx_url *u)
{
	int ret = lx_url_parse(s, u);

	if (ret)
		fail_msg("%s: %d, %s", s, ret, u->error);
	assert_string_equal(u->error, "");
}

/* parse @s, expecting @err and a message containing @part */
static void bad(const char *s, int err, const char *part)
{
	struct lx_url u;
	int ret = lx_url_parse(s, &u);

	if (ret != err)
		fail_msg("%s: %d, want %d (%s)", s, ret, err, u.error);
	if (!strstr(u.error, part))
		fail_msg("%s: message '%s' lacks '%s'", s, u.error, part);
	/* nothing left allocated: every pointer cleared */
	assert_null(u.host);
	assert_null(u.path);
	assert_null(u.args);
	lx_url_free(&u);
}

static struct lx_nfs3_opts nfs_opts(const char *s)
{
	struct lx_nfs3_opts o = {0};
	struct lx_url u;

	ok(s, &u);
	assert_int_equal(lx_url_nfs3_opts(&u, &o), 0);
	/* the strings are u's: compare before freeing, then drop them */
	o.host = NULL;
	o.export_path = NULL;
	lx_url_free(&u);
	return o;
}

static struct lx_p9_opts p9_opts(const char *s)
{
	struct lx_p9_opts o = {0};
	struct lx_url u;

	ok(s, &u);
	assert_int_equal(lx_url_p9_opts(&u, &o), 0);
	o.host = NULL;
	o.aname = NULL;
	o.uname = NULL;
	lx_url_free(&u);
	return o;
}

static void test_nfs_parts(void **state)
{
	struct lx_nfs3_opts o = {.errmsg = (char *)"kept"};
	struct lx_url u;

	(void)state;
	ok("nfs://server/export/dir", &u);
	assert_int_equal(u.scheme, LX_URL_NFS);
	assert_null(u.user);
	assert_string_equal(u.host, "server");
	assert_int_equal(u.port, 0);
	assert_string_equal(u.path, "/export/dir");
	assert_int_equal(u.nargs, 0);
	assert_null(u.root);
	assert_null(u.file);
	assert_int_equal(lx_url_nfs3_opts(&u, &o), 0);
	assert_ptr_equal(o.host, u.host);
	assert_string_equal(o.export_path, "/export/dir");
	assert_string_equal(o.errmsg, "kept"); /* untouched */
	assert_int_equal(o.nfs_port, 0);
	lx_url_free(&u);
	assert_null(u.host);
	lx_url_free(&u); /* twice: harmless */
	lx_url_free(NULL);

	ok("NFS://alice@10.0.0.1:2050/", &u);
	assert_string_equal(u.user, "alice");
	assert_string_equal(u.host, "10.0.0.1");
	assert_int_equal(u.port, 2050);
	assert_string_equal(u.path, "/");
	memset(&o, 0, sizeof(o));
	assert_int_equal(lx_url_nfs3_opts(&u, &o), 0);
	assert_int_equal(o.nfs_port, 2050);
	/* the wrong scheme's options */
	{
		struct lx_p9_opts po = {0};

		assert_int_equal(lx_url_p9_opts(&u, &po), -EINVAL);
		assert_null(po.host);
	}
	lx_url_free(&u);
	/* an empty :PORT is no port (RFC 3986) */
	ok("nfs://h:/e", &u);
	assert_int_equal(u.port, 0);
	lx_url_free(&u);
}

static void test_ipv6(void **state)
{
	struct lx_url u;

	(void)state;
	ok("nfs://[::1]/export", &u);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 0);
	lx_url_free(&u);
	ok("nfs://[fe80::1%25eth0]:2049/e?nfsport=2049", &u);
	assert_string_equal(u.host, "fe80::1%eth0");
	assert_int_equal(u.port, 2049);
	assert_string_equal(u.path, "/e");
	lx_url_free(&u);
	ok("9p://bob@[2001:db8::7]:564", &u);
	assert_string_equal(u.user, "bob");
	assert_string_equal(u.host, "2001:db8::7");
	assert_int_equal(u.port, 564);
	assert_string_equal(u.path, "");
	lx_url_free(&u);
	bad("nfs://::1/export", -EINVAL, "an IPv6 address goes in brackets");
	bad("nfs://[::1/export", -EINVAL, "without its ']'");
	bad("nfs://[::1]x/export", -EINVAL, "only :PORT may follow ']'");
	bad("nfs://[]/export", -EINVAL, "names no server");
}

static void test_escapes(void **state)
{
	struct lx_url u;

	(void)state;
	/* libnfs's README example: an escaped '?' is part of the path */
	ok("nfs://127.0.0.1/my%3Fpath/?version=3", &u);
	assert_string_equal(u.path, "/my?path/");
	assert_int_equal(u.nargs, 1);
	assert_string_equal(u.args[0].key, "version");
	assert_string_equal(u.args[0].value, "3");
	lx_url_free(&u);
	ok("nfs://h%2dx/a%20b/%41%62%2f%26?uid=1%30", &u);
	assert_string_equal(u.host, "h-x");
	assert_string_equal(u.path, "/a b/Ab/&");
	assert_string_equal(u.args[0].value, "10");
	lx_url_free(&u);
	/* runs of '/' are one, escaped or not; '#' is a character */
	ok("nfs://h//data///tmp%2F/f#1", &u);
	assert_string_equal(u.path, "/data/tmp/f#1");
	lx_url_free(&u);
	ok("9p://%62ob@h/srv", &u);
	assert_string_equal(u.user, "bob");
	lx_url_free(&u);
	bad("nfs://h/a%2", -EINVAL, "the path: '%2'");
	bad("nfs://h/a%zzb", -EINVAL, "'%zz' is not a %-escape");
	bad("nfs://h/a%00b", -EINVAL, "not %00");
	bad("nfs://h%/a", -EINVAL, "the host");
	bad("nfs://h/a?uid=%4", -EINVAL, "an argument's value");
	bad("nfs://h/a?u%g=1", -EINVAL, "an argument's name");
	bad("nfs://h%20x/a", -EINVAL, "host 'h x'");
}

static void test_malformed(void **state)
{
	struct lx_url u;
	char big[LX_URL_MAX + 16];

	(void)state;
	assert_int_equal(lx_url_parse(NULL, &u), -EINVAL);
	assert_string_equal(u.error, "no URL");
	assert_int_equal(lx_url_parse("nfs://h/e", NULL), -EINVAL);
	bad("server/export", -EINVAL, "is not a URL");
	bad("://h/e", -EINVAL, "is not a URL");
	bad("http://h/e", -EPROTONOSUPPORT, "'http://'");
	bad("nfs:///export", -EINVAL, "names no server");
	bad("nfs://h", -EINVAL, "names no export");
	bad("nfs://h?uid=1", -EINVAL, "names no export");
	bad("nfs://h:0/e", -EINVAL, "the port must be a number");
	bad("nfs://h:65536/e", -EINVAL, "the port must be a number");
	bad("nfs://h:20x/e", -EINVAL, "the port must be a number");
	bad("nfs://h:99999999999999999999/e", -EINVAL, "the port");
	bad("nfs://@h/e", -EINVAL, "a user name");
	bad("nfs://bob:secret@h/e", -EINVAL, "without a password");
	bad("nfs://a@b@h/e", -EINVAL, "not a server name");
	bad("nfs://h/e?=1", -EINVAL, "an argument without a name");
	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "nfs://h/", 8);
	big[sizeof(big) - 1] = '\0';
	bad(big, -ENAMETOOLONG, "longer than 8192");
	big[LX_URL_MAX] = '\0'; /* exactly the limit */
	ok(big, &u);
	lx_url_free(&u);
	/* empty arguments are skipped */
	ok("nfs://h/e?&uid=1&&gid=2&", &u);
	assert_int_equal(u.nargs, 2);
	assert_string_equal(u.args[1].key, "gid");
	lx_url_free(&u);
}

static void test_nfs_args(void **state)
{
	struct lx_nfs3_opts o;

	(void)state;
	o = nfs_opts("nfs://h/e?uid=1000&gid=100&version=3&nfsport=2049&"
		     "mountport=20048&transport=rdma&nconnect=4&max-reqs=128&"
		     "timeo=15&retrans=5&hard&rsize=64k&wsize=1m&sec=none&"
		     "jukebox-delay=250&jukebox-retries=9&zerocopy");
	assert_true(o.set_ids);
	assert_int_equal(o.uid, 1000);
	assert_int_equal(o.gid, 100);
	assert_int_equal(o.nfs_port, 2049);
	assert_int_equal(o.mount_port, 20048);
	assert_int_equal(o.transport, LX_XPRT_TRANSPORT_RDMA);
	assert_int_equal(o.nconnect, 4);
	assert_int_equal(o.max_reqs, 128);
	assert_int_equal(o.timeo_ms, 1500);
	assert_int_equal(o.retrans, 5);
	assert_true(o.hard);
	assert_int_equal(o.rsize, 65536);
	assert_int_equal(o.wsize, 1 << 20);
	assert_true(o.auth_none);
	assert_int_equal(o.jukebox_delay_ms, 250);
	assert_int_equal(o.jukebox_retries, 9);
	assert_true(o.zerocopy);

	/* the last one counts; :PORT then nfsport= */
	o = nfs_opts("nfs://h:1/e?hard&soft&transport=rdma&transport=tcp&"
		     "nfsport=7&sec=none&sec=sys&retrans=0&"
		     "jukebox-retries=forever");
	assert_false(o.hard);
	assert_int_equal(o.transport, LX_XPRT_TRANSPORT_TCP);
	assert_int_equal(o.nfs_port, 7);
	assert_false(o.auth_none);
	assert_int_equal(o.retrans, LX_RPC_NO_RETRANS);
	assert_int_equal(o.jukebox_retries, LX_NFS3_JUKEBOX_FOREVER);

	/* one id: the other is the process's own */
	o = nfs_opts("nfs://h/e?uid=0");
	assert_true(o.set_ids);
	assert_int_equal(o.uid, 0);
	assert_int_equal(o.gid, getgid());
	o = nfs_opts("nfs://h/e?gid=4294967295");
	assert_int_equal(o.uid, getuid());
	assert_int_equal(o.gid, UINT32_MAX);
	/* ids the caller set already: the one the URL lacks is kept */
	{
		struct lx_nfs3_opts mine = {
			.set_ids = true, .uid = 7, .gid = 8};
		struct lx_url u;

		ok("nfs://h/e?uid=9", &u);
		assert_int_equal(lx_url_nfs3_opts(&u, &mine), 0);
		assert_int_equal(mine.uid, 9);
		assert_int_equal(mine.gid, 8);
		lx_url_free(&u);
	}
	/* nothing given: nothing set */
	o = nfs_opts("nfs://h/e");
	assert_false(o.set_ids);
	assert_int_equal(o.nconnect, 0);

	/* libnfs's harmless arguments: accepted, no field changes */
	o = nfs_opts("nfs://bob@h/e?tcp-syncnt=3&debug=2&readahead=1048576&"
		     "pagecache=128&dircache=0&dircache=1&readdir-buffer=8192&"
		     "readdir-buffer=8192,65536&xprtsec=none&"
		     "auto-traverse-mounts=0&autoreconnect=-1");
	{
		struct lx_nfs3_opts zero = {0};

		assert_memory_equal(&o, &zero, sizeof(o));
	}
}

static void test_nfs_bad_args(void **state)
{
	(void)state;
	bad("nfs://h/e?bogus=1", -EINVAL,
	    "'bogus' is not an argument of nfs:// URLs");
	bad("nfs://h/e?msize=64k", -EINVAL, "'msize' is not an argument");
	bad("nfs://h/e?version=4", -EPROTONOSUPPORT,
	    "version=4: libxprt speaks NFS version 3 only");
	bad("nfs://h/e?version=4.1", -EPROTONOSUPPORT, "version 3 only");
	bad("nfs://h/e?uid=-1", -EINVAL, "uid must be a number");
	bad("nfs://h/e?uid=4294967296", -EINVAL, "uid must be a number");
	bad("nfs://h/e?gid=x", -EINVAL, "gid=x");
	bad("nfs://h/e?uid", -EINVAL, "uid: a value is needed");
	bad("nfs://h/e?nfsport=0", -EINVAL,
	    "nfsport=0: nfsport must be a port from 1 to 65535");
	bad("nfs://h/e?mountport=65536", -EINVAL, "mountport must be a port");
	bad("nfs://h/e?transport=udp", -EINVAL, "transport=udp: tcp or rdma");
	bad("nfs://h/e?nconnect=17", -EINVAL,
	    "nconnect must be a number from 1 to 16");
	bad("nfs://h/e?nconnect=0", -EINVAL, "nconnect");
	bad("nfs://h/e?max-reqs=65536", -EINVAL, "max-reqs");
	bad("nfs://h/e?timeo=0", -EINVAL, "timeo must be tenths of a second");
	bad("nfs://h/e?timeo=1.5", -EINVAL, "timeo=1.5");
	bad("nfs://h/e?retrans=1001", -EINVAL, "retrans");
	bad("nfs://h/e?hard=1", -EINVAL, "hard=1: hard takes no value");
	bad("nfs://h/e?zerocopy=yes", -EINVAL, "takes no value");
	bad("nfs://h/e?rsize=1k", -EINVAL, "rsize must be a size");
	bad("nfs://h/e?wsize=2g", -EINVAL, "wsize");
	bad("nfs://h/e?rsize=64q", -EINVAL, "rsize=64q");
	bad("nfs://h/e?rsize=64kk", -EINVAL, "rsize=64kk");
	bad("nfs://h/e?sec=krb5i", -ENOTSUP, "no Kerberos");
	bad("nfs://h/e?sec=foo", -EINVAL, "sec=foo: sys or none");
	bad("nfs://h/e?xprtsec=tls", -ENOTSUP, "no RPC-with-TLS");
	bad("nfs://h/e?xprtsec=x", -EINVAL, "xprtsec=x");
	bad("nfs://h/e?jukebox-delay=0", -EINVAL, "jukebox-delay");
	bad("nfs://h/e?jukebox-retries=0", -EINVAL, "or forever");
	bad("nfs://h/e?tcp-syncnt=x", -EINVAL, "tcp-syncnt");
	bad("nfs://h/e?dircache=2", -EINVAL, "dircache");
	bad("nfs://h/e?readdir-buffer=1,x", -EINVAL, "readdir-buffer=1,x");
	bad("nfs://h/e?auto-traverse-mounts=1", -ENOTSUP, "nested exports");
	bad("nfs://h/e?auto-traverse-mounts=2", -EINVAL, "0 or 1");
	bad("nfs://h/e?autoreconnect=0", -ENOTSUP, "always reconnects");
	bad("nfs://h/e?autoreconnect=-2", -EINVAL, "autoreconnect=-2");
	bad("nfs://h/e?if=eth1", -ENOTSUP, "if: libxprt does not bind");
	bad("nfs://h/e?readonly", -ENOTSUP, "no read-only mode");
	/* the first bad one is named */
	bad("nfs://h/e?uid=1&nconnect=99&bogus", -EINVAL, "nconnect=99");
}

static void test_p9(void **state)
{
	struct lx_p9_opts o = {.port = 99, .uname = "kept"};
	struct lx_url u;

	(void)state;
	ok("9p://alice@diod.example:5640/srv/9p?transport=rdma&msize=256k&"
	   "uid=0&gid=50&max-reqs=32&max-fids=2048&timeo=20&zerocopy&"
	   "version=9P2000.L",
	   &u);
	assert_int_equal(u.scheme, LX_URL_9P);
	assert_int_equal(lx_url_p9_opts(&u, &o), 0);
	assert_string_equal(o.host, "diod.example");
	assert_int_equal(o.port, 5640);
	assert_string_equal(o.aname, "/srv/9p");
	assert_string_equal(o.uname, "alice");
	assert_int_equal(o.transport, LX_XPRT_TRANSPORT_RDMA);
	assert_int_equal(o.msize, 256 << 10);
	assert_int_equal(o.n_uname, 0);
	assert_int_equal(o.n_gid, 50);
	assert_int_equal(o.max_reqs, 32);
	assert_int_equal(o.max_fids, 2048);
	assert_int_equal(o.timeout_ms, 2000);
	assert_true(o.zerocopy);
	{
		struct lx_nfs3_opts no = {0};

		assert_int_equal(lx_url_nfs3_opts(&u, &no), -EINVAL);
	}
	lx_url_free(&u);

	/* no path: the empty aname; no port: the caller's stays */
	o.port = 99;
	ok("9p://h?uname=carol&uid=1000", &u);
	assert_int_equal(lx_url_p9_opts(&u, &o), 0);
	assert_string_equal(o.aname, "");
	assert_int_equal(o.port, 99);
	assert_string_equal(o.uname, "carol");
	assert_int_equal(o.n_uname, 1000);
	lx_url_free(&u);
	/* uname= wins over USER@ */
	ok("9p://dave@h/x?uname=erin", &u);
	assert_int_equal(lx_url_p9_opts(&u, &o), 0);
	assert_string_equal(o.uname, "erin");
	lx_url_free(&u);

	o = p9_opts("9p://h/x");
	assert_int_equal(o.msize, 0);
	assert_int_equal(o.transport, LX_XPRT_TRANSPORT_TCP);

	bad("9p://h/x?msize=1k", -EINVAL,
	    "msize=1k: msize must be a size from 4096 to 8388608");
	bad("9p://h/x?msize=9m", -EINVAL, "msize");
	bad("9p://h/x?version=9P2000.u", -EPROTONOSUPPORT, "9P2000.L only");
	bad("9p://h/x?max-fids=1", -EINVAL, "max-fids");
	bad("9p://h/x?max-reqs=1", -EINVAL, "max-reqs");
	bad("9p://h/x?uname", -EINVAL, "uname: a value is needed");
	bad("9p://h/x?nconnect=2", -EINVAL,
	    "'nconnect' is not an argument of 9p:// URLs");
	bad("9p://h/x?nfsport=2049", -EINVAL, "not an argument of 9p://");
}

static void test_split(void **state)
{
	struct lx_nfs3_opts o = {0};
	struct lx_p9_opts po = {0};
	struct lx_url u;

	(void)state;
	/* libnfs's nfs_parse_url_full(): the export ends at the last '/' */
	ok("nfs://h/export/dir/file.dat?nfsport=2049", &u);
	assert_int_equal(lx_url_split(&u, NULL), 0);
	assert_string_equal(u.root, "/export/dir");
	assert_string_equal(u.file, "file.dat");
	assert_int_equal(lx_url_nfs3_opts(&u, &o), 0);
	assert_string_equal(o.export_path, "/export/dir");
	/* a known export: the rest is the file's path */
	assert_int_equal(lx_url_split(&u, "/export/"), 0);
	assert_string_equal(u.root, "/export");
	assert_string_equal(u.file, "dir/file.dat");
	assert_int_equal(lx_url_nfs3_opts(&u, &o), 0);
	assert_string_equal(o.export_path, "/export");
	assert_int_equal(lx_url_split(&u, "/"), 0);
	assert_string_equal(u.root, "/");
	assert_string_equal(u.file, "export/dir/file.dat");
	assert_int_equal(lx_url_split(&u, "/exp"), -EINVAL);
	assert_string_equal(u.error, "/export/dir/file.dat is not under /exp");
	assert_null(u.root);
	assert_int_equal(lx_url_split(&u, "/export/dir/file.dat"), -EINVAL);
	assert_true(strstr(u.error, "names no file") != NULL);
	/* after a failed split the options give the whole path */
	assert_int_equal(lx_url_nfs3_opts(&u, &o), 0);
	assert_string_equal(o.export_path, "/export/dir/file.dat");
	lx_url_free(&u);

	ok("nfs://h/file", &u);
	assert_int_equal(lx_url_split(&u, NULL), 0);
	assert_string_equal(u.root, "/");
	assert_string_equal(u.file, "file");
	lx_url_free(&u);
	ok("nfs://h/export/", &u);
	assert_int_equal(lx_url_split(&u, NULL), -EINVAL);
	assert_string_equal(u.error, "/export/ names no file below /export");
	lx_url_free(&u);

	ok("9p://h/srv/9p/d/f", &u);
	assert_int_equal(lx_url_split(&u, "/srv/9p"), 0);
	assert_int_equal(lx_url_p9_opts(&u, &po), 0);
	assert_string_equal(po.aname, "/srv/9p");
	assert_string_equal(u.file, "d/f");
	lx_url_free(&u);
	ok("9p://h", &u);
	assert_int_equal(lx_url_split(&u, NULL), -EINVAL);
	assert_string_equal(u.error, "the URL has no path to split");
	lx_url_free(&u);
	assert_int_equal(lx_url_split(NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nfs_parts),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nfs_args),
		cmocka_unit_test(test_nfs_bad_args),
		cmocka_unit_test(test_p9),
		cmocka_unit_test(test_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

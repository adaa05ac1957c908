/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxprt server URLs: libnfs's nfs:// syntax and a 9p:// form of the same
 * shape, parsed into the clients' options.
 *
 *   nfs://[USER@]HOST[:PORT]/PATH[?ARG=VALUE[&ARG=VALUE]...]
 *   9p://[UNAME@]HOST[:PORT][/ANAME][?ARG=VALUE[&ARG=VALUE]...]
 *
 * HOST is a name, an IPv4 address or an IPv6 address in brackets
 * ("[fe80::1%25eth0]"); the scheme is matched without regard to case.
 * Every part is %-decoded after the URL is split, so "%3F" is a '?' in a
 * file name, "%26" a '&' in a value; a '%' not followed by two hex digits,
 * or one that decodes to NUL, is an error.  Runs of '/' in the path count
 * as one.  A '#' is an ordinary character, as in libnfs.
 *
 * nfs:// arguments.  What the NFSv3 client takes:
 *   uid=N, gid=N        AUTH_SYS identity (when only one is given, the
 *                       other is the options' own if they set set_ids,
 *                       else the process's)
 *   version=3           NFS version; any other is -EPROTONOSUPPORT
 *   nfsport=PORT        NFS port (as the URL's :PORT), no rpcbind query
 *   mountport=PORT      MOUNT port, no rpcbind query
 *   transport=tcp|rdma  RPC over TCP or RPC-over-RDMA (MOUNT stays on TCP)
 *   nconnect=N          connections, 1 .. 16
 *   max-reqs=N          calls in flight per connection
 *   timeo=N             RPC timeout in tenths of a second (nfs(5)'s unit)
 *   retrans=N           retransmissions before a soft call fails
 *   hard, soft          nfs(5)'s hard and soft (no value)
 *   rsize=SIZE, wsize=SIZE  caps on the server's READ/WRITE sizes (k, m,
 *                       g suffixes: KiB, MiB, GiB)
 *   sec=sys|none        AUTH_SYS (default) or AUTH_NONE
 *   jukebox-delay=MS, jukebox-retries=N|forever  NFS3ERR_JUKEBOX handling
 *   zerocopy            MSG_ZEROCOPY for large WRITEs (no value)
 * The other arguments of libnfs are accepted and ignored where ignoring
 * them changes no outcome (a cache or a hint): tcp-syncnt, debug,
 * readahead, pagecache, dircache, readdir-buffer, xprtsec=none,
 * auto-traverse-mounts=0, autoreconnect=-1 (libxprt always reconnects).
 * Those that would change one are refused with -ENOTSUP naming them
 * (sec=krb5*, xprtsec=tls, if=, readonly, auto-traverse-mounts=1,
 * autoreconnect=N); so is any argument not listed, with -EINVAL.  A USER
 * before '@' is accepted and ignored, as libnfs does without Kerberos.
 *
 * 9p:// arguments (the path is the aname: diod's is the exported
 * directory's absolute path, ganesha's the export's pseudo path; none is
 * the empty aname):
 *   uname=NAME          user name in Tattach (as UNAME@)
 *   uid=N, gid=N        numeric uid in Tattach, gid of what is created
 *   transport=tcp|rdma, msize=SIZE, max-reqs=N, max-fids=N, timeo=N (tenths
 *   of a second), zerocopy, version=9p2000.L
 *
 * The last of an argument given twice counts.  Context for every
 * function: any thread; none blocks (HOST is not resolved here) and none
 * keeps state outside the struct lx_url it is given, so different URLs may
 * be handled in parallel.
 */
#ifndef LIBXPRT_URL_H
#define LIBXPRT_URL_H

#include <stddef.h>
#include <stdint.h>

#include "nfs3.h"
#include "p9.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the longest URL lx_url_parse() takes, in bytes */
#define LX_URL_MAX 8192

enum lx_url_scheme {
	LX_URL_NONE,
	LX_URL_NFS, /* nfs:// */
	LX_URL_9P,  /* 9p:// */
};

/**
 * struct lx_url_arg - one ARG=VALUE of the query, %-decoded
 * @key: the argument's name
 * @value: its value; "" for one given without '=' (hard, zerocopy)
 */
struct lx_url_arg {
	char *key;
	char *value;
};

/**
 * struct lx_url - a parsed URL; lx_url_parse() fills it, lx_url_free()
 * releases what it points to.  Read-only for the caller.
 * @scheme: %LX_URL_NFS or %LX_URL_9P
 * @user: what came before '@', or NULL
 * @host: the server, without an IPv6 address's brackets
 * @port: the URL's :PORT, 0 when it has none
 * @path: the path, starting with '/'; "" when the URL has none (9p://
 *	only: nfs:// needs one)
 * @root, @file: set by lx_url_split(): the export (the aname) and the
 *	file's path below it, without a leading '/'; both NULL before
 * @args: the query's arguments in their order (validated for @scheme)
 * @nargs: how many
 * @error: after a failed call, a sentence naming the bad part
 *	("nfs://h/x?nconnect=99: nconnect must be from 1 to 16"); else ""
 */
struct lx_url {
	enum lx_url_scheme scheme;
	char *user;
	char *host;
	uint16_t port;
	char *path;
	char *root;
	const char *file;
	struct lx_url_arg *args;
	unsigned int nargs;
	char error[192];
};

/**
 * lx_url_parse() - split and check a server URL
 * @url: "nfs://..." or "9p://..." (see the top of this header)
 * @u: receives the parts; overwritten without being freed first
 *
 * Every argument is checked against @u->scheme's list here, so the
 * option functions below cannot fail on a URL this accepted.
 * Memory: @u owns copies of every part; lx_url_free() releases them.  On
 * failure nothing is left allocated (lx_url_free() is still harmless)
 * and @u->error says what is wrong.
 * Context: any thread; does not block.
 * Return: %0; %-EINVAL (malformed: no "://", an empty host, a bad port or
 * %-escape, an IPv6 address without brackets, an unknown argument or a
 * bad value); %-EPROTONOSUPPORT (another scheme, or an NFS version other
 * than 3); %-ENOTSUP (a libnfs argument libxprt cannot honour, named);
 * %-ENAMETOOLONG (longer than %LX_URL_MAX); %-ENOMEM.  Not worth retrying
 * except %-ENOMEM.
 */
int lx_url_parse(const char *url, struct lx_url *u);

/**
 * lx_url_free() - release what @u points to and zero it
 * @u: a struct lx_url given to lx_url_parse(), or zeroed; NULL: no-op
 *
 * Options filled from @u point into it: free it only after the client is
 * created (lx_nfs3_create() and lx_p9_create() copy what they keep).
 * Context: any thread.
 */
void lx_url_free(struct lx_url *u);

/**
 * lx_url_split() - divide the path into the export (aname) and a file
 * @u: a parsed URL
 * @root: the export or aname when the caller knows it, or NULL
 *
 * A URL that names a file names its export too, and only the server
 * knows where one ends.  With @root, the path must start with it at a
 * '/' boundary; without, the export is everything before the path's last
 * '/', as libnfs's nfs_parse_url_full() has it.  Afterwards @u->root is
 * the export ("/" for a file at the top) and @u->file the rest, and the
 * option functions give @u->root as the export (aname) instead of the
 * whole path.  Without this call they give the whole path, as libnfs's
 * nfs_parse_url_dir() does.
 * Memory: @u->root is allocated, @u->file points into @u; lx_url_free()
 * releases both.  Calling it again splits again.
 * Context: any thread; does not block.
 * Return: %0; %-EINVAL (the path is not under @root, or names no file:
 * it ends in '/' or is @root itself), with @u->error; %-ENOMEM.
 */
int lx_url_split(struct lx_url *u, const char *root);

/**
 * lx_url_nfs3_opts() - fill NFSv3 client options from an nfs:// URL
 * @u: a parsed nfs:// URL
 * @o: options; the fields the URL sets are overwritten, the others keep
 *	what the caller put there (set errmsg, log, pool... before or after)
 *
 * Sets @o->host, @o->export_path (@u->root after lx_url_split(), else
 * @u->path), @o->nfs_port from :PORT, and the fields of the arguments
 * given (see the top of this header).
 * Memory: the strings stay @u's: keep @u until lx_nfs3_create() returns.
 * Context: any thread; does not block.
 * Return: %0; %-EINVAL when @u is not a parsed nfs:// URL.
 */
int lx_url_nfs3_opts(const struct lx_url *u, struct lx_nfs3_opts *o);

/**
 * lx_url_p9_opts() - fill 9P client options from a 9p:// URL
 * @u: a parsed 9p:// URL
 * @o: options; the fields the URL sets are overwritten, the others keep
 *	what the caller put there
 *
 * Sets @o->host, @o->port from :PORT, @o->aname (@u->root after
 * lx_url_split(), else @u->path, "" when there is none), @o->uname from
 * UNAME@ or uname=, and the fields of the arguments given.
 * Memory: the strings stay @u's: keep @u until lx_p9_create() returns.
 * Context: any thread; does not block.
 * Return: %0; %-EINVAL when @u is not a parsed 9p:// URL.
 */
int lx_url_p9_opts(const struct lx_url *u, struct lx_p9_opts *o);

#ifdef __cplusplus
}
#endif

#endif /* LIBXPRT_URL_H */

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * peer_tirpc_null: ONC RPC call rate of libtirpc's synchronous clnt_call(),
 * the reference for what "a plain SunRPC client" costs on this machine.
 *
 * One call outstanding at a time over one TCP connection: clnt_call() sends
 * the request and blocks for its reply, so ops/s is 1 / round trip and the
 * latency percentiles are those round trips. The procedure has void
 * arguments and results (NULL is proc 0 of every program), so the numbers
 * measure RPC framing, XDR of the header, the credential and the wire.
 *
 * The server is found through rpcbind (clnt_create) unless --port names it,
 * in which case clnttcp_create() connects straight to that port.
 *
 * --count N makes exactly N measured calls (after --warmup-count calls)
 * instead of running for a time, and reads no clock inside the loop: the
 * mode `make bench-cost` counts instructions per call in (two counts,
 * differenced), where a time-based loop would make the count vary.
 */
#include "peer_common.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <rpc/rpc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "peer_tirpc_null"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options] [HOST]\n"
		"Synchronous ONC RPC calls with libtirpc clnt_call() over TCP,\n"
		"one outstanding; prints a RESULT line (see peer_common.h).\n"
		"  --host H       server IPv4 address (default 127.0.0.1)\n"
		"  --port P       connect to P directly (default 0: ask rpcbind)\n"
		"  --prog N       RPC program (default 100003, NFS)\n"
		"  --vers N       program version (default 3)\n"
		"  --proc N       procedure, void args and results (default 0)\n"
		"  --auth none|sys  credential flavour (default none)\n"
		"  --seconds S    measuring time (default 5)\n"
		"  --warmup S     unmeasured calls first (default 0.5)\n"
		"  --count N      exactly N measured calls instead of --seconds,\n"
		"                 no clock read per call (no latencies)\n"
		"  --warmup-count N  with --count: N unmeasured calls first\n"
		"                 (default 100)\n"
		"  --help         this text\n");
}

/*
 * xdr_void with the exact xdrproc_t type: the (bool_t (*)(void)) of the
 * library's xdr_void needs a function-type cast that -Wextra rejects.
 */
static bool_t xdr_nothing(XDR *xdrs, ...)
{
	return TRUE;
}

static CLIENT *connect_server(const char *host, unsigned long port,
			      unsigned long prog, unsigned long vers)
{
	struct sockaddr_in sin;
	int sock = RPC_ANYSOCK;
	CLIENT *clnt;

	if (!port) {
		clnt = clnt_create(host, prog, vers, "tcp");
	} else {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
			peer_die(PROG, "--port needs a numeric IPv4 host");
		clnt = clnttcp_create(&sin, prog, vers, &sock, 0, 0);
	}
	if (!clnt) {
		clnt_pcreateerror(host);
		exit(1);
	}
	return clnt;
}

/* @n calls, nothing else in the loop; the window covers exactly them */
static void count_calls(CLIENT *clnt, rpcproc_t proc, unsigned long n,
			struct peer_window *w)
{
	struct timeval tmo = {25, 0};
	unsigned long i;

	peer_window_start(w);
	for (i = 0; i < n; i++) {
		if (clnt_call(clnt, proc, xdr_nothing, NULL, xdr_nothing, NULL,
			      tmo) != RPC_SUCCESS) {
			clnt_perror(clnt, PROG ": call");
			exit(1);
		}
	}
	w->ops = n;
	peer_window_stop(w);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"host", required_argument, NULL, 'H'},
		{"port", required_argument, NULL, 'p'},
		{"prog", required_argument, NULL, 'P'},
		{"vers", required_argument, NULL, 'V'},
		{"proc", required_argument, NULL, 'c'},
		{"auth", required_argument, NULL, 'a'},
		PEER_RUN_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *host = "127.0.0.1";
	unsigned long port = 0, prog = 100003, vers = 3, proc = 0;
	struct timeval tmo = {25, 0};
	struct peer_window w;
	bool auth_sys = false;
	char extra[128];
	struct peer_run_opts ro = {.secs = 5, .warm = 0.5, .warm_count = 100};
	uint64_t end_ns;
	CLIENT *clnt;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			host = optarg;
			break;
		case 'p':
			port = (unsigned long)peer_uint_opt(PROG, "--port",
							    optarg, 65535);
			break;
		case 'P':
			prog = (unsigned long)peer_uint_opt(PROG, "--prog",
							    optarg, UINT32_MAX);
			break;
		case 'V':
			vers = (unsigned long)peer_uint_opt(PROG, "--vers",
							    optarg, UINT32_MAX);
			break;
		case 'c':
			proc = (unsigned long)peer_uint_opt(PROG, "--proc",
							    optarg, UINT32_MAX);
			break;
		case 'a':
			if (!strcmp(optarg, "sys"))
				auth_sys = true;
			else if (strcmp(optarg, "none"))
				peer_die(PROG, "--auth is none or sys");
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
	if (optind < argc)
		host = argv[optind++];
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	clnt = connect_server(host, port, prog, vers);
	if (auth_sys) {
		auth_destroy(clnt->cl_auth);
		clnt->cl_auth = authunix_create_default();
	}
	if (ro.count) {
		count_calls(clnt, (rpcproc_t)proc, ro.warm_count, &w);
		count_calls(clnt, (rpcproc_t)proc, ro.count, &w);
		goto report;
	}
	/* at least one call: connection and credential problems show here */
	end_ns = peer_now_ns() + (uint64_t)(ro.warm * 1e9);
	do {
		if (clnt_call(clnt, (rpcproc_t)proc, xdr_nothing, NULL,
			      xdr_nothing, NULL, tmo) != RPC_SUCCESS) {
			clnt_perror(clnt, PROG ": warm-up call");
			return 1;
		}
	} while (peer_now_ns() < end_ns);

	peer_window_start(&w);
	end_ns = w.t0_ns + (uint64_t)(ro.secs * 1e9);
	for (;;) {
		uint64_t t = peer_now_ns(), done;

		if (clnt_call(clnt, (rpcproc_t)proc, xdr_nothing, NULL,
			      xdr_nothing, NULL, tmo) != RPC_SUCCESS) {
			clnt_perror(clnt, PROG ": call");
			return 1;
		}
		done = peer_now_ns();
		peer_hist_add(&w.hist, done - t);
		w.ops++;
		if (done >= end_ns)
			break;
	}
	peer_window_stop(&w);
report:
	fprintf(stderr,
		PROG ": %s prog %lu v%lu proc %lu, %s, %s, 1 outstanding\n",
		host, prog, vers, proc, port ? "direct port" : "via rpcbind",
		auth_sys ? "AUTH_SYS" : "AUTH_NONE");
	snprintf(extra, sizeof(extra), "auth=%s prog=%lu vers=%lu proc=%lu",
		 auth_sys ? "sys" : "none", prog, vers, proc);
	peer_print_result(&w, "tirpc_null", "null", 1, 0, extra);
	auth_destroy(clnt->cl_auth);
	clnt_destroy(clnt);
	return 0;
}

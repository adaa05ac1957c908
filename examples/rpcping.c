// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rpcping: ping any ONC RPC program with NULL calls, or list what rpcbind
 * has registered, through libxprt.  An example of a tool built on the
 * installed library:
 *
 *   cc -o rpcping rpcping.c $(pkg-config --cflags --libs libxprt)
 *
 *   rpcping 127.0.0.1 nfs 3                 # 1 s of NULL calls, 1 in flight
 *   rpcping -d 16 -t 5 -p 2049 127.0.0.1 100003 3
 *   rpcping -l 127.0.0.1                    # like rpcinfo -p
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getrpcbyname(), getopt() */
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <libxprt/rpc.h>
#include <libxprt/rpcbind.h>

struct opts {
	const char *host;
	uint32_t prog, vers;
	uint16_t port;
	unsigned int depth, nconnect, count;
	double seconds;
	bool auth_sys, json, quiet, verbose, sync;
};

struct slot {
	struct lx_call call;
	struct run *run;
	uint64_t start;
};

struct run {
	struct lx_rpc_clnt *cl;
	const struct opts *o;
	uint64_t *rtt; /* ns, one per completed call */
	size_t cap;
	atomic_size_t done, failed, issued;
	atomic_int first_err;
	atomic_bool stop;
	pthread_mutex_t lock; /* the main thread sleeps on cond */
	pthread_cond_t cond;
	atomic_uint inflight;
	struct slot *slots;
	struct slot *restart[64]; /* slots the main thread must restart */
	unsigned int nrestart;	  /* under lock */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f, const char *me)
{
	fprintf(f,
		"usage: %s [options] HOST PROGRAM [VERSION]   ping with NULL calls\n"
		"       %s -l [-V RPCBVERS] HOST             list rpcbind registrations\n"
		"PROGRAM is a number or a name from /etc/rpc (nfs, mountd...).\n"
		"  -p PORT     server port (default: ask rpcbind)\n"
		"  -c COUNT    stop after COUNT calls\n"
		"  -t SECONDS  stop after SECONDS (default 1 without -c)\n"
		"  -d DEPTH    calls in flight (default 1)\n"
		"  -S          synchronous calls (lx_rpc_call_sync, depth 1)\n"
		"  -n N        connections (nconnect, default 1)\n"
		"  -a none|sys credentials (default sys)\n"
		"  -j          JSON output\n"
		"  -q          only the summary line\n"
		"  -v          transport counters too\n"
		"  -l          list registrations (rpcinfo -p style)\n"
		"  -V 2|3|4    rpcbind version for -l (default 2)\n"
		"  -h          this help\n",
		me, me);
}

static int parse_prog(const char *s, uint32_t *prog)
{
	struct rpcent *e;
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*s && !*end) {
		*prog = (uint32_t)v;
		return 0;
	}
	e = getrpcbyname(s);
	if (!e)
		return -ENOENT;
	*prog = (uint32_t)e->r_number;
	return 0;
}

static const char *prog_name(uint32_t prog)
{
	struct rpcent *e = getrpcbynumber((int)prog);

	return e ? e->r_name : "";
}

static void list_cb(const struct lx_rpcbind_entry *e, void *arg)
{
	(void)arg;
	printf("%10u %5u %6s %6u  %s\n", e->prog, e->vers, e->netid, e->port,
	       prog_name(e->prog));
}

static int do_list(const struct opts *o, uint32_t rpcbvers)
{
	struct lx_rpcbind_opts ro = { .host = o->host };
	int n;

	printf("   program  vers  proto   port  service\n");
	n = lx_rpcbind_dump(&ro, rpcbvers, list_cb, NULL);
	if (n < 0) {
		fprintf(stderr, "rpcping: rpcbind on %s: %s\n", o->host,
			lx_strerror(n));
		return 1;
	}
	return 0;
}

static void start_one(struct run *r, struct slot *s, bool from_callback);

static void ping_done(struct lx_call *call, int status, void *arg)
{
	struct slot *s = arg;
	struct run *r = s->run;
	uint64_t t = now_ns();
	size_t i;

	(void)call;
	if (status) {
		int zero = 0;

		atomic_fetch_add(&r->failed, 1);
		atomic_compare_exchange_strong(&r->first_err, &zero, status);
	} else {
		i = atomic_fetch_add(&r->done, 1);
		if (i < r->cap)
			r->rtt[i] = t - s->start;
	}
	start_one(r, s, true);
}

/* Start the next call on @s, or retire the slot when the run is over. */
static void start_one(struct run *r, struct slot *s, bool from_callback)
{
	struct lx_rpc_call_args a = { .proc = 0 };
	size_t n;
	int err;

	s->call.done = ping_done;
	s->call.arg = s;
	s->call.flags = from_callback ? LX_CALL_NOWAIT : 0;
	n = atomic_fetch_add(&r->issued, 1);
	if (atomic_load(&r->stop) || (r->o->count && n >= r->o->count))
		goto retire;
	s->start = now_ns();
	err = lx_rpc_call_async(r->cl, &s->call, &a);
	if (!err)
		return;
	/* a slot was free when this one completed, so this is rare: let
	 * the main thread start it (it may block; a callback may not) */
	atomic_fetch_sub(&r->issued, 1);
	if (err == -EBUSY && from_callback) {
		pthread_mutex_lock(&r->lock);
		if (r->nrestart < 64) {
			r->restart[r->nrestart++] = s;
			pthread_cond_broadcast(&r->cond);
			pthread_mutex_unlock(&r->lock);
			return;
		}
		pthread_mutex_unlock(&r->lock);
	}
	if (err != -EBUSY) {
		int zero = 0;

		atomic_compare_exchange_strong(&r->first_err, &zero, err);
		atomic_store(&r->stop, true);
	}
retire:
	pthread_mutex_lock(&r->lock);
	atomic_fetch_sub(&r->inflight, 1);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return (double)v[i] / 1000.0;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
		       1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
		       1000u;
}

/* The library prints nothing itself: its messages ("server HOST:PORT not
 * responding, still trying", "server HOST:PORT OK", why an RDMA
 * registration failed) come here, a line each, from any of its threads. */
static void say(void *arg, int level, const char *msg)
{
	(void)level;
	fprintf(stderr, "%s: %s\n", (const char *)arg, msg);
}

static int do_ping(const struct opts *o)
{
	struct lx_rpc_opts co = { 0 };
	struct run r;
	uint64_t t0, t1, c0, c1, deadline;
	size_t n, i;
	double secs, rate;
	int err;

	memset(&r, 0, sizeof(r));
	r.o = o;
	co.host = o->host;
	co.port = o->port;
	co.prog = o->prog;
	co.vers = o->vers;
	co.auth.flavor = o->auth_sys ? LX_RPC_AUTH_SYS : LX_RPC_AUTH_NONE;
	co.nconnect = o->nconnect;
	/* room for a completion to start the next call before its own slot
	 * is released */
	co.max_reqs = 2 * o->depth + 2;
	co.timeo_ms = 10000;
	co.log = say;
	co.log_arg = "rpcping";
	err = lx_rpc_create(&r.cl, &co);
	if (err) {
		fprintf(stderr, "rpcping: %s: program %u version %u: %s\n",
			o->host, o->prog, o->vers, lx_strerror(err));
		return 1;
	}
	r.cap = o->count ? o->count : (size_t)(o->seconds * 2e6) + 1024;
	r.rtt = malloc(r.cap * sizeof(*r.rtt));
	r.slots = calloc(o->depth, sizeof(*r.slots));
	if (!r.rtt || !r.slots) {
		fprintf(stderr, "rpcping: out of memory\n");
		return 1;
	}
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);

	t0 = now_ns();
	c0 = cpu_ns();
	deadline = o->count ? 0 : t0 + (uint64_t)(o->seconds * 1e9);
	if (o->sync) {
		/* the caller's own thread sends and receives each call */
		for (i = 0; !o->count || i < o->count; i++) {
			uint64_t s0 = now_ns();

			err = lx_rpc_null(r.cl);
			if (err) {
				atomic_fetch_add(&r.failed, 1);
				atomic_store(&r.first_err, err);
				break;
			}
			if (i < r.cap)
				r.rtt[i] = now_ns() - s0;
			atomic_fetch_add(&r.done, 1);
			if (deadline && (i & 63) == 0 && now_ns() >= deadline)
				break;
		}
		goto finished;
	}
	atomic_store(&r.inflight, o->depth);
	for (i = 0; i < o->depth; i++) {
		r.slots[i].run = &r;
		start_one(&r, &r.slots[i], false);
	}
	pthread_mutex_lock(&r.lock);
	while (atomic_load(&r.inflight)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&r.cond, &r.lock, &ts);
		if (deadline && now_ns() >= deadline)
			atomic_store(&r.stop, true);
		while (r.nrestart) {
			struct slot *s = r.restart[--r.nrestart];

			pthread_mutex_unlock(&r.lock);
			start_one(&r, s, false);
			pthread_mutex_lock(&r.lock);
		}
	}
	pthread_mutex_unlock(&r.lock);
finished:
	t1 = now_ns();
	c1 = cpu_ns();

	n = atomic_load(&r.done);
	if (n > r.cap)
		n = r.cap;
	qsort(r.rtt, n, sizeof(*r.rtt), cmp_u64);
	secs = (double)(t1 - t0) / 1e9;
	rate = (double)atomic_load(&r.done) / secs;
	if (o->json) {
		printf("{\"host\": \"%s\", \"program\": %u, \"version\": %u, "
		       "\"depth\": %u, \"nconnect\": %u, \"calls\": %zu, "
		       "\"errors\": %zu, \"seconds\": %.6f, \"calls_per_s\": %.1f, "
		       "\"cpu_us_per_call\": %.3f, \"rtt_us\": {\"min\": %.2f, "
		       "\"p50\": %.2f, \"p90\": %.2f, \"p99\": %.2f, "
		       "\"p99.9\": %.2f, \"max\": %.2f}}\n",
		       o->host, o->prog, o->vers, o->depth, o->nconnect,
		       atomic_load(&r.done), atomic_load(&r.failed), secs, rate,
		       n ? (double)(c1 - c0) / 1000.0 / (double)n : 0.0,
		       pct(r.rtt, n, 0), pct(r.rtt, n, 50), pct(r.rtt, n, 90),
		       pct(r.rtt, n, 99), pct(r.rtt, n, 99.9),
		       pct(r.rtt, n, 100));
	} else {
		printf("%s program %u version %u: %zu calls, %zu errors in "
		       "%.2f s: %.0f calls/s, %.2f us CPU/call, depth %u\n",
		       o->host, o->prog, o->vers, atomic_load(&r.done),
		       atomic_load(&r.failed), secs, rate,
		       n ? (double)(c1 - c0) / 1000.0 / (double)n : 0.0,
		       o->depth);
		if (!o->quiet)
			printf("rtt us: min %.1f  p50 %.1f  p90 %.1f  p99 %.1f"
			       "  p99.9 %.1f  max %.1f\n",
			       pct(r.rtt, n, 0), pct(r.rtt, n, 50),
			       pct(r.rtt, n, 90), pct(r.rtt, n, 99),
			       pct(r.rtt, n, 99.9), pct(r.rtt, n, 100));
	}
	for (i = 0; o->verbose && i < lx_rpc_nconnect(r.cl); i++) {
		struct lx_xprt_stats st;

		lx_xprt_stats(lx_rpc_xprt(r.cl, i), &st);
		printf("conn %zu: sent %" PRIu64 " in %" PRIu64
		       " send calls (%" PRIu64 " direct, %" PRIu64
		       " by the worker), %" PRIu64 " replies, %" PRIu64
		       " retransmits, %" PRIu64 " connects, %" PRIu64
		       " unknown replies\n",
		       i, st.sends, st.send_calls, st.direct_sends,
		       st.worker_sends, st.replies, st.retransmits, st.connects,
		       st.bad_keys);
	}
	err = atomic_load(&r.first_err);
	if (err)
		fprintf(stderr, "rpcping: first error: %s\n",
			lx_strerror(err));
	lx_rpc_destroy(r.cl);
	pthread_cond_destroy(&r.cond);
	pthread_mutex_destroy(&r.lock);
	free(r.rtt);
	free(r.slots);
	return err || !atomic_load(&r.done) ? 1 : 0;
}

/* --help beside -h: the one long option every program answers */
static const struct option long_opts[] = {
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int main(int argc, char **argv)
{
	struct opts o = { .depth = 1, .nconnect = 1, .auth_sys = true };
	uint32_t rpcbvers = 2;
	bool list = false;
	int c;

	while ((c = getopt_long(argc, argv, "p:c:t:d:n:a:jqvSlV:h", long_opts,
				  NULL)) != -1) {
		switch (c) {
		case 'p':
			o.port = (uint16_t)atoi(optarg);
			break;
		case 'c':
			o.count = (unsigned int)atoi(optarg);
			break;
		case 't':
			o.seconds = atof(optarg);
			break;
		case 'd':
			o.depth = (unsigned int)atoi(optarg);
			break;
		case 'n':
			o.nconnect = (unsigned int)atoi(optarg);
			break;
		case 'a':
			if (strcmp(optarg, "none") && strcmp(optarg, "sys")) {
				fprintf(stderr, "rpcping: -a none|sys\n");
				return 2;
			}
			o.auth_sys = !strcmp(optarg, "sys");
			break;
		case 'j':
			o.json = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'S':
			o.sync = true;
			o.depth = 1;
			break;
		case 'l':
			list = true;
			break;
		case 'V':
			rpcbvers = (uint32_t)atoi(optarg);
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr, argv[0]);
		return 2;
	}
	o.host = argv[optind++];
	if (list)
		return do_list(&o, rpcbvers);
	if (optind >= argc || parse_prog(argv[optind], &o.prog)) {
		fprintf(stderr, "rpcping: a program number or known name is "
				"needed\n");
		return 2;
	}
	o.vers = optind + 1 < argc ? (uint32_t)atoi(argv[optind + 1]) : 1;
	if (!o.depth || o.depth > 4096 || !o.nconnect || o.nconnect > 16 ||
	    o.seconds < 0) {
		fprintf(stderr, "rpcping: bad -d, -n or -t\n");
		return 2;
	}
	if (!o.count && !o.seconds)
		o.seconds = 1;
	return do_ping(&o);
}

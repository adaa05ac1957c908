// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nfs3-soak: data integrity and exactly-once completion while the server
 * is killed and restarted under us (driven by scripts/run-soak.sh).
 *
 * Writers: FILES files of SIZE bytes are rewritten generation after
 * generation with UNSTABLE writes (lx_nfs3_file_pwrite, pieces of up to
 * 1 MiB at shuffled offsets) and committed with lx_nfs3_file_fsync(), which
 * resends whatever the server may have lost when its write verifier
 * changed.  Every 8-byte word holds (file, generation, offset), so stale,
 * torn or misplaced data shows.  A generation is acknowledged when its
 * fsync returns 0; it is then read back through our client and checked.
 * At the end each file's last acknowledged generation is written to
 * STATE_FILE, for the harness to check through the export directory and
 * through libnfs's nfs-cat.
 *
 * Probes: a thread keeps PROBES async GETATTRs in flight, each with an
 * id; every completion counts against its id.  At the end every id must
 * have completed exactly once, whatever the outcome, and the transport's
 * counters must agree (submitted == completed).
 *
 * Memory: VmRSS is sampled after every generation; after the first it
 * may not grow by more than RSS_SLACK.
 *
 * Errors that a restart explains (-ETIMEDOUT, -ECONNRESET, -EIO from a
 * verifier that kept changing...) are counted and the operation is
 * retried; wrong data is never explained away.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxprt/nfs3.h>
#include <libxprt/rpc.h>
#include <libxprt/xprt.h>

#define MAX_FILES    8
#define PIECE_MAX    (1u << 20)
#define PROBES	     16
#define MAX_PROBES   (1u << 22)
#define RSS_SLACK    (24u << 20)
#define SOAK_RETRIES 50

static struct {
	unsigned int seconds, files;
	size_t size;
	const char *state_file;
	bool short_run;
	struct lx_nfs3_clnt *c;
	struct lx_nfs3_fh dir;
	char dirname[64];
	atomic_bool stop;
	/* probes */
	uint8_t *probe_done; /* completions per id */
	atomic_uint probes_started, probes_completed, probe_errors;
	atomic_uint inflight;
	/* results */
	uint64_t acked[MAX_FILES];
	unsigned long gens, write_errors, fsync_errors, read_errors;
	unsigned long verify_failures, resent_bytes, verf_changes;
	long rss_base, rss_max;
} g;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static uint64_t word(unsigned int file, uint64_t gen, uint64_t off)
{
	return (uint64_t)file << 56 | (gen & 0xffffff) << 32 | (off / 8);
}

static void fill(uint8_t *buf, unsigned int file, uint64_t gen, uint64_t off,
		 size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = word(file, gen, off + i);

		memcpy(buf + i, &w, 8);
	}
}

/* Offset of the first wrong byte, or -1. */
static long long check(const uint8_t *buf, unsigned int file, uint64_t gen,
		       uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = word(file, gen, off + i);

		if (memcmp(buf + i, &w, 8))
			return (long long)(off + i);
	}
	return -1;
}

/* ------------------------------------------------------------ probes */

struct probe {
	struct lx_call call;
	struct lx_nfs3_getattr_res res;
	uint32_t id;
};

static void probe_done(struct lx_call *call, int status, void *arg)
{
	struct probe *p = arg;

	(void)call;
	if (p->id < MAX_PROBES)
		__atomic_add_fetch(&g.probe_done[p->id], 1, __ATOMIC_RELAXED);
	if (status)
		atomic_fetch_add(&g.probe_errors, 1);
	atomic_fetch_add(&g.probes_completed, 1);
	free(p);
	atomic_fetch_sub(&g.inflight, 1);
}

static void *probe_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&g.stop)) {
		struct probe *p;
		uint32_t id;

		if (atomic_load(&g.inflight) >= PROBES) {
			usleep(1000);
			continue;
		}
		id = atomic_load(&g.probes_started);
		if (id >= MAX_PROBES)
			break;
		p = calloc(1, sizeof(*p));
		if (!p)
			break;
		p->id = id;
		p->call.done = probe_done;
		p->call.arg = p;
		atomic_fetch_add(&g.inflight, 1);
		if (lx_nfs3_getattr_async(g.c, &p->call, &g.dir, &p->res)) {
			atomic_fetch_sub(&g.inflight, 1);
			free(p);
			usleep(10000);
			continue;
		}
		atomic_fetch_add(&g.probes_started, 1);
		usleep(200);
	}
	return NULL;
}

/* ----------------------------------------------------------- writers */

static int with_retries(const char *what, unsigned long *errs,
			int (*fn)(void *), void *arg)
{
	int err = 0, i;

	for (i = 0; i < SOAK_RETRIES; i++) {
		err = fn(arg);
		if (!err)
			return 0;
		(*errs)++;
		fprintf(stderr, "soak: %s: %s (retrying)\n", what,
			lx_strerror(err));
		usleep(200000);
	}
	return err;
}

struct wr {
	struct lx_nfs3_file *f;
	uint8_t *buf;
	size_t len;
	uint64_t off;
	size_t *nread;
};

static int do_write(void *arg)
{
	struct wr *w = arg;

	return lx_nfs3_file_pwrite(w->f, w->buf, w->len, w->off);
}

static int do_fsync(void *arg)
{
	return lx_nfs3_file_fsync(((struct wr *)arg)->f);
}

static int do_read(void *arg)
{
	struct wr *w = arg;

	return lx_nfs3_file_pread(w->f, w->buf, w->len, w->off, w->nread);
}

/* One generation of one file: write it all, commit, read back. */
static int generation(unsigned int file, uint64_t gen, uint8_t *buf)
{
	struct lx_nfs3_file_opts fo = {.stable = LX_NFS3_UNSTABLE};
	struct lx_nfs3_file_stats st;
	struct lx_nfs3_file *f;
	char path[128];
	size_t npieces, i, nread = 0;
	size_t piece = g.size < PIECE_MAX ? g.size : PIECE_MAX;
	struct wr w;
	long long bad;
	int err;

	snprintf(path, sizeof(path), "%s/f%u", g.dirname, file);
	err = lx_nfs3_open(g.c, path, O_CREAT, 0644, &fo, &f);
	if (err)
		return err;
	npieces = (g.size + piece - 1) / piece;
	for (i = 0; i < npieces; i++) {
		/* a stride coprime to npieces: every piece, shuffled */
		size_t k = (i * 7 + gen) % npieces;
		uint64_t off = k * piece;
		size_t len = g.size - off < piece ? g.size - off : piece;

		fill(buf, file, gen, off, len);
		w = (struct wr){.f = f, .buf = buf, .len = len, .off = off};
		err = with_retries("write", &g.write_errors, do_write, &w);
		if (err)
			goto out_close;
	}
	w = (struct wr){.f = f};
	err = with_retries("fsync", &g.fsync_errors, do_fsync, &w);
	if (err)
		goto out_close;
	g.acked[file] = gen;
	lx_nfs3_file_stats(f, &st);
	g.resent_bytes += st.resent_bytes;
	g.verf_changes += st.verf_changes;
	for (i = 0; i < npieces; i++) {
		uint64_t off = i * piece;
		size_t len = g.size - off < piece ? g.size - off : piece;

		w = (struct wr){.f = f,
				.buf = buf,
				.len = len,
				.off = off,
				.nread = &nread};
		err = with_retries("read", &g.read_errors, do_read, &w);
		if (err)
			goto out_close;
		bad = nread == len ? check(buf, file, gen, off, len) :
				     (long long)(off + nread);
		if (bad >= 0) {
			fprintf(stderr,
				"soak: f%u generation %" PRIu64
				" wrong at offset %lld after a successful fsync\n",
				file, gen, bad);
			g.verify_failures++;
		}
	}
out_close:
	lx_nfs3_file_close(f);
	return err;
}

/* ------------------------------------------------------------- main */

static const char *env(const char *k)
{
	const char *v = getenv(k);

	if (!v || !*v) {
		fprintf(stderr, "nfs3-soak: %s not set (servers.env)\n", k);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nfs3-soak [--seconds N] [--files N] [--size BYTES]\n"
		"                 [--state FILE] [--short]\n"
		"Server from XPRT_NFS_HOST, XPRT_NFS_PORT, XPRT_MNT_PORT,\n"
		"XPRT_NFS_EXPORT (servers.env).\n");
}

static int parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{"seconds", required_argument, NULL, 't'},
		{"files", required_argument, NULL, 'f'},
		{"size", required_argument, NULL, 's'},
		{"state", required_argument, NULL, 'o'},
		{"short", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c;

	g.seconds = 60;
	g.files = 2;
	g.size = 4u << 20;
	while ((c = getopt_long(argc, argv, "t:f:s:o:Sh", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			g.seconds = (unsigned int)atoi(optarg);
			break;
		case 'f':
			g.files = (unsigned int)atoi(optarg);
			break;
		case 's':
			g.size = (size_t)strtoull(optarg, NULL, 0);
			break;
		case 'o':
			g.state_file = optarg;
			break;
		case 'S':
			g.short_run = true;
			break;
		default:
			usage();
			return -1;
		}
	}
	if (g.short_run) {
		g.seconds = 0; /* one generation */
		g.size = 3u << 20;
		g.files = 1;
	}
	if (!g.files || g.files > MAX_FILES || g.size < 8 || g.size % 8) {
		usage();
		return -1;
	}
	return 0;
}

static int report(void)
{
	unsigned int i, twice = 0, never = 0;
	unsigned int started = atomic_load(&g.probes_started);
	uint64_t submitted = 0, completed = 0, connects = 0, lost = 0;
	struct lx_rpc_clnt *rpc = lx_nfs3_rpc(g.c);
	FILE *f;

	for (i = 0; i < started; i++) {
		if (g.probe_done[i] > 1)
			twice++;
		else if (!g.probe_done[i])
			never++;
	}
	for (i = 0; i < lx_rpc_nconnect(rpc); i++) {
		struct lx_xprt_stats st;

		lx_xprt_stats(lx_rpc_xprt(rpc, i), &st);
		submitted += st.submitted;
		completed += st.completed;
		connects += st.connects;
		lost += st.disconnects;
	}
	printf("soak: %lu generations, errors retried: write %lu fsync %lu "
	       "read %lu; verifier changes %lu, resent %lu bytes\n",
	       g.gens, g.write_errors, g.fsync_errors, g.read_errors,
	       g.verf_changes, g.resent_bytes);
	printf("soak: probes %u started, %u completed (%u with an error), "
	       "%u twice, %u never; transport %" PRIu64 " submitted, %" PRIu64
	       " completed\n",
	       started, atomic_load(&g.probes_completed),
	       atomic_load(&g.probe_errors), twice, never, submitted,
	       completed);
	/* the harness checks that the restarts it made were seen */
	printf("soak: transport %" PRIu64 " connections made, %" PRIu64
	       " lost\n",
	       connects, lost);
	printf("soak: VmRSS %ld KiB after the first generation, %ld KiB max "
	       "(growth %ld KiB, bound %u KiB)\n",
	       g.rss_base, g.rss_max, g.rss_max - g.rss_base, RSS_SLACK >> 10);
	if (g.state_file) {
		f = fopen(g.state_file, "w");
		if (!f)
			return -errno;
		for (i = 0; i < g.files; i++)
			fprintf(f, "%s/f%u %u %" PRIu64 " %zu\n", g.dirname, i,
				i, g.acked[i], g.size);
		fclose(f);
	}
	if (g.verify_failures || twice || never || submitted != completed ||
	    g.rss_max - g.rss_base > (long)(RSS_SLACK >> 10)) {
		printf("soak: FAIL\n");
		return 1;
	}
	printf("soak: ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct lx_nfs3_opts o = {0};
	struct lx_nfs3_create_res cr;
	char msg[256] = "";
	pthread_t probe;
	uint8_t *buf;
	double end;
	uint64_t gen;
	unsigned int i;
	int err, rc;

	if (parse(argc, argv))
		return 2;
	o.host = env("XPRT_NFS_HOST");
	o.export_path = env("XPRT_NFS_EXPORT");
	o.nfs_port = (uint16_t)atoi(env("XPRT_NFS_PORT"));
	o.mount_port = (uint16_t)atoi(env("XPRT_MNT_PORT"));
	o.set_ids = true;
	o.timeo_ms = 5000; /* a restart takes ~2 s: minor timeouts, resends */
	o.retrans = 10;
	o.errmsg = msg;
	o.errmsg_len = sizeof(msg);
	buf = malloc(PIECE_MAX);
	g.probe_done = calloc(MAX_PROBES, 1);
	if (!buf || !g.probe_done)
		return 1;
	err = lx_nfs3_create(&g.c, &o);
	if (err) {
		fprintf(stderr, "nfs3-soak: mount: %s\n", msg);
		return 1;
	}
	snprintf(g.dirname, sizeof(g.dirname), "soak.%d", (int)getpid());
	err = lx_nfs3_mkdir(g.c, lx_nfs3_root(g.c), g.dirname, NULL, &cr);
	if (err || !cr.fh_present) {
		fprintf(stderr, "nfs3-soak: mkdir: %s\n", lx_strerror(err));
		return 1;
	}
	g.dir = cr.fh;
	if (pthread_create(&probe, NULL, probe_main, NULL))
		return 1;

	end = now_s() + g.seconds;
	for (gen = 1;; gen++) {
		for (i = 0; i < g.files; i++) {
			err = generation(i, gen, buf);
			if (err) {
				fprintf(stderr, "soak: f%u gave up: %s\n", i,
					lx_strerror(err));
				g.verify_failures++;
			}
		}
		g.gens++;
		if (gen == 1)
			g.rss_base = rss_kib();
		if (rss_kib() > g.rss_max)
			g.rss_max = rss_kib();
		if (now_s() >= end)
			break;
	}
	atomic_store(&g.stop, true);
	pthread_join(probe, NULL);
	while (atomic_load(&g.inflight))
		usleep(1000);
	rc = report();
	lx_nfs3_destroy(g.c);
	free(buf);
	free(g.probe_done);
	return rc;
}

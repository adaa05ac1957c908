/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the user reads before a run: --help (the engine's options, then the
 * back-end's from its table, then the presets) and the presets themselves.
 * Keep this text, docs/man/common-options.inc and the option table in
 * options.c saying the same thing.
 */
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

/*
 * Presets: the workloads the kernel comparisons use, so that "the same
 * run" is one word on both sides.  Values are ordinary options; anything
 * given explicitly on the command line wins.
 */
static const struct bench_preset presets[] = {
	{"nfs-randrw",
	 "fio randrw bs=8k rwmixread=70 iodepth=16 numjobs=16",
	 {"--rw=randrw", "--bs=8k", "--rwmixread=70", "--iodepth=16",
	  "--numjobs=16", NULL}},
	{"nfs-randread",
	 "fio randread bs=4k iodepth=1024 numjobs=16",
	 {"--rw=randread", "--bs=4k", "--iodepth=1024", "--numjobs=16", NULL}},
	{"ior-512k",
	 "ior, 32 jobs, file per job, 512 KiB transfers, 64 MiB per file",
	 {"--workload=ior", "--numjobs=32", "--bs=512k", "--size=64m",
	  "--rw=rw", NULL}},
	{"ior-32b",
	 "ior, 32 jobs, file per job, 32-byte transfers, 1 MiB per file",
	 {"--workload=ior", "--numjobs=32", "--bs=32", "--size=1m", "--rw=rw",
	  NULL}},
};

/** bench_find_preset() - the preset called @name, or NULL */
const struct bench_preset *bench_find_preset(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

void bench_usage(struct bench *b, FILE *f)
{
	const struct bench_backend_ops *ops = b->ops;
	const struct bench_option *bo;
	unsigned int i;

	fprintf(f,
		"Usage: %s [OPTION]...\n"
		"       %s [OPTION]... JOBFILE... [OPTION]...   (fio job "
		"files)\n",
		bench_prog_name, bench_prog_name);
	if (ops->summary)
		fprintf(f, "%s\n", ops->summary);
	fputs("\nOptions are fio's and resolved as fio resolves them: an "
	      "exact name, or a unique\nprefix (--numj); fio options that "
	      "mean nothing for a network client (--direct,\n--ioengine, "
	      "--thread...) are accepted with a note.\nSizes take k, m, g, t "
	      "suffixes (fio's rules: 1k = 1024, 1KiB = 1000 unless\n"
	      "--kb_base=1000); durations take ns, us, ms, s (default), m, h, "
	      "d.\n--opt VALUE and --opt=VALUE are the same.\n",
	      f);
	fputs("\nWorkload:\n"
	      "  --rw MODE            read, write, randread, randwrite, "
	      "randrw, rw (mixed\n"
	      "                       sequential), null, getattr (metadata "
	      "round trips)\n"
	      "                       [read]; MODE:SIZE (sequential): holes "
	      "of SIZE bytes\n"
	      "                       after each I/O; randMODE:N: N blocks "
	      "in a row\n"
	      "  --bs SIZE[,SIZE]     bytes per I/O (reads, writes) [4k]; "
	      "--bsrange LO-HI,\n"
	      "                       --bssplit SIZE/PCT:...: variable "
	      "sizes\n"
	      "  --size SIZE|PCT%     bytes per job file [64m]; PCT% of the "
	      "file's real size\n"
	      "  --io_size SIZE       bytes to move over the --size region "
	      "[its size]\n"
	      "  --filesize SIZE      each file's size (--size: how much to "
	      "move)\n"
	      "  --iodepth N          I/Os in flight per job [1]\n"
	      "  --iodepth_first N    the first job's instead (a light job "
	      "beside heavy ones)\n"
	      "  --numjobs N          jobs; each is a fairness owner on the "
	      "shared\n"
	      "                       connection(s) [1]\n"
	      "  --runtime TIME       the longest a job runs; it stops when "
	      "--size is done\n"
	      "                       --loops times, or with --time_based "
	      "loops until TIME\n"
	      "  --ramp_time TIME     run this long first without counting "
	      "[0]\n"
	      "  --number_ios N       stop each job after N I/Os (at most "
	      "--size)\n"
	      "  --offset SIZE|PCT%   the I/O region starts there\n"
	      "  --offset_increment SIZE  job k's region k x SIZE further\n"
	      "  --norandommap, --random_distribution zipf:T|pareto:H|"
	      "normal:DEV[:C]|\n"
	      "                       zoned:A/S:...|zoned_abs:A/SIZE:...\n"
	      "  --fsync N, --rate_iops N[,N], --rate BYTES[,BYTES],\n"
	      "  --thinktime TIME, --startdelay TIME (fio's; --rate per "
	      "second)\n"
	      "  --rate_min BYTES[,BYTES], --rate_iops_min N[,N], --ratecycle "
	      "MS\n"
	      "                       below this over a cycle, a job fails "
	      "(fio's)\n"
	      "  --rate_process linear|poisson  how paced I/Os are spaced "
	      "[linear]\n"
	      "  --rwmixread PCT      reads in randrw/rw, percent [50] "
	      "(--rwmixwrite)\n"
	      "  --filename NAME      all jobs share this file\n"
	      "  --file-per-job       each job its own file NAME.JOB.0 "
	      "(default)\n"
	      "  --directory DIR      where job files live (relative to the "
	      "export/aname)\n",
	      f);
	if (ops->url_scheme && !strcmp(ops->url_scheme, "nfs"))
		fputs("  --nfs_url URL        fio's libnfs engine's "
		      "nfs://SERVER/EXPORT: as --server\n",
		      f);
	fputs("  --name NAME          job name, used in file names and "
	      "reports [job]\n"
	      "  --verify             write a pattern of offset, job and "
	      "generation, check\n"
	      "                       every read; a mismatch fails the run "
	      "with its offset\n"
	      "  --seed N             random seed (runs repeat for equal "
	      "seeds) [137]\n"
	      "  --workload fio|ior   fio: the --rw workload (default); ior: "
	      "sequential\n"
	      "                       file per job, --size bytes per file "
	      "(ior block\n"
	      "                       size) in --bs transfers, written then "
	      "read back\n"
	      "                       (--rw write|read|rw picks the phases)\n"
	      "  --repetitions N      ior: repeat the phases N times [1]\n"
	      "  --preset NAME        start from a named workload (below); "
	      "later flags win\n",
	      f);
	fputs("\nConnection:\n"
	      "  --transport tcp|rdma [tcp]\n"
	      "  --nconnect N         connections shared by all jobs (caller "
	      "mode: per job) [1]\n"
	      "  --uid N, --gid N     credentials [the caller's]\n"
	      "  --timeo N            mount-style timeout in tenths of a "
	      "second (nfs(5))\n"
	      "                       [NFS: 600, doubling per retransmission; "
	      "9P: 300]\n"
	      "  --retrans N          retransmissions before a call fails "
	      "[NFS: 2; 9P: 0]\n"
	      "  --soft, --hard       soft (default): a call fails after "
	      "--retrans, a set-up\n"
	      "                       step after 30 s, with a message; hard: "
	      "retry for ever,\n"
	      "                       saying \"server not responding, still "
	      "trying\" once\n"
	      "  --zerocopy           TCP: WRITE/Twrite payloads of 32 KiB or "
	      "more sent with\n"
	      "                       MSG_ZEROCOPY (for real NICs; loopback "
	      "copies anyway)\n"
	      "  --libxprt-mode threaded|caller  threaded: clients shared "
	      "by all jobs, run by\n"
	      "                       libxprt's threads; caller: each job's "
	      "thread drives\n"
	      "                       clients of its own, no library thread "
	      "(TCP) [threaded]\n",
	      f);
	fputs("\nOutput:\n"
	      "  --output-format normal|json|json+|terse[,...]   fio's "
	      "formats [normal]\n"
	      "  --status-interval TIME  the report so far, every TIME\n"
	      "  --eta-newline TIME   newline in the progress line every "
	      "TIME\n"
	      "  --write_lat_log P, --write_bw_log P, --write_iops_log P, "
	      "--log_avg_msec N\n"
	      "  --write_hist_log P --log_hist_msec N, --per_job_logs 0|1,\n"
	      "  --log_offset 0|1     fio's logs\n"
	      "  --output FILE        write the report to FILE\n"
	      "  --group_reporting    report all jobs as one\n"
	      "  --eta auto|always|never  progress line once a second "
	      "[auto: on a terminal]\n"
	      "  --write_log FILE     a TSV line per interval: IOPS, "
	      "bandwidth, latency\n"
	      "                       (mean, p50, p99) per direction, all "
	      "jobs together\n"
	      "  --log_per_job        ... and one line per job too\n"
	      "  --log_interval TIME  the log's interval [1s, at least "
	      "100ms]\n"
	      "  --write_hist FILE    the final latency histograms (TSV, "
	      "for CDF plots)\n"
	      "  -h, --help           this text; -V, --version\n",
	      f);
	if (bench_dist_mpi_init) /* this program was built with MPI */
		fputs("\nUnder mpirun each rank runs --numjobs jobs (rank r: "
		      "jobs r*numjobs...), all\nranks start each phase "
		      "together, and rank 0 reports every rank's jobs and\n"
		      "their merged aggregate; --write_log files are per rank "
		      "(run.tsv: run.R.tsv).\n",
		      f);
	if (ops->options && ops->options[0].name) {
		fprintf(f, "\n%s options:\n", ops->name);
		for (bo = ops->options; bo->name; bo++) {
			char left[64];

			snprintf(left, sizeof(left), "--%s%s%s", bo->name,
				 bo->arg ? " " : "", bo->arg ? bo->arg : "");
			if (strlen(left) > 19)
				fprintf(f, "  %s\n  %-20s %s\n", left, "",
					bo->help);
			else
				fprintf(f, "  %-20s %s\n", left, bo->help);
		}
	}
	if (ops->usage_extra)
		fprintf(f, "\n%s", ops->usage_extra);
	fputs("\nPresets:\n", f);
	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		fprintf(f, "  %-14s %s\n", presets[i].name, presets[i].what);
	fputs("\nExit status: 0 success, 1 run failed (I/O error, verify "
	      "mismatch,\nconnection), 2 command-line error.\n",
	      f);
}

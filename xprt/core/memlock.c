// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why an RDMA registration failed for an unprivileged user, in words.
 *
 * ibv_reg_mr() pins pages and the kernel charges them to RLIMIT_MEMLOCK
 * unless the process has CAP_IPC_LOCK (ib_umem_get()); past the limit it
 * fails ENOMEM (EPERM or EAGAIN on some kernels and providers).  Root has
 * the capability, so a client that works as root fails as a user with the
 * usual 64 KiB or 8 MiB default and nothing in "Cannot allocate memory"
 * says why.  This names the limit, what is locked already and what the
 * transport needs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <libxprt/xprt.h>

/* VmLck + VmPin of this process, KiB (0 when /proc is not there) */
static unsigned long long locked_kib(void)
{
	unsigned long long sum = 0, v;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %llu", &v) == 1 ||
		    sscanf(line, "VmPin: %llu", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

size_t lx_xprt_memlock_explain(int err, size_t need, char *buf, size_t len)
{
	struct rlimit rl;
	char want[64] = "";
	int n;

	if (len)
		buf[0] = '\0';
	if (err != -ENOMEM && err != -EPERM && err != -EAGAIN)
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (need)
		snprintf(want, sizeof(want),
			 "; this transport registers about "
			 "%zu KiB",
			 (need + 1023) / 1024);
	n = snprintf(buf, len,
		     "RDMA memory registration failed (%s): RLIMIT_MEMLOCK "
		     "(ulimit -l) is %llu KiB, %llu KiB locked already%s: "
		     "raise it (ulimit -l unlimited, or memlock in "
		     "/etc/security/limits.conf)",
		     strerror(-err), (unsigned long long)rl.rlim_cur / 1024,
		     locked_kib(), want);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RDMA device registry and the pool registration hook.
 *
 * Why one protection domain per device for the whole process: request
 * buffers come from pools, pools are shared (the connections of one RPC
 * client, later the 9P client's), and the pool's contract is that a slab
 * is registered exactly once, when it is carved - before any connection
 * knows which device it will run on.  So the hook registers each slab on
 * every device of the host, in that device's process-wide PD, and every
 * queue pair the library creates on a device lives in the same PD: any
 * connection finds a local key for any pool buffer with one array lookup,
 * and reconnecting never re-registers anything.  Slabs get local access
 * only; memory a server may read or write (chunks) is registered apart,
 * per call or through the cache in rdma_mr.c.
 *
 * The cost of sharing a PD: an rkey handed to one server is valid on every
 * queue pair of the process while its registration lives.  Chunk
 * registrations live only while their call is in flight (per-I/O mode) or
 * until a call ends without a reply (cache mode), and a server guessing
 * another connection's rkey only breaks its own queue pair.
 *
 * The device list comes from librdmacm (rdma_get_devices) and is never
 * freed: holding it keeps librdmacm's reference on each device context,
 * so the contexts our PDs and MRs belong to stay open for the life of the
 * process.  Devices that appear later are not used (connect fails with
 * -ENODEV on them).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "xprt/blocks/fork.h"
#include "xprt/rdma/rdma.h"
#include "xprt/rdma/rdma_verbs.h"

#define RDMA_SLAB_MAGIC 0x78726d72u /* "xrmr" */
#define RDMA_RXE_VENDOR 0xffffffu   /* Soft-RoCE's vendor id */

/* XPRT_RDMA_NO_MW=1: behave as if no device had memory windows (tests) */
static bool env_no_mw(void)
{
	const char *e = getenv("XPRT_RDMA_NO_MW");

	return e && *e && *e != '0';
}

/* A device can bind type 2 windows by work request: the flags say so and
 * one can be allocated. */
static int probe_mw(struct ibv_pd *pd, const struct ibv_device_attr *a)
{
	struct ibv_mw *mw;

	if (env_no_mw() || !(a->device_cap_flags & IBV_DEVICE_MEM_WINDOW) ||
	    !(a->device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
				     IBV_DEVICE_MEM_WINDOW_TYPE_2B)) ||
	    a->max_mw <= 0)
		return 0;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (!mw)
		return 0;
	ibv_dealloc_mw(mw);
	return 2;
}

static pthread_once_t dev_once = PTHREAD_ONCE_INIT;
static struct ibv_context **dev_list; /* held, see above */
static struct lx_xprt_rdma_dev *devs;
static unsigned int ndevs;
static int dev_err;
static unsigned int dev_gen; /* the process that opened them (fork.h) */

static void dev_init(void)
{
	struct ibv_device_attr attr;
	int n = 0, i, r;

	dev_gen = lx_xprt__fork_watch();
	dev_list = rdma_get_devices(&n);
	if (!dev_list || n <= 0) {
		dev_err = dev_list ? -ENODEV : xv_errno();
		if (dev_err == -EIO)
			dev_err = -ENODEV;
		if (dev_list)
			rdma_free_devices(dev_list);
		dev_list = NULL;
		return;
	}
	devs = calloc((size_t)n, sizeof(*devs));
	if (!devs) {
		dev_err = -ENOMEM;
		return;
	}
	for (i = 0; i < n; i++) {
		devs[i].verbs = dev_list[i];
		devs[i].pd = ibv_alloc_pd(dev_list[i]);
		if (!devs[i].pd) {
			dev_err = xv_errno();
			return;
		}
		r = xv_ret(ibv_query_device(dev_list[i], &attr));
		if (r) {
			dev_err = r;
			return;
		}
		devs[i].max_sge = attr.max_sge;
		devs[i].max_qp_rd_atom = attr.max_qp_rd_atom;
		devs[i].max_qp_wr = attr.max_qp_wr;
		devs[i].max_mr_size = attr.max_mr_size;
		devs[i].mw_type = probe_mw(devs[i].pd, &attr);
		devs[i].inv_flags = IBV_WC_WITH_INV;
		if (attr.vendor_id == RDMA_RXE_VENDOR)
			devs[i].inv_flags |= IBV_WC_IP_CSUM_OK;
		ndevs++;
	}
}

/* Build the registry once.  Return 0 or why there is none: in a child
 * of the process that opened the devices, -ECHILD (their verbs contexts
 * and protection domains are the parent's, and librdmacm opens its
 * devices once per process: nothing made here could be the child's). */
static int dev_ready(void)
{
	pthread_once(&dev_once, dev_init);
	if (lx_xprt__fork_other(dev_gen))
		return -ECHILD;
	return ndevs ? 0 : (dev_err ? dev_err : -ENODEV);
}

int lx_xprt_rdma_dev_find(struct ibv_context *verbs)
{
	unsigned int i;
	int r = dev_ready();

	if (r)
		return r;
	for (i = 0; i < ndevs; i++)
		if (devs[i].verbs == verbs)
			return (int)i;
	return -ENODEV;
}

const struct lx_xprt_rdma_dev *lx_xprt_rdma_dev_get(unsigned int idx)
{
	return idx < ndevs ? &devs[idx] : NULL;
}

/* ----------------------------------------------------- pool slabs */

struct rdma_slab_reg {
	uint32_t magic;
	unsigned int n;
	struct ibv_mr *mr[];
};

static int slab_reg(void *ctx, void *base, size_t len, void **handle)
{
	struct rdma_slab_reg *sr;
	unsigned int i;
	int r;

	(void)ctx;
	r = dev_ready();
	if (r)
		return r;
	sr = calloc(1, sizeof(*sr) + ndevs * sizeof(sr->mr[0]));
	if (!sr)
		return -ENOMEM;
	sr->magic = RDMA_SLAB_MAGIC;
	for (i = 0; i < ndevs; i++) {
		/* local access; windows may be bound over it where the
		 * device has them: never remote rights of its own */
		r = xv_reg_mr(
			devs[i].pd, base, len,
			IBV_ACCESS_LOCAL_WRITE |
				(devs[i].mw_type ? IBV_ACCESS_MW_BIND : 0),
			&sr->mr[i]);
		if (r)
			goto out_dereg;
		sr->n++;
	}
	*handle = sr;
	return 0;

out_dereg:
	while (i--)
		xv_dereg_mr(sr->mr[i]);
	free(sr);
	return r;
}

static void slab_unreg(void *ctx, void *handle)
{
	struct rdma_slab_reg *sr = handle;
	unsigned int i;

	(void)ctx;
	if (!sr)
		return;
	for (i = 0; i < sr->n; i++)
		xv_dereg_mr(sr->mr[i]);
	free(sr);
}

const struct lx_xprt_pool_reg lx_xprt_rdma_pool_reg_ops = {
	.reg = slab_reg,
	.unreg = slab_unreg,
	.ctx = NULL,
};

/**
 * lx_xprt_rdma_pool_reg() - the pool registration hook for RDMA
 *
 * Context: any thread.
 * Return: the hook (static storage); see include/libxprt/rdma.h.
 */
const struct lx_xprt_pool_reg *lx_xprt_rdma_pool_reg(void)
{
	return &lx_xprt_rdma_pool_reg_ops;
}

/**
 * lx_xprt_rdma_slab_lkey() - local key of a slab on device @dev
 * @handle: what the pool stored for the slab (lx_xprt_buf_reg_handle())
 * Return: %0; %-EINVAL when @handle is not ours or lacks @dev.
 */
int lx_xprt_rdma_slab_lkey(const void *handle, unsigned int dev, uint32_t *lkey)
{
	const struct rdma_slab_reg *sr = handle;

	if (!sr || sr->magic != RDMA_SLAB_MAGIC || dev >= sr->n)
		return -EINVAL;
	*lkey = sr->mr[dev]->lkey;
	return 0;
}

struct ibv_mr *lx_xprt_rdma_slab_mr(const void *handle, unsigned int dev)
{
	const struct rdma_slab_reg *sr = handle;

	if (!sr || sr->magic != RDMA_SLAB_MAGIC || dev >= sr->n)
		return NULL;
	return sr->mr[dev];
}

unsigned int lx_xprt_rdma_ndevs(void)
{
	return dev_ready() ? 0 : ndevs;
}

int lx_xprt_rdma_dev_ready(void)
{
	return dev_ready();
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * peer_verbs - a plain verbs send/receive ping-pong: the floor of
 * make bench-cost's RDMA rows, no library of ours.
 *
 *   peer_verbs --server [--port P] [--size S]
 *   peer_verbs [--port P] [--size S] [--count N | --seconds S] HOST
 *
 * One RC connection made with librdmacm.  Each round trip of the client
 * is one Send of --size bytes and the Receive of the server's Send of the
 * same size, waited for in event mode: one poll of the receive CQ, and
 * when the reply is not there yet, sleep in ibv_get_cq_event() (one
 * read(2)), re-arm the CQ and poll again.  (The CQ is armed whenever no
 * event is pending, so a completion either is found by the poll or
 * wakes the sleeper.)  Under Soft-RoCE a busy-polling loop's instruction
 * count grows with its waiting; this loop's does not spin, which makes
 * it a floor callgrind can count (the RDMA part of
 * scripts/bench-cost.py, against our own NULL and READ calls).
 *
 * The loop is what an engineer writing a lean ping-pong would write,
 * and no more: Receives posted 16 at a time in one chained
 * ibv_post_recv(), one Send in 16 signalled (its completion reaped 16
 * round trips later, long done), events acknowledged 16 at a time, the
 * message inline when it fits the QP's inline limit.  Unlike perftest's
 * ib_send_lat it keeps no latency samples in --count mode: the
 * statistics ib_send_lat sorts at its end cost it ~320 Ir per round
 * trip (its qsort()), which the differenced count used to charge to
 * the floor.
 *
 * The server answers every message with one of the same size until an
 * empty one: the client's goodbye, after which both exit without an
 * rdma_disconnect().  (A synchronous rdma_cm id's disconnect waits for
 * the other side's; a server asleep on its CQ never answers, and the
 * client would wait out the CM's retries, two minutes under TCG.  An
 * exiting process's connection is torn down by the kernel at once.)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "peer_common.h"

#define PROG	 "peer_verbs"
#define PV_BATCH 16u		/* receives per post, sends per signal */
#define PV_RECVS (2 * PV_BATCH) /* receives posted: two batches */
#define PV_SQ	 (4 * PV_BATCH)
#define PV_BYE	 1u /* wr_id of the client's goodbye */

struct pv {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *rcq, *scq;
	struct ibv_mr *mr;
	uint8_t *mem; /* PV_RECVS receive slots, then the send buffer */
	size_t size;
	bool inl;
	unsigned int recv_next; /* next receive slot to repost */
	unsigned int consumed;	/* receives since the last repost */
	unsigned int sends;	/* sends posted */
	unsigned int unacked;	/* events not yet acknowledged */
	struct ibv_recv_wr rwr[PV_BATCH];
	struct ibv_sge rsge[PV_BATCH];
	struct ibv_send_wr swr;
	struct ibv_sge ssge;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --server [options]\n"
		"       " PROG " [options] HOST\n"
		"A plain verbs Send/Receive ping-pong over one RC connection\n"
		"(librdmacm), waiting in event mode; the client prints a RESULT\n"
		"line (see peer_common.h).\n"
		"  --server      answer every message with one of its size\n"
		"                until the client disconnects\n"
		"  --port N      RDMA CM port (default 20079)\n"
		"  --size N      bytes per message, k suffix ok (default 64)\n"
		"  --seconds S   measuring time (default 5)\n"
		"  --warmup S    unmeasured round trips first (default 0.5)\n"
		"  --count N     exactly N measured round trips instead of\n"
		"                --seconds, no clock read per round trip\n"
		"  --warmup-count N  with --count: N unmeasured first\n"
		"                (default 100)\n"
		"  --help        this text\n"
		"example: " PROG " --server --size 4k &  " PROG
		" --size 4k --count 1000 10.0.2.15\n");
}

/* rdma-core reports errors as positive errno values or -1 with errno */
static void pv_check(int r, const char *what)
{
	if (r)
		peer_die(PROG, "%s: %s", what, strerror(r > 0 ? r : errno));
}

/* Post one batch of receives, the slots after the last batch's. */
static void pv_post_recvs(struct pv *v)
{
	struct ibv_recv_wr *bad;
	unsigned int i;

	for (i = 0; i < PV_BATCH; i++) {
		unsigned int slot = (v->recv_next + i) % PV_RECVS;

		v->rsge[i].addr = (uintptr_t)(v->mem + slot * v->size);
		v->rwr[i].wr_id = slot;
	}
	v->recv_next = (v->recv_next + PV_BATCH) % PV_RECVS;
	pv_check(ibv_post_recv(v->id->qp, v->rwr, &bad), "ibv_post_recv");
}

/* Resources of a connected-to-be @id; the receives posted. */
static void pv_setup(struct pv *v, struct rdma_cm_id *id, size_t size)
{
	struct ibv_qp_init_attr qa;
	unsigned int i;
	size_t bytes = (PV_RECVS + 1) * size;

	v->id = id;
	v->size = size;
	v->pd = ibv_alloc_pd(id->verbs);
	v->ch = ibv_create_comp_channel(id->verbs);
	if (!v->pd || !v->ch)
		peer_die(PROG, "protection domain or channel: %s",
			 strerror(errno));
	v->rcq = ibv_create_cq(id->verbs, PV_RECVS, NULL, v->ch, 0);
	v->scq = ibv_create_cq(id->verbs, PV_SQ, NULL, NULL, 0);
	if (!v->rcq || !v->scq)
		peer_die(PROG, "ibv_create_cq: %s", strerror(errno));
	v->mem = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
	if (!v->mem)
		peer_die(PROG, "out of memory");
	memset(v->mem, 0x5a, bytes);
	v->mr = ibv_reg_mr(v->pd, v->mem, bytes, IBV_ACCESS_LOCAL_WRITE);
	if (!v->mr)
		peer_die(PROG, "ibv_reg_mr: %s", strerror(errno));

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = v->scq;
	qa.recv_cq = v->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = PV_SQ;
	qa.cap.max_recv_wr = PV_RECVS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = size <= 256 ? (uint32_t)size : 0;
	if (rdma_create_qp(id, v->pd, &qa)) {
		/* no inline data on this device: plain SGEs */
		qa.cap.max_inline_data = 0;
		pv_check(rdma_create_qp(id, v->pd, &qa), "rdma_create_qp");
	}
	v->inl = qa.cap.max_inline_data >= size;

	for (i = 0; i < PV_BATCH; i++) {
		v->rsge[i].length = (uint32_t)size;
		v->rsge[i].lkey = v->mr->lkey;
		v->rwr[i].sg_list = &v->rsge[i];
		v->rwr[i].num_sge = 1;
		v->rwr[i].next = i + 1 < PV_BATCH ? &v->rwr[i + 1] : NULL;
	}
	v->ssge.addr = (uintptr_t)(v->mem + PV_RECVS * size);
	v->ssge.length = (uint32_t)size;
	v->ssge.lkey = v->mr->lkey;
	v->swr.sg_list = &v->ssge;
	v->swr.num_sge = 1;
	v->swr.opcode = IBV_WR_SEND;
	pv_post_recvs(v);
	pv_post_recvs(v);
	pv_check(ibv_req_notify_cq(v->rcq, 0), "ibv_req_notify_cq");
}

/* Send one message; one in PV_BATCH signalled, the previous signalled
 * one reaped first (PV_BATCH round trips ago: complete). */
static void pv_send(struct pv *v)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n;

	v->swr.send_flags = v->inl ? IBV_SEND_INLINE : 0;
	if (++v->sends % PV_BATCH == 0) {
		if (v->sends > PV_BATCH) {
			while ((n = ibv_poll_cq(v->scq, 1, &wc)) == 0)
				;
			if (n < 0 || wc.status != IBV_WC_SUCCESS)
				peer_die(PROG, "send completion: %s",
					 n < 0 ? "poll failed" :
						 ibv_wc_status_str(wc.status));
		}
		v->swr.send_flags |= IBV_SEND_SIGNALED;
	}
	pv_check(ibv_post_send(v->id->qp, &v->swr, &bad), "ibv_post_send");
}

/*
 * Wait for the next receive: a poll, and asleep on the channel while it
 * finds nothing.  The CQ is armed at set-up and after every event read,
 * so either an event is pending or the next completion raises one: the
 * sleep always ends.  Return false for the goodbye, or when the
 * connection ended (a flush).
 */
static bool pv_recv(struct pv *v)
{
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *ctx;
	int n;

	while ((n = ibv_poll_cq(v->rcq, 1, &wc)) == 0) {
		if (ibv_get_cq_event(v->ch, &cq, &ctx))
			peer_die(PROG, "ibv_get_cq_event: %s", strerror(errno));
		if (++v->unacked == PV_BATCH) {
			ibv_ack_cq_events(v->rcq, v->unacked);
			v->unacked = 0;
		}
		pv_check(ibv_req_notify_cq(v->rcq, 0), "ibv_req_notify_cq");
	}
	if (n < 0)
		peer_die(PROG, "ibv_poll_cq failed");
	if (wc.status != IBV_WC_SUCCESS || !wc.byte_len)
		return false;
	if (wc.byte_len != v->size)
		peer_die(PROG, "a message of %u bytes, not %zu", wc.byte_len,
			 v->size);
	if (++v->consumed == PV_BATCH) {
		v->consumed = 0;
		pv_post_recvs(v);
	}
	return true;
}

/* One round trip: what make bench-cost counts, per call. */
static __attribute__((noinline)) void pv_round_trip(struct pv *v)
{
	pv_send(v);
	if (!pv_recv(v))
		peer_die(PROG, "the connection ended");
}

static struct rdma_addrinfo *pv_addr(const char *host, const char *port,
				     bool passive)
{
	struct rdma_addrinfo hints, *res;
	int r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	r = rdma_getaddrinfo(host, port, &hints, &res);
	if (r) /* -1 and errno, or a getaddrinfo() code */
		peer_die(PROG, "rdma_getaddrinfo %s:%s: %s", host ? host : "*",
			 port, r == -1 ? strerror(errno) : gai_strerror(r));
	return res;
}

static int pv_serve(const char *port, size_t size)
{
	struct rdma_addrinfo *res = pv_addr(NULL, port, true);
	struct rdma_cm_id *lid, *id;
	struct pv v;

	memset(&v, 0, sizeof(v));
	pv_check(rdma_create_ep(&lid, res, NULL, NULL), "rdma_create_ep");
	rdma_freeaddrinfo(res);
	pv_check(rdma_listen(lid, 1), "rdma_listen");
	pv_check(rdma_get_request(lid, &id), "rdma_get_request");
	pv_setup(&v, id, size);
	pv_check(rdma_accept(id, NULL), "rdma_accept");
	while (pv_recv(&v))
		pv_send(&v);
	return 0;
}

/* The goodbye: an empty Send, its completion waited for, so that the
 * server has it before we exit. */
static void pv_bye(struct pv *v)
{
	struct ibv_send_wr wr = {.wr_id = PV_BYE,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n;

	pv_check(ibv_post_send(v->id->qp, &wr, &bad), "ibv_post_send");
	do {
		while ((n = ibv_poll_cq(v->scq, 1, &wc)) == 0)
			;
		if (n < 0 || wc.status != IBV_WC_SUCCESS)
			peer_die(PROG, "the goodbye was not sent");
	} while (wc.wr_id != PV_BYE);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", no_argument, NULL, 's'},
		{"port", required_argument, NULL, 'p'},
		{"size", required_argument, NULL, 'b'},
		PEER_RUN_LONGOPTS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct peer_run_opts ro = {.secs = 5, .warm = 0.5, .warm_count = 100};
	struct rdma_addrinfo *res;
	struct rdma_cm_id *id;
	struct peer_window w;
	const char *port = "20079";
	uint64_t size = 64, i, t0, end_ns;
	bool server = false;
	struct pv v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			server = true;
			break;
		case 'p':
			peer_uint_opt(PROG, "--port", optarg, 65535);
			port = optarg;
			break;
		case 'b':
			if (peer_parse_size(optarg, &size) || !size ||
			    size > (1u << 20))
				peer_die(PROG, "bad --size '%s' (1..1m)",
					 optarg);
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
	if (server)
		return optind == argc ? pv_serve(port, size) :
					(usage(stderr), 2);
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}

	memset(&v, 0, sizeof(v));
	memset(&w, 0, sizeof(w));
	res = pv_addr(argv[optind], port, false);
	pv_check(rdma_create_ep(&id, res, NULL, NULL), "rdma_create_ep");
	rdma_freeaddrinfo(res);
	pv_setup(&v, id, size);
	pv_check(rdma_connect(id, NULL), "rdma_connect");

	if (ro.count) {
		for (i = 0; i < ro.warm_count; i++)
			pv_round_trip(&v);
		peer_window_start(&w);
		for (i = 0; i < ro.count; i++)
			pv_round_trip(&v);
		w.ops = ro.count;
	} else {
		end_ns = peer_now_ns() + (uint64_t)(ro.warm * 1e9);
		while (peer_now_ns() < end_ns)
			pv_round_trip(&v);
		peer_window_start(&w);
		end_ns = peer_now_ns() + (uint64_t)(ro.secs * 1e9);
		do {
			t0 = peer_now_ns();
			pv_round_trip(&v);
			peer_hist_add(&w.hist, peer_now_ns() - t0);
			w.ops++;
		} while (t0 < end_ns);
	}
	peer_window_stop(&w);
	pv_bye(&v);
	peer_print_result(&w, "verbs", "pingpong", 1, size,
			  v.inl ? "inline=1" : "inline=0");
	return 0;
}

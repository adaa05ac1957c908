// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mb_rqtree: what a reply lookup costs in a red-black tree, a linear list
 * and a hash table, as the number of requests in flight grows.
 *
 * Keys are sequential XIDs from a random start, as an RPC client allocates
 * them; lookups pick in-flight keys uniformly at random (replies come back
 * in any order).  Requests are 256-byte objects placed in shuffled order in
 * memory, so walking a structure touches memory the way scattered requests
 * would, not a neat array.
 *
 * Structures (all intrusive, nodes inside the request, no locking unless
 * stated):
 *   rbtree     libbsd RB_* tree, the same generated code as xprt/blocks/rqtree.c
 *   rqtree API lx_xprt_rqtree_lookup_pin() + lx_xprt_rqtree_unpin(): the tree
 *              plus its uncontended mutex and the pin atomics
 *   list       singly linked, in send order, searched from the oldest
 *   hash       chained hash, power-of-two buckets >= keys in flight,
 *              Fibonacci (multiplicative) hashing.  liburcu's cds_lfht would
 *              be the natural RCU hash, but it needs an RCU flavour library
 *              (-lurcu) that the bench link line does not carry; a plain
 *              chained table measures the structure itself, which is the
 *              question here.
 * Each cell runs batches of doubling size until its time budget is spent,
 * so the list at 65536 keys does a few hundred lookups, the others
 * millions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbench.h"
#include "xprt/blocks/rqtree.h"
#include "xprt/blocks/util.h"

struct req {
	struct lx_xprt_rqnode node; /* lx_xprt_rqtree linkage */
	struct req *list_next;
	struct req *hash_next;
	uint32_t key;
	char body[256 - sizeof(struct lx_xprt_rqnode) - 2 * sizeof(void *) -
		  sizeof(uint32_t)];
};

/* ---------------------------------------------------------- raw rbtree */

static int rb_cmp(const struct lx_xprt_rqnode *a,
		  const struct lx_xprt_rqnode *b)
{
	return a->key < b->key ? -1 : a->key > b->key;
}

/* The same generated tree as xprt/blocks/rqtree.c; see there for __unused. */
#define __unused __attribute__((__unused__))
RB_GENERATE_STATIC(lx_xprt_rqroot, lx_xprt_rqnode, rb, rb_cmp)
#undef __unused

/* ------------------------------------------------------------- fixture */

#define LOOKUP_KEYS 65536 /* pre-drawn random keys, cycled */

struct bench {
	unsigned int n;
	struct req *reqs;    /* n requests in shuffled memory order */
	struct req *by_send; /* NULL-terminated list in send order */
	struct lx_xprt_rqtree tree;
	struct req **buckets;
	unsigned int hash_bits;
	uint32_t keys[LOOKUP_KEYS];
	uint64_t key_sum; /* sum of keys[] */
};

static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static inline unsigned int hash_slot(uint32_t key, unsigned int bits)
{
	return (uint32_t)(key * 0x9e3779b1u) >> (32 - bits);
}

static void bench_init(struct bench *b, unsigned int n, uint32_t xid0)
{
	unsigned int *perm, i, nb;
	struct req **tail = &b->by_send;

	memset(b, 0, sizeof(*b));
	b->n = n;
	b->reqs = calloc(n, sizeof(*b->reqs));
	perm = malloc(n * sizeof(*perm));
	for (b->hash_bits = 1; (1u << b->hash_bits) < n; b->hash_bits++)
		;
	nb = 1u << b->hash_bits;
	b->buckets = calloc(nb, sizeof(*b->buckets));
	if (!b->reqs || !perm || !b->buckets || lx_xprt_rqtree_init(&b->tree))
		abort();
	/* Request i (the i-th sent) lives in slot perm[i]. */
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned int j = (unsigned int)(rnd() % (i + 1)), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++) {
		struct req *r = &b->reqs[perm[i]];
		unsigned int h;

		r->key = xid0 + i; /* wraps past 2^32 like real XIDs */
		lx_xprt_rqnode_init(&r->node);
		if (lx_xprt_rqtree_insert(&b->tree, &r->node, r->key))
			abort();
		*tail = r;
		tail = &r->list_next;
		h = hash_slot(r->key, b->hash_bits);
		r->hash_next = b->buckets[h];
		b->buckets[h] = r;
	}
	free(perm);
	for (i = 0; i < LOOKUP_KEYS; i++) {
		b->keys[i] = xid0 + (uint32_t)(rnd() % n);
		b->key_sum += b->keys[i];
	}
}

static void bench_free(struct bench *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		lx_xprt_rqtree_erase(&b->tree, &b->reqs[i].node);
	lx_xprt_rqtree_destroy(&b->tree);
	free(b->buckets);
	free(b->reqs);
}

/* ------------------------------------------------------------- lookups */

/*
 * The raw rbtree needs nodes of its own (the API's tree owns
 * req->node.rb), so it is built over a parallel array of bare nodes laid
 * out in the same shuffled order.
 */
struct rawtree {
	struct lx_xprt_rqnode *nodes;
	struct lx_xprt_rqroot root;
};

static void rawtree_init(struct rawtree *rt, const struct bench *b)
{
	unsigned int i;

	rt->nodes = calloc(b->n, sizeof(*rt->nodes) * 6);
	if (!rt->nodes)
		abort();
	RB_INIT(&rt->root);
	/* Stride 6 nodes (~256 bytes) apart, like the requests. */
	for (i = 0; i < b->n; i++) {
		struct lx_xprt_rqnode *nd = &rt->nodes[(size_t)i * 6];

		nd->key = b->reqs[i].key;
		if (lx_xprt_rqroot_RB_INSERT(&rt->root, nd))
			abort();
	}
}

typedef uint64_t (*run_fn)(struct bench *b, struct rawtree *rt,
			   unsigned long count, unsigned long start);

/*
 * Each loop picks its next key through a byte of the request it just
 * found (always 0, which the compiler cannot know): lookups run one after
 * the other as on a receive path, so the table shows latency, not the
 * throughput of many independent lookups overlapped by the CPU.
 */
static uint64_t run_rbtree(struct bench *b, struct rawtree *rt,
			   unsigned long count, unsigned long start)
{
	unsigned long i, dep = 0;
	uint64_t sum = 0;

	for (i = start; i < start + count; i++) {
		struct lx_xprt_rqnode probe = {
			.key = b->keys[(i + dep) % LOOKUP_KEYS],
		};
		struct lx_xprt_rqnode *n =
			lx_xprt_rqroot_RB_FIND(&rt->root, &probe);

		if (!n)
			break;
		sum += n->key;
		dep = n->linked; /* never linked in the API's tree: 0 */
	}
	return sum;
}

static uint64_t run_api(struct bench *b, struct rawtree *rt,
			unsigned long count, unsigned long start)
{
	unsigned long i, dep = 0;
	uint64_t sum = 0;

	for (i = start; i < start + count; i++) {
		struct lx_xprt_rqnode *n = lx_xprt_rqtree_lookup_pin(
			&b->tree, b->keys[(i + dep) % LOOKUP_KEYS]);
		struct req *r;

		if (!n)
			break;
		r = lx_xprt_container_of(n, struct req, node);
		sum += r->key;
		dep = (unsigned char)r->body[0];
		lx_xprt_rqtree_unpin(&b->tree, n);
	}
	return sum;
}

static uint64_t run_list(struct bench *b, struct rawtree *rt,
			 unsigned long count, unsigned long start)
{
	unsigned long i, dep = 0;
	uint64_t sum = 0;

	for (i = start; i < start + count; i++) {
		uint32_t key = b->keys[(i + dep) % LOOKUP_KEYS];
		struct req *r;

		for (r = b->by_send; r && r->key != key; r = r->list_next)
			;
		if (!r)
			break;
		sum += r->key;
		dep = (unsigned char)r->body[0];
	}
	return sum;
}

static uint64_t run_hash(struct bench *b, struct rawtree *rt,
			 unsigned long count, unsigned long start)
{
	unsigned long i, dep = 0;
	uint64_t sum = 0;

	for (i = start; i < start + count; i++) {
		uint32_t key = b->keys[(i + dep) % LOOKUP_KEYS];
		struct req *r = b->buckets[hash_slot(key, b->hash_bits)];

		while (r && r->key != key)
			r = r->hash_next;
		if (!r)
			break;
		sum += r->key;
		dep = (unsigned char)r->body[0];
	}
	return sum;
}

/* Sum of keys[start .. start+count) cycled, to check every lookup hit. */
static uint64_t expect_sum(const struct bench *b, unsigned long count,
			   unsigned long start)
{
	uint64_t s = 0;
	unsigned long i;

	for (i = start; i < start + count; i++)
		s += b->keys[i % LOOKUP_KEYS];
	return s;
}

static double measure(run_fn fn, const char *name, struct bench *b,
		      struct rawtree *rt, double budget_s)
{
	uint64_t budget = (uint64_t)(budget_s * 1e9), spent = 0, t0;
	unsigned long batch = 1, done = 0;

	/* Warm the caches and the branch predictors. */
	if (fn(b, rt, 1, 0) != expect_sum(b, 1, 0))
		goto out_wrong;
	while (spent < budget) {
		uint64_t got;

		t0 = mb_now_ns();
		got = fn(b, rt, batch, done);
		spent += mb_now_ns() - t0;
		if (got != expect_sum(b, batch, done))
			goto out_wrong;
		done += batch;
		if (batch < (1ul << 20))
			batch *= 2;
	}
	return (double)spent / (double)done;

out_wrong:
	fprintf(stderr, "mb_rqtree: %s missed keys at n=%u\n", name, b->n);
	exit(1);
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = {16,   64,	  256,	1024,
					     4096, 16384, 65536};
	static const char *const cols[] = {"keys in flight", "rbtree",
					   "rqtree API", "list", "hash"};
	static const run_fn fns[] = {run_rbtree, run_api, run_list, run_hash};
	struct mb_table *tab;
	struct rawtree rt;
	struct bench *b;
	uint32_t xid0;
	unsigned int s;
	int k;

	mb_init(argc, argv, "mb_rqtree",
		"reply lookup by XID: rbtree vs list vs hash, ns/lookup");
	rng ^= mb_now_ns();
	xid0 = (uint32_t)rnd();
	printf("first XID 0x%08x; requests 256 B apart in shuffled order\n",
	       xid0);
	b = malloc(sizeof(*b)); /* keys[] is 256 KiB: not on the stack */
	if (!b)
		abort();
	tab = mb_table_new("ns per lookup of a random in-flight XID", 5, cols);
	for (s = 0; s < LX_XPRT_ARRAY_SIZE(sizes); s++) {
		char label[32];
		double v[4];

		bench_init(b, sizes[s], xid0);
		rawtree_init(&rt, b);
		for (k = 0; k < 4; k++)
			v[k] = measure(fns[k], cols[k + 1], b, &rt,
				       mb_opts.seconds / 4);
		snprintf(label, sizeof(label), "%u", sizes[s]);
		mb_table_row(tab, label, v);
		free(rt.nodes);
		bench_free(b);
	}
	free(b);
	return mb_finish();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unaligned big- and little-endian loads and stores, for the wire formats
 * every layer writes: RPC record marks, XIDs and XDR words (big-endian,
 * RFC 4506), RPC-over-RDMA headers (big-endian), 9P fields (little-endian).
 * The loads byte by byte, so they are correct on any host and any
 * alignment; the compiler turns each into one load (and a bswap) on
 * x86-64.  The stores are a memcpy() of the value in wire order (as
 * correct, and always one store): byte stores are merged only where the
 * compiler can prove they alias nothing - not in a loop that reads its
 * values from memory (RPC-over-RDMA segments: ~5 instructions per byte
 * stored), and GCC 12 merges several in a row (a 9P header) into wide
 * stores whose value it assembles byte by byte.
 *
 * Internal header: not installed.
 */
#ifndef LX_XPRT_BYTEORDER_H
#define LX_XPRT_BYTEORDER_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t lx_xprt_get_be32(const void *v)
{
	const uint8_t *p = v;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void lx_xprt_put_be32(void *v, uint32_t x)
{
	x = htobe32(x);
	memcpy(v, &x, sizeof(x));
}

static inline uint64_t lx_xprt_get_be64(const void *v)
{
	const uint8_t *p = v;

	return (uint64_t)lx_xprt_get_be32(p) << 32 | lx_xprt_get_be32(p + 4);
}

/* (one 8-byte store: two 4-byte ones would cost a shift and a bswap
 * more, as an XDR hyper the compiler merged when it was eight bytes) */
static inline void lx_xprt_put_be64(void *v, uint64_t x)
{
	x = htobe64(x);
	memcpy(v, &x, sizeof(x));
}

static inline uint16_t lx_xprt_get_le16(const void *v)
{
	const uint8_t *p = v;

	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t lx_xprt_get_le32(const void *v)
{
	const uint8_t *p = v;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t lx_xprt_get_le64(const void *v)
{
	const uint8_t *p = v;

	return lx_xprt_get_le32(p) | (uint64_t)lx_xprt_get_le32(p + 4) << 32;
}

static inline void lx_xprt_put_le16(void *v, uint16_t x)
{
	x = htole16(x);
	memcpy(v, &x, sizeof(x));
}

static inline void lx_xprt_put_le32(void *v, uint32_t x)
{
	x = htole32(x);
	memcpy(v, &x, sizeof(x));
}

static inline void lx_xprt_put_le64(void *v, uint64_t x)
{
	x = htole64(x);
	memcpy(v, &x, sizeof(x));
}

#endif /* LX_XPRT_BYTEORDER_H */

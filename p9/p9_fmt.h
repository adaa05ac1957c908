/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 9P2000.L message formats: every message's fields, described once.
 *
 * Each message type has a list of fields in wire order, each a kind (how
 * it travels) and where it lives in struct lx_p9_fcall.  The encoder
 * (p9_enc.c) and the decoder (p9_dec.c) both walk the same list, so the
 * two directions cannot disagree, and a message is added by adding its
 * line to the table in p9_fmt.c.
 */
#ifndef LX_P9_P9_FMT_H
#define LX_P9_P9_FMT_H

#include <stdbool.h>
#include <stdint.h>

/* How a field travels (sizes little-endian, as 9P says). */
enum lx_p9_fkind {
	LX_P9_F_U8,
	LX_P9_F_U16,
	LX_P9_F_U32,
	LX_P9_F_U64,
	LX_P9_F_STR,	/* len[2] bytes[len]: struct lx_p9_str */
	LX_P9_F_QID,	/* type[1] version[4] path[8]: struct lx_p9_qid */
	LX_P9_F_DATA,	/* count[4] bytes[count]: a u32 at off, the
			 * pointer at off2 (Rread, Rreaddir, Twrite) */
	LX_P9_F_WNAMES, /* n[2] then n strings: the u16 at off, the
			 * array at off2, at most LX_P9_MAXWELEM */
	LX_P9_F_WQIDS,	/* n[2] then n qids: likewise */
	LX_P9_F_NOSTR,	/* nothing on the wire: the decoder empties the
			 * string at off (Rlerror's absent ename) */
};

/* One field: its kind and its offsets in struct lx_p9_fcall. */
struct lx_p9_field {
	uint8_t kind;
	uint16_t off, off2;
};

/* A message type's fields; @known false for a type 9P2000.L lacks. */
struct lx_p9_fmt {
	const char *name;
	const struct lx_p9_field *f;
	uint8_t n;
	bool known;
};

/**
 * lx_p9_fmt_of() - the format of message type @type
 * @type: a 9P message type byte
 *
 * Return: the format; its @known is false for a type without one (the
 * caller refuses the message).  Context: any; no allocation.
 */
const struct lx_p9_fmt *lx_p9_fmt_of(uint8_t type);

#endif /* LX_P9_P9_FMT_H */

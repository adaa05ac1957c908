/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fakesrv: an in-process TCP server for unit tests of the transport core.
 *
 * It listens on 127.0.0.1 (ephemeral port), reads whole messages with RPC
 * record marking or 9P framing, and hands each to a callback that decides
 * what to send back.  Each connection has its own thread; tests can drop
 * every connection at once to simulate a server restart.
 */
#ifndef FAKESRV_H
#define FAKESRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fakesrv;

enum fakesrv_action {
	FAKESRV_REPLY,	 /* send out[0..outlen) as one framed message */
	FAKESRV_RAW,	 /* send out[0..outlen) as is (no framing added) */
	FAKESRV_NOREPLY, /* send nothing */
	FAKESRV_CLOSE,	 /* send out (raw) if outlen, then close the conn */
	FAKESRV_RESET,	 /* send out (raw) if outlen, then reset (RST) */
};

/**
 * fakesrv_fn - decide the answer to one message
 * @msg: the message (RPC: without record marks; 9P: whole, size included)
 * @out: room for the answer, @*outlen bytes; set @*outlen to what to send
 * @nth: messages received so far on all connections, this one included
 */
typedef enum fakesrv_action (*fakesrv_fn)(void *arg, const uint8_t *msg,
					  size_t len, uint8_t *out,
					  size_t *outlen, unsigned int nth);

int fakesrv_start(struct fakesrv **sp, bool rpc_framing, fakesrv_fn fn,
		  void *arg);
uint16_t fakesrv_port(const struct fakesrv *s);
/* Close every open connection (the listener stays). */
void fakesrv_drop_conns(struct fakesrv *s);
/* Stop listening and answering; fakesrv_resume() listens again on the
 * same port. */
void fakesrv_pause(struct fakesrv *s);
int fakesrv_resume(struct fakesrv *s);
/* Send each framed reply from now on as its first @cut bytes (record
 * mark included), a 2 ms pause, then the rest; 0: in one send(). */
void fakesrv_set_cut(struct fakesrv *s, size_t cut);
unsigned int fakesrv_conns(const struct fakesrv *s);
unsigned int fakesrv_msgs(const struct fakesrv *s);
void fakesrv_stop(struct fakesrv *s);

/* byte helpers for building messages */
void fs_put_be32(uint8_t *p, uint32_t v);
uint32_t fs_get_be32(const uint8_t *p);
void fs_put_le32(uint8_t *p, uint32_t v);
uint32_t fs_get_le32(const uint8_t *p);

/**
 * fs_rpc_accepted() - write an RPC reply header: MSG_ACCEPTED, an empty
 * AUTH_NONE verifier and accept status @stat (0: SUCCESS)
 * @out: room for at least 24 bytes
 *
 * Return: the header's length, 24; results, if any, follow at out + 24.
 */
size_t fs_rpc_accepted(uint8_t *out, uint32_t xid, uint32_t stat);

#endif /* FAKESRV_H */

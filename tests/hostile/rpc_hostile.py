#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A scriptable hostile ONC RPC server over TCP (RFC 5531 + record marking).

It accepts calls like any RPC server and answers each one the way the chosen
scenario says: correctly, wrongly, late, twice, never, or by breaking the
stream. Client tests use it to prove that every such reply ends in a defined
error (or is ignored) instead of a hang, a crash or a mis-matched reply.

usage: rpc_hostile.py --scenario NAME [--port 0] [--host 127.0.0.1]
                      [--log FILE] [--delay S] [--auth-stat N]
                      [--low N] [--high N] [--variant V] [--results-hex HEX]
       rpc_hostile.py --list

The first line on stdout is "PORT <n>" (flushed) once the socket listens;
then it serves connections (a thread each) until killed. A client that
disconnects, resets or sends garbage ends only its own connection.

Every call is parsed (xid, msg_type, rpcvers, prog, vers, proc, cred, verf).
A record that does not parse as a CALL is logged as BADCALL and dropped.

--log FILE gets one line per event, flushed at once:
  CONN conn=<n> peer=<ip:port> t=<monotonic seconds>
  CALL conn=<n> xid=0x<8 hex> prog=<n> vers=<n> proc=<n> cred=<flavor>
       seq=<k> rpcvers=<n>
  BADCALL conn=<n> len=<bytes> why=<text>
  CLOSE conn=<n> calls=<n>
(seq = 1-based call number on that connection). Tests grep ^CALL, e.g. to
check that a retransmission reused its xid.

Scenarios (the reply to each call; "correct reply" = MSG_ACCEPTED, verifier
AUTH_NONE, SUCCESS, results from --results-hex (default empty: a NULL reply)):
  ok                correct reply
  unknown_xid       a correct reply for xid+12345 first, then the correct one
  dup_reply         the correct reply twice
  truncated_record  marker "last, 100 bytes", 10 bytes of the reply, close
  huge_fragment     marker of length 2^31-1 (last bit clear; --variant last
                    sets it), 64 bytes, close
  bad_header        a reply that fails XDR decoding; --variant:
                      msg_type (default: msg_type 7), reply_stat (9),
                      accept_stat (99), truncated_verf (verifier length 8,
                      record ends after 4 of its bytes), verf_too_long
                      (verifier length 401 > MAX_AUTH_BYTES), short (8 bytes:
                      xid + msg_type only), reject_stat (MSG_DENIED, 7),
                      auth_stat (MSG_DENIED AUTH_ERROR with 99)
  rpc_mismatch      MSG_DENIED RPC_MISMATCH low=--low high=--high (2, 2)
  auth_error        MSG_DENIED AUTH_ERROR --auth-stat (5 = AUTH_TOOWEAK)
  prog_unavail      MSG_ACCEPTED PROG_UNAVAIL
  prog_mismatch     MSG_ACCEPTED PROG_MISMATCH low=--low high=--high (2, 4)
  proc_unavail      MSG_ACCEPTED PROC_UNAVAIL
  garbage_args      MSG_ACCEPTED GARBAGE_ARGS
  system_err        MSG_ACCEPTED SYSTEM_ERR
  reset_mid_record  the marker and the first half of a correct reply, then
                    close with SO_LINGER 0 (the peer sees an RST)
  multi_fragment    the correct reply split over 3 fragments of 7, 9 and the
                    remaining bytes (boundaries not on XDR units on purpose),
                    a 1 ms pause between them
  slow              the correct reply --delay seconds (1.0) after the call
                    arrived (each call timed on its own: pipelining works)
  drop              never replies
  drop_first        no reply to the first call of each connection, correct
                    replies to the rest
  close_on_call     closes the connection (FIN) when a call arrives
  reorder           holds a call until the next one arrives on the same
                    connection, then answers both, newest first
  reset_on_accept   resets every connection (RST) as soon as it is
                    accepted, before reading anything
  short_record      answers a call with a 2-byte record (too short for an
                    XID and a message type), then closes
  garbage           answers every call with a record of 64 random bytes
                    (--variant raw: 64 random bytes, no record marking),
                    forever; the connection stays open
  unknown_xid_forever  answers every call with a correct reply under
                    xid+12345 only, forever
  endless_fragments answers a call with one-byte non-final fragments,
                    without end (the first 8 are the reply's XID and
                    msg_type, the rest zeros)
  trickle           the correct reply one byte every --delay seconds (1.0)
  no_read           accepts and never reads (nor answers, nor closes)
  nfs               a tiny MOUNT v3 and NFS v3 server on one port (MNT,
                    FSINFO, GETATTR, LOOKUP, ACCESS; NULL of both; other
                    procedures NFS3ERR_NOTSUPP) that lies where --variant
                    says:
                      type66: LOOKUP and GETATTR say the file is of type 66
                      rtmax1: FSINFO offers rtmax and wtmax of 1 byte
                      jukebox: NFS3ERR_JUKEBOX to every NFS call
                    A portmapper's GETPORT on the same port: --results-hex.
"""
import argparse
import os
import socket
import struct
import sys
import threading
import time

CALL, REPLY = 0, 1
MSG_ACCEPTED, MSG_DENIED = 0, 1
SUCCESS, PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS, \
    SYSTEM_ERR = range(6)
RPC_MISMATCH, AUTH_ERROR = 0, 1
LAST = 0x80000000
MAX_RECORD = 16 << 20  # larger calls are not tests of ours: drop the conn
MAX_AUTH_BYTES = 400

SCENARIOS = (
    "ok", "unknown_xid", "dup_reply", "truncated_record", "huge_fragment",
    "bad_header", "rpc_mismatch", "auth_error", "prog_unavail",
    "prog_mismatch", "proc_unavail", "garbage_args", "system_err",
    "reset_mid_record", "multi_fragment", "slow", "drop", "drop_first",
    "close_on_call", "reorder", "reset_on_accept", "short_record",
    "garbage", "unknown_xid_forever", "endless_fragments", "trickle",
    "no_read", "nfs",
)
NFS_VARIANTS = ("type66", "rtmax1", "jukebox")
NFS_PROG, MOUNT_PROG = 100003, 100005
NFS3ERR_NOTSUPP, NFS3ERR_JUKEBOX = 10004, 10008
BAD_HEADER_VARIANTS = ("msg_type", "reply_stat", "accept_stat",
                       "truncated_verf", "verf_too_long", "short",
                       "reject_stat", "auth_stat")


class Closed(Exception):
    """The peer went away (EOF or error) or we chose to end the stream."""


def u32(*vals):
    return struct.pack(">%dI" % len(vals), *[v & 0xFFFFFFFF for v in vals])


def frame(payload, last=True):
    return u32((LAST if last else 0) | len(payload)) + payload


def accepted(xid, stat, body=b"", verf=(0, b"")):
    flavor, vbody = verf
    pad = b"\0" * (-len(vbody) % 4)
    return u32(xid, REPLY, MSG_ACCEPTED, flavor, len(vbody)) + vbody + pad + \
        u32(stat) + body


def denied_rpc_mismatch(xid, low, high):
    return u32(xid, REPLY, MSG_DENIED, RPC_MISMATCH, low, high)


def denied_auth(xid, stat):
    return u32(xid, REPLY, MSG_DENIED, AUTH_ERROR, stat)


def fattr3(ftype):
    """fattr3: type, mode, nlink, uid, gid, size, used, rdev, fsid, fileid,
    atime, mtime, ctime"""
    return u32(ftype, 0o644, 1, 0, 0) + struct.pack(">QQ", 4096, 4096) + \
        u32(0, 0) + struct.pack(">QQ", 1, 2) + u32(0, 0) * 3


def nfs_result(prog, proc, variant):
    """The results of the nfs scenario's reply to (prog, proc)."""
    fh = u32(8) + b"fh-file0"
    if prog == MOUNT_PROG:
        if proc == 1:  # MNT: the root handle, AUTH_SYS
            return u32(0, 8) + b"fh-root0" + u32(1, 1)
        return b""
    if proc == 0:
        return b""
    if variant == "jukebox":  # every procedure's resfail: no attributes
        return u32(NFS3ERR_JUKEBOX) + (b"" if proc == 1 else u32(0))
    ftype = 66 if variant == "type66" else 1
    if proc == 19:  # FSINFO
        tmax = 1 if variant == "rtmax1" else 65536
        return u32(0, 1) + fattr3(2) + u32(tmax, tmax, 4096, tmax, tmax,
                                            4096, 65536) + \
            struct.pack(">Q", 1 << 40) + u32(0, 1, 0x1B)
    if proc == 1:  # GETATTR
        return u32(0) + fattr3(ftype)
    if proc == 3:  # LOOKUP: the handle, its attributes, none of the dir
        return u32(0) + fh + u32(1) + fattr3(ftype) + u32(0)
    if proc == 4:  # ACCESS
        return u32(0, 0, 0x3F)
    return u32(NFS3ERR_NOTSUPP, 0, 0)


def parse_call(rec):
    """Return (xid, rpcvers, prog, vers, proc, cred_flavor) or raise
    ValueError. rpcvers is not checked: a call with rpcvers != 2 is still a
    call (a real server answers it with RPC_MISMATCH), so it is logged."""
    if len(rec) < 40:  # 6 words + 2 empty auths
        raise ValueError("short call")
    xid, mtype, rpcvers, prog, vers, proc = struct.unpack_from(">6I", rec)
    if mtype != CALL:
        raise ValueError("msg_type %d" % mtype)
    off = 24
    flavors = []
    for _ in range(2):  # cred then verf: opaque_auth
        if off + 8 > len(rec):
            raise ValueError("short auth")
        flavor, ln = struct.unpack_from(">II", rec, off)
        if ln > MAX_AUTH_BYTES or off + 8 + ln > len(rec):
            raise ValueError("bad auth length %d" % ln)
        flavors.append(flavor)
        off += 8 + ln + (-ln % 4)
    return xid, rpcvers, prog, vers, proc, flavors[0]


class Logger:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def __call__(self, line):
        if not self.f:
            return
        with self.lock:
            self.f.write(line + "\n")
            self.f.flush()


class Conn:
    """One client connection: read records, answer per scenario."""

    def __init__(self, sock, n, args, log):
        self.s = sock
        self.n = n
        self.a = args
        self.log = log
        self.calls = 0
        self.send_lock = threading.Lock()
        self.held = None  # reorder: the call waiting for its successor
        self.closed = False

    # -- input ------------------------------------------------------------
    def recv_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.s.recv(min(n - len(buf), 1 << 20))
            if not chunk:
                raise Closed()
            buf += chunk
        return bytes(buf)

    def recv_record(self):
        rec = bytearray()
        while True:
            (mark,) = struct.unpack(">I", self.recv_exact(4))
            ln = mark & 0x7FFFFFFF
            if len(rec) + ln > MAX_RECORD:
                raise Closed()
            rec += self.recv_exact(ln)
            if mark & LAST:
                return bytes(rec)

    # -- output -----------------------------------------------------------
    def send(self, data):
        with self.send_lock:
            if self.closed:
                return
            try:
                self.s.sendall(data)
            except OSError:
                self.closed = True

    def close(self, rst=False):
        with self.send_lock:
            if self.closed:
                return
            self.closed = True
            try:
                if rst:
                    # linger on, timeout 0: close() sends RST, not FIN
                    self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack("ii", 1, 0))
                else:
                    self.s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.s.close()

    def good(self, xid):
        return accepted(xid, SUCCESS, self.a.results)

    # -- the scenarios ------------------------------------------------------
    def answer(self, xid, prog, proc):
        """Act on one parsed call. Raise Closed to end the connection."""
        a, sc = self.a, self.a.scenario
        if sc == "nfs":
            body = (nfs_result(prog, proc, a.variant)
                    if prog in (NFS_PROG, MOUNT_PROG) else a.results)
            self.send(frame(accepted(xid, SUCCESS, body)))
        elif sc == "ok":
            self.send(frame(self.good(xid)))
        elif sc == "unknown_xid":
            self.send(frame(self.good(xid + 12345)))
            self.send(frame(self.good(xid)))
        elif sc == "dup_reply":
            self.send(frame(self.good(xid)) + frame(self.good(xid)))
        elif sc == "truncated_record":
            body = (self.good(xid) + b"\0" * 100)[:10]
            self.send(u32(LAST | 100) + body)
            self.close()
            raise Closed()
        elif sc == "huge_fragment":
            mark = 0x7FFFFFFF | (LAST if a.variant == "last" else 0)
            self.send(u32(mark) + (self.good(xid) + b"\0" * 64)[:64])
            self.close()
            raise Closed()
        elif sc == "bad_header":
            self.send(bad_header(xid, a.variant or "msg_type"))
        elif sc == "rpc_mismatch":
            self.send(frame(denied_rpc_mismatch(xid, a.low, a.high)))
        elif sc == "auth_error":
            self.send(frame(denied_auth(xid, a.auth_stat)))
        elif sc in ("prog_unavail", "proc_unavail", "garbage_args",
                    "system_err"):
            stat = {"prog_unavail": PROG_UNAVAIL, "proc_unavail": PROC_UNAVAIL,
                    "garbage_args": GARBAGE_ARGS,
                    "system_err": SYSTEM_ERR}[sc]
            self.send(frame(accepted(xid, stat)))
        elif sc == "prog_mismatch":
            self.send(frame(accepted(xid, PROG_MISMATCH, u32(a.low, a.high))))
        elif sc == "reset_mid_record":
            rep = self.good(xid)
            self.send(u32(LAST | len(rep)) + rep[:len(rep) // 2])
            time.sleep(0.05)  # let the half reply leave before the RST
            self.close(rst=True)
            raise Closed()
        elif sc == "multi_fragment":
            rep = self.good(xid)
            parts = [rep[:7], rep[7:16], rep[16:]]
            for i, p in enumerate(parts):
                self.send(frame(p, last=(i == len(parts) - 1)))
                if i < len(parts) - 1:
                    time.sleep(0.001)
        elif sc == "slow":
            t = threading.Timer(a.delay, self.send, (frame(self.good(xid)),))
            t.daemon = True
            t.start()
        elif sc == "drop":
            pass
        elif sc == "drop_first":
            if self.calls > 1:
                self.send(frame(self.good(xid)))
        elif sc == "close_on_call":
            self.close()
            raise Closed()
        elif sc == "reorder":
            if self.held is None:
                self.held = xid
            else:
                self.send(frame(self.good(xid)) + frame(self.good(self.held)))
                self.held = None
        elif sc == "short_record":
            self.send(frame(b"\0\0"))
            self.close()
            raise Closed()
        elif sc == "garbage":
            junk = os.urandom(64)
            self.send(junk if a.variant == "raw" else frame(junk))
        elif sc == "unknown_xid_forever":
            self.send(frame(self.good(xid + 12345)))
        elif sc == "endless_fragments":
            # the reply's XID and msg_type, then zeros, without end: one
            # byte per fragment, none of them the last
            self.send(b"".join(u32(1) + self.good(xid)[i:i + 1]
                               for i in range(8)))
            one = u32(1) + b"\0"
            while not self.closed:
                self.send(one * 4096)
            raise Closed()
        elif sc == "trickle":
            t = threading.Thread(target=self.trickle,
                                 args=(frame(self.good(xid)),), daemon=True)
            t.start()
        else:  # argparse already restricts the names
            raise AssertionError(sc)

    def trickle(self, data):
        for i in range(len(data)):
            time.sleep(self.a.delay)
            self.send(data[i:i + 1])
            if self.closed:
                return

    def run(self):
        try:
            if self.a.scenario == "reset_on_accept":
                self.close(rst=True)
                raise Closed()
            if self.a.scenario == "no_read":
                while True:
                    time.sleep(3600)
            while True:
                rec = self.recv_record()
                try:
                    xid, rpcvers, prog, vers, proc, cred = parse_call(rec)
                except ValueError as e:
                    self.log("BADCALL conn=%d len=%d why=%s"
                             % (self.n, len(rec), str(e).replace(" ", "_")))
                    continue
                self.calls += 1
                self.log("CALL conn=%d xid=0x%08x prog=%d vers=%d proc=%d "
                         "cred=%d seq=%d rpcvers=%d"
                         % (self.n, xid, prog, vers, proc, cred, self.calls,
                            rpcvers))
                self.answer(xid, prog, proc)
        except (Closed, OSError):
            pass
        except Exception as e:  # a bug here must not take the server down
            print("rpc_hostile: conn %d: %r" % (self.n, e), file=sys.stderr)
        finally:
            if self.a.scenario not in ("slow", "trickle"):
                self.close()
            else:
                # pending timers still own the socket for a while
                t = threading.Timer(self.a.delay + 1, self.close)
                t.daemon = True
                t.start()
            self.log("CLOSE conn=%d calls=%d" % (self.n, self.calls))


def bad_header(xid, variant):
    """A framed reply whose header fails XDR decoding in one specific way."""
    if variant == "msg_type":
        return frame(u32(xid, 7, MSG_ACCEPTED, 0, 0, SUCCESS))
    if variant == "reply_stat":
        return frame(u32(xid, REPLY, 9, 0, 0, SUCCESS))
    if variant == "accept_stat":
        return frame(u32(xid, REPLY, MSG_ACCEPTED, 0, 0, 99))
    if variant == "truncated_verf":
        # verifier claims 8 bytes; the record ends after 4 of them
        return frame(u32(xid, REPLY, MSG_ACCEPTED, 1, 8) + b"\xAA" * 4)
    if variant == "verf_too_long":
        return frame(u32(xid, REPLY, MSG_ACCEPTED, 1, 401) + b"\0" * 404 +
                     u32(SUCCESS))
    if variant == "short":
        return frame(u32(xid, REPLY))
    if variant == "reject_stat":
        return frame(u32(xid, REPLY, MSG_DENIED, 7))
    if variant == "auth_stat":
        return frame(u32(xid, REPLY, MSG_DENIED, AUTH_ERROR, 99))
    raise ValueError(variant)


def main():
    ap = argparse.ArgumentParser(
        description="Hostile ONC RPC server over TCP (see the module doc).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Scenarios" + __doc__.split("Scenarios", 1)[1])
    ap.add_argument("--scenario", choices=SCENARIOS, metavar="NAME",
                    help="one of: " + ", ".join(SCENARIOS))
    ap.add_argument("--list", action="store_true",
                    help="print the scenario names and exit")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 = a free port")
    ap.add_argument("--log", help="append one line per call/connection here")
    ap.add_argument("--delay", type=float, default=1.0,
                    help="slow: seconds before each reply; trickle: "
                    "between bytes (1.0)")
    ap.add_argument("--auth-stat", type=int, default=5,
                    help="auth_error: auth_stat (5 = AUTH_TOOWEAK)")
    ap.add_argument("--low", type=int, default=None)
    ap.add_argument("--high", type=int, default=None)
    ap.add_argument("--variant", default=None,
                    help="bad_header: %s; huge_fragment: last|notlast; "
                    "garbage: raw; nfs: %s" % ("|".join(BAD_HEADER_VARIANTS),
                                               "|".join(NFS_VARIANTS)))
    ap.add_argument("--results-hex", default="",
                    help="results appended to SUCCESS replies (hex)")
    a = ap.parse_args()
    if a.list:
        print("\n".join(SCENARIOS))
        return
    if not a.scenario:
        ap.error("--scenario is required")
    if a.scenario == "bad_header" and a.variant and \
            a.variant not in BAD_HEADER_VARIANTS:
        ap.error("bad_header --variant: one of " + ", ".join(BAD_HEADER_VARIANTS))
    if a.scenario == "huge_fragment" and a.variant not in (None, "last",
                                                           "notlast"):
        ap.error("huge_fragment --variant: last or notlast")
    if a.scenario == "nfs" and a.variant not in (None,) + NFS_VARIANTS:
        ap.error("nfs --variant: one of " + ", ".join(NFS_VARIANTS))
    defaults = {"rpc_mismatch": (2, 2), "prog_mismatch": (2, 4)}
    lo, hi = defaults.get(a.scenario, (2, 2))
    a.low = lo if a.low is None else a.low
    a.high = hi if a.high is None else a.high
    try:
        a.results = bytes.fromhex(a.results_hex)
    except ValueError:
        ap.error("--results-hex is not hex")

    log = Logger(a.log)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.host, a.port))
    ls.listen(128)
    print("PORT %d" % ls.getsockname()[1], flush=True)
    n = 0
    while True:
        try:
            s, peer = ls.accept()
        except InterruptedError:
            continue
        except OSError as e:  # e.g. EMFILE: back off, keep serving
            print("rpc_hostile: accept: %s" % e, file=sys.stderr)
            time.sleep(0.1)
            continue
        n += 1
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        log("CONN conn=%d peer=%s:%d t=%.3f" % (n, peer[0], peer[1],
                                                 time.monotonic()))
        threading.Thread(target=Conn(s, n, a, log).run, daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A scriptable hostile 9P2000.L server over TCP.

It answers Tversion, Tattach, Twalk, Tlopen, Tgetattr, Tclunk and Tflush
like a real server (a pretend tree where every name exists), and answers
the scenario's target message wrongly on purpose: the wrong tag, a size
field no message can have, a string or count past the end, more data than
asked, the wrong type, an Rflush nobody asked for, an Rlerror to a Tflush,
silence. Client tests use it to prove each such answer ends in a defined
error (or is ignored) instead of a hang, a crash or a write past a buffer.

usage: p9_hostile.py --scenario NAME [--port 0] [--host 127.0.0.1]
                     [--log FILE] [--msize N]
       p9_hostile.py --list

The first line on stdout is "PORT <n>" (flushed) once the socket listens;
then it serves connections (a thread each) until killed. A client that
disconnects or sends garbage ends only its own connection.

--log FILE gets one line per message received, flushed at once:
  MSG conn=<n> type=<name> tag=<t> [oldtag=<t>]
--msize N caps the msize Rversion grants (default 65536).

Scenarios (the target is Tread unless said otherwise; everything else is
answered correctly; Tflush gets Rflush unless said otherwise):
  ok                  correct answers: Rread with the requested count of
                      bytes (byte i of the file is (offset+i) & 0xff)
  wrong_tag           the Rread carries tag XOR 0x8000 (no call of a client
                      with fewer than 32768 slots has it)
  unused_tag          an Rlerror(EIO) for tag 0x7777 first, then the
                      correct Rread
  size_over_msize     an Rread 16 bytes larger than msize, count and size
                      consistent, all bytes sent
  size_huge           a size field of 0x7ffffff0, 7 header bytes, then
                      nothing more (the connection stays open)
  size_under_header   a size field of 5 (smaller than size+type+tag)
  string_past_end     (Treadlink) an Rreadlink whose string length says 100
                      with 3 bytes after it; the size field matches the
                      bytes actually sent
  count_over_request  an Rread with 10 bytes more than requested, size
                      consistent
  truncated_data      an Rread whose count field is the requested count
                      but only half of that data follows (the size field
                      matches what is sent)
  rflush_unflushed    an Rflush carrying the Tread's own tag
  rlerror_to_tflush   no answer to the Tread; Rlerror(EINVAL) to Tflush
  wrong_type          an Rwrite (count 5) instead of an Rread
  rerror_107          type 107 (Rerror) with an errno body (EACCES), as
                      ganesha sends errors
  drop                no answer to the Tread; Rflush to the Tflush
  drop_noflush        no answer to the Tread nor to the Tflush
  late_reply          the Tread is held; on its Tflush the correct Rread
                      goes first, then the Rflush
  close_on_read       close the connection when a Tread arrives
  stall_mid_reply     an Rread header for the requested count and half of
                      its data, then nothing more (the connection stays
                      open)
  version_unknown     (Tversion) Rversion with version "unknown"
The counterparts of the RPC suite's misbehaving connections, at the first
message (Tversion):
  reset_on_accept     resets every connection (RST) as soon as accepted
  short_record        a message whose size field is 5 (shorter than
                      size+type+tag), then close
  garbage             64 random bytes for every message, forever
  unknown_tag_forever Rversion under tag XOR 0x8000 only, forever
  trickle             the correct Rversion one byte every --delay s (1.0)
  no_read             accepts and never reads
  rlerror_storm       Tversion and Tattach answered, then Rlerror(EIO) to
                      every message, forever
  drop_target         every --target message (Twalk) of every session is
                      answered by a message whose size field is 5, and the
                      connection closed; with --reset, the connection is
                      reset (RST) instead: a server that accepts each new
                      session and drops it at its first call
  readdir_loop        (Treaddir) every Treaddir is answered with the same
                      entry "x" whose offset is 7: after the first reply,
                      the offset asked for comes back
  readdir_names       (Treaddir) entries named "a\0b/../etc", "../x",
                      "back\\slash" and "ok", one a reply, then the end
Every connection is logged as "CONN conn=<n> t=<monotonic s>".
"""
import argparse
import os
import socket
import struct
import sys
import threading
import time

NOTAG = 0xFFFF
HDR = 7

T = dict(Tstatfs=8, Tlopen=12, Tfsync=50, Tlcreate=14, Treadlink=22, Tgetattr=24,
         Treaddir=40, Tversion=100, Tauth=102, Tattach=104, Tflush=108,
         Twalk=110, Tread=116, Twrite=118, Tclunk=120, Tremove=122)
NAMES = {v: k for k, v in T.items()}
RLERROR, RERROR, RFLUSH = 7, 107, 109
EIO, EACCES, EINVAL, EOPNOTSUPP = 5, 13, 22, 95

SCENARIOS = (
    "ok", "wrong_tag", "unused_tag", "size_over_msize", "size_huge",
    "size_under_header", "string_past_end", "count_over_request",
    "truncated_data", "rflush_unflushed", "rlerror_to_tflush", "wrong_type",
    "rerror_107", "drop", "drop_noflush", "late_reply", "close_on_read",
    "stall_mid_reply", "version_unknown", "reset_on_accept", "short_record",
    "garbage", "unknown_tag_forever", "trickle", "no_read",
    "rlerror_storm", "drop_target", "readdir_loop", "readdir_names",
)
ODD_NAMES = (b"a\0b/../etc", b"../x", b"back\\slash", b"ok")


def dirent(path, offset, name):
    return qid(path) + struct.pack("<QBH", offset, 8, len(name)) + name


class Closed(Exception):
    """The peer went away, or the scenario ends the stream."""


def msg(mtype, tag, body=b""):
    return struct.pack("<IBH", HDR + len(body), mtype, tag) + body


def s9(text):
    b = text.encode()
    return struct.pack("<H", len(b)) + b


def qid(path, qtype=0):
    return struct.pack("<BIQ", qtype, 0, path)


def rlerror(tag, err):
    return msg(RLERROR, tag, struct.pack("<I", err))


def data_for(offset, count):
    return bytes((offset + i) & 0xFF for i in range(count))


def rread(tag, offset, count):
    return msg(117, tag, struct.pack("<I", count) + data_for(offset, count))


class Logger:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def __call__(self, line):
        if self.f:
            with self.lock:
                self.f.write(line + "\n")


class Conn:
    def __init__(self, sock, n, args, log):
        self.s = sock
        self.n = n
        self.sc = args.scenario
        self.max_msize = args.msize
        self.msize = args.msize
        self.log = log
        self.held = None  # (tag, offset, count) of a held Tread
        self.delay = args.delay
        self.file_size = args.file_size
        self.target = T[args.target]
        self.reset = args.reset

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            part = self.s.recv(n - len(buf))
            if not part:
                raise Closed()
            buf += part
        return buf

    def send(self, data):
        self.s.sendall(data)

    def serve(self):
        while True:
            size = struct.unpack("<I", self.recv_exact(4))[0]
            if size < HDR or size > (16 << 20):
                raise Closed()
            rest = self.recv_exact(size - 4)
            mtype, tag = struct.unpack_from("<BH", rest)
            self.handle(mtype, tag, rest[3:])

    def handle(self, mtype, tag, body):
        line = "MSG conn=%d type=%s tag=%d" % (
            self.n, NAMES.get(mtype, str(mtype)), tag)
        if mtype == T["Tflush"]:
            line += " oldtag=%d" % struct.unpack_from("<H", body)[0]
        self.log(line)
        sc = self.sc
        if sc == "short_record":
            self.send(struct.pack("<IBH", 5, 101, tag))
            raise Closed()
        if sc == "garbage":
            self.send(os.urandom(64))
            return
        if sc == "drop_target" and mtype == self.target:
            if self.reset:
                self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                  struct.pack("ii", 1, 0))
            else:
                self.send(struct.pack("<IBH", 5, mtype + 1, tag))
            raise Closed()
        if mtype == T["Tversion"]:
            msize = struct.unpack_from("<I", body)[0]
            self.msize = min(msize, self.max_msize)
            ver = "unknown" if sc == "version_unknown" else "9P2000.L"
            rep = msg(101, tag if sc != "unknown_tag_forever" else
                      tag ^ 0x8000, struct.pack("<I", self.msize) + s9(ver))
            if sc == "trickle":
                for i in range(len(rep)):
                    time.sleep(self.delay)
                    self.send(rep[i:i + 1])
                return
            self.send(rep)
        elif mtype == T["Tattach"]:
            self.send(msg(105, tag, qid(1, 0x80)))
        elif sc == "rlerror_storm":
            self.send(msg(RLERROR, tag, struct.pack("<I", 5)))
        elif mtype == T["Twalk"]:
            nwname = struct.unpack_from("<H", body, 8)[0]
            qids = b"".join(qid(100 + i) for i in range(nwname))
            self.send(msg(111, tag, struct.pack("<H", nwname) + qids))
        elif mtype == T["Tlopen"]:
            self.send(msg(13, tag, qid(100) + struct.pack("<I", 0)))
        elif mtype == T["Tclunk"]:
            self.send(msg(121, tag))
        elif mtype == T["Tgetattr"]:
            self.send(msg(25, tag, struct.pack("<Q", 0x7FF) + qid(100) +
                          struct.pack("<III", 0o100644, 0, 0) +
                          struct.pack("<15Q", 1, 1, self.file_size,
                                      *([1] * 12))))
        elif mtype == T["Treadlink"]:
            if sc == "string_past_end":
                # length 100, then only 3 bytes: size counts what is sent
                self.send(msg(23, tag, struct.pack("<H", 100) + b"abc"))
            else:
                self.send(msg(23, tag, s9("target")))
        elif mtype == T["Treaddir"]:
            offset = struct.unpack_from("<Q", body, 4)[0]
            data = b""
            if sc == "readdir_loop":
                data = dirent(100, 7, b"x")
            elif sc == "readdir_names" and offset < len(ODD_NAMES):
                data = dirent(100 + offset, offset + 1, ODD_NAMES[offset])
            self.send(msg(41, tag, struct.pack("<I", len(data)) + data))
        elif mtype == T["Tfsync"]:
            self.send(msg(51, tag))
        elif mtype == T["Twrite"]:
            count = struct.unpack_from("<I", body, 12)[0]
            self.send(msg(119, tag, struct.pack("<I", count)))
        elif mtype == T["Tflush"]:
            self.flush(tag, struct.unpack_from("<H", body)[0])
        elif mtype == T["Tread"]:
            self.read(tag, *struct.unpack_from("<IQI", body))
        else:
            self.send(rlerror(tag, EOPNOTSUPP))

    def flush(self, tag, oldtag):
        sc = self.sc
        if sc == "drop_noflush":
            return
        if sc == "rlerror_to_tflush":
            self.send(rlerror(tag, EINVAL))
            return
        if sc == "late_reply" and self.held and self.held[0] == oldtag:
            _, offset, count = self.held
            self.send(rread(oldtag, offset, count))
        self.held = None
        self.send(msg(RFLUSH, tag))

    def read(self, tag, fid, offset, count):
        sc = self.sc
        if sc in ("drop", "drop_noflush", "rlerror_to_tflush"):
            return
        if sc == "late_reply":
            self.held = (tag, offset, count)
            return
        if sc == "close_on_read":
            raise Closed()
        if sc == "wrong_tag":
            self.send(rread(tag ^ 0x8000, offset, count))
        elif sc == "unused_tag":
            self.send(rlerror(0x7777, EIO) + rread(tag, offset, count))
        elif sc == "size_over_msize":
            n = self.msize + 16 - (HDR + 4)
            self.send(rread(tag, offset, n))
        elif sc == "size_huge":
            self.send(struct.pack("<IBH", 0x7FFFFFF0, 117, tag))
        elif sc == "size_under_header":
            self.send(struct.pack("<IBH", 5, 117, tag))
        elif sc == "count_over_request":
            self.send(rread(tag, offset, count + 10))
        elif sc == "truncated_data":
            body = struct.pack("<I", count) + data_for(offset, count // 2)
            self.send(msg(117, tag, body))
        elif sc == "rflush_unflushed":
            self.send(msg(RFLUSH, tag))
        elif sc == "wrong_type":
            self.send(msg(119, tag, struct.pack("<I", 5)))
        elif sc == "stall_mid_reply":
            whole = rread(tag, offset, count)
            self.send(whole[:11 + count // 2])
        elif sc == "rerror_107":
            self.send(msg(RERROR, tag, struct.pack("<I", EACCES)))
        else:
            self.send(rread(tag, offset, count))


def serve_conn(sock, n, args, log):
    try:
        if args.scenario == "reset_on_accept":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            struct.pack("ii", 1, 0))
            raise Closed()
        if args.scenario == "no_read":
            while True:
                time.sleep(3600)
        Conn(sock, n, args, log).serve()
    except (Closed, OSError, struct.error):
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--scenario", choices=SCENARIOS)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--log")
    ap.add_argument("--msize", type=int, default=65536)
    ap.add_argument("--delay", type=float, default=1.0,
                    help="trickle: seconds between bytes (1.0)")
    ap.add_argument("--file-size", type=int, default=1,
                    help="the size Rgetattr gives every file (1)")
    ap.add_argument("--target", choices=sorted(T), default="Twalk",
                    help="drop_target: the message dropped (Twalk)")
    ap.add_argument("--reset", action="store_true",
                    help="drop_target: reset the connection instead")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print("\n".join(SCENARIOS))
        return 0
    if not args.scenario:
        ap.error("--scenario is required")
    log = Logger(args.log)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((args.host, args.port))
    ls.listen(16)
    print("PORT %d" % ls.getsockname()[1], flush=True)
    n = 0
    while True:
        sock, _ = ls.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        n += 1
        log("CONN conn=%d t=%.3f" % (n, time.monotonic()))
        threading.Thread(target=serve_conn, args=(sock, n, args, log),
                         daemon=True).start()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)

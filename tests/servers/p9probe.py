#!/usr/bin/env python3
"""Minimal 9P2000.L probe / micro-benchmark (Python 3 stdlib only).

Part of the real-server harness: tests/servers/verify.sh runs it against
ganesha's 9P listener (aname /export) and diod (aname = its export dir).
Exits non-zero (with a Python traceback naming the failing step) on any
protocol error, a read-back mismatch, or a server silent for --timeout s.

Usage:
  p9probe.py HOST PORT ANAME [--uid N] [--uname NAME] [--msize N]
             [--bench SECONDS] [--bench-size BYTES] [--iosize BYTES] [-q]
             [--timeout S] [--name FILE]

Sequence (printed one line per reply):
  Tversion(msize, "9P2000.L")  Tattach(fid 1, afid NOFID, uname, aname, n_uname)
  Twalk clone 1->2  Tlcreate(2, "p9probe.txt", O_RDWR|O_CREAT|O_TRUNC, 0644)
  Twrite  Tclunk(2)  Twalk 1->3 ["p9probe.txt"]  Tlopen(3, O_RDONLY)
  Tread  Tgetattr  Twalk 1->4 ["does-not-exist"] (expect Rlerror ENOENT)
  Twalk 1->5 clone, Tlopen(O_RDONLY|O_DIRECTORY), Treaddir
  Tclunk all.
--bench S: write a bench file (default 1 MiB) then issue synchronous
Tread(iosize, default 4096) calls for S seconds, one outstanding; prints ops/s.
"""
import argparse
import os
import socket
import struct
import sys
import time

NOTAG = 0xFFFF
NOFID = 0xFFFFFFFF

T = dict(Tlerror=6, Tstatfs=8, Tlopen=12, Tlcreate=14, Tgetattr=24,
         Treaddir=40, Tversion=100, Tattach=104, Twalk=110, Tread=116,
         Twrite=118, Tclunk=120, Tremove=122, Tunlinkat=76)
RNAMES = {7: "Rlerror", 9: "Rstatfs", 13: "Rlopen", 15: "Rlcreate",
          25: "Rgetattr", 41: "Rreaddir", 101: "Rversion", 105: "Rattach",
          111: "Rwalk", 117: "Rread", 119: "Rwrite", 121: "Rclunk",
          77: "Runlinkat", 107: "Rerror", 123: "Rremove"}

O_RDONLY, O_WRONLY, O_RDWR = 0, 1, 2
O_CREAT, O_TRUNC, O_DIRECTORY = 0o100, 0o1000, 0o200000


class P9Error(Exception):
    pass


def s9(s):
    b = s.encode()
    return struct.pack("<H", len(b)) + b


def qid(b, off=0):
    t, v, p = struct.unpack_from("<BIQ", b, off)
    return "qid(type=0x%02x ver=%d path=0x%x)" % (t, v, p)


class Conn:
    def __init__(self, host, port, timeout):
        self.s = socket.create_connection((host, port), timeout=timeout)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.tag = 0

    def _recvn(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise P9Error("connection closed by server")
            buf += chunk
        return bytes(buf)

    def rpc(self, ttype, body, tag=None):
        if tag is None:
            self.tag = (self.tag + 1) % 0xFFFF
            tag = self.tag
        msg = struct.pack("<IBH", 7 + len(body), ttype, tag) + body
        self.s.sendall(msg)
        size, rtype, rtag = struct.unpack("<IBH", self._recvn(7))
        payload = self._recvn(size - 7)
        if rtag != tag:
            raise P9Error("tag mismatch %d != %d" % (rtag, tag))
        if rtype == 7:  # Rlerror
            ecode = struct.unpack("<I", payload[:4])[0]
            raise P9Error("Rlerror ecode=%d (%s)" % (ecode, os.strerror(ecode)))
        if rtype == 107:
            # Rerror. NOTE: nfs-ganesha 4.3 replies to 9P2000.L errors with
            # type 107 (Rerror) but an Rlerror body (ecode[4] only).
            if len(payload) == 4:
                ecode = struct.unpack("<I", payload)[0]
                raise P9Error("Rerror(type 107 with Rlerror body) ecode=%d (%s)"
                              % (ecode, os.strerror(ecode)))
            ln = struct.unpack_from("<H", payload)[0]
            raise P9Error("Rerror ename=%r" % payload[2:2 + ln].decode(errors="replace"))
        if rtype != ttype + 1:
            raise P9Error("unexpected reply type %d to %d" % (rtype, ttype))
        return payload


def remove_old(c, walk, name):
    """Remove NAME under root fid 1: Tunlinkat, falling back to Twalk+Tremove
    (diod 1.0.24 answers Tunlinkat with EOPNOTSUPP)."""
    try:
        c.rpc(T["Tunlinkat"], struct.pack("<I", 1) + s9(name) + struct.pack("<I", 0))
        return "Runlinkat (old %s removed)" % name
    except P9Error as e:
        first = "Tunlinkat: %s" % e
    try:
        walk(1, 900, [name])
    except P9Error as e:
        return first + "; Twalk %s: %s (nothing to remove)" % (name, e)
    c.rpc(T["Tremove"], struct.pack("<I", 900))
    return first + "; Rremove (old %s removed via Twalk+Tremove)" % name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("aname")
    ap.add_argument("--uid", type=int, default=os.getuid())
    ap.add_argument("--uname", default="root")
    ap.add_argument("--msize", type=int, default=65536)
    ap.add_argument("--bench", type=float, default=0.0)
    ap.add_argument("--bench-size", type=int, default=1 << 20)
    ap.add_argument("--iosize", type=int, default=4096)
    ap.add_argument("-q", action="store_true", help="quiet (bench only)")
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="fail if the server is silent this long (s)")
    ap.add_argument("--name", default="p9probe.txt",
                    help="scratch file created under the export")
    a = ap.parse_args()
    say = (lambda *x: None) if a.q else print

    c = Conn(a.host, a.port, a.timeout)
    r = c.rpc(T["Tversion"], struct.pack("<I", a.msize) + s9("9P2000.L"), tag=NOTAG)
    msize = struct.unpack_from("<I", r)[0]
    vlen = struct.unpack_from("<H", r, 4)[0]
    ver = r[6:6 + vlen].decode()
    say("Rversion msize=%d version=%s" % (msize, ver))
    if ver != "9P2000.L":
        sys.exit("server did not accept 9P2000.L")

    r = c.rpc(T["Tattach"], struct.pack("<II", 1, NOFID) + s9(a.uname) + s9(a.aname)
              + struct.pack("<I", a.uid))
    say("Rattach", qid(r))

    def walk(fid, newfid, names):
        body = struct.pack("<IIH", fid, newfid, len(names)) + b"".join(s9(n) for n in names)
        r = c.rpc(T["Twalk"], body)
        n = struct.unpack_from("<H", r)[0]
        return [qid(r, 2 + 13 * i) for i in range(n)]

    def clunk(fid):
        c.rpc(T["Tclunk"], struct.pack("<I", fid))

    def write(fid, off, data):
        r = c.rpc(T["Twrite"], struct.pack("<IQI", fid, off, len(data)) + data)
        return struct.unpack("<I", r[:4])[0]

    name = a.name
    say("Rwalk(clone)", walk(1, 2, []))
    # best effort: remove an old copy so Tlcreate does not fail with EEXIST
    say(remove_old(c, walk, name))
    r = c.rpc(T["Tlcreate"], struct.pack("<I", 2) + s9(name)
              + struct.pack("<III", O_RDWR | O_CREAT | O_TRUNC, 0o644, 0))
    iounit = struct.unpack_from("<I", r, 13)[0]
    say("Rlcreate", qid(r), "iounit=%d" % iounit)
    payload = b"hello from p9probe\n"
    say("Rwrite count=%d" % write(2, 0, payload))
    clunk(2)
    say("Rclunk fid=2")

    say("Rwalk", walk(1, 3, [name]))
    r = c.rpc(T["Tlopen"], struct.pack("<II", 3, O_RDONLY))
    say("Rlopen", qid(r), "iounit=%d" % struct.unpack_from("<I", r, 13)[0])
    r = c.rpc(T["Tread"], struct.pack("<IQI", 3, 0, 4096))
    n = struct.unpack_from("<I", r)[0]
    say("Rread count=%d data=%r" % (n, r[4:4 + n]))
    assert r[4:4 + n] == payload, "read-back mismatch"
    r = c.rpc(T["Tgetattr"], struct.pack("<IQ", 3, 0x3FFF))
    valid, = struct.unpack_from("<Q", r)
    mode, uid, gid, nlink, rdev, size = struct.unpack_from("<IIIQQQ", r, 8 + 13)
    say("Rgetattr valid=0x%x mode=0%o uid=%d gid=%d nlink=%d size=%d"
        % (valid, mode, uid, gid, nlink, size))
    clunk(3)

    try:
        walk(1, 4, ["does-not-exist"])
        say("Twalk nonexistent: unexpectedly succeeded")
    except P9Error as e:
        say("Twalk nonexistent ->", e)

    walk(1, 5, [])
    c.rpc(T["Tlopen"], struct.pack("<II", 5, O_RDONLY | O_DIRECTORY))
    r = c.rpc(T["Treaddir"], struct.pack("<IQI", 5, 0, 8192))
    cnt = struct.unpack_from("<I", r)[0]
    off, names = 4, []
    while off < 4 + cnt:
        # qid[13] offset[8] type[1] name[s]
        off += 13 + 8 + 1
        ln = struct.unpack_from("<H", r, off)[0]
        names.append(r[off + 2:off + 2 + ln].decode())
        off += 2 + ln
    say("Rreaddir %d bytes entries=%s" % (cnt, names[:20]))
    clunk(5)

    if a.bench > 0:
        bname = "p9bench.dat"
        walk(1, 6, [])
        remove_old(c, walk, bname)
        c.rpc(T["Tlcreate"], struct.pack("<I", 6) + s9(bname)
              + struct.pack("<III", O_RDWR | O_CREAT | O_TRUNC, 0o644, 0))
        chunk = os.urandom(min(msize - 64, 32768))
        off = 0
        while off < a.bench_size:
            off += write(6, off, chunk[:min(len(chunk), a.bench_size - off)])
        clunk(6)
        walk(1, 7, [bname])
        c.rpc(T["Tlopen"], struct.pack("<II", 7, O_RDONLY))
        nblk = a.bench_size // a.iosize
        ops = 0
        t0 = time.perf_counter()
        end = t0 + a.bench
        hdr = struct.pack("<IBH", 7 + 16, T["Tread"], 1)
        s = c.s
        while True:
            # hand-inlined Tread for lower Python overhead
            s.sendall(hdr + struct.pack("<IQI", 7, (ops % nblk) * a.iosize, a.iosize))
            need = 7 + 4 + a.iosize
            got = 0
            while got < need:
                b = s.recv(need - got)
                if not b:
                    raise P9Error("closed")
                got += len(b)
            ops += 1
            if (ops & 255) == 0 and time.perf_counter() >= end:
                break
        dt = time.perf_counter() - t0
        clunk(7)
        print("bench: %d x Tread(%d) in %.2fs = %.0f ops/s (%.1f MiB/s), sync, 1 outstanding"
              % (ops, a.iosize, dt, ops / dt, ops * a.iosize / dt / 2**20))

    clunk(1)
    say("Rclunk fid=1; OK")


if __name__ == "__main__":
    main()

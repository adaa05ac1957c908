#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Self-test of p9_hostile.py: start each scenario as a real process, talk
to it with a raw socket, and check the bytes on the wire are exactly the
ones the scenario promises (and whether the stream stays silent or ends).

The expected bytes are written out here independently (struct.pack of the
9P2000.L layouts), not taken from p9_hostile.py, so a mistake in its reply
builders shows up as a mismatch.

usage: python3 tests/hostile/selftest_p9_hostile.py [-v] [TestName...]
Runs in a few seconds; exits non-zero on any failure.
"""
import os
import socket
import struct
import subprocess
import sys
import time
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "p9_hostile.py")
TAG = 3
OFF, COUNT = 1000, 64


def m(mtype, tag, body=b""):
    return struct.pack("<IBH", 7 + len(body), mtype, tag) + body


def data(offset, count):
    return bytes((offset + i) & 0xFF for i in range(count))


def rread(tag, offset, count):
    return m(117, tag, struct.pack("<I", count) + data(offset, count))


def tread(tag=TAG, offset=OFF, count=COUNT):
    return m(116, tag, struct.pack("<IQI", 1, offset, count))


def tflush(tag, oldtag):
    return m(108, tag, struct.pack("<H", oldtag))


class Server:
    def __init__(self, scenario, *extra):
        fd, self.log = tempfile.mkstemp(prefix="p9_hostile_", suffix=".log")
        os.close(fd)
        self.p = subprocess.Popen(
            [sys.executable, SERVER, "--scenario", scenario, "--log",
             self.log] + list(extra), stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        assert line.startswith("PORT "), line
        self.port = int(line.split()[1])

    def close(self):
        self.p.terminate()
        self.p.wait()
        self.p.stdout.close()
        os.unlink(self.log)

    def log_lines(self):
        """The MSG lines (CONN lines: conns())."""
        with open(self.log) as f:
            return [ln for ln in f.read().splitlines()
                    if not ln.startswith("CONN ")]

    def conns(self):
        with open(self.log) as f:
            return sum(ln.startswith("CONN ") for ln in f)


class Client:
    def __init__(self, port, msize=8192):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.settimeout(2)
        self.msize = msize

    def rx(self, n):
        buf = b""
        while len(buf) < n:
            part = self.s.recv(n - len(buf))
            if not part:
                raise EOFError(buf)
            buf += part
        return buf

    def reply(self):
        hdr = self.rx(4)
        return hdr + self.rx(struct.unpack("<I", hdr)[0] - 4)

    def silent(self, secs=0.3):
        """True when nothing arrives (and the stream stays open)."""
        self.s.settimeout(secs)
        try:
            self.s.recv(1)
        except socket.timeout:
            return True
        finally:
            self.s.settimeout(2)
        return False

    def eof(self):
        try:
            return self.s.recv(1) == b""
        except ConnectionResetError:
            return True

    def start(self, version="9P2000.L"):
        v = version.encode()
        self.s.sendall(m(100, 0xFFFF, struct.pack("<IH", self.msize, len(v))
                         + v))
        r = self.reply()
        self.s.sendall(m(104, 1, struct.pack("<IIH", 0, 0xFFFFFFFF, 0) +
                         struct.pack("<HI", 0, 0)))
        self.reply()
        return r


class T(unittest.TestCase):
    def run_sc(self, sc, fn, *extra):
        srv = Server(sc, *extra)
        try:
            c = Client(srv.port)
            fn(c, srv)
            c.s.close()
        finally:
            srv.close()

    def test_version_and_attach(self):
        def fn(c, srv):
            r = c.start()
            self.assertEqual(r, m(101, 0xFFFF, struct.pack("<I", 8192) +
                                  struct.pack("<H", 8) + b"9P2000.L"))
            self.assertEqual(srv.log_lines()[:2], [
                "MSG conn=1 type=Tversion tag=65535",
                "MSG conn=1 type=Tattach tag=1"])
        self.run_sc("ok", fn)

    def test_msize_capped(self):
        def fn(c, srv):
            r = c.start()
            self.assertEqual(struct.unpack_from("<I", r, 7)[0], 4096)
        self.run_sc("ok", fn, "--msize", "4096")

    def test_version_unknown(self):
        def fn(c, srv):
            r = c.start()
            self.assertEqual(r, m(101, 0xFFFF, struct.pack("<IH", 8192, 7) +
                                  b"unknown"))
        self.run_sc("version_unknown", fn)

    def test_ok(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), rread(TAG, OFF, COUNT))
        self.run_sc("ok", fn)

    def test_wrong_tag(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), rread(TAG ^ 0x8000, OFF, COUNT))
        self.run_sc("wrong_tag", fn)

    def test_unused_tag(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), m(7, 0x7777, struct.pack("<I", 5)))
            self.assertEqual(c.reply(), rread(TAG, OFF, COUNT))
        self.run_sc("unused_tag", fn)

    def test_size_over_msize(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            r = c.reply()
            self.assertEqual(len(r), 8192 + 16)
            self.assertEqual(r, rread(TAG, OFF, 8192 + 16 - 11))
        self.run_sc("size_over_msize", fn)

    def test_size_huge(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.rx(7), struct.pack("<IBH", 0x7FFFFFF0, 117,
                                                  TAG))
            self.assertTrue(c.silent())
        self.run_sc("size_huge", fn)

    def test_size_under_header(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.rx(7), struct.pack("<IBH", 5, 117, TAG))
        self.run_sc("size_under_header", fn)

    def test_string_past_end(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(m(22, TAG, struct.pack("<I", 1)))
            self.assertEqual(c.reply(), m(23, TAG, struct.pack("<H", 100) +
                                          b"abc"))
        self.run_sc("string_past_end", fn)

    def test_count_over_request(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), rread(TAG, OFF, COUNT + 10))
        self.run_sc("count_over_request", fn)

    def test_truncated_data(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), m(117, TAG, struct.pack("<I", COUNT)
                                          + data(OFF, COUNT // 2)))
        self.run_sc("truncated_data", fn)

    def test_rflush_unflushed(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), m(109, TAG))
        self.run_sc("rflush_unflushed", fn)

    def test_rlerror_to_tflush(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertTrue(c.silent())
            c.s.sendall(tflush(4, TAG))
            self.assertEqual(c.reply(), m(7, 4, struct.pack("<I", 22)))
            self.assertIn("MSG conn=1 type=Tflush tag=4 oldtag=3",
                          srv.log_lines())
        self.run_sc("rlerror_to_tflush", fn)

    def test_wrong_type(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), m(119, TAG, struct.pack("<I", 5)))
        self.run_sc("wrong_type", fn)

    def test_rerror_107(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.reply(), m(107, TAG, struct.pack("<I", 13)))
        self.run_sc("rerror_107", fn)

    def test_drop(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertTrue(c.silent())
            c.s.sendall(tflush(4, TAG))
            self.assertEqual(c.reply(), m(109, 4))
        self.run_sc("drop", fn)

    def test_drop_noflush(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            c.s.sendall(tflush(4, TAG))
            self.assertTrue(c.silent())
            # everything else still works
            c.s.sendall(m(120, 5, struct.pack("<I", 0)))
            self.assertEqual(c.reply(), m(121, 5))
        self.run_sc("drop_noflush", fn)

    def test_late_reply(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertTrue(c.silent())
            c.s.sendall(tflush(4, TAG))
            self.assertEqual(c.reply(), rread(TAG, OFF, COUNT))
            self.assertEqual(c.reply(), m(109, 4))
        self.run_sc("late_reply", fn)

    def test_stall_mid_reply(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertEqual(c.rx(11 + COUNT // 2),
                             rread(TAG, OFF, COUNT)[:11 + COUNT // 2])
            self.assertTrue(c.silent())
        self.run_sc("stall_mid_reply", fn)

    def test_close_on_read(self):
        def fn(c, srv):
            c.start()
            c.s.sendall(tread())
            self.assertTrue(c.eof())
        self.run_sc("close_on_read", fn)

    def test_reset_on_accept(self):
        srv = Server("reset_on_accept")
        try:
            for _ in range(2):
                try:  # the RST may beat the handshake's end
                    c = Client(srv.port)
                    self.assertTrue(c.eof())
                    c.s.close()
                except ConnectionResetError:
                    pass
            self.assertEqual(srv.conns(), 2)
        finally:
            srv.close()

    def test_short_record(self):
        def fn(c, srv):
            c.s.sendall(m(100, 0xFFFF, struct.pack("<IH", 8192, 8) +
                          b"9P2000.L"))
            self.assertEqual(c.rx(7), struct.pack("<IBH", 5, 101, 0xFFFF))
            self.assertTrue(c.eof())
        self.run_sc("short_record", fn)

    def test_garbage(self):
        def fn(c, srv):
            c.s.sendall(m(100, 0xFFFF, struct.pack("<IH", 8192, 8) +
                          b"9P2000.L"))
            self.assertEqual(len(c.rx(64)), 64)
        self.run_sc("garbage", fn)

    def test_unknown_tag_forever(self):
        def fn(c, srv):
            r = c.start()
            self.assertEqual(struct.unpack_from("<H", r, 5)[0],
                             0xFFFF ^ 0x8000)
        self.run_sc("unknown_tag_forever", fn)

    def test_trickle(self):
        def fn(c, srv):
            t0 = time.monotonic()
            c.s.sendall(m(100, 0xFFFF, struct.pack("<IH", 8192, 8) +
                          b"9P2000.L"))
            self.assertEqual(c.rx(4), struct.pack("<I", 21))
            self.assertGreaterEqual(time.monotonic() - t0, 0.35)
        self.run_sc("trickle", fn, "--delay", "0.1")

    def test_no_read(self):
        def fn(c, srv):
            c.s.settimeout(0.3)
            c.s.sendall(m(100, 0xFFFF, struct.pack("<IH", 8192, 8) +
                          b"9P2000.L"))
            with self.assertRaises(socket.timeout):
                c.s.recv(1)
            self.assertEqual(srv.log_lines(), [])
        self.run_sc("no_read", fn)

    def test_rlerror_storm(self):
        def fn(c, srv):
            c.start()
            for _ in range(3):
                c.s.sendall(tread())
                self.assertEqual(c.reply(), m(7, TAG, struct.pack("<I", 5)))
        self.run_sc("rlerror_storm", fn)

    def test_drop_target(self):
        def twalk(tag):
            return m(110, tag, struct.pack("<IIH", 0, 1, 1) +
                     struct.pack("<H", 1) + b"f")

        def short(c, srv):
            c.start()
            c.s.sendall(twalk(TAG))
            self.assertEqual(c.rx(7), struct.pack("<IBH", 5, 111, TAG))
            self.assertTrue(c.eof())

        def fsync(c, srv):
            c.start()
            c.s.sendall(twalk(TAG))
            self.assertEqual(c.reply(), m(111, TAG, struct.pack("<H", 1) +
                                          struct.pack("<BIQ", 0, 0, 100)))
            c.s.sendall(m(118, TAG, struct.pack("<IQI", 1, 0, 3) + b"abc"))
            self.assertEqual(c.reply(), m(119, TAG, struct.pack("<I", 3)))
            c.s.sendall(m(50, TAG, struct.pack("<II", 1, 0)))
            self.assertEqual(c.rx(7), struct.pack("<IBH", 5, 51, TAG))
            self.assertTrue(c.eof())

        def reset(c, srv):
            c.start()
            c.s.sendall(twalk(TAG))
            with self.assertRaises(ConnectionResetError):
                c.s.recv(1)
        self.run_sc("drop_target", short)
        self.run_sc("drop_target", fsync, "--target", "Tfsync")
        self.run_sc("drop_target", reset, "--reset")

    def treaddir(self, c, offset):
        c.s.sendall(m(40, TAG, struct.pack("<IQI", 1, offset, 4096)))
        return c.reply()

    def ent(self, offset, name):
        return struct.pack("<BIQQBH", 0, 0, 99 + offset, offset, 8,
                           len(name)) + name

    def test_readdir_loop(self):
        def fn(c, srv):
            c.start()
            e = struct.pack("<BIQQBH", 0, 0, 100, 7, 8, 1) + b"x"
            for off in (0, 7, 7):
                self.assertEqual(self.treaddir(c, off),
                                 m(41, TAG, struct.pack("<I", len(e)) + e))
        self.run_sc("readdir_loop", fn)

    def test_readdir_names(self):
        def fn(c, srv):
            c.start()
            names = (b"a\0b/../etc", b"../x", b"back\\slash", b"ok")
            for i, name in enumerate(names):
                e = self.ent(i + 1, name)
                self.assertEqual(self.treaddir(c, i),
                                 m(41, TAG, struct.pack("<I", len(e)) + e))
            self.assertEqual(self.treaddir(c, 4),
                             m(41, TAG, struct.pack("<I", 0)))
        self.run_sc("readdir_names", fn)

    def test_every_scenario_listed_is_tested(self):
        out = subprocess.run([sys.executable, SERVER, "--list"],
                             capture_output=True, text=True, check=True)
        names = {n[len("test_"):] for n in dir(self) if n.startswith("test_")}
        for sc in out.stdout.split():
            self.assertIn(sc, names | {"version_unknown", "ok"}, sc)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Self-test of rpc_hostile.py: start each scenario as a real process, talk
to it with a raw socket, and check the bytes on the wire are exactly the
ones the scenario promises (and how the stream ends: open, FIN or RST).

The expected bytes are written out here independently (struct.pack of the
RFC 5531 layouts), not taken from rpc_hostile.py, so a mistake in its reply
builders shows up as a mismatch.

usage: python3 tests/hostile/selftest_rpc_hostile.py [-v] [TestName...]
Runs in ~10 s; exits non-zero on any failure.
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "rpc_hostile.py")

XID = 0x01020304
NFS_PROG, NFS_VERS = 100003, 3
LAST = 0x80000000


def w(*vals):
    return struct.pack(">%dI" % len(vals), *[v & 0xFFFFFFFF for v in vals])


def call_payload(xid=XID, prog=NFS_PROG, vers=NFS_VERS, proc=0, cred=None):
    """A CALL with AUTH_NONE verifier; cred default AUTH_NONE."""
    if cred is None:
        cred = w(0, 0)
    return w(xid, 0, 2, prog, vers, proc) + cred + w(0, 0)


def auth_sys_cred():
    machine = b"selftest"
    body = w(12345) + w(len(machine)) + machine + w(0, 0, 1, 42)
    return w(1, len(body)) + body


def rec(payload, last=True):
    return w((LAST if last else 0) | len(payload)) + payload


def good_reply(xid=XID):
    # xid, REPLY, MSG_ACCEPTED, verf AUTH_NONE (flavor 0, len 0), SUCCESS
    return w(xid, 1, 0, 0, 0, 0)


class Server:
    def __init__(self, scenario, *extra):
        fd, self.log = tempfile.mkstemp(prefix="rpc_hostile_", suffix=".log")
        os.close(fd)
        self.p = subprocess.Popen(
            [sys.executable, SERVER, "--scenario", scenario, "--port", "0",
             "--log", self.log] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("PORT "):
            self.p.kill()
            raise AssertionError("first line %r, stderr %r"
                                 % (line, self.p.stderr.read()))
        self.port = int(line.split()[1])

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def calls(self):
        with open(self.log) as f:
            return [dict(kv.split("=", 1) for kv in ln.split()[1:])
                    for ln in f if ln.startswith("CALL ")]

    def log_lines(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def stop(self):
        self.p.kill()
        self.p.wait()
        self.p.stdout.close()
        self.p.stderr.close()
        os.unlink(self.log)


def read_until(s, want=None, quiet=0.15, limit=5.0):
    """Collect bytes until @want bytes arrived (then wait @quiet more for
    extras), EOF, RST, or @quiet seconds of silence. Returns (data, end)
    with end in "eof", "rst", "open"."""
    data = bytearray()
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        t = quiet if want is None or len(data) >= want else \
            deadline - time.monotonic()
        s.settimeout(max(t, 0.01))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            return bytes(data), "open"
        except ConnectionResetError:
            return bytes(data), "rst"
        if not chunk:
            return bytes(data), "eof"
        data += chunk
    return bytes(data), "open"


class HostileTest(unittest.TestCase):
    scenario = None
    extra = ()

    def setUp(self):
        self.srv = Server(self.scenario, *self.extra)
        self.s = self.srv.connect()

    def tearDown(self):
        self.s.close()
        self.srv.stop()

    def exchange(self, expect, end="open", payload=None):
        self.s.sendall(rec(payload or call_payload()))
        data, how = read_until(self.s, len(expect))
        self.assertEqual(data.hex(), expect.hex())
        self.assertEqual(how, end)
        return data


class TestOk(HostileTest):
    scenario = "ok"

    def test_null_call_gets_exact_accepted_success(self):
        self.exchange(rec(good_reply()))

    def test_log_records_xid_prog_vers_proc(self):
        self.exchange(rec(good_reply()))
        self.s.sendall(rec(call_payload(xid=7, prog=100005, vers=3, proc=1,
                                        cred=auth_sys_cred())))
        read_until(self.s, 28)
        c = self.srv.calls()
        self.assertEqual(len(c), 2)
        self.assertEqual((c[0]["xid"], c[0]["prog"], c[0]["vers"],
                          c[0]["proc"], c[0]["cred"]),
                         ("0x01020304", "100003", "3", "0", "0"))
        self.assertEqual((c[1]["xid"], c[1]["prog"], c[1]["proc"],
                          c[1]["cred"], c[1]["seq"]),
                         ("0x00000007", "100005", "1", "1", "2"))

    def test_retransmission_shows_same_xid_twice_in_log(self):
        for _ in range(2):
            self.exchange(rec(good_reply()))
        xids = [c["xid"] for c in self.srv.calls()]
        self.assertEqual(xids, ["0x01020304", "0x01020304"])

    def test_pipelined_calls_answered_in_order(self):
        self.s.sendall(b"".join(rec(call_payload(xid=i)) for i in range(10)))
        want = b"".join(rec(good_reply(i)) for i in range(10))
        data, how = read_until(self.s, len(want))
        self.assertEqual(data, want)

    def test_call_split_over_fragments_is_reassembled(self):
        p = call_payload(xid=99)
        self.s.sendall(rec(p[:5], last=False) + rec(p[5:30], last=False) +
                       rec(p[30:]))
        data, _ = read_until(self.s, 28)
        self.assertEqual(data, rec(good_reply(99)))

    def test_results_hex_appended(self):
        srv = Server("ok", "--results-hex", "0000000100000002")
        try:
            s = srv.connect()
            s.sendall(rec(call_payload()))
            data, _ = read_until(s, 36)
            self.assertEqual(data, rec(good_reply() + w(1, 2)))
            s.close()
        finally:
            srv.stop()


class TestRobustness(HostileTest):
    scenario = "ok"

    def test_garbage_record_is_logged_and_skipped(self):
        self.s.sendall(rec(b"\x01\x02\x03"))
        self.s.sendall(rec(w(5, 1, 0, 0, 0, 0) + w(0, 0, 0, 0)))  # a REPLY
        self.exchange(rec(good_reply()))
        bad = [ln for ln in self.srv.log_lines() if ln.startswith("BADCALL")]
        self.assertEqual(len(bad), 2)

    def test_bad_auth_length_is_a_badcall(self):
        self.s.sendall(rec(call_payload(cred=w(1, 9999))))
        self.exchange(rec(good_reply()))
        self.assertIn("why=bad_auth_length_9999",
                      " ".join(self.srv.log_lines()))

    def reconnect(self):
        self.s.close()
        self.s = self.srv.connect()

    def test_client_vanishing_mid_record_leaves_server_up(self):
        self.s.sendall(w(LAST | 100) + b"x" * 10)
        s2 = self.srv.connect()
        s2.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                      struct.pack("ii", 1, 0))
        s2.sendall(w(LAST | 100))
        s2.close()  # RST
        self.reconnect()
        self.exchange(rec(good_reply()))
        self.assertIsNone(self.srv.p.poll())

    def test_oversized_client_record_closes_only_that_connection(self):
        self.s.sendall(w(0x7FFFFFFF))
        _, how = read_until(self.s, quiet=1.0)
        self.assertIn(how, ("eof", "rst"))
        self.reconnect()
        self.exchange(rec(good_reply()))

    def test_many_connections_each_logged(self):
        socks = [self.srv.connect() for _ in range(20)]
        for i, s in enumerate(socks):
            s.sendall(rec(call_payload(xid=i)))
        for i, s in enumerate(socks):
            data, _ = read_until(s, 28)
            self.assertEqual(data, rec(good_reply(i)))
            s.close()
        conns = {c["conn"] for c in self.srv.calls()}
        self.assertEqual(len(conns), 20)


class TestUnknownXid(HostileTest):
    scenario = "unknown_xid"

    def test_stray_reply_then_correct_one(self):
        self.exchange(rec(good_reply(XID + 12345)) + rec(good_reply()))


class TestDupReply(HostileTest):
    scenario = "dup_reply"

    def test_correct_reply_twice(self):
        self.exchange(rec(good_reply()) * 2)


class TestTruncatedRecord(HostileTest):
    scenario = "truncated_record"

    def test_marker_says_100_sends_10_then_fin(self):
        self.exchange(w(LAST | 100) + good_reply()[:10], end="eof")


class TestHugeFragment(HostileTest):
    scenario = "huge_fragment"

    def test_max_length_last_clear_64_bytes_then_fin(self):
        body = (good_reply() + b"\0" * 64)[:64]
        self.exchange(w(0x7FFFFFFF) + body, end="eof")


class TestHugeFragmentLast(HostileTest):
    scenario = "huge_fragment"
    extra = ("--variant", "last")

    def test_max_length_last_set(self):
        body = (good_reply() + b"\0" * 64)[:64]
        self.exchange(w(0xFFFFFFFF) + body, end="eof")


def bad_header_case(variant, payload):
    def test_bytes(self):
        self.exchange(rec(payload))

    cls = type("TestBadHeader_" + variant, (HostileTest,), {
        "scenario": "bad_header",
        "extra": ("--variant", variant),
        "test_bytes": test_bytes,
    })
    globals()[cls.__name__] = cls


bad_header_case("msg_type", w(XID, 7, 0, 0, 0, 0))
bad_header_case("reply_stat", w(XID, 1, 9, 0, 0, 0))
bad_header_case("accept_stat", w(XID, 1, 0, 0, 0, 99))
bad_header_case("truncated_verf", w(XID, 1, 0, 1, 8) + b"\xAA" * 4)
bad_header_case("verf_too_long", w(XID, 1, 0, 1, 401) + b"\0" * 404 + w(0))
bad_header_case("short", w(XID, 1))
bad_header_case("reject_stat", w(XID, 1, 1, 7))
bad_header_case("auth_stat", w(XID, 1, 1, 1, 99))


class TestBadHeaderDefault(HostileTest):
    scenario = "bad_header"

    def test_default_is_msg_type_7(self):
        self.exchange(rec(w(XID, 7, 0, 0, 0, 0)))


def simple_case(name, scenario, payload, extra=()):
    def test_bytes(self):
        self.exchange(rec(payload))

    cls = type("Test_" + name, (HostileTest,), {
        "scenario": scenario, "extra": tuple(extra),
        "test_bytes": test_bytes,
    })
    globals()[cls.__name__] = cls


simple_case("rpc_mismatch", "rpc_mismatch", w(XID, 1, 1, 0, 2, 2))
simple_case("rpc_mismatch_custom", "rpc_mismatch", w(XID, 1, 1, 0, 3, 5),
            ("--low", "3", "--high", "5"))
simple_case("auth_error_tooweak", "auth_error", w(XID, 1, 1, 1, 5))
simple_case("auth_error_badcred", "auth_error", w(XID, 1, 1, 1, 1),
            ("--auth-stat", "1"))
simple_case("prog_unavail", "prog_unavail", w(XID, 1, 0, 0, 0, 1))
simple_case("prog_mismatch", "prog_mismatch", w(XID, 1, 0, 0, 0, 2, 2, 4))
simple_case("proc_unavail", "proc_unavail", w(XID, 1, 0, 0, 0, 3))
simple_case("garbage_args", "garbage_args", w(XID, 1, 0, 0, 0, 4))
simple_case("system_err", "system_err", w(XID, 1, 0, 0, 0, 5))


class TestResetMidRecord(HostileTest):
    scenario = "reset_mid_record"

    def test_half_reply_then_rst(self):
        self.exchange(w(LAST | 24) + good_reply()[:12], end="rst")


class TestMultiFragment(HostileTest):
    scenario = "multi_fragment"

    def test_three_fragments_7_9_rest(self):
        r = good_reply()
        data = self.exchange(rec(r[:7], last=False) + rec(r[7:16], last=False)
                             + rec(r[16:]))
        # and they reassemble into the correct reply
        out, off, last = b"", 0, False
        while not last:
            (m,) = struct.unpack_from(">I", data, off)
            last, n = bool(m & LAST), m & 0x7FFFFFFF
            out += data[off + 4:off + 4 + n]
            off += 4 + n
        self.assertEqual(out, r)


class TestSlow(HostileTest):
    scenario = "slow"
    extra = ("--delay", "0.4")

    def test_reply_not_before_delay(self):
        t0 = time.monotonic()
        self.s.sendall(rec(call_payload()))
        data, _ = read_until(self.s, quiet=0.3)
        self.assertEqual(data, b"", "replied before --delay")
        data, how = read_until(self.s, 28, limit=2)
        self.assertEqual(data, rec(good_reply()))
        self.assertGreaterEqual(time.monotonic() - t0, 0.39)

    def test_pipelined_calls_each_delayed_not_serialised(self):
        t0 = time.monotonic()
        self.s.sendall(rec(call_payload(xid=1)) + rec(call_payload(xid=2)))
        data, _ = read_until(self.s, 56, limit=3)
        # each reply has its own timer: under load the second may fire
        # first, and a client matches replies by XID anyway
        self.assertEqual(sorted((data[:28], data[28:])),
                         sorted((rec(good_reply(1)), rec(good_reply(2)))))
        self.assertLess(time.monotonic() - t0, 0.75)


class TestDrop(HostileTest):
    scenario = "drop"

    def test_never_replies_but_logs(self):
        self.exchange(b"", end="open")
        self.assertEqual(len(self.srv.calls()), 1)


class TestDropFirst(HostileTest):
    scenario = "drop_first"

    def test_first_call_dropped_second_answered(self):
        self.exchange(b"", payload=call_payload(xid=1))
        self.exchange(rec(good_reply(2)), payload=call_payload(xid=2))

    def test_each_new_connection_drops_its_first(self):
        self.exchange(b"", payload=call_payload(xid=1))
        s2 = self.srv.connect()
        s2.sendall(rec(call_payload(xid=3)) + rec(call_payload(xid=4)))
        data, _ = read_until(s2, 28)
        self.assertEqual(data, rec(good_reply(4)))
        s2.close()


class TestCloseOnCall(HostileTest):
    scenario = "close_on_call"

    def test_fin_without_reply(self):
        self.exchange(b"", end="eof")


class TestReorder(HostileTest):
    scenario = "reorder"

    def test_second_answered_before_first(self):
        self.exchange(b"", payload=call_payload(xid=1))
        self.exchange(rec(good_reply(2)) + rec(good_reply(1)),
                      payload=call_payload(xid=2))


class TestResetOnAccept(unittest.TestCase):
    def test_rst_before_anything(self):
        srv = Server("reset_on_accept")
        try:
            for _ in range(3):
                try:  # the RST may beat our first setsockopt
                    s = srv.connect()
                    data, how = read_until(s)
                    s.close()
                except ConnectionResetError:
                    data, how = b"", "rst"
                self.assertEqual((data, how), (b"", "rst"))
            self.assertEqual(sum(ln.startswith("CONN ")
                                 for ln in srv.log_lines()), 3)
        finally:
            srv.stop()


class TestShortRecord(HostileTest):
    scenario = "short_record"

    def test_two_byte_record_then_fin(self):
        self.exchange(w(LAST | 2) + b"\0\0", end="eof")


class TestGarbage(HostileTest):
    scenario = "garbage"

    def test_framed_random_record_each_call_stream_open(self):
        for _ in range(2):
            self.s.sendall(rec(call_payload()))
            data, how = read_until(self.s, 68)
            self.assertEqual((len(data), how), (68, "open"))
            self.assertEqual(data[:4], w(LAST | 64))


class TestGarbageRaw(HostileTest):
    scenario = "garbage"
    extra = ("--variant", "raw")

    def test_64_raw_bytes(self):
        self.s.sendall(rec(call_payload()))
        data, how = read_until(self.s, 64)
        self.assertEqual((len(data), how), (64, "open"))


class TestUnknownXidForever(HostileTest):
    scenario = "unknown_xid_forever"

    def test_only_the_wrong_xid(self):
        self.exchange(rec(good_reply(XID + 12345)))
        self.exchange(rec(good_reply(XID + 12345)))


class TestEndlessFragments(HostileTest):
    scenario = "endless_fragments"

    def test_one_byte_fragments_none_last(self):
        self.s.sendall(rec(call_payload()))
        data, _ = read_until(self.s, 5 * 64, quiet=0.5)
        self.assertGreaterEqual(len(data), 5 * 64)
        head = b"".join(w(1) + good_reply()[i:i + 1] for i in range(8))
        self.assertEqual(data[:40], head)
        self.assertEqual(data[40:45], w(1) + b"\0")


class TestTrickle(HostileTest):
    scenario = "trickle"
    extra = ("--delay", "0.1")

    def test_one_byte_per_delay(self):
        t0 = time.monotonic()
        self.s.sendall(rec(call_payload()))
        data, _ = read_until(self.s, 28, limit=6)
        self.assertEqual(data, rec(good_reply()))
        self.assertGreaterEqual(time.monotonic() - t0, 2.7)


class TestNoRead(HostileTest):
    scenario = "no_read"

    def test_silent_and_open(self):
        self.exchange(b"", end="open")
        self.assertEqual(len(self.srv.calls()), 0)


def fattr3(ftype):
    # type, mode 0644, nlink 1, uid 0, gid 0, size and used 4096, rdev,
    # fsid 1, fileid 2, three times of zero
    return w(ftype, 0o644, 1, 0, 0) + struct.pack(">QQ", 4096, 4096) + \
        w(0, 0) + struct.pack(">QQ", 1, 2) + w(0, 0) * 3


class TestNfs(HostileTest):
    scenario = "nfs"
    extra = ("--variant", "type66")

    def test_mnt_fsinfo_lookup_getattr(self):
        self.exchange(rec(good_reply() + w(0, 8) + b"fh-root0" + w(1, 1)),
                      payload=call_payload(prog=100005, proc=1))
        fsinfo = w(0, 1) + fattr3(2) + w(65536, 65536, 4096, 65536, 65536,
                                         4096, 65536) + \
            struct.pack(">Q", 1 << 40) + w(0, 1, 0x1B)
        self.exchange(rec(good_reply() + fsinfo),
                      payload=call_payload(proc=19))
        self.exchange(rec(good_reply() + w(0, 8) + b"fh-file0" + w(1) +
                          fattr3(66) + w(0)),
                      payload=call_payload(proc=3))
        self.exchange(rec(good_reply() + w(0) + fattr3(66)),
                      payload=call_payload(proc=1))
        self.exchange(rec(good_reply() + w(10004, 0, 0)),
                      payload=call_payload(proc=7))


class TestNfsRtmax1(HostileTest):
    scenario = "nfs"
    extra = ("--variant", "rtmax1")

    def test_fsinfo_offers_one_byte(self):
        fsinfo = w(0, 1) + fattr3(2) + w(1, 1, 4096, 1, 1, 4096, 65536) + \
            struct.pack(">Q", 1 << 40) + w(0, 1, 0x1B)
        self.exchange(rec(good_reply() + fsinfo),
                      payload=call_payload(proc=19))


class TestNfsJukebox(HostileTest):
    scenario = "nfs"
    extra = ("--variant", "jukebox", "--results-hex", "00011170")

    def test_every_nfs_call_jukebox(self):
        self.exchange(rec(good_reply() + w(10008, 0)),
                      payload=call_payload(proc=19))
        self.exchange(rec(good_reply() + w(10008)),
                      payload=call_payload(proc=1))
        # a portmapper's call gets --results-hex
        self.exchange(rec(good_reply() + w(70000)),
                      payload=call_payload(prog=100000, vers=2, proc=3))


class TestCommandLine(unittest.TestCase):
    def run_cli(self, *args):
        return subprocess.run([sys.executable, SERVER] + list(args),
                              capture_output=True, text=True, timeout=10)

    def test_list_names_every_required_scenario(self):
        names = set(self.run_cli("--list").stdout.split())
        need = {"ok", "unknown_xid", "dup_reply", "truncated_record",
                "huge_fragment", "bad_header", "rpc_mismatch", "auth_error",
                "prog_unavail", "prog_mismatch", "proc_unavail",
                "garbage_args", "system_err", "reset_mid_record",
                "multi_fragment", "slow", "drop", "drop_first", "nfs"}
        self.assertTrue(need <= names, need - names)

    def test_unknown_scenario_rejected(self):
        self.assertNotEqual(self.run_cli("--scenario", "nope").returncode, 0)

    def test_unknown_bad_header_variant_rejected(self):
        r = self.run_cli("--scenario", "bad_header", "--variant", "nope")
        self.assertNotEqual(r.returncode, 0)

    def test_fixed_port_is_used(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        p = subprocess.Popen([sys.executable, SERVER, "--scenario", "ok",
                              "--port", str(port)],
                             stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(p.stdout.readline().strip(), "PORT %d" % port)
        finally:
            p.kill()
            p.wait()
            p.stdout.close()


if __name__ == "__main__":
    unittest.main(verbosity=1)

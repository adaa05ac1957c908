#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn a capture of our client talking to a real server into fuzz seeds.

usage: pcap2corpus.py CAPTURE OUTDIR [--per-proc N] [--max-size BYTES]

Every TCP stream of CAPTURE is reassembled with `tshark -z follow,tcp,raw`
(both directions), cut into RPC records, and each reply is matched to its
call by XID, which gives its program and procedure.  Per (program,
procedure) the first N distinct replies (by size and status) become seeds:

  OUTDIR/fuzz_nfs3_reply/<proc>-<n>  case byte, size byte, chunk byte,
                                     then the record, XID set to FZ_XID
  OUTDIR/fuzz_nfs3_xdr/<proc>-<n>    case byte, size byte, then the
                                     results (the RPC header stripped)
  OUTDIR/fuzz_rpc_reply/<proc>-<n>   parameter byte, then the record
  OUTDIR/fuzz_tcp_rx/rpc-<n>         parameter byte, then a few records
                                     with keys 1..4 (stream shapes)
  OUTDIR/fuzz_p9_msg/<type>-<n>      one 9P message (streams on the
                                     --p9-port ports), T and R

The case numbers are those of tests/fuzz/nfs3_cases.h: NFSv3 procedure
numbers 0..21, then MOUNT MNT, DUMP, EXPORT as 22, 23, 24.
"""
import argparse
import os
import re
import struct
import subprocess
import sys

FZ_XID = 0x58505254
NFS, MOUNT = 100003, 100005
NFS_NAMES = ["null", "getattr", "setattr", "lookup", "access", "readlink",
             "read", "write", "create", "mkdir", "symlink", "mknod",
             "remove", "rmdir", "rename", "link", "readdir", "readdirplus",
             "fsstat", "fsinfo", "pathconf", "commit"]
MOUNT_CASES = {1: (22, "mnt"), 2: (23, "dump"), 5: (24, "export")}


def streams(capture):
    """(stream index, {ports}) of every TCP stream, in stream order."""
    out = subprocess.run(["tshark", "-r", capture, "-T", "fields", "-e",
                          "tcp.stream", "-e", "tcp.srcport", "-e",
                          "tcp.dstport"],
                         capture_output=True, text=True, check=True).stdout
    ports = {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) == 3 and f[0]:
            ports.setdefault(int(f[0]), set()).update(
                {int(f[1]), int(f[2])})
    return sorted(ports.items())


def p9_messages(buf):
    """The 9P messages of one direction of a stream: size[4] LE first."""
    pos, out = 0, []
    while pos + 7 <= len(buf):
        (n,) = struct.unpack("<I", buf[pos:pos + 4])
        if n < 7 or pos + n > len(buf):
            break
        out.append(buf[pos:pos + n])
        pos += n
    return out


def follow(capture, idx):
    """Return (client->server bytes, server->client bytes) of stream idx."""
    out = subprocess.run(
        ["tshark", "-r", capture, "-q", "-z", "follow,tcp,raw,%d" % idx],
        capture_output=True, text=True, check=True).stdout
    c2s, s2c = bytearray(), bytearray()
    started = False
    for line in out.splitlines():
        if line.startswith("Node 1:"):
            started = True
            continue
        if not started or line.startswith("="):
            continue
        data = line.strip()
        if not re.fullmatch(r"[0-9a-fA-F]+", data or "x"):
            continue
        (s2c if line.startswith("\t") else c2s).extend(bytes.fromhex(data))
    return bytes(c2s), bytes(s2c)


def records(buf):
    """RPC records (fragments joined) of a record-marked byte stream."""
    pos, cur = 0, bytearray()
    while pos + 4 <= len(buf):
        (w,) = struct.unpack(">I", buf[pos:pos + 4])
        n = w & 0x7FFFFFFF
        if pos + 4 + n > len(buf):
            break
        cur += buf[pos + 4:pos + 4 + n]
        pos += 4 + n
        if w & 0x80000000:
            yield bytes(cur)
            cur = bytearray()


def reply_body_offset(rec):
    """Offset of the results in an accepted reply, else None."""
    if len(rec) < 24:
        return None
    _, mtype, stat, _flavor, vlen = struct.unpack(">IIIII", rec[:20])
    if mtype != 1 or stat != 0:
        return None
    off = 20 + ((vlen + 3) & ~3)
    if len(rec) < off + 4:
        return None
    return off + 4  # after accept_stat


def marked(rec, xid):
    body = struct.pack(">I", xid) + rec[4:]
    return struct.pack(">I", 0x80000000 | len(body)) + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture")
    ap.add_argument("outdir")
    ap.add_argument("--per-proc", type=int, default=3)
    ap.add_argument("--max-size", type=int, default=12000)
    ap.add_argument("--p9-port", action="append", default=[])
    a = ap.parse_args()
    p9ports = {int(p) for p in a.p9_port}

    calls, replies, p9 = {}, [], []
    for idx, ports in streams(a.capture):
        c2s, s2c = follow(a.capture, idx)
        if ports & p9ports:
            p9.extend(p9_messages(c2s) + p9_messages(s2c))
            continue
        for rec in records(c2s):
            if len(rec) >= 24 and struct.unpack(">I", rec[4:8])[0] == 0:
                xid, _, _, prog, vers, proc = struct.unpack(">6I", rec[:24])
                calls[xid] = (prog, vers, proc)
        replies.extend(r for r in records(s2c) if len(r) >= 8 and
                       struct.unpack(">I", r[4:8])[0] == 1)

    seen, counts, written = set(), {}, 0
    tcp_rx = []
    for rec in replies:
        (xid,) = struct.unpack(">I", rec[:4])
        prog, _vers, proc = calls.get(xid, (None, None, None))
        if prog == NFS and proc < len(NFS_NAMES):
            case, name = proc, NFS_NAMES[proc]
        elif prog == MOUNT and proc in MOUNT_CASES:
            case, name = MOUNT_CASES[proc]
        else:
            continue
        if len(rec) + 8 > a.max_size:
            continue
        off = reply_body_offset(rec)
        status = rec[off:off + 4] if off is not None else b"rej"
        key = (case, len(rec), status)
        if key in seen or counts.get(case, 0) >= a.per_proc:
            continue
        seen.add(key)
        n = counts.get(case, 0)
        counts[case] = n + 1
        # param byte: sizes that fit an honest reply (READ 64 KiB, 128
        # directory entries, full name/link buffers)
        param = 0x03 | 0x18
        seeds = {
            "fuzz_nfs3_reply": bytes([case, param, n]) + marked(rec, FZ_XID),
            "fuzz_rpc_reply": bytes([n & 7]) + marked(rec, FZ_XID),
        }
        if off is not None:
            seeds["fuzz_nfs3_xdr"] = bytes([case, param]) + rec[off:]
        for target, data in seeds.items():
            d = os.path.join(a.outdir, target)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "%s-%d" % (name, n)), "wb") as f:
                f.write(data)
            written += 1
        if len(tcp_rx) < 16:
            tcp_rx.append(rec)

    # a READ whose data is long enough for the direct readv() path (the
    # capture's reads may all be small): the first successful READ reply
    # with its data stretched to 8 KiB
    for rec in replies:
        (xid,) = struct.unpack(">I", rec[:4])
        if calls.get(xid, (None,) * 3)[::2] != (NFS, 6):
            continue
        off = reply_body_offset(rec)
        if off is None or rec[off:off + 4] != b"\0\0\0\0":
            continue
        follows = struct.unpack(">I", rec[off + 4:off + 8])[0]
        hdr_end = off + 8 + (84 if follows else 0)
        data = bytes(range(256)) * 32
        big = (rec[:hdr_end] + struct.pack(">I", len(data)) +
               rec[hdr_end + 4:hdr_end + 8] + struct.pack(">I", len(data)) +
               data)
        for target, seed in (
                ("fuzz_nfs3_reply", bytes([6, 0x1b, 0]) + marked(big, FZ_XID)),
                ("fuzz_nfs3_xdr", bytes([6, 0x1b]) + big[off:])):
            with open(os.path.join(a.outdir, target, "read-8k"), "wb") as f:
                f.write(seed)
            written += 1
        break

    # stream shapes for the receive state machine: several replies back
    # to back, keys 1..4, cut in different ways
    d = os.path.join(a.outdir, "fuzz_tcp_rx")
    os.makedirs(d, exist_ok=True)
    for i in range(0, len(tcp_rx), 4):
        group = tcp_rx[i:i + 4]
        stream = b"".join(marked(r, k + 1) for k, r in enumerate(group))
        sel = (i // 4) << 1 | 0x30  # rpc framing, 4 requests, chunking
        with open(os.path.join(d, "rpc-%d" % (i // 4)), "wb") as f:
            f.write(bytes([sel & 0xff]) + stream)
        written += 1
    p9count = {}
    d = os.path.join(a.outdir, "fuzz_p9_msg")
    for m in p9:
        n = p9count.get(m[4], 0)
        if n >= a.per_proc or len(m) > a.max_size:
            continue
        p9count[m[4]] = n + 1
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "type%d-%d" % (m[4], n)), "wb") as f:
            f.write(m)
        written += 1
    if p9ports:
        print("pcap2corpus: %d 9P messages, %d types" % (len(p9),
                                                          len(p9count)))
    print("pcap2corpus: %d calls, %d replies, %d seeds (%s)" %
          (len(calls), len(replies), written,
           ", ".join("%d:%d" % kv for kv in sorted(counts.items()))))
    missing = [NFS_NAMES[i] for i in range(22) if i not in counts]
    if missing:
        print("pcap2corpus: no reply captured for: " + " ".join(missing),
              file=sys.stderr)


if __name__ == "__main__":
    main()

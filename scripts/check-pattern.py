#!/usr/bin/env python3
"""Check bench files on a server's disk against the engine's data pattern.

usage: check-pattern.py DIR SIZE --gen GEN FILE...
       check-pattern.py DIR SIZE --sequential BS FILE...

Each FILE (relative to DIR) is a job's file named NAME.J.0, J the job that
wrote it, SIZE bytes long.  The pattern, from bench/engine/verify.c and
computed here from scratch (an independent check of what reached the
disk): 64-bit little-endian words, the word at offset o holding o/8 in
its low half and the high half of mix64(o ^ mix64(tag + 0x51ed2701)),
mix64 being the splitmix64 finaliser, tag = J << 16 | generation.

--gen GEN: every byte holds generation GEN (a workload that wrote each
block the same number of times: ior, --rw write without --runtime).

--sequential BS: the file was written by a sequential --rw write --verify
run of BS-byte transfers bounded by --runtime, with --iodepth 1.  The
engine draws block after block and completes every I/O it drew, so if T
writes were acknowledged the first T mod N of the N blocks hold
generation T div N + 1 and the rest T div N (0: never written, zeros).  A
lost or misplaced acknowledged write breaks that staircase.  (With more
I/Os in flight per job the staircase does not hold: a block whose write
is still in flight when its turn comes round again is skipped for that
pass.)

Prints one line per file; exit status 1 when any differs.
"""
import struct
import sys

M = (1 << 64) - 1


def mix64(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


def tkey(job, gen):
    return mix64(((job << 16) | gen) + 0x51ED2701)


def expect(off, length, key):
    """The pattern bytes of [off, off + length), off a multiple of 8."""
    words = [(mix64(o ^ key) & 0xFFFFFFFF00000000) | (o >> 3)
             for o in range(off, off + length, 8)]
    return struct.pack("<%dQ" % len(words), *words)[:length]


def first_diff(a, b):
    return next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
                min(len(a), len(b)))


def check_gen(data, job, gen):
    want = expect(0, len(data), tkey(job, gen))
    if data != want:
        return False, "offset %d differs from generation %d" % (
            first_diff(data, want), gen)
    return True, "generation %d" % gen


def block_gen(block, off, job, cands):
    """The generation among @cands whose pattern @block holds, or None."""
    for g in cands:
        if g == 0:
            if block == bytes(len(block)):
                return 0
        elif block == expect(off, len(block), tkey(job, g)):
            return g
    return None


def check_sequential(data, job, bs):
    n = (len(data) + bs - 1) // bs
    word0 = struct.unpack("<Q", data[:8])[0]
    # block 0's generation from its first word, then the whole block
    top = next((g for g in range(1, 0x10000)
                if (mix64(tkey(job, g)) & 0xFFFFFFFF00000000) == word0),
               None)
    if top is None or block_gen(data[:bs], 0, job, [top]) is None:
        return False, "block 0 holds no generation of job %d" % job
    split = n  # the first block of generation top - 1
    for b in range(1, n):
        off = b * bs
        cands = [top, top - 1] if b < split else [top - 1]
        g = block_gen(data[off:off + bs], off, job, cands)
        if g is None:
            return False, "block %d (offset %d) holds neither %s" % (
                b, off, " nor ".join("generation %d" % c for c in cands))
        if g != top:
            split = min(split, b)
    if split == n:
        return True, "%d blocks, all at generation %d" % (n, top)
    return True, "%d blocks, generation %d up to block %d, %d after" % (
        n, top, split, top - 1)


def main(argv):
    if len(argv) < 6 or argv[3] not in ("--gen", "--sequential"):
        sys.exit(__doc__)
    d, size, mode, arg = argv[1], int(argv[2]), argv[3], int(argv[4])
    bad = 0
    for f in argv[5:]:
        job = int(f.split(".")[-2])
        with open(d + "/" + f, "rb") as fh:
            data = fh.read()
        if len(data) != size:
            good, what = False, "%d bytes on disk, want %d" % (len(data),
                                                              size)
        elif mode == "--gen":
            good, what = check_gen(data, job, arg)
        else:
            good, what = check_sequential(data, job, arg)
        print("%s: %s: %s" % (f, "ok" if good else "WRONG", what))
        bad += not good
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Compare the layout of two fio "normal" text reports, values aside.

usage: fio_layout.py FIO_REPORT BENCH_REPORT

FIO_REPORT is real fio's output, BENCH_REPORT a bench's for the same job.
Both are reduced to their shape and must then be equal line for line:

  - every number (with fio's k/M/Ki/Mi prefixes) becomes N, the padding
    after '=' goes, latency units (nsec/usec/msec) become UNIT, the bw
    line's KiB/MiB becomes U, ioengine's value E, pid and date N;
  - a run of "lat (unit)   : 2=13.39%, ..." lines (which buckets show
    depends on the values) becomes one LATDIST line, each line checked to
    be fio's form;
  - a run of percentile lines "     |  1.00th=[   60], ..." (how many a
    line holds depends on the values' width) becomes one PCT line with the
    percentiles as printed (1.00 5.00 ...), each line checked to be fio's
    form;
  - fio's lines about the local machine go: "Laying out IO file" and
    "Disk stats" with what follows; the bench's own lines, from its
    heading "PROG (libxprt fio|ior): ..." on, go.
"""
import difflib
import re
import sys

LAT = re.compile(r'^  lat \((?:nsec|usec|msec)\)   : '
                 r'(?:>=)?\d+=\d+\.\d\d%(?:, (?:>=)?\d+=\d+\.\d\d%){0,4}$')
PCT = re.compile(r'^     \|(?: +\d+(?:\.\d+)?th=\[ *\d+\],?)+$')
PCT_ONE = re.compile(r'(\d+(?:\.\d+)?)th=\[ *\d+\]')
NUM = re.compile(r'\d+(?:\.\d+)?(?:[KMGTPE]i|[kMGTPE])?')
OURS = re.compile(r'^\S+ \(libxprt (?:fio|ior)\): ')


def shape(text, ours):
    out, bad = [], []
    for line in text.splitlines():
        if ours and OURS.match(line):
            break
        if not ours and line.startswith('Disk stats'):
            break
        if not ours and ': Laying out IO file' in line:
            continue
        if line.startswith('  lat ('):
            if not LAT.match(line):
                bad.append(line)
            if not out or out[-1] != 'LATDIST':
                out.append('LATDIST')
            continue
        if line.startswith('     |'):
            if not PCT.match(line):
                bad.append(line)
            labels = ' '.join(PCT_ONE.findall(line))
            if out and out[-1].startswith('PCT'):
                labels = out.pop()[4:] + ' ' + labels
            out.append('PCT ' + labels)
            continue
        line = re.sub(r'pid=\d+: .*$', 'pid=N: DATE', line)
        line = re.sub(r'\((?:nsec|usec|msec)\)', '(UNIT)', line)
        line = re.sub(r'ioengine=[^,]+,', 'ioengine=E,', line)
        line = re.sub(r'bw \( *\w+/s\)', 'bw (U/s)', line)
        line = re.sub(r'= +', '=', line)
        out.append(NUM.sub('N', line))
    while out and not out[-1]:
        out.pop()
    return out, bad


def main():
    fio, ours = (open(p, encoding='utf-8', errors='replace').read()
                 for p in sys.argv[1:3])
    a, bad_a = shape(fio, False)
    b, bad_b = shape(ours, True)
    ok = True
    for what, bad in (('fio', bad_a), ('bench', bad_b)):
        for line in bad:
            print('%s: not fio\'s form: %r' % (what, line))
            ok = False
    if a != b:
        ok = False
        sys.stdout.writelines(difflib.unified_diff(
            [l + '\n' for l in a], [l + '\n' for l in b], 'fio', 'bench'))
    if len(a) < 10:
        print('fio\'s report has only %d lines' % len(a))
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()

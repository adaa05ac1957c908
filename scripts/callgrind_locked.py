"""Locked instructions counted exactly from callgrind's instruction-level
output: imported by scripts/bench-cost.py and scripts/fairq-cost.py.

A run under `valgrind --tool=callgrind --dump-instr=yes` gives each
executed instruction's address (per object, per function) and execution
count.  Each address is looked up in `objdump -d` of its object: when the
instruction there locks the bus, its count is added to the object's.
What counts as locked (x86-64):

  - a read-modify-write with the `lock` prefix (lock cmpxchg, lock xadd,
    lock add/inc/dec/or/and...: C11 atomic_fetch_*, compare-exchange);
  - `xchg` with a memory operand, locked without a prefix (C11
    atomic_exchange, and a seq_cst store as gcc emits it);
  - mfence, lfence, sfence.

Plain loads and stores do not count: on x86-64 acquire, release and
relaxed accesses are ordinary moves.

The addresses callgrind writes and objdump's may differ by a constant
per object (its load offset): load_offsets() finds it as the most common
difference between a function's lowest executed address and its symbol
(a function's entry runs whenever it is called).
"""
import collections
import re
import subprocess

_INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
_SYM_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
# callgrind's suffix for a function's recursion level: fn'2
_REC_RE = re.compile(r"'\d+$")


def is_locked(insn):
    """True for an instruction text (objdump, AT&T) that locks the bus."""
    words = insn.split()
    if not words:
        return False
    if words[0] == "lock" or words[0] in ("mfence", "lfence", "sfence"):
        return True
    # with a memory operand only: xchg %ax,%ax is a 2-byte nop
    return words[0].startswith("xchg") and "(" in insn


def parse_objdump(text):
    """`objdump -d --no-show-raw-insn` output -> (addresses of the locked
    instructions, {symbol: address}); a versioned symbol also under its
    plain name (pthread_mutex_lock@@GLIBC_2.2.5, pthread_mutex_lock)."""
    locked, syms = set(), {}
    for line in text.splitlines():
        m = _SYM_RE.match(line)
        if m:
            a, name = int(m.group(1), 16), m.group(2)
            syms.setdefault(name, a)
            syms.setdefault(name.split("@")[0], a)
            continue
        m = _INSN_RE.match(line)
        if m and is_locked(m.group(2)):
            locked.add(int(m.group(1), 16))
    return locked, syms


_disasm_cache = {}


def disasm(obj):
    """parse_objdump() of @obj, once per object; empty when objdump
    cannot read it (valgrind's own preload objects, "???")."""
    if obj not in _disasm_cache:
        try:
            out = subprocess.run(
                ["objdump", "-d", "--no-show-raw-insn", obj],
                capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            out = ""
        _disasm_cache[obj] = parse_objdump(out)
    return _disasm_cache[obj]


def load_offsets(fnmin, lookup=disasm):
    """{object: callgrind address - objdump address} from @fnmin,
    {(object, function): lowest executed address}; objects without a
    function found among their symbols are left out."""
    votes = collections.defaultdict(collections.Counter)
    for (ob, fn), a in fnmin.items():
        syms = lookup(ob)[1]
        fn = _REC_RE.sub("", fn or "")
        if fn in syms:
            votes[ob][a - syms[fn]] += 1
    return {ob: v.most_common(1)[0][0] for ob, v in votes.items()}


def use_disassembly(obj, text):
    """Take @text as `objdump -d` of @obj from now on (self-tests)."""
    _disasm_cache[obj] = parse_objdump(text)


def locked_by_function(costs, fnmin, lookup=disasm):
    """Locked instructions executed, per function: @costs is
    {(object, function, address): executions} (self cost, call lines
    left out), @fnmin as load_offsets() takes it.  Returns a Counter
    {(object, function): executions}; functions without a locked
    instruction are not in it."""
    offs = load_offsets(fnmin, lookup)
    out = collections.Counter()
    for (ob, fn, a), c in costs.items():
        if ob in offs and a - offs[ob] in lookup(ob)[0]:
            out[(ob, fn)] += c
    return out

#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The function index of docs/api.md, one table per header tier.

Every function declared in include/libxprt/*.h (the tool tier) and in
include/libxprt/proto/*.h (the protocol-author tier) gets a row: header,
name, call model, and the context its kernel-doc states.  The call model
is read from the declaration: "async" for a function that takes a
struct lx_call (done(call, status, arg) reports its outcome once),
"sync" otherwise; the context is the header's "Context:" sentence when
the function's comment has one.

  api-index.py            rewrite the tables between the markers
                          <!-- api-index:tool --> / <!-- api-index:proto -->
                          and <!-- /api-index --> in docs/api.md
  api-index.py --check    exit 1 when docs/api.md is not up to date
                          (make check-install runs this)
"""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(TOP, "docs", "api.md")
DECL = re.compile(
    r"^(?:extern\s+)?(?:const\s+)?(?:struct\s+|enum\s+|unsigned\s+)?"
    r"[a-z_0-9]+\s*\**\s*(lx_[a-z0-9_]+)\s*\(([^;{]*)\)\s*;",
    re.M | re.S)


def functions(path):
    text = open(path).read()
    out = []
    for m in DECL.finditer(text):
        name, params = m.group(1), m.group(2)
        if re.search(r"^\s*typedef", text[text.rfind("\n", 0, m.start()) +
                                              1:m.start() + 1]):
            continue
        # the comment right above (kernel-doc), for its Context: line
        head = text[:m.start()].rstrip()
        ctx = ""
        if head.endswith("*/"):
            start = head.rfind("/*")
            comment = head[start:]
            c = re.search(r"Context:\s*(.*?)(?:\.\s|\.$|\n \*\s*\n| \*/)",
                          comment, re.S)
            if c:
                ctx = re.sub(r"\s*\n\s*\*\s*", " ", c.group(1)).strip()
        if name == "lx_call_cancel":
            model = "cancel"
        elif re.search(r"(?<!const )struct lx_call \*", params):
            model = "async"
        else:
            model = "sync"
        out.append((name, model, ctx.replace("|", "\\|")))
    return out


def table(paths, base):
    rows = ["| header | function | model | context |", "|---|---|---|---|"]
    seen = set()
    for p in paths:
        h = os.path.relpath(p, base)
        for name, model, ctx in functions(p):
            if name in seen:
                continue
            seen.add(name)
            rows.append(f"| `{h}` | `{name}()` | {model} | {ctx} |")
    return "\n".join(rows) + "\n"


def render(doc):
    inc = os.path.join(TOP, "include", "libxprt")
    tiers = {
        "tool": sorted(glob.glob(os.path.join(inc, "*.h"))),
        "proto": sorted(glob.glob(os.path.join(inc, "proto", "*.h"))),
    }
    for tier, paths in tiers.items():
        pat = re.compile(r"(<!-- api-index:%s -->\n).*?(<!-- /api-index -->)"
                         % tier, re.S)
        if not pat.search(doc):
            sys.exit(f"api-index: no <!-- api-index:{tier} --> marker "
                     "in docs/api.md")
        doc = pat.sub(lambda m: m.group(1) + table(paths, inc) + m.group(2),
                      doc)
    return doc


def main():
    doc = open(DOC).read()
    new = render(doc)
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        if new != doc:
            print("api-index: docs/api.md's function index is not the "
                  "headers' (run scripts/api-index.py)")
            return 1
        print("api-index: docs/api.md lists every public function")
        return 0
    if new != doc:
        open(DOC, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())

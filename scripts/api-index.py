#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The function index of docs/api.md, one table per header tier.

Every function declared in include/libxprt/*.h (the tool tier) and in
include/libxprt/proto/*.h (the protocol-author tier) gets a row: header,
name, call model, and the context its kernel-doc states.  The call model
is read from the declarations: "async" for a function that takes a
struct lx_call, or a struct that holds one (struct lx_nfs3_pio: its
call's done(call, status, arg) reports the outcome once), "sync"
otherwise, and a function named *_async must come out "async"; the context is the header's "Context:" sentence when
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


def call_holders(paths):
    """The structs whose definition holds a struct lx_call (itself, not a
    pointer to one), directly or through a struct that does: a function
    given one starts a call that ends in its done()."""
    bodies = {}
    for p in paths:
        text = open(p).read()
        for m in re.finditer(r"^struct (lx_[a-z0-9_]+) \{(.*?)^\};", text,
                             re.M | re.S):
            bodies[m.group(1)] = m.group(2)
    held = {"lx_call"}
    grew = True
    while grew:
        grew = False
        for name, body in bodies.items():
            if name not in held and any(
                    re.search(r"\bstruct %s\s+[a-z_0-9]+\s*[;\[]" % h, body)
                    for h in held):
                held.add(name)
                grew = True
    return held


def functions(path, held):
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
        elif any(re.search(r"(?<!const )struct %s \*" % h, params)
                 for h in held):
            model = "async"
        else:
            model = "sync"
        if name.endswith("_async") and model != "async":
            sys.exit(f"api-index: {name}() is named async but takes no "
                     "struct lx_call, nor a struct that holds one")
        out.append((name, model, ctx.replace("|", "\\|")))
    return out


def table(paths, base, held):
    rows = ["| header | function | model | context |", "|---|---|---|---|"]
    seen = set()
    for p in paths:
        h = os.path.relpath(p, base)
        for name, model, ctx in functions(p, held):
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
    held = call_holders(tiers["tool"] + tiers["proto"])
    for tier, paths in tiers.items():
        pat = re.compile(r"(<!-- api-index:%s -->\n).*?(<!-- /api-index -->)"
                         % tier, re.S)
        if not pat.search(doc):
            sys.exit(f"api-index: no <!-- api-index:{tier} --> marker "
                     "in docs/api.md")
        doc = pat.sub(lambda m: m.group(1) + table(paths, inc, held) + m.group(2),
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

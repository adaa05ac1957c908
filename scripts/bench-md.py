#!/usr/bin/env python3
"""Render micro-benchmark JSON results (perf/micro/mbench.c) as Markdown.

usage: bench-md.py RESULT.json... > section.md
Each file becomes a heading, its tables Markdown tables, its targets a
list marked met / MISSED.
"""
import json
import sys


def fmt(v):
    if isinstance(v, float):
        a = abs(v)
        if a != 0 and (a >= 1e6 or a < 0.01):
            return f"{v:.3g}"
        if a >= 100 or v == int(v):
            return f"{v:.0f}"
        return f"{v:.3f}"
    return str(v)


def main(paths):
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        print(f"### {doc['bench']}\n")
        for t in doc["tables"]:
            if not t["rows"]:
                continue
            cols = list(t["rows"][0].keys())
            print(f"{t['title']}\n")
            print("| " + " | ".join(cols) + " |")
            print("|" + "---|" * len(cols))
            for r in t["rows"]:
                print("| " + " | ".join(fmt(r[c]) for c in cols) + " |")
            print()
        if doc.get("targets"):
            print("Targets:\n")
            for g in doc["targets"]:
                mark = "met" if g["met"] else "**MISSED**"
                print(f"- {g['what']}: {fmt(g['value'])} {g['op']} "
                      f"{fmt(g['target'])}: {mark}")
            print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

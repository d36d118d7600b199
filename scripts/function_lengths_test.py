#!/usr/bin/env python3
"""scripts/function-lengths' own cases: what counts as a body and where it ends."""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
loader = importlib.machinery.SourceFileLoader("function_lengths", os.path.join(HERE, "function-lengths"))
spec = importlib.util.spec_from_loader(loader.name, loader)
lengths = importlib.util.module_from_spec(spec)
loader.exec_module(lengths)


def bodies(source):
    with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as f:
        f.write(source)
    try:
        return [(length, name) for length, _, name in lengths.bodies(f.name)]
    finally:
        os.unlink(f.name)


CASES = [
    # (what, source, bodies found)
    ("a function, first line to closing brace", "func a() {\n    x()\n}\n", [(3, "a")]),
    ("braces in a string do not end it", 'func a() {\n    let s = "}}"\n    y()\n}\n', [(4, "a")]),
    ("nor in an interpolation", 'func a() {\n    let s = "\\(b { $0 })}"\n}\n', [(3, "a")]),
    ("nor in a multi-line string", 'func a() {\n    let s = """\n    }\n    """\n}\n', [(5, "a")]),
    ("nor in a raw string", 'func a() {\n    let s = #"}"\\"#\n}\n', [(3, "a")]),
    ("nor in comments", "func a() {\n    // }\n    /* } */\n}\n", [(4, "a")]),
    ("an init, with modifiers", "public init(x: Int) {\n}\n", [(2, "init")]),
    ("a computed property", "var a: Int {\n    1\n}\n", [(3, "a")]),
    ("a stored property is no body", "var a = 1\nlet b = 2\n", []),
    ("a requirement is no body", "protocol P {\n    func a()\n}\n", []),
    (
        "a nested function counts apart",
        "func a() {\n    func b() {\n    }\n}\n",
        [(4, "a"), (2, "b")],
    ),
]


def main():
    failures = 0
    for what, source, expected in CASES:
        found = bodies(source)
        if found != expected:
            failures += 1
            print(f"FAIL {what}: {found} != {expected}")
    # The command: over the limit fails, an allowed body passes, a stale allowance is named.
    with tempfile.TemporaryDirectory() as folder:
        long = os.path.join(folder, "Long.swift")
        with open(long, "w") as f:
            f.write("func long() {\n" + "    x()\n" * 5 + "}\n")
        command = [sys.executable, os.path.join(HERE, "function-lengths"), "--limit", "4", folder]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 1 or "long" not in run.stdout:
            failures += 1
            print(f"FAIL a long body is refused: {run}")
        allowed = os.path.join(folder, "allowed")
        with open(allowed, "w") as f:
            f.write(f"{long} long  # why\n{long} gone  # split since\n")
        run = subprocess.run(command + ["--allowed", allowed], capture_output=True, text=True)
        if run.returncode != 0 or "gone is no longer over" not in run.stderr:
            failures += 1
            print(f"FAIL an allowed body passes, a stale line is named: {run}")
    print(f"{len(CASES) + 2 - failures} of {len(CASES) + 2} cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

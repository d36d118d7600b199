#!/usr/bin/env python3
"""Every module a target imports is declared in Package.swift as one of its own dependencies.

SwiftPM's `--explicit-target-dependency-import-check error` (which `make test` builds with)
refuses an import of a target outside a target's dependencies *and their dependencies*: a module
reached only through another dependency (NIOCore through PostgresNIO) passes it. This check is
the strict one: each `import X` of a target's Swift files names a target it depends on, a product
it depends on (a product named as its module), or a module of the toolchain. No underscored
module of a package (`_ConnectionPoolModule`): its name says it is not the package's API.

    scripts/check_imports.py              # this package (`swift package describe --type json`)
    scripts/check_imports.py DESCRIBE.json ROOT   # a description and its sources (the tests)

Exit 0 when every import is declared, 1 with one line per undeclared import on stderr.
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the system, never declared in Package.swift.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch",
    "Glibc", "Musl", "Darwin", "Synchronization", "Testing", "XCTest", "_Concurrency",
    "PackageDescription", "os", "RegexBuilder", "Observation", "Distributed",
}
IMPORT = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_.]*)?\s*(?://.*)?$")


def imports(path):
    """The modules a Swift file imports, skipping the text of multi-line string literals."""
    found, in_string = set(), False
    with open(path, encoding="utf-8") as source:
        for line in source:
            if not in_string:
                match = IMPORT.match(line)
                if match:
                    found.add(match.group(1))
            if line.count('"""') % 2 == 1:
                in_string = not in_string
    return found


def undeclared(description, root):
    """(target, file, module) for each import no dependency of its target declares."""
    problems = []
    for target in description["targets"]:
        if target.get("module_type") != "SwiftTarget":
            continue
        declared = set(target.get("target_dependencies", [])) | set(target.get("product_dependencies", []))
        folder = os.path.join(root, target["path"])
        for relative in sorted(target.get("sources", [])):
            path = os.path.join(folder, relative)
            for module in sorted(imports(path)):
                if module == target["c99name"]:
                    continue
                if module.startswith("_") and module not in TOOLCHAIN:
                    problems.append((target["name"], path, module, "an underscored module is not a package's API"))
                elif module not in declared and module not in TOOLCHAIN:
                    problems.append((target["name"], path, module, "not among the target's dependencies"))
    return problems


def main(arguments):
    if arguments:
        description, root = json.load(open(arguments[0])), arguments[1]
    else:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        text = subprocess.run(
            ["swift", "package", "describe", "--type", "json"], cwd=root, check=True, capture_output=True, text=True
        ).stdout
        description = json.loads(text)
    problems = undeclared(description, root)
    for target, path, module, why in problems:
        print(f"check_imports: {os.path.relpath(path, root)} imports {module}, {why} ({target} in Package.swift)",
              file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""check_imports.py shown red on each kind of undeclared import and green on declared ones:
`python3 scripts/check_imports_test.py` (in `make test`, before the check itself)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ left in the repository
import check_imports  # noqa: E402


class Imports(unittest.TestCase):
    def check(self, source, targets=("Core",), products=("NIOCore",)):
        """The problems of one target `Kit` whose one file is `source`."""
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "Sources/Kit"))
            with open(os.path.join(root, "Sources/Kit/Kit.swift"), "w") as file:
                file.write(source)
            description = {"targets": [{
                "name": "Kit", "c99name": "Kit", "module_type": "SwiftTarget", "path": "Sources/Kit",
                "sources": ["Kit.swift"], "target_dependencies": list(targets), "product_dependencies": list(products),
            }]}
            return [(module, why) for _, _, module, why in check_imports.undeclared(description, root)]

    def test_declared_targets_products_and_the_toolchain_pass(self):
        source = "import Foundation\n@testable import Core\npublic import NIOCore\n#if canImport(Glibc)\n    import Glibc\n#endif\n"
        self.assertEqual(self.check(source), [])

    def test_a_module_reached_only_through_a_dependency_fails(self):
        self.assertEqual([module for module, _ in self.check("import NIOCore\nimport NIOPosix\n")], ["NIOPosix"])

    def test_a_testable_or_attributed_import_counts(self):
        self.assertEqual([m for m, _ in self.check("@testable import Server\n")], ["Server"])
        self.assertEqual([m for m, _ in self.check("@preconcurrency import Server\n")], ["Server"])
        self.assertEqual([m for m, _ in self.check("import struct Server.Thing\n")], ["Server"])

    def test_an_underscored_module_fails_even_when_declared(self):
        problems = self.check("import _ConnectionPoolModule\n", products=("_ConnectionPoolModule",))
        self.assertEqual([module for module, _ in problems], ["_ConnectionPoolModule"])
        self.assertIn("underscored", problems[0][1])

    def test_an_import_inside_a_string_is_not_one(self):
        self.assertEqual(self.check('let script = """\n    import asyncio\n    import Server\n    """\n'), [])


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Headers include only their own layer and the layers below it.

The build holds the layers for what it compiles (each layer's library sees only the
include roots below it, see the top-level meson.build), but a header is compiled
only where it is included: a runtime header that includes an engine header builds
as long as only the engine includes it. This check reads every header of a layer
and fails on an include from a layer above. Source files need no such check: the
compiler sees each of them with its own layer's include path.

Usage: layer_headers.py SOURCE_ROOT
"""
import pathlib
import re
import sys

# Layer folder -> the top-level folders its headers may include: the same order as
# the top-level meson.build's (include/weir is "weir" as spelled in #include).
BELOW = {
    "include/weir": {"weir"},
    "runtime": {"weir", "runtime"},
    "transforms": {"weir", "runtime", "transforms"},
    "connectors": {"weir", "runtime", "connectors"},
    # Written against the SDK only, as a plugin is (its library sees include/weir alone).
    "connectors/datagen": {"weir", "connectors"},
    "engine": {"weir", "runtime", "transforms", "connectors", "engine"},
    "actors": {"weir", "runtime", "transforms", "connectors", "engine", "actors"},
    "cli": {"weir", "runtime", "transforms", "connectors", "engine", "actors", "cli"},
}
# What an include may start with: every layer, and tests/ (which no header may include).
FOLDERS = {"weir", "runtime", "transforms", "connectors", "engine", "actors", "cli", "tests"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    wrong = []
    for layer, allowed in BELOW.items():
        for header in sorted((root / layer).rglob("*.hpp")):
            for number, line in enumerate(header.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if match and match.group(1) in FOLDERS - allowed:
                    wrong.append(f"{header.relative_to(root)}:{number}: {line.strip()}"
                                 f" (layer {layer} may include only {', '.join(sorted(allowed))})")
    print("\n".join(wrong) or "every header includes its own layer and those below")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

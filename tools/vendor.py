"""Copy agentkit_core into another project under a name of its own.

    python tools/vendor.py src/myproject/_vendor --name agentkit_core

copies the package's modules (its subpackages' too) and ``py.typed`` into
``DEST/NAME`` (rewriting nothing: the package uses relative imports only),
then proves the copy works in a fresh, isolated interpreter: every module of
it imports under its new name, it round-trips an item through
``to_dict``/``from_dict``, and its errors report the new name as their
module.  It prints the import line to use.  An existing non-empty
``DEST/NAME`` is refused unless ``--force`` is given (then it is replaced).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "agentkit_core")

_CHECK = """
import sys
sys.path.insert(0, sys.argv[1])
import importlib
pkg = importlib.import_module(sys.argv[2])
item = pkg.Item.text(pkg.ItemKind.USER, "hello \\u00e9").with_usage(pkg.Usage(pkg.TokenUsage(3, 4)))
assert pkg.Item.from_dict(item.to_dict()) == item, "round trip"
assert pkg.NormalizeError.__module__ == sys.argv[2], pkg.NormalizeError.__module__
assert pkg.__file__.startswith(sys.argv[1]), pkg.__file__
import pkgutil
for module in pkgutil.walk_packages(pkg.__path__, sys.argv[2] + "."):
    importlib.import_module(module.name)  # every module, subpackages too, imports under the new name
try:
    pkg.Item.from_dict({})
except pkg.NormalizeError:
    pass
else:
    raise AssertionError("a bad item decoded")
print(pkg.__version__)
"""


class VendorError(Exception):
    """Vendoring could not be done; the message says why."""


def files(package: str = PACKAGE) -> list[str]:
    """The package's files to copy, as paths relative to it: its modules, its subpackages' and ``py.typed``, sorted."""
    found = []
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = sorted(d for d in subfolders if os.path.isfile(os.path.join(folder, d, "__init__.py")))
        relative = os.path.relpath(folder, package)
        for name in names:
            if name.endswith(".py") or name == "py.typed":
                found.append(os.path.normpath(os.path.join(relative, name)))
    return sorted(found)


def vendor(dest: str, name: str, *, force: bool = False, package: str = PACKAGE) -> str:
    """Copy the package to ``dest/name`` and check the copy; returns its version."""
    if not name.isidentifier():
        raise VendorError(f"{name!r} is not a valid module name")
    target = os.path.join(dest, name)
    if os.path.exists(target) and (not os.path.isdir(target) or os.listdir(target)):
        if not force:
            raise VendorError(f"{target} exists and is not empty (use --force to replace it)")
        if os.path.isdir(target):
            shutil.rmtree(target)
        else:
            os.remove(target)
    os.makedirs(target, exist_ok=True)
    for filename in files(package):
        os.makedirs(os.path.dirname(os.path.join(target, filename)), exist_ok=True)
        shutil.copyfile(os.path.join(package, filename), os.path.join(target, filename))
    check = subprocess.run(
        [sys.executable, "-I", "-B", "-c", _CHECK, os.path.abspath(dest), name],
        capture_output=True,
        text=True,
        cwd=os.path.abspath(dest),
    )
    if check.returncode != 0:
        lines = (check.stderr or check.stdout).strip().splitlines() or ["no output"]
        raise VendorError(f"the copy in {target} does not work: {lines[-1]}")
    return check.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    """The command line; exit status 0 when the copy works, 2 otherwise."""
    parser = argparse.ArgumentParser(prog="tools/vendor.py", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("dest", metavar="DEST", help="the directory to copy into")
    parser.add_argument("--name", required=True, help="the copy's module name")
    parser.add_argument("--force", action="store_true", help="replace an existing DEST/NAME")
    args = parser.parse_args(argv)
    try:
        version = vendor(args.dest, args.name, force=args.force)
    except (VendorError, OSError) as exc:
        print(f"vendor: error: {exc}", file=sys.stderr)
        return 2
    target = os.path.join(args.dest, args.name)
    print(f"copied agentkit_core {version} to {target} ({len(files())} files); it imports and round-trips.")
    print(f"Import it relative to its parent package, or with {args.dest} on sys.path:")
    print(f"    from {args.name} import Item, ItemKind, Part, Delta, fold, NormalizeError")
    return 0


if __name__ == "__main__":
    sys.exit(main())

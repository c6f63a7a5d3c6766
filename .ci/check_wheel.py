"""Guards what `make wheel` hands to users: the wheel claims a manylinux tag that auditwheel
confirms, uses only the abi3 API of CPython 3.9 (abi3audit), has metadata PyPI accepts (twine check
--strict), holds exactly the package's tracked files plus the compiled extension (no tests,
benches, tools, target/, notebooks or caches), whose code holds none of the Rust tools', and stays
under a size budget; the sdist holds what a build from source needs. Prints each fact it checked
and the sizes; exits 1 naming every problem.

Run with the tools' Python (`make wheel-check`): auditwheel, twine and abi3audit are beside it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "ferrochess"
# 2 MiB: the wheel is about 1 MiB (the extension with the compiled-in book, and the ECO names).
# A change that needs more (a network file) raises this on purpose, in the same commit.
MAX_WHEEL_BYTES = 2 * 1024 * 1024
MANYLINUX = "manylinux_2_17"
EXTENSION = f"{PACKAGE}/_core.abi3.so"
# What users need, named so that a wrong include/exclude fails with the file's name.
REQUIRED_IN_WHEEL = [
    EXTENSION,
    f"{PACKAGE}/_core.pyi",
    f"{PACKAGE}/py.typed",
    f"{PACKAGE}/cli.py",
    f"{PACKAGE}/notebook.py",
    f"{PACKAGE}/service/game.py",
    f"{PACKAGE}/service/archive/queries.py",
    f"{PACKAGE}/data/eco_names.tsv",
    f"{PACKAGE}/web/templates/play/index.html",
    f"{PACKAGE}/web/static/play/app.js",
    f"{PACKAGE}/web/static/ui/score.js",
    f"{PACKAGE}/web/static/play/widget.js",
    f"{PACKAGE}/web/static/vendor/chessground/chessground.min.js",
    f"{PACKAGE}/web/static/vendor/chessground/LICENSE",
]
FORBIDDEN_IN_WHEEL = re.compile(
    r"(^|/)(tests?|benches|tools|ferrochess_tools|target|notebooks|__pycache__|\.ipynb_checkpoints)/"
    r"|\.(pyc|ipynb|rs|d)$"
    r"|(^|/)Cargo\.(toml|lock)$"
)
# Strings only the Rust tools' code holds (the tools crate, tools/: self-play generation, training,
# tuning): their source paths, which panic locations carry, and their names. maturin builds the
# extension from the engine package alone, so none may be in it.
TOOLS_IN_EXTENSION = re.compile(rb"datagen|tools/src/|ferrochess[_-]tools")
REQUIRED_IN_SDIST = [
    "Cargo.toml",
    "Cargo.lock",
    "pyproject.toml",
    "LICENSE",
    "PKG-INFO",
    "README.md",
    "src/lib.rs",
    "src/book/default.bin",
    f"python/{PACKAGE}/__init__.py",
    f"python/{PACKAGE}/_core.pyi",
    f"python/{PACKAGE}/py.typed",
    f"python/{PACKAGE}/web/static/vendor/chessground/chessground.min.js",
]
FORBIDDEN_IN_SDIST = re.compile(r"(^|/)(target|__pycache__|\.git)/|\.(so|pyd|pyc|whl)$")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path, help="the folder `make wheel` wrote (dist)")
    parser.add_argument("--max-wheel-bytes", type=int, default=MAX_WHEEL_BYTES)
    args = parser.parse_args()
    wheel = only(args.dist, f"{PACKAGE}-*.whl")
    sdist = only(args.dist, f"{PACKAGE}-*.tar.gz")
    problems: list[str] = []
    problems += check_platform_tag(wheel)
    problems += run_tool("abi3audit", "--strict", "--report", str(wheel))
    problems += run_tool("twine", "check", "--strict", str(wheel), str(sdist))
    problems += check_wheel_files(wheel, args.max_wheel_bytes)
    problems += check_sdist_files(sdist)
    problems = list(dict.fromkeys(problems))
    for problem in problems:
        print(f"check_wheel: FAIL: {problem}", file=sys.stderr)
    print(f"check_wheel: {'FAILED' if problems else 'ok'}: {wheel.name}, {sdist.name}")
    return 1 if problems else 0


def only(dist: Path, pattern: str) -> Path:
    """The one file of ``dist`` matching ``pattern``; exits when there is none or more than one."""
    found = sorted(dist.glob(pattern))
    if len(found) != 1:
        sys.exit(f"check_wheel: expected one {pattern} in {dist}, found {[p.name for p in found]}")
    return found[0]


def tool(name: str) -> str:
    """The console script ``name`` installed beside this Python (the tools' environment)."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        sys.exit(f"check_wheel: {name} not found beside {sys.executable} (run `make wheel-tools`)")
    return str(path)


def run_tool(name: str, *args: str) -> list[str]:
    """Run a checking tool, echoing its output; a non-zero exit is a problem."""
    print(f"$ {name} {' '.join(args)}", flush=True)
    done = subprocess.run([tool(name), *args], check=False)
    return [] if done.returncode == 0 else [f"{name} {args[0]} exited {done.returncode}"]


def check_platform_tag(wheel: Path) -> list[str]:
    """auditwheel's verdict is one of the platform tags the wheel's name claims, a manylinux one."""
    print(f"$ auditwheel show {wheel.name}", flush=True)
    done = subprocess.run(
        [tool("auditwheel"), "show", str(wheel)], capture_output=True, text=True, check=False
    )
    print(done.stdout + done.stderr, end="")
    text = " ".join(done.stdout.split())
    verdict = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
    claimed = wheel.name[: -len(".whl")].split("-")[-1].split(".")
    if done.returncode != 0 or verdict is None:
        return [f"auditwheel show gave no platform tag (exit {done.returncode})"]
    tag = verdict.group(1)
    problems = []
    if tag not in claimed:
        problems.append(f"auditwheel says {tag}, the wheel's name claims {claimed}")
    if not tag.startswith(f"{MANYLINUX}_"):
        problems.append(f"auditwheel says {tag}, not {MANYLINUX} (manylinux2014)")
    if "-cp39-abi3-" not in wheel.name:
        problems.append(f"{wheel.name} is not tagged cp39-abi3")
    return problems


def tracked_package_files() -> set[str]:
    """The package's files as git tracks them under python/, as paths inside the wheel."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", f"python/{PACKAGE}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {path.removeprefix("python/") for path in listed.split("\0") if path}


def check_wheel_files(wheel: Path, max_bytes: int) -> list[str]:
    """The wheel's package files are the tracked ones plus the extension; report the sizes."""
    with zipfile.ZipFile(wheel) as archive:
        infos = archive.infolist()
        names = [info.filename for info in infos]
        dist_info = next(name.split("/")[0] for name in names if ".dist-info/" in name)
        wheel_meta = archive.read(f"{dist_info}/WHEEL").decode()
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
        extension = archive.read(EXTENSION) if EXTENSION in names else b""
    problems = check_extension_has_no_tools(extension)
    package = {name for name in names if not name.startswith(f"{dist_info}/")}
    expected = tracked_package_files() | {EXTENSION}
    for name in sorted(package - expected):
        problems.append(f"wheel holds {name}, which is not a tracked file of python/{PACKAGE}")
    for name in sorted(expected - package):
        problems.append(f"wheel lacks {name}")
    for name in REQUIRED_IN_WHEEL:
        if name not in names:
            problems.append(f"wheel lacks {name}")
    for name in names:
        if FORBIDDEN_IN_WHEEL.search(name):
            problems.append(f"wheel holds {name}, which users do not need")
    if "Root-Is-Purelib: false" not in wheel_meta:
        problems.append("WHEEL does not say Root-Is-Purelib: false")
    if not re.search(r"^ferrochess ?= ?ferrochess\.cli:main$", entry_points, re.MULTILINE):
        problems.append("entry_points.txt lacks the ferrochess console script")

    size = wheel.stat().st_size
    unpacked = sum(info.file_size for info in infos)
    print(
        f"wheel: {wheel.name}: {size:,} bytes ({size / 1024:.0f} KiB; budget {max_bytes:,}), "
        f"{unpacked:,} bytes unpacked in {len(names)} files "
        f"({len(package)} in the package, {len(names) - len(package)} in {dist_info})"
    )
    for info in sorted(infos, key=lambda info: -info.file_size)[:5]:
        print(f"  {info.file_size:>10,}  {info.filename}")
    if size > max_bytes:
        problems.append(f"wheel is {size:,} bytes, over the budget of {max_bytes:,}")
    return problems


def check_extension_has_no_tools(extension: bytes) -> list[str]:
    """The extension's bytes hold no string of the Rust tools' code."""
    found = sorted({match.group().decode() for match in TOOLS_IN_EXTENSION.finditer(extension)})
    print(f"extension: {len(extension):,} bytes; strings of the Rust tools: {found or 'none'}")
    return [f"{EXTENSION} holds {text!r}: code of the Rust tools (tools/)" for text in found]


def check_sdist_files(sdist: Path) -> list[str]:
    """The sdist holds what a build from source needs and no build output."""
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
    names = [member.split("/", 1)[1] for member in members if "/" in member]
    problems = [f"sdist lacks {name}" for name in REQUIRED_IN_SDIST if name not in names]
    problems += [f"sdist holds {name}" for name in names if FORBIDDEN_IN_SDIST.search(name)]
    size = sdist.stat().st_size
    print(f"sdist: {sdist.name}: {size:,} bytes ({size / 1024:.0f} KiB), {len(names)} files")
    return problems


if __name__ == "__main__":
    sys.exit(main())

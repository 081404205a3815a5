"""The course command line.

    python -m attnlib status          progress over exercises/ (passed / failed with diagnosis / not attempted)
    python -m attnlib check 06        grade exercises/06_*.ipynb in a fresh kernel
    python -m attnlib hint 06         the hints for the exercises of notebook 06
    python -m attnlib reset 06        back up your exercises/06_*.ipynb, then restore the pristine one
    python -m attnlib lab             JupyterLab on 127.0.0.1 with a token, opening the course map

--root points at the course folder (default: the checkout attnlib was installed from,
or the current folder). Your notebooks are never overwritten without a backup in
exercises/.backups/.
"""
import argparse
import datetime
import os
import pathlib
import secrets
import shutil
import subprocess
import sys

from .checks import hints
from .checks import notebooks as nbs


def course_root(given=None):
    if given:
        return pathlib.Path(given).resolve()
    checkout = pathlib.Path(__file__).resolve().parent.parent
    return checkout if (checkout / "exercises").is_dir() else pathlib.Path.cwd()


def find(root, folder, number):
    """The notebook root/folder/NN_*.ipynb for a number like 6, 06 or 06_mask_and_softmax."""
    stem = str(number).split("_")[0].zfill(2)
    matches = sorted((root / folder).glob(f"{stem}_*.ipynb"))
    if not matches:
        raise SystemExit(f"no {folder}/{stem}_*.ipynb under {root}")
    return matches[0]


def cmd_status(args):
    root = course_root(args.root)
    paths = sorted((root / "exercises").glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise SystemExit(f"no exercise notebooks in {root / 'exercises'}")
    counts = {"passed": 0, "failed": 0, "not attempted": 0}
    print(f"{'notebook':32} {'exercise':24} {'status':14} diagnosis")
    for path in paths:
        for r in nbs.graded(path, use_cache=not args.no_cache):
            counts[r["status"]] += 1
            print(f"{path.stem:32} {r['name']:24} {r['status']:14} {r['diagnosis'] or ''}".rstrip())
    total = sum(counts.values())
    print(f"\n{counts['passed']}/{total} passed, {counts['failed']} failed, {counts['not attempted']} not attempted")
    return 0


def cmd_check(args):
    path = find(course_root(args.root), "exercises", args.notebook)
    results = nbs.graded(path, use_cache=False)
    print(f"{path.name}: ran in a fresh kernel\n")
    for r in results:
        print(r["text"] if r["status"] != "failed" or r["text"].startswith("✗") else f"✗ {r['name']}: {r['text']}")
        print()
    return 0 if results and all(r["status"] == "passed" for r in results) else 1


def cmd_hint(args):
    path = find(course_root(args.root), "exercises", args.notebook)
    import nbformat
    names = nbs.checked_names(nbformat.read(path, as_version=4))
    for name in names:
        h1, h2 = hints(name)
        print(f"{name}\n  hint 1: {h1}")
        if args.level >= 2:
            print(f"  hint 2: {h2}")
        print()
    if args.level < 2:
        print("More: python -m attnlib hint", args.notebook, "--level 2")
    return 0


def backup(path):
    """Copy path to exercises/.backups/<stem>.<timestamp>.ipynb and return the copy's path."""
    folder = path.parent / ".backups"
    folder.mkdir(exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    target, k = folder / f"{path.stem}.{stamp}.ipynb", 1
    while target.exists():
        target, k = folder / f"{path.stem}.{stamp}-{k}.ipynb", k + 1
    shutil.copy2(path, target)
    return target


def cmd_reset(args):
    root = course_root(args.root)
    source = find(root, "solutions", args.notebook)
    path = root / "exercises" / source.name
    if path.exists():
        print(f"backed up your notebook to {backup(path).relative_to(root)}")
    path.write_text(nbs.exercise_text(source), encoding="utf-8")
    print(f"restored the pristine {path.relative_to(root)}")
    return 0


def lab_command(root, token, port=None):
    cmd = [sys.executable, "-m", "jupyter", "lab", "--ip=127.0.0.1",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"]
    if port:
        cmd.append(f"--port={port}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    start = root / "notebooks" / "00_start_here.ipynb"
    if start.exists():
        cmd.append(str(start.relative_to(root)))
    return cmd


def cmd_lab(args):
    root = course_root(args.root)
    token = os.environ.get("ATTNLIB_LAB_TOKEN") or secrets.token_hex(16)
    cmd = lab_command(root, token, args.port)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    print(f"JupyterLab on http://127.0.0.1:{args.port or 8888}/lab?token={token} (Ctrl-C to stop)")
    return subprocess.call(cmd, cwd=root)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m attnlib", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", help="course folder holding exercises/ and solutions/")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("status", help="progress table over exercises/")
    p.add_argument("--no-cache", action="store_true", help="re-run every notebook")
    p.set_defaults(func=cmd_status)
    for name, func, text in (("check", cmd_check, "grade one exercise notebook in a fresh kernel"),
                             ("hint", cmd_hint, "hints for one exercise notebook"),
                             ("reset", cmd_reset, "restore one exercise notebook (after a backup)")):
        p = sub.add_parser(name, help=text)
        p.add_argument("notebook", help="its number, e.g. 06")
        if name == "hint":
            p.add_argument("--level", type=int, choices=(1, 2), default=1)
        p.set_defaults(func=func)
    p = sub.add_parser("lab", help="start JupyterLab on 127.0.0.1 with a token")
    p.add_argument("--port", type=int)
    p.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    p.set_defaults(func=cmd_lab)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

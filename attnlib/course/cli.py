"""The course command line. You work in workspace/, your own copies that updates never touch.

    python -m attnlib status          progress over workspace/exercises/ (and copies the course changed since);
                                      --strict exits with 1 unless every exercise passed
    python -m attnlib check 06        grade workspace/exercises/06_*.ipynb in a fresh kernel
    python -m attnlib hint 06         hint 1 for lesson 06's exercises (the concept); --level 2: where to look,
                                      aimed at the mistake your copy shows; --level 3: the formula (the answer);
                                      `hint softmax` gives one exercise's hints alone
    python -m attnlib reset 06        back up your exercise notebook 06, then start again from the course's copy
    python -m attnlib update 06       back up your copies of lesson 06, then take the course's new version
    python -m attnlib lab             JupyterLab on 127.0.0.1 with a token, opening workspace/notebooks/00

--root points at the course folder (default: the checkout attnlib was installed from,
or the current folder). Your files are never overwritten without a backup in
workspace/.backups/.

`status` runs only the exercise notebooks you changed, each in a fresh kernel (two at a
time on a machine with two cores or more), and says so on stderr, one line per notebook;
a copy that still holds the course's code is "not attempted" without running, and the
results of a notebook that has not changed since its last run come from the cache.
"""
import argparse
import os
import pathlib
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from . import workspace
from .manifest import LESSONS, lesson

# Notebooks graded at once, each in a kernel of its own: two keep two cores busy while this process waits.
WORKERS = max(1, min(2, os.cpu_count() or 1))


def course_root(given=None):
    if given:
        root = pathlib.Path(given).resolve()
    else:
        checkout = pathlib.Path(__file__).resolve().parents[2]  # attnlib/course/cli.py -> the checkout
        root = checkout if (checkout / "exercises").is_dir() else pathlib.Path.cwd()
    if not (root / "exercises").is_dir():
        raise SystemExit(f"{root} is not the course folder (it has no exercises/); pass --root")
    return root


def _lesson(key):
    try:
        return lesson(key)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


def _command(args, *words):
    """The command line to suggest, keeping the learner's --root."""
    root = f" --root {args.root}" if getattr(args, "root", None) else ""
    return f"python -m attnlib{root} " + " ".join(words)


def _report_sync(copies, args):
    """Print what a sync did that the learner should know about; return the outdated copies."""
    for state, text in (("new", "new notebook(s) copied into"),
                        ("updated", "notebook(s) you had not edited updated to the course's new version in")):
        count = sum(c.state == state for c in copies)
        if count:
            print(f"workspace: {count} {text} {workspace.FOLDER}/")
    outdated = [c for c in copies if c.state == "outdated"]
    for c in outdated:
        print(f"workspace: the course changed {c.kind}/{c.stem}.ipynb since your copy was made; yours is kept.\n"
              f"           To take the new version (yours is backed up first): {_command(args, 'update', c.stem[:2])}")
    return outdated


def run_notebook(path):
    """The check outcomes of one run of the notebook in a fresh kernel (course.notebooks.run_outcomes)."""
    from . import notebooks as nbs  # nbformat and nbclient take seconds to import: only when a kernel runs
    return nbs.run_outcomes(path)


def _summary(results):
    passed = sum(r["status"] == "passed" for r in results)
    failed = sum(r["status"] == "failed" for r in results)
    return f"{passed}/{len(results)} passed" + (f", {failed} failed" if failed else "")


def grade(root, stems, use_cache=True, fresh=False, log=None):
    """{stem: [{name, status, diagnosis, text}]} for the learner's exercise notebooks `stems` (those that exist).

    An untouched copy (workspace.untouched) is "not attempted" without a kernel, unless `fresh`; a copy whose
    grade_key is in the cache is not run again when `use_cache`; every other one runs in a fresh kernel,
    WORKERS at a time, with one line on `log` per notebook graded. Fresh results go to the cache.
    """
    log = sys.stderr if log is None else log
    results, todo = {}, []
    grades = workspace.load_grades()  # read even when not used: saving keeps the other notebooks' results
    for stem in stems:
        path = workspace.copy_path(root, "exercises", stem)
        if not path.exists():
            continue
        if not fresh and workspace.untouched(root, stem):
            results[stem] = workspace.not_attempted(stem)
            continue
        key = workspace.grade_key(path)
        cached = workspace.cached_grades(grades, path, key) if use_cache else None
        if cached is not None:
            results[stem] = cached
        else:
            todo.append((stem, path, key))
    if not todo:
        return results
    workers = min(WORKERS, len(todo))
    print(f"grading {len(todo)} exercise notebook(s) in fresh kernels" + (f", {workers} at a time" if workers > 1
          else "") + ":", file=log, flush=True)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        running = {pool.submit(_timed, run_notebook, path): (stem, path, key) for stem, path, key in todo}
        try:
            for done, future in enumerate(as_completed(running), 1):
                (stem, path, key), (outcomes, seconds) = running[future], future.result()
                results[stem] = outcomes
                workspace.save_grades(grades, path, key, outcomes)
                print(f"  [{done}/{len(todo)}] {workspace.FOLDER}/exercises/{stem}.ipynb: {_summary(outcomes)} "
                      f"({seconds:.1f} s)", file=log, flush=True)
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            print("interrupted: waiting for the kernels already running to finish", file=log, flush=True)
            raise
    if len(todo) > 1:
        print(f"graded in {time.monotonic() - started:.1f} s\n", file=log, flush=True)
    return {stem: results[stem] for stem in stems if stem in results}


def _timed(fn, *args):
    start = time.monotonic()
    return fn(*args), time.monotonic() - start


def cmd_status(args):
    root = course_root(args.root)
    _report_sync(workspace.sync(root), args)
    counts = {"passed": 0, "failed": 0, "not attempted": 0}
    graded = grade(root, [les.stem for les in LESSONS if les.exercises], use_cache=not args.no_cache)
    print(f"{'notebook':32} {'exercise':24} {'status':14} diagnosis")
    for stem, results in graded.items():
        for r in results:
            counts[r["status"]] += 1
            print(f"{stem:32} {r['name']:24} {r['status']:14} {r['diagnosis'] or ''}".rstrip())
    total = sum(counts.values())
    print(f"\n{counts['passed']}/{total} passed, {counts['failed']} failed, {counts['not attempted']} not attempted")
    return 1 if args.strict and counts["passed"] < total else 0


def cmd_check(args):
    root = course_root(args.root)
    les = _lesson(args.notebook)
    _report_sync(workspace.sync(root), args)
    path = workspace.exercise_copy(root, les.stem)
    results = grade(root, [les.stem], use_cache=False, fresh=True).get(les.stem, [])
    print(f"{workspace.FOLDER}/exercises/{path.name}: ran in a fresh kernel\n")
    for r in results:
        print(r["text"] if r["status"] != "failed" or r["text"].startswith("✗") else f"✗ {r['name']}: {r['text']}")
        print()
    return 0 if results and all(r["status"] == "passed" for r in results) else 1


def cmd_hint(args):
    """Hint 1 is the concept; hint 2 depends on the mistake found in your copy; hint 3 is the answer."""
    from ..checks import hints
    from ..checks.diagnoses import explain
    from ..checks.grade import nudge_for
    les = _lesson(args.notebook)
    if not les.exercises:
        raise SystemExit(f"lesson {les.stem} has no exercises")
    names = [args.notebook] if args.notebook in les.exercises else les.exercises  # one exercise, or the lesson's
    found = {}
    if args.level >= 2:
        root = course_root(args.root)
        found = {r["name"]: r for r in grade(root, [les.stem]).get(les.stem, [])}
    for name in names:
        h1, h2, h3 = hints(name)
        print(f"{name}\n  hint 1: {h1}")
        if args.level >= 2:
            result = found.get(name, {})
            diagnosis = result.get("diagnosis")
            if result.get("status") == "passed":
                print("  hint 2: your copy passes this check.")
            elif nudge_for(name, diagnosis):
                print(f"  hint 2 (for {diagnosis}: {explain(diagnosis)}): {nudge_for(name, diagnosis)}")
            else:
                print(f"  hint 2: {h2}")
                if args.level == 2:
                    print(f"          ({_no_nudge(result, les.number, course_root(args.root), les.stem)})")
        if args.level == 3:
            print(f"  hint 3, the formula (this is the answer): {h3}")
        print()
    if args.level < 3:
        key = args.notebook if names != les.exercises else les.number
        print(f"More: {_command(args, 'hint', key, '--level', str(args.level + 1))}")
    return 0


def _no_nudge(result, number, root, stem):
    """Why hint 2 is the exercise's general one: what the grading of the learner's copy found, and what to do."""
    status, diagnosis = result.get("status"), result.get("diagnosis")
    if status == "not attempted":
        return ("your copy is not attempted yet, so this is the exercise's general hint; once you have written "
                "your code, this level points at the mistake its check names")
    if status == "failed":
        found = f"the check only says {diagnosis}" if diagnosis else "some values differ from the expected ones"
        return (f"your copy fails this check, but no specific mistake was named ({found}), so this is the "
                "exercise's general hint; read the problems listed in the check cell's report (they compare "
                "your values with the expected ones), then level 3 gives the formula")
    copy = pathlib.Path(root) / "workspace" / "exercises" / f"{stem}.ipynb"
    if not copy.exists():
        return (f"there is no copy of lesson {number}'s exercises at {copy}, so this is the exercise's general hint; "
                "`make lab` (or `python -m attnlib status`) makes your copies in workspace/exercises/")
    return f"your copy of lesson {number}'s exercises could not be graded, so this is the exercise's general hint"


def cmd_reset(args):
    root = course_root(args.root)
    les = _lesson(args.notebook)
    if not les.exercises:
        raise SystemExit(f"lesson {les.stem} has no exercises")
    saved = workspace.replace(root, "exercises", les.stem)
    if saved:
        print(f"backed up your notebook to {saved.relative_to(root)}")
    print(f"restored the course's {workspace.FOLDER}/exercises/{les.stem}.ipynb")
    return 0


def cmd_update(args):
    root = course_root(args.root)
    les = _lesson(args.notebook)
    outdated = [c for c in workspace.sync(root) if c.stem == les.stem and c.state == "outdated"]
    if not outdated:
        print(f"your copies of lesson {les.stem} are current")
    for c in outdated:
        saved = workspace.replace(root, c.kind, c.stem)
        print(f"backed up your {c.kind}/{c.stem}.ipynb to {saved.relative_to(root)} and took the course's new "
              f"version; open the backup to copy your own code into the new notebook")
    return 0


def cmd_lab(args):
    from . import lab
    root = course_root(args.root)
    _report_sync(workspace.sync(root), args)
    return lab.main(root, port=args.port, dry_run=args.dry_run, open_browser=not args.no_browser,
                    open_path=f"{workspace.FOLDER}/notebooks/{LESSONS[0].stem}.ipynb")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m attnlib", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", help="course folder holding notebooks/ and exercises/")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("status", help="progress table over workspace/exercises/")
    p.add_argument("--no-cache", action="store_true",
                   help="run again every notebook you changed, even if it has not changed since its last run")
    p.add_argument("--strict", action="store_true", help="exit with 1 unless every exercise passed (for graders)")
    p.set_defaults(func=cmd_status)
    for name, func, text in (("check", cmd_check, "grade one exercise notebook in a fresh kernel"),
                             ("hint", cmd_hint, "hints for one lesson's exercises"),
                             ("reset", cmd_reset, "start one exercise notebook again (after a backup)"),
                             ("update", cmd_update, "take the course's new version of a lesson (after a backup)")):
        p = sub.add_parser(name, help=text)
        p.add_argument("notebook", help="the lesson number, e.g. 06" + (
            "; or one exercise's name, e.g. softmax, for its hints alone" if name == "hint" else ""))
        if name == "hint":
            p.add_argument("--level", type=int, choices=(1, 2, 3), default=1,
                           help="1 the concept, 2 where to look for your mistake, 3 the answer")
        p.set_defaults(func=func)
    p = sub.add_parser("lab", help="start JupyterLab on 127.0.0.1 with a token")
    p.add_argument("--port", type=int)
    p.add_argument("--no-browser", action="store_true",
                   help="start the server without opening a browser; print the link (e.g. over ssh)")
    p.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    p.set_defaults(func=cmd_lab)
    args = parser.parse_args(argv)
    return args.func(args)


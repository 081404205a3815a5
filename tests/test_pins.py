"""The pip route and the conda route install the same versions.

conda cannot run here, so this offline check is the guard: environment.yml must pin
exactly the packages and versions of requirements.txt, and pyproject.toml must name
the same packages.
"""
import pathlib
import re

import yaml

try:
    import tomllib
except ImportError:  # Python 3.10
    from pip._vendor import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def pip_pins(path):
    pins = {}
    for line in (ROOT / path).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep, f"{path}: {line!r} is not pinned with =="
            pins[name.lower()] = version
    return pins


def conda_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pins = {}
    for dep in env["dependencies"]:
        entries = dep["pip"] if isinstance(dep, dict) else []
        for entry in entries:
            if entry.startswith("-e"):
                continue
            name, sep, version = entry.partition("==")
            assert sep, f"environment.yml: {entry!r} is not pinned with =="
            pins[name.lower()] = version
    return pins


def test_environment_yml_matches_requirements():
    assert conda_pins() == pip_pins("requirements.txt")


def test_pyproject_names_the_pinned_packages():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = lambda reqs: {re.split(r"[=<>!~ ]", r)[0].lower() for r in reqs}  # noqa: E731
    extras = project["optional-dependencies"]
    assert names(project["dependencies"]) | names(extras["dev"]) == set(pip_pins("requirements.txt"))
    assert extras["parity"] == ["torch==" + pip_pins("requirements-parity.txt")["torch"]]

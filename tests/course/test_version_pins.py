"""The pip route and the conda route install the same versions, and the learner's set stays lean.

conda cannot run here, so this offline check is the guard: environment.yml must pin
exactly the packages and versions of requirements.txt (the learner's set), and
pyproject.toml must name the same packages; the maintainers' tools live only in
requirements-dev.txt.
"""
import re

import yaml

from helpers import ROOT

try:
    import tomllib
except ImportError:  # Python 3.10
    from pip._vendor import tomli as tomllib


def pip_pins(path):
    pins = {}
    for line in (ROOT / path).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-r "):
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
    assert names(project["dependencies"]) == set(pip_pins("requirements.txt"))
    assert names(extras["dev"]) == set(pip_pins("requirements-dev.txt"))
    assert extras["parity"] == ["torch==" + pip_pins("requirements-parity.txt")["torch"]]


def test_the_learners_set_carries_no_maintainer_tools():
    """make lab installs requirements.txt only: no nbgrader menus, no test tools in the learner's JupyterLab."""
    learner = set(pip_pins("requirements.txt"))
    assert not learner & {"nbgrader", "pytest", "hypothesis", "nbval", "playwright", "ruff", "torch"}
    assert (ROOT / "requirements-dev.txt").read_text().splitlines()[3] == "-r requirements.txt"
    makefile = (ROOT / "Makefile").read_text()
    lab_recipe = makefile.split("\nlab:")[1].split("\n\n")[0]
    assert "$(COURSE)" in lab_recipe and "$(DEV)" not in lab_recipe
    course_recipe = makefile.split("\n$(COURSE):")[1].split("\n\n")[0]
    assert "requirements-dev" not in course_recipe


def test_the_sites_tools_are_pinned_and_installed_with_the_maintainers_tools():
    """make site builds from requirements-site.txt (every line pinned with ==) inside .venv-dev, never .venv."""
    site = pip_pins("requirements-site.txt")
    assert {"sphinx", "myst-nb", "myst-parser", "docutils"} <= set(site)
    assert not set(site) & set(pip_pins("requirements.txt")), "the learner's set must not carry the site's tools"
    makefile = (ROOT / "Makefile").read_text()
    tools_recipe = makefile.split("\n$(TOOLS):")[1].split("\n\n")[0]
    assert "requirements-site.txt" in tools_recipe.splitlines()[0] and "-r requirements-site.txt" in tools_recipe
    site_recipe = makefile.split("\nsite:")[1].split("\n\n")[0]
    assert "$(TOOLS)" in site_recipe and "$(VENV)/" not in site_recipe

"""The instructors' route, end to end: solutions/ graded by nbgrader on a real JupyterHub.

A hub from classroom/jupyterhub_config.py (DummyAuthenticator, local process spawner, configurable-http-proxy)
runs on 127.0.0.1 with free ports; an admin service token creates an instructor and three students through
the REST API and starts their servers, each as its own Unix user (nbgrader tells students apart by the Unix
user of the process). The instructor generates and releases an assignment made of two lessons of solutions/
through the formgrader's API; each student fetches it through the assignment list's API, as JupyterLab's
nbgrader panel does, and works on it through the contents API, as JupyterLab saves: one solves it, one
leaves it as released, one redefines `check` in a cell of their own and writes wrong answers. The instructor
collects, autogrades, generates and releases feedback; the students fetch it.

Needs root (one Unix user per student, removed afterwards) and configurable-http-proxy (npm; .ci/run installs
the pinned one into .node/classroom/): without either the test skips with its reason, under CI=true it fails.
The students' servers cannot run a Python under a private home (root's pyenv, mode 700), so the test builds
their environment in a temporary folder open to all: a venv of a Python they can run, holding this
environment's packages (hard links where possible, never a download) and a copy of attnlib.
"""
import contextlib
import grp
import html
import json
import os
import pathlib
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time

import nbformat
import pytest

from helpers import ROOT, need, unavailable

COURSE = "attention"
ASSIGNMENT = "week1"
LESSONS = ["01_projection", "02_batches"]  # the two shortest lessons to run: four checks in all
PROXY_FOLDERS = [ROOT / ".node" / "classroom", ROOT / ".node"]  # where .ci/run's npm install puts the proxy
# packages of this environment that no server or kernel of the class imports (PyTorch alone is most of it)
NOT_FOR_THE_CLASS = ("torch", "functorch", "torchgen", "sympy", "mpmath", "networkx", "playwright", "nvidia",
                     "triton", "__editable__", "_pytest", "pytest", "hypothesis", "ruff")
NOBODY = ("nobody", "nogroup")


def pinned(path, pattern):
    match = re.search(pattern, (ROOT / path).read_text())
    assert match, f"{path} pins nothing matching {pattern}"
    return match.group(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_proxy():
    for folder in PROXY_FOLDERS:
        found = folder / "node_modules" / ".bin" / "configurable-http-proxy"
        if found.exists():
            return str(found)
    return shutil.which("configurable-http-proxy")


def as_user(name, argv, env=(), **kw):
    """Run argv as Unix user `name` (its own group only), from /."""
    entry = pwd.getpwnam(name)
    env = {"PATH": "/usr/bin:/bin", "HOME": entry.pw_dir, "USER": name, "LANG": "C.UTF-8", **dict(env)}
    return subprocess.run(argv, user=entry.pw_uid, group=entry.pw_gid, extra_groups=[], env=env, cwd="/",
                          capture_output=True, text=True, timeout=120, **kw)


def runs_for_others(python, env=()):
    """True when a user with no rights of its own (nobody) can start this Python."""
    try:
        return as_user(NOBODY[0], [python, "-c", "import encodings"], env=env).returncode == 0
    except (OSError, KeyError, subprocess.SubprocessError):
        return False


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def python_for_everyone(dest):
    """This environment's own Python, or a copy of it at dest when it sits where other users cannot reach
    (root's pyenv). Not just any python3 of the machine: Debian 12's 3.11.2 cannot run the soupsieve the pins
    bring (nbconvert then fails on every feedback page). Returns the interpreter and the environment it needs."""
    ours = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    if runs_for_others(ours):
        return ours, {}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = pathlib.Path(sys.base_prefix)
    stdlib = base / "lib" / version
    unneeded = ("site-packages", "test", "idlelib", "ensurepip") + tuple(p.name for p in stdlib.glob("config-*"))
    shutil.copytree(stdlib, dest / "lib" / version, symlinks=True, copy_function=link_or_copy,
                    ignore=lambda folder, names: [n for n in names if folder == str(stdlib) and n in unneeded])
    (dest / "lib" / version / "site-packages").mkdir()
    for lib in base.glob(f"lib/lib{version}*.so*"):  # a shared build finds it through LD_LIBRARY_PATH
        shutil.copy2(lib, dest / "lib" / lib.name, follow_symlinks=True)
    (dest / "bin").mkdir()
    link_or_copy(ours, dest / "bin" / version)
    env = {"LD_LIBRARY_PATH": str(dest / "lib")}
    if not runs_for_others(str(dest / "bin" / version), env):
        unavailable(f"neither {ours} nor a copy of it at {dest} runs for other users: the students' servers need "
                    "a Python they can start")
    return str(dest / "bin" / version), env


def class_environment(dest):
    """A venv at dest that every user can run: this environment's Python and packages, and attnlib.
    Returns its python and the environment variables it needs."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base, env = python_for_everyone(dest.parent / "python")
    subprocess.run([base, "-m", "venv", "--without-pip", str(dest)], check=True, capture_output=True,
                   env=dict(os.environ, **env))
    ours = pathlib.Path(sysconfig.get_paths()["purelib"])
    theirs = dest / "lib" / version / "site-packages"
    skip = lambda folder, names: [n for n in names if folder == str(ours) and n.startswith(NOT_FOR_THE_CLASS)]
    shutil.copytree(ours, theirs, symlinks=True, ignore=skip, copy_function=link_or_copy, dirs_exist_ok=True)
    shutil.copytree(ROOT / "attnlib", theirs / "attnlib", ignore=shutil.ignore_patterns("__pycache__"))
    for shared in ("etc/jupyter", "share/jupyter"):  # nbgrader's server extensions are enabled in etc/jupyter
        if (pathlib.Path(sys.prefix) / shared).is_dir():
            shutil.copytree(pathlib.Path(sys.prefix) / shared, dest / shared, symlinks=True,
                            copy_function=link_or_copy, dirs_exist_ok=True)
    # the console scripts (nbgrader runs `alembic`, the users' terminals `jupyter` and `nbgrader`), on its Python
    for script in (pathlib.Path(sys.prefix) / "bin").iterdir():
        if script.is_file() and not script.is_symlink() and not (dest / "bin" / script.name).exists():
            head, _, body = script.read_bytes().partition(b"\n")
            if head.startswith(b"#!") and b"python" in head:
                (dest / "bin" / script.name).write_bytes(b"#!" + str(dest / "bin" / "python").encode() + b"\n" + body)
                (dest / "bin" / script.name).chmod(0o755)
    # the course's nbgrader config, installed the way classroom/README.md says
    shutil.copy(ROOT / "classroom" / "nbgrader_config.py", dest / "etc" / "jupyter" / "nbgrader_config.py")
    python = str(dest / "bin" / "python")
    probe = as_user(NOBODY[0], [python, "-c", "import jupyterhub.singleuser, nbgrader, attnlib.checks"], env=env)
    assert probe.returncode == 0, f"the class's environment does not import for other users:\n{probe.stderr}"
    return python, env


def processes_of(uids):
    """Pids of the processes whose real uid is one of uids."""
    found = []
    for status in pathlib.Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue  # ended while we looked
        if int(fields["Uid"].split()[0]) in uids:
            found.append(int(status.parent.name))
    return found


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):  # a zombie child of ours counts as gone
        if pathlib.Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
            return False
    return True


def wait_until(condition, timeout, what, log=None):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            tail = log.read_text()[-3000:] if log and log.exists() else ""
            pytest.fail(f"timed out after {timeout}s waiting for {what}\n{tail}")
        time.sleep(0.25)


class Classroom:
    """A hub with its Unix users, in a temporary folder; close() undoes all of it and says what it had to force."""

    def __init__(self):
        self.tag = secrets.token_hex(2)
        self.users = []
        self.uids = set()
        self.hub = None
        self.proxy_pid = None
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="attnlib-classroom-"))
        os.chmod(self.tmp, 0o755)  # the students' servers run the class's Python from here
        (self.tmp / "home").mkdir(mode=0o755)
        self.log = self.tmp / "hub" / "hub.log"
        self.closed = False
        self.left = []

    # -- Unix users -------------------------------------------------------------------
    def add_user(self, role):
        name = f"attn{self.tag}-{role}"
        home = self.tmp / "home" / name
        self.users.append(name)  # before useradd: close() removes it even if useradd half-fails
        # HOME_MODE: Debian's default home (755) would let every student read every other's work
        subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "-K", "HOME_MODE=0700",
                        "--shell", "/usr/sbin/nologin", "--user-group", name], check=True, capture_output=True)
        self.uids.add(pwd.getpwnam(name).pw_uid)
        return name

    # -- the hub ------------------------------------------------------------------------
    def start(self, python, python_env, proxy):
        hub_dir = self.tmp / "hub"
        hub_dir.mkdir(mode=0o700)
        self.exchange = self.tmp / "exchange"
        self.exchange.mkdir()
        os.chmod(self.exchange, 0o777)  # nbgrader's exchange: every user reaches it
        self.port, hub_port, api_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(32)
        self.requests = need("requests", "the test talks to the hub over HTTP")
        self.session = self.requests.Session()
        (hub_dir / "jupyterhub_config.py").write_text(f"""\
c = get_config()  # noqa
load_subconfig({str(ROOT / "classroom" / "jupyterhub_config.py")!r})
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = {str(hub_dir / "proxy.pid")!r}
c.JupyterHub.pid_file = {str(hub_dir / "hub.pid")!r}
c.JupyterHub.db_url = "sqlite:///{hub_dir / "jupyterhub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(hub_dir / "cookie_secret")!r}
c.Spawner.environment = dict(c.Spawner.environment, **{python_env!r})
""")
        env = {key: value for key, value in os.environ.items() if not key.startswith(("ATTNLIB_", "JUPYTER"))}
        env.update(ATTNLIB_HUB_URL=self.url, ATTNLIB_HUB_API_TOKEN=self.token, ATTNLIB_CLASS_PYTHON=python,
                   ATTNLIB_COURSE=COURSE, ATTNLIB_EXCHANGE=str(self.exchange), PYTHONUNBUFFERED="1")
        with open(self.log, "wb") as out:
            self.hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", "jupyterhub_config.py"],
                                        cwd=hub_dir, env=env, stdout=out, stderr=subprocess.STDOUT,
                                        start_new_session=True)

        def up():
            if self.hub.poll() is not None:
                pytest.fail(f"the hub exited with {self.hub.returncode}:\n{self.log.read_text()[-3000:]}")
            try:
                return self.session.get(f"{self.url}/hub/api/", timeout=5).status_code == 200
            except self.requests.ConnectionError:
                return False

        wait_until(up, 90, "the hub to answer", self.log)
        with contextlib.suppress(OSError, ValueError):
            self.proxy_pid = int((hub_dir / "proxy.pid").read_text())

    def api(self, method, path, token=None, expect=(200, 201, 202, 204), **kw):
        """A call to the hub's REST API (path under /hub/api) or, with /user/..., to a user's server."""
        url = self.url + (path if path.startswith("/user/") else "/hub/api" + path)
        response = self.session.request(method, url, timeout=300,
                                        headers={"Authorization": f"token {token or self.token}"}, **kw)
        assert response.status_code in expect, \
            f"{method} {path}: {response.status_code} {response.text[:2000]}\n{self.log.read_text()[-3000:]}"
        try:
            return response.json()  # the formgrader's API answers JSON as text/html
        except ValueError:
            return response

    # -- tearing down -----------------------------------------------------------------------
    def close(self):
        """Stop the servers, the hub and its proxy, then remove the users and the folder. Returns what did not
        go by itself (force-killed processes, users that would not go)."""
        if self.closed:
            return self.left
        self.closed = True
        if self.hub is not None and self.hub.poll() is None:
            for name in self.users:  # as the admin page would; the hub stops whatever is left when it stops
                with contextlib.suppress(Exception):
                    self.session.delete(f"{self.url}/hub/api/users/{name}/server", timeout=60,
                                        headers={"Authorization": f"token {self.token}"})
            self.hub.send_signal(signal.SIGTERM)  # the hub stops its proxy and any server still running
            try:
                self.hub.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.left.append(f"hub {self.hub.pid}")
                os.killpg(self.hub.pid, signal.SIGKILL)
                self.hub.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and (processes_of(self.uids) or
                                               (self.proxy_pid and alive(self.proxy_pid))):
            time.sleep(0.25)
        if self.proxy_pid and alive(self.proxy_pid):
            self.left.append(f"proxy {self.proxy_pid}")
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proxy_pid, signal.SIGKILL)
        for pid in processes_of(self.uids):  # started by the hub for our users only
            self.left.append(f"process {pid} of a test user")
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for _ in range(40):
            if not processes_of(self.uids):
                break
            time.sleep(0.25)
        for name in self.users:
            subprocess.run(["userdel", "--remove", name], capture_output=True)
            with contextlib.suppress(KeyError):
                pwd.getpwnam(name)
                self.left.append(f"user {name}")
            with contextlib.suppress(KeyError):
                grp.getgrnam(name)
                subprocess.run(["groupdel", name], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)
        return self.left


@pytest.fixture
def classroom():
    if os.geteuid() != 0:
        unavailable("the classroom test needs root: it adds one Unix user per student (removed afterwards)")
    proxy = find_proxy()
    if proxy is None or shutil.which("node") is None:
        unavailable("the classroom test needs node and configurable-http-proxy "
                    "(npm install --prefix .node/classroom configurable-http-proxy@"
                    f"{pinned('.ci/run', r'CHP_VERSION=([0-9.]+)')}, as .ci/run does)")
    need("jupyterhub", "the classroom test runs a real JupyterHub")
    need("nbgrader", "the classroom test grades with nbgrader")
    for tool in ("useradd", "userdel"):
        if shutil.which(tool) is None:
            unavailable(f"the classroom test needs {tool}")
    room = Classroom()
    room.proxy = proxy
    try:
        yield room
    finally:
        room.close()


# -- what the students do to their copies -------------------------------------------------------------

def solution_sources():
    """lesson -> grade_id -> the solution cell's code from solutions/, without nbgrader's markers."""
    sources = {}
    for stem in LESSONS:
        for cell in nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                sources.setdefault(stem, {})[meta["grade_id"]] = "\n".join(
                    line for line in cell.source.splitlines()
                    if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
    return sources


def feedback_text(page):
    """The words of an nbgrader feedback page, without its markup."""
    body = re.sub(r"<style.*?</style>|<script.*?</script>", "", page.split("<body", 1)[-1], flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def graded_cell(text, grade_id):
    """What a feedback page shows for the check cell of one exercise: its score and its output."""
    assert f"Grade cell: check_{grade_id} " in text, f"the feedback does not show check_{grade_id}"
    return text.split(f"Grade cell: check_{grade_id} ", 1)[1].split("Grade cell:", 1)[0]


def solve(nb, sources):
    """The solutions' code in every solution cell."""
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            cell["source"] = sources[meta["grade_id"]]
    return nb


CHEAT = 'def check(name, fn, **kwargs):\n    return "passed"  # every check passes now, or so I hope'


def cheat(nb):
    """A cell of the student's own that redefines check, and a wrong answer in every solution cell."""
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            cell["source"] = cell["source"].replace("raise NotImplementedError()", "return 0")
    first_code = next(i for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code")
    nb["cells"].insert(first_code + 1, nbformat.v4.new_code_cell(CHEAT).dict())
    return nb


def test_the_pins_of_the_classroom_agree():
    """The hub the test runs is the pinned one, and classroom/README.md names the versions that are pinned."""
    hub = pinned("requirements-dev.txt", r"(?m)^jupyterhub==([0-9.]+)\b")
    proxy = pinned(".ci/run", r"CHP_VERSION=([0-9.]+)")
    guide = (ROOT / "classroom" / "README.md").read_text()
    assert f"jupyterhub=={hub}" in guide and f"configurable-http-proxy@{proxy}" in guide
    jupyterhub = need("jupyterhub", "the classroom runs on JupyterHub")
    assert jupyterhub.__version__ == hub


def test_an_assignment_goes_round_a_real_hub(classroom, capsys):
    room = classroom
    times = {}
    start = clock = time.monotonic()

    def lap(name):
        nonlocal clock
        now = time.monotonic()
        times[name], clock = now - clock, now

    python, python_env = class_environment(room.tmp / "class-env")
    lap("the class's environment")

    teacher = room.add_user("teacher")
    solver, blank, cheater = (room.add_user(role) for role in ("solver", "blank", "cheat"))
    students = [solver, blank, cheater]
    room.start(python, python_env, room.proxy)
    lap("the hub")

    # -- the hub: users, the instructors' group, tokens and servers, all through the REST API ----------
    room.api("POST", "/users", json={"usernames": [teacher, *students]})
    room.api("POST", "/groups/instructors/users", json={"users": [teacher]})
    tokens = {name: room.api("POST", f"/users/{name}/tokens", json={"scopes": ["access:servers!user"],
                                                                     "note": "classroom test"})["token"]
              for name in [teacher, *students]}
    for name in tokens:
        room.api("POST", f"/users/{name}/server")
    for name in tokens:
        wait_until(lambda n=name: room.api("GET", f"/users/{n}")["servers"].get("", {}).get("ready"), 180,
                   f"{name}'s server", room.log)
    lap("four servers")

    def on(name, method, path, **kw):
        return room.api(method, f"/user/{name}{path}", token=tokens[name], **kw)

    def put_notebook(name, path, nb):
        on(name, "PUT", f"/api/contents/{path}", json={"type": "notebook", "format": "json", "content": nb})

    # the formgrader runs for the instructor only
    on(teacher, "GET", "/formgrader/api/status")
    on(solver, "GET", "/formgrader/api/status", expect=(404,))

    # -- the instructor: source/ from solutions/, generated and released through the formgrader's API ---
    for folder in (COURSE, f"{COURSE}/source", f"{COURSE}/source/{ASSIGNMENT}"):
        on(teacher, "PUT", f"/api/contents/{folder}", json={"type": "directory"})
    for stem in LESSONS:
        nb = json.loads((ROOT / "solutions" / f"{stem}.ipynb").read_text())
        put_notebook(teacher, f"{COURSE}/source/{ASSIGNMENT}/{stem}.ipynb", nb)
    for step in ("assign", "release"):
        result = on(teacher, "POST", f"/formgrader/api/assignment/{ASSIGNMENT}/{step}")
        assert result["success"], f"{step}: {result.get('error')}\n{result.get('log')}"
    lap("generate and release")

    # -- the students: fetch through the assignment list's API, work through the contents API, submit ----
    sources = solution_sources()
    for name in students:
        listed = on(name, "GET", f"/assignments?course_id={COURSE}")
        assert listed["success"] and [(a["assignment_id"], a["status"]) for a in listed["value"]] \
            == [(ASSIGNMENT, "released")], listed
        fetched = on(name, "POST", "/assignments/fetch", json={"course_id": COURSE, "assignment_id": ASSIGNMENT})
        mine = [a for a in fetched["value"] if a["status"] == "fetched"]
        assert [n["notebook_id"] for n in mine[0]["notebooks"]] == LESSONS, fetched
        for stem in sources:
            path = f"{ASSIGNMENT}/{stem}.ipynb"
            nb = on(name, "GET", f"/api/contents/{path}?content=1")["content"]
            assert "raise NotImplementedError" in json.dumps(nb) and "BEGIN SOLUTION" not in json.dumps(nb)
            if name == solver:
                put_notebook(name, path, solve(nb, sources[stem]))
            elif name == cheater:
                put_notebook(name, path, cheat(nb))
        submitted = on(name, "POST", "/assignments/submit", json={"course_id": COURSE, "assignment_id": ASSIGNMENT})
        assert submitted["success"], submitted
    lap("fetch, work, submit")

    # -- a student cannot find another's submission, nor read their copy --------------------------------
    # nbgrader's inbound lets students write but not list; each submission's folder name ends in a random
    # string, so knowing whose it is and when it came is not enough to open it
    inbound = room.exchange / COURSE / "inbound"
    theirs = [p.name for p in inbound.iterdir() if p.name.startswith(f"{solver}+")]
    assert len(theirs) == 1
    targets = {"listing": str(inbound), "pattern": str(inbound / f"{solver}+*"),
               "without the random end": str(inbound / theirs[0].rsplit("+", 1)[0] / f"{LESSONS[0]}.ipynb"),
               "their copy": str(room.tmp / "home" / solver / ASSIGNMENT / f"{LESSONS[0]}.ipynb")}
    peek = as_user(blank, [python, "-c", f"""
import glob, json, os
t = {targets!r}
def tries(f):
    try:
        f()
        return "succeeded"
    except (PermissionError, FileNotFoundError) as e:
        return type(e).__name__
print(json.dumps({{"listing": tries(lambda: os.listdir(t["listing"])), "pattern": glob.glob(t["pattern"]),
                  "without the random end": tries(lambda: open(t["without the random end"]).read()),
                  "their copy": tries(lambda: open(t["their copy"]).read())}}))
"""], env=python_env)
    assert peek.returncode == 0, peek.stderr
    assert json.loads(peek.stdout) == {"listing": "PermissionError", "pattern": [],
                                       "without the random end": "FileNotFoundError",
                                       "their copy": "PermissionError"}
    listed = on(blank, "GET", f"/assignments?course_id={COURSE}")["value"]
    assert {s["student_id"] for a in listed for s in a.get("submissions", [])} == {blank}

    # -- the instructor: collect, autograde, feedback ------------------------------------------------------
    result = on(teacher, "POST", f"/formgrader/api/assignment/{ASSIGNMENT}/collect")
    assert result["success"], result
    for name in students:
        result = on(teacher, "POST", f"/formgrader/api/submission/{ASSIGNMENT}/{name}/autograde")
        assert result["success"], f"autograde {name}: {result.get('error')}\n{result.get('log')}"
    lap("collect and autograde")
    for step in ("generate_feedback", "release_feedback"):
        result = on(teacher, "POST", f"/formgrader/api/assignment/{ASSIGNMENT}/{step}")
        assert result["success"], f"{step}: {result.get('error')}\n{result.get('log')}"

    scores = {s["student"]: (s["score"], s["max_score"])
              for s in on(teacher, "GET", f"/formgrader/api/submissions/{ASSIGNMENT}")}
    full = float(sum(len(exercises) for exercises in sources.values()))  # one graded check per exercise
    assert scores == {solver: (full, full), blank: (0.0, full), cheater: (0.0, full)}

    # -- the students fetch their feedback: a page per notebook, naming each check and how it went --------
    for name in students:
        listed = on(name, "POST", "/assignments/fetch_feedback",
                    json={"course_id": COURSE, "assignment_id": ASSIGNMENT})
        submission = next(a for a in listed["value"] if a["status"] == "submitted")["submissions"][-1]
        assert submission["has_local_feedback"] and submission["local_feedback_path"], submission
        for stem, exercises in sources.items():
            page = on(name, "GET", f"/api/contents/{submission['local_feedback_path']}/{stem}.html"
                                   "?content=1&format=text&type=file")["content"]
            text = feedback_text(page)
            for exercise in exercises:
                cell = graded_cell(text, exercise)
                if name == solver:
                    assert "Score: 1.0 / 1.0" in cell and f"✓ {exercise} passed" in cell, (name, cell[:500])
                else:
                    assert "Score: 0.0 / 1.0" in cell and "CheckFailed" in cell, (name, cell[:500])
                    named = f"{exercise}: not attempted yet" if name == blank else f"✗ {exercise} failed"
                    assert named in cell, (name, cell[:500])
    lap("feedback")
    total = time.monotonic() - start

    # -- afterwards: the servers, the hub, its proxy, the users and their files are all gone -------------
    for name in [teacher, *students]:
        room.api("DELETE", f"/users/{name}/server")
    proxy_pid = room.proxy_pid
    assert proxy_pid, "the hub wrote no pid file for its proxy"
    left = room.close()
    assert left == [], f"not gone by themselves: {left}"
    assert room.hub.poll() is not None and not alive(proxy_pid) and processes_of(room.uids) == []
    for name in [teacher, *students]:
        with pytest.raises(KeyError):
            pwd.getpwnam(name)
        with pytest.raises(KeyError):
            grp.getgrnam(name)
    assert not room.tmp.exists()

    with capsys.disabled():
        print(f"\nclassroom flow: {total:.1f} s ("
              + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
              + "); scores " + ", ".join(f"{n.rsplit('-', 1)[1]} {s[0]:g}/{s[1]:g}" for n, s in scores.items()))

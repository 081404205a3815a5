"""attnlib.course.lab: JupyterLab on 127.0.0.1 with a token that never reaches the command line,
on the port it prints, with no network access from the Extension Manager."""
import http.server
import json
import os
import re
import secrets
import shlex
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest

from attnlib.course import lab


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    (root / "notebooks").mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), root / "notebooks" / "00_start_here.ipynb")
    return root


@pytest.fixture
def listening():
    """A socket listening on a free 127.0.0.1 port, the one lab would pick first."""
    port = lab.free_port()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", port))
    s.listen()
    yield port
    s.close()


def dry_run(root, capsys, **kw):
    code = lab.main(root, dry_run=True, **kw)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_free_port_skips_a_port_that_is_taken(listening):
    assert lab.port_in_use(listening)
    port = lab.free_port(first=listening)
    assert port > listening and not lab.port_in_use(port)


def test_the_token_is_random_unless_given(monkeypatch):
    monkeypatch.delenv("ATTNLIB_LAB_TOKEN", raising=False)
    first, second = lab.lab_token(), lab.lab_token()
    assert first != second and len(first) == 32 and int(first, 16) >= 0
    monkeypatch.setenv("ATTNLIB_LAB_TOKEN", "chosen-token")
    assert lab.lab_token() == "chosen-token"


def test_command_binds_localhost_pins_the_port_and_holds_no_token(course, capsys, monkeypatch):
    token = secrets.token_hex(16)
    monkeypatch.setenv("ATTNLIB_LAB_TOKEN", token)
    code, out, _ = dry_run(course, capsys, port=lab.free_port())
    assert code == 0 and token not in out
    cmd = shlex.split(out.strip().splitlines()[-1])
    assert "--ServerApp.ip=127.0.0.1" in cmd and "--ServerApp.port_retries=0" in cmd
    assert sum(a.startswith("--ServerApp.port=") for a in cmd) == 1
    assert not [a for a in cmd if "token" in a.lower()]
    assert "--LabApp.extension_manager=readonly" in cmd
    assert "--LabApp.news_url=None" in cmd
    assert cmd[-1] == "notebooks/00_start_here.ipynb"


def test_without_the_start_notebook_lab_opens_its_home(course, capsys):
    (course / "notebooks" / "00_start_here.ipynb").unlink()
    code, out, _ = dry_run(course, capsys)
    assert code == 0 and not shlex.split(out.strip().splitlines()[-1])[-1].endswith(".ipynb")
    assert lab.lab_url(course, 8888, "t").endswith("/lab?token=t")


@pytest.mark.parametrize("uid", [0, 1000])
def test_allow_root_only_as_root_and_says_why(course, capsys, monkeypatch, uid):
    monkeypatch.setattr(lab.os, "geteuid", lambda: uid, raising=False)
    code, out, _ = dry_run(course, capsys)
    assert code == 0
    assert ("--allow-root" in shlex.split(out.strip().splitlines()[-1])) == (uid == 0)
    assert (lab.ROOT_NOTE in out.splitlines()) == (uid == 0)


def test_a_missing_course_folder_is_a_clear_error(tmp_path, capsys):
    code, out, err = dry_run(tmp_path / "nowhere", capsys)
    assert code != 0 and "no course folder" in err and "nowhere" in err and out == ""


def test_a_port_in_use_is_refused_not_moved(course, capsys, listening):
    code, _, err = dry_run(course, capsys, port=listening)
    assert code != 0 and f"port {listening}" in err and "in use" in err


def test_runtime_folder_privacy(tmp_path, monkeypatch):
    folder = tmp_path / "runtime"
    folder.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(folder))
    folder.chmod(0o700)
    assert lab.runtime_dir_is_private()
    folder.chmod(0o755)
    assert not lab.runtime_dir_is_private()


@pytest.fixture
def answering():
    """A local HTTP server that answers GET /login with the status in its `.status` (200 unless changed)."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            server.paths.append(self.path)
            self.send_response(server.status)
            if server.status == 302:
                self.send_header("Location", "/lab")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    server.status, server.paths = 200, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("code", [200, 404, 302])
def test_the_login_probe_reports_the_pages_own_status(answering, code):
    answering.status = code
    assert lab.login_status(answering.server_address[1]) == code
    assert answering.paths == ["/login"]  # one request, to the login page; a redirect is not followed


def test_the_login_probe_says_none_when_nothing_answers():
    assert lab.login_status(lab.free_port()) is None


# --- the real server -------------------------------------------------------------------------------

NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def fetch(url, token=None):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"token {token}")
    try:
        with NO_PROXY.open(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, ""


def children(pid):
    """The ids of the processes whose parent is `pid`."""
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat_file.parent.name))
    return found


def alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def reachable_by_others(path, base):
    """True when another user could read `path`, given that `base` itself is open to everyone."""
    if not path.stat().st_mode & stat.S_IROTH:
        return False
    return all(d.stat().st_mode & stat.S_IXOTH for d in path.parents if base in d.parents)


def wait_for(predicate, timeout, step=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None


def launch(tmp_path, course, token, runtime_mode=0o700, config=None):
    """Run lab.main in a child process with throwaway Jupyter folders; return the process and its output files."""
    dirs = {name: tmp_path / name for name in ("config", "data", "runtime")}
    for d in dirs.values():
        d.mkdir()
    dirs["runtime"].chmod(runtime_mode)
    if config:
        (dirs["config"] / "jupyter_server_config.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if k.lower() != "no_proxy"}
    env.update(JUPYTER_CONFIG_DIR=str(dirs["config"]), JUPYTER_DATA_DIR=str(dirs["data"]),
               JUPYTER_RUNTIME_DIR=str(dirs["runtime"]), ATTNLIB_LAB_TOKEN=token, PYTHONUNBUFFERED="1",
               http_proxy="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9")  # the token must not go to a proxy
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    # A shell starts background jobs with SIGINT ignored, and Python then keeps it ignored: restore Ctrl-C,
    # as a terminal gives it, or a test run started with `&` could not interrupt the launcher.
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from attnlib.course.lab import main; "
            "sys.exit(main(sys.argv[1], open_browser=False, timeout=45))")
    with open(out, "w") as fout, open(err, "w") as ferr:
        proc = subprocess.Popen([sys.executable, "-c", code, str(course)], env=env, stdout=fout, stderr=ferr,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
    return proc, out, err, dirs


def kill_all(proc, servers):
    for pid in [proc.pid, *servers]:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    proc.wait(10)


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, which only Linux has")


@linux_only
def test_real_server_prints_its_own_url_keeps_the_token_private_and_stops_on_ctrl_c(course, tmp_path, listening):
    token = secrets.token_hex(16)
    # A runtime folder others can read: lab must keep the server's files (they hold the token) elsewhere.
    proc, out, err, dirs = launch(tmp_path, course, token, runtime_mode=0o755)
    servers = []
    try:
        line = wait_for(lambda: proc.poll() is not None or re.search(r"JupyterLab on (\S+)", out.read_text()), 50)
        assert isinstance(line, re.Match), f"no URL printed; stderr:\n{err.read_text()[-3000:]}"
        servers = children(proc.pid)
        assert len(servers) == 1
        server = servers[0]

        # The printed URL is the server's: another port than the busy one, our token, and it answers.
        url = urllib.parse.urlsplit(line.group(1))
        assert url.hostname == "127.0.0.1" and url.port != listening
        assert urllib.parse.parse_qs(url.query)["token"] == [token]

        # The launcher's own probes leave no line in the log that reads like an error ("403 GET /api/status").
        time.sleep(1)  # the server logs a request just after answering it
        logged = err.read_text() + out.read_text()
        assert "/api/status" not in logged and not re.search(r"\b4\d\d (GET|POST) ", logged), logged[-3000:]
        assert fetch(f"http://127.0.0.1:{url.port}/api/status", token)[0] == 200
        assert fetch(f"http://127.0.0.1:{url.port}/api/status")[0] == 403

        # The token is on no command line and in no file another user could read.
        for pid in (server, proc.pid):
            assert token.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
        argv = Path(f"/proc/{server}/cmdline").read_bytes().split(b"\0")
        assert b"--ServerApp.port_retries=0" in argv and b"--ServerApp.ip=127.0.0.1" in argv
        assert "readable by others" in out.read_text()
        for path in [p for d in (*dirs.values(), course) for p in d.rglob("*") if p.is_file()]:
            if token in path.read_text(errors="replace"):
                assert not reachable_by_others(path, tmp_path), path

        # The running lab uses the read-only Extension Manager and no news feed.
        status, page = fetch(f"http://127.0.0.1:{url.port}/lab", token)
        assert status == 200
        config = json.loads(re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', page, re.S).group(1))
        assert config["extensionManager"]["name"] == "read-only"
        assert config["extensionManager"]["can_install"] is False
        assert config["news"]["disabled"] is True

        # Ctrl-C stops the launcher and the server cleanly.
        proc.send_signal(signal.SIGINT)
        assert proc.wait(90) == 0  # a loaded machine can take a while to shut the server down
        assert "Traceback" not in err.read_text()
        assert "stopping JupyterLab" in out.read_text()
        assert not alive(server)
    finally:
        kill_all(proc, servers)


@linux_only
def test_a_jupyter_config_that_turns_the_token_off_stops_the_server(course, tmp_path):
    proc, out, err, _ = launch(tmp_path, course, secrets.token_hex(16), config={"IdentityProvider": {"token": ""}})
    servers = []
    try:
        servers = wait_for(lambda: children(proc.pid), 20) or []
        assert proc.wait(60) == 1
        assert "answers without a token" in err.read_text() and "JupyterLab on" not in out.read_text()
        assert servers and not any(alive(pid) for pid in servers)
    finally:
        kill_all(proc, servers)

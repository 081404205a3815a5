"""Start JupyterLab for the course, safely on a shared machine.

- The server binds 127.0.0.1 only and needs a token.
- The token travels in the server's environment (JUPYTER_TOKEN), never on its command line,
  which every user on the machine can read through /proc/PID/cmdline.
- The port is chosen here and the server may not move to another one (port_retries=0); the URL
  is printed only once the server answers on it with the token, so it is the URL of this server.
- A server that would let anyone in (a Jupyter configuration that turns the token off) is stopped.
  The launcher tells by asking for the login page, never by a request the server refuses: a
  refused request prints a "403" warning in the server's log, which reads like an error.
- Nothing contacts the network: the Extension Manager is read-only, the news feed and the
  update check are off.
"""
import http.client
import importlib.util
import os
import secrets
import shlex
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

HOST = "127.0.0.1"
FIRST_PORT = 8888
START = "notebooks/00_start_here.ipynb"
ROOT_NOTE = "running as root: JupyterLab refuses root without --allow-root; the server still binds 127.0.0.1 only"


def port_in_use(port):
    """True when something already holds `port` on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return True
    return False


def free_port(first=FIRST_PORT, tries=100):
    """The first port from `first` upward that is free on 127.0.0.1."""
    for port in range(first, first + tries):
        if not port_in_use(port):
            return port
    raise RuntimeError(f"no free port on {HOST} between {first} and {first + tries - 1}")


def is_root():
    return hasattr(os, "geteuid") and os.geteuid() == 0


def lab_command(root, port, open_path=START, open_browser=True):
    """The JupyterLab command line. It holds no token."""
    cmd = [sys.executable, "-m", "jupyterlab",
           f"--ServerApp.ip={HOST}", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--ServerApp.root_dir={root}",
           "--LabApp.extension_manager=readonly", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if not open_browser:
        cmd.append("--no-browser")
    if is_root():
        cmd.append("--allow-root")
    if (Path(root) / open_path).exists():
        cmd.append(open_path)
    return cmd


def lab_token():
    """ATTNLIB_LAB_TOKEN when set, else 32 random hex digits."""
    return os.environ.get("ATTNLIB_LAB_TOKEN") or secrets.token_hex(16)


def lab_url(root, port, token, open_path=START):
    page = f"lab/tree/{urllib.parse.quote(open_path)}" if (Path(root) / open_path).exists() else "lab"
    return f"http://{HOST}:{port}/{page}?token={token}"


def status(port, token=None, timeout=2):
    """The HTTP status of /api/status on 127.0.0.1:port, or None when nothing answers.

    The request never goes through a proxy: the token must not leave this machine.
    """
    request = urllib.request.Request(f"http://{HOST}:{port}/api/status")
    if token:
        request.add_header("Authorization", f"token {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def login_status(port, timeout=2):
    """The HTTP status of the login page, GET /login on 127.0.0.1:port with no credentials, or None when nothing
    answers. Redirects are not followed and no proxy is used.

    A server that asks for the token shows the page: 200, which it does not log. One that lets anyone in has no
    login page (404)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", "/login")
        return conn.getresponse().status
    except OSError:
        return None
    finally:
        conn.close()


def runtime_dir_is_private():
    """True when Jupyter's runtime folder (where the server writes files holding the token) is ours alone."""
    from jupyter_core.paths import jupyter_runtime_dir
    path = Path(jupyter_runtime_dir())
    return not path.exists() or stat.S_IMODE(path.stat().st_mode) & 0o077 == 0


def wait_until_ready(proc, port, token, timeout):
    """True once the server answers on `port` with the token; False if it exits or `timeout` s pass first."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if status(port, token) == 200:
            return proc.poll() is None
        time.sleep(0.2)
    return False


def stop(proc, grace=15):
    """Stop the server with SIGTERM (it then shuts its kernels down), or kill it after `grace` seconds."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt the clean-up
    try:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def serve(cmd, root, env, port, token, url, timeout):
    """Run the server until it stops or Ctrl-C; print `url` once it answers there with the token."""
    # Its own session: Ctrl-C reaches only us, and we stop the server with SIGTERM, kernels and all.
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    hangups = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s]
    previous = {s: signal.signal(s, _interrupt) for s in hangups}
    try:
        if not wait_until_ready(proc, port, token, timeout):
            if proc.poll() is None:
                print(f"attnlib lab: JupyterLab did not answer on port {port} within {timeout} s", file=sys.stderr)
                return 1
            print("attnlib lab: JupyterLab stopped before it answered (see its messages above)", file=sys.stderr)
            return proc.returncode or 1
        login = login_status(port)
        if login != 200:  # no login page: the server lets anyone in
            why = ("stopped answering" if login is None else
                   "answers without a token (your Jupyter configuration turns it off)")
            print(f"attnlib lab: this JupyterLab {why}; stopping it", file=sys.stderr)
            return 1
        print(f"\nJupyterLab on {url} (Ctrl-C to stop)\n", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        print("\nstopping JupyterLab", flush=True)
        return 0
    finally:
        stop(proc)
        for s, handler in previous.items():
            signal.signal(s, handler)


def main(root, port=None, dry_run=False, open_path=START, open_browser=True, timeout=120):
    """Start JupyterLab on the course folder `root`; return the exit code."""
    root = Path(root).resolve()
    if not root.is_dir():
        print(f"attnlib lab: no course folder at {root}", file=sys.stderr)
        return 2
    if port is None:
        port = free_port()
    elif port_in_use(port):
        print(f"attnlib lab: port {port} on {HOST} is in use; choose another with --port", file=sys.stderr)
        return 1
    if is_root():
        print(ROOT_NOTE)
    cmd = lab_command(root, port, open_path, open_browser)
    if dry_run:
        print(shlex.join(cmd))
        return 0
    if importlib.util.find_spec("jupyterlab") is None:
        print("attnlib lab: JupyterLab is not installed here; run `make lab` or install jupyterlab", file=sys.stderr)
        return 1
    token = lab_token()
    env = dict(os.environ, JUPYTER_TOKEN=token)
    with tempfile.TemporaryDirectory(prefix="attnlib-lab-") as private:
        if not runtime_dir_is_private():
            print("your Jupyter runtime folder is readable by others: this server keeps its files in a private one")
            env["JUPYTER_RUNTIME_DIR"] = private
        return serve(cmd, root, env, port, token, lab_url(root, port, token, open_path), timeout)

"""Run a learner's function where it cannot hang, crash or tamper with the grader, and compare what it returns.

On POSIX the calls run in a forked child process: it gets copies of the probe's
arrays (and compares them afterwards to detect mutation), captures prints and
warnings, watches which functions run (to spot attnlib's own implementation), and
sends each Outcome back through a pipe. The parent kills the child (SIGKILL) when a
call runs past the time limit, and a child that dies (os._exit, a segfault, out of
memory) becomes a "crashed" Outcome. The child only ever holds the inputs: the
expected values are computed in the parent after it has started.

Where fork is missing (Windows, or ATTNLIB_NO_FORK=1) the calls run on a watchdog
thread of the same process; a call that outlives the time limit is abandoned there
with a "timeout" Outcome. Either way the kernel never dies and no signal is needed.
"""
import contextlib
import copy
import faulthandler
import io
import os
import pathlib
import pickle
import select
import signal
import struct
import sys
import sysconfig
import threading
import time
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - threadpoolctl comes with the course's dependencies
    threadpool_limits = None

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None

MAX_ENTRIES = 10**6        # a returned array larger than this is not sent back, only described
MAX_TEXT = 2000            # characters kept of printed text and error messages
MEMORY = 2**30             # bytes of address space a child may add before allocations fail


@dataclass
class Outcome:
    kind: str                 # "ok", "error", "not-implemented", "timeout", "crashed"
    value: object = None
    error: str = ""           # "ValueError: ..." for errors; how the process died for "crashed"
    where: str = ""           # the learner's line that raised, if found
    printed: str = ""
    warned: list = field(default_factory=list)
    mutated: list = field(default_factory=list)  # names of arguments changed in place
    unusable: str = ""        # set when the value could not be brought back: what it was, e.g. "a generator"
    used: list = field(default_factory=list)     # forbidden functions the call ran (attnlib's own), by name
    tampered: str = ""        # what the call switched off in the grader's watch, if anything


# ----------------------------------------------------------------------------
# one call, wherever it runs

def _library_folders():
    """Folders whose code is never the learner's: attnlib, numpy, the standard library and installed packages."""
    paths = sysconfig.get_paths()
    found = {pathlib.Path(__file__).resolve().parent.parent, pathlib.Path(np.__file__).resolve().parent}
    found |= {pathlib.Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    return tuple(str(f) + os.sep for f in found)


_LIBRARIES = _library_folders()


def _learner_line(tb):
    """The last traceback frame in the learner's own code (a notebook cell, their module), not in attnlib, numpy
    or another library their code called: where their code failed. '' when no frame is theirs."""
    def theirs(filename):
        if filename.startswith(("<frozen ", "<__array_function__")):
            return False
        with contextlib.suppress(OSError, ValueError):
            filename = os.path.realpath(filename) if os.path.isabs(filename) else filename
        return not filename.startswith(_LIBRARIES)
    frames = [f for f in traceback.extract_tb(tb) if theirs(f.filename)]
    if not frames:
        return ""
    f = frames[-1]
    return f"line {f.lineno}: {f.line}" if f.line else f"line {f.lineno}"


def _snapshot(value):
    return copy.deepcopy(value)


def _same_input(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and \
            np.array_equal(a, b, equal_nan=True)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_input(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_input(x, y) for x, y in zip(a, b))
    return a == b


def _short(text):
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"... ({len(text):,} characters)"


def _watch(forbidden):
    """A profile hook recording calls into the forbidden code objects (ids), and the list it fills."""
    used = []

    def hook(frame, event, arg):
        if event == "call" and id(frame.f_code) in forbidden:
            used.append(frame.f_code.co_name)
    return hook, used


def _one(fn, args, kwargs, names, forbidden):
    """Call fn(*args, **kwargs) on copies, here and now; return an Outcome."""
    given = [_snapshot(a) for a in args]
    given_kw = {k: _snapshot(v) for k, v in kwargs.items()}
    saved = [_snapshot(a) for a in args]
    saved_kw = {k: _snapshot(v) for k, v in kwargs.items()}
    out, printed = io.StringIO(), io.StringIO()
    outcome = Outcome("ok")
    hook, used = _watch(forbidden)
    before = sys.getprofile(), threading.getprofile()
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(out):
                threading.setprofile(hook)
                sys.setprofile(hook)
                try:
                    outcome.value = fn(*given, **given_kw)
                finally:
                    if sys.getprofile() is not hook:
                        outcome.tampered = "sys.setprofile"
                    sys.setprofile(before[0])
                    threading.setprofile(before[1])
        except NotImplementedError as exc:
            outcome = Outcome("not-implemented", error=_short(f"NotImplementedError: {exc}"))
        except BaseException as exc:  # noqa: BLE001 - learner code may raise anything, even SystemExit
            outcome = Outcome("error", error=_short(f"{type(exc).__name__}: {_text(exc)}"),
                              where=_learner_line(exc.__traceback__))
    outcome.used = sorted(set(used))
    outcome.printed = _short(printed.getvalue() + out.getvalue())
    outcome.warned = sorted({_short(str(w.message)) for w in caught})
    outcome.mutated = [n for n, a, b in zip(names, saved, given) if not _same_input(a, b)]
    outcome.mutated += [k for k in saved_kw if not _same_input(saved_kw[k], given_kw[k])]
    return outcome


def _text(exc):
    try:
        return str(exc)
    except BaseException:  # noqa: BLE001 - a learner's exception may fail to print itself
        return "(its message could not be shown)"


def _run_all(fn, calls, forbidden, send):
    """Run every call in order, handing each Outcome to send(); stop after a not-implemented first call."""
    for args, kwargs, names in calls:
        outcome = _one(fn, args, kwargs, names, forbidden)
        send(outcome)
        if outcome.kind == "not-implemented":
            return


# ----------------------------------------------------------------------------
# bringing values back: only plain numbers, strings and numeric arrays cross the pipe

_SAFE_KINDS = "biufcSU"


def kind(x):
    """How a value is described in a message: 'an array of shape (2, 3) and dtype float64', 'a list', 'None'."""
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    return "None" if x is None else f"a {type(x).__name__}"


class _Unusable(Exception):
    """A returned value that cannot (or should not) be sent back; its message says what it was."""


def _portable(x, depth=0):
    """x made of plain Python and numpy values only, or _Unusable naming what it was."""
    if x is None or type(x) in (bool, int, float, complex):
        return x
    if type(x) is str:
        return _short(x)
    if isinstance(x, np.generic) and x.dtype.kind in _SAFE_KINDS:
        return x
    if isinstance(x, np.ndarray):
        if x.size > MAX_ENTRIES:
            raise _Unusable(f"an array of shape {x.shape} ({x.size:,} entries), far too large")
        if x.dtype.kind in _SAFE_KINDS:
            return np.array(x)  # a plain ndarray (not a subclass) that owns its data
        if x.dtype.kind == "O" and depth == 0 and x.size <= 10**4:
            out = np.empty(x.shape, dtype=object)
            for i, v in enumerate(x.flat):
                out.flat[i] = _portable(v, 1)
            return out
        raise _Unusable(kind(x))
    if type(x) in (tuple, list) and depth < 3 and len(x) <= 100:
        return type(x)(_portable(v, depth + 1) for v in x)
    raise _Unusable(kind(x))


def _checked(outcome):
    """The outcome with its value made portable, or replaced by a description (Outcome.unusable)."""
    try:
        outcome.value = _portable(outcome.value)
    except _Unusable as exc:
        outcome.value, outcome.unusable = None, str(exc)
    return outcome


def _message(outcome):
    return pickle.dumps(dict(vars(_checked(outcome))), protocol=pickle.HIGHEST_PROTOCOL)


_SAFE_GLOBALS = {("numpy", "dtype"), ("numpy", "ndarray"), ("builtins", "complex")} | {
    (f"numpy.{core}.{module}", name) for core in ("core", "_core")
    for module, name in (("numeric", "_frombuffer"), ("multiarray", "_reconstruct"), ("multiarray", "scalar"))}


class _SafeUnpickler(pickle.Unpickler):
    """Unpickles the child's messages, refusing anything but numpy arrays and scalars: no code runs."""

    def find_class(self, module, name):
        if (module, name) not in _SAFE_GLOBALS:
            raise pickle.UnpicklingError(f"refused {module}.{name}")
        return super().find_class(module, name)


def _outcome(data):
    try:
        return Outcome(**_SafeUnpickler(io.BytesIO(data)).load())
    except Exception as exc:  # noqa: BLE001 - whatever the child sent, the grader goes on
        return Outcome("error", error=f"the result could not be read back ({type(exc).__name__})")


# ----------------------------------------------------------------------------
# in a forked child (POSIX)

_HEADER = struct.Struct("!Q")


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _child(fn, calls, forbidden, fd):
    """In the child: no Ctrl-C, no terminal output, one BLAS thread, bounded memory; then run and report."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.disable()  # a crash in the learner's code is reported as "crashed", not dumped on the terminal
    null = os.open(os.devnull, os.O_RDWR)
    for std in (0, 1, 2):
        os.dup2(null, std)
    if resource is not None and os.path.exists("/proc/self/statm"):
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = size + MEMORY if hard == resource.RLIM_INFINITY else min(size + MEMORY, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    limits = threadpool_limits(1) if threadpool_limits is not None else contextlib.nullcontext()
    with limits:
        _run_all(fn, calls, forbidden, lambda o: _write_all(fd, _HEADER.pack(len(m := _message(o))) + m))


def _died(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals.__members__.values() else str(sig)
        extra = " (often: out of memory)" if sig == signal.SIGKILL else ""
        return f"the process running your function was killed by {name}{extra}"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return f"the process running your function exited with status {code} (os._exit?) before returning"


def _kill(pid):
    """SIGKILL the child and whatever it started (its own process group), then reap it."""
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        with contextlib.suppress(OSError):
            kill(target, signal.SIGKILL)
    os.waitpid(pid, 0)


def _in_child(fn, calls, time_limit, forbidden):
    r, w = os.pipe()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12+ warns when forking with threads
            pid = os.fork()
    except OSError:  # no process to spare: run on a thread instead
        os.close(r)
        os.close(w)
        return _on_thread(fn, calls, time_limit, forbidden)
    if pid == 0:  # the child never returns into the grader
        status = 0
        try:
            os.close(r)
            os.setpgid(0, 0)
            _child(fn, calls, forbidden, w)
        except BaseException:  # noqa: BLE001 - whatever happens, leave through os._exit
            status = 70
        finally:
            os._exit(status)
    os.close(w)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    outcomes, buf, reaped = [], bytearray(), False
    try:
        deadline = time.monotonic() + time_limit if time_limit else None
        while len(outcomes) < len(calls):
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([r], [], [], wait)[0]:
                outcomes.append(Outcome("timeout"))
                break
            chunk = os.read(r, 1 << 20)
            if not chunk:  # the child is gone before sending every outcome
                status, reaped = os.waitpid(pid, 0)[1], True
                outcomes.append(Outcome("crashed", error=_died(status)))
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)  # anything it left behind
                break
            buf += chunk
            while len(buf) >= _HEADER.size and len(buf) >= _HEADER.size + _HEADER.unpack_from(buf)[0]:
                n = _HEADER.unpack_from(buf)[0]
                outcomes.append(_outcome(bytes(buf[_HEADER.size:_HEADER.size + n])))
                del buf[:_HEADER.size + n]
                deadline = time.monotonic() + time_limit if time_limit else None
            if outcomes and outcomes[-1].kind == "not-implemented":
                break
    finally:  # done, timed out or interrupted: the child goes, whatever it is doing
        os.close(r)
        if not reaped:
            _kill(pid)
    return outcomes


# ----------------------------------------------------------------------------
# on a watchdog thread (no fork)

def _on_thread(fn, calls, time_limit, forbidden):
    outcomes = []
    done = threading.Event()
    stdout, stderr = sys.stdout, sys.stderr

    def run():
        try:
            _run_all(fn, calls, forbidden, lambda o: outcomes.append(_checked(o)))
        finally:
            done.set()

    with warnings.catch_warnings():
        worker = threading.Thread(target=run, name="attnlib-check", daemon=True)
        worker.start()
        while not done.is_set():
            before = len(outcomes)
            if not done.wait(time_limit or None) and len(outcomes) == before:
                outcomes = outcomes[:before] + [Outcome("timeout")]  # abandoned: it runs on, unheard
                break
    sys.stdout, sys.stderr = stdout, stderr
    return list(outcomes)


# ----------------------------------------------------------------------------
# the entry points

def can_fork():
    return hasattr(os, "fork") and os.environ.get("ATTNLIB_NO_FORK", "").strip().lower() not in ("1", "true", "yes")


def call_many(fn, calls, time_limit, forbidden=frozenset()):
    """Run fn on each (args, kwargs, names) in `calls`, each under `time_limit` seconds (None: no limit).

    Returns one Outcome per call, in order; the list stops early after a call that timed out, crashed
    or was not implemented. `forbidden` holds ids of code objects the calls must not run (Outcome.used).
    """
    runner = _in_child if can_fork() else _on_thread
    return runner(fn, list(calls), time_limit, frozenset(forbidden))


def call(fn, args, kwargs, names, time_limit, forbidden=frozenset()):
    """Call fn(*args, **kwargs) once, isolated as call_many does; return its Outcome."""
    return call_many(fn, [(args, kwargs, names)], time_limit, forbidden)[0]


def attempt(fn, *args, **kwargs):
    """Run one of the grader's own (possibly wrong) variants on copies of the arguments, without warnings:
    (its value, None), or (None, "ExceptionName: its message"), as an Outcome's error reads."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*[_snapshot(a) for a in args], **{k: _snapshot(v) for k, v in kwargs.items()}), None
        except Exception as exc:  # noqa: BLE001 - a wrong variant may not apply to this probe's shapes
            return None, _short(f"{type(exc).__name__}: {_text(exc)}")


def quiet(fn, *args, **kwargs):
    """Run one of the grader's own (possibly wrong) variants: its value, or None if it raises."""
    return attempt(fn, *args, **kwargs)[0]


# ----------------------------------------------------------------------------
# comparison, with numpy's functions captured at import so that patching numpy cannot change a verdict

RTOL, ATOL = 1e-5, 1e-5  # ATOL is relative to the largest expected entry: float32 arithmetic passes, mistakes fail
FRESH_TOL = 1e-3  # for the fresh random probes, which only guard against memorised outputs (see grade.py)
_ndarray, _generic, _integer, _asarray, _errstate = np.ndarray, np.generic, np.integer, np.asarray, np.errstate
_abs, _isfinite, _isnan, _str_, _bool_ = np.abs, np.isfinite, np.isnan, np.str_, np.bool_


def is_number_array(x):
    """A numeric numpy array or scalar, or a Python int or float (a scalar answer may be either); never a bool."""
    if isinstance(x, bool):
        return False
    return isinstance(x, (int, float)) or (isinstance(x, (_ndarray, _generic)) and _asarray(x).dtype.kind in "fiu")


def words(x):
    """x as a list of str when it is a sequence of words (list, tuple or 1-D array of strings), else None."""
    if isinstance(x, _ndarray):
        return [str(w) for w in x] if x.ndim == 1 and x.dtype.kind in "US" else None
    if isinstance(x, (list, tuple)) and all(isinstance(w, (str, _str_)) for w in x):
        return [str(w) for w in x]
    return None


def close(got, expected, tol=None):
    """True when got matches expected: same structure and shape, values within tolerance (NaN == NaN).
    An expected list of words needs the same words in the same order (a list, tuple or array of strings).
    `tol` replaces both RTOL and ATOL."""
    if isinstance(expected, list) and words(expected) is not None:
        return words(got) is not None and words(got) == words(expected)
    if isinstance(expected, list):  # a list of numbers, as a wrong variant may return: compared as an array
        return isinstance(got, (list, tuple, _ndarray)) and close(_asarray(got), _asarray(expected), tol)
    if isinstance(expected, tuple):
        return isinstance(got, (tuple, list)) and len(got) == len(expected) and \
            all(close(g, e, tol) for g, e in zip(got, expected))
    if isinstance(expected, bool):  # a yes-or-no, as a wrong variant may return
        return isinstance(got, (bool, _bool_)) and bool(got) == expected
    if isinstance(expected, (int, _integer)) and not isinstance(expected, bool):
        return isinstance(got, (int, _integer)) and not isinstance(got, bool) and int(got) == int(expected)
    if isinstance(expected, _ndarray) and expected.dtype.kind == "b":  # a mask, as a wrong variant may return
        return isinstance(got, _ndarray) and got.dtype.kind == "b" and got.shape == expected.shape and \
            bool((got == expected).all())
    if got is None or not is_number_array(got):
        return False
    if isinstance(expected, _ndarray) and expected.dtype.kind in "iu" and _asarray(got).dtype.kind not in "iu":
        return False  # token ids and counts are integers: 3.0 is not an id
    got, expected = _asarray(got, dtype=float), _asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return False
    rtol, atol = (RTOL, ATOL) if tol is None else (tol, tol)
    finite = expected[_isfinite(expected)]
    atol = atol * max(1.0, float(_abs(finite).max()) if finite.size else 1.0)
    with _errstate(all="ignore"):
        near = _isfinite(got) & _isfinite(expected) & (_abs(got - expected) <= atol + rtol * _abs(expected))
        return bool((near | (got == expected) | (_isnan(got) & _isnan(expected))).all())  # ±inf only equal

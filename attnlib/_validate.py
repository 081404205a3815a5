"""Input checks shared by attnlib, and the one policy they apply.

Every public function, constructor and method either returns the right answer or
raises a ValueError whose message names the argument at fault (and its shape):

- Containers. Arrays are real float arrays (token ids: integer arrays); lists are
  converted. None, strings, objects, bools and complex numbers are refused, and so
  are numpy masked arrays, whose hidden entries numpy would silently use.
- Shapes. Ranks and the sizes two arguments share are checked before any maths,
  so a mismatch never becomes a numpy broadcasting accident.
- NaN has no answer and is refused. So is inf, except where the maths gives it one:
  -inf among softmax scores is the mask (a row that is -inf everywhere is refused:
  it has nothing to attend to), and gelu(-inf) = 0, gelu(inf) = inf.
- Overflow. Finite inputs so large that a product (Q @ K.T, X @ W) or a variance
  overflows the dtype raise a ValueError naming the inputs and asking to scale them
  down: never a NaN or inf result, never a RuntimeWarning.
- Flags (causal, scale, ...) are bool or np.bool_; the string 'False' is refused.
- Counts and sizes are ints (not bools, not floats) in range; a result larger than
  MAX_BYTES is refused, naming the size argument, before numpy tries to allocate it.
- Settings (eps, lr, init_std, ...) are finite real numbers in range; numpy scalars
  are accepted like Python ones.
- Inputs are never modified.

Each helper below is one check; a public function calls a few of them and then
reads as its equation.
"""
import functools
import inspect
import numbers

import numpy as np

MAX_BYTES = 2**31  # refuse to allocate any single result larger than this


def _refuse_masked(name, a):
    if isinstance(a, np.ma.MaskedArray):
        raise ValueError(f"{name} is a numpy masked array; its masked entries would be used as they are. "
                         f"Pass {name}.filled(value) or a plain array")


def as_float_array(name, a, ndim, what="", allow=None, allow_empty=False):
    """Return `a` as a real float array with `ndim` dimensions, or raise ValueError.

    ndim: an int, or None for any rank. `what` describes the expected shape, e.g.
    "(n, d_model)". allow: None (every entry finite), "-inf" (the mask) or "inf"
    (both infinities); NaN is always refused.
    """
    _refuse_masked(name, a)
    arr = np.asarray(a)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.floating):
        raise ValueError(
            f"{name} must be a float array {what}, got dtype {arr.dtype}; "
            f"convert it with np.asarray({name}, dtype=float)"
        )
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array {what}, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty (shape {arr.shape}); it needs at least one row and column")
    if np.isfinite(arr).all():  # the common case: one pass
        return arr
    bad = np.isnan(arr)
    if allow != "inf":
        bad |= np.isposinf(arr) if allow == "-inf" else np.isinf(arr)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        kind = "NaN" if allow == "inf" else ("NaN or +inf" if allow == "-inf" else "NaN or inf")
        raise ValueError(f"{name} contains {kind} (first at index {where})")
    return arr


def as_int_array(name, a, what=""):
    """Return `a` as an integer array (ids), or raise ValueError. Bools are refused."""
    _refuse_masked(name, a)
    arr = np.asarray(a)
    if isinstance(a, (list, tuple)) and arr.size == 0:
        arr = arr.astype(np.int64)  # [] holds no ids, not floats
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array {what} of token ids, got dtype {arr.dtype}")
    return arr


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def positive_int(name, value):
    """Return `value` as a Python int >= 1, or raise ValueError."""
    if not _is_int(value):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def non_negative_int(name, value):
    """Return `value` as a Python int >= 0, or raise ValueError."""
    if not _is_int(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def finite_float(name, value, low=None, high=None, low_open=False, high_open=False):
    """Return `value` as a Python float in the given range (bounds inclusive unless *_open), or raise."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    value = float(value)
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        bounds = [f"{'>' if low_open else '>='} {low}"] if low is not None else []
        bounds += [f"{'<' if high_open else '<='} {high}"] if high is not None else []
        raise ValueError(f"{name} must be {' and '.join(bounds)}, got {value!r}")
    return value


def finite_positive_float(name, value):
    """Return `value` as a Python float > 0 and finite, or raise ValueError."""
    return finite_float(name, value, low=0.0, low_open=True)


def boolean(name, value):
    """Return `value` as a Python bool; only bool and np.bool_ are accepted."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def axis_index(name, axis, ndim):
    """Return `axis` as an int in [-ndim, ndim), or raise ValueError."""
    if not _is_int(axis):
        raise ValueError(f"{name} must be an integer axis, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}={axis} is out of range for an array with {ndim} dimensions")
    return int(axis)


def float_dtype(name, dtype):
    """Return np.dtype(dtype) if it is float32 or float64, or raise ValueError."""
    try:
        dt = None if dtype is None else np.dtype(dtype)  # np.dtype(None) would be float64
    except TypeError:
        dt = None
    if dt is None or dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"{name} must be np.float32 or np.float64, got {dtype!r}")
    return dt


def check_size(name, shape, dtype=np.float64):
    """Raise if an array of `shape` would exceed MAX_BYTES; `name` is the argument that sets the size."""
    size = int(np.prod([int(s) for s in shape], dtype=object)) * np.dtype(dtype).itemsize
    if size > MAX_BYTES:
        raise ValueError(f"{name} is too large: the result {tuple(shape)} would need {size / 2**30:.1f} GiB "
                         f"(the limit is {MAX_BYTES / 2**30:.0f} GiB)")


def check_inner(left_name, left_shape, right_name, right_shape):
    """Raise if a matmul `left @ right` has mismatched inner sizes."""
    if left_shape[-1] != right_shape[0]:
        raise ValueError(
            f"{right_name} expects {right_shape[0]} input features, "
            f"{left_name} rows have {left_shape[-1]} "
            f"({left_name} {left_shape} @ {right_name} {right_shape})"
        )


def overflow_error(expr, dtype=None, **inputs):
    """A ValueError saying `expr` overflowed (`dtype`), with the largest entry of each input and a hint."""
    sizes = ", ".join(f"largest |{k}| = {float(np.max(np.abs(v))):.3g}" for k, v in inputs.items())
    names = list(inputs)
    names = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    where = f" {np.dtype(dtype).name}" if dtype is not None else ""
    return ValueError(f"{expr} overflows{where} ({sizes}); scale {names} down")


def check_finite_product(R, expr, **inputs):
    """Return R if every entry is finite; else raise ValueError naming `expr` and the `inputs`.

    Call it on the result of maths run under np.errstate(over="ignore", invalid="ignore"):
    finite inputs give a non-finite result only when an intermediate overflowed.
    """
    if np.isfinite(R).all():
        return R
    raise overflow_error(expr, np.asarray(R).dtype, **inputs)


# ----------------------------------------------------------------------------
# declared contracts: @contract(...) states a public function's input once, beside it

PUBLIC = {}  # every public name, in the order its module is imported: attnlib.__all__ is built from it


class Array:
    """An argument that is a real float array.

    Array("n", "d") names its axes: an axis name shared by two arguments must have the same
    size in both, and a mismatch names both arguments and their shapes. An axis named None
    is only counted (a relation checks it); Array() takes any rank.
    allow: None (all finite), "-inf" (the mask) or "inf" (both infinities); NaN is always refused.
    """

    def __init__(self, *dims, allow=None, empty=False, optional=False, what=None):
        self.dims, self.allow, self.empty, self.optional = dims, allow, empty, optional
        self.what = what or (f"({', '.join(map(str, dims))}{',' if len(dims) == 1 else ''})" if dims else "(any shape)")

    def __call__(self, name, value):
        if value is None and self.optional:
            return None
        return as_float_array(name, value, len(self.dims) if self.dims else None, self.what, self.allow, self.empty)


def _mismatch(dim, first, second):
    """The message for axis `dim` of two arguments, each (name, axis, shape), whose sizes differ."""
    (a, i, sa), (b, j, sb) = first, second
    if i == len(sa) - 1 and j == 0 and len(sb) == 2:  # the inner size of a @ b
        return f"{b} expects {sb[0]} input features, {a} rows have {sa[-1]} ({a} {sa} @ {b} {sb})"
    if i == 0 and j == 0 and len(sa) == len(sb) == 2:
        return f"{a} has {sa[0]} rows but {b} has {sb[0]} ({a} {sa}, {b} {sb})"
    return f"{a} has {dim}={sa[i]} but {b} has {dim}={sb[j]} ({a} {sa}, {b} {sb})"


def match_dims(specs, args):
    """Raise if two Array arguments give one named axis two sizes; return {axis name: size}."""
    sizes = {}
    for name, spec in specs.items():
        if not isinstance(spec, Array) or args[name] is None:
            continue
        shape = args[name].shape
        for axis, dim in enumerate(spec.dims):
            if dim is None:  # an axis checked by a relation instead
                continue
            if dim in sizes and sizes[dim][0] != shape[axis]:
                raise ValueError(_mismatch(dim, sizes[dim][1], (name, axis, shape)))
            sizes.setdefault(dim, (shape[axis], (name, axis, shape)))
    return {dim: size for dim, (size, _) in sizes.items()}


def contract(*relations, finite="", public=True, **specs):
    """Declare a function's input: each keyword names an argument and its check; the body reads as its equation.

    A check is Array(...) or any callable (name, value) -> value (positive_int, boolean, ...).
    relations: callables (args, dims) run after every argument is checked, for rules between
    arguments (n_q <= n_k, n_heads divides the width); args is the dict of checked arguments
    and a relation may replace an entry. The body runs with every argument checked and
    converted, under np.errstate(over, invalid, divide = "ignore"). finite: an expression
    naming the result; if it is not finite (finite inputs overflowed somewhere), a ValueError
    names it and the arrays given. finite may also be a callable (args, result) that raises
    a more precise error; finite=None leaves the result unchecked.
    """
    def decorate(fn):
        signature = inspect.signature(fn)
        unknown = set(specs) - set(signature.parameters)
        assert not unknown, f"{fn.__name__}: no parameters {unknown}"

        @functools.wraps(fn)
        def checked(*given, **kwgiven):
            bound = signature.bind(*given, **kwgiven)
            bound.apply_defaults()
            args = bound.arguments
            for name, check in specs.items():
                args[name] = check(name, args[name])
            dims = match_dims(specs, args)
            for relation in relations:
                relation(args, dims)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                result = fn(**args)
            if finite is None:
                return result
            if callable(finite):
                with np.errstate(over="ignore", invalid="ignore"):
                    finite(args, result)
                return result
            arrays = {n: args[n] for n, s in specs.items() if isinstance(s, Array) and args[n] is not None}
            for R in result if isinstance(result, tuple) else (result,):
                check_finite_product(R, finite or fn.__name__, **arrays)
            return result

        checked.contract = specs
        if public:
            PUBLIC[fn.__name__] = checked
        return checked
    return decorate


def public(obj):
    """Mark a class (or a function with its own checks) as a public name of attnlib."""
    PUBLIC[obj.__name__] = obj
    return obj

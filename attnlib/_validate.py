"""Input checks shared by the maths modules.

Every public function turns a learner's mistake into a ValueError that names the
argument and its shape, instead of a numpy broadcasting accident or a silent NaN.
"""
import numpy as np


def as_float_array(name, a, ndim, what):
    """Return `a` as a float array with `ndim` dimensions, or raise ValueError.

    `what` describes the expected shape in words, e.g. "(n, d_model)".
    """
    arr = np.asarray(a)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.floating):
        raise ValueError(
            f"{name} must be a float array {what}, got dtype {arr.dtype}; "
            f"convert it with np.asarray({name}, dtype=float)"
        )
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array {what}, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); it needs at least one row and column")
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {bad})")
    return arr


def as_positive_int(name, value):
    """Return `value` as a Python int >= 1, or raise ValueError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def check_inner(left_name, left_shape, right_name, right_shape):
    """Raise if a matmul `left @ right` has mismatched inner sizes."""
    if left_shape[-1] != right_shape[0]:
        raise ValueError(
            f"{right_name} expects {right_shape[0]} input features, "
            f"{left_name} rows have {left_shape[-1]} "
            f"({left_name} {left_shape} @ {right_name} {right_shape})"
        )

"""Adam with decoupled weight decay (AdamW) and global-norm gradient clipping.

Adam keeps, per parameter, running means of the gradient (m) and of its square
(v), and steps by m / (sqrt(v) + eps): every coordinate moves at about the same
speed, whatever its gradient scale. Weight decay shrinks the weight matrices
directly (decoupled from the gradient), as in AdamW.
"""
import math

import numpy as np

from ._validate import as_float_array, finite_float, finite_positive_float, public


def clip_grad_norm(grads, max_norm):
    """Scale every gradient in place so their global L2 norm is at most max_norm; return the norm before."""
    with np.errstate(over="ignore", invalid="ignore"):
        norm = math.sqrt(sum(float(np.vdot(g, g)) for g in grads.values()))
    if not math.isfinite(norm):
        raise ValueError("grads have a global norm too large for float64 (or NaN); scale the loss down")
    if max_norm is not None:
        max_norm = finite_positive_float("max_norm", max_norm)
    if max_norm is not None and norm > max_norm:
        for g in grads.values():
            g *= max_norm / norm
    return norm


@public
class Adam:
    """AdamW over a dict of arrays, updated in place by step(grads).

    Weight decay applies to the 2-D parameters (matrices and embeddings) only,
    not to layer-norm gains or biases.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, clip=1.0):
        if not isinstance(params, dict) or not params:
            raise ValueError(f"params must be a non-empty dict of arrays, got {type(params).__name__}")
        for k, p in params.items():
            if not isinstance(p, np.ndarray) or isinstance(p, np.ma.MaskedArray):
                raise ValueError(f"params[{k!r}] must be a numpy array updated in place, got {type(p).__name__}")
            as_float_array(f"params[{k!r}]", p, None, "of floats", allow_empty=True)
        self.params = params
        self.lr = finite_positive_float("lr", lr)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        self.betas = tuple(finite_float(f"betas[{i}]", b, low=0.0, high=1.0, high_open=True)
                           for i, b in enumerate(betas))
        self.eps = finite_positive_float("eps", eps)
        self.weight_decay = finite_float("weight_decay", weight_decay, low=0.0)
        self.clip = None if clip is None else finite_positive_float("clip", clip)
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def _check_grads(self, grads):
        """Return grads as a dict of float arrays with exactly the parameters' shapes, all finite."""
        if not isinstance(grads, dict):
            raise ValueError(f"grads must be a dict keyed like params, got {type(grads).__name__}")
        missing = set(self.params) - set(grads)
        if missing:
            raise ValueError(f"grads is missing keys: {', '.join(sorted(missing))}")
        checked = {}
        for k, p in self.params.items():
            g = as_float_array(f"grads[{k!r}]", grads[k], p.ndim, f"{p.shape}", allow_empty=True)
            if g.shape != p.shape:
                raise ValueError(f"grads[{k!r}] must have the shape of params[{k!r}] {p.shape}, got {g.shape}")
            if g.size and float(np.max(np.abs(g))) > math.sqrt(np.finfo(p.dtype).max) / g.size:
                raise ValueError(f"grads[{k!r}] has entries up to {float(np.max(np.abs(g))):.3g}: their squares "
                                 f"overflow {p.dtype}; scale the loss down")
            checked[k] = np.array(g, dtype=p.dtype)  # a copy: clipping scales it in place
        return checked

    def step(self, grads, lr=None):
        """Clip, then one AdamW update of every parameter in place. Returns the gradient norm before clipping."""
        grads = self._check_grads(grads)
        lr = self.lr if lr is None else finite_positive_float("lr", lr)
        if lr * self.weight_decay >= 1:
            raise ValueError(f"lr * weight_decay must be < 1 (each step shrinks the weights by that fraction), "
                             f"got lr={lr} and weight_decay={self.weight_decay}")
        norm = clip_grad_norm(grads, self.clip)
        b1, b2 = self.betas
        self.t += 1
        step_size = lr * math.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)  # bias corrections folded in
        eps = self.eps * math.sqrt(1 - b2 ** self.t)
        for k, p in self.params.items():
            g, m, v = grads[k], self.m[k], self.v[k]
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * (g * g)
            if self.weight_decay and p.ndim == 2:
                p *= 1 - lr * self.weight_decay
            with np.errstate(over="ignore", invalid="ignore"):
                update = step_size * m / (np.sqrt(v) + eps)
            if not np.isfinite(update).all():
                raise ValueError(f"the update of params[{k!r}] overflows {p.dtype}; lower lr (lr={lr}) or raise eps")
            p -= update
        return norm

"""Adam with decoupled weight decay (AdamW) and global-norm gradient clipping.

Adam keeps, per parameter, running means of the gradient (m) and of its square
(v), and steps by m / (sqrt(v) + eps): every coordinate moves at about the same
speed, whatever its gradient scale. Weight decay shrinks the weight matrices
directly (decoupled from the gradient), as in AdamW.
"""
import math

import numpy as np


def clip_grad_norm(grads, max_norm):
    """Scale every gradient in place so their global L2 norm is at most max_norm; return the norm before."""
    norm = math.sqrt(sum(float(np.vdot(g, g)) for g in grads.values()))
    if max_norm is not None and norm > max_norm:
        for g in grads.values():
            g *= max_norm / norm
    return norm


class Adam:
    """AdamW over a dict of arrays, updated in place by step(grads).

    Weight decay applies to the 2-D parameters (matrices and embeddings) only,
    not to layer-norm gains or biases.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, clip=1.0):
        if not isinstance(params, dict) or not params:
            raise ValueError(f"params must be a non-empty dict of arrays, got {type(params).__name__}")
        if not lr > 0:
            raise ValueError(f"lr must be > 0, got {lr!r}")
        self.params = params
        self.lr, self.betas, self.eps = lr, betas, eps
        self.weight_decay, self.clip = weight_decay, clip
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads, lr=None):
        """Clip, then one AdamW update of every parameter in place. Returns the gradient norm before clipping."""
        missing = set(self.params) - set(grads)
        if missing:
            raise ValueError(f"grads is missing keys: {', '.join(sorted(missing))}")
        norm = clip_grad_norm(grads, self.clip)
        lr = self.lr if lr is None else lr
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
            p -= step_size * m / (np.sqrt(v) + eps)
        return norm

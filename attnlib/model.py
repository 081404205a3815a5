"""Notebooks 08 and 11-14: TinyLM, a tiny causal transformer in numpy.

    X = tok_emb[tokens] + pos_emb[:T]          one row per token
    X = block_i(X) for each layer i             attention, then the MLP
    logits = layer_norm(X) @ W_out             one score per vocabulary word

`loss_and_grads` runs the forward pass keeping caches, then the backward passes
of attnlib.backprop in reverse order. `generate` keeps a KV cache: per layer, the
keys and values of every token so far, so a new token costs one query row.
"""
import math

import numpy as np

from ._validate import (as_float_array, as_int_array, boolean, check_size, finite_float,
                        finite_positive_float, float_dtype, non_negative_int, positive_int)
from .attention import merge_heads, split_heads
from .backprop import (attention_forward, block_backward, block_forward, cross_entropy_backward, cross_entropy_forward,
                       embed_backward, embed_forward, head_backward, head_forward, layer_norm_forward, mlp_forward)
from .layers import BLOCK_KEYS
from .mixing import exp_and_sum
from . import ops as ops_path


class KVCache:
    """Keys and values of the tokens seen so far, for every layer.

    K and V are preallocated (n_layers, n_heads, max_len, d_head); only the first
    `length` positions are filled. `keys(i)` and `values(i)` are the filled part
    of layer i, (n_heads, length, d_head): it grows by one row per new token.
    """

    def __init__(self, n_layers, n_heads, d_head, max_len, dtype=np.float64):
        shape = tuple(positive_int(name, value) for name, value in (
            ("n_layers", n_layers), ("n_heads", n_heads), ("max_len", max_len), ("d_head", d_head)))
        dtype = float_dtype("dtype", dtype)
        check_size("n_layers * n_heads * max_len * d_head", shape, dtype)
        self.K = np.zeros(shape, dtype=dtype)  # (n_layers, n_heads, max_len, d_head)
        self.V = np.zeros(shape, dtype=dtype)
        self.length = 0
        self.owner = None  # the model whose keys and values fill it, set by its first step

    def _layer(self, layer):
        layer = non_negative_int("layer", layer)
        if layer >= self.K.shape[0]:
            raise ValueError(f"layer must be in [0, {self.K.shape[0]}), got {layer}")
        return layer

    def keys(self, layer):
        return self.K[self._layer(layer), :, :self.length]  # (n_heads, length, d_head)

    def values(self, layer):
        return self.V[self._layer(layer), :, :self.length]  # (n_heads, length, d_head)


MAX_INIT_STD = 1000.0  # the largest init_std TinyLM accepts (see its docstring)


class TinyLM:
    """A GPT-style language model: embeddings, n_layers pre-LN blocks, final LN, output head.

    TinyLM(vocab_size, d_model, n_heads, n_layers, max_len, seed=0, dtype=np.float64)

    Extra keyword arguments, for the course's experiments:
      init_std=0.02    std of the normal init of every weight matrix and embedding
                       (GPT-2); the residual projections Wo and W2 get
                       init_std / sqrt(2 n_layers). Try 1.0 for a badly scaled init.
                       At most MAX_INIT_STD (1000): far larger weights overflow.
      attn_scale=True  divide the scores by sqrt(d_head); False trains without it.
      causal=True      False builds a bidirectional model: every token sees the
                       whole sequence (no KV-cache generation then).
      d_ff=None        MLP width, 4 * d_model by default.
      ops=None         a dict mapping exercise names (attnlib.ops.OPS: softmax, attention,
                       layer_norm, gelu, transformer_block, next_token_logits, cross_entropy,
                       attention_backward, layer_norm_backward, cache_step, ...) to your own
                       functions with the exercise signatures: the model then runs through
                       them, one sequence at a time, and attnlib's fill in the rest.

    `.params` is a flat dict: tok_emb (vocab, d_model), pos_emb (max_len, d_model),
    blocks.{i}.{key} for key in BLOCK_KEYS, ln_f_g, ln_f_b (d_model,), W_out (d_model, vocab).
    """

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, seed=0, dtype=np.float64,
                 init_std=0.02, attn_scale=True, causal=True, d_ff=None, ops=None):
        self.vocab_size = positive_int("vocab_size", vocab_size)
        self.d_model = positive_int("d_model", d_model)
        self.n_heads = positive_int("n_heads", n_heads)
        self.n_layers = positive_int("n_layers", n_layers)
        self.max_len = positive_int("max_len", max_len)
        self.d_ff = 4 * self.d_model if d_ff is None else positive_int("d_ff", d_ff)
        if d_model % n_heads:
            raise ValueError(f"n_heads={n_heads} does not divide d_model={d_model}")
        self.d_head = d_model // n_heads
        self.dtype = float_dtype("dtype", dtype)
        self.init_std = finite_positive_float("init_std", init_std)
        if self.init_std > MAX_INIT_STD:
            raise ValueError(f"init_std must be <= {MAX_INIT_STD:g}, got {init_std!r}: it is the standard deviation of "
                             "the initial weights (GPT-2 uses 0.02, and 1.0 is already a badly scaled init); far "
                             "larger values make weights whose products overflow")
        self.attn_scale = boolean("attn_scale", attn_scale)
        self.causal = boolean("causal", causal)
        seed = non_negative_int("seed", seed)
        self.ops = None if ops is None else ops_path.check_ops(ops)
        if self.ops and not self.attn_scale and {"multi_head_attention", "transformer_block"} & set(self.ops):
            raise ValueError("ops multi_head_attention and transformer_block always scale the scores; "
                             "they cannot run a model with attn_scale=False")
        n_values = sum(math.prod(shape) for shape in self.param_shapes().values())
        check_size("vocab_size, d_model, n_layers, max_len or d_ff", (n_values,), self.dtype)
        self.params = self._init_params(seed)

    def param_shapes(self):
        """The key and shape of every parameter, in the order of .params."""
        d, f = self.d_model, self.d_ff
        block = {"ln1_g": (d,), "ln1_b": (d,), "Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d),
                 "ln2_g": (d,), "ln2_b": (d,), "W1": (d, f), "b1": (f,), "W2": (f, d), "b2": (d,)}
        shapes = {"tok_emb": (self.vocab_size, d), "pos_emb": (self.max_len, d)}
        for i in range(self.n_layers):
            shapes.update({f"blocks.{i}.{key}": block[key] for key in BLOCK_KEYS})
        shapes.update({"ln_f_g": (d,), "ln_f_b": (d,), "W_out": (d, self.vocab_size)})
        return shapes

    def _init_params(self, seed):
        """Matrices and embeddings ~ N(0, init_std), layer-norm gains 1, shifts and biases 0."""
        rng = np.random.default_rng(seed)
        residual_std = self.init_std / math.sqrt(2 * self.n_layers)  # so the residual stream does not grow with depth
        p = {}
        for key, shape in self.param_shapes().items():
            if len(shape) == 2:
                std = residual_std if key.endswith((".Wo", ".W2")) else self.init_std
                p[key] = rng.normal(0.0, std, shape).astype(self.dtype)
            else:
                p[key] = (np.ones if key.endswith("_g") else np.zeros)(shape, dtype=self.dtype)
        return p

    def block_params(self, i):
        """The dict of layer i's parameters keyed by BLOCK_KEYS (views, not copies)."""
        return {key: self.params[f"blocks.{i}.{key}"] for key in BLOCK_KEYS}

    def num_params(self):
        return int(sum(v.size for v in self.params.values()))

    def __repr__(self):
        flags = "" if self.causal else ", causal=False"
        flags += "" if self.attn_scale else ", attn_scale=False"
        flags += "" if self.ops is None else f", ops={sorted(self.ops)}"
        return (f"TinyLM(vocab_size={self.vocab_size}, d_model={self.d_model}, n_heads={self.n_heads}, "
                f"n_layers={self.n_layers}, max_len={self.max_len}{flags}) with {self.num_params():,} parameters")

    # ------------------------------------------------------------------------
    # input checks

    def _check_params(self):
        """Raise if .params lost or gained a key, or holds an array of the wrong shape, dtype or with NaN/inf."""
        shapes = self.param_shapes()
        if not isinstance(self.params, dict):
            raise ValueError(f"params must be a dict of arrays, got {type(self.params).__name__}")
        missing = [k for k in shapes if k not in self.params]
        extra = [k for k in self.params if k not in shapes]
        if missing or extra:
            raise ValueError(f"params does not match the model: missing keys {missing}, unexpected keys {extra}")
        for key, shape in shapes.items():
            name = f"params[{key!r}]"
            if not isinstance(self.params[key], np.ndarray):
                raise ValueError(f"{name} must be a numpy array {shape}, got {type(self.params[key]).__name__}")
            value = as_float_array(name, self.params[key], len(shape), str(shape))
            if value.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {value.shape}")

    def _finite(self, R, what, norms=()):
        """Return R if finite and no layer norm overflowed; else name the largest parameter.

        The maths ran under np.errstate. norms are the 1/std of the layer norms: 0
        where a variance overflowed to inf.
        """
        if np.isfinite(R).all() and all(np.all(rstd > 0) for rstd in norms):
            return R
        key = max(self.params, key=lambda k: float(np.max(np.abs(self.params[k]))))
        raise ValueError(f"{what} overflows {R.dtype}: the largest parameter is params[{key!r}] with "
                         f"|value| up to {float(np.max(np.abs(self.params[key]))):.3g}; scale the params down")

    def _check_tokens(self, tokens, name="tokens"):
        """Return tokens as an int array (B, T) and whether it was given 1-D."""
        arr = as_int_array(name, tokens, "(B, T)")
        if arr.ndim not in (1, 2) or arr.size == 0:
            raise ValueError(f"{name} must be a non-empty array (B, T) or (T,), got shape {arr.shape}")
        if arr.shape[-1] > self.max_len:
            raise ValueError(f"{name} has T={arr.shape[-1]} tokens but max_len={self.max_len} "
                             f"(shape {arr.shape})")
        if arr.min() < 0 or arr.max() >= self.vocab_size:
            raise ValueError(f"{name} ids must be in [0, {self.vocab_size}) for vocab_size={self.vocab_size}, "
                             f"got values from {int(arr.min())} to {int(arr.max())}")
        return (arr[None] if arr.ndim == 1 else arr), arr.ndim == 1

    # ------------------------------------------------------------------------
    # forward and backward

    def _forward(self, tokens):
        """Logits (B, T, vocab) and the caches of every layer, for tokens (B, T) already checked."""
        self._check_params()
        p = self.params
        X, emb = embed_forward(tokens, p["tok_emb"], p["pos_emb"])  # (B, T, d_model)
        blocks = []
        for i in range(self.n_layers):
            X, cache = block_forward(X, self.block_params(i), self.n_heads, self.causal, self.attn_scale)
            blocks.append(cache)
        logits, head = head_forward(X, p["ln_f_g"], p["ln_f_b"], p["W_out"])  # (B, T, vocab)
        norms = [ln[1] for ln1, _, ln2, _ in blocks for ln in (ln1, ln2)] + [head[1][1]]  # 1/std of every norm
        self._finite(logits, "the forward pass", norms)
        return logits, (emb, blocks, head)

    def forward(self, tokens):
        """Logits (B, T, vocab) for tokens (B, T); a 1-D (T,) sequence gives (T, vocab)."""
        tokens, one = self._check_tokens(tokens)
        if self.ops is not None:
            self._check_params()
            f = ops_path.resolve(self.ops)
            logits = np.stack([ops_path.sequence_forward(f, self, row)[0] for row in tokens])
            return logits[0] if one else logits
        with np.errstate(over="ignore", invalid="ignore"):
            logits, _ = self._forward(tokens)
        return logits[0] if one else logits

    __call__ = forward

    def loss_and_grads(self, tokens, targets, ignore_index=-1):
        """Mean cross-entropy of the next-token predictions and its gradient for every parameter.

        tokens, targets (B, T) int; positions whose target is ignore_index are not scored.
        Returns (loss as a float, grads) where grads has the keys and shapes of .params.
        """
        given = np.shape(tokens)
        tokens, _ = self._check_tokens(tokens)
        targets = as_int_array("targets", targets, "(B, T)")
        if targets.shape != given:
            raise ValueError(f"targets must have the shape of tokens, got tokens {given} and targets {targets.shape}")
        targets = targets.reshape(tokens.shape)
        if not isinstance(ignore_index, (int, np.integer)) or isinstance(ignore_index, (bool, np.bool_)):
            raise ValueError(f"ignore_index must be an integer, got {ignore_index!r}")
        scored = targets != ignore_index
        if np.any((targets[scored] < 0) | (targets[scored] >= self.vocab_size)):
            raise ValueError(f"targets ids must be in [0, {self.vocab_size}) or equal ignore_index={ignore_index}, "
                             f"got values from {int(targets.min())} to {int(targets.max())}")

        if self.ops is not None:
            if not scored.any():
                raise ValueError("targets has no position to score: every entry equals ignore_index")
            self._check_params()
            loss, grads = ops_path.loss_and_grads(ops_path.resolve(self.ops), self, tokens, targets, ignore_index)
            for key in self.params:
                self._finite(grads[key], f"the gradient of params[{key!r}]")
            return loss, grads
        with np.errstate(over="ignore", invalid="ignore"):
            logits, (emb, blocks, head) = self._forward(tokens)
            loss, ce = cross_entropy_forward(logits, targets, ignore_index)

            grads = {}
            dlogits = cross_entropy_backward(ce)  # (B, T, vocab)
            dX, grads["ln_f_g"], grads["ln_f_b"], grads["W_out"] = head_backward(dlogits, head)
            for i in reversed(range(self.n_layers)):
                dX, g = block_backward(dX, blocks[i])  # (B, T, d_model)
                for key in BLOCK_KEYS:
                    grads[f"blocks.{i}.{key}"] = g[key]
            grads["tok_emb"], grads["pos_emb"] = embed_backward(dX, emb)
        for key in self.params:
            self._finite(grads[key], f"the gradient of params[{key!r}]")
        return loss, {key: grads[key] for key in self.params}

    def attention_maps(self, tokens):
        """Attention weights of every layer and head for one sequence (T,): (n_layers, n_heads, T, T)."""
        tokens, one = self._check_tokens(tokens)
        if not one:
            raise ValueError(f"tokens must be one sequence (T,), got shape {tokens.shape}")
        with np.errstate(over="ignore", invalid="ignore"):
            _, (_, blocks, _) = self._forward(tokens)
        maps = []
        for _, att, _, _ in blocks:  # the caches of block_forward: ln1, att, ln2, ff
            A = att[-1][3]  # mha_forward's cache ends with attention_forward's (Q, K, V, A, s)
            maps.append(A[0])  # (n_heads, T, T) of the one sequence
        return np.stack(maps)  # (n_layers, n_heads, T, T)

    # ------------------------------------------------------------------------
    # generation

    def new_cache(self):
        """An empty KVCache sized for this model."""
        return KVCache(self.n_layers, self.n_heads, self.d_head, self.max_len, self.dtype)

    def step(self, tokens, cache):
        """Run new tokens (m,) through the model against the cache; return their logits (m, vocab).

        Each layer computes Q, K, V for the m new rows only, appends K and V to the
        cache, and lets the new queries attend to every cached position.
        """
        if not self.causal:
            raise ValueError("a KV cache needs a causal model: with causal=False every new token "
                             "would change the keys and values before it")
        if self.ops is not None:
            raise ValueError("step runs attnlib's own KV cache; a model with ops generates through your "
                             "cache_step: call generate")
        tokens, one = self._check_tokens(tokens)
        if not one:
            raise ValueError(f"step takes one sequence of new tokens (m,), got shape {tokens.shape}")
        self._check_cache(cache)
        self._check_params()
        tokens = tokens[0]
        t0, m = cache.length, tokens.shape[0]
        t1 = t0 + m
        if t1 > self.max_len:
            raise ValueError(f"the cache holds {t0} tokens; {m} more exceed max_len={self.max_len}")
        p = self.params
        norms = []  # 1/std of every layer norm, to catch an overflowed variance
        with np.errstate(over="ignore", invalid="ignore"):
            X = p["tok_emb"][tokens] + p["pos_emb"][t0:t1]  # (m, d_model)
            for i in range(self.n_layers):
                b = self.block_params(i)
                H, (_, rstd, _) = layer_norm_forward(X, b["ln1_g"], b["ln1_b"])
                norms.append(rstd)
                cache.K[i, :, t0:t1] = split_heads(H @ b["Wk"], self.n_heads)  # K grows by m rows
                cache.V[i, :, t0:t1] = split_heads(H @ b["Wv"], self.n_heads)
                Q = split_heads(H @ b["Wq"], self.n_heads)  # (n_heads, m, d_head): new rows only
                O, _ = attention_forward(Q, cache.K[i, :, :t1], cache.V[i, :, :t1], True, self.attn_scale)
                X = X + merge_heads(O) @ b["Wo"]  # (m, d_model)
                H, (_, rstd, _) = layer_norm_forward(X, b["ln2_g"], b["ln2_b"])
                norms.append(rstd)
                U, _ = mlp_forward(H, b["W1"], b["b1"], b["W2"], b["b2"])
                X = X + U
            logits, (_, (_, rstd, _), _) = head_forward(X, p["ln_f_g"], p["ln_f_b"], p["W_out"])
        self._finite(logits, "the forward pass", norms + [rstd])
        cache.length, cache.owner = t1, self
        return logits  # (m, vocab)

    def _check_cache(self, cache):
        """Raise unless `cache` is a KVCache sized for this model and holds nothing from another model."""
        if not isinstance(cache, KVCache):
            raise ValueError(f"cache must be a KVCache from model.new_cache(), got {type(cache).__name__}")
        shape = (self.n_layers, self.n_heads, self.max_len, self.d_head)
        if cache.K.shape != shape or cache.V.shape != shape:
            raise ValueError(f"cache was made for another model size: K {cache.K.shape}, this model needs {shape}; "
                             "use model.new_cache()")
        if cache.length and cache.owner is not self:
            raise ValueError("cache holds the keys and values of another model; start with model.new_cache()")

    def _pick(self, logits, temperature, rng):
        """Next token from logits (vocab,): argmax at temperature 0, else a sample of softmax(logits / T)."""
        with np.errstate(over="ignore"):
            z = logits.astype(np.float64) / temperature if temperature else None
        if z is None or np.isposinf(z).any():  # as the temperature goes to 0, sampling becomes the argmax
            return int(np.argmax(logits))
        e, total = exp_and_sum(z)  # softmax(z) = e / total
        return int(rng.choice(self.vocab_size, p=e / total))

    def generate(self, prompt, n_new, temperature=0.0, use_cache=True, rng=None):
        """Extend prompt (T,) by n_new tokens; return the whole sequence (T + n_new,) as int array.

        temperature 0 is greedy (argmax); above 0, sample from softmax(logits / temperature)
        with rng (a np.random.Generator; default_rng(0) if None). use_cache=False
        recomputes the full forward pass for every new token: same tokens, O(t^2) per step.
        """
        seq, one = self._check_tokens(prompt, "prompt")
        if not one:
            raise ValueError(f"prompt must be one sequence (T,), got shape {seq.shape}")
        n_new = non_negative_int("n_new", n_new)
        if seq.shape[1] + n_new > self.max_len:
            raise ValueError(f"prompt of {seq.shape[1]} tokens + n_new={n_new} exceeds max_len={self.max_len}")
        temperature = finite_float("temperature", temperature, low=0.0)
        use_cache = boolean("use_cache", use_cache)
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a np.random.Generator or None, got {type(rng).__name__}")
        rng = np.random.default_rng(0) if rng is None else rng
        if self.ops is not None:
            return self._generate_ops(seq[0], n_new, temperature, use_cache, rng)
        out = [int(t) for t in seq[0]]
        cache = self.new_cache() if use_cache else None
        new = out  # tokens the model has not seen yet: the whole prompt, then one at a time
        for _ in range(n_new):
            if use_cache:
                logits = self.step(np.array(new), cache)[-1]  # only the new rows are computed
            else:
                logits = self.forward(np.array(out))[-1]  # everything, every time
            out.append(self._pick(logits, temperature, rng))
            new = out[-1:]
        return np.array(out)

    def _generate_ops(self, prompt, n_new, temperature, use_cache, rng):
        """generate() through the ops: cache_step for every head, or the whole forward again; sample_next."""
        if not self.causal:
            raise ValueError("generation needs a causal model: with causal=False every new token changes the past")
        self._check_params()
        f = ops_path.resolve(self.ops)
        if use_cache:
            return ops_path.generate(f, self, prompt, n_new, temperature, rng)
        out = [int(t) for t in prompt]
        for _ in range(n_new):
            logits = self.forward(np.array(out))[-1]  # everything, every time
            out.append(int(f["sample_next"](logits, temperature, rng.random() if temperature else 0.0)))
        return np.array(out)

"""Notebooks 08, 11-16 and 18: TinyLM, a tiny causal transformer in numpy.

    X = tok_emb[tokens] + pos_emb[:T]          embed: one row per token
    X = block_i(X) for each layer i             attention, then the MLP
    logits = layer_norm(X) @ W_out             one score per vocabulary word

Where a token stands enters in one of three ways (`positions`): a learned row of pos_emb
added to X ("learned", notebook 08), a fixed row of sines and cosines added to X
("sinusoid"), or no row added at all and each head's q and k rotated by their position
inside attention ("rope", notebook 16).

One forward pass (`_forward`), one backward pass (`_backward`) and one generation loop,
written against a table of ops (attnlib.block.OPS). Generation runs the same forward
pass on the new tokens only, with the cache step as the attention op, and picks every
next token with `sample_next`. TinyLM(ops=...) puts the learner's own functions into the
table (attnlib.learner_ops adapts them); nothing else changes.
"""
import math

import numpy as np

from ._validate import (as_float_array, as_int_array, boolean, check_size, finite_float, finite_positive_float,
                        float_dtype, non_negative_int, positive_int, public)
from .attention import windowed
from .block import ATTENTION_KEYS, BLOCK_KEYS, NORMS, OPS, kv_step
from .cache import KVCache, top_k_filter, top_p_filter, window_and_sinks
from .positions import rotation_tables, sinusoids
from . import learner_ops

MAX_INIT_STD = 1000.0  # the largest init_std TinyLM accepts (see its docstring)
POSITIONS = ("learned", "sinusoid", "rope")


@public
class TinyLM:
    """A GPT-style language model: embeddings, n_layers blocks, final LN, output head.

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
      norm="pre"       "post" puts each layer norm after its residual add (lesson 11).
      mlp=True         False builds attention-only blocks: no second layer norm, no MLP.
      positions="learned"  how a token's place enters: "learned" adds the row pos_emb[t] to X;
                       "sinusoid" adds the fixed row sin/cos(t / 10000^(2i/d_model)) (no pos_emb
                       parameter); "rope" adds nothing and rotates every head's q and k by their
                       positions (attnlib.positions.rope, adjacent pairs; d_head must be even; no
                       pos_emb parameter). The KV cache then holds the rotated keys.
      n_kv_heads=None  grouped-query attention: the n_heads query heads share n_kv_heads key/value
                       groups (n_kv_heads divides n_heads; 1 is multi-query attention), query head h
                       reading group h // (n_heads // n_kv_heads). Wk and Wv are then
                       (d_model, n_kv_heads * d_head) and the KV cache holds n_kv_heads groups.
                       None: n_heads, plain multi-head attention.
      window=None      a sliding window (notebook 18): position i sees only i - window < j <= i, in the full
                       pass (training included) and in generation, whose cache then rolls: it keeps
                       at most window rows per layer, its bytes flat however long the text. None: every
                       earlier position. Runs attnlib's own attention (not with ops).
      n_sinks=0        with a window, the first n_sinks positions stay visible to every later one (attention
                       sinks) and the window keeps the newest window - n_sinks (0 <= n_sinks < window).
      ops=None         a dict mapping exercise names (attnlib.learner_ops.NAMES: softmax, attention,
                       layer_norm, gelu, transformer_block, next_token_logits, cross_entropy,
                       attention_backward, layer_norm_backward, cache_step, rope, ...) to your own
                       functions with the exercise signatures: the model then runs through
                       them, one sequence at a time, and attnlib's fill in the rest. Your rope
                       turns q and k only in a model with positions="rope".

    `.params` is a flat dict: tok_emb (vocab, d_model), pos_emb (max_len, d_model) (learned positions only),
    blocks.{i}.{key} for key in BLOCK_KEYS, ln_f_g, ln_f_b (d_model,), W_out (d_model, vocab).
    """

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, seed=0, dtype=np.float64,
                 init_std=0.02, attn_scale=True, causal=True, d_ff=None, norm="pre", mlp=True, ops=None,
                 positions="learned", n_kv_heads=None, window=None, n_sinks=0):
        self.vocab_size = positive_int("vocab_size", vocab_size)
        self.d_model = positive_int("d_model", d_model)
        self.n_heads = positive_int("n_heads", n_heads)
        self.n_layers = positive_int("n_layers", n_layers)
        self.max_len = positive_int("max_len", max_len)
        self.d_ff = 4 * self.d_model if d_ff is None else positive_int("d_ff", d_ff)
        if d_model % n_heads:
            raise ValueError(f"n_heads={n_heads} does not divide d_model={d_model}")
        self.d_head = d_model // n_heads
        self.n_kv_heads = self.n_heads if n_kv_heads is None else positive_int("n_kv_heads", n_kv_heads)
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads={n_heads} must be a multiple of n_kv_heads={n_kv_heads}: each K/V group is "
                             f"shared by n_heads // n_kv_heads query heads")
        self.window, self.n_sinks = window_and_sinks(window, n_sinks)
        self.dtype = float_dtype("dtype", dtype)
        self.init_std = finite_positive_float("init_std", init_std)
        if self.init_std > MAX_INIT_STD:
            raise ValueError(f"init_std must be <= {MAX_INIT_STD:g}, got {init_std!r}: it is the standard deviation of "
                             "the initial weights (GPT-2 uses 0.02, and 1.0 is already a badly scaled init); far "
                             "larger values make weights whose products overflow")
        self.attn_scale = boolean("attn_scale", attn_scale)
        self.causal = boolean("causal", causal)
        if self.window is not None and not self.causal:
            raise ValueError(f"window={window} is a causal sliding window: it needs causal=True")
        if norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")
        self.norm = norm
        self.mlp = boolean("mlp", mlp)
        self.block_keys = BLOCK_KEYS if self.mlp else ATTENTION_KEYS
        if not isinstance(positions, str) or positions not in POSITIONS:
            raise ValueError(f"positions must be one of {POSITIONS}, got {positions!r}")
        self.positions = positions
        if positions == "sinusoid" and self.d_model % 2:
            raise ValueError(f"positions='sinusoid' pairs the features of X: d_model must be even, got {d_model}")
        if positions == "rope" and self.d_head % 2:
            raise ValueError(f"positions='rope' rotates pairs of each head's features: d_head = d_model / n_heads "
                             f"must be even, got d_model={d_model}, n_heads={n_heads}")
        seed = non_negative_int("seed", seed)
        self.ops = None if ops is None else learner_ops.check(ops, self.attn_scale, self.mlp, positions,
                                                               self.n_kv_heads != self.n_heads, self.window)
        self.table = OPS if ops is None else learner_ops.table(self.ops, self.n_kv_heads != self.n_heads,
                                                             self.window is not None)
        if self.window is not None:  # the same kernel, masked by the window; the cache rolls (new_cache)
            self.table = {**self.table, "attention": windowed(self.window, self.n_sinks)}
        n_values = sum(math.prod(shape) for shape in self.param_shapes().values())
        check_size("vocab_size, d_model, n_layers, max_len or d_ff", (n_values,), self.dtype)
        self.params = self._init_params(seed)
        self.fixed_pos = self.rotary_tables = None  # learned positions are params["pos_emb"]
        if positions == "sinusoid":  # fixed rows added to X: (max_len, d_model)
            self.fixed_pos = sinusoids(self.max_len, self.d_model).astype(self.dtype)
        elif positions == "rope":  # nothing added to X; q and k rotated by (cos, sin), each (max_len, d_head / 2)
            self.fixed_pos = np.zeros((self.max_len, self.d_model), dtype=self.dtype)
            self.rotary_tables = rotation_tables(self.max_len, self.d_head, dtype=self.dtype)

    def param_shapes(self):
        """The key and shape of every parameter, in the order of .params."""
        d, f, kv = self.d_model, self.d_ff, self.n_kv_heads * self.d_head  # kv: the width of the K/V groups
        block = {"ln1_g": (d,), "ln1_b": (d,), "Wq": (d, d), "Wk": (d, kv), "Wv": (d, kv), "Wo": (d, d),
                 "ln2_g": (d,), "ln2_b": (d,), "W1": (d, f), "b1": (f,), "W2": (f, d), "b2": (d,)}
        shapes = {"tok_emb": (self.vocab_size, d)}
        if self.positions == "learned":
            shapes["pos_emb"] = (self.max_len, d)
        for i in range(self.n_layers):
            shapes.update({f"blocks.{i}.{key}": block[key] for key in self.block_keys})
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
        """The dict of layer i's parameters keyed by BLOCK_KEYS (ATTENTION_KEYS without the MLP; views)."""
        return {key: self.params[f"blocks.{i}.{key}"] for key in self.block_keys}

    def num_params(self):
        return int(sum(v.size for v in self.params.values()))

    def __repr__(self):
        flags = "" if self.causal else ", causal=False"
        flags += "" if self.attn_scale else ", attn_scale=False"
        flags += "" if self.norm == "pre" else f", norm={self.norm!r}"
        flags += "" if self.mlp else ", mlp=False"
        flags += "" if self.positions == "learned" else f", positions={self.positions!r}"
        flags += "" if self.n_kv_heads == self.n_heads else f", n_kv_heads={self.n_kv_heads}"
        flags += "" if self.window is None else f", window={self.window}"
        flags += "" if not self.n_sinks else f", n_sinks={self.n_sinks}"
        flags += "" if self.ops is None else f", ops={sorted(self.ops)}"
        return (f"TinyLM(vocab_size={self.vocab_size}, d_model={self.d_model}, n_heads={self.n_heads}, "
                f"n_layers={self.n_layers}, max_len={self.max_len}{flags}) with {self.num_params():,} parameters")

    # ------------------------------------------------------------------------
    # the maths: one forward pass, one backward pass

    def _forward(self, tokens, cache=None):
        """Logits (..., T, vocab) for tokens (..., T), and every layer's cache for the backward.

        With a KVCache, tokens (m,) are the next m positions after cache.length: each layer adds
        their keys and values to the cache and their queries attend to everything in it.
        """
        ops, p = self.table, self.params
        start = 0 if cache is None else cache.length
        pos_emb = p["pos_emb"] if self.fixed_pos is None else self.fixed_pos
        X, emb = ops["embed"].forward(tokens, p["tok_emb"], pos_emb, start)  # (..., T, d_model)
        rotary = self._rotary(start, tokens.shape[-1])
        blocks = []
        for i in range(self.n_layers):
            step = None if cache is None else kv_step(ops, cache, i)
            X, block = ops["transformer_block"].forward(X, self.block_params(i), self.n_heads, self.causal,
                                                        self.attn_scale, ops, self.norm, step, self.mlp, rotary,
                                                        n_kv_heads=self.n_kv_heads)
            blocks.append(block)
        N, ln_f = ops["layer_norm"].forward(X, p["ln_f_g"], p["ln_f_b"])
        logits, head = ops["logits"].forward(N, p["W_out"])  # (..., T, vocab)
        norms = [ln[1] for ln1, _, ln2, *_ in blocks for ln in (ln1, ln2) if ln] + [ln_f[1]]  # 1/std of every norm
        self._finite(logits, "the forward pass", norms)
        return logits, (emb, blocks, ln_f, head)

    def _rotary(self, start, T):
        """With RoPE, the rotation of positions start .. start + T - 1 (an Op on (..., T, d_head)); else None."""
        if self.rotary_tables is None:
            return None
        cos, sin = self.rotary_tables
        return self.table["rotary"](np.arange(start, start + T), cos[start:start + T], sin[start:start + T])

    def _backward(self, dlogits, caches):
        """The gradient of every parameter from dlogits (B, T, vocab), through the caches of _forward."""
        ops, (emb, blocks, ln_f, head) = self.table, caches
        grads = {}
        dN, grads["W_out"] = ops["logits"].backward(dlogits, head)
        dX, grads["ln_f_g"], grads["ln_f_b"] = ops["layer_norm"].backward(dN, ln_f)
        for i in reversed(range(self.n_layers)):
            dX, g = ops["transformer_block"].backward(dX, blocks[i])  # (B, T, d_model)
            grads.update({f"blocks.{i}.{key}": g[key] for key in self.block_keys})
        grads["tok_emb"], dpos = ops["embed"].backward(dX, emb)
        if "pos_emb" in self.params:  # fixed positions have no gradient to keep
            grads["pos_emb"] = dpos
        for key in self.params:
            self._finite(grads[key], f"the gradient of params[{key!r}]")
        return {key: grads[key] for key in self.params}

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
        raise ValueError(f"{what} overflows {np.asarray(R).dtype}: the largest parameter is params[{key!r}] with "
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

    def _check_targets(self, targets, given, tokens, ignore_index):
        """Return targets as an int array shaped like tokens (B, T), and the mask of scored positions."""
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
        if not scored.any():
            raise ValueError("targets has no position to score: every entry equals ignore_index")
        return targets, scored

    # ------------------------------------------------------------------------
    # public methods

    def forward(self, tokens):
        """Logits (B, T, vocab) for tokens (B, T); a 1-D (T,) sequence gives (T, vocab)."""
        tokens, one = self._check_tokens(tokens)
        self._check_params()
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
        targets, scored = self._check_targets(targets, given, tokens, ignore_index)
        self._check_params()
        loss_op = self.table["cross_entropy"]
        with np.errstate(over="ignore", invalid="ignore"):
            logits, caches = self._forward(tokens)
            loss, ce = loss_op.forward(logits[scored], targets[scored])  # (N, vocab): the scored rows in order
            dlogits = np.zeros_like(logits)
            dlogits[scored] = loss_op.backward(1.0, ce)  # (B, T, vocab)
            grads = self._backward(dlogits, caches)
        return float(loss), grads

    def attention_maps(self, tokens):
        """Attention weights of every layer and head: one sequence (T,) gives (n_layers, n_heads, T, T),
        a batch (B, T) gives (B, n_layers, n_heads, T, T)."""
        tokens, one = self._check_tokens(tokens)
        self._check_params()
        with np.errstate(over="ignore", invalid="ignore"):
            _, (_, blocks, _, _) = self._forward(tokens)
        # each block's cache holds its attention's: (ln1, mha, ...), mha ends with (Q, K, V, A, s)
        maps = np.stack([block[1][-1][3] for block in blocks], axis=1)  # (B, n_layers, n_heads, T, T)
        return maps[0] if one else maps

    # ------------------------------------------------------------------------
    # generation

    def new_cache(self):
        """An empty KVCache sized for this model (with a window: a rolling cache of at most window rows)."""
        return KVCache(self.n_layers, self.n_kv_heads, self.d_head, self.max_len, self.dtype,  # one K, V per group
                       self.window, self.n_sinks)

    def step(self, tokens, cache):
        """Run new tokens (m,) through the model against the cache; return their logits (m, vocab).

        Each layer computes Q, K, V for the m new rows only, appends K and V to the
        cache, and lets the new queries attend to every cached position (with a window: the ones
        they may see, and the cache then drops the rest). With RoPE the
        new rows' q and k are rotated by their own positions first: the cache keeps rotated keys.
        """
        if not self.causal:
            raise ValueError("a KV cache needs a causal model: with causal=False every new token "
                             "would change the keys and values before it")
        tokens, one = self._check_tokens(tokens)
        if not one:
            raise ValueError(f"step takes one sequence of new tokens (m,), got shape {tokens.shape}")
        self._check_cache(cache)
        self._check_params()
        if cache.length + tokens.shape[1] > self.max_len:
            raise ValueError(f"the cache holds {cache.length} tokens; {tokens.shape[1]} more exceed "
                             f"max_len={self.max_len}")
        with np.errstate(over="ignore", invalid="ignore"):
            logits, _ = self._forward(tokens[0], cache)  # (m, vocab)
        cache.length, cache.owner = cache.length + tokens.shape[1], self
        return logits

    def _check_cache(self, cache):
        """Raise unless `cache` is a KVCache sized for this model and holds nothing from another model."""
        if not isinstance(cache, KVCache):
            raise ValueError(f"cache must be a KVCache from model.new_cache(), got {type(cache).__name__}")
        rows = self.max_len if self.window is None else min(self.window, self.max_len)
        shape = (self.n_layers, self.n_kv_heads, rows, self.d_head)
        if (cache.window, cache.n_sinks) != (self.window, self.n_sinks):
            raise ValueError(f"cache was made for window={cache.window}, n_sinks={cache.n_sinks}, this model has "
                             f"window={self.window}, n_sinks={self.n_sinks}; use model.new_cache()")
        if cache.K.shape != shape or cache.V.shape != shape:
            raise ValueError(f"cache was made for another model size: K {cache.K.shape}, this model needs {shape}; "
                             "use model.new_cache()")
        if cache.length and cache.owner is not self:
            raise ValueError("cache holds the keys and values of another model; start with model.new_cache()")

    def generate(self, prompt, n_new, temperature=0.0, use_cache=True, rng=None, top_k=None, top_p=1.0):
        """Extend prompt (T,) by n_new tokens; return the whole sequence (T + n_new,) as int array.

        temperature 0 is greedy (argmax); above 0, sample from softmax(logits / temperature)
        with rng (a np.random.Generator; default_rng(0) if None). Both go through sample_next.
        top_k (an int, or None for all) keeps the k largest logits (top_k_filter); top_p < 1
        keeps the nucleus of softmax(logits / temperature) (top_p_filter); both before sampling.
        use_cache=False recomputes the full forward pass for every new token: same tokens,
        O(t^2) per step.
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
        top_k = None if top_k is None else positive_int("top_k", top_k)
        top_p = finite_float("top_p", top_p, low=0.0, high=1.0, low_open=True)
        out = [int(t) for t in seq[0]]
        cache = self.new_cache() if use_cache else None
        new = out  # tokens the model has not seen yet: the whole prompt, then one at a time
        for _ in range(n_new):
            logits = self.step(np.array(new), cache)[-1] if use_cache else self.forward(np.array(out))[-1]
            if top_k is not None:
                logits = top_k_filter(logits, top_k)
            if top_p < 1.0 and temperature:  # the nucleus of the distribution sampled from
                z = (logits - logits.max()) / temperature  # softmax(logits / T), no overflow
                logits = np.where(top_p_filter(z, top_p) > -np.inf, logits, -np.inf)
            u = rng.random() if temperature else 0.0
            out.append(int(self.table["sample_next"](logits, temperature, u)))
            new = out[-1:]
        return np.array(out)

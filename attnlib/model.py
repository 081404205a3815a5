"""Notebooks 08-11: TinyLM, a tiny causal transformer in numpy.

    X = tok_emb[tokens] + pos_emb[:T]          one row per token
    X = block_i(X) for each layer i             attention, then the MLP
    logits = layer_norm(X) @ W_out             one score per vocabulary word

`loss_and_grads` runs the forward pass keeping caches, then the backward passes
of attnlib.layers in reverse order. `generate` keeps a KV cache: per layer, the
keys and values of every token so far, so a new token costs one query row.
"""
import math

import numpy as np

from ._validate import as_positive_int
from .attention import merge_heads, split_heads
from .layers import (BLOCK_KEYS, attention_forward, block_backward, block_forward, cross_entropy_backward,
                     cross_entropy_forward, embed_backward, embed_forward, head_backward, head_forward,
                     layer_norm_forward, mlp_forward)


class KVCache:
    """Keys and values of the tokens seen so far, for every layer.

    K and V are preallocated (n_layers, n_heads, max_len, d_head); only the first
    `length` positions are filled. `keys(i)` and `values(i)` are the filled part
    of layer i, (n_heads, length, d_head): it grows by one row per new token.
    """

    def __init__(self, n_layers, n_heads, d_head, max_len, dtype=np.float64):
        self.K = np.zeros((n_layers, n_heads, max_len, d_head), dtype=dtype)
        self.V = np.zeros((n_layers, n_heads, max_len, d_head), dtype=dtype)
        self.length = 0

    def keys(self, layer):
        return self.K[layer, :, :self.length]  # (n_heads, length, d_head)

    def values(self, layer):
        return self.V[layer, :, :self.length]  # (n_heads, length, d_head)


class TinyLM:
    """A GPT-style language model: embeddings, n_layers pre-LN blocks, final LN, output head.

    TinyLM(vocab_size, d_model, n_heads, n_layers, max_len, seed=0, dtype=np.float64)

    Extra keyword arguments, for the course's experiments:
      init_std=0.02    std of the normal init of every weight matrix and embedding
                       (GPT-2); the residual projections Wo and W2 get
                       init_std / sqrt(2 n_layers). Try 1.0 for a badly scaled init.
      attn_scale=True  divide the scores by sqrt(d_head); False trains without it.
      causal=True      False builds a bidirectional model: every token sees the
                       whole sequence (no KV-cache generation then).
      d_ff=None        MLP width, 4 * d_model by default.

    `.params` is a flat dict: tok_emb (vocab, d_model), pos_emb (max_len, d_model),
    blocks.{i}.{key} for key in BLOCK_KEYS, ln_f_g, ln_f_b (d_model,), W_out (d_model, vocab).
    """

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_len, seed=0, dtype=np.float64,
                 init_std=0.02, attn_scale=True, causal=True, d_ff=None):
        self.vocab_size = as_positive_int("vocab_size", vocab_size)
        self.d_model = as_positive_int("d_model", d_model)
        self.n_heads = as_positive_int("n_heads", n_heads)
        self.n_layers = as_positive_int("n_layers", n_layers)
        self.max_len = as_positive_int("max_len", max_len)
        self.d_ff = 4 * self.d_model if d_ff is None else as_positive_int("d_ff", d_ff)
        if d_model % n_heads:
            raise ValueError(f"n_heads={n_heads} does not divide d_model={d_model}")
        self.d_head = d_model // n_heads
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype}")
        if not (isinstance(init_std, (int, float)) and init_std > 0):
            raise ValueError(f"init_std must be a positive number, got {init_std!r}")
        self.init_std = float(init_std)
        self.attn_scale = bool(attn_scale)
        self.causal = bool(causal)
        self.params = self._init_params(seed)

    def _init_params(self, seed):
        rng = np.random.default_rng(seed)
        d, std = self.d_model, self.init_std
        residual_std = std / math.sqrt(2 * self.n_layers)  # so the residual stream does not grow with depth

        def normal(shape, s=std):
            return rng.normal(0.0, s, shape).astype(self.dtype)

        p = {"tok_emb": normal((self.vocab_size, d)), "pos_emb": normal((self.max_len, d))}
        for i in range(self.n_layers):
            shapes = {"Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d),
                      "W1": (d, self.d_ff), "W2": (self.d_ff, d)}
            for key in BLOCK_KEYS:
                if key in shapes:
                    p[f"blocks.{i}.{key}"] = normal(shapes[key], residual_std if key in ("Wo", "W2") else std)
                elif key.endswith("_g"):
                    p[f"blocks.{i}.{key}"] = np.ones(d, dtype=self.dtype)
                else:  # layer-norm shifts and MLP biases start at zero
                    p[f"blocks.{i}.{key}"] = np.zeros(self.d_ff if key == "b1" else d, dtype=self.dtype)
        p["ln_f_g"] = np.ones(d, dtype=self.dtype)
        p["ln_f_b"] = np.zeros(d, dtype=self.dtype)
        p["W_out"] = normal((d, self.vocab_size))
        return p

    def block_params(self, i):
        """The dict of layer i's parameters keyed by BLOCK_KEYS (views, not copies)."""
        return {key: self.params[f"blocks.{i}.{key}"] for key in BLOCK_KEYS}

    def num_params(self):
        return int(sum(v.size for v in self.params.values()))

    def __repr__(self):
        flags = "" if self.causal else ", causal=False"
        flags += "" if self.attn_scale else ", attn_scale=False"
        return (f"TinyLM(vocab_size={self.vocab_size}, d_model={self.d_model}, n_heads={self.n_heads}, "
                f"n_layers={self.n_layers}, max_len={self.max_len}{flags}) with {self.num_params():,} parameters")

    # ------------------------------------------------------------------------
    # input checks

    def _check_tokens(self, tokens, name="tokens"):
        """Return tokens as an int array (B, T) and whether it was given 1-D."""
        arr = np.asarray(tokens)
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must be an integer array (B, T) of token ids, got dtype {arr.dtype}")
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
        p = self.params
        X, emb = embed_forward(tokens, p["tok_emb"], p["pos_emb"])  # (B, T, d_model)
        blocks = []
        for i in range(self.n_layers):
            X, cache = block_forward(X, self.block_params(i), self.n_heads, self.causal, self.attn_scale)
            blocks.append(cache)
        logits, head = head_forward(X, p["ln_f_g"], p["ln_f_b"], p["W_out"])  # (B, T, vocab)
        return logits, (emb, blocks, head)

    def forward(self, tokens):
        """Logits (B, T, vocab) for tokens (B, T); a 1-D (T,) sequence gives (T, vocab)."""
        tokens, one = self._check_tokens(tokens)
        logits, _ = self._forward(tokens)
        return logits[0] if one else logits

    __call__ = forward

    def loss_and_grads(self, tokens, targets, ignore_index=-1):
        """Mean cross-entropy of the next-token predictions and its gradient for every parameter.

        tokens, targets (B, T) int; positions whose target is ignore_index are not scored.
        Returns (loss as a float, grads) where grads has the keys and shapes of .params.
        """
        tokens, _ = self._check_tokens(tokens)
        targets = np.asarray(targets)
        if targets.shape != tokens.shape and targets.shape != tokens.shape[1:]:
            raise ValueError(f"targets must have the shape of tokens {tokens.shape}, got {targets.shape}")
        targets = targets.reshape(tokens.shape)
        if not np.issubdtype(targets.dtype, np.integer) or targets.dtype == bool:
            raise ValueError(f"targets must be integer token ids, got dtype {targets.dtype}")
        scored = targets != ignore_index
        if np.any((targets[scored] < 0) | (targets[scored] >= self.vocab_size)):
            raise ValueError(f"targets ids must be in [0, {self.vocab_size}) or equal ignore_index={ignore_index}, "
                             f"got values from {int(targets.min())} to {int(targets.max())}")

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
        return loss, {key: grads[key] for key in self.params}

    def attention_maps(self, tokens):
        """Attention weights of every layer and head for one sequence (T,): (n_layers, n_heads, T, T)."""
        tokens, one = self._check_tokens(tokens)
        if not one:
            raise ValueError(f"tokens must be one sequence (T,), got shape {tokens.shape}")
        _, (_, blocks, _) = self._forward(tokens)
        maps = []
        for ln1, att, ln2, ff in blocks:  # the caches of block_forward
            Q, K, V, A, s = att[-1]  # mha_forward's cache ends with attention_forward's
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
        tokens, one = self._check_tokens(tokens)
        if not one:
            raise ValueError(f"step takes one sequence of new tokens (m,), got shape {tokens.shape}")
        tokens = tokens[0]
        t0, m = cache.length, tokens.shape[0]
        t1 = t0 + m
        if t1 > self.max_len:
            raise ValueError(f"the cache holds {t0} tokens; {m} more exceed max_len={self.max_len}")
        p = self.params
        X = p["tok_emb"][tokens] + p["pos_emb"][t0:t1]  # (m, d_model)
        for i in range(self.n_layers):
            b = self.block_params(i)
            H, _ = layer_norm_forward(X, b["ln1_g"], b["ln1_b"])
            cache.K[i, :, t0:t1] = split_heads(H @ b["Wk"], self.n_heads)  # K grows by m rows
            cache.V[i, :, t0:t1] = split_heads(H @ b["Wv"], self.n_heads)
            Q = split_heads(H @ b["Wq"], self.n_heads)  # (n_heads, m, d_head): new rows only
            O, _ = attention_forward(Q, cache.K[i, :, :t1], cache.V[i, :, :t1], True, self.attn_scale)
            X = X + merge_heads(O) @ b["Wo"]  # (m, d_model)
            H, _ = layer_norm_forward(X, b["ln2_g"], b["ln2_b"])
            U, _ = mlp_forward(H, b["W1"], b["b1"], b["W2"], b["b2"])
            X = X + U
        cache.length = t1
        logits, _ = head_forward(X, p["ln_f_g"], p["ln_f_b"], p["W_out"])
        return logits  # (m, vocab)

    def _pick(self, logits, temperature, rng):
        """Next token from logits (vocab,): argmax at temperature 0, else a sample of softmax(logits / T)."""
        if temperature == 0:
            return int(np.argmax(logits))
        z = logits.astype(np.float64) / temperature
        probs = np.exp(z - z.max())
        return int(rng.choice(self.vocab_size, p=probs / probs.sum()))

    def generate(self, prompt, n_new, temperature=0.0, use_cache=True, rng=None):
        """Extend prompt (T,) by n_new tokens; return the whole sequence (T + n_new,) as int array.

        temperature 0 is greedy (argmax); above 0, sample from softmax(logits / temperature)
        with rng (a np.random.Generator; default_rng(0) if None). use_cache=False
        recomputes the full forward pass for every new token: same tokens, O(t^2) per step.
        """
        seq, one = self._check_tokens(prompt, "prompt")
        if not one:
            raise ValueError(f"prompt must be one sequence (T,), got shape {seq.shape}")
        n_new = int(n_new) if isinstance(n_new, (int, np.integer)) and not isinstance(n_new, bool) else None
        if n_new is None or n_new < 0:
            raise ValueError(f"n_new must be a non-negative integer, got {n_new!r}")
        if seq.shape[1] + n_new > self.max_len:
            raise ValueError(f"prompt of {seq.shape[1]} tokens + n_new={n_new} exceeds max_len={self.max_len}")
        if not (isinstance(temperature, (int, float, np.floating)) and temperature >= 0):
            raise ValueError(f"temperature must be a number >= 0, got {temperature!r}")
        rng = np.random.default_rng(0) if rng is None else rng
        out = [int(t) for t in seq[0]]
        cache = self.new_cache() if use_cache else None
        new = out  # tokens the model has not seen yet: the whole prompt, then one at a time
        for _ in range(n_new):
            if use_cache:
                logits = self.step(np.array(new), cache)[-1]  # only the new rows are computed
            else:
                logits = self._forward(np.array([out]))[0][0, -1]  # everything, every time
            out.append(self._pick(logits, temperature, rng))
            new = out[-1:]
        return np.array(out)

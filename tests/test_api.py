"""Every name of the public API contract (DESIGN.md section 3) is importable, with its parameter names."""
import inspect

import attnlib

CONTRACT = {
    "project": ["x", "W"],
    "project_rows": ["X", "W"],
    "uniform_causal_weights": ["n"],
    "causal_average": ["V"],
    "similarity": ["Q", "K"],
    "causal_mask": ["n"],
    "softmax": ["S", "axis"],
    "attention_weights": ["Q", "K", "causal", "scale"],
    "attention": ["Q", "K", "V", "causal", "scale"],
    "self_attention": ["X", "Wq", "Wk", "Wv", "Wo", "causal"],
    "multi_head_attention": ["X", "Wq", "Wk", "Wv", "Wo", "n_heads", "causal"],
    "layer_norm": ["X", "g", "b", "eps"],
    "gelu": ["X"],
    "transformer_block": ["X", "p", "n_heads", "causal"],
    "next_token_logits": ["H", "W_vocab"],
    "softmax_backward": ["A", "dA"],
    "attend_step": ["q", "K_cache", "V_cache"],
    "kv_cache_bytes": ["n_layers", "n_heads", "d_head", "seq_len", "batch", "bytes_per_value"],
    "sample_next": ["logits", "temperature", "u"],
    "tiled_attention": ["Q", "K", "V", "causal", "block"],
    "attention_backward": ["Q", "K", "V", "dO", "causal", "scale"],
    "cross_entropy": ["logits", "targets"],
    "layer_norm_backward": ["X", "g", "dY", "eps"],
}
DEFAULTS = {("softmax", "axis"): -1, ("attention", "causal"): True, ("attention", "scale"): True,
            ("self_attention", "Wo"): None, ("layer_norm", "eps"): 1e-5, ("kv_cache_bytes", "batch"): 1,
            ("kv_cache_bytes", "bytes_per_value"): 2, ("tiled_attention", "block"): 64,
            ("attention_backward", "causal"): True, ("attention_backward", "scale"): True,
            ("layer_norm_backward", "eps"): 1e-5}


def test_contract_signatures():
    for name, params in CONTRACT.items():
        fn = getattr(attnlib, name)
        sig = inspect.signature(fn)
        assert list(sig.parameters) == params, name
        assert name in attnlib.__all__
        assert fn.__doc__ and len(fn.__doc__.strip()) > 20, f"{name} needs a docstring with shapes"
    for (name, param), default in DEFAULTS.items():
        assert inspect.signature(getattr(attnlib, name)).parameters[param].default == default


def test_maths_modules_never_import_the_viewers():
    import pathlib
    root = pathlib.Path(attnlib.__file__).parent
    for module in ("projection", "mixing", "attention", "layers", "gradients", "cache", "model", "optim", "train",
                   "data"):
        path = root / f"{module}.py"
        if path.exists():
            text = path.read_text()
            for viewer in ("viz", "widgets", "checks"):
                assert f"import {viewer}" not in text and f".{viewer} import" not in text, (module, viewer)

"""Notebook 17: which K/V group each query head reads, and what the KV cache weighs with that many groups."""
import colorsys

import numpy as np

from .. import viz
from ..._validate import positive_int
from ...cache import kv_cache_bytes
from ..viz.tables import CSS, FONT, esc
from .controls import IntSlider
from .explorer import Explorer, _text

GiB = 2 ** 30


def divisors(n):
    """The numbers of K/V groups that n query heads can share evenly: every divisor of n, ascending."""
    return [d for d in range(1, n + 1) if n % d == 0]


def gqa_state(n_heads=32, n_kv_heads=8, n_layers=32, d_head=128, seq_len=32768, bytes_per_value=2):
    """n_heads query heads sharing n_kv_heads K/V groups, and the KV cache of a model of that shape.

    group (n_heads,): the group query head h reads, h // (n_heads // n_kv_heads), so each group serves a
    contiguous block of group_size heads. bytes: kv_cache_bytes with n_kv_heads groups (one key and one value
    per group, layer and token); bytes_mha the same with one group per head; per_token the bytes one token adds.
    """
    n_heads, n_kv_heads = positive_int("n_heads", n_heads), positive_int("n_kv_heads", n_kv_heads)
    if n_heads % n_kv_heads:
        raise ValueError(f"n_kv_heads={n_kv_heads} must divide n_heads={n_heads} (each group serves the same number "
                         f"of query heads); choose one of {divisors(n_heads)}")
    group_size = n_heads // n_kv_heads
    shape = dict(n_layers=n_layers, n_heads=n_heads, d_head=d_head, bytes_per_value=bytes_per_value)
    nbytes = kv_cache_bytes(seq_len=seq_len, n_kv_heads=n_kv_heads, **shape)
    mha = kv_cache_bytes(seq_len=seq_len, **shape)
    return {"n_heads": n_heads, "n_kv_heads": n_kv_heads, "group_size": group_size,
            "group": np.arange(n_heads) // group_size, "n_layers": n_layers, "d_head": d_head, "seq_len": seq_len,
            "bytes_per_value": bytes_per_value, "bytes": nbytes, "bytes_mha": mha,
            "per_token": kv_cache_bytes(seq_len=1, n_kv_heads=n_kv_heads, **shape), "saving": mha // nbytes}


def group_colour(g):
    """A light background for K/V group g: hues a golden angle apart, so neighbouring groups never look alike."""
    r, gr, b = colorsys.hls_to_rgb((0.58 + g * 0.381966) % 1.0, 0.82, 0.65)
    bg = "#" + "".join(f"{round(255 * c):02x}" for c in (r, gr, b))
    return bg, viz.text_colour(bg)


def _cell(text, g, span=1, label=""):
    bg, fg = group_colour(g)
    wide = f' colspan="{span}"' if span > 1 else ""
    return (f'<td class="ra-cell ra-group-{g}" data-value="{g}" title="{esc(label)}"{wide} '
            f'style="background:{bg};color:{fg};text-align:center;padding:2px 3px">{esc(text)}</td>')


def _size(nbytes):
    return f"{nbytes / GiB:.2f} GiB" if nbytes >= GiB else f"{nbytes / 2 ** 20:.1f} MiB"


def _bar(label, nbytes, top, colour):
    width = max(1, round(260 * nbytes / top))
    return (f'<div style="margin:3px 0">{esc(label)}<br><span style="display:inline-block;width:{width}px;'
            f'height:12px;background:{colour};vertical-align:middle"></span> '
            f'<span class="ra-bytes" data-bytes="{nbytes}">{nbytes:,} bytes ({_size(nbytes)})</span></div>')


def render_gqa(s):
    n, kv, r = s["n_heads"], s["n_kv_heads"], s["group_size"]
    heads = "".join(_cell(str(h), int(g), label=f"query head {h} reads K/V group {g}")
                    for h, g in enumerate(s["group"]))
    groups = "".join(_cell(f"K/V {g}", g, r, f"K/V group {g}: query heads {g * r} to {(g + 1) * r - 1}")
                     for g in range(kv))
    table = (f'<table class="ra-matrix" data-name="heads" style="border-collapse:collapse;{FONT}">'
             f'<tr><th class="ra-row" scope="row">query head</th>{heads}</tr>'
             f'<tr><th class="ra-row" scope="row">reads</th>{groups}</tr></table>')
    kind = ("multi-head attention (MHA)" if kv == n else "multi-query attention (MQA)" if kv == 1
            else "grouped-query attention (GQA)")
    title = f'<div class="ra-title"><b>{n} query heads, {kv} K/V group{"s" if kv > 1 else ""}: {kind}</b></div>'
    shape = (f"{s['n_layers']} layers, d_head {s['d_head']}, {s['seq_len']:,} tokens, "
             f"{s['bytes_per_value']} bytes a number")
    cache = (f'<div class="ra-view" style="{viz.PANEL}"><b>KV cache</b> ({esc(shape)})'
             + _bar(f"one K/V head per query head ({n})", s["bytes_mha"], s["bytes_mha"], "#92c5de")
             + _bar(f"this model ({kv} K/V group{'s' if kv > 1 else ''})", s["bytes"], s["bytes_mha"], "#2166ac")
             + f'<div style="color:{viz.MUTED}">per token: {s["per_token"]:,} bytes</div></div>')
    picture = (CSS + '<div style="display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start">'
               f'<div class="ra-view" style="{viz.PANEL}">{title}{table}</div>{cache}</div>')
    if kv == n:
        note = (f"Every query head has its own keys and values: lesson 09's multi-head attention. The cache keeps "
                f"{n} keys and {n} values per layer and token. Move the K/V groups slider left to share them.")
    else:
        plural = "s" if kv > 1 else ""
        note = (f"Query head h reads group h // {r}: heads 0 to {r - 1} share group 0, the next {r} group 1, and so "
                f"on, in contiguous blocks. The queries are unchanged; the cache keeps {kv} key{plural} and {kv} "
                f"value{plural} per layer and token instead of {n}: {s['saving']}\u00d7 smaller.")
    return {"picture": picture, "note": _text(esc(note))}


def gqa_explorer(n_heads=32, n_kv_heads=8, n_layers=32, d_head=128, seq_len=32768, bytes_per_value=2):
    """Move the number of query heads and of K/V groups (a divisor of the heads): see which group each query head
    reads, coloured by group, and the KV cache of a model with that many groups beside it."""
    shape = dict(n_layers=n_layers, d_head=d_head, seq_len=seq_len, bytes_per_value=bytes_per_value)
    gqa_state(n_heads, n_kv_heads, **shape)  # bad sizes raise here, before any widget exists
    controls = {"heads": IntSlider(value=n_heads, min=1, max=max(32, n_heads), description="query heads"),
                "kv": IntSlider(value=n_kv_heads, min=1, max=n_heads, description="K/V groups")}
    last = {"kv": n_kv_heads}

    def compute():
        n, kv = controls["heads"].value, controls["kv"].value
        options = divisors(n)
        if kv not in options:  # a slider step between two divisors moves on to the next one in that direction
            up = kv > last["kv"] and kv <= n
            kv = min(d for d in options if d >= kv) if up else max(d for d in options if d <= kv)
        s = gqa_state(n, kv, **shape)
        controls["kv"].max = n
        controls["kv"].value = last["kv"] = kv
        return s

    return Explorer("gqa", controls, compute, render_gqa)

"""The course, in order: the one place that lists the lessons.

Everything that needs the course order reads `LESSONS`: the tests (notebook
rules, exercise sync, grader coverage), the command line (`status`, `check NN`),
the README's course map and notebook 00's map. Adding a lesson is its notebook,
its solutions notebook and one entry here (the exercise notebook is generated).
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    """One lesson: notebooks/{stem}.ipynb, and solutions/ + exercises/{stem}.ipynb when it has exercises."""
    stem: str                 # "06_mask_and_softmax": number and topic, the notebooks' file name
    title: str                # its short title in the course map
    idea: str                 # the idea in one line, for the course map (Markdown, $maths$ allowed)
    explorers: tuple = ()     # attnlib.viewers.widgets functions the notebook opens
    exercises: tuple = ()     # attnlib.checks names, in the order the exercise notebook checks them

    @property
    def number(self):
        return self.stem[:2]


LESSONS = (
    Lesson("00_start_here", "Start here",
           "how the course works, the names $X, W, Q, K, V, S, A, O$, this map"),
    Lesson("01_projection", "One vector through one matrix",
           "$x' = xW$: 128 numbers in, 256 out",
           ("projection_explorer",), ("project", "compose")),
    Lesson("02_batches", "Many inputs at once",
           "$Y = XW$, and rows never influence each other",
           ("batch_explorer",), ("project_rows", "matmul_cost")),
    Lesson("03_tokens_and_values", "Tokens and values",
           'a sentence as $X$; $V = XW_v$; the two "the" rows',
           ("batch_explorer",), ("values", "one_hot")),
    Lesson("04_mixing_rows", "Mixing rows",
           "the causal average $O = AV$ with a lower-triangular $A$",
           ("mixing_explorer",), ("uniform_causal_weights", "causal_average")),
    Lesson("05_learned_mixing", "Learned mixing",
           r"$Q$, $K$ and the similarity matrix $QK^\top$",
           ("similarity_explorer",), ("similarity", "learned_scores")),
    Lesson("06_mask_and_softmax", "Mask and softmax",
           r"$-\infty$ for the future, softmax rows, why $1/\sqrt{d_{head}}$",
           ("softmax_explorer",), ("causal_mask", "softmax", "score_scale", "attention_weights")),
    Lesson("07_attention_module", "The attention module",
           r"$O = \mathrm{softmax}(\mathrm{mask}(QK^\top/\sqrt{d}))\,V$, then $W_o$",
           ("attention_explorer",), ("attention", "self_attention", "future_leak", "tiled_attention")),
    Lesson("08_positions", "Positions",
           "attention alone cannot tell order; add a position vector to each row of $X$",
           ("positions_explorer",), ("embed", "sinusoidal_positions")),
    Lesson("09_heads", "Many heads",
           "several small attention patterns side by side, concatenated, then $W_o$",
           ("heads_layers_explorer",), ("split_heads", "multi_head_attention")),
    Lesson("10_block", "The block",
           "layer norm, GELU and the MLP; residuals and pre-LN make a deep stack work",
           ("heads_layers_explorer",), ("layer_norm", "gelu", "transformer_block")),
    Lesson("11_next_token", "The next token",
           "logits, backprop checked by finite differences, training, the convergence lesson",
           ("heads_layers_explorer",), ("next_token_logits", "cross_entropy", "softmax_backward",
                                     "attention_backward", "layer_norm_backward")),
    Lesson("12_trained_attention", "Attention, trained",
           "the running example trained: which word each word looks at, measured",
           ("attention_explorer", "similarity_explorer"), ("most_attended", "attention_entropy")),
    Lesson("13_no_mask", "Attention without a mask",
           "reading the whole sentence; cross-attention",
           ("attention_explorer",), ("padding_mask", "cross_attention")),
    Lesson("14_generation_and_kv_cache", "Generation and the KV cache",
           "$K$ and $V$ grow by one row per token",
           ("kv_cache_explorer",), ("attend_step", "cache_step", "sample_next", "top_k_filter", "top_p_filter",
                                  "generate", "kv_cache_bytes", "max_cached_tokens")),
    Lesson("15_induction_heads", "What two layers find",
           "an induction head: one layer cannot copy from context, two can; found by scores, proved by ablation",
           ("induction_explorer",), ("previous_token_score", "prefix_matching_score", "ablate_head")),
    Lesson("16_rope", "Relative positions: RoPE",
           "rotate each pair of $q$ and $k$ features by an angle that grows with the position: "
           "scores see only the offset",
           ("rope_explorer",), ("rope", "rope_attention")),
    Lesson("17_grouped_queries", "Shared keys and values: GQA",
           "several query heads read one group of $K$ and $V$: the cache shrinks by the group size",
           ("gqa_explorer",), ("grouped_query_attention", "grouped_cache_step")),
    Lesson("18_sliding_window", "A bounded cache: sliding windows",
           "each token sees the last $w$ positions, and the first few kept as sinks: the cache stops growing",
           ("window_explorer",), ("sliding_window_mask", "rolling_cache_step")),
    Lesson("19_your_own_model", "Your own model",
           "your functions inside TinyLM: it trains on the running example and generates with your cache",
           ("ops_explorer",), ("capstone",)),
)

STEMS = tuple(lesson.stem for lesson in LESSONS)
EXERCISE_LESSONS = tuple(lesson for lesson in LESSONS if lesson.exercises)


def lesson(key):
    """The lesson for a number (6, "06"), a stem ("06_mask_and_softmax") or an exercise name ("softmax")."""
    text = str(key).strip()
    for les in LESSONS:
        if text in (les.stem, les.number) or (text.isdigit() and int(text) == int(les.number)):
            return les
        if text in les.exercises:
            return les
    known = ", ".join(les.number for les in LESSONS)
    raise ValueError(f"no lesson {key!r}: give a number ({known}), a stem or an exercise name")


def course_map(where="readme"):
    """The course map as a Markdown table, with links that work from the README or from notebooks/."""
    notebook, exercises = ("notebooks/", "exercises/") if where == "readme" else ("", "../exercises/")
    rows = ["| | notebook | the idea | exercises |", "|---|---|---|---|"]
    for les in LESSONS:
        names = ", ".join(f"`{n}`" for n in les.exercises)
        linked = f"[{names}]({exercises}{les.stem}.ipynb)" if names else "-"
        rows.append(f"| {les.number} | [{les.title}]({notebook}{les.stem}.ipynb) | {les.idea} | {linked} |")
    return "\n".join(rows)

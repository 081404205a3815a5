"""Lesson 15, what two layers find: previous_token_score, prefix_matching_score and ablate_head."""
import numpy as np

import attnlib as at
from .probes import rand
from .spec import Exercise, Probe


# previous_token_score(A) -------------------------------------------------------------------------------------------

def previous_token_steps(A, *, c):
    """The mean of A[t, t - 1] over t = 1 .. T-1; 0.0 when T = 1."""
    T = A.shape[0]
    if T == 1:  # as the text asks, first; a learner who forgets it meets the options below
        return c.step("no previous position", right=lambda: 0.0, prev_token_single_row=lambda: np.nan,
                      prev_token_single_row__error=lambda: 0.0 / 0, prev_token_single_row__one=lambda: 1.0)
    key = c("previous key", right=lambda t: t - 1, prev_token_above_diagonal=lambda t: t + 1,
            prev_token_main_diagonal=lambda t: t, prev_token_two_back=lambda t: t - 2,
            prev_token_first_position=lambda t: 0)
    keyed = [(t, key(t)) for t in range(1, T) if 0 <= key(t) < T]  # (row, key) where both exist, as np.diagonal
    cells = c("rows scored", right=keyed, prev_token_row_0_included=[(t, key(t)) for t in range(T) if key(t) < T],
              prev_token_row_0_included__clipped=[(t, max(key(t), 0)) for t in range(T) if key(t) < T],
              prev_token_last_row_left_out=keyed[:-1], prev_token_last_row_left_out__two_rows=keyed[:-1] or keyed,
              prev_token_from_row_2=keyed[1:],
              prev_token_last_row_only=keyed[-1:])  # a key of -1 reads the last column, as numpy does
    d = np.array([A[t, k] for t, k in cells])
    d = c.step("what is measured", right=lambda: d, prev_token_counts_rows_above_half=lambda: (d > 0.5) * 1.0,
               prev_token_counts_argmax_rows=lambda: np.array([float(A[t].argmax() == k) for t, k in cells]))
    if d.size == 0:  # T = 2 two back, or no row left
        return 0.0
    return c.step("average", right=lambda: float(d.mean()), prev_token_row_0_included__over_T=lambda: d.sum() / T,
                  prev_token_sum=lambda: float(d.sum()), prev_token_max=lambda: float(d.max()),
                  prev_token_min=lambda: float(d.min()), prev_token_median=lambda: float(np.median(d)),
                  prev_token_per_row=lambda: d.copy())


def _causal(seed, T, scale=2.0):
    """A trained-looking causal map (T, T): a softmax of random scores, the future masked."""
    return at.softmax(rand(seed, T, T, scale=scale) + at.causal_mask(T))


def _stripe(seed, T, offset):
    """A causal map whose rows put most of their weight `offset` positions back (where there is one), with noise."""
    S = rand(seed, T, T, scale=0.7)
    t = np.arange(-offset if offset < 0 else 0, T)
    S[t, t + offset] += 4.0
    return at.softmax(S + at.causal_mask(T))


PREVIOUS_PROBES = [Probe((_causal(1500, 6),), names=("A",)),
                   Probe((_stripe(1501, 8, -1),), names=("A",)),             # a previous-token head
                   Probe((at.uniform_causal_weights(5),), names=("A",)),      # exact weights 1 / (t + 1)
                   Probe((np.ones((1, 1)),), names=("A",)),                   # T = 1: no previous position
                   Probe((_causal(1502, 2),), names=("A",)),
                   Probe((_stripe(1503, 7, -2),), names=("A",))]              # a head two back


# prefix_matching_score(A, tokens) ----------------------------------------------------------------------------------

def prefix_matching_steps(A, tokens, *, c):
    """For each t with earlier copies j < t of tokens[t], the sum of A[t, j + 1]; the mean of those sums."""
    T = len(tokens)
    before = c("which copies", right=lambda t: range(t), prefix_match_includes_itself=lambda t: range(t + 1),
               prefix_match_includes_itself__guarded=lambda t: range(min(t + 1, T - 1)),
               prefix_match_later_copies=lambda t: range(t + 1, T),
               prefix_match_later_copies__anywhere=lambda t: [j for j in range(T) if j != t],
               prefix_match_later_copies__masked=lambda t: range(t + 1, T - 1),
               prefix_match_later_copies__anywhere_masked=lambda t: [j for j in range(T - 1) if j != t],
               prefix_match_misses_the_copy_just_before=lambda t: range(t - 1),
               prefix_match_misses_position_0=lambda t: range(1, t))
    positions = c("which positions", right=range(T), prefix_match_last_position_left_out=range(T - 1))
    whose = c("whose copies", right=lambda t: t, prefix_match_copies_of_the_previous_token=lambda t: t - 1,
              prefix_match_copies_never_found=lambda t: None)
    copies = [[j for j in before(t) if whose(t) is not None and tokens[j] == tokens[whose(t)]]
              for t in positions]  # earlier copies of each token
    copies = c.step("how many copies", right=lambda: copies,
                    prefix_match_first_copy_only=lambda: [js[:1] for js in copies],
                    prefix_match_latest_copy_only=lambda: [js[-1:] for js in copies],
                    prefix_match_second_occurrence_only=lambda: [js if len(js) == 1 else [] for js in copies])
    shift = c("which position", right=1, prefix_match_on_the_copy=0, prefix_match_before_the_copy=-1,
              prefix_match_two_after=2)
    weight = c("which entry", right=lambda t, k: A[t, k], prefix_match_transposed=lambda t, k: A[k, t])
    weights = [[weight(t, j + shift) for j in js] for t, js in enumerate(copies) if js]
    if not weights:  # IndexError above past the end, as a learner's loop gives
        return c.step("no copies", right=lambda: 0.0, prefix_match_no_copies=lambda: np.nan,
                      prefix_match_no_copies__error=lambda: 0.0 / len(weights))
    per = c.step("one position's share", right=lambda: [sum(w) for w in weights],
                 prefix_match_averaged_over_copies=lambda: [sum(w) / len(w) for w in weights],
                 prefix_match_max_over_copies=lambda: [max(w) for w in weights])
    return c.step("average", right=lambda: float(np.mean(per)),
                  prefix_match_mean_over_all_positions=lambda: float(np.sum(per) / T),
                  prefix_match_mean_over_all_positions__T_minus_1=lambda: float(np.sum(per) / (T - 1)),
                  prefix_match_mean_over_pairs=lambda: float(sum(map(sum, weights)) / sum(map(len, weights))),
                  prefix_match_sum=lambda: float(np.sum(per)), prefix_match_max=lambda: float(np.max(per)),
                  prefix_match_median=lambda: float(np.median(per)))


def _tokens_probe(A, tokens):
    return Probe((A, np.array(tokens, dtype=np.int64)), names=("A", "tokens"))


def _induction(seed, tokens):
    """A causal map that looks right after the latest earlier copy of each token (where there is one), with noise."""
    T = len(tokens)
    S = rand(seed, T, T, scale=0.7)
    for t in range(T):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            S[t, js[-1] + 1] += 4.0
    return at.softmax(S + at.causal_mask(T))


_REPEAT = [11, 4, 9, 2, 7, 5, 9, 2, 7, 5, 3]  # a prefix, the stretch 9 2 7 5, then the stretch again

PREFIX_PROBES = [_tokens_probe(_causal(1510, 6), [3, 7, 1, 3, 7, 1]),
                 _tokens_probe(_causal(1511, 7), [5, 2, 5, 9, 5, 2, 8]),           # 5 three times: every copy counts
                 _tokens_probe(_causal(1512, 4), [4, 4, 1, 4]),                    # a copy just before: j + 1 = t
                 _tokens_probe(_causal(1513, 5), [0, 1, 2, 3, 4]),                 # no copies: 0.0
                 _tokens_probe(np.ones((1, 1)), [6]),                              # T = 1
                 _tokens_probe(_induction(1514, _REPEAT), _REPEAT),                # an induction head
                 _tokens_probe(_causal(1515, 5), [2, 8, 3, 6, 2]),                 # the first token again at the end
                 _tokens_probe(np.eye(6, k=-1) + np.eye(6)[0] * np.eye(6)[:, :1], [1, 2, 1, 2, 3, 1])]  # one-hot,
# one back (row 0 on itself): some copies get weight 1, the last one exactly 0


# ablate_head(Wo, head, n_heads) ------------------------------------------------------------------------------------

def ablate_steps(Wo, head, n_heads, *, c):
    """A copy of Wo with rows head * d_head .. (head + 1) * d_head zeroed, d_head = rows / n_heads."""
    axis, across = c("axis", right=(0, 0), ablate_columns=(1, 1), ablate_columns__width_of_rows=(1, 0))
    d = c("head rows", right=Wo.shape[across] // n_heads, ablate_width_from_columns=Wo.shape[1 - across] // n_heads,
          ablate_width_is_n_heads=n_heads)
    h = c("which head", right=head, ablate_head_counted_from_one=head - 1)
    rows = c.step("which rows", right=lambda: slice(h * d, (h + 1) * d),
                  ablate_one_row_short=lambda: slice(h * d, (h + 1) * d - 1),
                  ablate_one_row_long=lambda: slice(h * d, (h + 1) * d + 1),
                  ablate_shifted_by_one=lambda: slice(h * d + 1, (h + 1) * d + 1),
                  ablate_first_row_only=lambda: slice(h * d, h * d + 1), ablate_rows_from_head=lambda: slice(h, h + d),
                  ablate_row_head_only=lambda: slice(h, h + 1), ablate_interleaved=lambda: slice(h, None, n_heads),
                  ablate_later_heads_too=lambda: slice(h * d, None),
                  ablate_earlier_heads_too=lambda: slice(0, (h + 1) * d))
    out = Wo.copy()
    every = np.arange(out.shape[axis])
    rows = c.step("what is zeroed", right=lambda: rows,
                  ablate_every_other_head=lambda: np.setdiff1d(every, every[rows]))
    block = out[rows] if axis == 0 else out[:, rows]
    value = c.step("what replaces it", right=lambda: 0.0, ablate_mean_row=lambda: block.mean(axis=axis, keepdims=True))
    if axis == 0:
        out[rows] = value
    else:
        out[:, rows] = value
    return c.step("what is returned", right=lambda: out, ablate_returns_the_head_rows=lambda: Wo[rows].copy(),
                  ablate_returns_the_head_rows__zeroed=lambda: np.zeros_like(Wo[rows]),
                  ablate_rows_deleted=lambda: np.delete(Wo, every[rows], axis=0))


def _ablate_probe(seed, rows, cols, head, n_heads):
    return Probe((rand(seed, rows, cols), head, n_heads), names=("Wo", "head", "n_heads"))


ABLATE_PROBES = [_ablate_probe(1520, 6, 4, 1, 3),     # the middle one of three heads, d_head = 2
                 _ablate_probe(1521, 8, 5, 0, 2),     # the first head
                 _ablate_probe(1522, 12, 3, 3, 4),    # the last head
                 _ablate_probe(1523, 4, 6, 0, 1),     # one head: every row
                 _ablate_probe(1524, 15, 10, 2, 5),   # d_head = 3, more columns than a head's rows
                 _ablate_probe(1525, 9, 9, 1, 3)]


CHOICES = {
    "previous key": "Look at which entry of row t you read: the position just before t, below the diagonal.",
    "what is measured": "Look at what you average: the weights themselves, not a count of rows.",
    "no previous position": "Look at a map with one row: there is nothing to average, and the text says what to "
                            "return then.",
    "rows scored": "Look at which rows you average over: only those with a position before them.",
    "average": "Look at how the weights become one number: their mean over the rows that have a previous position.",
    "which copies": "Look at which positions count as an earlier copy: every one strictly before t, never t itself.",
    "which positions": "Look at which positions you go through: every one of them, the last included.",
    "whose copies": "Look at whose earlier copies you look for: the current token's, compared by value.",
    "how many copies": "Look at a token that appeared more than once before: every earlier copy adds its weight.",
    "which position": "Look at which key you read for a copy at j: the one right after it.",
    "which entry": "Look at the order of the indices: row t is the query, the column the key.",
    "no copies": "Look at a sequence with no repeated token: the text says what to return then.",
    "one position's share": "Look at what one position contributes: the total over its earlier copies.",
    "head rows": "Look at how many rows one head owns: the rows of W_o shared equally by the heads.",
    "which head": "Look at how the heads are counted: the first head is head 0.",
    "which rows": "Look at which rows belong to the head: one block of d_head rows in a row, starting head blocks "
                  "down, its stop not included.",
    "axis": "Look at which axis of W_o belongs to the heads: the concatenated outputs meet its rows.",
    "what is zeroed": "Look at which rows become 0: only the chosen head's, every other entry unchanged.",
    "what replaces it": "Look at what the head's rows become: zeros, so that the head adds nothing.",
    "what is returned": "Look at what you return: the whole of W_o, with the head's rows zeroed.",
}


EXERCISES = [
    Exercise(
        name="previous_token_score",
        reference=at.previous_token_score,
        probes=PREVIOUS_PROBES,
        pipeline=previous_token_steps,
        verified="the mean weight one position back: random causal maps, a previous-token head, exact weights, a "
                 "head two back, and T = 1 and 2",
        hint1="A previous-token head puts most of every row on the position just before the query. Its score "
              "averages that one weight over the rows that have a position before them.",
        hint2="The weights one position back lie on the diagonal just below the main one. Row 0 has none, so the "
              "mean is over T - 1 rows; with a single row there is nothing to average.",
        formula="score = mean(A[t, t-1] for t in 1 .. T-1), 0.0 when T = 1",
    ),
    Exercise(
        name="prefix_matching_score",
        reference=at.prefix_matching_score,
        probes=PREFIX_PROBES,
        pipeline=prefix_matching_steps,
        verified="the mean weight right after the earlier copies: repeats, a token seen three times, a copy just "
                 "before, no copies, T = 1 and an induction head",
        hint1="An induction head, at a token it has seen before, looks at what came right after that earlier "
              "sighting: that is the best guess for what comes next.",
        hint2="For each position, find the earlier positions holding the same token; the key to read is the one "
              "right after each of them. Add those weights within a row, and average over the rows that had a copy.",
        formula="score = mean over t with copies of Σ_{j<t, tokens[j] = tokens[t]} A[t, j+1], 0.0 if no t has one",
    ),
    Exercise(
        name="ablate_head",
        reference=at.ablate_head,
        probes=ABLATE_PROBES,
        pipeline=ablate_steps,
        verified="one head's rows of W_o zeroed in a copy: the first, a middle and the last head, one head only, "
                 "and W_o wider than tall",
        hint1="The heads' outputs sit side by side before W_o, so each head reaches the model only through its own "
              "block of W_o's rows. Zero that block and the head is silenced.",
        hint2="Each head owns the same number of rows: the rows of W_o divided by the number of heads. Head h's "
              "block starts h blocks down. Work on a copy so the model keeps its own W_o.",
        formula="d = Wo.shape[0] // n_heads; out = Wo.copy(); out[head*d:(head+1)*d] = 0",
    ),
]


DIAGNOSES = {
    "prev-token-above-diagonal": "You read the weights above the diagonal (A[t, t + 1], or A transposed): a query's "
                                 "look at the next position, which a causal map sets to 0.",
    "prev-token-main-diagonal": "You read the main diagonal, each row's weight on itself, instead of the position "
                                "just before it.",
    "prev-token-two-back": "You read the weights two positions back instead of one.",
    "prev-token-single-row": "With a single row there is no previous position: your function divides by zero, or "
                             "returns NaN or 1, where the text asks for 0.0.",
    "prev-token-first-position": "You read each row's weight on the first position, A[t, 0], instead of on the "
                                 "position just before it.",
    "prev-token-last-row-left-out": "The last row was left out of the mean: the rows run from 1 to T - 1 inclusive.",
    "prev-token-from-row-2": "The mean starts at row 2 and leaves out row 1, which has a previous position too.",
    "prev-token-last-row-only": "You returned the last row's weight one back instead of the mean over every row.",
    "prev-token-counts-rows-above-half": "You counted the rows whose weight one back is above 0.5; the score averages "
                                         "the weights themselves.",
    "prev-token-counts-argmax-rows": "You counted the rows whose largest weight is one back; the score averages the "
                                     "weights themselves.",
    "prev-token-min": "You took the smallest weight one back instead of their mean.",
    "prev-token-median": "You took the median of the weights one back instead of their mean.",
    "prev-token-row-0-included": "Row 0 was counted too, so the mean is over T rows instead of T - 1: row 0 has no "
                                 "position before it (its weight one back is 0, or wraps round to its last column).",
    "prev-token-sum": "The weights one back were added up, not averaged.",
    "prev-token-max": "You took the largest weight one back instead of their mean.",
    "prev-token-per-row": "You returned every row's weight one back, an array, instead of their mean.",
    "prefix-match-includes-itself": "Position t was counted as its own earlier copy: the copies must stand strictly "
                                    "before t.",
    "prefix-match-later-copies": "You looked for copies at later positions too, which a causal map cannot see: only "
                                 "copies before position t count.",
    "prefix-match-first-copy-only": "Only the first earlier copy of a token was counted; a token seen several times "
                                    "adds the weight after every copy.",
    "prefix-match-latest-copy-only": "Only the latest earlier copy of a token was counted; a token seen several times "
                                     "adds the weight after every copy.",
    "prefix-match-on-the-copy": "You read the weight on the earlier copy itself, at j, instead of on the token after "
                                "it, at j + 1.",
    "prefix-match-before-the-copy": "You read the weight on the token before the earlier copy, at j - 1, instead of "
                                    "after it.",
    "prefix-match-two-after": "You read the weight two positions after the earlier copy instead of one.",
    "prefix-match-transposed": "The indices are swapped: you read A[j + 1, t], the copy's row, instead of A[t, j + 1], "
                               "the current position's row.",
    "prefix-match-no-copies": "With no repeated token there is no position to average: your function divides by "
                              "zero, or returns NaN or None, where the text asks for 0.0.",
    "prefix-match-misses-the-copy-just-before": "The search for copies stops at t - 2, missing a copy right before "
                                                "position t (a token said twice in a row).",
    "prefix-match-copies-of-the-previous-token": "You looked for earlier copies of the token before position t "
                                                 "instead of the token at t.",
    "prefix-match-copies-never-found": "Your score is 0 on every sequence: no position found an earlier copy of its "
                                       "token, so the comparison of two token ids never held.",
    "prefix-match-second-occurrence-only": "Only positions with exactly one earlier copy were scored; a token seen "
                                           "two or more times before counts too.",
    "prefix-match-misses-position-0": "The search for copies starts at position 1, missing a copy at position 0.",
    "prefix-match-last-position-left-out": "The last position was left out, although it can have an earlier copy.",
    "prefix-match-max-over-copies": "Each position kept the largest weight among its earlier copies instead of adding "
                                    "them up.",
    "prefix-match-mean-over-pairs": "You averaged over every (position, copy) pair instead of first adding up each "
                                    "position's copies and then averaging over positions.",
    "prefix-match-max": "You took the largest of the positions' sums instead of their mean.",
    "prefix-match-median": "You took the median of the positions' sums instead of their mean.",
    "prefix-match-averaged-over-copies": "Each position's weights were averaged over its earlier copies instead of "
                                         "added up.",
    "prefix-match-mean-over-all-positions": "The sums were divided by the number of all positions, although only the "
                                            "positions with an earlier copy count.",
    "prefix-match-sum": "The positions' sums were added up, not averaged.",
    "ablate-width-from-columns": "A head's number of rows was computed from W_o's columns (d_model), but the heads "
                                 "share its rows.",
    "ablate-width-is-n-heads": "Each head was given n_heads rows; a head owns rows / n_heads of them.",
    "ablate-head-counted-from-one": "The heads were counted from 1, so the head before the chosen one was zeroed.",
    "ablate-one-row-short": "The block of zeroed rows stops one row early, leaving the head's last row.",
    "ablate-one-row-long": "The block of zeroed rows runs one row too far, into the next head.",
    "ablate-shifted-by-one": "The block of zeroed rows starts one row late and ends one row into the next head.",
    "ablate-first-row-only": "Only the first row of the head's block was zeroed.",
    "ablate-rows-from-head": "The block started at row `head` instead of head times the head's width.",
    "ablate-row-head-only": "Only row `head` was zeroed; the head owns a block of d_head rows.",
    "ablate-interleaved": "Rows head, head + n_heads, ... were zeroed, as if the heads took turns row by row; each "
                          "head owns one contiguous block of rows.",
    "ablate-later-heads-too": "The zeroed rows run from the head's block to the end of W_o, silencing every later "
                              "head too.",
    "ablate-earlier-heads-too": "The zeroed rows run from row 0 to the end of the head's block, silencing every "
                                "earlier head too.",
    "ablate-mean-row": "The head's rows were replaced by their mean row instead of zeros, so the head still adds "
                       "something.",
    "ablate-rows-deleted": "The head's rows were deleted, so W_o lost rows; they must stay, as zeros.",
    "ablate-columns": "The head's block of columns was zeroed; the heads meet W_o through its rows.",
    "ablate-every-other-head": "Every head except the chosen one was zeroed: that keeps the head and silences the "
                               "rest.",
    "ablate-returns-the-head-rows": "You returned only the head's block of rows, not the whole of W_o with it zeroed.",
}

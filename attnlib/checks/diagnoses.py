"""The catalogue of recognised mistakes: a stable id and what it means.

The ids are part of the product: tests/mutants pins them, the browser tests read
them from `data-diagnosis`, and a learner can search for them.
"""

DIAGNOSES = {
    # reported by the runner itself
    "mutates-input": "Your function changed an array it was given. The caller still needs it: "
                     "work on a copy (X = X.copy()) or build a new array instead of writing in place.",
    "not-attempted": "The exercise still raises NotImplementedError: replace that line with your code.",
    "uses-attnlib": "That is attnlib's implementation; the exercise is to write it yourself with numpy.",
    "timeout": "Your function did not return within the time limit; look for a loop that never ends.",
    "raised-error": "Your function raised an error on this probe (see the message above).",
    "wrong-type": "Your function returned the wrong kind of object.",
    "wrong-shape": "The result has the wrong shape; check which axes your products and sums run over.",
    "wrong-dtype": "The result is not a float array; the maths here needs real numbers.",
    "output-transposed": "The values are right but rows and columns are swapped: rows must be tokens.",
    "non-finite-output": "The result contains NaN or inf where the expected values are finite.",
    # projections and rows
    "weights-transposed": "You multiplied by W transposed (W·x instead of x·W). With rows as tokens a "
                          "projection is x @ W, where W has shape (d_in, d_out).",
    "rows-from-table-not-tokens": "The rows follow the word table, not the sentence: build one row per "
                                  "token, in sentence order.",
    "tokens-deduplicated": "A repeated word must give a repeated row: every token gets its own row, "
                           "even when the same word appeared earlier.",
    # mixing
    "weights-not-normalised": "The weights of a row must sum to 1 (an average): divide by the number "
                              "of rows being mixed.",
    "normalised-by-n": "Every row was divided by n, but row i mixes only i + 1 rows: divide by i + 1.",
    "average-over-all-rows": "Every row averages the whole sequence, so earlier tokens see the future. "
                             "Row i may only use rows 0..i.",
    "average-over-columns": "You averaged along the feature axis; the average runs over rows (tokens).",
    "off-by-one-count": "Row i averages i + 1 rows (0..i inclusive), not i.",
    # scores
    "k-not-transposed": "Scores need K transposed: Q (n_q, d) @ K.T (d, n_k) gives one dot product per "
                        "(query, key) pair.",
    "kq-instead-of-qk": "You computed K·Qᵀ (keys on the rows). Rows must be queries: S = Q @ K.T.",
    "similarity-scaled": "similarity is the raw dot product Q Kᵀ; the 1/√d scaling comes later, in "
                         "attention_weights.",
    # the mask
    "mask-value-zero": "Masked scores were set to 0, but exp(0) = 1 still gives the future a weight. "
                       "The masked entries must be −∞ so that softmax turns them into exact zeros.",
    "mask-multiplicative": "A causal mask here is additive (0 to keep, −∞ to hide), not a 0/1 matrix "
                           "to multiply with.",
    "mask-finite-value": "Use −∞ (np.inf with a minus sign) for hidden positions, not a large finite number.",
    "mask-hides-diagonal": "The mask also hides the diagonal: a token may look at itself (j <= i). Only "
                           "columns j > i are the future.",
    "mask-hides-past": "The mask hides the past instead of the future: keep columns j <= i, hide j > i.",
    "mask-multiplied": "Multiplying scores by a mask that contains −∞ gives 0·∞ = NaN and ±∞. Add the "
                       "mask to the scores instead.",
    "mask-after-softmax": "The mask was applied after the softmax, so the kept weights no longer sum to "
                          "1 (or −∞ leaks into A). Mask the scores, then take the softmax.",
    "mask-ignores-offset": "When there are fewer queries than keys, the queries are the last n_q "
                           "positions: query i may look at keys 0..(n_k - n_q + i).",
    "mask-not-applied": "With causal=True the future must be hidden, but no mask was applied.",
    "mask-always-applied": "With causal=False nothing is hidden, but a causal mask was applied anyway.",
    "mask-applied": "Cross-attention has no mask: every query may look at every key of the other sequence.",
    # softmax
    "softmax-wrong-axis": "The softmax ran over the wrong axis: each row (one query) must sum to 1.",
    "softmax-ignores-axis": "The softmax ignores its axis argument.",
    "softmax-whole-matrix": "The softmax normalised the whole matrix at once; normalise each row on its own.",
    "softmax-no-max-subtraction": "exp() of large scores overflows to inf (inf/inf = NaN). Subtract the "
                                  "row maximum first: softmax(s) = softmax(s - max(s)).",
    "softmax-not-normalised": "You took exp() but did not divide by the row sum.",
    # scaling
    "scale-missing": "The scores were not scaled: divide Q Kᵀ by √d (d = the query/key width).",
    "scale-by-d": "The scores were divided by d instead of √d.",
    "scale-ignored": "With scale=False the scores must stay unscaled.",
    "scale-by-d-model": "The scores were scaled by √d_model (or the full width), but each head must use "
                        "√d_head, the width of its own queries and keys.",
    "scale-applied-twice": "The scores were scaled twice (1/d instead of 1/√d).",
    # mixing values
    "av-transposed": "You used Aᵀ·V: row i of O must mix the values with row i of A, O = A @ V.",
    "va-instead-of-av": "You computed V·A; the weights come first: O = A @ V.",
    "wo-ignored": "The output projection Wo was given but not applied: return O @ Wo.",
    # heads
    "heads-split-mixed": "The heads were split with a plain reshape that mixes tokens and heads. Reshape "
                         "to (n, n_heads, d_head) and then swap the first two axes.",
    "heads-out-of-order": "The heads are not concatenated in order: head h must fill columns "
                          "h*d_head:(h+1)*d_head.",
    "heads-merge-mixed": "The heads were merged with a plain reshape from (n_heads, n, d_head), which "
                         "mixes tokens. Swap the axes back to (n, n_heads, d_head) first.",
    "heads-ignored": "n_heads was ignored: the columns must be split into n_heads separate heads.",
    # layers
    "layer-norm-eps-outside-sqrt": "eps belongs inside the square root: (x - mean) / sqrt(var + eps).",
    "layer-norm-unbiased-variance": "Layer norm uses the biased variance (divide by d, np.var's default), "
                                    "not ddof=1.",
    "layer-norm-wrong-axis": "Layer norm normalises each row (token) over its features, axis=-1.",
    "layer-norm-eps-ignored": "The eps argument was ignored.",
    "layer-norm-gain-bias-swapped": "g multiplies and b is added: y = x_hat * g + b.",
    "gelu-exact-erf": "That is the exact erf GELU; this course (like GPT-2) uses the tanh approximation.",
    "gelu-sigmoid-approx": "That is the sigmoid approximation x·σ(1.702x); use the tanh form.",
    "gelu-missing-half": "The factor 0.5 is missing.",
    "gelu-relu": "That is a ReLU; GELU is smooth and slightly negative for small negative inputs.",
    "residual-missing": "A residual connection is missing: each sub-layer's output is added to its input "
                        "(Y = X + ..., then Y + ...).",
    "post-ln": "That is a post-LN block (layer norm after the residual add). This block is pre-LN: "
               "normalise the input of each sub-layer, add the raw sub-layer output.",
    "layer-norm-reused": "Each sub-layer has its own layer norm: ln1_* before attention, ln2_* before the MLP.",
    "mlp-missing-gelu": "The MLP needs its non-linearity: gelu(H W1 + b1) W2 + b2.",
    # next token
    "first-row-not-last": "The next token is predicted from the last row of H, not the first.",
    "logits-for-every-row": "Return logits only for the next token: the last row of H @ W_vocab, shape (vocab,).",
    "softmax-applied-to-logits": "Return logits (raw scores), not probabilities: no softmax here.",
    "mean-of-rows": "Use the last row of H, not the mean of all rows.",
    # backward
    "softmax-backward-diagonal-only": "A * dA keeps only the diagonal of the softmax Jacobian; subtract "
                                      "the row sum of dA * A first: dS = A * (dA - sum(dA * A)).",
    "softmax-backward-sum-wrong-axis": "The sum of dA * A runs along each row (axis=-1, keepdims=True).",
    "softmax-backward-missing-a-factor": "The result must be multiplied by A: dS = A * (dA - sum(dA * A)).",
    "softmax-backward-sign": "The sign is flipped: dS = A * (dA - sum(dA * A)).",
    # cross-attention and the cache
    "kv-from-wrong-sequence": "Keys and values must come from the other sequence (Z); only the queries "
                              "come from X.",
    "sources-swapped": "Queries come from X and keys/values from Z, not the other way round.",
    "cache-not-appended": "The new k and v must be appended to the cache before attending, so the new "
                          "token can attend to itself, and the grown caches returned.",
    "cache-prepended": "The new k and v go at the end of the cache (the newest position).",
    "kv-swapped": "Keys score the query (K q) and values are mixed (a V); they were swapped.",
    "kv-cache-missing-factor-2": "The cache stores two tensors per layer, K and V: multiply by 2.",
    "kv-cache-ignores-batch": "Each sequence in the batch has its own cache: multiply by batch.",
    "kv-cache-ignores-layers": "Every layer keeps its own K and V: multiply by n_layers.",
    "kv-cache-bits-not-bytes": "bytes_per_value is already in bytes; do not multiply by 8.",
    "kv-cache-wrong-defaults": "Check the defaults: batch=1 and bytes_per_value=2.",
}


def explain(diagnosis):
    """The explanation for a diagnosis id ('' for None or an unknown id)."""
    return DIAGNOSES.get(diagnosis, "") if diagnosis else ""

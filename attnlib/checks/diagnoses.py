"""The catalogue of recognised mistakes: a stable id and what it means.

The ids are part of the product: tests/grader/mutants pins them, the browser tests read
them from `data-diagnosis`, and a learner can search for them.
"""

DIAGNOSES = {
    # reported by the runner itself
    "mutates-input": "Your function changed an array it was given, and its caller still needs that array as it was.",
    "not-attempted": "The exercise still raises NotImplementedError: replace that line with your code.",
    "uses-attnlib": "That is attnlib's implementation; the exercise is to write it yourself with numpy operations.",
    "timeout": "Your function did not return within the time limit: a loop that never ends, or far too much work.",
    "crashed": "The process running your function died before it returned: something ended it (os._exit, "
               "a crash inside a library) or it ran out of memory. Your kernel is fine; the grader ran it apart.",
    "grader-modified": "Part of the grader, of numpy or of attnlib was replaced in this kernel since the grader "
                       "was loaded (or your function switched off its watch), so no verdict can be trusted. "
                       "Restart the kernel and run your cells again.",
    "not-a-python-int": "The value is right, but it is a numpy integer where the exercise asks for a Python int: "
                        "a numpy integer has a fixed width of 64 bits and wraps around silently past it, while a "
                        "Python int is exact however large it grows.",
    "not-a-python-list": "The words are right, but they come back as an array (or as numpy strings) where the "
                         "exercise asks for a list of Python strings.",
    "wrong-default": "A default value in your function's signature differs from the one the exercise gives, so "
                     "every call that leaves that argument out gets another answer.",
    "edge-size-wrong": "Your function is right on every probe but those where a size is 0 or 1 (one row, one key, "
                       "one head, an axis of length 1, an empty cache): a special case, a squeeze or a loop bound "
                       "goes wrong at that size.",
    "raised-error": "Your function raised an error on this probe (its message is in the list below).",
    "wrong-type": "Your function returned the wrong kind of object.",
    "wrong-shape": "The result does not have the expected shape (both shapes are listed below).",
    "wrong-dtype": "The result is not a float array; the maths here needs real numbers.",
    "output-transposed": "The values are right but rows and columns are swapped: the result is the transpose of "
                         "the one asked for.",
    "axes-permuted": "The values are right but the axes of the result come in another order (named below): a "
                     "transpose that moved other axes than the ones it had to (on an array of three axes, a plain "
                     "transpose reverses all three), or none where one was needed.",
    "non-finite-output": "Some entries are NaN or infinite where the expected ones are finite, or finite where "
                         "infinity is expected.",
    "ids-as-floats": "The ids are right, but they come back as floats where token ids are integers.",
    "returned-booleans": "The values are right, but they come back as True and False where the exercise asks for "
                         "the numbers 1.0 and 0.0.",
    "extra-outputs": "Your function returns more than the result: its first returned value is right, and what "
                     "follows it is not asked for.",
    "wrong-unit": "The quantity is right but in another unit (kilobytes, gigabytes or bits instead of bytes).",
    "one-number-in-an-array": "The number is right, but it is returned inside an array; the exercise asks for one "
                              "number.",
    "as-a-percentage": "The values are right fractions multiplied by 100, percentages; the exercise asks for the "
                       "fractions themselves.",
    "rounded-result": "The values were rounded before they were returned; the exercise asks for them unrounded.",
    "returned-none": "Your function returned None: some path through it ends without returning a value.",
    "input-returned-unchanged": "Your function returned an argument it was given, unchanged: the change it makes "
                                "lands on something it does not return, or is never stored.",
    "int-array": "Your result is an array of integers where the values are real numbers: an array made with an "
                 "int dtype (or from integer inputs, or by floor division) truncates every value written into it, "
                 "and cannot hold minus infinity.",
    "returned-a-list": "The numbers are right, but they come back as a Python list where a numpy array is "
                       "expected.",
    "computed-in-float32": "Your function computes in float32 (PyTorch's default): it keeps only about 7 digits, "
                           "and values beyond about 3e38 overflow to inf, where numpy's float64 keeps about 16 "
                           "digits up to about 1e308.",
    "computed-in-float16": "Your function computes in float16 (half precision): it keeps only about 3 digits, and "
                           "values beyond 65504 overflow to inf, where numpy's float64 keeps about 16 digits.",
    "returns-its-input": "Your function returned the array it was given (or a view of it) instead of a new one, "
                         "so whoever changes the result changes the input too.",
    # projections and rows
    "weights-transposed": "A weight matrix entered the product transposed, as the column-vector habit (W x) writes "
                          "it. Here a matrix stands on the right, and its first axis meets the last axis of what it "
                          "multiplies.",
    "rows-from-table-not-tokens": "The rows follow the word table, not the sentence.",
    "tokens-sorted": "The rows come in sorted (alphabetical) order of the words; one row per token, in the "
                     "sentence's order.",
    "tokens-deduplicated": "A repeated word did not give a repeated row: a word that appears twice in the sentence has "
                           "only one row.",
    # positions
    "positions-not-added": "Only the word vectors were used: the position vectors are missing.",
    "positions-whole-table": "The whole position table was added, all max_len rows of it, where a sentence of n "
                             "tokens takes its first n rows: it only runs when the sentence fills the table.",
    "positions-multiplied": "The word and position vectors were multiplied entry by entry; they are added.",
    "words-scaled-by-root-d": "The word vectors were multiplied by the square root of d_model (a trick of one paper's "
                              "embedding layer); here the word's row is used as it is.",
    "positions-by-token-id": "The position vectors were picked by token id; a position is the place 0, 1, ..., "
                             "n-1 of a token in the sentence, whatever the word.",
    "positions-from-the-end": "You used the last n rows of the position table, but the sentence starts at position 0.",
    "positions-off-by-one": "The positions start at 1; the first token sits at position 0.",
    "words-by-position": "The word vectors were picked by place (rows 0..n-1 of the word table) instead of by "
                         "token id.",
    "positions-concatenated": "The word and position vectors were placed side by side, so X is wider than d_model.",
    # reading a trained attention matrix
    "most-attended-indices": "You returned column numbers; the answer is the words at those columns.",
    "most-attended-wrong-axis": "You took the largest weight down each column, but one query's weights are a row.",
    "most-attended-least": "You picked the smallest weight of each row; the most-attended key has the largest.",
    "most-attended-ties-latest": "Of two equal weights you kept the later column, not the earlier one.",
    # mixing
    "weights-not-normalised": "The weights of a row do not sum to 1, so the rows are not averages.",
    "normalised-by-n": "Every row was divided by n, but row i mixes only i + 1 rows.",
    "average-over-all-rows": "Every row averages the whole sequence, so earlier tokens see the future. "
                             "Row i may only use rows 0..i.",
    "average-over-columns": "You averaged along the feature axis; the average runs over rows (tokens).",
    "average-over-every-number": "Each row is one number repeated, the mean of every entry of rows 0..i (a .mean() "
                                 "with no axis); the average runs down the rows, column by column.",
    "off-by-one-count": "The count row i is divided by is one off: row i averages i + 1 rows (0..i inclusive).",
    # scores
    "k-not-transposed": "The keys entered the product untransposed, so it does not pair each query with each key.",
    "kq-instead-of-qk": "You put the keys first, so the rows of the scores are keys instead of queries.",
    "similarity-scaled": "similarity is the raw dot product of queries and keys; the scaling by the square root of d "
                         "comes later, in attention_weights.",
    # the mask
    "mask-value-zero": "Masked scores were set to 0, but the exponential of 0 is 1, so the future still gets a weight.",
    "mask-multiplicative": "A causal mask here is additive (0 to keep, −∞ to hide), not a 0/1 matrix "
                           "to multiply with.",
    "mask-finite-value": "Hidden positions hold a large finite number instead of −∞ (negative infinity).",
    "mask-hides-diagonal": "The mask also hides the diagonal, but a token may look at itself: only the columns after "
                           "position i are its future.",
    "mask-hides-past": "The mask hides the past instead of the future.",
    "mask-multiplied": "The scores were multiplied by a mask that contains −∞, which gives NaN (zero times infinity) "
                       "and ±∞.",
    "mask-after-softmax": "The mask was applied after the softmax, so the kept weights no longer sum to 1 (or −∞ leaks "
                          "into A).",
    "mask-offset-negated": "With fewer queries than keys, the mask's diagonal was shifted the wrong way: query i "
                           "sits at position i + n_k - n_q, so it sees more keys, not fewer.",
    "mask-ignores-offset": "With fewer queries than keys, the mask treated query i as position i, but the queries are "
                           "the last n_q positions.",
    "mask-not-applied": "With causal set to True the future must be hidden, but no mask was applied.",
    "mask-always-applied": "With causal set to False nothing is hidden, but a causal mask was applied anyway.",
    "mask-applied": "Cross-attention has no mask: every query may look at every key of the other sequence.",
    # softmax
    "softmax-wrong-axis": "The softmax ran over the wrong axis: each row (one query) must sum to 1.",
    "softmax-max-in-numerator-only": "The max was subtracted from the scores above the fraction bar but not below "
                                     "it: the exponentials are divided by the sum of the unshifted ones, so every "
                                     "weight is off by one common factor, and the sum overflows for large scores.",
    "softmax-ignores-axis": "The softmax ignores its axis argument.",
    "softmax-whole-matrix": "The softmax normalised the whole matrix at once instead of each row on its own.",
    "softmax-no-max-subtraction": "Large scores overflow the exponential to inf, and inf divided by inf is NaN.",
    "softmax-scores-clipped": "The scores were clipped to a fixed range before the exponential. Subtracting the "
                              "largest score already keeps every exponential in range; a clip changes the weights of "
                              "scores further apart than the range, and gives a minus-infinity score a weight.",
    "softmax-mean-subtracted": "The mean score was subtracted before the exponential instead of the largest: a "
                               "score far above the mean still overflows, and a minus-infinity score makes the whole "
                               "row NaN.",
    "softmax-min-subtracted": "The smallest score was subtracted before the exponential instead of the largest: "
                              "the exponentials of the others can then still overflow to inf.",
    "softmax-not-normalised": "You took the exponentials but did not divide by the row sum.",
    # scaling
    "scale-missing": "The scores were not scaled: the division by the square root of d, the width of the queries and "
                     "keys, is missing.",
    "scale-by-d": "The scores were divided by d instead of by its square root (or by the square root twice, "
                  "which is the same).",
    "scale-ignored": "With scale set to False the scores must stay unscaled.",
    "scale-by-d-model": "The scores were scaled by the square root of a full width (d_model, or all the heads side "
                        "by side), but each head must use the square root of d_head, the width of its own queries and "
                        "keys.",
    # mixing values
    "av-transposed": "You mixed with A transposed: row i of the output must mix the values with the weights in row i "
                     "of A.",
    "va-instead-of-av": "You put the values first in the product, before the weights.",
    "wo-ignored": "The output projection Wo was given but not applied.",
    # heads
    "heads-split-mixed": "The heads were split with a plain reshape, which mixes tokens and heads: one head's matrix "
                         "holds numbers from several tokens.",
    "heads-split-rows": "The rows (the tokens) were split into groups instead of the columns: every head keeps "
                        "every token, and takes its own block of d_head columns.",
    "heads-out-of-order": "The heads are not concatenated in order: head h must fill the h-th block of d_head columns.",
    "heads-merge-mixed": "The heads were merged with a plain reshape from (n_heads, n, d_head), which mixes tokens and "
                         "heads.",
    "head-width-from-d-model": "The head width was taken as d_model over n_heads, from X; the heads split the "
                               "projections' columns, so d_head is their width over n_heads (the two agree only "
                               "when the heads together are exactly as wide as X).",
    "heads-ignored": "n_heads was ignored: all the columns form one head.",
    # layers
    "layer-norm-eps-outside-sqrt": "eps was added outside the square root instead of to the variance inside it.",
    "layer-norm-unbiased-variance": "You used the unbiased variance (ddof set to 1, dividing by d − 1); layer norm "
                                    "uses the biased one.",
    "layer-norm-wrong-axis": "The mean and variance were taken down the columns, across tokens, instead of over each "
                             "row's features.",
    "layer-norm-eps-ignored": "The eps argument was ignored.",
    "layer-norm-gain-bias-swapped": "g and b were swapped: g multiplies the normalised row and b is added after.",
    "gelu-exact-erf": "That is the exact erf GELU; this course (like GPT-2) uses the tanh approximation.",
    "gelu-sigmoid-approx": "That is the sigmoid approximation (x times a sigmoid of a scaled x), not the tanh form.",
    "gelu-missing-half": "The factor 0.5 is missing.",
    "gelu-relu": "That is a ReLU; GELU is smooth and slightly negative for small negative inputs.",
    "mlp-residual-from-x": "The MLP's output was added to X, the block's input, instead of to Y, the stream after "
                           "attention: the attention sub-layer's contribution was lost.",
    "residual-missing": "A residual connection is missing: a sub-layer's output replaces the stream instead of being "
                        "added to it.",
    "post-ln": "That is a post-LN block (layer norm after the residual add); this block is pre-LN.",
    "layer-norm-reused": "The same layer-norm parameters were used before both sub-layers; each sub-layer has its own.",
    "mlp-missing-gelu": "The MLP is missing its non-linearity, the GELU.",
    # next token
    "first-row-not-last": "The next token is predicted from the last row of H, not the first.",
    "logits-for-every-row": "You returned logits for every row, shape (n, vocab), instead of only the next token's.",
    "softmax-applied-to-logits": "You returned probabilities (a softmax of the logits) instead of the raw logits.",
    "mean-of-rows": "You used the mean (or the sum) of all rows instead of the last row of H.",
    # backward
    "softmax-backward-diagonal-only": "Multiplying A by dA keeps only the diagonal of the softmax Jacobian; the term "
                                      "that couples the entries of a row (the row sum of dA times A) is missing.",
    "softmax-backward-sum-wrong-axis": "The sum of dA times A ran over the wrong axis (or dropped it), so it does not "
                                       "line up with each row.",
    "softmax-backward-missing-a-factor": "The outer factor A is missing: the difference between dA and its weighted "
                                         "row sum was not multiplied by A.",
    # cross-attention and the cache
    "kv-from-wrong-sequence": "The keys, the values or both came from X; in cross-attention they come from the other "
                              "sequence, Z.",
    "sources-swapped": "The queries came from Z and the keys and values from X: the two sequences swapped roles.",
    "cache-not-appended": "The new k and v were not appended to the caches before attending (or the grown caches were "
                          "not returned), so the new token cannot attend to itself.",
    "cache-prepended": "The new k and v were put at the start of the caches instead of the end.",
    "keys-mixed": "The weights mixed the keys instead of the values: the keys only score the query; the output is a "
                  "weighted sum of the values.",
    "kv-swapped": "The keys and values were swapped (or the weights that make them, Wk and Wv): the keys score the "
                  "query, and the values are what the weights mix.",
    "cache-appends-swapped": "The new v was appended to the key cache and the new k to the value cache; k joins "
                             "the keys, v the values.",
    "kv-cache-missing-factor-2": "The count is half the right one: only one of the two tensors each layer stores (K "
                                 "and V) was counted.",
    "kv-cache-ignores-batch": "The count ignores batch, although each sequence in the batch has its own cache.",
    "kv-cache-ignores-layers": "The count ignores n_layers, although every layer keeps its own K and V.",
    "kv-cache-bits-not-bytes": "The count is 8 times too large: it turned bytes into bits, but bytes_per_value is "
                               "already in bytes.",
    "kv-cache-wrong-defaults": "A default value in your signature differs from the exercise's.",
    # found by the property probes (properties.py)
    "future-leak": "A position sees part of its future: output row i changes when a later position changes. "
                   "Row i may only use positions 0..i.",
    "keepdims-missing": "A quantity with one value per row (or per column) lost the axis it runs along, so "
                        "numpy lines it up with another axis than the one it came from: a sum, mean or max that "
                        "dropped its reduced axis does this, and so does a 1-D array of per-row values.",
    "array-truth-value": "Testing an array with a plain if asks it for a single True/False, which numpy refuses.",
    "float-index": "A float was used where numpy needs an integer (an index, a slice bound, a size or a range): a "
                   "true division gives a float even when it divides exactly, as in a head width from d_model.",
    "caret-is-xor": "A caret was used for a power: in Python the caret is the bitwise exclusive or, which floats "
                    "refuse; a power is written with two stars.",
    "scalar-function-on-array": "A function that takes a single number (one from the math module, or float or int) "
                                "was given an array: numpy's own functions work on every entry at once.",
    "shape-not-a-tuple": "A shape was given as separate numbers: numpy's array makers take the whole shape as one "
                         "tuple, and read a second number as a data type.",
    "concatenate-ndim": "Arrays with different numbers of axes were joined: a 1-D row must become one row of shape "
                        "(1, d) before it joins a 2-D array.",
    "only-2d": "Your function handles a 2-D input but not one with more leading axes.",
    "outputs-out-of-order": "The returned tuple holds the right arrays in the wrong order.",
    "outputs-missing": "Only part of the tuple was returned; the exercise asks for every output.",
    "flattened": "The numbers are right but the array lost its shape (a flattening step, or an append "
                 "without an axis).",
    "returns-float": "The number is right but it is a float; a count (of operations, bytes or tokens) is an exact int.",
    "extra-axis": "The values are right but the result keeps an extra axis of length 1.",
    "axis-dropped": "The values are right but an axis of length 1 was dropped (a squeeze, or an integer index): "
                    "one row, one head or one column is still an axis of the result.",
    "only-one-row": "Only one row was computed; the result needs one row per input row.",
    "argument-ignored": "Your answer does not depend on one of the arguments (named below): it stays the same when "
                        "that argument changes, though the right answer moves with it.",
    "stale-answer": "For one input your function gave its answer to an earlier, different call: it keeps results "
                    "between calls (a cache or a global variable), where every call must compute its own.",
    "constant-output": "Your function gives the same answer whatever its arguments: some of the input is never "
                       "used, or a value is written in (a size from the lesson's example, say) where one computed "
                       "from the input belongs.",
    "result-scaled-by-constant": "Your result is the right one times a constant (named below) on every probe: a sign "
                                 "flipped, a term counted twice, or a factor of 2 in the wrong place.",
    "result-rearranged": "Your result holds the right values in the wrong places (named below): reversed, or moved "
                         "one place along, as when an index counts from the wrong end or from 1.",
    "result-normalised": "Your result points the right way but was scaled to length 1: nothing in this exercise "
                         "normalises it.",
    "result-scaled-by-size": "Your result is the right one times a factor that follows one of the input's sizes "
                             "(named below): a scaling this exercise does not ask for, or one by the wrong size.",
    "axis-summed-away": "Your result is the right one added up along one of its axes: an index that must stay in the "
                        "result was summed over (or averaged) instead.",
    "sum-missing": "Your result is the right one before a sum: added up (or averaged) along one of its axes, "
                   "named below, it gives the expected values. That sum was left out, so an index that must be "
                   "summed over stayed in the result.",
    "only-the-diagonal": "Your result holds only the diagonal of the right matrix: row i was paired with row i "
                         "alone, where every row is paired with every other.",
    "loop-off-by-one": "One row at the start or the end is missing or left at zero: a loop over the rows "
                       "starts or stops one step early.",
    "input-transposed": "An input was used transposed: rows are tokens, columns are features.",
    "wrong-argument-used": "One input was used where another belongs (they have the same shape, so numpy "
                           "did not complain).",
    "scale-inverted": "The scores were multiplied by the square root of d instead of divided by it.",
    "scale-by-length": "The scores were divided by the square root of a sequence length; the scale uses d, the width "
                       "of the queries and keys.",
    "scale-by-d-v": "The scores were divided by the square root of d_v, the width of the values; the scale uses the "
                    "width of the queries and keys.",
    "scale-wrong": "The scores were multiplied by the wrong factor; the scale is one over the square root of d.",
    "scale-on-output": "The output was divided by the square root of d; the scaling belongs to the scores, before the "
                       "softmax.",
    "returns-scores": "You returned the scores; the exercise asks for what comes after them.",
    "returns-weights": "You returned the attention weights A; the output mixes the values with them.",
    "attention-skipped": "The output is one of the value rows as it is, the newest: nothing mixed it with the other "
                         "rows, as if the query attended to its own row alone.",
    "projection-missing": "A weight matrix was never applied: the result is its input, unprojected.",
    "mean-instead-of-sum": "The products were averaged; a projection sums them.",
    "products-not-summed": "The products of the inputs with the weights were formed but never summed over the input "
                           "features.",
    "sum-wrong-axis": "The sum ran over the output axis: each output feature sums over the input features.",
    "mask-boolean": "Your mask is made of True and False (the boolean masks of PyTorch and others), where the "
                    "exercise asks for an additive mask of floats: 0 where a key may be seen, minus infinity where "
                    "it is hidden, ready to be added to the scores.",
    "log-softmax": "You returned the log of the softmax instead of the probabilities.",
    "softmax-base-two": "Your exponentials were powers of 2 instead of powers of e: the result is the softmax of the "
                        "scores times ln 2, flatter than the right one.",
    "softmax-base-ten": "Your exponentials were powers of 10 instead of powers of e: the result is the softmax of the "
                        "scores times ln 10, sharper than the right one.",
    "softmax-max-wrong-axis": "The maximum you subtract is not each row's own: one taken across rows shifts the "
                              "entries of a row by different amounts, and one taken over the whole array can push a "
                              "row so far down that it underflows to 0/0.",
    "softmax-min-subtraction": "You subtracted the minimum, which leaves large positive values that overflow.",
    "heads-interleaved": "Each head used every n_heads-th column; a head uses one contiguous block of columns.",
    "heads-summed": "The heads were added together; they are placed side by side.",
    "heads-share-columns": "Every head used the same block of columns; head h uses its own block.",
    "heads-share-scores": "The heads share one set of scores from all the columns of Q and K; each head "
                          "computes its scores from its own block of columns.",
    "parallel-block": "Attention and the MLP both read the block's input, so the MLP never sees what attention added.",
    "residual-adds-normalised": "A residual added the normalised input instead of the raw, un-normalised stream.",
    "layer-norm-missing": "A layer norm is missing before a sub-layer.",
    "extra-layer-norm": "An extra layer norm was applied to the block's output.",
    "mlp-reads-wrong-input": "The MLP read the wrong input; it reads the layer norm of the stream after the attention "
                             "residual.",
    "gelu-misplaced": "The GELU sits in the wrong place in the MLP; it comes between the two matrices.",
    "bias-after-activation": "The MLP's first bias b1 was added after the GELU; it belongs inside, before the "
                             "non-linearity.",
    "gelu-brackets-misplaced": "The bracket of the tanh's argument is misplaced: the constant in front must "
                               "multiply the whole sum x + 0.044715 x³, not x alone.",
    "gelu-cubic-missing": "The cubic term 0.044715 x³ is missing from the tanh's argument.",
    "softmax-backward-mean-not-sum": "The shared term of each row was a mean of dA · A over the keys instead of "
                                     "its sum.",
    "cross-entropy-loss-sign": "The loss is missing its minus sign: the cross-entropy is the mean of -log p of the "
                               "target, a positive number.",
    "attention-backward-dv-scaled": "dV was multiplied by the scale too; the scale sits on the scores, so only dQ "
                                    "and dK carry it.",
    "activation-not-gelu": "The MLP uses another non-linearity; this block uses GELU.",
    "bias-missing": "A bias was left out of the MLP.",
    "layer-norm-gain-bias-missing": "The gain g and the bias b were not applied after normalising.",
    "layer-norm-gain-bias-order": "The shift b was added before the scale g.",
    "layer-norm-divides-by-variance": "You divided by the variance instead of the standard deviation.",
    "layer-norm-whole-matrix": "The mean and variance were taken over the whole matrix; each row gets its own.",
    "layer-norm-not-centred": "The row mean was not subtracted.",
    "layer-norm-mean-of-squares": "The variance was taken as the mean of the squares, without subtracting the mean "
                                  "first; the variance is the mean of the squared distances from the mean.",
    "layer-norm-rms": "Each row was divided by its root mean square without subtracting its mean (RMSNorm): layer "
                      "norm centres the row first and divides by its standard deviation.",
    "variance-cancellation": "The variance loses its precision on rows with a large offset: the mean of the squares "
                             "minus the square of the mean subtracts two huge, nearly equal numbers.",
    "precision-loss": "Your result loses precision when the inputs carry a large common offset: part of the "
                      "computation runs in float32, or subtracts two huge, nearly equal numbers.",
    "cosine-similarity": "The rows of Q and K were normalised first (cosine similarity); the scores are the raw "
                         "dot products.",
    "extra-residual": "This function returns the attention output alone; the block adds the residual later.",
    "gelu-gate-only": "You returned the gate (one half of one plus the tanh) without multiplying it by x.",
    "gelu-wrong-constant": "A constant or the power inside the tanh is wrong (the fitted values are listed with it).",
    "wrong-row": "The logits come from another row than the last one.",
    "softmax-backward-unweighted-sum": "The subtracted sum does not weight dA by A.",
    "cache-row-dropped": "The newest cache row was left out: the cache already holds the current token.",
    "cache-drops-oldest": "The oldest cache row was dropped; the cache keeps every earlier position.",
    "cache-appends-wrong-row": "A cache got the wrong new row: the new k belongs in K, and the new v in V.",
    "kv-cache-ignores-heads": "The count ignores n_heads, although every head keeps its own keys and values.",
    "kv-cache-ignores-size": "Every stored vector has d_head numbers for each of seq_len tokens: both count.",
    "kv-cache-ignores-bytes-per-value": "The count uses a fixed width instead of the bytes_per_value argument.",
    "kv-cache-counts-twice": "Keys and values make a factor 2, counted once.",
    "integer-overflow": "The count overflows a fixed-width numpy integer (int32 or int64) for large sizes, where a "
                        "Python int stays exact however large it grows.",
}

# The second hint for each diagnosis: where to look (a shape, an axis, a line), never the code.
NUDGES = {
    # named by the general findings too (properties.py), where no choice's nudge is at hand
    "output-transposed": "Write the shape of your result next to the expected one: which axis comes first?",
    "axes-permuted": "Write the shape of your result next to the expected one: which axis must come first?",
    "returned-a-list": "Look at the type of what your function returns.",
    "int-array": "Look at the dtype of the arrays you create and of the divisions you make.",
    "ids-as-floats": "Look at the dtype of the array you return.",
    "returned-booleans": "Look at the dtype of the array you return.",
    "extra-outputs": "Look at your return statement: how many things does it return?",
    "one-number-in-an-array": "Look at what you return: a single number, not an array holding it.",
    "as-a-percentage": "Look at the last step of your calculation: is anything multiplied after the mean?",
    "rounded-result": "Look at the last step of your calculation: the value goes back as computed, with every digit.",
    "returned-none": "Look at every path to the end of your function, the special cases included: each needs a "
                     "return with a value.",
    "input-returned-unchanged": "Look at the array you return and at the line meant to change it: is the result of "
                                "that line stored in the array you return?",
    "wrong-unit": "Look at the last step of your calculation: is anything divided or multiplied after the bytes "
                  "are counted?",
    "computed-in-float16": "Look for float16 in your code: an astype, a dtype, or an array built from a float16 one.",
    "computed-in-float32": "Look for float32 in your code: an astype, a dtype, or an array built from a float32 one.",
    "returns-its-input": "Look at the cases where your function returns its argument as it came in.",
    "integer-overflow": "Look at the dtype of the numbers you multiply.",
    "weights-transposed": "Write the shape of each operand of your product next to it: the inner sizes must be d_in.",
    "k-not-transposed": "Write the shapes of Q and K next to your product.",
    "count-rounded": "Look for a float on the way: a float constant, a true division, or a float dtype.",
    "edge-size-wrong": "Run your function by hand on the smallest input of the failing probe, and print the shape "
                       "of each step.",
    "wrong-default": "Compare the defaults in your function's first line with the exercise's signature.",
    "mutates-input": "Look for a line that writes into an argument: an in-place operator, an out argument, or an "
                     "assignment into part of an input.",
    "timeout": "Look at the condition that ends each loop.",
    "crashed": "Look for a call that ends the process (os._exit, os.kill) and for an array far larger than "
               "the inputs.",
    "grader-modified": "Look for a line that assigns to a numpy, attnlib or grader name (or to check), or that "
                       "changes the profiler; remove it, then restart the kernel.",
    "softmax-backward-diagonal-only": "Look for the term that couples the entries of a row.",
    "future-leak": "Look at the boundary of your mask or loop: the diagonal offset of the triangle, or an extra one "
                   "in a range.",
    "keepdims-missing": "Look at the shape of each per-row quantity (a sum, a mean, a max, an array of counts): "
                        "does it keep a length-1 axis where it lines up with the rows?",
    "array-truth-value": "Look at the line that tests an array in an if.",
    "float-index": "Look at how you compute the sizes you slice with: integer division keeps them integers.",
    "caret-is-xor": "Look for a caret in your formula.",
    "scalar-function-on-array": "Look for math functions, float or int applied to an array or one of its rows.",
    "shape-not-a-tuple": "Look at the brackets of the shape you give to zeros, ones or full.",
    "concatenate-ndim": "Print the shape of each array you join: they need the same number of axes.",
    "only-2d": "Look for an index or loop that assumes exactly two axes.",
    "outputs-out-of-order": "Look at the order of your return statement.",
    "outputs-missing": "Look at your return statement.",
    "flattened": "Look at the step that joins or reshapes arrays: does it keep the rows?",
    "returns-float": "Look at the type of the constants in your product.",
    "extra-axis": "Look at how you index the row: a slice keeps the axis, an integer drops it.",
    "axis-dropped": "Try your function with one row: look for a squeeze or an integer index that drops the axis.",
    "only-one-row": "Look at which rows of the input you use.",
    "argument-ignored": "Find where your function reads that argument: is the value you compute with the one "
                        "you were given?",
    "stale-answer": "Look for anything your function keeps between calls: a dictionary, a global, a default list.",
    "constant-output": "Look for a number written into your function: which argument should it come from?",
    "result-scaled-by-constant": "Look for a minus sign or a factor of 2 in your formula.",
    "result-rearranged": "Print the index your loop or slice starts from, and the direction it walks.",
    "result-normalised": "Look for a division by a norm: the result keeps its own length.",
    "result-scaled-by-size": "Look for a division or product by a size (a square root, a count) in your code.",
    "axis-summed-away": "Compare the shape of your result with the expected one: which index did your sum or "
                        "your product letters drop?",
    "sum-missing": "Compare the shape of your result with the expected one: which axis should your code add up?",
    "only-the-diagonal": "Look at how you pair the rows: every one with every one, not the i-th with the i-th.",
    "loop-off-by-one": "Look at the range of your loop.",
    "input-transposed": "Write the shape of each operand of your product next to it.",
    "wrong-argument-used": "Read each line and check that every argument is used where it belongs (the detail "
                           "above says which two were swapped).",
    "scale-by-length": "Look at which size your scaling reads: a length or a width?",
    "scale-by-d-v": "Look at which matrix your scaling reads its width from.",
    "scale-wrong": "Print the factor your scores are multiplied by and compare it with one over the square root of d.",
    "scale-on-output": "Look at where the division by the square root of d happens.",
    "returns-scores": "Look at your return statement.",
    "returns-weights": "Look at your return statement.",
    "attention-skipped": "Look at your return statement.",
    "mean-instead-of-sum": "Look at the reduction over the input features.",
    "products-not-summed": "Look at the shape of your result.",
    "sum-wrong-axis": "Look at the axis of your sum.",
    "mask-boolean": "Look at the values your mask holds: numbers to add to the scores.",
    "log-softmax": "Look at the last step.",
    "softmax-min-subtraction": "Look at which extreme you subtract.",
    "heads-summed": "Look at how the heads are joined.",
    "heads-share-columns": "Look at whether the slice depends on h.",
    "heads-share-scores": "Look at which columns of Q and K each head reads.",
    "parallel-block": "Look at the input of the MLP.",
    "residual-adds-normalised": "Look at what each residual adds to.",
    "layer-norm-missing": "Look at the input of each sub-layer.",
    "extra-layer-norm": "Look at the last line.",
    "mlp-reads-wrong-input": "Look at the input of the MLP.",
    "gelu-misplaced": "Look at where GELU is applied in the MLP.",
    "activation-not-gelu": "Look at the non-linearity in the MLP.",
    "bias-missing": "Count the biases your MLP adds.",
    "layer-norm-gain-bias-missing": "Look at the last step.",
    "layer-norm-gain-bias-order": "Look at the order of the last two operations.",
    "layer-norm-divides-by-variance": "Look at the divisor.",
    "layer-norm-whole-matrix": "Look at the axis of your mean and variance.",
    "layer-norm-not-centred": "Look at what you divide.",
    "variance-cancellation": "Look at how you compute the variance.",
    "precision-loss": "Look for float32 (astype, dtype=) and for a difference of two large sums.",
    "cosine-similarity": "Look at what happens to Q and K before the product.",
    "extra-residual": "Look at the last line: what is added to the output?",
    "gelu-gate-only": "Look at the factor in front.",
    "gelu-wrong-constant": "Compare each constant with the formula in the notebook, digit by digit.",
    "wrong-row": "Look at the index of the row you use.",
    "softmax-backward-unweighted-sum": "Look at what your sum adds up.",
    "cache-row-dropped": "Look at the slice of the cache you use.",
    "cache-drops-oldest": "Look at the slice of the cache you keep.",
    "cache-appends-wrong-row": "Look at what each cache gets appended.",
    "kv-cache-ignores-heads": "Look at which arguments appear in your product.",
    "kv-cache-ignores-size": "Look at which arguments appear in your product.",
    "kv-cache-counts-twice": "Count the factors of 2 in your product.",
    "not-a-python-int": "Look at the type of the number you return: Python's int turns a numpy integer into one.",
    "not-a-python-list": "Look at the type of what you return: a list of str, as the text asks.",
}


def nudge(diagnosis):
    """The second hint for a diagnosis id ('' when it has none); for two mistakes ('a+b'), the first one's."""
    return next((NUDGES[d] for d in (diagnosis or "").split("+") if d in NUDGES), "")


TERM_WORDS = {"missing": "is missing", "sign-flipped": "has the wrong sign", "doubled": "is counted twice",
              "halved": "is halved", "scaled": "carries a wrong factor"}


def _term(diagnosis):
    """The explanation of a gradient's term named by choices.py ('<gradient>-<term>-<how>'), or ''."""
    how = next((w for w in TERM_WORDS if diagnosis.endswith("-" + w)), None)
    if not how:
        return ""
    return (f"One term of the gradient {TERM_WORDS[how]} ({diagnosis[:-len(how) - 1]}); the others are right. The "
            "list below says which term, with the factor it was found to carry.")


def explain(diagnosis):
    """The explanation for a diagnosis id ('' for None or an unknown id); two mistakes ('a+b') are both explained."""
    parts = [DIAGNOSES.get(d) or _term(d) for d in (diagnosis or "").split("+")]
    return " Also: ".join(p for p in parts if p) if all(parts) else ""

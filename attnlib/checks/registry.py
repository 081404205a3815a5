"""Every checkable exercise, by name: one module per lesson, in course order.

Each lesson module holds its exercises and their named mistakes in a list
`EXERCISES`; a module is named after its lesson's stem without the number
(course.LESSONS), so renumbering lessons never renames a file.
"""
from . import (attention_module, batches, block, generation_and_kv_cache, heads, learned_mixing, mask_and_softmax,
               mixing_rows, next_token, no_mask, positions, projection, tokens_and_values, trained_attention)

LESSON_MODULES = (projection, batches, tokens_and_values, mixing_rows, learned_mixing, mask_and_softmax,
                  attention_module, positions, heads, block, next_token, trained_attention, no_mask,
                  generation_and_kv_cache)

EXERCISES = {ex.name: ex for module in LESSON_MODULES for ex in module.EXERCISES}
NAMES = tuple(EXERCISES)

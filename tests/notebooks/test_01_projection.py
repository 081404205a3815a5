"""Notebook 01 (one vector through one matrix): the claims its text makes.

The answers hidden in the "Check your intuition" cells and the remark about PyTorch's nn.Linear are
recomputed here with plain numpy or PyTorch rather than with the notebook's code.
"""
import numpy as np
import pytest

from helpers import need


def test_01_answers():
    W = np.zeros((300, 50))
    assert (np.ones(300) @ W).shape == (50,) and W.size == 15_000
    x, W = np.arange(1.0, 7.0), np.arange(36.0).reshape(6, 6)
    x[2] = 0.0
    W2 = W.copy()
    W2[2] = 1e6  # the row that meets the zero entry no longer matters
    assert np.array_equal(x @ W, x @ W2)
    with pytest.raises(ValueError):
        np.zeros((128, 256)) @ np.zeros(128)


def test_01_answer_4_products_of_inputs_need_two_projections_multiplied():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (200, 2))
    target = x[:, 0] * x[:, 1]
    design = np.column_stack([x, np.ones(200)])  # the best linear (even affine) fit of x0 * x1
    residual = target - design @ np.linalg.lstsq(design, target, rcond=None)[0]
    assert np.abs(residual).max() > 0.5
    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])  # two projections of the same input, multiplied
    assert np.allclose((x @ a) * (x @ b), target)


def test_01_pytorch_linear_stores_the_transposed_matrix():
    torch = need("torch", "the remark about nn.Linear in notebook 01")
    rng = np.random.default_rng(0)
    x, W = rng.normal(size=(3, 5)), rng.normal(size=(5, 4))  # rows are inputs, W (d_in, d_out)
    lin = torch.nn.Linear(5, 4, bias=False).double()
    assert tuple(lin.weight.shape) == (4, 5)  # (d_out, d_in)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(W.T))
        y = lin(torch.from_numpy(x)).numpy()
    assert np.allclose(y, x @ W)

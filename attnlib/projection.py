"""Notebooks 01-02: a projection is one matrix product.

The essay writes x' = W x with column vectors. The course keeps tokens as rows,
so the same product reads x' = x @ W with W of shape (d_in, d_out): the essay's W
transposed. Stacking inputs as the rows of X projects them all at once, and each
output row depends only on its own input row.
"""
from ._validate import Array, contract


def weight_grad(X, dY):
    """dW for Y = X @ W over stacked rows: X (..., d_in), dY (..., d_out) -> (d_in, d_out)."""
    return X.reshape(-1, X.shape[-1]).T @ dY.reshape(-1, dY.shape[-1])


@contract(x=Array("d_in"), W=Array("d_in", "d_out"), finite="x @ W")
def project(x, W):
    """Project one vector: x (d_in,) @ W (d_in, d_out) -> (d_out,)."""
    return x @ W  # (d_out,)


@contract(X=Array("n", "d_in"), W=Array("d_in", "d_out"), finite="X @ W")
def project_rows(X, W):
    """Project every row at once: X (n, d_in) @ W (d_in, d_out) -> (n, d_out).

    Row i of the result is project(X[i], W): rows never influence each other.
    """
    return X @ W  # (n, d_out)

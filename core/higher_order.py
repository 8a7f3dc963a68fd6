"""Shared pieces of the tensor-level backwards behind ``grad(create_graph=True)``.

An op that supports higher-order gradients passes ``apply`` a ``grad_fn(out, grad)`` that
computes its inputs' gradients from the output gradient with core's own differentiable ops
(Tensor methods and operators, looked up when the backward runs, so this module imports no op
module and every op module may import it). ``SUPPORTED_OPS`` lists the ops (by the name they
record) that have one; the create_graph error lists them.
"""
from __future__ import annotations

SUPPORTED_OPS = (
    "add", "subtract", "multiply", "divide", "neg", "scale", "pow", "square", "sqrt", "exp",
    "log", "abs", "tanh", "sigmoid", "relu", "leaky_relu", "softplus", "gelu", "silu", "elu",
    "softmax", "log_softmax", "maximum", "minimum", "clip", "matmul", "linear", "sum", "mean",
    "reshape", "transpose", "unsqueeze", "squeeze", "flatten", "broadcast_to", "expand",
    "concat", "stack", "split", "getitem", "getitem_grad", "vector_norm (norm, any p)", "mse_loss",
    "cross_entropy", "conv2d", "conv2d_input_grad",
    "conv2d_weight_grad", "clone", "astype", "normal_cdf", "sin", "cos", "log1p", "rsqrt",
    "reciprocal", "where", "floor", "ceil", "round", "sign", "dropout",
    "layer_norm", "group_norm", "instance_norm", "batch_norm", "max_pool2d", "max_pool2d_grad",
    "avg_pool2d", "avg_pool2d_grad", "adaptive_avg_pool2d", "adaptive_max_pool2d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "pad", "pad_grad", "logsumexp", "erf",
    "atan2", "l1_loss", "smooth_l1_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "nll_loss", "nll_loss_grad", "embedding (dense)",
    "embedding_grad", "spread (conv2d_transpose)", "spread_grad", "gather", "gather_grad",
    "index_select", "index_select_grad", "take_along_axis", "take_along_axis_grad",
    "adaptive_avg_pool2d_grad", "adaptive_max_pool2d_grad", "adaptive_avg_pool1d_grad",
    "adaptive_max_pool1d_grad", "tile", "cumsum", "max", "min", "amax", "amin", "relu6", "hardtanh",
    "hardswish", "hardsigmoid", "swish", "mish", "selu", "celu", "softsign", "tanhshrink",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfinv", "expm1",
    "log2", "log10", "logit", "lgamma", "digamma", "polygamma", "prelu", "prod",
    "repeat_interleave", "repeat_interleave_grad", "kl_div",
    "cosine_similarity", "log_sigmoid", "softshrink", "hardshrink", "thresholded_relu", "rrelu",
    "glu", "gumbel_softmax", "alpha_dropout", "feature_alpha_dropout", "soft_margin_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "sigmoid_focal_loss", "square_error_cost", "log_loss", "dice_loss",
    "multi_label_soft_margin_loss", "multi_margin_loss (any p)", "multi_label_margin_loss",
    "cosine_embedding_loss", "triplet_margin_loss", "pairwise_distance (any p)", "conv3d",
    "conv3d_input_grad", "conv3d_weight_grad", "conv3d_transpose", "max_pool3d",
    "max_pool3d_grad", "avg_pool3d", "avg_pool3d_grad", "adaptive_avg_pool3d",
    "adaptive_max_pool3d", "adaptive_avg_pool3d_grad", "adaptive_max_pool3d_grad",
    "local_response_norm", "normalize", "var", "std", "grid_sample", "grid_sample_grad",
    "affine_grid", "affine_grid_grad", "label_smooth", "unfold", "unfold_grad", "fold",
    "fold_grad", "diagonal", "diagonal_grad", "bilinear", "kron", "cdist (any p)",
    "npair_loss", "logcumsumexp", "inv", "det", "slogdet", "solve", "cholesky",
    "triangular_solve", "pinv", "eigh (distinct eigenvalues)", "matrix_power", "cummax",
    "cummin", "cummax_grad", "cummin_grad", "maxout", "cumprod", "dot", "cross",
    "addmm (beta=0)", "svd (distinct singular values)", "qr (reduced; complete with m <= n)",
    "tril", "triu", "matrix_norm (p='nuc', 2, -2; 'fro' and +-1, +-inf are built of others)",
    "cond (p None, 2, -2; the others are built of matrix_norm and inv)",
    "ctc_loss", "fractional_max_pool2d", "fractional_max_pool2d_grad", "fractional_max_pool3d",
    "fractional_max_pool3d_grad",
)


def sum_to(grad, shape) -> object:
    """``grad`` (a Tensor) summed down to ``shape``: the adjoint of numpy broadcasting, as
    ``core.tensor.unbroadcast`` on arrays, but recorded."""
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=list(range(extra)))
    kept = [i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1]
    if kept:
        grad = grad.sum(axis=kept, keepdim=True)
    return grad


def restore(grad, axes: tuple, keepdim: bool, shape) -> object:
    """A reduction's output gradient (a Tensor) spread back over the reduced ``axes`` of the
    input's ``shape``: the tensor-level ``core.ops._restore``."""
    if not keepdim and axes:
        grad = grad.reshape([1 if i in axes else n for i, n in enumerate(shape)])
    return grad if tuple(grad.shape) == tuple(shape) else grad.broadcast_to(list(shape))


def zero_grad(_out, g) -> tuple:
    """The tensor-level backward of an op whose output does not depend on its one input (an
    identity of x's shape, an unread input): a zero gradient, recorded as ``g * 0``."""
    return (g * 0,)


def needs(tensor) -> bool:
    """Whether an op's input wants a gradient (a tensor-level backward skips the others)."""
    return not tensor.stop_gradient


def captured(out, *names: str) -> tuple:
    """The values named ``names`` that ``out``'s array backward closed over (an op's axes, its
    index): a tensor-level backward of a cheap op reads them there rather than being a closure
    of its own, which every forward call, create_graph or not, would pay to create."""
    return closed_over(out._backward, *names)


def closed_over(fn, *names: str) -> tuple:
    """The values named ``names`` that the closure ``fn`` holds (``captured`` for a helper
    closure of an op's backward, such as cross's product along its axis)."""
    cells, free = fn.__closure__, fn.__code__.co_freevars
    return tuple(cells[free.index(name)].cell_contents for name in names)


def linear_grad(apply, g, backward, adjoint, op: str) -> object:
    """The gradient ``backward(g)`` (an op's array backward, one input) of an op that is linear
    in its input, or is where its routing is fixed (pooling, padding), recorded as op ``op``
    for create_graph. It is linear in ``g``; its own gradient is the op's Jacobian, which for
    such an op is ``adjoint`` (a function of a Tensor built of recorded ops: the op itself, or
    a gather of the routed elements), so third derivatives are recorded too. ``apply`` is
    ``core.tensor.apply``, passed in: core.tensor imports this module."""
    (grad,) = backward(g.data)
    constant = type(g)  # Tensor: wraps the incoming array gradient without a graph
    return apply(grad, (g,), lambda gg: (adjoint(constant(gg)).data,), op,
                 lambda _out, gg: (adjoint(gg),))

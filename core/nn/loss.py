"""Loss layers (``paddle.nn`` names and arguments) over the functions of ``core.nn.functional``."""
from __future__ import annotations

from core.nn.functional import loss as F
from core.nn.functional import loss_ctc as C
from core.nn.functional import loss_elementwise as E
from core.nn.functional import loss_ranking as R
from core.nn.layer import Layer
from core.tensor import Tensor


class CrossEntropyLoss(Layer):
    """Softmax cross entropy (``paddle.nn.CrossEntropyLoss``); see ``F.cross_entropy``."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", soft_label: bool = False, axis: int = -1,
                 use_softmax: bool = True, label_smoothing: float = 0.0,
                 name: str | None = None):
        super().__init__(name)
        F.check_reduction(reduction, "CrossEntropyLoss")
        if label_smoothing:
            F.check_smoothing(label_smoothing)  # fail at construction, not at the first step
        self.weight = weight  # class weights are a constant, not a trainable parameter
        self.ignore_index, self.reduction = ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return F.cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                               self.soft_label, self.axis, self.use_softmax,
                               self.label_smoothing)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction}, ignore_index={self.ignore_index}"


class MSELoss(Layer):
    """Mean squared error (``paddle.nn.MSELoss``)."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        F.check_reduction(reduction, "MSELoss")
        self.reduction = reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return F.mse_loss(input, label, self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction}"


class _Reduced(Layer):
    """A loss layer that stores ``reduction`` (checked here) and shows it in its repr."""

    _reductions = ("mean", "sum", "none")

    def __init__(self, reduction: str, name: str | None = None):
        super().__init__(name)
        if reduction not in self._reductions:
            raise ValueError(f"{type(self).__name__}: reduction={reduction!r} is not supported; "
                             f"use one of {self._reductions}.")
        self.reduction = reduction

    def extra_repr(self) -> str:
        return f"reduction={self.reduction}"


class L1Loss(_Reduced):
    """Absolute error (``paddle.nn.L1Loss``); see ``F.l1_loss``."""

    def __init__(self, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.l1_loss(input, label, self.reduction)


class SmoothL1Loss(_Reduced):
    """Paddle's smooth L1 / Huber loss, ``SmoothL1Loss(reduction='mean', delta=1.0,
    is_huber=True, name=None)``; see ``F.smooth_l1_loss``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0, is_huber: bool = True,
                 name: str | None = None):
        super().__init__(reduction, name)
        self.delta, self.is_huber = delta, is_huber

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


class NLLLoss(_Reduced):
    """Negative log-likelihood (``paddle.nn.NLLLoss``); see ``F.nll_loss``."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        self.weight, self.ignore_index = weight, ignore_index  # constants, not parameters

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class BCELoss(_Reduced):
    """Binary cross entropy of probabilities (``paddle.nn.BCELoss``); see
    ``F.binary_cross_entropy``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 name: str | None = None):
        super().__init__(reduction, name)
        self.weight = weight

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Reduced):
    """Sigmoid plus binary cross entropy (``paddle.nn.BCEWithLogitsLoss``); see
    ``F.binary_cross_entropy_with_logits``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None, name: str | None = None):
        super().__init__(reduction, name)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, logit: Tensor, label: Tensor) -> Tensor:
        return E.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Reduced):
    """Kullback-Leibler divergence (``paddle.nn.KLDivLoss``); see ``F.kl_div``."""

    _reductions = ("mean", "batchmean", "sum", "none")

    def __init__(self, reduction: str = "mean", log_target: bool = False):
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(_Reduced):
    """``max(0, -label * (input - other) + margin)`` (``paddle.nn.MarginRankingLoss(margin=0.0,
    reduction='mean', name=None)``); see ``F.margin_ranking_loss``."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        self.margin = R._number("MarginRankingLoss", "margin", margin)

    def forward(self, input: Tensor, other: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return R.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(_Reduced):
    """``input`` for label 1, ``max(0, margin - input)`` for label -1
    (``paddle.nn.HingeEmbeddingLoss(margin=1.0, reduction='mean', name=None)``); see
    ``F.hinge_embedding_loss``."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        self.margin = R._number("HingeEmbeddingLoss", "margin", margin)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.hinge_embedding_loss(input, label, self.margin, self.reduction)


class CosineEmbeddingLoss(_Reduced):
    """``1 - cos`` for label 1, ``max(0, cos - margin)`` for label -1, ``cos`` the cosine
    similarity of each row pair (``paddle.nn.CosineEmbeddingLoss(margin=0, reduction='mean',
    name=None)``; ``margin`` in [-1, 1]); see ``F.cosine_embedding_loss``."""

    def __init__(self, margin: float = 0, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        self.margin = R._number("CosineEmbeddingLoss", "margin", margin, -1.0, 1.0)

    def forward(self, input1: Tensor, input2: Tensor, label: Tensor) -> Tensor:
        return R.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class SoftMarginLoss(_Reduced):
    """``log(1 + exp(-label * input))`` for labels 1 or -1
    (``paddle.nn.SoftMarginLoss(reduction='mean', name=None)``); see ``F.soft_margin_loss``."""

    def __init__(self, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.soft_margin_loss(input, label, self.reduction)


class MultiLabelSoftMarginLoss(_Reduced):
    """Per-class logistic loss averaged over the classes of each row
    (``paddle.nn.MultiLabelSoftMarginLoss(weight=None, reduction='mean', name=None)``); see
    ``F.multi_label_soft_margin_loss``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 name: str | None = None):
        super().__init__(reduction, name)
        self.weight = weight  # a constant, not a trainable parameter

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return R.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class TripletMarginLoss(_Reduced):
    """``max(d(input, positive) - d(input, negative) + margin, 0)`` with ``d(a, b) =
    ||a - b + epsilon||_p`` (``paddle.nn.TripletMarginLoss(margin=1.0, p=2.0, epsilon=1e-6,
    swap=False, reduction='mean', name=None)``); see ``F.triplet_margin_loss``."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, epsilon: float = 1e-6,
                 swap: bool = False, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        owner = "TripletMarginLoss"
        self.margin = R._number(owner, "margin", margin, 0.0)
        self.p = R._number(owner, "p", p, 0.0, low_open=True)
        self.epsilon, self.swap = R._number(owner, "epsilon", epsilon), swap

    def forward(self, input: Tensor, positive: Tensor, negative: Tensor) -> Tensor:  # noqa: A002
        return R.triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                     self.epsilon, self.swap, self.reduction)


class PoissonNLLLoss(_Reduced):
    """Poisson negative log-likelihood (``paddle.nn.PoissonNLLLoss(log_input=True, full=False,
    epsilon=1e-8, reduction='mean', name=None)``); see ``F.poisson_nll_loss``."""

    def __init__(self, log_input: bool = True, full: bool = False, epsilon: float = 1e-8,
                 reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        self.log_input, self.full = log_input, full
        self.epsilon = R._number("PoissonNLLLoss", "epsilon", epsilon, 0.0, low_open=True)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return E.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon,
                                  self.reduction)


class GaussianNLLLoss(_Reduced):
    """Gaussian negative log-likelihood of ``label`` under mean ``input`` and ``variance``
    (``paddle.nn.GaussianNLLLoss(full=False, epsilon=1e-6, reduction='mean', name=None)``);
    see ``F.gaussian_nll_loss``."""

    def __init__(self, full: bool = False, epsilon: float = 1e-6, reduction: str = "mean",
                 name: str | None = None):
        super().__init__(reduction, name)
        self.full = full
        self.epsilon = R._number("GaussianNLLLoss", "epsilon", epsilon, 0.0, low_open=True)

    def forward(self, input: Tensor, label: Tensor, variance: Tensor) -> Tensor:  # noqa: A002
        return E.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction)


class MultiMarginLoss(_Reduced):
    """Multi-class hinge loss (``paddle.nn.MultiMarginLoss(p=1, margin=1.0, weight=None,
    reduction='mean', name=None)``); see ``F.multi_margin_loss``."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"MultiMarginLoss: p={p!r} must be a positive integer.")
        self.p, self.margin = p, R._number("MultiMarginLoss", "margin", margin)
        self.weight = weight  # class weights are a constant, not a trainable parameter

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return R.multi_margin_loss(input, label, self.p, self.margin, self.weight,
                                   self.reduction)


class CTCLoss(_Reduced):
    """CTC loss over unnormalised, time-major logits (``paddle.nn.CTCLoss(blank=0,
    reduction='mean', zero_infinity=False)``; ``forward(log_probs, labels, input_lengths,
    label_lengths, norm_by_times=False)``); see ``F.ctc_loss``."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction)
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise ValueError(f"CTCLoss: blank={blank!r} must be a non-negative int.")
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs: Tensor, labels: Tensor, input_lengths: Tensor,
                label_lengths: Tensor, norm_by_times: bool = False) -> Tensor:
        return C.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times, self.zero_infinity)

    def extra_repr(self) -> str:
        return f"blank={self.blank}, reduction={self.reduction}"


class MultiLabelMarginLoss(_Reduced):
    """Multi-class, multi-label hinge loss (``paddle.nn.MultiLabelMarginLoss(reduction='mean',
    name=None)``; ``forward(input, label)`` with integer targets padded by -1); see
    ``F.multi_label_margin_loss``."""

    def __init__(self, reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:  # noqa: A002
        return R.multi_label_margin_loss(input, label, self.reduction)


class TripletMarginWithDistanceLoss(_Reduced):
    """``max(d(input, positive) - d(input, negative) + margin, 0)`` with any distance function
    (``paddle.nn.TripletMarginWithDistanceLoss(distance_function=None, margin=1.0, swap=False,
    reduction='mean', name=None)``; the default ``d`` is ``PairwiseDistance(2)``); see
    ``F.triplet_margin_with_distance_loss``."""

    def __init__(self, distance_function=None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean", name: str | None = None):
        super().__init__(reduction, name)
        owner = "TripletMarginWithDistanceLoss"
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"{owner}: distance_function={distance_function!r} must be a "
                            "callable of two Tensors, or None.")
        self.distance_function = distance_function
        self.margin, self.swap = R._number(owner, "margin", margin, 0.0), swap

    def forward(self, input: Tensor, positive: Tensor, negative: Tensor) -> Tensor:  # noqa: A002
        return R.triplet_margin_with_distance_loss(input, positive, negative,
                                                   self.distance_function, self.margin,
                                                   self.swap, self.reduction)

    def extra_repr(self) -> str:
        return f"margin={self.margin}, swap={self.swap}, reduction={self.reduction}"


# ----- Paddle 3: hierarchical sigmoid and adaptive softmax ------------------------------------
from core.nn.container import ParameterList  # noqa: E402 - kept with the layers that use them
from core.nn.functional import loss_adaptive as A  # noqa: E402
from core.nn.functional import loss_hsigmoid as H  # noqa: E402


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid loss, Paddle's ``HSigmoidLoss(feature_size, num_classes,
    weight_attr=None, bias_attr=None, is_custom=False, is_sparse=False, name=None)``;
    ``forward(input, label, path_table=None, path_code=None)`` gives [N, 1] losses (no
    reduction, as in Paddle). ``weight`` is [num_classes - 1, feature_size] with the default
    tree and [num_classes, feature_size] with ``is_custom`` (then ``num_classes`` counts the
    tree's internal nodes); ``bias`` [rows, 1], or none with ``bias_attr=False``. See
    ``F.hsigmoid_loss``."""

    def __init__(self, feature_size: int, num_classes: int, weight_attr=None, bias_attr=None,
                 is_custom: bool = False, is_sparse: bool = False, name: str | None = None):
        super().__init__(name)
        for label, value, low in (("feature_size", feature_size, 1),
                                  ("num_classes", num_classes, 1 if is_custom else 2)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"HSigmoidLoss: {label}={value!r} must be an int >= {low}"
                                 + ("" if is_custom or label != "num_classes"
                                    else " with the default tree"))
        self.feature_size, self.num_classes = feature_size, num_classes
        self.is_custom, self.is_sparse = is_custom, is_sparse
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr)
        self.bias = self.create_parameter([rows, 1], attr=bias_attr, is_bias=True)

    def forward(self, input: Tensor, label: Tensor, path_table: Tensor | None = None,  # noqa: A002
                path_code: Tensor | None = None) -> Tensor:
        if self.is_custom and path_table is None:
            raise ValueError("HSigmoidLoss: is_custom=True needs path_table and path_code in "
                             "forward")
        return H.hsigmoid_loss(input, label, self.num_classes, self.weight, self.bias,
                               path_table, path_code, self.is_sparse)

    def extra_repr(self) -> str:
        return (f"feature_size={self.feature_size}, num_classes={self.num_classes}, "
                f"is_custom={self.is_custom}")


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax, Paddle 3's ``AdaptiveLogSoftmaxWithLoss(in_features, n_classes,
    cutoffs, weight_attr=None, bias_attr=None, div_value=4.0, head_bias=False, name=None)``
    (``weight_attr`` for every weight, ``bias_attr`` for the head's bias, as Paddle's);
    ``forward(input, label)`` returns
    ``(output, loss)`` (see ``F.adaptive_log_softmax_with_loss``), ``log_prob(input)`` the
    [N, n_classes] log-probabilities and ``predict(input)`` the most likely class.

    ``head_weight`` is [in_features, cutoffs[0] + clusters] (and ``head_bias`` [that] when
    ``head_bias``); cluster i has ``tail_weights[i]`` = ([in_features, in_features //
    div_value ** (i + 1)], [that, cutoffs[i + 1] - cutoffs[i]]), registered as parameters
    (``tail.0``, ``tail.1``, ...).
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs, weight_attr=None,
                 bias_attr=None, div_value: float = 4.0, head_bias: bool = False,
                 name: str | None = None):
        super().__init__(name)
        for label, value, low in (("in_features", in_features, 1), ("n_classes", n_classes, 2)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"AdaptiveLogSoftmaxWithLoss: {label}={value!r} must be an "
                                 f"int >= {low}")
        cutoffs = A.check_cutoffs("AdaptiveLogSoftmaxWithLoss", cutoffs, n_classes)
        if isinstance(div_value, bool) or not isinstance(div_value, (int, float)) \
                or div_value <= 0:
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss: div_value={div_value!r} must be a "
                             "positive number")
        self.in_features, self.n_classes, self.div_value = in_features, n_classes, div_value
        self.cutoffs = cutoffs + [n_classes]
        self.shortlist_size, self.n_clusters = cutoffs[0], len(cutoffs)
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size], attr=weight_attr)
        self.head_bias = (self.create_parameter([self.head_size], attr=bias_attr, is_bias=True)
                          if head_bias else None)
        weights = []
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            if hidden < 1:
                raise ValueError(f"AdaptiveLogSoftmaxWithLoss: cluster {i} would have "
                                 f"in_features // div_value ** {i + 1} = {hidden} hidden units; "
                                 "use a smaller div_value or fewer cutoffs")
            weights += [self.create_parameter([in_features, hidden], attr=weight_attr),
                        self.create_parameter([hidden, self.cutoffs[i + 1] - self.cutoffs[i]],
                                              attr=weight_attr)]
        self.tail = ParameterList(weights)

    @property
    def tail_weights(self) -> list:
        """[[W1, W2] of each cluster], as Paddle's attribute."""
        return [[self.tail[2 * i], self.tail[2 * i + 1]] for i in range(self.n_clusters)]

    def forward(self, input: Tensor, label: Tensor):  # noqa: A002
        return A.adaptive_log_softmax_with_loss(input, label, self.head_weight,
                                                self.tail_weights, self.cutoffs,
                                                self.head_bias)

    def log_prob(self, input: Tensor) -> Tensor:  # noqa: A002
        """[N, n_classes] log-probabilities of every class (Paddle's ``log_prob``)."""
        return A.adaptive_log_prob(input, self.head_weight, self.tail_weights,
                                   self.shortlist_size, self.head_bias)

    def predict(self, input: Tensor) -> Tensor:  # noqa: A002
        """The most likely class of each row (int64), Paddle's ``predict``."""
        return A.argmax_rows(self.log_prob(input))

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, n_classes={self.n_classes}, "
                f"cutoffs={self.cutoffs[:-1]}, div_value={self.div_value}")


from core.nn.functional import rnnt as T  # noqa: E402 - appended with RNNTLoss (Paddle 3)


class RNNTLoss(_Reduced):
    """RNN transducer loss, Paddle's ``RNNTLoss(blank=0, fastemit_lambda=0.001,
    reduction='mean', name=None)``; ``forward(input, label, input_lengths, label_lengths)``
    with ``input`` [B, T_max, U_max + 1, D] and ``label`` [B, U_max]: ``-log P(label |
    input)``, P summed over the lattice's alignments, log-softmax over D included, FastEmit
    scaling the label emissions' gradient by ``1 + fastemit_lambda``; ``"mean"`` divides the
    sum by B. See ``F.rnnt_loss``."""

    def __init__(self, blank: int = 0, fastemit_lambda: float = 0.001, reduction: str = "mean",
                 name: str | None = None):
        super().__init__(reduction, name)
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise ValueError(f"RNNTLoss: blank={blank!r} must be a non-negative int.")
        self.blank = blank
        self.fastemit_lambda = T.check_fastemit_lambda(fastemit_lambda, "RNNTLoss")

    def forward(self, input: Tensor, label: Tensor, input_lengths: Tensor,  # noqa: A002
                label_lengths: Tensor) -> Tensor:
        return T.rnnt_loss(input, label, input_lengths, label_lengths, self.blank,
                           self.fastemit_lambda, self.reduction)

    def extra_repr(self) -> str:
        return (f"blank={self.blank}, fastemit_lambda={self.fastemit_lambda}, "
                f"reduction={self.reduction}")

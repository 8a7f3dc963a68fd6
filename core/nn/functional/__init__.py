"""Functional ops with ``paddle.nn.functional`` names; each is one fused differentiable op."""
from core.nn.functional.activation import log_softmax, relu, sigmoid, softmax, tanh
from core.nn.functional.common import dropout, flatten, linear, one_hot
from core.nn.functional.conv import conv2d
from core.nn.functional.loss import cross_entropy, mse_loss, nll_loss
from core.nn.functional.loss_elementwise import (
                                                 binary_cross_entropy,
                                                 binary_cross_entropy_with_logits,
                                                 kl_div,
                                                 l1_loss,
                                                 smooth_l1_loss,
)
from core.nn.functional.norm import batch_norm, normalize
from core.nn.functional.pooling import avg_pool2d, max_pool2d

__all__ = ["avg_pool2d", "batch_norm", "conv2d", "cross_entropy", "dropout", "flatten", "linear",
           "log_softmax", "max_pool2d", "mse_loss", "relu", "sigmoid", "softmax", "tanh"]
from core.nn.functional.sequence import embedding, sequence_mask, sequence_pool  # noqa: E402

__all__ += ["embedding", "sequence_mask", "sequence_pool"]
__all__ += ["binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "l1_loss",
            "nll_loss", "smooth_l1_loss"]
__all__ += ["normalize", "one_hot"]


from core.nn.functional.activation import elu, gelu, hardswish, leaky_relu, relu6, silu  # noqa: E402

__all__ += ["elu", "gelu", "hardswish", "leaky_relu", "relu6", "silu"]
from core.nn.functional.norm import group_norm, instance_norm, layer_norm  # noqa: E402

__all__ += ["group_norm", "instance_norm", "layer_norm"]
from core.nn.functional.attention import scaled_dot_product_attention  # noqa: E402

__all__ += ["scaled_dot_product_attention"]
from core.nn.functional.adaptive_pool import adaptive_avg_pool2d, adaptive_max_pool2d  # noqa: E402
from core.nn.functional.pooling import max_pool1d  # noqa: E402

__all__ += ["adaptive_avg_pool2d", "adaptive_max_pool2d", "max_pool1d"]
from core.nn.functional.conv_transpose import conv1d, conv2d_transpose  # noqa: E402

__all__ += ["conv1d", "conv2d_transpose"]
from core.nn.functional.common import dropout2d, interpolate, pad  # noqa: E402

__all__ += ["dropout2d", "interpolate", "pad"]
from core.nn.functional.activation import (  # noqa: E402
                                           hardsigmoid,
                                           hardtanh,
                                           mish,
                                           prelu,
                                           softplus,
                                           softsign,
                                           swish,
                                           tanhshrink,
)

__all__ += ["hardsigmoid", "hardtanh", "mish", "prelu", "softplus", "softsign", "swish",
            "tanhshrink"]
from core.nn.functional.common import cosine_similarity  # noqa: E402
from core.nn.functional.loss_legacy import (  # noqa: E402
                                            label_smooth,
                                            softmax_with_cross_entropy,
                                            square_error_cost,
)
from core.nn.functional.pooling import avg_pool1d  # noqa: E402

__all__ += ["avg_pool1d", "cosine_similarity", "label_smooth", "softmax_with_cross_entropy",
            "square_error_cost"]
from core.nn.functional.adaptive_pool import adaptive_avg_pool1d, adaptive_max_pool1d  # noqa: E402
from core.nn.functional.common import bilinear  # noqa: E402
from core.nn.functional.conv_transpose import conv1d_transpose  # noqa: E402
from core.nn.functional.norm import local_response_norm  # noqa: E402
from core.nn.functional.shape import (  # noqa: E402
                                      channel_shuffle,
                                      fold,
                                      pixel_shuffle,
                                      pixel_unshuffle,
                                      unfold,
)

__all__ += ["adaptive_avg_pool1d", "adaptive_max_pool1d", "bilinear", "channel_shuffle",
            "conv1d_transpose", "fold", "local_response_norm", "pixel_shuffle",
            "pixel_unshuffle", "unfold"]
from core.nn.functional.activation import (  # noqa: E402
                                           celu,
                                           glu,
                                           hardshrink,
                                           log_sigmoid,
                                           maxout,
                                           rrelu,
                                           selu,
                                           softshrink,
                                           thresholded_relu,
)
from core.nn.functional.loss_elementwise import (  # noqa: E402
                                                 gaussian_nll_loss,
                                                 hinge_embedding_loss,
                                                 poisson_nll_loss,
                                                 soft_margin_loss,
)
from core.nn.functional.loss_ranking import (  # noqa: E402
                                             cosine_embedding_loss,
                                             margin_ranking_loss,
                                             multi_label_soft_margin_loss,
                                             multi_margin_loss,
                                             triplet_margin_loss,
)

__all__ += ["celu", "glu", "hardshrink", "log_sigmoid", "maxout", "rrelu", "selu", "softshrink",
            "thresholded_relu"]
__all__ += ["cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss",
            "margin_ranking_loss", "multi_label_soft_margin_loss", "multi_margin_loss",
            "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss"]
from core.nn.functional.loss_ctc import ctc_loss  # noqa: E402

__all__ += ["ctc_loss"]
from core.nn.functional.loss_elementwise import sigmoid_focal_loss  # noqa: E402

__all__ += ["sigmoid_focal_loss"]
from core.nn.functional.grid import affine_grid, grid_sample  # noqa: E402 - spatial transformers

__all__ += ["affine_grid", "grid_sample"]
from core.nn.functional.common import dropout3d, zeropad2d  # noqa: E402
from core.nn.functional.volumetric import (  # noqa: E402 - the volumetric (NCDHW) family
                                           adaptive_avg_pool3d,
                                           adaptive_max_pool3d,
                                           avg_pool3d,
                                           conv3d,
                                           conv3d_transpose,
                                           max_pool3d,
)

__all__ += ["adaptive_avg_pool3d", "adaptive_max_pool3d", "avg_pool3d", "conv3d",
            "conv3d_transpose", "dropout3d", "max_pool3d", "zeropad2d"]
from core.nn.functional.activation import gumbel_softmax  # noqa: E402
from core.nn.functional.distance import pairwise_distance  # noqa: E402
from core.nn.functional.dropout_variants import alpha_dropout  # noqa: E402
from core.nn.functional.loss_legacy import dice_loss, log_loss, npair_loss  # noqa: E402
from core.nn.functional.loss_ranking import (  # noqa: E402
                                             multi_label_margin_loss,
                                             triplet_margin_with_distance_loss,
)
from core.nn.functional.shape import temporal_shift, upsample  # noqa: E402
from core.nn.functional.unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: E402

__all__ += ["alpha_dropout", "dice_loss", "gumbel_softmax", "log_loss", "max_unpool1d",
            "max_unpool2d", "max_unpool3d", "multi_label_margin_loss", "npair_loss",
            "pairwise_distance", "temporal_shift", "triplet_margin_with_distance_loss",
            "upsample"]
from core.nn.functional.feature_dropout import feature_alpha_dropout  # noqa: E402 - Paddle 3
from core.nn.functional.loss_adaptive import adaptive_log_softmax_with_loss  # noqa: E402
from core.nn.functional.loss_hsigmoid import hsigmoid_loss  # noqa: E402
from core.nn.functional.loss_margin import class_center_sample, margin_cross_entropy  # noqa: E402
from core.nn.functional.lp_pool import lp_pool1d, lp_pool2d  # noqa: E402

__all__ += ["adaptive_log_softmax_with_loss", "class_center_sample", "feature_alpha_dropout",
            "hsigmoid_loss", "lp_pool1d", "lp_pool2d", "margin_cross_entropy"]
from core.nn.functional.fractional_pool import (  # noqa: E402 - Paddle 3's fractional pooling
                                                fractional_max_pool2d,
                                                fractional_max_pool3d,
)

__all__ += ["fractional_max_pool2d", "fractional_max_pool3d"]
from core.nn.functional.rnnt import rnnt_loss  # noqa: E402 - Paddle 3's RNN transducer loss

__all__ += ["rnnt_loss"]
from core.nn.functional.inplace import (  # noqa: E402 - Paddle 3's in-place activations
                                        elu_,
                                        hardtanh_,
                                        leaky_relu_,
                                        relu_,
                                        softmax_,
                                        tanh_,
                                        thresholded_relu_,
)

__all__ += ["elu_", "hardtanh_", "leaky_relu_", "relu_", "softmax_", "tanh_",
            "thresholded_relu_"]
from core.nn.functional.decode_utils import gather_tree  # noqa: E402 - beam search's paths

__all__ += ["gather_tree"]

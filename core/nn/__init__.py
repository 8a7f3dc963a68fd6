"""Layers, containers, losses and initialisers with PaddlePaddle 2.x names (``paddle.nn``)."""
from core.clipping import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from core.nn import functional, initializer
from core.nn.activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from core.nn.common import Dropout, Flatten, Identity, Linear
from core.nn.container import LayerList, Sequential
from core.nn.conv import Conv2D
from core.nn.layer import Layer
from core.nn.loss import (
                          BCELoss,
                          BCEWithLogitsLoss,
                          CrossEntropyLoss,
                          KLDivLoss,
                          L1Loss,
                          MSELoss,
                          NLLLoss,
                          SmoothL1Loss,
)
from core.nn.norm import BatchNorm1D, BatchNorm2D
from core.nn.pooling import AvgPool2D, MaxPool2D

__all__ = ["AvgPool2D", "BatchNorm1D", "BatchNorm2D", "Conv2D", "CrossEntropyLoss", "Dropout",
           "Flatten", "Identity", "Layer", "LayerList", "Linear", "LogSoftmax", "MSELoss",
           "MaxPool2D", "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh", "functional",
           "initializer"]
__all__ += ["BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "L1Loss", "NLLLoss", "SmoothL1Loss"]
__all__ += ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]  # as paddle.nn
from core.nn.rnn import GRU, LSTM, Embedding  # noqa: E402 - sequences (docs/data.md)

__all__ += ["GRU", "LSTM", "Embedding"]

from core.nn.activation import ELU, GELU, Hardswish, LeakyReLU, ReLU6, Silu  # noqa: E402

__all__ += ["ELU", "GELU", "Hardswish", "LeakyReLU", "ReLU6", "Silu"]
from core.nn.norm import GroupNorm, InstanceNorm2D, LayerNorm  # noqa: E402

__all__ += ["GroupNorm", "InstanceNorm2D", "LayerNorm"]
from core.nn.container import LayerDict  # noqa: E402
from core.nn.transformer import MultiHeadAttention, TransformerEncoder, TransformerEncoderLayer  # noqa: E402

__all__ += ["LayerDict", "MultiHeadAttention", "TransformerEncoder", "TransformerEncoderLayer"]
from core.nn.pooling import AdaptiveAvgPool2D, AdaptiveMaxPool2D, MaxPool1D  # noqa: E402

__all__ += ["AdaptiveAvgPool2D", "AdaptiveMaxPool2D", "MaxPool1D"]
from core.nn.conv import Conv1D, Conv2DTranspose  # noqa: E402

__all__ += ["Conv1D", "Conv2DTranspose"]
from core.nn.common import Dropout2D, Pad2D, Upsample  # noqa: E402

__all__ += ["Dropout2D", "Pad2D", "Upsample"]
from core.nn.rnn import SimpleRNN  # noqa: E402

__all__ += ["SimpleRNN"]
from core.nn.merge import Add, Concat, Multiply  # noqa: E402 - graph merges (docs/models.md)
from core.nn.sequence import SequencePool  # noqa: E402

__all__ += ["Add", "Concat", "Multiply", "SequencePool"]
from core.nn.activation import (  # noqa: E402
                                Hardsigmoid,
                                Hardtanh,
                                Mish,
                                PReLU,
                                Softplus,
                                Softsign,
                                Swish,
                                Tanhshrink,
)

__all__ += ["Hardsigmoid", "Hardtanh", "Mish", "PReLU", "Softplus", "Softsign", "Swish",
            "Tanhshrink"]
from core.nn.common import CosineSimilarity  # noqa: E402
from core.nn.pooling import AvgPool1D  # noqa: E402

__all__ += ["AvgPool1D", "CosineSimilarity"]
from core.nn.rnn_cells import RNN, BiRNN, GRUCell, LSTMCell, SimpleRNNCell  # noqa: E402

__all__ += ["BiRNN", "GRUCell", "LSTMCell", "RNN", "SimpleRNNCell"]
from core.nn.transformer import (  # noqa: E402
                                 Transformer,
                                 TransformerDecoder,
                                 TransformerDecoderLayer,
)

__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer"]
from core.nn.common import Bilinear, Pad1D, ZeroPad2D  # noqa: E402
from core.nn.conv import Conv1DTranspose  # noqa: E402
from core.nn.norm import InstanceNorm1D, LocalResponseNorm  # noqa: E402
from core.nn.pooling import AdaptiveAvgPool1D, AdaptiveMaxPool1D  # noqa: E402
from core.nn.shape import (  # noqa: E402
                           ChannelShuffle,
                           Fold,
                           PixelShuffle,
                           PixelUnshuffle,
                           Unflatten,
                           Unfold,
)

__all__ += ["AdaptiveAvgPool1D", "AdaptiveMaxPool1D", "Bilinear", "ChannelShuffle",
            "Conv1DTranspose", "Fold", "InstanceNorm1D", "LocalResponseNorm", "Pad1D",
            "PixelShuffle", "PixelUnshuffle", "Unflatten", "Unfold", "ZeroPad2D"]
from core.nn.activation import (  # noqa: E402
                                CELU,
                                GLU,
                                SELU,
                                Hardshrink,
                                LogSigmoid,
                                Maxout,
                                RReLU,
                                Softmax2D,
                                Softshrink,
                                ThresholdedReLU,
)
from core.nn.loss import (  # noqa: E402
                          CosineEmbeddingLoss,
                          GaussianNLLLoss,
                          HingeEmbeddingLoss,
                          MarginRankingLoss,
                          MultiLabelSoftMarginLoss,
                          MultiMarginLoss,
                          PoissonNLLLoss,
                          SoftMarginLoss,
                          TripletMarginLoss,
)

__all__ += ["CELU", "GLU", "SELU", "Hardshrink", "LogSigmoid", "Maxout", "RReLU", "Softmax2D",
            "Softshrink", "ThresholdedReLU"]
__all__ += ["CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
            "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss",
            "TripletMarginLoss"]
from core.nn import utils  # noqa: E402 - paddle.nn.utils: clip_grad_norm_, weight_norm, ...

__all__ += ["utils"]
from core.nn.container import ParameterList  # noqa: E402 - paddle.nn.ParameterList

__all__ += ["ParameterList"]
from core.nn.loss import CTCLoss  # noqa: E402 - paddle.nn.CTCLoss

__all__ += ["CTCLoss"]
from core.nn.spectral import SpectralNorm  # noqa: E402 - paddle.nn.SpectralNorm (the layer)

__all__ += ["SpectralNorm"]
from core.nn.common import Dropout3D, Pad3D, ZeroPad1D, ZeroPad3D  # noqa: E402
from core.nn.conv import Conv3D, Conv3DTranspose  # noqa: E402
from core.nn.norm import BatchNorm3D, InstanceNorm3D  # noqa: E402
from core.nn.pooling import (  # noqa: E402 - the volumetric (NCDHW) family
                             AdaptiveAvgPool3D,
                             AdaptiveMaxPool3D,
                             AvgPool3D,
                             MaxPool3D,
)

__all__ += ["AdaptiveAvgPool3D", "AdaptiveMaxPool3D", "AvgPool3D", "BatchNorm3D", "Conv3D",
            "Conv3DTranspose", "Dropout3D", "InstanceNorm3D", "MaxPool3D", "Pad3D", "ZeroPad1D",
            "ZeroPad3D"]
from core.nn.norm_legacy import BatchNorm, SyncBatchNorm  # noqa: E402 - paddle.nn.BatchNorm

__all__ += ["BatchNorm", "SyncBatchNorm"]
from core.nn.distance import PairwiseDistance  # noqa: E402 - paddle.nn.PairwiseDistance
from core.nn.dropout_variants import AlphaDropout  # noqa: E402
from core.nn.loss import MultiLabelMarginLoss, TripletMarginWithDistanceLoss  # noqa: E402
from core.nn.shape import UpsamplingBilinear2D, UpsamplingNearest2D  # noqa: E402
from core.nn.unpool import MaxUnPool1D, MaxUnPool2D, MaxUnPool3D  # noqa: E402

__all__ += ["AlphaDropout", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "MultiLabelMarginLoss",
            "PairwiseDistance", "TripletMarginWithDistanceLoss", "UpsamplingBilinear2D",
            "UpsamplingNearest2D"]
from core.nn.decode import BeamSearchDecoder, dynamic_decode  # noqa: E402 - seq2seq inference
from core.nn.rnn_cells import RNNCellBase  # noqa: E402 - base of user-written RNN cells

__all__ += ["BeamSearchDecoder", "RNNCellBase", "dynamic_decode"]
from core.nn.feature_dropout import FeatureAlphaDropout  # noqa: E402 - Paddle 3 additions
from core.nn.loss import AdaptiveLogSoftmaxWithLoss, HSigmoidLoss  # noqa: E402
from core.nn.padding import (  # noqa: E402 - fixed-mode padding layers
                             CircularPad1D,
                             CircularPad2D,
                             CircularPad3D,
                             ConstantPad1D,
                             ConstantPad2D,
                             ConstantPad3D,
                             ReflectionPad1D,
                             ReflectionPad2D,
                             ReflectionPad3D,
                             ReplicationPad1D,
                             ReplicationPad2D,
                             ReplicationPad3D,
)
from core.nn.pooling import LPPool1D, LPPool2D  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss", "CircularPad1D", "CircularPad2D", "CircularPad3D",
            "ConstantPad1D", "ConstantPad2D", "ConstantPad3D", "FeatureAlphaDropout",
            "HSigmoidLoss", "LPPool1D", "LPPool2D", "ReflectionPad1D", "ReflectionPad2D",
            "ReflectionPad3D", "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D"]
from core.nn.fractional_pool import FractionalMaxPool2D, FractionalMaxPool3D  # noqa: E402

__all__ += ["FractionalMaxPool2D", "FractionalMaxPool3D"]
from core.nn.loss import RNNTLoss  # noqa: E402 - Paddle 3's RNN transducer loss

__all__ += ["RNNTLoss"]
from core.nn.merge import Matmul  # noqa: E402 - a graph merge: attention written as layers

__all__ += ["Matmul"]
from core.nn.container import ParameterDict  # noqa: E402 - paddle.nn.ParameterDict

__all__ += ["ParameterDict"]

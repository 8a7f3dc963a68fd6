"""Paddle's own signatures for core.nn, core.nn.functional and core.nn.initializer.

Taken from the source of PaddlePaddle 3.3.1 (the ``paddlepaddle`` 3.3.1 wheel, files under
``python/paddle/``; each entry's comment names its file) with type annotations removed and
nothing else changed: parameter names, order, defaults as written, ``*`` for keyword-only.
Functions that Paddle 3.x defines as C ops (``gelu``, ``softplus``, ``grid_sample`` ...) carry
the signature that ``python/paddle/_paddle_docs.py`` attaches to them; functions that 3.x
overloads with a torch-style form (``group_norm``, ``interpolate``) carry the Paddle-native
overload (the one whose first parameter is ``x``). Classes carry ``__init__`` without ``self``.

tests/core/test_paddle_signatures_nn.py checks core's signatures against these; refresh an
entry only from Paddle's source, never from core.
"""

PADDLE_VERSION = "3.3.1"

# paddle.nn: layer classes (python/paddle/nn/layer/*.py unless noted)
NN = {
    # python/paddle/nn/layer/pooling.py
    'AvgPool2D': (
        '(kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, '
        "divisor_override=None, data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/layer/norm.py
    'BatchNorm1D': (
        '(num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, '
        "data_format='NCL', use_global_stats=None, name=None)"
    ),
    # python/paddle/nn/layer/norm.py
    'BatchNorm2D': (
        '(num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, '
        "data_format='NCHW', use_global_stats=None, name=None)"
    ),
    # python/paddle/nn/layer/conv.py
    'Conv2D': (
        '(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, *, '
        "bias=True, padding_mode='zeros', device=None, dtype=None, weight_attr=None, "
        "bias_attr=None, data_format='NCHW')"
    ),
    # python/paddle/nn/layer/loss.py
    'CrossEntropyLoss': (
        "(weight=None, ignore_index=-100, reduction='mean', soft_label=False, axis=-1, "
        'use_softmax=True, label_smoothing=0.0, name=None)'
    ),
    # python/paddle/nn/layer/common.py
    'Dropout': "(p=0.5, inplace=False, axis=None, mode='upscale_in_train', name=None)",
    'Flatten': '(start_axis=1, stop_axis=-1)',  # python/paddle/nn/layer/common.py
    'Identity': '(*args, **kwargs)',  # python/paddle/nn/layer/common.py
    'Layer': "(name_scope=None, dtype='float32')",  # python/paddle/nn/layer/layers.py
    'LayerList': '(sublayers=None)',  # python/paddle/nn/layer/container.py
    # python/paddle/nn/layer/common.py
    'Linear': '(in_features, out_features, weight_attr=None, bias_attr=None, name=None)',
    'LogSoftmax': '(axis=-1, name=None)',  # python/paddle/nn/layer/activation.py
    'MSELoss': "(reduction='mean')",  # python/paddle/nn/layer/loss.py
    # python/paddle/nn/layer/pooling.py
    'MaxPool2D': (
        '(kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, '
        "data_format='NCHW', name=None)"
    ),
    'ReLU': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Sequential': '(*layers)',  # python/paddle/nn/layer/container.py
    'Sigmoid': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Softmax': '(axis=-1, name=None)',  # python/paddle/nn/layer/activation.py
    'Tanh': '(name=None)',  # python/paddle/nn/layer/activation.py
    'BCELoss': "(weight=None, reduction='mean', name=None)",  # python/paddle/nn/layer/loss.py
    # python/paddle/nn/layer/loss.py
    'BCEWithLogitsLoss': "(weight=None, reduction='mean', pos_weight=None, name=None)",
    'KLDivLoss': "(reduction='mean', log_target=False)",  # python/paddle/nn/layer/loss.py
    'L1Loss': "(reduction='mean', name=None)",  # python/paddle/nn/layer/loss.py
    # python/paddle/nn/layer/loss.py
    'NLLLoss': "(weight=None, ignore_index=-100, reduction='mean', name=None)",
    # python/paddle/nn/layer/loss.py
    'SmoothL1Loss': "(reduction='mean', delta=1.0, is_huber=True, name=None)",
    # python/paddle/nn/clip.py
    'ClipGradByGlobalNorm': "(clip_norm, group_name='default_group', auto_skip_clip=False)",
    'ClipGradByNorm': '(clip_norm)',  # python/paddle/nn/clip.py
    'ClipGradByValue': '(max, min=None)',  # python/paddle/nn/clip.py
    # python/paddle/nn/layer/rnn.py
    'GRU': (
        "(input_size, hidden_size, num_layers=1, direction='forward', time_major=False, "
        'dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, '
        'bias_hh_attr=None, name=None)'
    ),
    # python/paddle/nn/layer/rnn.py
    'LSTM': (
        "(input_size, hidden_size, num_layers=1, direction='forward', time_major=False, "
        'dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, '
        'bias_hh_attr=None, proj_size=0, name=None)'
    ),
    # python/paddle/nn/layer/common.py
    'Embedding': (
        '(num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0, *, '
        'scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, '
        'dtype=None, weight_attr=None, name=None)'
    ),
    'ELU': '(alpha=1.0, name=None)',  # python/paddle/nn/layer/activation.py
    'GELU': '(approximate=False, name=None)',  # python/paddle/nn/layer/activation.py
    'Hardswish': '(name=None)',  # python/paddle/nn/layer/activation.py
    'LeakyReLU': '(negative_slope=0.01, name=None)',  # python/paddle/nn/layer/activation.py
    'ReLU6': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Silu': '(inplace=False, name=None)',  # python/paddle/nn/layer/activation.py
    # python/paddle/nn/layer/norm.py
    'GroupNorm': (
        '(num_groups, num_channels, epsilon=1e-05, *, affine=True, device=None, dtype=None, '
        "weight_attr=None, bias_attr=None, data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/layer/norm.py
    'InstanceNorm2D': (
        '(num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, '
        "data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/layer/norm.py
    'LayerNorm': (
        '(normalized_shape, epsilon=1e-05, *, elementwise_affine=True, bias=True, device=None, '
        'dtype=None, weight_attr=None, bias_attr=None, name=None)'
    ),
    'LayerDict': '(sublayers=None)',  # python/paddle/nn/layer/container.py
    # python/paddle/nn/layer/transformer.py
    'MultiHeadAttention': (
        '(embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False, '
        'weight_attr=None, bias_attr=None)'
    ),
    # python/paddle/nn/layer/transformer.py
    'TransformerEncoder': '(encoder_layer, num_layers, norm=None)',
    # python/paddle/nn/layer/transformer.py
    'TransformerEncoderLayer': (
        "(d_model, nhead, dim_feedforward, dropout=0.1, activation='relu', attn_dropout=None, "
        'act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, '
        'layer_norm_eps=1e-05)'
    ),
    # python/paddle/nn/layer/pooling.py
    'AdaptiveAvgPool2D': "(output_size, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/pooling.py
    'AdaptiveMaxPool2D': '(output_size, return_mask=False, name=None)',
    # python/paddle/nn/layer/pooling.py
    'MaxPool1D': (
        '(kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None)'
    ),
    # python/paddle/nn/layer/conv.py
    'Conv1D': (
        '(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, *, '
        "bias=True, padding_mode='zeros', device=None, dtype=None, weight_attr=None, "
        "bias_attr=None, data_format='NCL')"
    ),
    # python/paddle/nn/layer/conv.py
    'Conv2DTranspose': (
        '(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, '
        "dilation=1, groups=1, weight_attr=None, bias_attr=None, data_format='NCHW')"
    ),
    'Dropout2D': "(p=0.5, data_format='NCHW', name=None)",  # python/paddle/nn/layer/common.py
    # python/paddle/nn/layer/common.py
    'Pad2D': "(padding, mode='constant', value=0.0, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/common.py
    'Upsample': (
        "(size=None, scale_factor=None, mode='nearest', align_corners=False, align_mode=0, "
        'data_format=None, recompute_scale_factor=None, name=None)'
    ),
    # python/paddle/nn/layer/rnn.py
    'SimpleRNN': (
        "(input_size, hidden_size, num_layers=1, direction='forward', time_major=False, "
        "dropout=0.0, activation='tanh', weight_ih_attr=None, weight_hh_attr=None, "
        'bias_ih_attr=None, bias_hh_attr=None, name=None)'
    ),
    'Hardsigmoid': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Hardtanh': '(min=-1.0, max=1.0, name=None)',  # python/paddle/nn/layer/activation.py
    'Mish': '(name=None)',  # python/paddle/nn/layer/activation.py
    # python/paddle/nn/layer/activation.py
    'PReLU': "(num_parameters=1, init=0.25, weight_attr=None, data_format='NCHW', name=None)",
    'Softplus': '(beta=1, threshold=20, name=None)',  # python/paddle/nn/layer/activation.py
    'Softsign': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Swish': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Tanhshrink': '(name=None)',  # python/paddle/nn/layer/activation.py
    # python/paddle/nn/layer/pooling.py
    'AvgPool1D': (
        '(kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None)'
    ),
    'CosineSimilarity': '(axis=1, eps=1e-08)',  # python/paddle/nn/layer/common.py
    'BiRNN': '(cell_fw, cell_bw, time_major=False)',  # python/paddle/nn/layer/rnn.py
    # python/paddle/nn/layer/rnn.py
    'GRUCell': (
        '(input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, '
        'bias_hh_attr=None, name=None)'
    ),
    # python/paddle/nn/layer/rnn.py
    'LSTMCell': (
        '(input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, '
        'bias_hh_attr=None, proj_size=0, name=None)'
    ),
    'RNN': '(cell, is_reverse=False, time_major=False)',  # python/paddle/nn/layer/rnn.py
    # python/paddle/nn/layer/rnn.py
    'SimpleRNNCell': (
        "(input_size, hidden_size, activation='tanh', weight_ih_attr=None, weight_hh_attr=None, "
        'bias_ih_attr=None, bias_hh_attr=None, name=None)'
    ),
    # python/paddle/nn/layer/transformer.py
    'Transformer': (
        '(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,'
        " dropout=0.1, activation='relu', attn_dropout=None, act_dropout=None, "
        'normalize_before=False, weight_attr=None, bias_attr=None, custom_encoder=None, '
        'custom_decoder=None)'
    ),
    # python/paddle/nn/layer/transformer.py
    'TransformerDecoder': '(decoder_layer, num_layers, norm=None)',
    # python/paddle/nn/layer/transformer.py
    'TransformerDecoderLayer': (
        "(d_model, nhead, dim_feedforward, dropout=0.1, activation='relu', attn_dropout=None, "
        'act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, '
        'layer_norm_eps=1e-05)'
    ),
    'AdaptiveAvgPool1D': '(output_size, name=None)',  # python/paddle/nn/layer/pooling.py
    # python/paddle/nn/layer/pooling.py
    'AdaptiveMaxPool1D': '(output_size, return_mask=False, name=None)',
    # python/paddle/nn/layer/common.py
    'Bilinear': (
        '(in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None)'
    ),
    'ChannelShuffle': "(groups, data_format='NCHW', name=None)",  # python/paddle/nn/layer/vision.py
    # python/paddle/nn/layer/conv.py
    'Conv1DTranspose': (
        '(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, '
        "groups=1, dilation=1, weight_attr=None, bias_attr=None, data_format='NCL')"
    ),
    # python/paddle/nn/layer/common.py
    'Fold': '(output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None)',
    # python/paddle/nn/layer/norm.py
    'InstanceNorm1D': (
        '(num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, '
        "data_format='NCL', name=None)"
    ),
    # python/paddle/nn/layer/norm.py
    'LocalResponseNorm': "(size, alpha=0.0001, beta=0.75, k=1.0, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/common.py
    'Pad1D': "(padding, mode='constant', value=0.0, data_format='NCL', name=None)",
    # python/paddle/nn/layer/vision.py
    'PixelShuffle': "(upscale_factor, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/vision.py
    'PixelUnshuffle': "(downscale_factor, data_format='NCHW', name=None)",
    'Unflatten': '(axis, shape, name=None)',  # python/paddle/nn/layer/common.py
    # python/paddle/nn/layer/common.py
    'Unfold': '(kernel_sizes, dilations=1, paddings=0, strides=1, name=None)',
    'ZeroPad2D': "(padding, data_format='NCHW', name=None)",  # python/paddle/nn/layer/common.py
    'CELU': '(alpha=1.0, name=None)',  # python/paddle/nn/layer/activation.py
    'GLU': '(axis=-1, name=None)',  # python/paddle/nn/layer/activation.py
    # python/paddle/nn/layer/activation.py
    'SELU': '(scale=1.0507009873554805, alpha=1.6732632423543772, name=None)',
    'Hardshrink': '(threshold=0.5, name=None)',  # python/paddle/nn/layer/activation.py
    'LogSigmoid': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Maxout': '(groups, axis=1, name=None)',  # python/paddle/nn/layer/activation.py
    # python/paddle/nn/layer/activation.py
    'RReLU': '(lower=1.0 / 8.0, upper=1.0 / 3.0, name=None)',
    'Softmax2D': '(name=None)',  # python/paddle/nn/layer/activation.py
    'Softshrink': '(threshold=0.5, name=None)',  # python/paddle/nn/layer/activation.py
    # python/paddle/nn/layer/activation.py
    'ThresholdedReLU': '(threshold=1.0, value=0.0, name=None)',
    # python/paddle/nn/layer/loss.py
    'CosineEmbeddingLoss': "(margin=0, reduction='mean', name=None)",
    # python/paddle/nn/layer/loss.py
    'GaussianNLLLoss': "(full=False, epsilon=1e-06, reduction='mean', name=None)",
    # python/paddle/nn/layer/loss.py
    'HingeEmbeddingLoss': "(margin=1.0, reduction='mean', name=None)",
    # python/paddle/nn/layer/loss.py
    'MarginRankingLoss': "(margin=0.0, reduction='mean', name=None)",
    # python/paddle/nn/layer/loss.py
    'MultiLabelSoftMarginLoss': "(weight=None, reduction='mean', name=None)",
    # python/paddle/nn/layer/loss.py
    'MultiMarginLoss': "(p=1, margin=1.0, weight=None, reduction='mean', name=None)",
    # python/paddle/nn/layer/loss.py
    'PoissonNLLLoss': "(log_input=True, full=False, epsilon=1e-08, reduction='mean', name=None)",
    'SoftMarginLoss': "(reduction='mean', name=None)",  # python/paddle/nn/layer/loss.py
    # python/paddle/nn/layer/loss.py
    'TripletMarginLoss': (
        "(margin=1.0, p=2.0, epsilon=1e-06, swap=False, reduction='mean', name=None)"
    ),
    'ParameterList': '(parameters=None)',  # python/paddle/nn/layer/container.py
    'CTCLoss': "(blank=0, reduction='mean', zero_infinity=False)",  # python/paddle/nn/layer/loss.py
    # python/paddle/nn/layer/norm.py
    'SpectralNorm': "(weight_shape, dim=0, power_iters=1, eps=1e-12, dtype='float32')",
    # python/paddle/nn/layer/pooling.py
    'AdaptiveAvgPool3D': "(output_size, data_format='NCDHW', name=None)",
    # python/paddle/nn/layer/pooling.py
    'AdaptiveMaxPool3D': '(output_size, return_mask=False, name=None)',
    # python/paddle/nn/layer/pooling.py
    'AvgPool3D': (
        '(kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, '
        "divisor_override=None, data_format='NCDHW', name=None)"
    ),
    # python/paddle/nn/layer/norm.py
    'BatchNorm3D': (
        '(num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, '
        "data_format='NCDHW', use_global_stats=None, name=None)"
    ),
    # python/paddle/nn/layer/conv.py
    'Conv3D': (
        '(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, *, '
        "bias=True, padding_mode='zeros', device=None, dtype=None, weight_attr=None, "
        "bias_attr=None, data_format='NCDHW')"
    ),
    # python/paddle/nn/layer/conv.py
    'Conv3DTranspose': (
        '(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, '
        "dilation=1, groups=1, weight_attr=None, bias_attr=None, data_format='NCDHW')"
    ),
    'Dropout3D': "(p=0.5, data_format='NCDHW', name=None)",  # python/paddle/nn/layer/common.py
    # python/paddle/nn/layer/norm.py
    'InstanceNorm3D': (
        '(num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, '
        "data_format='NCDHW', name=None)"
    ),
    # python/paddle/nn/layer/pooling.py
    'MaxPool3D': (
        '(kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, '
        "data_format='NCDHW', name=None)"
    ),
    # python/paddle/nn/layer/common.py
    'Pad3D': "(padding, mode='constant', value=0.0, data_format='NCDHW', name=None)",
    'ZeroPad1D': "(padding, data_format='NCL', name=None)",  # python/paddle/nn/layer/common.py
    'ZeroPad3D': "(padding, data_format='NCDHW', name=None)",  # python/paddle/nn/layer/common.py
    # python/paddle/nn/layer/norm.py
    'BatchNorm': (
        '(num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, '
        "bias_attr=None, dtype='float32', data_layout='NCHW', in_place=False, "
        'moving_mean_name=None, moving_variance_name=None, '
        'do_model_average_for_mean_and_var=True, use_global_stats=False, '
        'trainable_statistics=False)'
    ),
    # python/paddle/nn/layer/norm.py
    'SyncBatchNorm': (
        '(num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, '
        "data_format='NCHW', name=None)"
    ),
    'AlphaDropout': '(p=0.5, name=None)',  # python/paddle/nn/layer/common.py
    # python/paddle/nn/layer/pooling.py
    'MaxUnPool1D': (
        "(kernel_size, stride=None, padding=0, data_format='NCL', output_size=None, name=None)"
    ),
    # python/paddle/nn/layer/pooling.py
    'MaxUnPool2D': (
        "(kernel_size, stride=None, padding=0, data_format='NCHW', output_size=None, name=None)"
    ),
    # python/paddle/nn/layer/pooling.py
    'MaxUnPool3D': (
        "(kernel_size, stride=None, padding=0, data_format='NCDHW', output_size=None, name=None)"
    ),
    'MultiLabelMarginLoss': "(reduction='mean', name=None)",  # python/paddle/nn/layer/loss.py
    # python/paddle/nn/layer/distance.py
    'PairwiseDistance': '(p=2.0, epsilon=1e-06, keepdim=False, name=None)',
    # python/paddle/nn/layer/loss.py
    'TripletMarginWithDistanceLoss': (
        "(distance_function=None, margin=1.0, swap=False, reduction='mean', name=None)"
    ),
    # python/paddle/nn/layer/common.py
    'UpsamplingBilinear2D': "(size=None, scale_factor=None, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/common.py
    'UpsamplingNearest2D': "(size=None, scale_factor=None, data_format='NCHW', name=None)",
    # python/paddle/nn/decode.py
    'BeamSearchDecoder': (
        '(cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None)'
    ),
    'RNNCellBase': "(name_scope=None, dtype='float32')",  # python/paddle/nn/layer/rnn.py
    # python/paddle/nn/decode.py
    'dynamic_decode': (
        '(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,'
        ' is_test=False, return_length=False, **kwargs)'
    ),
    # python/paddle/nn/layer/loss.py
    'AdaptiveLogSoftmaxWithLoss': (
        '(in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None, div_value=4.0, '
        'head_bias=False, name=None)'
    ),
    'CircularPad1D': "(padding, data_format='NCL', name=None)",  # python/paddle/nn/layer/common.py
    'CircularPad2D': "(padding, data_format='NCHW', name=None)",  # python/paddle/nn/layer/common.py
    # python/paddle/nn/layer/common.py
    'CircularPad3D': "(padding, data_format='NCDHW', name=None)",
    # python/paddle/nn/layer/common.py
    'ConstantPad1D': "(padding, value, data_format='NCL', name=None)",
    # python/paddle/nn/layer/common.py
    'ConstantPad2D': "(padding, value, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/common.py
    'ConstantPad3D': "(padding, value, data_format='NCDHW', name=None)",
    'FeatureAlphaDropout': '(p=0.5, name=None)',  # python/paddle/nn/layer/common.py
    # python/paddle/nn/layer/loss.py
    'HSigmoidLoss': (
        '(feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False, '
        'is_sparse=False, name=None)'
    ),
    # python/paddle/nn/layer/pooling.py
    'LPPool1D': (
        "(norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format='NCL', "
        'name=None)'
    ),
    # python/paddle/nn/layer/pooling.py
    'LPPool2D': (
        "(norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format='NCHW', "
        'name=None)'
    ),
    # python/paddle/nn/layer/common.py
    'ReflectionPad1D': "(padding, data_format='NCL', name=None)",
    # python/paddle/nn/layer/common.py
    'ReflectionPad2D': "(padding, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/common.py
    'ReflectionPad3D': "(padding, data_format='NCDHW', name=None)",
    # python/paddle/nn/layer/common.py
    'ReplicationPad1D': "(padding, data_format='NCL', name=None)",
    # python/paddle/nn/layer/common.py
    'ReplicationPad2D': "(padding, data_format='NCHW', name=None)",
    # python/paddle/nn/layer/common.py
    'ReplicationPad3D': "(padding, data_format='NCDHW', name=None)",
    # python/paddle/nn/layer/pooling.py
    'FractionalMaxPool2D': (
        '(output_size, kernel_size=None, random_u=None, return_mask=False, name=None)'
    ),
    # python/paddle/nn/layer/pooling.py
    'FractionalMaxPool3D': (
        '(output_size, kernel_size=None, random_u=None, return_mask=False, name=None)'
    ),
    # python/paddle/nn/layer/loss.py
    'RNNTLoss': "(blank=0, fastemit_lambda=0.001, reduction='mean', name=None)",
    'ParameterDict': '(parameters=None)',  # python/paddle/nn/layer/container.py
}

# paddle.nn.functional (python/paddle/nn/functional/*.py unless noted)
FUNCTIONAL = {
    # python/paddle/nn/functional/pooling.py
    'avg_pool2d': (
        '(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, '
        "divisor_override=None, data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/functional/norm.py
    'batch_norm': (
        '(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9, '
        "epsilon=1e-05, data_format='NCHW', use_global_stats=None, name=None)"
    ),
    # python/paddle/nn/functional/conv.py
    'conv2d': (
        "(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCHW', "
        'name=None)'
    ),
    # python/paddle/nn/functional/loss.py
    'cross_entropy': (
        "(input, label, weight=None, ignore_index=-100, reduction='mean', soft_label=False, "
        'axis=-1, use_softmax=True, label_smoothing=0.0, name=None)'
    ),
    # python/paddle/nn/functional/common.py
    'dropout': (
        "(x, p=0.5, axis=None, training=True, inplace=False, mode='upscale_in_train', name=None)"
    ),
    'linear': '(x, weight, bias=None, name=None)',  # python/paddle/nn/functional/common.py
    # python/paddle/nn/functional/activation.py
    'log_softmax': '(x, axis=-1, dtype=None, name=None)',
    # python/paddle/nn/functional/pooling.py
    'max_pool2d': (
        '(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, '
        "data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/functional/loss.py
    'mse_loss': "(input, label, reduction='mean', name=None)",
    'relu': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    'sigmoid': '(x, name=None, *, out=None)',  # python/paddle/_paddle_docs.py
    # python/paddle/nn/functional/activation.py
    'softmax': '(x, axis=-1, dtype=None, name=None, *, out=None)',
    'tanh': '(x, name=None, *, out=None)',  # python/paddle/_paddle_docs.py
    # python/paddle/nn/functional/input.py
    'embedding': (
        '(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False, '
        'scale_grad_by_freq=False, name=None)'
    ),
    # python/paddle/nn/functional/extension.py
    'sequence_mask': "(x, maxlen=None, dtype='int64', name=None)",
    # python/paddle/nn/functional/loss.py
    'binary_cross_entropy': "(input, label, weight=None, reduction='mean', name=None)",
    # python/paddle/nn/functional/loss.py
    'binary_cross_entropy_with_logits': (
        "(logit, label, weight=None, reduction='mean', pos_weight=None, name=None)"
    ),
    # python/paddle/nn/functional/loss.py
    'kl_div': "(input, label, reduction='mean', log_target=False, name=None)",
    'l1_loss': "(input, label, reduction='mean', name=None)",  # python/paddle/nn/functional/loss.py
    # python/paddle/nn/functional/loss.py
    'nll_loss': "(input, label, weight=None, ignore_index=-100, reduction='mean', name=None)",
    # python/paddle/nn/functional/loss.py
    'smooth_l1_loss': "(input, label, reduction='mean', delta=1.0, is_huber=True, name=None)",
    # python/paddle/nn/functional/norm.py
    'normalize': '(x, p=2, axis=1, epsilon=1e-12, out=None, name=None)',
    'one_hot': '(x, num_classes=-1, name=None)',  # python/paddle/nn/functional/input.py
    'elu': '(x, alpha=1.0, name=None)',  # python/paddle/nn/functional/activation.py
    'gelu': '(x, approximate=False, name=None)',  # python/paddle/_paddle_docs.py
    'hardswish': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    # python/paddle/nn/functional/activation.py
    'leaky_relu': '(x, negative_slope=0.01, name=None)',
    'relu6': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    'silu': '(x, inplace=False, name=None)',  # python/paddle/nn/functional/activation.py
    # python/paddle/nn/functional/norm.py
    'group_norm': (
        "(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/functional/norm.py
    'instance_norm': (
        '(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, '
        "momentum=0.9, eps=1e-05, data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/functional/norm.py
    'layer_norm': '(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None)',
    # python/paddle/nn/functional/sdpa.py
    'scaled_dot_product_attention': (
        '(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, training=True, '
        'backend=None, scale=None, enable_gqa=True, name=None)'
    ),
    # python/paddle/nn/functional/pooling.py
    'adaptive_avg_pool2d': "(x, output_size, data_format='NCHW', name=None)",
    # python/paddle/nn/functional/pooling.py
    'adaptive_max_pool2d': '(x, output_size, return_mask=False, name=None)',
    # python/paddle/nn/functional/pooling.py
    'max_pool1d': (
        '(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None)'
    ),
    # python/paddle/nn/functional/conv.py
    'conv1d': (
        "(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCL', "
        'name=None)'
    ),
    # python/paddle/nn/functional/conv.py
    'conv2d_transpose': (
        '(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1, '
        "output_size=None, data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/functional/common.py
    'dropout2d': "(x, p=0.5, training=True, data_format='NCHW', name=None)",
    # python/paddle/nn/functional/common.py
    'interpolate': (
        "(x, size=None, scale_factor=None, mode='nearest', align_corners=False, align_mode=0, "
        'data_format=None, recompute_scale_factor=None, name=None)'
    ),
    # python/paddle/nn/functional/common.py
    'pad': (
        "(x, pad, mode='constant', value=0.0, data_format=None, pad_from_left_axis=True, "
        'name=None)'
    ),
    # python/paddle/nn/functional/activation.py
    'hardsigmoid': '(x, slope=0.1666667, offset=0.5, name=None)',
    'hardtanh': '(x, min=-1.0, max=1.0, name=None)',  # python/paddle/nn/functional/activation.py
    'mish': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    # python/paddle/nn/functional/activation.py
    'prelu': "(x, weight, data_format='NCHW', name=None)",
    'softplus': '(x, beta=1, threshold=20, name=None)',  # python/paddle/_paddle_docs.py
    'softsign': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    'swish': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    'tanhshrink': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    # python/paddle/nn/functional/pooling.py
    'avg_pool1d': (
        '(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None)'
    ),
    'cosine_similarity': '(x1, x2, axis=1, eps=1e-08)',  # python/paddle/nn/functional/common.py
    # python/paddle/nn/functional/common.py
    'label_smooth': '(label, prior_dist=None, epsilon=0.1, name=None)',
    # python/paddle/nn/functional/loss.py
    'softmax_with_cross_entropy': (
        '(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True, '
        'return_softmax=False, axis=-1)'
    ),
    'square_error_cost': '(input, label)',  # python/paddle/nn/functional/loss.py
    'adaptive_avg_pool1d': '(x, output_size, name=None)',  # python/paddle/nn/functional/pooling.py
    # python/paddle/nn/functional/pooling.py
    'adaptive_max_pool1d': '(x, output_size, return_mask=False, name=None)',
    'bilinear': '(x1, x2, weight, bias=None, name=None)',  # python/paddle/nn/functional/common.py
    # python/paddle/nn/functional/vision.py
    'channel_shuffle': "(x, groups, data_format='NCHW', name=None)",
    # python/paddle/nn/functional/conv.py
    'conv1d_transpose': (
        '(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, '
        "output_size=None, data_format='NCL', name=None)"
    ),
    # python/paddle/nn/functional/common.py
    'fold': '(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None)',
    # python/paddle/nn/functional/norm.py
    'local_response_norm': (
        "(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format='NCHW', name=None)"
    ),
    # python/paddle/nn/functional/vision.py
    'pixel_shuffle': "(x, upscale_factor, data_format='NCHW', name=None)",
    # python/paddle/nn/functional/vision.py
    'pixel_unshuffle': "(x, downscale_factor, data_format='NCHW', name=None)",
    # python/paddle/nn/functional/common.py
    'unfold': '(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None)',
    'celu': '(x, alpha=1.0, name=None)',  # python/paddle/nn/functional/activation.py
    'glu': '(x, axis=-1, name=None)',  # python/paddle/nn/functional/activation.py
    'hardshrink': '(x, threshold=0.5, name=None)',  # python/paddle/nn/functional/activation.py
    'log_sigmoid': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    'maxout': '(x, groups, axis=1, name=None)',  # python/paddle/nn/functional/activation.py
    # python/paddle/nn/functional/activation.py
    'rrelu': '(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None)',
    # python/paddle/nn/functional/activation.py
    'selu': '(x, scale=1.0507009873554805, alpha=1.6732632423543772, name=None)',
    'softshrink': '(x, threshold=0.5, name=None)',  # python/paddle/nn/functional/activation.py
    # python/paddle/nn/functional/activation.py
    'thresholded_relu': '(x, threshold=1.0, value=0.0, name=None)',
    # python/paddle/nn/functional/loss.py
    'cosine_embedding_loss': "(input1, input2, label, margin=0, reduction='mean', name=None)",
    # python/paddle/nn/functional/loss.py
    'gaussian_nll_loss': (
        "(input, label, variance, full=False, epsilon=1e-06, reduction='mean', name=None)"
    ),
    # python/paddle/nn/functional/loss.py
    'hinge_embedding_loss': "(input, label, margin=1.0, reduction='mean', name=None)",
    # python/paddle/nn/functional/loss.py
    'margin_ranking_loss': "(input, other, label, margin=0.0, reduction='mean', name=None)",
    # python/paddle/nn/functional/loss.py
    'multi_label_soft_margin_loss': "(input, label, weight=None, reduction='mean', name=None)",
    # python/paddle/nn/functional/loss.py
    'multi_margin_loss': (
        "(input, label, p=1, margin=1.0, weight=None, reduction='mean', name=None)"
    ),
    # python/paddle/nn/functional/loss.py
    'poisson_nll_loss': (
        "(input, label, log_input=True, full=False, epsilon=1e-08, reduction='mean', name=None)"
    ),
    # python/paddle/nn/functional/loss.py
    'soft_margin_loss': "(input, label, reduction='mean', name=None)",
    # python/paddle/nn/functional/loss.py
    'triplet_margin_loss': (
        '(input, positive, negative, margin=1.0, p=2, epsilon=1e-06, swap=False, '
        "reduction='mean', name=None)"
    ),
    # python/paddle/nn/functional/loss.py
    'ctc_loss': (
        "(log_probs, labels, input_lengths, label_lengths, blank=0, reduction='mean', "
        'norm_by_times=False, zero_infinity=False)'
    ),
    # python/paddle/nn/functional/loss.py
    'sigmoid_focal_loss': (
        "(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction='sum', name=None)"
    ),
    # python/paddle/nn/functional/vision.py
    'affine_grid': '(theta, out_shape, align_corners=True, name=None)',
    # python/paddle/_paddle_docs.py
    'grid_sample': (
        "(x, grid, mode='bilinear', padding_mode='zeros', align_corners=True, name=None)"
    ),
    # python/paddle/nn/functional/pooling.py
    'adaptive_avg_pool3d': "(x, output_size, data_format='NCDHW', name=None)",
    # python/paddle/nn/functional/pooling.py
    'adaptive_max_pool3d': '(x, output_size, return_mask=False, name=None)',
    # python/paddle/nn/functional/pooling.py
    'avg_pool3d': (
        '(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, '
        "divisor_override=None, data_format='NCDHW', name=None)"
    ),
    # python/paddle/nn/functional/conv.py
    'conv3d': (
        "(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCDHW', "
        'name=None)'
    ),
    # python/paddle/nn/functional/conv.py
    'conv3d_transpose': (
        '(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, '
        "output_size=None, data_format='NCDHW', name=None)"
    ),
    # python/paddle/nn/functional/common.py
    'dropout3d': "(x, p=0.5, training=True, data_format='NCDHW', name=None)",
    # python/paddle/nn/functional/pooling.py
    'max_pool3d': (
        '(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, '
        "data_format='NCDHW', name=None)"
    ),
    # python/paddle/nn/functional/common.py
    'zeropad2d': "(x, padding, data_format='NCHW', name=None)",
    # python/paddle/nn/functional/common.py
    'alpha_dropout': '(x, p=0.5, training=True, name=None)',
    'dice_loss': '(input, label, epsilon=1e-05, name=None)',  # python/paddle/nn/functional/loss.py
    # python/paddle/nn/functional/activation.py
    'gumbel_softmax': '(x, temperature=1.0, hard=False, axis=-1, name=None)',
    'log_loss': '(input, label, epsilon=0.0001, name=None)',  # python/paddle/nn/functional/loss.py
    # python/paddle/nn/functional/pooling.py
    'max_unpool1d': (
        "(x, indices, kernel_size, stride=None, padding=0, data_format='NCL', output_size=None, "
        'name=None)'
    ),
    # python/paddle/nn/functional/pooling.py
    'max_unpool2d': (
        "(x, indices, kernel_size, stride=None, padding=0, data_format='NCHW', output_size=None, "
        'name=None)'
    ),
    # python/paddle/nn/functional/pooling.py
    'max_unpool3d': (
        "(x, indices, kernel_size, stride=None, padding=0, data_format='NCDHW', output_size=None,"
        ' name=None)'
    ),
    # python/paddle/nn/functional/loss.py
    'multi_label_margin_loss': "(input, label, reduction='mean', name=None)",
    'npair_loss': '(anchor, positive, labels, l2_reg=0.002)',  # python/paddle/nn/functional/loss.py
    # python/paddle/nn/functional/distance.py
    'pairwise_distance': '(x, y, p=2.0, epsilon=1e-06, keepdim=False, name=None)',
    # python/paddle/nn/functional/extension.py
    'temporal_shift': "(x, seg_num, shift_ratio=0.25, name=None, data_format='NCHW')",
    # python/paddle/nn/functional/loss.py
    'triplet_margin_with_distance_loss': (
        '(input, positive, negative, distance_function=None, margin=1.0, swap=False, '
        "reduction='mean', name=None)"
    ),
    # python/paddle/nn/functional/common.py
    'upsample': (
        "(x, size=None, scale_factor=None, mode='nearest', align_corners=False, align_mode=0, "
        'data_format=None, name=None)'
    ),
    # python/paddle/nn/functional/loss.py
    'adaptive_log_softmax_with_loss': (
        '(input, label, head_weight, tail_weights, cutoffs, head_bias=None, name=None)'
    ),
    # python/paddle/nn/functional/common.py
    'class_center_sample': '(label, num_classes, num_samples, group=None)',
    # python/paddle/nn/functional/common.py
    'feature_alpha_dropout': '(x, p=0.5, training=True, name=None)',
    # python/paddle/nn/functional/loss.py
    'hsigmoid_loss': (
        '(input, label, num_classes, weight, bias=None, path_table=None, path_code=None, '
        'is_sparse=False, name=None)'
    ),
    # python/paddle/nn/functional/pooling.py
    'lp_pool1d': (
        "(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format='NCL', "
        'name=None)'
    ),
    # python/paddle/nn/functional/pooling.py
    'lp_pool2d': (
        "(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format='NCHW',"
        ' name=None)'
    ),
    # python/paddle/nn/functional/loss.py
    'margin_cross_entropy': (
        '(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, group=None, '
        "return_softmax=False, reduction='mean')"
    ),
    # python/paddle/nn/functional/pooling.py
    'fractional_max_pool2d': (
        '(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None)'
    ),
    # python/paddle/nn/functional/pooling.py
    'fractional_max_pool3d': (
        '(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None)'
    ),
    # python/paddle/nn/functional/loss.py
    'rnnt_loss': (
        '(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001, '
        "reduction='mean', name=None)"
    ),
    'elu_': '(x, alpha=1.0, name=None)',  # python/paddle/nn/functional/activation.py
    'hardtanh_': '(x, min=-1.0, max=1.0, name=None)',  # python/paddle/nn/functional/activation.py
    # python/paddle/nn/functional/activation.py
    'leaky_relu_': '(x, negative_slope=0.01, name=None)',
    'relu_': '(x, name=None)',  # python/paddle/nn/functional/activation.py
    'softmax_': '(x, axis=-1, dtype=None, name=None)',  # python/paddle/nn/functional/activation.py
    'tanh_': '(x, name=None)',  # python/paddle/tensor/math.py
    # python/paddle/nn/functional/activation.py
    'thresholded_relu_': '(x, threshold=1.0, value=0.0, name=None)',
    'gather_tree': '(ids, parents)',  # python/paddle/nn/functional/extension.py
}

# paddle.nn.initializer (python/paddle/nn/initializer/*.py unless noted)
INITIALIZER = {
    'Assign': '(value, name=None)',  # python/paddle/nn/initializer/assign.py
    'Bilinear': '()',  # python/paddle/nn/initializer/bilinear.py
    'Constant': '(value=0.0)',  # python/paddle/nn/initializer/constant.py
    'Dirac': '(groups=1, name=None)',  # python/paddle/nn/initializer/dirac.py
    'Initializer': '()',  # python/paddle/nn/initializer/initializer.py
    # python/paddle/nn/initializer/kaiming.py
    'KaimingNormal': "(fan_in=None, negative_slope=0.0, nonlinearity='relu', mode='fan_in')",
    # python/paddle/nn/initializer/kaiming.py
    'KaimingUniform': "(fan_in=None, negative_slope=0.0, nonlinearity='relu', mode='fan_in')",
    'Normal': '(mean=0.0, std=1.0, name=None)',  # python/paddle/nn/initializer/normal.py
    'Orthogonal': '(gain=1.0, name=None)',  # python/paddle/nn/initializer/orthogonal.py
    # python/paddle/nn/initializer/normal.py
    'TruncatedNormal': '(mean=0.0, std=1.0, a=-2.0, b=2.0, name=None)',
    'Uniform': '(low=-1.0, high=1.0, name=None)',  # python/paddle/nn/initializer/uniform.py
    # python/paddle/nn/initializer/xavier.py
    'XavierNormal': '(fan_in=None, fan_out=None, gain=1.0, name=None)',
    # python/paddle/nn/initializer/xavier.py
    'XavierUniform': '(fan_in=None, fan_out=None, gain=1.0, name=None)',
    'calculate_gain': '(nonlinearity, param=None)',  # python/paddle/nn/initializer/initializer.py
    'set_global_initializer': '(weight_init, bias_init=None)',  # python/paddle/base/initializer.py
}

"""Paddle 3.3.1's own signatures for the names of core's Paddle-facing API in scope of
tests/core/test_paddle_signatures_api.py: the top-level functions (``core.__all__``),
``core.optimizer`` and ``core.optimizer.lr``, ``core.io``, ``core.metric``, ``core.callbacks`` and
``core.Model``'s methods.

Each value is the signature of the Paddle object of that name (a class's ``__init__``, without
``self``) as written in the ``def`` of paddlepaddle 3.3.1's Python source (the PyPI wheel's
``paddle/`` package; the file is the comment above each group), with the type annotations
left out. Keep it a reference: when Paddle changes a signature, update the entry from Paddle's
source, not from core's."""

SIGNATURES = {
    # python/paddle/base/dygraph/base.py
    "paddle.disable_static": "(place=None)",
    "paddle.enable_static": "()",
    "paddle.grad": (
        "(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, "
        "only_inputs=True, allow_unused=False, no_grad_vars=None, *, "
        "dump_backward_graph_path=None)"
    ),
    "paddle.is_grad_enabled": "()",
    "paddle.set_grad_enabled": "(mode)",
    # python/paddle/base/dygraph/generated_tensor_methods_patch.py
    "paddle.abs": "(x, name=None, *, out=None)",
    "paddle.acos": "(x, name=None, *, out=None)",
    "paddle.acosh": "(x, name=None, *, out=None)",
    "paddle.all": "(x, axis=None, keepdim=False, name=None, *, out=None)",
    "paddle.amax": "(x, axis=None, keepdim=False, name=None, *, out=None)",
    "paddle.amin": "(x, axis=None, keepdim=False, name=None, *, out=None)",
    "paddle.any": "(x, axis=None, keepdim=False, name=None, *, out=None)",
    "paddle.argmax": "(x, axis=None, keepdim=False, dtype='int64', name=None)",
    "paddle.argmin": "(x, axis=None, keepdim=False, dtype='int64', name=None)",
    "paddle.asin": "(x, name=None)",
    "paddle.atanh": "(x, name=None, *, out=None)",
    "paddle.bmm": "(x, y, name=None, *, out=None)",
    "paddle.ceil": "(x, name=None, *, out=None)",
    "paddle.cos": "(x, name=None, *, out=None)",
    "paddle.cosh": "(x, name=None, *, out=None)",
    "paddle.diagonal": "(x, offset=0, axis1=0, axis2=1, name=None)",
    "paddle.dot": "(x, y, name=None, *, out=None)",
    "paddle.exp": "(x, name=None, *, out=None)",
    "paddle.expand_as": "(x, y, name=None)",
    "paddle.expm1": "(x, name=None, *, out=None)",
    "paddle.floor": "(x, name=None, *, out=None)",
    "paddle.greater_than": "(x, y, name=None, *, out=None)",
    "paddle.index_put": "(x, indices, value, accumulate=False, name=None)",
    "paddle.index_put_": "(x, indices, value, accumulate=False, name=None)",
    "paddle.isclose": "(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None)",
    "paddle.isfinite": "(x, name=None)",
    "paddle.isinf": "(x, name=None)",
    "paddle.isnan": "(x, name=None)",
    "paddle.log": "(x, name=None, *, out=None)",
    "paddle.log10": "(x, name=None, *, out=None)",
    "paddle.log1p": "(x, name=None, *, out=None)",
    "paddle.log2": "(x, name=None, *, out=None)",
    "paddle.logical_and": "(x, y, name=None, *, out=None)",
    "paddle.logical_not": "(x, name=None, *, out=None)",
    "paddle.logical_or": "(x, y, name=None, *, out=None)",
    "paddle.logical_xor": "(x, y, name=None, *, out=None)",
    "paddle.logsumexp": "(x, axis=None, keepdim=False, name=None, *, out=None)",
    "paddle.matmul": "(x, y, transpose_x=False, transpose_y=False, name=None, *, out=None)",
    "paddle.maximum": "(x, y, name=None, *, out=None)",
    "paddle.minimum": "(x, y, name=None, *, out=None)",
    "paddle.multiply": "(x, y, name=None, *, out=None)",
    "paddle.roll": "(x, shifts, axis=None, name=None)",
    "paddle.round": "(x, decimals=0, name=None, *, out=None)",
    "paddle.rsqrt": "(x, name=None, *, out=None)",
    "paddle.sign": "(x, name=None, *, out=None)",
    "paddle.sin": "(x, name=None, *, out=None)",
    "paddle.sinh": "(x, name=None, *, out=None)",
    "paddle.sqrt": "(x, name=None, *, out=None)",
    "paddle.sum": "(x, axis=None, dtype=None, keepdim=False, name=None, *, out=None)",
    "paddle.tanh": "(x, name=None, *, out=None)",
    "paddle.tril": "(x, diagonal=0, name=None, *, out=None)",
    "paddle.triu": "(x, diagonal=0, name=None, *, out=None)",
    # python/paddle/base/framework.py
    "paddle.disable_signal_handler": "()",
    "paddle.in_dynamic_mode": "()",
    "paddle.is_compiled_with_cuda": "()",
    # python/paddle/base/param_attr.py
    "paddle.ParamAttr": (
        "(name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True, "
        "do_model_average=True, need_clip=True)"
    ),
    # python/paddle/device/__init__.py
    "paddle.get_device": "(input=None)",
    "paddle.set_device": "(device)",
    # python/paddle/framework/dtype.py
    "paddle.finfo": "(dtype)",
    "paddle.iinfo": "(dtype)",
    # python/paddle/framework/framework.py
    "paddle.get_default_dtype": "()",
    "paddle.set_default_dtype": "(d)",
    # python/paddle/framework/io.py
    "paddle.load": "(path, **configs)",
    "paddle.save": "(obj, path, protocol=4, **configs)",
    # python/paddle/framework/random.py
    "paddle.get_cuda_rng_state": "()",
    "paddle.get_rng_state": "(device=None)",
    "paddle.seed": "(seed)",
    "paddle.set_cuda_rng_state": "(state_list)",
    "paddle.set_rng_state": "(state_list, device=None)",
    # python/paddle/hapi/callbacks.py
    "paddle.callbacks.Callback": "()",
    "paddle.callbacks.EarlyStopping": (
        "(monitor='loss', mode='auto', patience=0, verbose=1, min_delta=0, baseline=None, "
        "save_best_model=True)"
    ),
    "paddle.callbacks.LRScheduler": "(by_step=True, by_epoch=False)",
    "paddle.callbacks.ModelCheckpoint": "(save_freq=1, save_dir=None)",
    "paddle.callbacks.ProgBarLogger": "(log_freq=1, verbose=2)",
    "paddle.callbacks.ReduceLROnPlateau": (
        "(monitor='loss', factor=0.1, patience=10, verbose=1, mode='auto', min_delta=0.0001, "
        "cooldown=0, min_lr=0)"
    ),
    # python/paddle/hapi/dynamic_flops.py
    "paddle.flops": "(net, input_size, custom_ops=None, print_detail=False)",
    # python/paddle/hapi/model.py
    "paddle.Model": "(network, inputs=None, labels=None)",
    "paddle.Model.eval_batch": "(inputs, labels=None)",
    "paddle.Model.evaluate": (
        "(eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None, "
        "num_iters=None)"
    ),
    "paddle.Model.fit": (
        "(train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10, "
        "save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, "
        "callbacks=None, accumulate_grad_batches=1, num_iters=None)"
    ),
    "paddle.Model.load": "(path, skip_mismatch=False, reset_optimizer=False)",
    "paddle.Model.parameters": "(*args, **kwargs)",
    "paddle.Model.predict":
        "(test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None)",
    "paddle.Model.predict_batch": "(inputs)",
    "paddle.Model.prepare": "(optimizer=None, loss=None, metrics=None, amp_configs=None)",
    "paddle.Model.save": "(path, training=True)",
    "paddle.Model.summary": "(input_size=None, dtype=None)",
    "paddle.Model.train_batch": "(inputs, labels=None, update=True)",
    # python/paddle/hapi/model_summary.py
    "paddle.summary": "(net, input_size=None, dtypes=None, input=None)",
    # python/paddle/io/dataloader/batch_sampler.py
    "paddle.io.BatchSampler":
        "(dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False)",
    "paddle.io.DistributedBatchSampler":
        "(dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False)",
    # python/paddle/io/dataloader/dataset.py
    "paddle.io.ChainDataset": "(datasets)",
    "paddle.io.ComposeDataset": "(datasets)",
    "paddle.io.ConcatDataset": "(datasets)",
    "paddle.io.Dataset": "()",
    "paddle.io.IterableDataset": "()",
    "paddle.io.Subset": "(dataset, indices)",
    "paddle.io.TensorDataset": "(tensors)",
    "paddle.io.random_split": "(dataset, lengths, generator=None)",
    # python/paddle/io/dataloader/sampler.py
    "paddle.io.RandomSampler": "(data_source, replacement=False, num_samples=None, generator=None)",
    "paddle.io.Sampler": "(data_source=None)",
    "paddle.io.SequenceSampler": "(data_source)",
    "paddle.io.SubsetRandomSampler": "(indices)",
    "paddle.io.WeightedRandomSampler": "(weights, num_samples, replacement=True)",
    # python/paddle/io/dataloader/worker.py
    "paddle.io.get_worker_info": "()",
    # python/paddle/io/reader.py
    "paddle.io.DataLoader": (
        "(dataset, feed_list=None, places=None, return_list=True, batch_sampler=None, "
        "batch_size=1, shuffle=False, drop_last=False, collate_fn=None, num_workers=0, "
        "use_buffer_reader=True, reader_buffer_size=2, prefetch_factor=2, "
        "use_shared_memory=True, timeout=0, worker_init_fn=None, persistent_workers=False)"
    ),
    # python/paddle/metric/metrics.py
    "paddle.metric.Accuracy": "(topk=(1,), name=None, *args, **kwargs)",
    "paddle.metric.Auc": "(curve='ROC', num_thresholds=4095, name='auc', *args, **kwargs)",
    "paddle.metric.Metric": "()",
    "paddle.metric.Precision": "(name='precision', *args, **kwargs)",
    "paddle.metric.Recall": "(name='recall', *args, **kwargs)",
    "paddle.metric.accuracy": "(input, label, k=1, correct=None, total=None, name=None)",
    # python/paddle/nn/functional/distance.py
    "paddle.pdist": "(x, p=2.0, name=None)",
    # python/paddle/optimizer/adadelta.py
    "paddle.optimizer.Adadelta": (
        "(learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None, weight_decay=None, "
        "grad_clip=None, name=None)"
    ),
    # python/paddle/optimizer/adagrad.py
    "paddle.optimizer.Adagrad": (
        "(learning_rate, epsilon=1e-06, parameters=None, weight_decay=None, grad_clip=None, "
        "name=None, initial_accumulator_value=0.0)"
    ),
    # python/paddle/optimizer/adam.py
    "paddle.optimizer.Adam": (
        "(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None, "
        "weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False, "
        "use_multi_tensor=False, amsgrad=False, name=None)"
    ),
    # python/paddle/optimizer/adamax.py
    "paddle.optimizer.Adamax": (
        "(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None, "
        "weight_decay=None, grad_clip=None, name=None)"
    ),
    # python/paddle/optimizer/adamw.py
    "paddle.optimizer.AdamW": (
        "(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None, "
        "weight_decay=0.01, use_lowprecision_moment=False, lr_ratio=None, "
        "apply_decay_param_fun=None, grad_clip=None, lazy_mode=False, multi_precision=False, "
        "amsgrad=False, name=None)"
    ),
    # python/paddle/optimizer/asgd.py
    "paddle.optimizer.ASGD": (
        "(learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None, "
        "grad_clip=None, multi_precision=False, name=None)"
    ),
    # python/paddle/optimizer/lamb.py
    "paddle.optimizer.Lamb": (
        "(learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-06, "
        "parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None, "
        "multi_precision=False, always_adapt=False, name=None)"
    ),
    # python/paddle/optimizer/lbfgs.py
    "paddle.optimizer.LBFGS": (
        "(learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-07, "
        "tolerance_change=1e-09, history_size=100, line_search_fn=None, parameters=None, "
        "weight_decay=None, grad_clip=None, name=None)"
    ),
    # python/paddle/optimizer/lr.py
    "paddle.optimizer.lr.CosineAnnealingDecay":
        "(learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.CosineAnnealingWarmRestarts":
        "(learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.CyclicLR": (
        "(base_learning_rate, max_learning_rate, step_size_up, step_size_down=None, "
        "mode='triangular', exp_gamma=1.0, scale_fn=None, scale_mode='cycle', last_epoch=-1, "
        "verbose=False)"
    ),
    "paddle.optimizer.lr.ExponentialDecay": "(learning_rate, gamma, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.InverseTimeDecay": "(learning_rate, gamma, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.LRScheduler": "(learning_rate=0.1, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.LambdaDecay": "(learning_rate, lr_lambda, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.LinearLR": (
        "(learning_rate, total_steps, start_factor=0.3333333333333333, end_factor=1.0, "
        "last_epoch=-1, verbose=False)"
    ),
    "paddle.optimizer.lr.LinearWarmup":
        "(learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.MultiStepDecay":
        "(learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.MultiplicativeDecay":
        "(learning_rate, lr_lambda, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.NaturalExpDecay": "(learning_rate, gamma, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.NoamDecay":
        "(d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.OneCycleLR": (
        "(max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001, "
        "phase_pct=0.3, anneal_strategy='cos', three_phase=False, last_epoch=-1, "
        "verbose=False)"
    ),
    "paddle.optimizer.lr.PiecewiseDecay": "(boundaries, values, last_epoch=-1, verbose=False)",
    "paddle.optimizer.lr.PolynomialDecay": (
        "(learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1, "
        "verbose=False)"
    ),
    "paddle.optimizer.lr.ReduceOnPlateau": (
        "(learning_rate, mode='min', factor=0.1, patience=10, threshold=0.0001, "
        "threshold_mode='rel', cooldown=0, min_lr=0, epsilon=1e-08, verbose=False)"
    ),
    "paddle.optimizer.lr.StepDecay":
        "(learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False)",
    # python/paddle/optimizer/momentum.py
    "paddle.optimizer.Momentum": (
        "(learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False, "
        "weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0, "
        "use_multi_tensor=False, name=None)"
    ),
    # python/paddle/optimizer/nadam.py
    "paddle.optimizer.NAdam": (
        "(learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-08, momentum_decay=0.004, "
        "parameters=None, weight_decay=None, grad_clip=None, name=None)"
    ),
    # python/paddle/optimizer/optimizer.py
    "paddle.optimizer.Optimizer":
        "(learning_rate, parameters=None, weight_decay=None, grad_clip=None, name=None)",
    # python/paddle/optimizer/radam.py
    "paddle.optimizer.RAdam": (
        "(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None, "
        "weight_decay=None, grad_clip=None, name=None)"
    ),
    # python/paddle/optimizer/rmsprop.py
    "paddle.optimizer.RMSProp": (
        "(learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False, "
        "parameters=None, weight_decay=None, grad_clip=None, name=None)"
    ),
    # python/paddle/optimizer/rprop.py
    "paddle.optimizer.Rprop": (
        "(learning_rate=0.001, learning_rate_range=(1e-05, 50), parameters=None, etas=(0.5, "
        "1.2), grad_clip=None, multi_precision=False, name=None)"
    ),
    # python/paddle/optimizer/sgd.py
    "paddle.optimizer.SGD": (
        "(learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None, "
        "multi_precision=False, name=None)"
    ),
    # python/paddle/tensor/attribute.py
    "paddle.imag": "(x, name=None)",
    "paddle.is_complex": "(x)",
    "paddle.is_floating_point": "(x)",
    "paddle.is_integer": "(x)",
    "paddle.rank": "(input)",
    "paddle.real": "(x, name=None)",
    "paddle.shape": "(input)",
    # python/paddle/tensor/creation.py
    "paddle.arange": (
        "(start=0, end=None, step=1, dtype=None, *, out=None, device=None, "
        "requires_grad=False, pin_memory=False, name=None)"
    ),
    "paddle.assign": "(x, output=None)",
    "paddle.cauchy_": "(x, loc=0, scale=1, name=None)",
    "paddle.clone": "(x, name=None)",
    "paddle.complex": "(real, imag, name=None, *, out=None)",
    "paddle.create_parameter":
        "(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None)",
    "paddle.diag": "(x, offset=0, padding_value=0, name=None)",
    "paddle.diag_embed": "(input, offset=0, dim1=-2, dim2=-1)",
    "paddle.diagflat": "(x, offset=0, name=None)",
    "paddle.empty": (
        "(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False, "
        "pin_memory=False)"
    ),
    "paddle.empty_like":
        "(x, dtype=None, name=None, *, device=None, requires_grad=False, pin_memory=False)",
    "paddle.eye": (
        "(num_rows, num_columns=None, dtype=None, name=None, *, out=None, device=None, "
        "requires_grad=False, pin_memory=False)"
    ),
    "paddle.full": (
        "(shape, fill_value, dtype=None, name=None, *, out=None, device=None, "
        "requires_grad=False, pin_memory=False)"
    ),
    "paddle.full_like": (
        "(x, fill_value, dtype=None, name=None, *, device=None, requires_grad=False, "
        "pin_memory=False)"
    ),
    "paddle.geometric_": "(x, probs, name=None)",
    "paddle.linspace":
        "(start, stop, num, dtype=None, name=None, *, out=None, device=None, requires_grad=False)",
    "paddle.logspace": "(start, stop, num, base=10.0, dtype=None, name=None)",
    "paddle.meshgrid": "(*args, **kwargs)",
    "paddle.ones": (
        "(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False, "
        "pin_memory=False)"
    ),
    "paddle.ones_like":
        "(x, dtype=None, name=None, *, device=None, requires_grad=False, pin_memory=False)",
    "paddle.polar": "(abs, angle, name=None, *, out=None)",
    "paddle.to_tensor": "(data, dtype=None, place=None, stop_gradient=True)",
    "paddle.tril_": "(x, diagonal=0, name=None)",
    "paddle.tril_indices": "(row, col, offset=0, dtype='int64')",
    "paddle.triu_": "(x, diagonal=0, name=None)",
    "paddle.triu_indices": "(row, col=None, offset=0, dtype='int64')",
    "paddle.zeros": (
        "(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False, "
        "pin_memory=False)"
    ),
    "paddle.zeros_like":
        "(x, dtype=None, name=None, *, device=None, requires_grad=False, pin_memory=False)",
    # python/paddle/tensor/einsum.py
    "paddle.einsum": "(equation, *operands)",
    # python/paddle/tensor/layer_function_generator.py
    "paddle.abs_": "(x, name=None)",
    "paddle.acos_": "(x, name=None)",
    "paddle.acosh_": "(x, name=None)",
    "paddle.asin_": "(x, name=None)",
    "paddle.asinh_": "(x, name=None)",
    "paddle.atan_": "(x, name=None)",
    "paddle.atanh_": "(x, name=None)",
    "paddle.cos_": "(x, name=None)",
    "paddle.cosh_": "(x, name=None)",
    "paddle.erf_": "(x, name=None)",
    "paddle.expm1_": "(x, name=None)",
    "paddle.sin_": "(x, name=None)",
    "paddle.sinh_": "(x, name=None)",
    "paddle.square_": "(x, name=None)",
    "paddle.tan_": "(x, name=None)",
    # python/paddle/tensor/linalg.py
    "paddle.bincount": "(x, weights=None, minlength=0, name=None)",
    "paddle.cdist": "(x, y, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary', name=None)",
    "paddle.cholesky": "(x, upper=False, name=None)",
    "paddle.cross": "(x, y, axis=9, name=None)",
    "paddle.dist": "(x, y, p=2, name=None)",
    "paddle.eigvalsh": "(x, UPLO='L', name=None)",
    "paddle.histogram":
        "(input, bins=100, min=0.0, max=0.0, weight=None, density=False, name=None)",
    "paddle.histogram_bin_edges": "(input, bins=100, min=0.0, max=0.0, name=None)",
    "paddle.histogramdd": "(x, bins=10, ranges=None, density=False, weights=None, name=None)",
    "paddle.matrix_transpose": "(x, name=None)",
    "paddle.mv": "(x, vec, name=None)",
    "paddle.norm": "(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None)",
    "paddle.t": "(input, name=None)",
    "paddle.t_": "(input, name=None)",
    "paddle.transpose": "(x, perm, name=None)",
    "paddle.transpose_": "(x, perm, name=None)",
    "paddle.vecdot": "(x, y, axis=-1, name=None)",
    # python/paddle/tensor/logic.py
    "paddle.allclose": "(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None)",
    "paddle.bitwise_and": "(x, y, out=None, name=None)",
    "paddle.bitwise_and_": "(x, y, name=None)",
    "paddle.bitwise_invert": "(x, out=None, name=None)",
    "paddle.bitwise_invert_": "(x, name=None)",
    "paddle.bitwise_not": "(x, out=None, name=None)",
    "paddle.bitwise_not_": "(x, name=None)",
    "paddle.bitwise_or": "(x, y, out=None, name=None)",
    "paddle.bitwise_or_": "(x, y, name=None)",
    "paddle.bitwise_xor": "(x, y, out=None, name=None)",
    "paddle.bitwise_xor_": "(x, y, name=None)",
    "paddle.equal": "(x, y, name=None, *, out=None)",
    "paddle.equal_": "(x, y, name=None)",
    "paddle.equal_all": "(x, y, name=None)",
    "paddle.greater_equal": "(x, y, name=None, *, out=None)",
    "paddle.greater_equal_": "(x, y, name=None)",
    "paddle.greater_than_": "(x, y, name=None)",
    "paddle.is_empty": "(x, name=None)",
    "paddle.is_tensor": "(x)",
    "paddle.less": "(x, y, name=None, *, out=None)",
    "paddle.less_": "(x, y, name=None)",
    "paddle.less_equal": "(x, y, name=None, *, out=None)",
    "paddle.less_equal_": "(x, y, name=None)",
    "paddle.less_than": "(x, y, name=None, *, out=None)",
    "paddle.less_than_": "(x, y, name=None)",
    "paddle.logical_and_": "(x, y, name=None)",
    "paddle.logical_not_": "(x, name=None)",
    "paddle.logical_or_": "(x, y, name=None)",
    "paddle.logical_xor_": "(x, y, name=None)",
    "paddle.not_equal": "(x, y, name=None, *, out=None)",
    "paddle.not_equal_": "(x, y, name=None)",
    # python/paddle/tensor/manipulation.py
    "paddle.as_complex": "(x, name=None)",
    "paddle.as_real": "(x, name=None)",
    "paddle.as_strided": "(x, shape, stride, offset=0, name=None)",
    "paddle.atleast_1d": "(*inputs, name=None)",
    "paddle.atleast_2d": "(*inputs, name=None)",
    "paddle.atleast_3d": "(*inputs, name=None)",
    "paddle.block_diag": "(inputs, name=None)",
    "paddle.broadcast_tensors": "(input, name=None)",
    "paddle.broadcast_to": "(x, shape, name=None)",
    "paddle.cast": "(x, dtype)",
    "paddle.cast_": "(x, dtype)",
    "paddle.chunk": "(x, chunks, axis=0, name=None)",
    "paddle.column_stack": "(x, name=None)",
    "paddle.concat": "(x, axis=0, name=None, *, out=None)",
    "paddle.crop": "(x, shape=None, offsets=None, name=None)",
    "paddle.diagonal_scatter": "(x, y, offset=0, axis1=0, axis2=1, name=None)",
    "paddle.dsplit": "(x, num_or_indices, name=None)",
    "paddle.dstack": "(x, name=None)",
    "paddle.expand": "(x, shape, name=None)",
    "paddle.flatten": "(x, start_axis=0, stop_axis=-1, name=None)",
    "paddle.flatten_": "(x, start_axis=0, stop_axis=-1, name=None)",
    "paddle.flip": "(x, axis, name=None)",
    "paddle.gather": "(x, index, axis=None, name=None, out=None)",
    "paddle.gather_nd": "(x, index, name=None)",
    "paddle.hsplit": "(x, num_or_indices, name=None)",
    "paddle.hstack": "(x, name=None)",
    "paddle.index_add": "(x, index, axis, value, alpha=1, name=None, *, out=None)",
    "paddle.index_add_": "(x, index, axis, value, alpha=1, name=None)",
    "paddle.index_fill": "(x, index, axis, value, name=None)",
    "paddle.index_fill_": "(x, index, axis, value, name=None)",
    "paddle.masked_fill": "(x, mask, value, name=None)",
    "paddle.masked_fill_": "(x, mask, value, name=None)",
    "paddle.masked_scatter": "(x, mask, value, name=None)",
    "paddle.masked_scatter_": "(x, mask, value, name=None)",
    "paddle.moveaxis": "(x, source, destination, name=None)",
    "paddle.put_along_axis":
        "(arr, indices, values, axis, reduce='assign', include_self=True, broadcast=True)",
    "paddle.repeat_interleave": "(x, repeats, axis=None, name=None, *, output_size=None)",
    "paddle.reshape": "(x, shape, name=None)",
    "paddle.reshape_": "(x, shape, name=None)",
    "paddle.reverse": "(x, axis, name=None)",
    "paddle.rot90": "(x, k=1, axes=[0, 1], name=None)",
    "paddle.row_stack": "(x, name=None)",
    "paddle.scatter": "(x, index, updates, overwrite=True, name=None, out=None)",
    "paddle.scatter_": "(*args, **kwargs)",
    "paddle.scatter_nd": "(index, updates, shape, name=None)",
    "paddle.scatter_nd_add": "(x, index, updates, name=None)",
    "paddle.select_scatter": "(x, values, axis, index, name=None)",
    "paddle.shard_index": "(input, index_num, nshards, shard_id, ignore_value=-1)",
    "paddle.slice": "(input, axes, starts, ends)",
    "paddle.slice_scatter": "(x, value, axes, starts, ends, strides, name=None)",
    "paddle.split": "(x, num_or_sections, axis=0, name=None)",
    "paddle.squeeze": "(x, axis=None, name=None)",
    "paddle.squeeze_": "(x, axis=None, name=None)",
    "paddle.stack": "(x, axis=0, name=None, *, out=None)",
    "paddle.strided_slice": "(x, axes, starts, ends, strides, name=None)",
    "paddle.take_along_axis": "(arr, indices, axis, broadcast=True, *, out=None)",
    "paddle.tensor_split": "(x, num_or_indices, axis=0, name=None)",
    "paddle.tensordot": "(x, y, axes=2, name=None)",
    "paddle.tile": "(x, repeat_times, name=None)",
    "paddle.tolist": "(x)",
    "paddle.unbind": "(input, axis=0)",
    "paddle.unflatten": "(x, axis, shape, name=None)",
    "paddle.unfold": "(x, axis, size, step, name=None)",
    "paddle.unique": (
        "(x, return_index=False, return_inverse=False, return_counts=False, axis=None, "
        "dtype='int64', sorted=True, name=None)"
    ),
    "paddle.unique_consecutive":
        "(x, return_inverse=False, return_counts=False, axis=None, dtype='int64', name=None)",
    "paddle.unsqueeze": "(x, axis, name=None)",
    "paddle.unsqueeze_": "(x, axis, name=None)",
    "paddle.unstack": "(x, axis=0, num=None)",
    "paddle.view": "(x, shape_or_dtype, name=None)",
    "paddle.view_as": "(x, other, name=None)",
    "paddle.vsplit": "(x, num_or_indices, name=None)",
    "paddle.vstack": "(x, name=None)",
    # python/paddle/tensor/math.py
    "paddle.add": "(x, y, name=None, *, alpha=1, out=None)",
    "paddle.add_n": "(inputs, name=None)",
    "paddle.addmm": "(input, x, y, beta=1.0, alpha=1.0, name=None)",
    "paddle.addmm_": "(input, x, y, beta=1.0, alpha=1.0, name=None)",
    "paddle.angle": "(x, name=None)",
    "paddle.atan2": "(x, y, name=None)",
    "paddle.bitwise_left_shift": "(x, y, is_arithmetic=True, out=None, name=None)",
    "paddle.bitwise_left_shift_": "(x, y, is_arithmetic=True, out=None, name=None)",
    "paddle.bitwise_right_shift": "(x, y, is_arithmetic=True, out=None, name=None)",
    "paddle.bitwise_right_shift_": "(x, y, is_arithmetic=True, out=None, name=None)",
    "paddle.broadcast_shape": "(x_shape, y_shape)",
    "paddle.cartesian_prod": "(x, name=None)",
    "paddle.clip": "(x, min=None, max=None, name=None, *, out=None)",
    "paddle.combinations": "(x, r=2, with_replacement=False, name=None)",
    "paddle.conj": "(x, name=None)",
    "paddle.copysign": "(x, y, name=None)",
    "paddle.copysign_": "(x, y, name=None)",
    "paddle.count_nonzero": "(x, axis=None, keepdim=False, name=None)",
    "paddle.cummax": "(x, axis=None, dtype='int64', name=None)",
    "paddle.cummin": "(x, axis=None, dtype='int64', name=None)",
    "paddle.cumprod": "(x, dim=None, *, dtype=None, out=None, name=None)",
    "paddle.cumprod_": "(x, dim=None, dtype=None, name=None)",
    "paddle.cumsum": "(x, axis=None, dtype=None, name=None, *, out=None)",
    "paddle.cumsum_": "(x, axis=None, dtype=None, name=None)",
    "paddle.cumulative_trapezoid": "(y, x=None, dx=None, axis=-1, name=None)",
    "paddle.deg2rad": "(x, name=None)",
    "paddle.diff": "(x, n=1, axis=-1, prepend=None, append=None, name=None, *, out=None)",
    "paddle.digamma": "(x, name=None)",
    "paddle.digamma_": "(x, name=None)",
    "paddle.divide": "(x, y, name=None, *, rounding_mode=None, out=None)",
    "paddle.divide_": "(x, y, name=None, *, rounding_mode=None)",
    "paddle.erfinv": "(x, name=None)",
    "paddle.floor_divide": "(x, y, name=None, *, out=None)",
    "paddle.true_divide": "(input, other, *, out=None)",
    "paddle.sigmoid": "(x, name=None, *, out=None)",
    "paddle.floor_divide_": "(x, y, name=None)",
    "paddle.floor_mod": "(x, y, name=None, *, out=None)",
    "paddle.floor_mod_": "(x, y, name=None)",
    "paddle.fmax": "(x, y, name=None)",
    "paddle.fmin": "(x, y, name=None)",
    "paddle.frac": "(x, name=None, *, out=None)",
    "paddle.frac_": "(x, name=None)",
    "paddle.frexp": "(x, name=None)",
    "paddle.gammainc": "(x, y, name=None)",
    "paddle.gammainc_": "(x, y, name=None)",
    "paddle.gammaincc": "(x, y, name=None)",
    "paddle.gammaincc_": "(x, y, name=None)",
    "paddle.gammaln": "(x, name=None)",
    "paddle.gammaln_": "(x, name=None)",
    "paddle.gcd": "(x, y, name=None)",
    "paddle.gcd_": "(x, y, name=None)",
    "paddle.heaviside": "(x, y, name=None)",
    "paddle.hypot": "(x, y, name=None)",
    "paddle.hypot_": "(x, y, name=None)",
    "paddle.i0": "(x, name=None)",
    "paddle.i0_": "(x, name=None)",
    "paddle.i0e": "(x, name=None)",
    "paddle.i1": "(x, name=None)",
    "paddle.i1e": "(x, name=None)",
    "paddle.increment": "(x, value=1.0, name=None)",
    "paddle.inner": "(x, y, name=None)",
    "paddle.inverse": "(x, name=None)",
    "paddle.isin": "(x, test_x, assume_unique=False, invert=False, name=None)",
    "paddle.isneginf": "(x, name=None)",
    "paddle.isposinf": "(x, name=None)",
    "paddle.isreal": "(x, name=None)",
    "paddle.kron": "(x, y, name=None)",
    "paddle.lcm": "(x, y, name=None)",
    "paddle.lcm_": "(x, y, name=None)",
    "paddle.ldexp": "(x, y, name=None)",
    "paddle.ldexp_": "(x, y, name=None)",
    "paddle.lerp": "(x, y, weight, name=None)",
    "paddle.lgamma": "(x, name=None)",
    "paddle.lgamma_": "(x, name=None)",
    "paddle.log10_": "(x, name=None)",
    "paddle.log1p_": "(x, name=None)",
    "paddle.log2_": "(x, name=None)",
    "paddle.log_": "(x, name=None)",
    "paddle.logaddexp": "(x, y, name=None)",
    "paddle.logcumsumexp": "(x, axis=None, dtype=None, name=None)",
    "paddle.logit": "(x, eps=None, name=None)",
    "paddle.logit_": "(x, eps=None, name=None)",
    "paddle.max": "(x, axis=None, keepdim=False, name=None)",
    "paddle.min": "(x, axis=None, keepdim=False, name=None)",
    "paddle.mm": "(input, mat2, name=None)",
    "paddle.mod": "(x, y, name=None, *, out=None)",
    "paddle.mod_": "(x, y, name=None)",
    "paddle.multigammaln": "(x, p, name=None)",
    "paddle.multigammaln_": "(x, p, name=None)",
    "paddle.multiplex": "(inputs, index, name=None)",
    "paddle.multiply_": "(x, y, name=None)",
    "paddle.nan_to_num": "(x, nan=0.0, posinf=None, neginf=None, name=None)",
    "paddle.nan_to_num_": "(x, nan=0.0, posinf=None, neginf=None, name=None)",
    "paddle.nanmean": "(x, axis=None, keepdim=False, name=None)",
    "paddle.nansum": "(x, axis=None, dtype=None, keepdim=False, name=None)",
    "paddle.neg": "(x, name=None)",
    "paddle.neg_": "(x, name=None)",
    "paddle.negative": "(x, name=None)",
    "paddle.nextafter": "(x, y, name=None)",
    "paddle.outer": "(x, y, name=None, *, out=None)",
    "paddle.polygamma": "(x, n, name=None)",
    "paddle.polygamma_": "(x, n, name=None)",
    "paddle.positive": "(x, name=None)",
    "paddle.pow": "(x, y, name=None, *, out=None)",
    "paddle.pow_": "(x, y, name=None)",
    "paddle.prod": "(x, axis=None, keepdim=False, dtype=None, out=None, name=None)",
    "paddle.rad2deg": "(x, name=None)",
    "paddle.reduce_as": "(x, target, name=None)",
    "paddle.remainder": "(x, y, name=None, *, out=None)",
    "paddle.remainder_": "(x, y, name=None)",
    "paddle.renorm": "(x, p, axis, max_norm)",
    "paddle.renorm_": "(x, p, axis, max_norm)",
    "paddle.scale": "(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None)",
    "paddle.sgn": "(x, name=None)",
    "paddle.signbit": "(x, name=None)",
    "paddle.sinc": "(x, name=None)",
    "paddle.sinc_": "(x, name=None)",
    "paddle.stanh": "(x, scale_a=0.67, scale_b=1.7159, name=None)",
    "paddle.subtract": "(x, y, name=None, *, alpha=1, out=None)",
    "paddle.take": "(x, index, mode='raise', name=None)",
    "paddle.tanh_": "(x, name=None)",
    "paddle.trace": "(x, offset=0, axis1=0, axis2=1, name=None)",
    "paddle.trapezoid": "(y, x=None, dx=None, axis=-1, name=None)",
    "paddle.trunc": "(input, name=None)",
    "paddle.trunc_": "(input, name=None)",
    "paddle.vander": "(x, n=None, increasing=False, name=None)",
    # python/paddle/tensor/ops.py
    "paddle.asinh": "(x, name=None)",
    "paddle.atan": "(x, name=None)",
    "paddle.erf": "(x, name=None)",
    "paddle.reciprocal": "(x, name=None)",
    "paddle.square": "(x, name=None)",
    "paddle.tan": "(x, name=None)",
    # python/paddle/tensor/random.py
    "paddle.bernoulli": "(x, p=None, name=None)",
    "paddle.bernoulli_": "(x, p=0.5, name=None)",
    "paddle.binomial": "(count, prob, name=None)",
    "paddle.log_normal": "(mean=1.0, std=2.0, shape=None, name=None)",
    "paddle.log_normal_": "(x, mean=1.0, std=2.0, name=None)",
    "paddle.multinomial": "(x, num_samples=1, replacement=False, name=None, *, out=None)",
    "paddle.normal": "(mean=0.0, std=1.0, shape=None, name=None, *, out=None)",
    "paddle.normal_": "(x, mean=0.0, std=1.0, name=None)",
    "paddle.poisson": "(x, name=None)",
    "paddle.rand": (
        "(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False, "
        "pin_memory=False)"
    ),
    "paddle.rand_like": "(input, name=None, *, dtype=None, device=None, requires_grad=False)",
    "paddle.randint": "(low=0, high=None, shape=[1], dtype=None, name=None)",
    "paddle.randint_like": "(x, low=0, high=None, dtype=None, name=None)",
    "paddle.randn": (
        "(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False, "
        "pin_memory=False)"
    ),
    "paddle.randn_like": "(x, dtype=None, name=None, *, device=None, requires_grad=False)",
    "paddle.randperm": (
        "(n, dtype='int64', name=None, *, out=None, device=None, requires_grad=False, "
        "pin_memory=False)"
    ),
    "paddle.standard_gamma": "(x, name=None)",
    "paddle.standard_normal":
        "(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False)",
    "paddle.uniform": (
        "(shape, dtype=None, min=0, max=1.0, seed=0, name=None, *, out=None, device=None, "
        "requires_grad=False)"
    ),
    # python/paddle/tensor/search.py
    "paddle.argsort": "(x, axis=-1, descending=False, stable=False, name=None)",
    "paddle.bucketize":
        "(x, sorted_sequence, out_int32=False, right=False, name=None, *, out=None)",
    "paddle.index_sample": "(x, index)",
    "paddle.index_select": "(x, index, axis=0, name=None, *, out=None)",
    "paddle.kthvalue": "(x, k, axis=None, keepdim=False, name=None)",
    "paddle.masked_select": "(x, mask, name=None, *, out=None)",
    "paddle.mode": "(x, axis=-1, keepdim=False, name=None)",
    "paddle.nonzero": "(x, as_tuple=False, *, out=None)",
    "paddle.searchsorted": (
        "(sorted_sequence, values, out_int32=False, right=False, name=None, *, side=None, "
        "out=None, sorter=None)"
    ),
    "paddle.sort": "(x, axis=-1, descending=False, stable=False, name=None)",
    "paddle.topk": "(x, k, axis=None, largest=True, sorted=True, name=None, *, out=None)",
    "paddle.where": "(condition, x=None, y=None, name=None, *, out=None)",
    "paddle.where_": "(condition, x=None, y=None, name=None)",
    # python/paddle/tensor/stat.py
    "paddle.mean": "(x, axis=None, keepdim=False, name=None, *, dtype=None, out=None)",
    "paddle.median": "(x, axis=None, keepdim=False, mode='avg', name=None, *, out=None)",
    "paddle.nanmedian": "(x, axis=None, keepdim=False, mode='avg', name=None)",
    "paddle.nanquantile": "(x, q, axis=None, keepdim=False, interpolation='linear')",
    "paddle.numel": "(x, name=None)",
    "paddle.quantile":
        "(x, q, axis=None, keepdim=False, interpolation='linear', name=None, *, out=None)",
    "paddle.std": "(x, axis=None, unbiased=True, keepdim=False, name=None)",
    "paddle.var":
        "(x, axis=None, unbiased=None, keepdim=False, name=None, *, correction=1, out=None)",
    # python/paddle/utils/dlpack.py
    "paddle.from_dlpack": "(dlpack, *, device=None, copy=None)",
    "paddle.to_dlpack": "(x)",
}

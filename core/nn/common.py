"""Common layers: Linear, Flatten, Dropout, Dropout2D, Dropout3D, Identity, Pad2D, ZeroPad2D, Pad1D,
ZeroPad1D, Pad3D, ZeroPad3D, Upsample, CosineSimilarity, Bilinear (Paddle names)."""
from __future__ import annotations

from core.nn.functional import common as F
from core.nn.layer import Layer
from core.tensor import Tensor


class Linear(Layer):
    """``y = x @ weight + bias`` with ``weight`` of shape [in_features, out_features].

    ``weight_attr`` / ``bias_attr`` are Paddle ParamAttr-like objects (or dicts);
    ``bias_attr=False`` builds the layer without a bias. The weight defaults to Xavier-uniform,
    the bias to zeros.
    """

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name: str | None = None):
        super().__init__(name)
        for label, value in (("in_features", in_features), ("out_features", out_features)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Linear: {label}={value!r} must be a positive integer.")
        self.in_features, self.out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = None if bias_attr is False else \
            self.create_parameter([out_features], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, " \
               f"bias={self.bias is not None}"


class Flatten(Layer):
    """Merge dimensions ``start_axis..stop_axis``; by default all but the batch dimension."""

    def __init__(self, start_axis: int = 1, stop_axis: int = -1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, x: Tensor) -> Tensor:
        return F.flatten(x, self.start_axis, self.stop_axis)

    def extra_repr(self) -> str:
        return f"start_axis={self.start_axis}, stop_axis={self.stop_axis}"


class Dropout(Layer):
    """Zero elements with probability ``p`` in training, Paddle 3.x's ``Dropout(p=0.5,
    inplace=False, axis=None, mode='upscale_in_train', name=None)`` (``axis`` third, after
    Paddle 3.x's ``inplace``); see ``functional.dropout``, whose ``inplace`` it passes on (the
    result is a new tensor either way)."""

    def __init__(self, p: float = 0.5, inplace: bool = False, axis=None,
                 mode: str = "upscale_in_train", name: str | None = None):
        super().__init__(name)
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p={p!r} is not a probability; use a number in [0, 1].")
        if not isinstance(inplace, bool):
            raise TypeError(f"Dropout: inplace={inplace!r} must be True or False (an axis goes "
                            "third or as axis=, Paddle 3.x's order).")
        self.p, self.inplace, self.axis, self.mode = p, inplace, axis, mode

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.axis, self.training, self.inplace, mode=self.mode)

    def extra_repr(self) -> str:
        return f"p={self.p}, axis={self.axis}, mode={self.mode}"


class Identity(Layer):
    """Returns its input unchanged (a placeholder in configurable architectures)."""

    def __init__(self, *args, **kwargs):
        del args, kwargs  # Paddle's Identity accepts and ignores any arguments
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return x


class Dropout2D(Layer):
    """Zero whole channels with probability ``p`` in training, Paddle's ``Dropout2D(p=0.5,
    data_format='NCHW', name=None)``."""

    def __init__(self, p: float = 0.5, data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        self.p, self.data_format = p, data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout2d(x, self.p, self.training, self.data_format)

    def extra_repr(self) -> str:
        return f"p={self.p}, data_format={self.data_format}"


class Dropout3D(Layer):
    """Zero whole channels of [N, C, D, H, W] inputs with probability ``p`` in training (the
    rest scaled by 1 / (1 - p)), Paddle's ``Dropout3D(p=0.5, data_format='NCDHW', name=None)``."""

    def __init__(self, p: float = 0.5, data_format: str = "NCDHW", name: str | None = None):
        super().__init__(name)
        if data_format not in ("NCDHW", "NDHWC"):
            raise ValueError(f"Dropout3D: data_format must be 'NCDHW' or 'NDHWC', got "
                             f"{data_format!r}")
        self.p, self.data_format = p, data_format

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout3d(x, self.p, self.training, self.data_format)

    def extra_repr(self) -> str:
        return f"p={self.p}, data_format={self.data_format}"


class Pad2D(Layer):
    """Pad the last two axes of [N, C, H, W], Paddle's ``Pad2D(padding, mode='constant',
    value=0.0, data_format='NCHW', name=None)``; ``padding`` is an int or [left, right, top,
    bottom]."""

    def __init__(self, padding, mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCHW", name: str | None = None):
        super().__init__(name)
        owner = type(self).__name__
        if mode not in F._PAD_MODES:
            raise ValueError(f"{owner}: mode={mode!r} is not supported; use one of "
                             f"{F._PAD_MODES}.")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{owner}: data_format must be 'NCHW' or 'NHWC', got "
                             f"{data_format!r}")
        self.padding = _paddings(owner, padding, 4, "[left, right, top, bottom]")
        self.mode, self.value, self.data_format = mode, value, data_format

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim != 4:
            raise ValueError(f"{type(self).__name__}: expected a 4-D input, got shape "
                             f"{x.shape}.")
        return F.pad(x, self.padding, self.mode, self.value, self.data_format)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, mode={self.mode}, data_format={self.data_format}"


class Upsample(Layer):
    """Resize images (nearest or bilinear), Paddle's ``Upsample(size=None, scale_factor=None,
    mode='nearest', align_corners=False, align_mode=0, data_format=None,
    recompute_scale_factor=None, name=None)``; see ``F.interpolate``."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest",
                 align_corners: bool = False, align_mode: int = 0, data_format: str | None = None,
                 recompute_scale_factor: bool | None = None, name: str | None = None):
        super().__init__(name)
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, \
            data_format
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, x: Tensor) -> Tensor:
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format, self.recompute_scale_factor)

    def extra_repr(self) -> str:
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode}"


class CosineSimilarity(Layer):
    """The cosine similarity of two inputs along ``axis``, Paddle's ``CosineSimilarity(axis=1,
    eps=1e-8)``; ``forward(x1, x2)``."""

    def __init__(self, axis: int = 1, eps: float = 1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self._axis, self._eps)

    def extra_repr(self) -> str:
        return f"axis={self._axis}, eps={self._eps}"


def _paddings(owner: str, padding, count: int, spelled: str) -> list[int]:
    """``padding`` as ``count`` non-negative ints: an int repeats, a list (or Tensor) must have
    ``count``."""
    if isinstance(padding, Tensor):
        padding = [int(v) for v in padding.tolist()]
    values = [padding] * count if isinstance(padding, int) and not isinstance(padding, bool) \
        else list(padding) if isinstance(padding, (list, tuple)) else None
    if values is None or len(values) != count or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
        raise ValueError(f"{owner}: padding={padding!r} must be an int >= 0 or {count} such ints "
                         f"{spelled}.")
    return values


class ZeroPad2D(Pad2D):
    """Pad the height and width of a 4-D input with zeros, Paddle's ``ZeroPad2D(padding,
    data_format='NCHW', name=None)``; ``padding`` is an int or [left, right, top, bottom]."""

    def __init__(self, padding, data_format: str = "NCHW", name: str | None = None):
        super().__init__(padding, "constant", 0.0, data_format, name)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, data_format={self.data_format}"


class Pad1D(Layer):
    """Pad the length of a 3-D input, Paddle's ``Pad1D(padding, mode='constant', value=0.0,
    data_format='NCL', name=None)``; ``padding`` is an int or [left, right]; ``mode`` is
    'constant' (with ``value``), 'reflect', 'replicate' or 'circular'."""

    def __init__(self, padding, mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCL", name: str | None = None):
        super().__init__(name)
        if mode not in F._PAD_MODES:
            raise ValueError(f"Pad1D: mode={mode!r} is not supported; use one of "
                             f"{F._PAD_MODES}.")
        if data_format not in ("NCL", "NLC"):
            raise ValueError(f"Pad1D: data_format must be 'NCL' or 'NLC', got {data_format!r}")
        self.padding = _paddings("Pad1D", padding, 2, "[left, right]")
        self.mode, self.value, self.data_format = mode, value, data_format

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim != 3:
            raise ValueError(f"Pad1D: expected a 3-D input, got shape {x.shape}.")
        return F.pad(x, self.padding, self.mode, self.value, self.data_format)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, mode={self.mode}, data_format={self.data_format}"


class Bilinear(Layer):
    """``out[b, o] = x1[b] @ weight[o] @ x2[b] + bias[0, o]``, Paddle's ``Bilinear(in1_features,
    in2_features, out_features, weight_attr=None, bias_attr=None, name=None)``; ``forward(x1,
    x2)`` with x1 [batch, in1_features] and x2 [batch, in2_features].

    ``weight`` is [out_features, in1_features, in2_features] (Xavier-uniform, Paddle's default,
    fan_in = in1 * in2 and fan_out = out * in2), ``bias`` [1, out_features] (zeros);
    ``bias_attr=False`` leaves the bias out.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 weight_attr=None, bias_attr=None, name: str | None = None):
        super().__init__(name)
        for label, value in (("in1_features", in1_features), ("in2_features", in2_features),
                             ("out_features", out_features)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Bilinear: {label}={value!r} must be a positive integer.")
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            attr=weight_attr)
        self.bias = None if bias_attr is False else \
            self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}")


class ZeroPad1D(Pad1D):
    """Pad the length of a 3-D input with zeros, Paddle's ``ZeroPad1D(padding, data_format='NCL',
    name=None)``; ``padding`` is an int or [left, right]."""

    def __init__(self, padding, data_format: str = "NCL", name: str | None = None):
        super().__init__(padding, "constant", 0.0, data_format, name)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, data_format={self.data_format}"


class Pad3D(Layer):
    """Pad the last three spatial axes of [N, C, D, H, W], Paddle's ``Pad3D(padding,
    mode='constant', value=0.0, data_format='NCDHW', name=None)``; ``padding`` is an int or
    [left, right, top, bottom, front, back] (width first, as in Paddle); ``mode`` is 'constant'
    (with ``value``), 'reflect', 'replicate' or 'circular'."""

    def __init__(self, padding, mode: str = "constant", value: float = 0.0,
                 data_format: str = "NCDHW", name: str | None = None):
        super().__init__(name)
        owner = type(self).__name__
        if mode not in F._PAD_MODES:
            raise ValueError(f"{owner}: mode={mode!r} is not supported; use one of "
                             f"{F._PAD_MODES}.")
        if data_format not in ("NCDHW", "NDHWC"):
            raise ValueError(f"{owner}: data_format must be 'NCDHW' or 'NDHWC', got "
                             f"{data_format!r}")
        self.padding = _paddings(owner, padding, 6,
                                 "[left, right, top, bottom, front, back]")
        self.mode, self.value, self.data_format = mode, value, data_format

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim != 5:
            raise ValueError(f"{type(self).__name__}: expected a 5-D input, got shape "
                             f"{x.shape}.")
        return F.pad(x, self.padding, self.mode, self.value, self.data_format)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, mode={self.mode}, data_format={self.data_format}"


class ZeroPad3D(Pad3D):
    """Pad the depth, height and width of a 5-D input with zeros, Paddle's ``ZeroPad3D(padding,
    data_format='NCDHW', name=None)``; ``padding`` is an int or [left, right, top, bottom,
    front, back]."""

    def __init__(self, padding, data_format: str = "NCDHW", name: str | None = None):
        super().__init__(padding, "constant", 0.0, data_format, name)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, data_format={self.data_format}"

"""Argument checks shared by the vision models."""
from __future__ import annotations

import math
import numbers

from core.datasets.download import get_weights_path_from_url
from core.serialize import load


def check_int(owner: str, name: str, value, minimum: int | None = None) -> int:
    """``value`` as an int (not a bool), at least ``minimum`` when given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or (minimum is not None and value < minimum):
        need = "an integer" if minimum is None else f"an integer >= {minimum}"
        raise ValueError(f"{owner}: {name}={value!r} must be {need}.")
    return int(value)


# Paddle's published ImageNet weights: the URL and md5 of each ``model_urls`` entry of
# python/paddle/vision/models/*.py, keyed as Paddle keys them (the mobile nets by scale).
_HAPI = "https://paddle-hapi.bj.bcebos.com/models/"
_CLAS = "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
MODEL_URLS = {
    "resnet18": (_HAPI + "resnet18.pdparams", "cf548f46534aa3560945be4b95cd11c4"),
    "resnet34": (_HAPI + "resnet34.pdparams", "8d2275cf8706028345f78ac0e1d31969"),
    "resnet50": (_HAPI + "resnet50.pdparams", "ca6f485ee1ab0492d38f323885b0ad80"),
    "resnet101": (_HAPI + "resnet101.pdparams", "02f35f034ca3858e1e54d4036443c92d"),
    "resnet152": (_HAPI + "resnet152.pdparams", "7ad16a2f1e7333859ff986138630fd7a"),
    "resnext50_32x4d": (_HAPI + "resnext50_32x4d.pdparams", "dc47483169be7d6f018fcbb7baf8775d"),
    "resnext50_64x4d": (_HAPI + "resnext50_64x4d.pdparams", "063d4b483e12b06388529450ad7576db"),
    "resnext101_32x4d": (_HAPI + "resnext101_32x4d.pdparams",
                         "967b090039f9de2c8d06fe994fb9095f"),
    "resnext101_64x4d": (_HAPI + "resnext101_64x4d.pdparams",
                         "98e04e7ca616a066699230d769d03008"),
    "resnext152_32x4d": (_HAPI + "resnext152_32x4d.pdparams",
                         "18ff0beee21f2efc99c4b31786107121"),
    "resnext152_64x4d": (_HAPI + "resnext152_64x4d.pdparams",
                         "77c4af00ca42c405fa7f841841959379"),
    "wide_resnet50_2": (_HAPI + "wide_resnet50_2.pdparams", "0282f804d73debdab289bd9fea3fa6dc"),
    "wide_resnet101_2": (_HAPI + "wide_resnet101_2.pdparams",
                         "d4360a2d23657f059216f5d5a1a9ac93"),
    "vgg16": (_HAPI + "vgg16.pdparams", "89bbffc0f87d260be9b8cdc169c991c4"),
    "vgg19": (_HAPI + "vgg19.pdparams", "23b18bb13d8894f60f54e642be79a0dd"),
    "alexnet": (_CLAS + "AlexNet_pretrained.pdparams", "7f0f9f737132e02732d75a1459d98a43"),
    "squeezenet1_0": (_CLAS + "SqueezeNet1_0_pretrained.pdparams",
                      "30b95af60a2178f03cf9b66cd77e1db1"),
    "squeezenet1_1": (_CLAS + "SqueezeNet1_1_pretrained.pdparams",
                      "a11250d3a1f91d7131fd095ebbf09eee"),
    "googlenet": (_CLAS + "GoogLeNet_pretrained.pdparams", "80c06f038e905c53ab32c40eca6e26ae"),
    "inception_v3": (_HAPI + "inception_v3.pdparams", "649a4547c3243e8b59c656f41fe330b8"),
    "densenet121": (_CLAS + "DenseNet121_pretrained.pdparams",
                    "db1b239ed80a905290fd8b01d3af08e4"),
    "densenet161": (_CLAS + "DenseNet161_pretrained.pdparams",
                    "62158869cb315098bd25ddbfd308a853"),
    "densenet169": (_CLAS + "DenseNet169_pretrained.pdparams",
                    "82cc7c635c3f19098c748850efb2d796"),
    "densenet201": (_CLAS + "DenseNet201_pretrained.pdparams",
                    "16ca29565a7712329cf9e36e02caaf58"),
    "densenet264": (_CLAS + "DenseNet264_pretrained.pdparams",
                    "3270ce516b85370bba88cfdd9f60bff4"),
    "mobilenetv1_1.0": (_HAPI + "mobilenetv1_1.0.pdparams", "3033ab1975b1670bef51545feb65fc45"),
    "mobilenetv2_1.0": (_HAPI + "mobilenet_v2_x1.0.pdparams",
                        "0340af0a901346c8d46f4529882fb63d"),
    "mobilenet_v3_small_x1.0": (_HAPI + "mobilenet_v3_small_x1.0.pdparams",
                                "34fe0e7c1f8b00b2b056ad6788d0590c"),
    "mobilenet_v3_large_x1.0": (_HAPI + "mobilenet_v3_large_x1.0.pdparams",
                                "118db5792b4e183b925d8e8e334db3df"),
    "shufflenet_v2_x0_25": (_HAPI + "shufflenet_v2_x0_25.pdparams",
                            "1e509b4c140eeb096bb16e214796d03b"),
    "shufflenet_v2_x0_33": (_HAPI + "shufflenet_v2_x0_33.pdparams",
                            "3d7b3ab0eaa5c0927ff1026d31b729bd"),
    "shufflenet_v2_x0_5": (_HAPI + "shufflenet_v2_x0_5.pdparams",
                           "5e5cee182a7793c4e4c73949b1a71bd4"),
    "shufflenet_v2_x1_0": (_HAPI + "shufflenet_v2_x1_0.pdparams",
                           "122d42478b9e81eb49f8a9ede327b1a4"),
    "shufflenet_v2_x1_5": (_HAPI + "shufflenet_v2_x1_5.pdparams",
                           "faced5827380d73531d0ee027c67826d"),
    "shufflenet_v2_x2_0": (_HAPI + "shufflenet_v2_x2_0.pdparams",
                           "cd3dddcd8305e7bcd8ad14d1c69a5784"),
    "shufflenet_v2_swish": (_HAPI + "shufflenet_v2_swish.pdparams",
                            "adde0aa3b023e5b0c94a68be1c394b84"),
}


def load_pretrained(arch: str, pretrained, model):
    """``model``, with Paddle's ImageNet weights for ``arch`` (a key of ``MODEL_URLS``) loaded
    when ``pretrained``: downloaded md5-checked into the weights cache
    (``core.datasets.download.get_weights_path_from_url``), read by ``core.load`` and copied
    in by ``set_state_dict`` as Paddle's ``model.set_dict(param)`` (a head of another size,
    ``num_classes != 1000``, is skipped with a warning and keeps its initial values)."""
    if not pretrained:
        return model
    if arch not in MODEL_URLS:
        raise ValueError(
            f"{arch}: pretrained=True, but Paddle publishes no weights for {arch}; build it "
            f"with pretrained=False. Weights exist for: {', '.join(MODEL_URLS)}.")
    url, md5 = MODEL_URLS[arch]
    model.set_state_dict(load(get_weights_path_from_url(url, md5)))
    return model


def check_scale(owner: str, scale) -> float:
    """``scale``, the width multiplier of the mobile nets, as a positive finite float."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"{owner}: scale={scale!r} must be a positive number (the width "
                         "multiplier of every layer, 1.0 for the published network).")
    return float(scale)


def check_choice(owner: str, name: str, value, allowed) -> None:
    """``value`` must be one of ``allowed`` (a bool never is, even where 1 is allowed)."""
    try:
        found = not isinstance(value, bool) and value in allowed
    except TypeError:  # an unhashable value (a list, ...) is no key of a dict of choices
        found = False
    if not found:
        raise ValueError(f"{owner}: {name}={value!r} must be one of {list(allowed)}.")

"""Store Paddle 3.3.1's results for agreement_cases.py; run with a Python that has Paddle:

    /tmp/pdvenv/bin/python tests/core/data/paddle331/make_misc_fixtures.py

Writes ``misc/agreement.npz``: for case ``<area>/<name>``, its i-th array as ``<area>/<name>/<i>``
(tests/core/test_paddle_agreement_misc.py). Not collected by pytest and never imported by the
tests: the project does not depend on Paddle.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import paddle
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import agreement_cases as cases  # noqa: E402


def main() -> None:
    paddle.set_device("cpu")
    out = {}
    groups = dict(cases.ALL, transforms=lambda P: cases.transforms_cases(P, Image))
    for area, make in groups.items():
        for name, fn in make(paddle).items():
            for i, array in enumerate(cases.arrays(fn())):
                out[f"{area}/{name}/{i}"] = array
    os.makedirs(os.path.join(HERE, "misc"), exist_ok=True)
    np.savez_compressed(os.path.join(HERE, "misc", "agreement.npz"), **out)
    print(f"{len(out)} arrays")


if __name__ == "__main__":
    main()

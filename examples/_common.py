"""Helpers shared by the examples: the digits data (NumPy only) and a progress bar.

Nothing here imports torch: each example is an ordinary PyTorch program that calls these two
helpers, so it runs the same under ``python`` (real PyTorch) and ``leafgrad run``.

``load_digits_split`` uses scikit-learn's bundled digits images when scikit-learn is
installed (``pip install leafgrad[examples]``; no download: the 1,797 images ship inside
the package) and otherwise makes a synthetic stand-in of the same shape from the ten 8x8
glyphs below, so the examples and their tests run everywhere.
"""
from __future__ import annotations

import numpy as np

__all__ = ["load_digits_split", "progress", "synthetic_digits"]

# Ten 8x8 glyphs, one per digit; '#' is ink. The synthetic set shifts them, dims them, adds
# noise and flips a few pixels, so that it takes some learning (the examples reach about 98-99%
# on it, as on the real digits).
_GLYPHS = """
..####.. ...##... ..####.. ..####.. ....##.. .######. ..####.. .######. ..####.. ..####..
.##..##. ..###... .##..##. .##..##. ...###.. .##..... .##..... .....##. .##..##. .##..##.
.##..##. ...##... .....##. .....##. ..####.. .#####.. .##..... ....##.. .##..##. .##..##.
.##..##. ...##... ....##.. ...###.. .##.##.. .....##. .#####.. ...##... ..####.. ..#####.
.##..##. ...##... ...##... .....##. .######. .....##. .##..##. ..##.... .##..##. .....##.
.##..##. ...##... ..##.... .##..##. ....##.. .##..##. .##..##. ..##.... .##..##. .....##.
..####.. .######. .######. ..####.. ....##.. ..####.. ..####.. ..##.... ..####.. ..####..
........ ........ ........ ........ ........ ........ ........ ........ ........ ........
"""


def _glyphs() -> np.ndarray:
    """The ten glyphs as a (10, 8, 8) float array of 0/1."""
    rows = [line.split() for line in _GLYPHS.strip().splitlines()]
    return np.array([[[c == "#" for c in row[d]] for row in rows] for d in range(10)],
                    dtype=np.float64)


def synthetic_digits(n: int = 1797, seed: int = 0):
    """``(images, labels)`` like sklearn's digits: ``images`` (n, 64) float64 in [0, 16],
    ``labels`` (n,) int64. Each image is a glyph shifted by up to one pixel, randomly dimmed,
    with Gaussian noise and a few pixels flipped."""
    rng = np.random.RandomState(seed)
    glyphs = _glyphs()
    labels = rng.randint(0, 10, size=n)
    images = np.empty((n, 8, 8))
    padded = np.pad(glyphs, ((0, 0), (1, 1), (1, 1)))   # shifts bring in blank pixels
    for k, d in enumerate(labels):
        dy, dx = rng.randint(0, 3, size=2)
        img = padded[d, dy:dy + 8, dx:dx + 8]
        img = img * rng.uniform(0.6, 1.0) + rng.normal(0.0, 0.1, size=(8, 8))
        flip = rng.rand(8, 8) < 0.02
        img[flip] = 1.0 - img[flip]
        images[k] = img
    images = np.clip(images, 0.0, 1.0) * 16.0
    return images.reshape(n, 64), labels.astype(np.int64)


def load_digits_split(test_fraction: float = 0.2, seed: int = 0, quiet: bool = False):
    """``(x_train, y_train, x_test, y_test)``: standardised float32 inputs (n, 64) and int64
    labels, split by a seeded permutation. The test set is standardised with the training
    set's mean and standard deviation, as it should be."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        if not quiet:
            print("scikit-learn is not installed: using a synthetic 8x8 digits set instead "
                  "(pip install scikit-learn for the real one)")
        images, labels = synthetic_digits(seed=seed)
    else:
        digits = load_digits()
        images, labels = digits.data.astype(np.float64), digits.target.astype(np.int64)
    order = np.random.RandomState(seed).permutation(len(labels))
    n_test = round(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    mean = images[train].mean(axis=0)
    std = images[train].std(axis=0) + 1e-6   # some border pixels are always 0
    standard = ((images - mean) / std).astype(np.float32)
    return standard[train], labels[train], standard[test], labels[test]


def progress(iterable, desc: str, enabled: bool = True):
    """Wrap ``iterable`` in a tqdm bar when tqdm is installed (and ``enabled``), else return
    it unchanged: the examples print one summary line per epoch either way."""
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:
            return iterable
        return tqdm(iterable, desc=desc, leave=False)
    return iterable

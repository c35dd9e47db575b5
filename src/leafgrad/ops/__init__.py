"""The op table. Importing this package registers the core families' records; the families
in ``lazy.LAZY`` register on first use (Note [Lazy families] in lazy.py)."""
from . import registry
from . import pointwise, unary, activation, select, compare, casts, copies, reduction, shape, indexing, joins, scatter, linalg, nll_loss, losses, losses_extra, backward_ops, views  # noqa: F401  (registers)
from . import out_variants  # noqa: F401,E402  (wraps torch.matmul & co. for out=; see there)
from . import tensor_utils  # noqa: F401,E402  (last of the core: exports torch.exp_ and friends)
from . import lazy  # noqa: E402

lazy.install()

__all__ = ["registry"]


def __getattr__(name: str):
    """``leafgrad.ops.<family>`` for a lazy family not loaded yet."""
    module = f"{__name__}.{name}"
    if module in lazy.LAZY:
        return lazy.load(module)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")

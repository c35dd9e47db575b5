"""The op table. Importing this package registers every family's records."""
from . import registry
from . import pointwise, unary, activation, select, compare, casts, copies, reduction, shape, indexing, joins, scatter, rearrange, sorting, linalg, nn_ops, nll_loss, losses, nn_activations, shrink, nn_layers, xlogy, backward_ops, views, conv, pooling, pooling_avg, pooling_adaptive, pooling_unpool, padding, norm  # noqa: F401  (registers)

__all__ = ["registry"]

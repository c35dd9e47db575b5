"""The op table. Importing this package registers every family's records."""
from . import registry
from . import pointwise, unary, activation, select, compare, casts, copies, reduction, shape, indexing, joins, scatter, rearrange, sorting, linalg, nn_ops, nll_loss, losses, nn_activations, shrink, nn_layers, xlogy, backward_ops, views, conv, pooling, pooling_avg, pooling_adaptive, pooling_unpool, padding, norm  # noqa: F401  (registers)
from . import special, pointwise_extra  # noqa: F401,E402  (H10: more pointwise ops)
from . import tensor_utils  # noqa: F401,E402  (last: exports torch.exp_ and friends)

__all__ = ["registry"]

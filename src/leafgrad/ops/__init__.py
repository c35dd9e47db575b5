"""The op table. Importing this package registers every family's records."""
from . import registry
from . import pointwise, unary, activation, select, compare, casts, copies, reduction, shape, indexing, joins, scatter, rearrange, sorting, linalg, nn_ops, nll_loss, losses, nn_activations, shrink, nn_layers, xlogy, backward_ops, views, conv, pooling, pooling_avg, pooling_adaptive, pooling_unpool, padding, norm  # noqa: F401  (registers)
from . import special, pointwise_extra, matrix_extra, reduction_extra, index_extra, scatter_reduce, tensor_extra  # noqa: F401,E402  (H10)
from . import upsample, nn_extra, margin_losses, embedding_bag  # noqa: F401,E402  (H12: upsampling, nn layer ops)
from . import repeat_interleave  # noqa: F401,E402  (composite: expand/clone/view or index_select)
from . import tensor_utils  # noqa: F401,E402  (last: exports torch.exp_ and friends)

__all__ = ["registry"]

"""``torch.nn.functional``: stateless layers, activations and losses.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.cross_entropy(torch.tensor([[0.0, 0.0]]), torch.tensor([1]))
tensor(0.6931)
"""
from __future__ import annotations

from . import activation, attention, layers, loss  # noqa: F401  (submodules, as in torch)
from .activation import (celu, celu_, elu, elu_, gelu, glu, hardshrink, hardsigmoid, hardswish,
                         hardtanh, hardtanh_, leaky_relu, leaky_relu_, log_softmax, logsigmoid,
                         mish, relu, relu6, relu_, rrelu, rrelu_, selu, selu_, sigmoid, silu,
                         softmax, softmin, softplus, softshrink, softsign, tanh, tanhshrink,
                         threshold, threshold_)
from .attention import (_canonical_mask, _in_projection, _in_projection_packed,  # noqa: F401
                        _mha_shape_check, _none_or_dtype, multi_head_attention_forward,
                        scaled_dot_product_attention)
from . import (conv, normalization, padding, pooling, pooling_adaptive,  # noqa: F401
               pooling_extra)
from .conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                   conv_transpose3d)
from .normalization import batch_norm, group_norm
from .pooling import avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d
from .pooling_adaptive import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,
                               adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d)
from .pooling_extra import (lp_pool1d, lp_pool2d, lp_pool3d, max_unpool1d, max_unpool2d,
                            max_unpool3d)
from . import upsampling, extra, loss_extra  # noqa: F401  (H12)
from .upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest
from .layers import (bilinear, dropout, embedding, layer_norm, linear, normalize, one_hot, pad)
from .loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cosine_embedding_loss,
                   cosine_similarity, cross_entropy, gaussian_nll_loss, hinge_embedding_loss,
                   huber_loss, kl_div, l1_loss, margin_ranking_loss, mse_loss,
                   multilabel_soft_margin_loss, nll_loss, pairwise_distance, poisson_nll_loss,
                   smooth_l1_loss, soft_margin_loss)

__all__ = [
    'relu',
    'relu_',
    'relu6',
    'hardtanh',
    'hardtanh_',
    'leaky_relu',
    'leaky_relu_',
    'elu',
    'elu_',
    'selu',
    'celu',
    'gelu',
    'silu',
    'mish',
    'softplus',
    'sigmoid',
    'tanh',
    'logsigmoid',
    'hardsigmoid',
    'hardswish',
    'softsign',
    'tanhshrink',
    'threshold',
    'threshold_',
    'celu_',
    'selu_',
    'softshrink',
    'hardshrink',
    'rrelu',
    'rrelu_',
    'softmax',
    'log_softmax',
    'softmin',
    'glu',
    'linear',
    'bilinear',
    'dropout',
    'embedding',
    'layer_norm',
    'pad',
    'normalize',
    'one_hot',
    'mse_loss',
    'l1_loss',
    'smooth_l1_loss',
    'huber_loss',
    'nll_loss',
    'cross_entropy',
    'binary_cross_entropy',
    'binary_cross_entropy_with_logits',
    'kl_div',
    'soft_margin_loss',
    'poisson_nll_loss',
    'gaussian_nll_loss',
    'multilabel_soft_margin_loss',
    'cosine_similarity',
    'pairwise_distance',
    'cosine_embedding_loss',
    'margin_ranking_loss',
    'hinge_embedding_loss',
    'scaled_dot_product_attention',
    'multi_head_attention_forward',
    'conv1d',
    'conv2d',
    'conv_transpose1d',
    'conv_transpose2d',
    'conv3d',
    'conv_transpose3d',
    'max_pool1d',
    'max_pool2d',
    'avg_pool1d',
    'avg_pool2d',
    'adaptive_avg_pool1d',
    'adaptive_avg_pool2d',
    'max_pool3d',
    'avg_pool3d',
    'adaptive_avg_pool3d',
    'adaptive_max_pool1d',
    'adaptive_max_pool2d',
    'adaptive_max_pool3d',
    'lp_pool1d',
    'lp_pool2d',
    'lp_pool3d',
    'max_unpool1d',
    'max_unpool2d',
    'max_unpool3d',
    'batch_norm',
    'group_norm',
    'interpolate',
    'upsample',
    'upsample_nearest',
    'upsample_bilinear',
] + list(extra.__all__) + list(loss_extra.__all__)
for _m in (extra, loss_extra):   # H12: these files' __all__ name their functions
    globals().update({_n: getattr(_m, _n) for _n in _m.__all__})
del _m
from .vision import affine_grid, grid_sample  # noqa: E402  (spatial transformers)
__all__ += ['affine_grid', 'grid_sample']
from .ctc import ctc_loss  # noqa: E402  (connectionist temporal classification)
__all__ += ['ctc_loss']
from .pooling_fractional import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: E402
                                 fractional_max_pool3d, fractional_max_pool3d_with_indices)
__all__ += ['fractional_max_pool2d', 'fractional_max_pool3d']

"""Single-step recurrent cells: ``nn.RNNCell``, ``nn.LSTMCell``, ``nn.GRUCell``.

Parameters ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh`` as in PyTorch, initialised
from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)); a 1-D input is one unbatched sample.

>>> import leafgrad as torch
>>> cell = torch.nn.GRUCell(3, 4)
>>> cell(torch.randn(2, 3)).shape
torch.Size([2, 4])
"""
from __future__ import annotations

import math

from ...factories import empty, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._rnn_steps import gru_step, lstm_step, rnn_step
from .module import Module

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]


class RNNCellBase(Module):
    """Parameters and checks shared by the cells (``num_chunks`` gates of hidden_size)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {} if dtype is None else {"dtype": dtype}
        if device is not None:
            kw["device"] = device
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # -- shared forward pieces -------------------------------------------------------
    def _batch(self, name: str, input, hidden: tuple):
        """PyTorch's dimension checks; returns the batched input, the batched states
        (zeros where None) and whether the input was batched."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hidden is None:
            state = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            states = (state,) if name != "LSTMCell" else (state, state)
        else:
            states = tuple(h if is_batched else h.unsqueeze(0) for h in hidden)
        self._check_sizes(input, states)
        return input, states, is_batched

    def _check_sizes(self, input, states) -> None:
        # ATen's check_rnn_cell_forward_input / _hidden.
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.input_size}")
        for idx, h in enumerate(states):
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match "
                                   f"hidden{idx} batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{idx} has inconsistent hidden_size: got "
                                   f"{h.size(1)}, expected {self.hidden_size}")

    def _input_gates(self, input, fold_hidden_bias: bool):
        """``x W_ih^T + b_ih`` (``+ b_hh`` too when the cell allows folding it)."""
        if self.bias_ih is None:
            return F.linear(input, self.weight_ih)
        bias = self.bias_ih + self.bias_hh if fold_hidden_bias else self.bias_ih
        return F.linear(input, self.weight_ih, bias)


class RNNCell(RNNCellBase):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if hx is not None and hx.dim() not in (1, 2) and input.dim() in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        input, (h,), is_batched = self._batch("RNNCell", input,
                                              None if hx is None else (hx,))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = rnn_step(self._input_gates(input, True), h, self.weight_hh.t(),
                       self.nonlinearity == "relu")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns ``(h', c')``; gates in PyTorch's order i, f, g, o."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() in (1, 2) and hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        input, (h, c), is_batched = self._batch("LSTMCell", input, hx)
        h, c = lstm_step(self._input_gates(input, True), h, c, self.weight_hh.t())
        if not is_batched:
            return h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """One GRU step: gates r, z, n with ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if hx is not None and hx.dim() not in (1, 2) and input.dim() in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        input, (h,), is_batched = self._batch("GRUCell", input,
                                              None if hx is None else (hx,))
        ret = gru_step(self._input_gates(input, False), h, self.weight_hh.t(), self.bias_hh)
        return ret if is_batched else ret.squeeze(0)

"""Recurrent layers: ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` (multi-layer, optionally
bidirectional) and the single-step cells ``nn.RNNCell``, ``nn.LSTMCell``, ``nn.GRUCell``.

Parameter names, shapes, registration order, gate order and initialisation are PyTorch's, so
state dicts load either way. The layers are composites of leafgrad ops (see Note [Recurrent
loop]): values and gradients are PyTorch's, the ``grad_fn`` names are those of the pieces.

>>> import leafgrad as torch
>>> lstm = torch.nn.LSTM(3, 5, num_layers=2)
>>> out, (h, c) = lstm(torch.randn(7, 2, 3))
>>> out.shape, h.shape
(torch.Size([7, 2, 5]), torch.Size([2, 2, 5]))

Note [Recurrent loop]
Per time step the only work left in Python is the recurrent half of the gates. The input
projection of every time step is one ``linear`` over the whole (T*N, I) sequence before the
loop, and where the cell allows it both biases are folded into it (``b_ih + b_hh`` once, not
once per step), so a step is ``addmm(xproj[t], h, W_hh^T)`` and the gate pointwise ops. The
time steps come from one ``unbind`` and go back with one ``stack``, so the graph has two nodes
for the slicing instead of 2*T. GRU keeps ``b_hn`` apart: its candidate gate multiplies
``W_hn h + b_hn`` by the reset gate.
"""
from __future__ import annotations

import math
import numbers
import warnings

from ... import ops as _ops
from ...factories import empty, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._rnn_packed import run_packed
from ._rnn_steps import gru_step, lstm_step, rnn_step
from .module import Module
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase  # torch.nn.modules.rnn has them

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_FUNCTIONS = _ops.registry.FUNCTIONS
_stack = _FUNCTIONS["stack"]
_cat = _FUNCTIONS["cat"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _factory(device, dtype) -> dict:
    kw = {}
    if dtype is not None:
        kw["dtype"] = dtype
    if device is not None:
        kw["device"] = device
    return kw


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU: parameters, checks and the layer loop."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(
                f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(
                f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)

        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        kw = _factory(device, dtype)
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, **kw)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op, as in PyTorch on the CPU (it compacts cuDNN weights)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # -- checks (PyTorch's messages) ---------------------------------------------------
    def check_input(self, input, batch_sizes=None) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype "
                f"({weight_dtype}). Convert input: input.to({weight_dtype}), or convert "
                f"model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes=None) -> tuple:
        mini_batch = _mini_batch(self, input, batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        last = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, last)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        """The hidden state's batch reordered by ``permutation`` (a PackedSequence's
        sorted or unsorted indices); None leaves it."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def _forward_packed(self, packed, hx, cell: bool = False):
        """RNN/GRU (and LSTM with ``cell``) over a PackedSequence: PyTorch's forward for
        packed input; the output is packed like the input (Note [Packed recurrence])."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = batch_sizes._data
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            shape = (self.num_layers * num_directions, int(sizes[0]))
            hx = zeros(shape + (real_hidden,), dtype=data.dtype)
            if cell:
                hx = (hx, zeros(shape + (self.hidden_size,), dtype=data.dtype))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if cell:
            # PyTorch's LSTM does not check a packed input's hidden sizes either
            output, h_n, c_n = run_packed(self, data, sizes, hx[0], hx[1])
            hidden = (h_n, c_n)
        else:
            self.check_forward_args(data, hx, batch_sizes)
            output, hidden = run_packed(self, data, sizes, hx)
        output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return output, self.permute_hidden(hidden, unsorted_indices)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # -- the computation -------------------------------------------------------------
    def _run(self, input, hx, cx=None):
        """All layers and directions over a (T, N, I) or batch-first input.

        ``hx`` (and ``cx`` for LSTM) are (layers*directions, N, H); returns the output and
        the stacked final states, like ATen's ``_VF.rnn_tanh``/``lstm``/``gru``."""
        if input.size(0 if not self.batch_first else 1) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        x = input.transpose(0, 1) if self.batch_first else input
        num_directions = 2 if self.bidirectional else 1
        h0s = hx.unbind(0)
        c0s = cx.unbind(0) if cx is not None else None
        weights = self._flat_weights
        per_dir = len(weights) // (self.num_layers * num_directions)
        mode = self.mode
        dropout = self.dropout if self.training else 0.0
        h_last, c_last = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                w = weights[k * per_dir:(k + 1) * per_dir]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                w_hr = w[-1] if self.proj_size > 0 else None
                reverse = direction == 1
                if mode == "LSTM":
                    out, h, c = _lstm_layer(x, h0s[k], c0s[k], w_ih, w_hh, b_ih, b_hh, w_hr,
                                            reverse)
                    c_last.append(c)
                elif mode == "GRU":
                    out, h = _gru_layer(x, h0s[k], w_ih, w_hh, b_ih, b_hh, reverse)
                else:
                    out, h = _rnn_layer(x, h0s[k], w_ih, w_hh, b_ih, b_hh, reverse,
                                        mode == "RNN_RELU")
                outputs.append(out)
                h_last.append(h)
            x = outputs[0] if num_directions == 1 else _cat(outputs, 2)
            if dropout and layer < self.num_layers - 1:
                x = F.dropout(x, dropout, True)
        output = x.transpose(0, 1) if self.batch_first else x
        h_n = _stack(h_last, 0)
        if cx is None:
            return output, h_n
        return output, h_n, _stack(c_last, 0)

    def _prepare(self, input, hx, name: str):
        """Unbatched -> batched, and the zero initial state: PyTorch's forward preamble for
        RNN and GRU (LSTM has its own)."""
        if input.dim() not in (2, 3):
            if name == "RNN":
                raise ValueError(f"RNN: Expected input to be 2D or 3D, got {input.dim()}D "
                                 "tensor instead")
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             "instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            batch = input.size(0) if self.batch_first else input.size(1)
            hx = zeros(self.num_layers * num_directions, batch, self.hidden_size,
                       dtype=input.dtype)
        self.check_forward_args(input, hx, None)
        return input, hx, is_batched, batch_dim


def _mini_batch(rnn, input, batch_sizes) -> int:
    if batch_sizes is not None:
        return int(batch_sizes[0])
    return input.size(0) if rnn.batch_first else input.size(1)


def _time_steps(xproj, reverse: bool):
    steps = xproj.unbind(0)
    return steps[::-1] if reverse else steps


def _finish(outs, reverse: bool):
    if reverse:
        outs.reverse()
    return _stack(outs, 0)


def _project(x, w_ih, bias):
    """The input half of every time step's gates, as one (T*N, I) x (I, G) product."""
    T, N = x.shape[0], x.shape[1]
    return F.linear(x.reshape(T * N, x.shape[2]), w_ih, bias).view(T, N, w_ih.shape[0])


def _rnn_layer(x, h, w_ih, w_hh, b_ih, b_hh, reverse, relu):
    xproj = _project(x, w_ih, None if b_ih is None else b_ih + b_hh)
    w_hh_t = w_hh.t()
    outs = []
    for xt in _time_steps(xproj, reverse):
        h = rnn_step(xt, h, w_hh_t, relu)
        outs.append(h)
    return _finish(outs, reverse), h


def _lstm_layer(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    xproj = _project(x, w_ih, None if b_ih is None else b_ih + b_hh)
    w_hh_t = w_hh.t()
    w_hr_t = None if w_hr is None else w_hr.t()
    outs = []
    for xt in _time_steps(xproj, reverse):
        h, c = lstm_step(xt, h, c, w_hh_t, w_hr_t)
        outs.append(h)
    return _finish(outs, reverse), h, c


def _gru_layer(x, h, w_ih, w_hh, b_ih, b_hh, reverse):
    xproj = _project(x, w_ih, b_ih)
    w_hh_t = w_hh.t()
    outs = []
    for xt in _time_steps(xproj, reverse):
        h = gru_step(xt, h, w_hh_t, b_hh)
        outs.append(h)
    return _finish(outs, reverse), h


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``; returns ``(output, h_n)``.
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, hx, is_batched, batch_dim = self._prepare(input, hx, "RNN")
        output, hidden = self._run(input, hx)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class LSTM(RNNBase):
    """Long short-term memory, gates in PyTorch's order (input, forget, cell, output);
    ``proj_size > 0`` projects ``h`` through ``weight_hr``. Returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None) -> tuple:
        mini_batch = _mini_batch(self, input, batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, cell=True)
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D "
                             "instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            batch = input.size(0) if self.batch_first else input.size(1)
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (zeros(self.num_layers * num_directions, batch, real_hidden,
                        dtype=input.dtype),
                  zeros(self.num_layers * num_directions, batch, self.hidden_size,
                        dtype=input.dtype))
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D "
                                       f"but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D "
                                       f"but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, h_n, c_n = self._run(input, hx[0], hx[1])
        if not is_batched:
            output = output.squeeze(batch_dim)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit, gates in PyTorch's order (reset, update, new), with
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``. Returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, hx, is_batched, batch_dim = self._prepare(input, hx, "GRU")
        output, hidden = self._run(input, hx)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden

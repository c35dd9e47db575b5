"""``optim.LBFGS``: limited-memory BFGS over all parameters as one flat vector, with an
optional strong-Wolfe line search; ``step(closure)`` re-evaluates the loss as often as it
needs (up to ``max_eval`` times).

The arithmetic follows PyTorch's, operation for operation, on NumPy arrays (so float64
trajectories agree to rounding); the state PyTorch keeps under the first parameter
(``func_evals``, ``n_iter``, ``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``,
``prev_flat_grad``, ``prev_loss``, ``al``) is kept under the same names, as tensors where
PyTorch has tensors.

>>> import leafgrad as torch
>>> x = torch.nn.Parameter(torch.tensor([1.5, -0.5], dtype=torch.float64))
>>> opt = torch.optim.LBFGS([x], line_search_fn="strong_wolfe")
>>> def closure():
...     opt.zero_grad()
...     loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
...     loss.backward()
...     return loss
>>> for _ in range(5):
...     _ = opt.step(closure)
>>> [round(v, 6) for v in x.tolist()]
[0.999999, 0.999998]
"""
from __future__ import annotations

import numpy as np

from ..grad_mode import enable_grad
from ..tensor import Tensor, _wrap
from ._common import check_lr, to_scalar
from .optimizer import Optimizer, bump

__all__ = ["LBFGS"]


def _array(value):
    """State tensors back to arrays (and 0-d tensors to 0-d arrays) for the arithmetic."""
    if isinstance(value, Tensor):
        return value._data if value._data.ndim else value._data[()]
    if isinstance(value, list):
        return [_array(v) for v in value]
    return value


def _tensor(value):
    """Arrays (and NumPy scalars) to tensors for the state, as PyTorch stores them."""
    if isinstance(value, np.ndarray):
        return _wrap(value)
    if isinstance(value, np.generic):
        return _wrap(np.asarray(value))
    if isinstance(value, list):
        return [_tensor(v) for v in value]
    return value


def _loss_value(loss) -> float:
    """``float(loss)``; PyTorch's step runs without grad, where the conversion of a loss
    that requires grad does not warn, so it must not warn here either."""
    return float(loss.detach()) if isinstance(loss, Tensor) else float(loss)


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through (x1, f1, slope g1) and (x2, f2, slope g2), clipped to
    ``bounds`` (default: between x1 and x2); the midpoint when the cubic has no minimum."""
    if bounds is None:
        bounds = (x1, x2) if x1 <= x2 else (x2, x1)
    low, high = bounds
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if disc < 0:
        return (low + high) / 2.0
    d2 = np.sqrt(disc)
    if x1 <= x2:
        point = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        point = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(point, low), high)


class _Bracket:
    """The interval the zoom phase narrows: steps, losses, gradients and slopes at its two
    ends (or one end, when the first phase already satisfied the conditions)."""

    def __init__(self, ts, fs, gs, gtds=None) -> None:
        self.t, self.f, self.g, self.gtd = list(ts), list(fs), list(gs), \
            (list(gtds) if gtds is not None else None)

    def set(self, i, t, f, g, gtd) -> None:
        self.t[i], self.f[i], self.g[i], self.gtd[i] = t, f, g, gtd

    def order(self):
        """(index of the lower loss, index of the other)."""
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search along ``d`` from step ``t`` for a step meeting the strong Wolfe
    conditions (sufficient decrease ``c1``, curvature ``c2``): first grow the step until
    an interval holds a good one, then zoom in by cubic interpolation. Returns
    ``(loss, flat_grad, t, evaluations)``."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            # too long a step (not enough decrease): a good one lies before it
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()],
                               [gtd_prev, gtd_new])
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, done = _Bracket([t], [f_new], [g_new]), True     # both conditions hold
            break
        if gtd_new >= 0:
            # the slope turned: a minimum lies between the last two steps
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()],
                               [gtd_prev, gtd_new])
            break
        # still descending: extrapolate a longer step
        grown = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.copy(), gtd_new
        t = grown
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new])
    insufficient = False
    low, high = bracket.order()
    while not done and ls_iter < max_ls:
        if abs(bracket.t[1] - bracket.t[0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(bracket.t[0], bracket.f[0], bracket.gtd[0],
                           bracket.t[1], bracket.f[1], bracket.gtd[1])
        # keep away from the ends: a point too close to one makes little progress
        top, bottom = max(bracket.t), min(bracket.t)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket.f[low]:
            bracket.set(high, t, f_new, g_new.copy(), gtd_new)
            low, high = (0, 1) if bracket.f[0] <= bracket.f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket.t[high] - bracket.t[low]) >= 0:
                bracket.set(high, bracket.t[low], bracket.f[low], bracket.g[low],
                            bracket.gtd[low])
            bracket.set(low, t, f_new, g_new.copy(), gtd_new)
    return bracket.f[low], bracket.g[low], bracket.t[low], evals


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter: int = 20, max_eval=None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn=None) -> None:
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one flat vector ------------------------------------------
    def _flat_grad(self) -> np.ndarray:
        parts = [np.zeros(p._data.size, dtype=p._data.dtype) if p._grad is None
                 else p._grad._data.reshape(-1) for p in self._params]
        return np.concatenate(parts)

    def _add_flat(self, step, update: np.ndarray) -> None:
        """``p += step * update`` piece by piece (one in-place change per parameter)."""
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += step * update[offset:offset + n].reshape(p._data.shape)
            bump(p)
            offset += n

    def _set_params(self, saved) -> None:
        for p, data in zip(self._params, saved):
            p._data[...] = data
            bump(p)

    def step(self, closure):  # type: ignore[override]
        """Run up to ``max_iter`` L-BFGS iterations; ``closure`` must zero the gradients,
        compute the loss, call ``backward()`` and return the loss."""
        if len(self.param_groups) != 1:
            raise AssertionError(f"Expected exactly one param_group, but got "
                                 f"{len(self.param_groups)}")
        group = self.param_groups[0]
        lr = to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        def evaluate():
            with enable_grad():
                return closure()

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = _loss_value(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t = _array(state.get("d")), _array(state.get("t"))
        old_dirs, old_stps = _array(state.get("old_dirs")), _array(state.get("old_stps"))
        ro, H_diag = _array(state.get("ro")), _array(state.get("H_diag"))
        prev_flat_grad, prev_loss = _array(state.get("prev_flat_grad")), state.get("prev_loss")
        al = _array(state["al"]) if "al" in state else None

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                # update the curvature pairs, then the two-loop recursion for H @ -grad
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                if al is None:
                    al = [None] * history_size
                    state["al"] = al           # PyTorch adds the key here (state order)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q += (-al[i]) * old_dirs[i]
                d = r = q * H_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r += (al[i] - be_i) * old_stps[i]
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def directional(step, x_init=x_init, d=d):
                    self._add_flat(step, d)
                    value = _loss_value(evaluate())
                    grad = self._flat_grad()
                    self._set_params(x_init)
                    return value, grad
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    directional, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_flat(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_flat(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = _loss_value(evaluate())
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = _tensor(d)
        state["t"] = _tensor(t)
        state["old_dirs"] = _tensor(old_dirs)
        state["old_stps"] = _tensor(old_stps)
        state["ro"] = _tensor(ro)
        state["H_diag"] = _tensor(H_diag)
        state["prev_flat_grad"] = _tensor(prev_flat_grad)
        state["prev_loss"] = prev_loss
        if al is not None:
            state["al"] = _tensor(al)
        return orig_loss

"""Tour sections 7-8: higher-order derivatives; finite differences and gradcheck."""
from __future__ import annotations

from .tour import section


@section("higher", "a second derivative: differentiate the backward pass")
def higher(t):
    t.say("""
        Backward formulas are themselves made of tensor operations. With create_graph=True
        the engine records them, so the gradient it returns has a grad_fn of its own and
        can be differentiated again. For c³ at c = 2: first 3c² = 12, second 6c = 12,
        third 6.
        """)
    t.run("""
        c = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
        first, = torch.autograd.grad(c.pow(3), c, create_graph=True)
        first
        second, = torch.autograd.grad(first, c, create_graph=True)
        second
        third, = torch.autograd.grad(second, c)
        third
        """)
    t.say("""
        Without create_graph the backward pass runs with recording off: cheaper, and the
        result is a plain tensor with no history.
        """)
    t.run("""
        plain, = torch.autograd.grad(c.pow(3), c)
        plain, plain.requires_grad
        """)


@section("gradcheck", "check a derivative: finite differences and gradcheck")
def gradcheck(t):
    t.say("""
        Do not trust a derivative because it looks right: compare it with a central
        difference (f(x+ε) − f(x−ε)) / 2ε. In float64, for f(x) = x³ + 2x at x = 1.5
        (f'(x) = 3x² + 2 = 8.75): a large ε suffers truncation error (it shrinks like ε²),
        a tiny ε suffers rounding error (it grows like 1/ε). The sweet spot is in between.
        """)
    t.run("""
        def f(x):
            return x.pow(3) + 2 * x
        x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
        analytic, = torch.autograd.grad(f(x), x)
        analytic
        center = x.detach()
        for eps in (1e-1, 1e-3, 1e-6, 1e-9, 1e-12):
            numeric = (f(center + eps) - f(center - eps)) / (2 * eps)
            print(f"eps={eps:.0e}  numeric={numeric.item():.12f}  "
                  f"error={(numeric - analytic).abs().item():.1e}")
        """)
    t.say("""
        torch.autograd.gradcheck does this for every input element and output element
        (in float64), comparing the whole numerical Jacobian with the analytical one.
        """)
    t.run("""
        torch.autograd.gradcheck(f, (x,))
        """)
    t.say("""
        It earns its keep on code you wrote yourself. This custom Function's backward has a
        bug (2x² instead of 3x²); gradcheck finds it.
        """)
    t.run("""
        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.pow(3)
            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return grad * 2 * x * x
        torch.autograd.gradcheck(Cube.apply, (x,), raise_exception=False)
        torch.autograd.gradcheck(Cube.apply, (x,))
        """, expect_error=Exception)
    t.say("""
        Mind the limits: at a point where the function is not differentiable, the two
        disagree and neither is wrong. ReLU at 0: autograd uses the derivative 0, the
        central difference sees half of the kink.
        """)
    t.run("""
        r = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
        torch.autograd.grad(torch.relu(r), r)
        (torch.relu(r.detach() + 1e-6) - torch.relu(r.detach() - 1e-6)) / 2e-6
        """)

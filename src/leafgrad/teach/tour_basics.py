"""Tour sections 1-4: one chain, vector seeds (VJP), accumulation, None versus zero."""
from __future__ import annotations

from .tour import section


@section("chain", "one chain, forward and backward")
def chain(t):
    t.say("""
        Take a parameter w = 2, an intermediate h = w², and a loss L = 3h. By hand:
        dL/dh = 3, dh/dw = 2w = 4, so dL/dw = 3 × 4 = 12. Let autograd do it.
        """)
    t.run("""
        w = torch.tensor(2.0, requires_grad=True)
        h = w.square()
        L = 3 * h
        L
        """)
    t.say("""
        Each result remembers the backward function that made it, its grad_fn. Nodes are
        linked by next_functions: one (node, input number) pair per input of the forward
        op. The constant 3 needs no gradient, so its edge is None; w is a leaf, reached
        through an AccumulateGrad node that writes into w.grad.
        """)
    t.run("""
        L.grad_fn.name(), h.grad_fn.name(), w.grad_fn
        [(fn.name() if fn is not None else None) for fn, _ in L.grad_fn.next_functions]
        h.grad_fn.next_functions[0][0].variable is w
        from leafgrad.teach.graphtext import draw_chain, draw_tree
        print(draw_tree(L, w=w, h=h, L=L))
        """)
    t.say("""
        The drawing below is made from that graph: names and saved values for the forward
        line, and hooks on each node for the backward line, which holds the gradient that
        reached each tensor and the local derivative each node multiplied it by.
        Backward propagates derivatives; it does not replay the forward values in reverse.
        """)
    t.run("""
        print(draw_chain(L, w=w, h=h, L=L))
        """)
    t.say("""
        w is a leaf (made by you, grad_fn None); h is not (made by an op). backward()
        stores gradients in the .grad of leaves that require grad. An intermediate keeps
        its gradient only if you ask first with retain_grad(). The gradient still flows
        through h either way.
        """)
    t.run("""
        h.retain_grad()
        L.backward()
        w.grad, h.grad
        w.is_leaf, h.is_leaf
        """)
    t.say("""
        Without retain_grad, reading .grad of a non-leaf gives None and a warning; that
        None does not mean the graph is broken (w.grad below is 12).
        """)
    t.run("""
        w.grad = None
        h2 = w.square()
        (3 * h2).backward()
        h2.grad
        w.grad
        """)
    t.say("""
        Note what backward did not do: w is still 2. backward computes gradients; changing
        the parameter is the optimizer's step (or your own update under no_grad).
        """)
    t.run("""
        w
        """)


@section("vjp", "a vector output needs a seed: the vector-Jacobian product")
def vjp(t):
    t.say("""
        backward() with no argument starts from dL/dL = 1, which only makes sense for a
        single number. For a vector y = (p², 3p) autograd cannot guess what you want: the
        sum? one component? So it refuses.
        """)
    t.run("""
        p = torch.tensor(2.0, requires_grad=True)
        y = torch.stack((p.square(), 3 * p))
        y
        from leafgrad.teach.graphtext import draw_tree
        print(draw_tree(y, p=p, y=y))
        y.backward()
        """, expect_error=RuntimeError)
    t.say("""
        A seed v says which combination of outputs to differentiate: backward computes
        vᵀJ, the vector-Jacobian product, here d(v₁y₁ + v₂y₂)/dp = 2p·v₁ + 3·v₂. With
        v = (1, 2) at p = 2 that is 4 + 6 = 10: not 7 (the plain sum), and never the whole
        Jacobian, which autograd.functional.jacobian builds row by row when you need it.
        """)
    t.run("""
        v = torch.tensor([1.0, 2.0])
        torch.autograd.grad(y, p, grad_outputs=v, retain_graph=True)
        J = torch.autograd.functional.jacobian(lambda q: torch.stack((q.square(), 3 * q)), p)
        J, v @ J
        p.grad is None
        """)
    t.say("""
        autograd.grad returns the derivatives and leaves .grad alone. backward(v) computes
        the same product but accumulates it into the leaves' .grad.
        """)
    t.run("""
        y.backward(v)
        p.grad
        """)
    t.say("""
        In training the seed is almost always implicit: the loss is reduced to one number
        with sum() or mean(), and that choice scales every gradient (mean divides by the
        number of elements).
        """)
    t.run("""
        q = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        q.square().sum().backward()
        q.grad
        q.grad = None
        q.square().mean().backward()
        q.grad
        """)


@section("accumulate", "gradients add up across fresh graphs; clearing them")
def accumulate(t):
    t.say("""
        Every call below builds a fresh graph (w.square() runs again) and backward adds
        its gradient into the same w.grad. It does not replace it.
        """)
    t.run("""
        w = torch.tensor(2.0, requires_grad=True)
        w.square().backward()
        w.grad
        w.square().backward()
        w.grad
        w.grad = None
        w.square().backward()
        w.grad
        """)
    t.say("""
        That is what makes gradient accumulation over micro-batches work, and why a
        training loop clears gradients once per update: optimizer.zero_grad() (which sets
        them to None by default). To accumulate on purpose, scale each micro-batch's loss
        so the sum is the loss of the whole batch: two halves, each mean divided by 2,
        give exactly the full batch's gradient.
        """)
    t.run("""
        x = torch.tensor([1.0, 2.0, 3.0, 4.0])
        w = torch.tensor(0.5, requires_grad=True)
        ((w * x - 1) ** 2).mean().backward()
        full = w.grad.clone()
        w.grad = None
        for part in x.split(2):
            (((w * part - 1) ** 2).mean() / 2).backward()
        w.grad, full
        optimizer = torch.optim.SGD([w], lr=0.1)
        optimizer.zero_grad()
        w.grad is None
        """)
    t.say("""
        Do not confuse this with calling backward twice through one graph: these were
        separate graphs. The 'lifetime' section shows what happens with the same graph.
        """)


@section("none-vs-zero", "a None gradient is not a zero gradient")
def none_vs_zero(t):
    t.say("""
        After backward, a parameter's .grad is None when nothing wrote to it (it took no
        part in this loss, or the gradients were cleared), and a tensor of zeros when it
        took part and its derivative happened to be zero. Optimizers treat them
        differently: they skip a None parameter entirely, while weight decay (and
        momentum) still move one whose gradient is zero.
        """)
    t.run("""
        a = torch.tensor(1.0, requires_grad=True)
        b = torch.tensor(1.0, requires_grad=True)
        loss = a * 0.0
        loss.backward()
        a.grad, b.grad
        optimizer = torch.optim.SGD([a, b], lr=0.1, weight_decay=0.5)
        optimizer.step()
        a, b
        """)
    t.say("""
        autograd.grad makes the same distinction: asking for an input the output does not
        depend on is an error, unless you allow it (None) or ask for zeros.
        """)
    t.run("""
        torch.autograd.grad(a * 2, [a, b])
        """, expect_error=RuntimeError)
    t.run("""
        torch.autograd.grad(a * 2, [a, b], allow_unused=True)
        torch.autograd.grad(a * 2, [a, b], allow_unused=True, materialize_grads=True)
        """)

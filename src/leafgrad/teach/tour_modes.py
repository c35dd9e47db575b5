"""Tour sections 5-6: detach / clone / no_grad / inference_mode / eval, and graph lifetime
with in-place changes."""
from __future__ import annotations

from .tour import section


@section("modes", "detach, clone, no_grad, inference_mode and eval are different tools")
def modes(t):
    t.say("""
        Four names that are easy to mix up. clone() copies the data and stays in the graph;
        detach() leaves the graph but shares the data; detach().clone() is an independent
        snapshot.
        """)
    t.run("""
        source = torch.tensor([2.0, 3.0], requires_grad=True)
        copied = source.clone()
        detached = source.detach()
        snapshot = source.detach().clone()
        copied
        detached.requires_grad, detached.data_ptr() == source.data_ptr()
        snapshot.data_ptr() == source.data_ptr()
        with torch.no_grad():
            source[0] = 10.0
        detached, snapshot
        copied.sum().backward()
        source.grad
        """)
    t.say("""
        no_grad() stops recording inside its block: results have no grad_fn and do not
        require grad, but they are ordinary tensors you may use later. Factories given
        requires_grad=True still make leaves that require grad inside it.
        """)
    t.run("""
        with torch.no_grad():
            y = source * 2
            z = torch.ones(2, requires_grad=True)
        y.requires_grad, y.grad_fn, z.requires_grad
        torch.is_grad_enabled()
        """)
    t.say("""
        inference_mode() is the stronger contract: its results are inference tensors that
        can never be saved for a backward pass later.
        """)
    t.run("""
        with torch.inference_mode():
            frozen = source * 2
        frozen.is_inference(), frozen.requires_grad
        (frozen * source).sum()
        """, expect_error=RuntimeError)
    t.say("""
        model.eval() is about layers, not autograd: it switches Dropout off and makes
        BatchNorm use its running statistics. The graph is still recorded; wrap evaluation
        in no_grad() (or inference_mode()) to stop that. Choose the two independently.
        """)
    t.run("""
        model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5))
        model.eval()
        out = model(torch.ones(1, 2))
        model.training, out.requires_grad, out.grad_fn.name()
        with torch.no_grad():
            out = model(torch.ones(1, 2))
        out.requires_grad
        """)
    t.say("""
        Summary:
          tool               records the graph?   shares memory?   changes layers?
          x.clone()          yes                  no               no
          x.detach()         no (this tensor)     yes              no
          no_grad()          no, inside it        -                no
          inference_mode()   no, and never later  -                no
          model.eval()       yes                  -                dropout, batchnorm
        """)


@section("lifetime", "graph lifetime, backward twice, and in-place changes")
def lifetime(t):
    t.say("""
        An eager forward pass builds a graph of the operations that actually ran; each node
        saves what its derivative needs (exp saves its result, since d/dx eˣ = eˣ).
        backward frees those saved values as it goes, so a second backward through the
        same graph fails.
        """)
    t.run("""
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        loss = y.sum()
        y.grad_fn._saved_result
        loss.backward()
        y.grad_fn._saved_result
        """, expect_error=RuntimeError)
    t.run("""
        loss.backward()
        """, expect_error=RuntimeError)
    t.say("""
        retain_graph=True keeps the saved values (and the memory) for another pass; the
        usual fix is a fresh forward pass each step instead. A graph that saved no tensors
        (sum saves only a shape) runs twice without complaint, so a second backward that
        succeeds proves nothing about what was kept.
        """)
    t.run("""
        x.grad = None
        loss = x.exp().sum()
        loss.backward(retain_graph=True)
        loss.backward()
        x.grad
        s = x.sum()
        s.backward()
        s.backward()
        """)
    t.say("""
        In-place ops change a tensor's data under the graph. Every tensor carries a version
        counter (shared with its views); each in-place op bumps it, and each saved value
        remembers the version it saw. Here exp saved y at version 0, add_ moves y to
        version 1, and backward refuses to use the changed value.
        """)
    t.run("""
        y = x.exp()
        y._version
        y.add_(1)
        y._version
        y.sum().backward()
        """, expect_error=RuntimeError)
    t.say("""
        Fixes: write it out of place (y = x.exp() + 1), or change a copy. And a leaf that
        requires grad may not be changed in place while recording at all; parameter updates
        belong after backward, under no_grad, which is what optimizer.step() does.
        """)
    t.run("""
        x.add_(1)
        """, expect_error=RuntimeError)
    t.run("""
        w = torch.tensor(2.0, requires_grad=True)
        w.square().backward()
        with torch.no_grad():
            w.add_(w.grad, alpha=-0.1)
        w.grad = None
        w
        """)
    t.say("""
        Do not dodge the version check with .data: it hides the change from autograd and
        gives silently wrong gradients instead of an error.
        """)

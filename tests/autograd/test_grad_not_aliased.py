"""A gradient the user can see (kept by a hook, returned by autograd.grad) is never reused as
``.grad``'s buffer: a later accumulation would change the user's tensor in place."""
from tests.oracle import same_on_both


def test_hook_kept_gradient_is_not_accumulated_into():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        saved = []
        x.register_hook(lambda g: saved.append(g))
        y = (x * 3).sum()
        y.backward(retain_graph=True)
        y.backward()
        return saved, x.grad
    same_on_both(program)


def test_hook_kept_gradient_of_leaf_reached_twice():
    def program(lib):
        x = lib.ones(3, requires_grad=True)
        saved = []
        x.register_hook(lambda g: saved.append(g))
        y = (x * 2 + x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return saved, x.grad
    same_on_both(program)


def test_backward_inputs_gradient_not_aliased_with_retained_copy():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        kept = []
        x.register_hook(lambda g: kept.append(g))
        y = (x * 5).sum()
        y.backward(inputs=[x], retain_graph=True)
        y.backward(inputs=[x])
        return kept, x.grad
    same_on_both(program)


def test_gradient_kept_by_node_or_non_leaf_hooks_is_not_accumulated_into():
    """Note [Seen gradients] in autograd/engine.py: a gradient tensor a node's post hook or
    pre hook, or a tensor hook on a non-leaf, kept, then handed on unchanged to a leaf (add's
    and mul's formulas), must not become the leaf's ``.grad`` buffer."""
    def program(lib):
        out = []
        for kind in ("post", "pre", "tensor", "post_mul"):
            x = lib.ones(2, requires_grad=True)
            kept = []
            y = x * 3 if kind == "post_mul" else x + 1
            if kind in ("post", "post_mul"):
                y.grad_fn.register_hook(lambda gi, go, kept=kept: kept.append(gi[0]))
            elif kind == "pre":
                y.grad_fn.register_prehook(lambda go, kept=kept: kept.append(go[0]))
            else:
                y.register_hook(lambda g, kept=kept: kept.append(g))
            z = (y * 1).sum()
            z.backward(retain_graph=True)
            z.backward()
            out.append((kept, x.grad))
        return out
    same_on_both(program)


def test_one_gradient_for_two_leaves_is_not_shared():
    def program(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        (a + b).sum().backward()
        a.grad.mul_(5)   # in place: b.grad must not change
        (a + b).sum().backward()
        return a.grad, b.grad
    same_on_both(program)

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

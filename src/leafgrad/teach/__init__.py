"""Teaching fronts: ``leafgrad tour`` (a printed walk through autograd) and ``leafgrad check``
(run the Python blocks of Markdown lessons and compare their output with the text).

Nothing here is imported by ``import leafgrad``; the package only reads the graph through the
public API (``grad_fn``, ``next_functions``, ``_saved_*``, node hooks), so the helpers in
``graphtext`` work on real PyTorch tensors too.
"""
__all__: list = []

"""Fixtures shared by the fuzz regression files."""
import pytest
import torch

import leafgrad


@pytest.fixture
def one_thread():
    """torch and leafgrad on one thread: some PyTorch kernels choose their path, and so their
    messages, by the thread count (conv)."""
    before = (torch.get_num_threads(), leafgrad.get_num_threads())
    torch.set_num_threads(1)
    leafgrad.set_num_threads(1)
    yield
    torch.set_num_threads(before[0])
    leafgrad.set_num_threads(before[1])

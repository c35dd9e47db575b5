import numpy as np
import torch

w = torch.tensor([0.5, 1.0], requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
a = np.sin(w.detach().numpy())  # expect: numpy
loss = (torch.from_numpy(a) * b).sum()
loss.backward()
target = w
print(w.grad)

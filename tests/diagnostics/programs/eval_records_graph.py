import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
model.eval()
out = model(torch.ones(1, 2))  # expect: eval-records-graph
print(out.requires_grad)

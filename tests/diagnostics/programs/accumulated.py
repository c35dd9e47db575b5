import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.tensor([[1.0, 2.0]])
for step in range(3):
    loss = model(x).pow(2).sum()
    loss.backward()  # expect: accumulated
    opt.step()
print(round(loss.item(), 4))

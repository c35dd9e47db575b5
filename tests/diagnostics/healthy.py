import torch

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
loss_fn = torch.nn.MSELoss()
for step in range(20):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(step, round(loss.item(), 4))
print(model.weight.grad is not None)
model.eval()
with torch.no_grad():
    print(round(loss_fn(model(x), y).item(), 4))

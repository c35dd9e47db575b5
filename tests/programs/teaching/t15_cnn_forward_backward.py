import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc1 = nn.Linear(8 * 1 * 1, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        return x


net = Net()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) + i).reshape(p.shape) * 0.3)
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
inp = (torch.arange(2 * 1 * 10 * 10, dtype=torch.float32).reshape(2, 1, 10, 10) % 7) / 7
out = net(inp)
print(out)
print(out.grad_fn.name(), out.shape)
net.zero_grad()
out.backward(torch.ones(2, 10) * 0.1)
print(net.conv1.bias.grad)
target = torch.arange(10, dtype=torch.float32).view(1, -1).repeat(2, 1) / 10
criterion = nn.MSELoss()
output = net(inp)
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])
net.zero_grad()
print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)
loss.backward()
print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()
output = net(inp)
loss = criterion(output, target)
loss.backward()
optimizer.step()
print(net(inp).sum().item() != output.sum().item())
x = torch.arange(1 * 2 * 6 * 6, dtype=torch.float32).reshape(1, 2, 6, 6)
print(F.avg_pool2d(x, 2)[0, 0])
print(F.conv2d(x, torch.ones(3, 2, 3, 3), padding=1).shape)
print(F.conv2d(x, torch.ones(3, 2, 3, 3), stride=2).shape)
bn = nn.BatchNorm2d(2)
print(bn(x).mean(dim=(0, 2, 3)).abs().max() < 1e-5)
try:
    net(torch.zeros(1, 3, 10, 10))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    nn.Linear(4, 2)(torch.zeros(3, 5))
except RuntimeError as e:
    print("RuntimeError:", e)

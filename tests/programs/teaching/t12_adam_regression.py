import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.linspace(-2, 2, 40).unsqueeze(1)
y = x ** 2 - 0.5 * x


class Net(nn.Module):
    def __init__(self, hidden=8):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(1, hidden)
        self.fc2 = nn.Linear(hidden, 1)
        self.drop = nn.Dropout(p=0.0)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


net = Net()
with torch.no_grad():
    net.fc1.weight.copy_(torch.linspace(-1, 1, 8).unsqueeze(1))
    net.fc1.bias.copy_(torch.linspace(0.5, -0.5, 8))
    net.fc2.weight.copy_(torch.linspace(0.3, -0.2, 8).unsqueeze(0))
    net.fc2.bias.zero_()
opt = torch.optim.Adam(net.parameters(), lr=0.05)
crit = nn.MSELoss()
for epoch in range(1, 101):
    opt.zero_grad()
    out = net(x)
    loss = crit(out, y)
    loss.backward()
    opt.step()
    if epoch % 20 == 0:
        print('Epoch [{}/{}], Loss: {:.4f}'.format(epoch, 100, loss.item()))
print(net)
print(sum(p.numel() for p in net.parameters()))
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
print(opt.state_dict()['param_groups'])
print(len(opt.state_dict()['state']), list(opt.state_dict()['state'][0].keys()))
print(opt.state_dict()['state'][0]['step'])
opt2 = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.1)
print(opt2)
opt3 = torch.optim.RMSprop(net.parameters())
print(opt3.defaults['lr'], opt3.param_groups[0]['alpha'])

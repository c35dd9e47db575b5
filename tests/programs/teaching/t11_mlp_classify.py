import torch
from torch import nn

# deterministic synthetic two-class data: points on two interleaved spirals
n = 64
t = torch.linspace(0, 3, n)
X0 = torch.stack([t * torch.cos(t), t * torch.sin(t)], dim=1)
X1 = -X0
X = torch.cat([X0, X1]) / 3
y = torch.cat([torch.zeros(n, dtype=torch.long), torch.ones(n, dtype=torch.long)])
print(X.shape, y.shape, y.dtype, X[:3])


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(2, 16),
            nn.ReLU(),
            nn.Linear(16, 16),
            nn.Tanh(),
            nn.Linear(16, 2),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (i + 1) * 0.37).reshape(p.shape) * 0.5)
print(model)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(30):
    model.train()
    pred = model(X)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if epoch % 5 == 0:
        model.eval()
        with torch.no_grad():
            logits = model(X)
            correct = (logits.argmax(1) == y).type(torch.float).sum().item()
        print(f"epoch {epoch}: loss: {loss.item():>7f}  accuracy: {(100 * correct / len(y)):>0.1f}%")
pred_probab = nn.Softmax(dim=1)(model(X[:2]))
print(pred_probab)
print(pred_probab.argmax(1))
print(optimizer)
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:1]} \n")

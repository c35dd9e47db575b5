# 60 Minute Blitz style: a LeNet-like CNN on random "images", loss, backprop, manual and optim updates
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output


net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out.shape, out.grad_fn)
net.zero_grad()
out.backward(torch.randn(1, 10))
print(net.conv1.bias.grad.shape, net.conv1.weight.grad is not None)
output = net(input)
target = torch.randn(10)
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(f"{loss.item():.4f}")
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])
net.zero_grad()
print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)
loss.backward()
print("conv1.bias.grad after backward")
print(net.conv1.bias.grad.shape, net.conv1.bias.grad.abs().sum().item() > 0)
learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)
optimizer = optim.SGD(net.parameters(), lr=0.01)
for i in range(3):
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print(f"iter {i}: {loss.item():.4f}")

# the CIFAR-10 tutorial's network and training loop on a tiny random set
classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
images = torch.rand(40, 3, 32, 32) * 2 - 1
labels = torch.randint(0, 10, (40,))
trainset = torch.utils.data.TensorDataset(images[:32], labels[:32])
trainloader = torch.utils.data.DataLoader(trainset, batch_size=4, shuffle=True,
                                          generator=torch.Generator().manual_seed(0))
dataiter = iter(trainloader)
imgs, lbls = next(dataiter)
print(" ".join(f"{classes[lbls[j]]:5s}" for j in range(4)))


class Net2(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net2()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels_b = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels_b)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 4 == 3:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 4:.3f}")
            running_loss = 0.0
print("Finished Training")
correct = 0
total = 0
correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    outputs = net(images[32:])
    _, predicted = torch.max(outputs.data, 1)
    total += labels[32:].size(0)
    correct += (predicted == labels[32:]).sum().item()
    for label, prediction in zip(labels[32:], predicted):
        if label == prediction:
            correct_pred[classes[label]] += 1
        total_pred[classes[label]] += 1
print(f"Accuracy of the network on the 8 test images: {100 * correct // total} %")
print(predicted.dtype, sum(total_pred.values()))

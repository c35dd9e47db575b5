import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split, Subset

X = torch.arange(20.).reshape(10, 2)
y = torch.arange(10) % 3
ds = TensorDataset(X, y)
print(len(ds), ds[0], ds[9])
loader = DataLoader(ds, batch_size=4)
print(len(loader))
for i, (xb, yb) in enumerate(loader):
    print(i, xb.shape, yb)
for xb, yb in DataLoader(ds, batch_size=3, drop_last=True):
    print(xb.tolist(), yb.tolist())


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return {"x": torch.tensor([float(idx)]), "y": idx * idx}


for batch in DataLoader(Squares(5), batch_size=2):
    print(batch)
print(next(iter(DataLoader(Squares(3), batch_size=None))))
sub = Subset(ds, [1, 3, 5])
print(len(sub), sub[1])
print(DataLoader(ds, batch_size=4).batch_size, DataLoader(ds).dataset is ds)


class Pairs(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((2,), float(i)), (i, str(i))


for a, (b, c) in DataLoader(Pairs(), batch_size=2):
    print(a, b, c)
loader = DataLoader(ds, batch_size=5, collate_fn=lambda batch: len(batch))
print(list(loader))
model = torch.nn.Linear(2, 3)
with torch.no_grad():
    model.weight.fill_(0.01)
    model.bias.zero_()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
for epoch in range(3):
    total = 0.0
    for xb, yb in DataLoader(ds, batch_size=5):
        opt.zero_grad()
        l = loss_fn(model(xb), yb)
        l.backward()
        opt.step()
        total += l.item() * len(xb)
    print(f"epoch {epoch} mean loss {total / len(ds):.6f}")

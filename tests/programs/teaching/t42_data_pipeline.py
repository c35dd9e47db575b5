# data pipelines: Dataset subclasses, random_split with a seeded generator, samplers, collate
import torch
from torch.utils.data import (DataLoader, Dataset, IterableDataset, TensorDataset, ConcatDataset,
                              Subset, random_split, RandomSampler, SequentialSampler,
                              WeightedRandomSampler, BatchSampler, SubsetRandomSampler, default_collate)

torch.manual_seed(0)


class CustomImageDataset(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        self.images = torch.arange(n * 4, dtype=torch.float32).reshape(n, 1, 2, 2)
        self.labels = [i % 3 for i in range(n)]
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


ds = CustomImageDataset(10, transform=lambda x: x / 255,
                        target_transform=lambda y: torch.zeros(3, dtype=torch.float).scatter_(0, torch.tensor(y), value=1))
img, lab = ds[4]
print(img, lab)
train_ds, val_ds = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
print(len(train_ds), len(val_ds), train_ds.indices, val_ds.indices)
a, b, c = random_split(range(10), [3, 3, 4], generator=torch.Generator().manual_seed(1))
print(list(a), list(b), list(c))
loader = DataLoader(train_ds, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(7))
for xb, yb in loader:
    print(xb.shape, yb.argmax(1).tolist())
g = torch.Generator().manual_seed(3)
print(list(RandomSampler(range(6), generator=g)), list(SequentialSampler(range(4))))
print(list(RandomSampler(range(6), replacement=True, num_samples=8, generator=torch.Generator().manual_seed(3))))
print(list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.0], 6, replacement=True, generator=torch.Generator().manual_seed(5))))
print(list(WeightedRandomSampler([1, 2, 3, 4], 3, replacement=False, generator=torch.Generator().manual_seed(5))))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=4, drop_last=False)))
print(list(BatchSampler(range(10), batch_size=4, drop_last=True)))
print(list(SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(2))))
tds = TensorDataset(torch.arange(6).float(), torch.arange(6) * 10)
cat = ConcatDataset([tds, Subset(tds, [0, 1])])
print(len(cat), cat[6], cat.cumulative_sizes)
dl = DataLoader(cat, batch_sampler=BatchSampler(SequentialSampler(cat), 3, False))
print([y.tolist() for _, y in dl])
dl = DataLoader(tds, batch_size=2, sampler=SubsetRandomSampler([0, 2, 4], generator=torch.Generator().manual_seed(0)))
print([x.tolist() for x, _ in dl], len(dl))


class Counter(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield {"i": i, "sq": torch.tensor([i * i, i])}


for batch in DataLoader(Counter(5), batch_size=2):
    print(batch)
print(default_collate([(1, 2.0, "a"), (3, 4.0, "b")]))
print(default_collate([torch.ones(2), torch.zeros(2)]), default_collate([[1, 2], [3, 4]]))
print(default_collate([{"x": torch.tensor(1.0), "y": (1, 2)}, {"x": torch.tensor(2.0), "y": (3, 4)}]))


def collate_pad(batch):
    lengths = torch.tensor([len(s) for s in batch])
    padded = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=-1)
    return padded, lengths


seqs = [torch.arange(n) for n in (3, 1, 4, 2)]
for padded, lengths in DataLoader(seqs, batch_size=2, collate_fn=collate_pad):
    print(padded, lengths)
    packed = torch.nn.utils.rnn.pack_padded_sequence(padded.unsqueeze(-1).float(), lengths,
                                                     batch_first=True, enforce_sorted=False)
    print(packed.batch_sizes, packed.sorted_indices)
torch.manual_seed(123)
print([b.tolist() for b in DataLoader(torch.arange(8), batch_size=4, shuffle=True)])
print([b.tolist() for b in DataLoader(torch.arange(8), batch_size=4, shuffle=True)])
print(torch.randn(2))

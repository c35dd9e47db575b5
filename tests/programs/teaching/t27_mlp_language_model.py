# makemore part 2 style: character-level MLP language model with an embedding table
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia",
         "harper", "evelyn", "abigail", "emily", "ella", "elizabeth", "camila", "luna",
         "gianna", "aria", "scarlett", "penelope"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


Xtr, Ytr = build_dataset(words[:16])
Xdev, Ydev = build_dataset(words[16:])
print(Xtr[:4], Ytr[:4])

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((vocab_size, 5), generator=g)
W1 = torch.randn((block_size * 5, 40), generator=g) * (5 / 3) / (block_size * 5) ** 0.5
b1 = torch.randn(40, generator=g) * 0.01
W2 = torch.randn((40, vocab_size), generator=g) * 0.1
b2 = torch.randn(vocab_size, generator=g) * 0
parameters = [C, W1, b1, W2, b2]
print("params", sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

emb = C[Xtr]
print("emb", emb.shape, emb.view(-1, block_size * 5).shape, torch.cat(torch.unbind(emb, 1), 1).shape)

lossi = []
for i in range(60):
    ix = torch.randint(0, Xtr.shape[0], (16,), generator=g)
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, block_size * 5) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 40 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    lossi.append(loss.log10().item())
    if i % 10 == 0:
        print(f"{i:4d}/60: {loss.item():.4f}")
print("mean log10 loss", f"{sum(lossi) / len(lossi):.3f}")


@torch.no_grad()
def split_loss(name, X, Y):
    emb = C[X]
    h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Y)
    print(name, f"{loss.item():.4f}")


split_loss("train", Xtr, Ytr)
split_loss("dev", Xdev, Ydev)
print("saturation", f"{(h.abs() > 0.99).float().mean().item():.4f}")
print(C.grad.shape, W1.grad.abs().max() > 0, b2.grad[:4])

g = torch.Generator().manual_seed(2147483647 + 10)
for _ in range(4):
    out = []
    context = [0] * block_size
    while True:
        emb = C[torch.tensor([context])]
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        logits = h @ W2 + b2
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0 or len(out) > 12:
            break
    print("".join(itos[i] for i in out))

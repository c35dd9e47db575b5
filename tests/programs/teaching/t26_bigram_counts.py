# makemore-style bigram character model: counts, sampling, and the same model trained by gradient
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia",
         "harper", "evelyn", "abigail", "emily", "ella", "elizabeth", "camila", "luna"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)
print("vocab", V, "".join(itos[i] for i in range(V)))

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    cs = ["."] + list(w) + ["."]
    for a, b in zip(cs, cs[1:]):
        N[stoi[a], stoi[b]] += 1
print(N.dtype, N.shape, N.sum().item(), N[0, :8])
P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P[0].sum().item(), P.shape, P[0, :5])

g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print("".join(out))

log_likelihood = 0.0
n = 0
for w in words:
    cs = ["."] + list(w) + ["."]
    for a, b in zip(cs, cs[1:]):
        logprob = torch.log(P[stoi[a], stoi[b]])
        log_likelihood += logprob
        n += 1
print(f"{log_likelihood=}")
nll = -log_likelihood
print(f"{nll/n=}")

xs, ys = [], []
for w in words:
    cs = ["."] + list(w) + ["."]
    for a, b in zip(cs, cs[1:]):
        xs.append(stoi[a])
        ys.append(stoi[b])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print("examples", num, xs[:6], ys[:6])

g = torch.Generator().manual_seed(2147483647)
W = torch.randn((V, V), generator=g, requires_grad=True)
xenc = F.one_hot(xs, num_classes=V).float()
print(xenc.shape, xenc.dtype, xenc[:2, :6])
for k in range(30):
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
    if k % 5 == 0:
        print(k, f"{loss.item():.4f}")
    W.grad = None
    loss.backward()
    W.data += -20 * W.grad
print("final", f"{loss.item():.4f}", W.grad.shape, loss.grad_fn)

g = torch.Generator().manual_seed(2147483647)
for i in range(3):
    out = []
    ix = 0
    while True:
        xenc = F.one_hot(torch.tensor([ix]), num_classes=V).float()
        logits = xenc @ W
        p = F.softmax(logits, dim=1)
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0 or len(out) > 12:
            break
    print("".join(out))

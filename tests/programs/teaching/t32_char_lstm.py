# a small character-level language model with nn.Embedding + nn.LSTM, trained a few steps
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(3)
text = "hello world, hello leaf, hello grad. "
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(len(chars), data.shape, data.dtype)


class CharLSTM(nn.Module):
    def __init__(self, vocab, emb=8, hidden=16, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


model = CharLSTM(len(chars))
print(model)
for name, p in model.named_parameters():
    print(f"{name:25s} {str(tuple(p.shape)):10s} {p.numel()}")
print("total", sum(p.numel() for p in model.parameters() if p.requires_grad))

seq = 12
xs = torch.stack([data[i:i + seq] for i in range(0, len(data) - seq - 1, 4)])
ys = torch.stack([data[i + 1:i + seq + 1] for i in range(0, len(data) - seq - 1, 4)])
print(xs.shape, ys.shape)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(25):
    logits, _ = model(xs)
    loss = F.cross_entropy(logits.reshape(-1, len(chars)), ys.reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")

out, (h, c) = model.lstm(model.embed(xs[:2]))
print(out.shape, h.shape, c.shape, out.grad_fn is not None)
print(torch.allclose(out[:, -1], h[-1]))


@torch.no_grad()
def sample(start, n, temperature=1.0):
    g = torch.Generator().manual_seed(0)
    idx = torch.tensor([[stoi[c] for c in start]])
    logits, state = model(idx)
    out = start
    for _ in range(n):
        probs = F.softmax(logits[:, -1] / temperature, dim=-1)
        nxt = torch.multinomial(probs, 1, generator=g)
        out += chars[nxt.item()]
        logits, state = model(nxt, state)
    return out


print(repr(sample("hel", 20, temperature=0.5)))
greedy = model(xs[:1])[0].argmax(-1)[0]
print("".join(chars[i] for i in greedy.tolist()))
gru = nn.GRU(4, 3, batch_first=True)
o, hn = gru(torch.randn(2, 5, 4))
print(gru, o.shape, hn.shape)
rnn = nn.RNN(4, 3, nonlinearity="relu", bidirectional=True)
o, hn = rnn(torch.randn(5, 2, 4))
print(rnn, o.shape, hn.shape)
cell = nn.LSTMCell(4, 3)
hx, cx = cell(torch.randn(2, 4))
print(cell, hx.shape, cx.shape)

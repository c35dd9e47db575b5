# a tiny transformer encoder that classifies token sequences (does the sequence contain token 1?)
import math
import torch
from torch import nn

torch.manual_seed(11)
vocab, d_model, seq_len = 6, 16, 7


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=50):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[:x.size(0)]


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, 2)

    def forward(self, src, pad_mask=None):
        x = self.pos(self.embed(src) * math.sqrt(d_model))
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        return self.head(x.mean(0))


model = Classifier()
print(model.pos.pe.shape, [n for n, _ in model.named_buffers()])
print(model.encoder.layers[0])
print("params", sum(p.numel() for p in model.parameters()))
X = torch.randint(2, vocab, (seq_len, 64))
y = torch.randint(0, 2, (64,))
X[torch.randint(0, seq_len, (64,)), torch.arange(64)] = torch.where(y == 1, 1, X[0])
print(X[:, :4].T, y[:4])
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
for step in range(30):
    model.train()
    logits = model(X)
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if step % 6 == 0:
        acc = (logits.argmax(1) == y).float().mean().item()
        print(f"step {step:2d} loss {loss.item():.4f} acc {acc:.3f} lr {sched.get_last_lr()[0]:.5f}")
model.eval()
with torch.no_grad():
    logits = model(X)
print("final acc", (logits.argmax(1) == y).float().mean().item())
mask = torch.zeros(64, seq_len, dtype=torch.bool)
mask[:, -2:] = True
with torch.no_grad():
    print(model(X, pad_mask=mask).shape)
attn = nn.MultiheadAttention(8, 2, batch_first=True)
q = torch.randn(2, 3, 8)
out, w = attn(q, q, q)
print(out.shape, w.shape, f"{w.sum(-1).max().item():.4f}")
causal = nn.Transformer.generate_square_subsequent_mask(4)
print(causal)

"""A character-level LSTM language model: an ordinary PyTorch program.

    python examples/char_lstm.py              # real PyTorch
    leafgrad run examples/char_lstm.py        # the same file on leafgrad
    leafgrad run examples/char_lstm.py --quick

nn.Embedding -> nn.LSTM -> nn.Linear, trained with cross-entropy to predict the next
character of the paragraph below (the opening of Lewis Carroll's "Alice's Adventures in
Wonderland", 1865, in the public domain). Prints the loss of each epoch and ends with a
greedy sample: the model, given the first words, recites what it has memorised.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from _common import progress

TEXT = (
    "Alice was beginning to get very tired of sitting by her sister on the bank, and of "
    "having nothing to do: once or twice she had peeped into the book her sister was "
    "reading, but it had no pictures or conversations in it, 'and what is the use of a "
    "book,' thought Alice 'without pictures or conversations?' So she was considering in "
    "her own mind (as well as she could, for the hot day made her feel very sleepy and "
    "stupid), whether the pleasure of making a daisy-chain would be worth the trouble of "
    "getting up and picking the daisies, when suddenly a White Rabbit with pink eyes ran "
    "close by her."
)


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim=32, hidden_size=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size)

    def forward(self, tokens, state=None):
        out, state = self.lstm(self.embed(tokens), state)
        return self.head(out), state


def greedy_sample(model, prompt, length, stoi, itos):
    """Feed ``prompt``, then append the most likely next character ``length`` times."""
    model.eval()
    with torch.no_grad():
        tokens = torch.tensor([[stoi[c] for c in prompt]])
        logits, state = model(tokens)
        out = []
        for _ in range(length):
            nxt = logits[0, -1].argmax()
            out.append(itos[nxt.item()])
            logits, state = model(nxt.reshape(1, 1), state)
    model.train()
    return prompt + "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="a tiny run (3 epochs)")
    parser.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    args = parser.parse_args()
    epochs = 3 if args.quick else args.epochs

    torch.manual_seed(0)
    chars = sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    itos = {i: c for c, i in stoi.items()}
    data = torch.tensor([stoi[c] for c in TEXT])
    # overlapping windows: inputs are seq_len characters, targets the same shifted by one
    seq_len, stride = 32, 4
    starts = range(0, len(data) - seq_len - 1, stride)
    inputs = torch.stack([data[s:s + seq_len] for s in starts])
    targets = torch.stack([data[s + 1:s + seq_len + 1] for s in starts])
    print(f"{len(TEXT)} characters, vocabulary {len(chars)}, {len(inputs)} windows of {seq_len}")

    loader = DataLoader(TensorDataset(inputs, targets), batch_size=16, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = CharLSTM(len(chars))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    start = time.perf_counter()
    losses = []
    for epoch in range(1, epochs + 1):
        total, count = 0.0, 0
        for xb, yb in progress(loader, f"epoch {epoch}", not args.no_progress):
            logits, _ = model(xb)
            # cross_entropy wants (N, C): flatten batch and time together
            loss = F.cross_entropy(logits.reshape(-1, len(chars)), yb.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += loss.item() * len(yb)
            count += len(yb)
        losses.append(total / count)
        print(f"epoch {epoch:2d}  loss {losses[-1]:.4f}")
    print(f"trained {epochs} epochs in {time.perf_counter() - start:.1f}s")
    print(f"first epoch loss {losses[0]:.4f}, last epoch loss {losses[-1]:.4f}")
    print("sample:", repr(greedy_sample(model, "Alice was ", 80, stoi, itos)))


if __name__ == "__main__":
    main()

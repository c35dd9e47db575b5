# d2l.ai style RNN from scratch on a toy character corpus, with gradient clipping and perplexity
import math
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(7)
text = "the time machine by h g wells the time traveller for so it will be convenient to speak of him"
vocab = sorted(set(text))
char_to_idx = {c: i for i, c in enumerate(vocab)}
corpus = torch.tensor([char_to_idx[c] for c in text])
vocab_size = len(vocab)
print(vocab_size, corpus[:10])
print(F.one_hot(torch.tensor([0, 2]), vocab_size).shape)
num_steps, batch_size, num_hiddens = 8, 4, 32


def get_params(vocab_size, num_hiddens):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(size=shape) * 0.01

    W_xh = normal((num_inputs, num_hiddens))
    W_hh = normal((num_hiddens, num_hiddens))
    b_h = torch.zeros(num_hiddens)
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs)
    params = [W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_rnn_state(batch_size, num_hiddens):
    return (torch.zeros((batch_size, num_hiddens)),)


def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
        Y = torch.mm(H, W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size):
        return self.init_state(batch_size, self.num_hiddens)


net = RNNModelScratch(vocab_size, num_hiddens, get_params, init_rnn_state, rnn)
X = torch.arange(10).reshape((2, 5))
state = net.begin_state(X.shape[0])
Y, new_state = net(X, state)
print(Y.shape, len(new_state), new_state[0].shape)


def predict(prefix, num_preds, net):
    state = net.begin_state(batch_size=1)
    outputs = [char_to_idx[prefix[0]]]
    get_input = lambda: torch.tensor([outputs[-1]]).reshape((1, 1))
    for y in prefix[1:]:
        _, state = net(get_input(), state)
        outputs.append(char_to_idx[y])
    for _ in range(num_preds):
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return "".join([vocab[i] for i in outputs])


print(repr(predict("time ", 10, net)))


def grad_clipping(net, theta):
    params = net.params
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


def batches():
    starts = list(range(0, len(corpus) - num_steps - 1, num_steps))
    g = torch.Generator().manual_seed(1)
    order = torch.randperm(len(starts), generator=g).tolist()
    for i in range(0, len(order) - batch_size + 1, batch_size):
        idx = [starts[j] for j in order[i:i + batch_size]]
        X = torch.stack([corpus[s:s + num_steps] for s in idx])
        Y = torch.stack([corpus[s + 1:s + num_steps + 1] for s in idx])
        yield X, Y


loss = nn.CrossEntropyLoss()
lr = 1.0
for epoch in range(12):
    total, n = 0.0, 0
    for X, Y in batches():
        state = net.begin_state(batch_size=X.shape[0])
        y = Y.T.reshape(-1)
        y_hat, state = net(X, state)
        l = loss(y_hat, y.long()).mean()
        for p in net.params:
            p.grad = None
        l.backward()
        norm = grad_clipping(net, 1)
        with torch.no_grad():
            for p in net.params:
                p -= lr * p.grad
        total += l.item() * y.numel()
        n += y.numel()
    if epoch % 3 == 2:
        print(f"epoch {epoch + 1}: perplexity {math.exp(total / n):.3f}, grad norm {norm.item():.4f}")
print(repr(predict("time ", 12, net)))

# the same clipping with the library utilities
w = torch.ones(3, requires_grad=True)
(w * torch.tensor([3.0, 4.0, 12.0])).sum().backward()
print(nn.utils.clip_grad_norm_([w], max_norm=1.0), w.grad)
w.grad = torch.tensor([0.5, -3.0, 2.0])
nn.utils.clip_grad_value_([w], clip_value=1.0)
print(w.grad)
w.grad = torch.tensor([3.0, 4.0, 0.0])
print(nn.utils.clip_grad_norm_([w], 10.0, norm_type=1), nn.utils.clip_grad_norm_([w], 1.0, norm_type="inf"), w.grad)
print(nn.utils.get_total_norm([torch.tensor([3.0, 4.0]), torch.tensor([12.0])]))
g = [torch.tensor([3.0, 4.0])]
nn.utils.clip_grads_with_norm_([w], 2.0, nn.utils.get_total_norm([w.grad]))
print(w.grad, nn.utils.get_total_norm(torch.tensor([1.0, -2.0]), norm_type=1))

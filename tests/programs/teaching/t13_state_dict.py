import io
import torch
import torch.nn as nn

torch.set_printoptions(precision=3)
model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2), nn.ReLU(), nn.Linear(2, 1))
with torch.no_grad():
    for p in model.parameters():
        p.fill_(0.25)
sd = model.state_dict()
print(type(sd).__name__)
for k, v in sd.items():
    print(k, "\t", v.size(), v.dtype)
print(sd['0.weight'])
print(sd['1.num_batches_tracked'])
print(sd.keys())
print(model.state_dict()['1.running_mean'])
model(torch.arange(12.).reshape(4, 3))
print(model[1].running_mean, model[1].running_var, model[1].num_batches_tracked)
model2 = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2), nn.ReLU(), nn.Linear(2, 1))
print(model2.load_state_dict(sd))
print(torch.equal(model2[0].weight, model[0].weight))
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
loaded = torch.load(buf)
print(list(loaded.keys()))
print(loaded['3.bias'])
try:
    model2[0].load_state_dict({'weight': torch.zeros(2, 3)})
except RuntimeError as e:
    print("RuntimeError:", e)
res = model2[0].load_state_dict({'weight': torch.zeros(2, 3), 'extra': torch.ones(1)}, strict=False)
print(res.missing_keys, res.unexpected_keys)
try:
    model2.load_state_dict({**sd, '0.weight': torch.zeros(3, 3)})
except RuntimeError as e:
    print("RuntimeError:", e)
for name, buf in model.named_buffers():
    print(name, buf)
print([n for n, _ in model.named_modules()])
print([n for n, _ in model.named_children()])
model.eval()
print(model.training, model[1].training)
model.train()
print(model[1].training)
m = nn.Linear(2, 2)
m.requires_grad_(False)
print([p.requires_grad for p in m.parameters()])
print(m.weight.shape, m.weight.requires_grad)

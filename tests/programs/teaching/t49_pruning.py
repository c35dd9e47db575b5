# the pruning tutorial: random/L1/structured pruning, iterative pruning containers, global
# pruning, making pruning permanent and a custom pruning method
import torch
from torch import nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

torch.manual_seed(7)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 3)
        self.conv2 = nn.Conv2d(3, 4, 3)
        self.fc1 = nn.Linear(4 * 2 * 2, 12)
        self.fc2 = nn.Linear(12, 8)
        self.fc3 = nn.Linear(8, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


model = LeNet()
module = model.conv1
print(list(module.named_parameters()))
print(list(module.named_buffers()))
prune.random_unstructured(module, name="weight", amount=0.3)
print([name for name, _ in module.named_parameters()])
print(list(module.named_buffers()))
print(module.weight)
print(len(module._forward_pre_hooks), type(list(module._forward_pre_hooks.values())[0]).__name__)
prune.l1_unstructured(module, name="bias", amount=1)
print([name for name, _ in module.named_parameters()])
print(module.bias_mask, module.bias)
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight[:, 0])
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(type(hook).__name__, [type(m).__name__ for m in hook], len(hook))
print(model.state_dict().keys())
x = torch.randn(2, 1, 14, 14)
out = model(x)
out.sum().backward()
print(out.shape, module.weight_orig.grad.shape, (module.weight_orig.grad == 0).sum().item())
prune.remove(module, "weight")
print([name for name, _ in module.named_parameters()], [name for name, _ in module.named_buffers()])
print(prune.is_pruned(model), isinstance(module.weight, nn.Parameter))

new_model = LeNet()
for name, mod in new_model.named_modules():
    if isinstance(mod, torch.nn.Conv2d):
        prune.l1_unstructured(mod, name="weight", amount=0.2)
    elif isinstance(mod, torch.nn.Linear):
        prune.l1_unstructured(mod, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())

model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"),
    (model.fc2, "weight"), (model.fc3, "weight"),
)
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
for name in ["conv1", "conv2", "fc1", "fc2", "fc3"]:
    w = getattr(model, name).weight
    print(f"Sparsity in {name}.weight: {100. * float(torch.sum(w == 0)) / float(w.nelement()):.2f}%")
total = sum(float(torch.sum(getattr(model, n).weight == 0)) for n in ["conv1", "conv2", "fc1", "fc2", "fc3"])
count = sum(float(getattr(model, n).weight.nelement()) for n in ["conv1", "conv2", "fc1", "fc2", "fc3"])
print(f"Global sparsity: {100. * total / count:.2f}%")


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name="bias")
print(model.fc3.bias_mask)
prune.random_structured(model.fc1, "weight", amount=3, dim=1)
print(model.fc1.weight_mask.sum(0))
prune.custom_from_mask(model.fc2, "bias", mask=torch.tensor([1, 0, 1, 0, 1, 1, 1, 0]))
print(model.fc2.bias)
print(prune.L1Unstructured(amount=2).prune(torch.tensor([3.0, -1.0, 0.5, 2.0])))
for bad in [lambda: prune.l1_unstructured(model.fc2, "weight", amount=1.5),
            lambda: prune.l1_unstructured(model.fc2, "weight", amount=1000),
            lambda: prune.ln_structured(model.fc3, "bias", amount=1, n=1, dim=0),
            lambda: prune.remove(model.conv2, "weight"),
            lambda: prune.random_unstructured(model.fc2, "weight", amount="half")]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)

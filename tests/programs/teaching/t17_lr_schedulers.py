import torch
from torch.optim.lr_scheduler import StepLR, ExponentialLR, MultiStepLR, CosineAnnealingLR, LambdaLR, ReduceLROnPlateau

w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
opt = torch.optim.SGD([w], lr=0.1)
sched = StepLR(opt, step_size=3, gamma=0.5)
for epoch in range(8):
    opt.zero_grad()
    (w ** 2).sum().backward()
    opt.step()
    sched.step()
    print(epoch, sched.get_last_lr(), opt.param_groups[0]['lr'])
print(w)

opt = torch.optim.SGD([w], lr=1.0)
s = ExponentialLR(opt, gamma=0.9)
lrs = []
for _ in range(4):
    opt.step()
    s.step()
    lrs.append(s.get_last_lr()[0])
print(lrs)

opt = torch.optim.SGD([w], lr=0.5, momentum=0.9)
s = MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
for _ in range(6):
    opt.step()
    s.step()
    print(s.get_last_lr())

opt = torch.optim.Adam([w], lr=0.01)
s = CosineAnnealingLR(opt, T_max=5)
for _ in range(6):
    opt.step()
    s.step()
    print(round(s.get_last_lr()[0], 8))

opt = torch.optim.SGD([w], lr=0.2)
s = LambdaLR(opt, lr_lambda=lambda e: 1 / (e + 1))
for _ in range(3):
    opt.step()
    s.step()
print(s.get_last_lr(), s.last_epoch)
print(s.state_dict()['base_lrs'], s.state_dict()['last_epoch'])

opt = torch.optim.SGD([w], lr=1.0)
s = ReduceLROnPlateau(opt, mode='min', factor=0.5, patience=1)
for loss in [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]:
    opt.step()
    s.step(loss)
    print(opt.param_groups[0]['lr'])

opt = torch.optim.SGD([{'params': [w]}, {'params': [torch.nn.Parameter(torch.zeros(1))], 'lr': 0.01}], lr=0.1)
print(opt)
print([g['lr'] for g in opt.param_groups])
sched = StepLR(opt, step_size=1)
sched.step()
print(sched.get_last_lr())

import torch, pickle
import torch.nn as nn
x=torch.tensor([1.],requires_grad=True); y=x*2
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx,x): return x*2
    @staticmethod
    def backward(ctx,g): return g
z=F.apply(x)
y2=x*1; y2[0]=3
print(type(y.grad_fn), type(y.grad_fn.next_functions[0][0]), z.grad_fn, type(z.grad_fn), type(y2.grad_fn))
print(type(x), type(x.shape), type(torch.float32), type(torch.device('cpu')), type(torch.Generator()))
print(type(nn.Parameter(x)), nn.Linear, torch.optim.SGD, torch.utils.data.DataLoader, torch.no_grad, torch.optim.lr_scheduler.StepLR)
print(type(nn.functional.relu(x).grad_fn), type(nn.Linear(1,1)(x).grad_fn))
m = pickle.loads(pickle.dumps(nn.Linear(2, 2)))
print(m)
print(type(m))

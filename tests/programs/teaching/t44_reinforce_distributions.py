# policy-gradient (REINFORCE) on a toy bandit with torch.distributions, plus distribution basics
import torch
from torch import nn
from torch.distributions import Categorical, Normal, Bernoulli, Uniform, kl_divergence

torch.manual_seed(543)
probs = torch.tensor([0.1, 0.2, 0.7])
m = Categorical(probs)
print(m, m.probs, m.logits)
s = m.sample()
print(s, m.log_prob(s), m.entropy())
print(m.sample((5,)), Categorical(logits=torch.tensor([[0.0, 1.0], [2.0, 0.0]])).sample())
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(n, n.mean, n.stddev, n.variance)
x = n.sample()
print(x, n.log_prob(x), n.rsample((2,)).shape, n.cdf(torch.tensor([0.0, 1.0])))
b = Bernoulli(probs=torch.tensor([0.3, 0.9]))
print(b.sample(), b.log_prob(torch.tensor([1.0, 0.0])), b.entropy())
u = Uniform(0.0, 2.0)
print(u.sample((3,)), u.log_prob(torch.tensor(1.0)))
print(kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0)), kl_divergence(Categorical(probs), Categorical(torch.ones(3) / 3)))
mu = torch.tensor(0.5, requires_grad=True)
Normal(mu, 1.0).rsample().backward()
print(mu.grad)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(16, 3)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = torch.relu(x)
        action_scores = self.affine2(x)
        return torch.softmax(action_scores, dim=1)


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
eps = torch.finfo(torch.float32).eps
print(eps, torch.finfo(torch.float64).eps, torch.iinfo(torch.int32).max)
gamma = 0.99
payout = torch.tensor([0.2, 1.0, -0.5])


def select_action(state):
    state = state.float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


running_reward = 0.0
for i_episode in range(1, 16):
    state = torch.randn(4)
    ep_reward = 0.0
    for t in range(1, 8):
        action = select_action(state)
        reward = payout[action].item() + 0.1 * state[action].item()
        state = torch.randn(4)
        policy.rewards.append(reward)
        ep_reward += reward
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    if i_episode % 5 == 0:
        print(f"Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}\tloss {loss:.4f}")
policy.eval()
with torch.no_grad():
    print(policy(torch.zeros(1, 4)))

"""PyTorch reference for samples/cartpole: upstream's REINFORCE on the cart-pole, with the
environment written again in Python from its description (gym's CartPole-v1 physics).

  * environment (as tensorgrad/models/cartpole_env.*): state uniform in [-0.05, 0.05) per variable
    (four draws per reset); 20 ms Euler steps of force +-10 N, cart 1 kg, pole 0.1 kg with half
    length 0.5 m, g = 9.8; an episode ends once |x| > 2.4 or |theta| > 12 degrees (sin and cos
    by Taylor series, as the app); reward 1 per step, at most --max-t steps.
  * rollout: --envs episodes in lockstep; each time step one policy run for all states, then one
    draw per live episode (env order) picks the action from its probabilities; returns discounted
    by 0.99, normalized over the live slots (mean 0, population deviation + 1e-8).
  * policy (tensorgrad/models/cartpole.h): 4 -> 16 (tanh) -> 2 logits; loss = -sum(log p(action) *
    return * mask) / (maxT * envs); Adam 5e-3 (tensorgrad's: common.Adam).
  * init: tensorgrad's numbers for a seed (Mulberry32(seed), Box-Muller, W ~ N(0, 0.02^2), b = 0);
    resets and action draws share Mulberry32(seed ^ 0x9e3779b9) as the app, so seed 42 starts as
    the app's default run (sampling makes runs part ways once float rounding flips one action).
  * after training, ceil(--eval-episodes / envs) rollouts of the greedy (argmax) policy.
  * metrics as the app's: firstMeanEpisodeLength, lastMeanEpisodeLength10 (mean over the last 10
    rollouts), greedyMeanEpisodeLength.

  /usr/bin/python3 samples/reference/cartpole.py --steps 150 --seeds 5 --json /tmp/refs/cartpole.json
"""
import argparse
import math

from common import Adam, Mulberry32, cos_series, f32, init_linears, sin_series, torch, write

torch.set_num_threads(1)

GAMMA, GRAVITY, M_CART, M_POLE, HALF_LEN, FORCE, TAU = 0.99, 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
TOTAL, POLE_ML = M_CART + M_POLE, M_POLE * HALF_LEN
X_BOUND, THETA_BOUND = 2.4, 12 * math.pi / 180


def reset(rng):
    return [(rng.next() - 0.5) * 0.1 for _ in range(4)] + [False]  # x, x', theta, theta', done


def step(s, action):
    x, x_dot, theta, theta_dot, _ = s
    force = FORCE if action == 1 else -FORCE
    ct, st = cos_series(theta), sin_series(theta)
    temp = (force + POLE_ML * theta_dot * theta_dot * st) / TOTAL
    theta_acc = (GRAVITY * st - ct * temp) / (HALF_LEN * (4.0 / 3.0 - M_POLE * ct * ct / TOTAL))
    x_acc = temp - POLE_ML * theta_acc * ct / TOTAL
    n = [x + TAU * x_dot, x_dot + TAU * x_acc, theta + TAU * theta_dot, theta_dot + TAU * theta_acc]
    return n + [abs(n[0]) > X_BOUND or abs(n[2]) > THETA_BOUND]


def rollout(policy, rng, envs, max_t, greedy):
    """One lockstep rollout: (time-major slot tensors, episode lengths)."""
    games = [reset(rng) for _ in range(envs)]
    slots = max_t * envs
    states, actions, mask = [[0.0] * 4 for _ in range(slots)], [0] * slots, [0.0] * slots
    lengths = [0] * envs
    for t in range(max_t):
        live = [not g[4] for g in games]
        if not any(live):
            break
        current = [[f32(v) for v in g[:4]] for g in games]
        with torch.no_grad():
            probs = torch.softmax(policy(torch.tensor(current)), -1).tolist()
        for i in range(envs):
            if not live[i]:
                continue
            if greedy:
                a = 0 if probs[i][0] >= probs[i][1] else 1
            else:  # main.ts's sampleCategorical with one uniform
                u, a = rng.next(), len(probs[i]) - 1
                for k, p in enumerate(probs[i]):
                    u -= p
                    if u < 0:
                        a = k
                        break
            idx = t * envs + i
            states[idx], actions[idx], mask[idx] = current[i], a, 1.0
            lengths[i] += 1
            games[i] = step(games[i], a)
    returns = [0.0] * slots
    for i in range(envs):
        acc = 0.0
        for t in reversed(range(max_t)):
            if mask[t * envs + i]:
                acc = 1.0 + GAMMA * acc
                returns[t * envs + i] = f32(acc)
    live_returns = [r for r, m in zip(returns, mask) if m]
    mean = sum(live_returns) / len(live_returns)
    sd = math.sqrt(sum((r - mean) ** 2 for r in live_returns) / len(live_returns)) + 1e-8
    returns = [(r - mean) / sd if m else 0.0 for r, m in zip(returns, mask)]
    feed = (torch.tensor(states), torch.tensor(actions), torch.tensor(returns), torch.tensor(mask))
    return feed, lengths


def run(a, seed):
    l1, l2 = torch.nn.Linear(4, 16), torch.nn.Linear(16, 2)
    init_linears(seed, [l1, l2])
    policy = torch.nn.Sequential(l1, torch.nn.Tanh(), l2)
    opt = Adam(policy.parameters(), lr=5e-3)
    rng, means, losses = Mulberry32(seed ^ 0x9E3779B9), [], []
    for _ in range(a.steps):
        (states, actions, returns, mask), lengths = rollout(policy, rng, a.envs, a.max_t, greedy=False)
        means.append(sum(lengths) / len(lengths))
        taken = torch.log_softmax(policy(states), -1).gather(1, actions.unsqueeze(1)).squeeze(1)
        loss = -(taken * returns * mask).sum() / (a.max_t * a.envs)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    rounds = -(-a.eval_episodes // a.envs)
    greedy = sum(sum(ls) / len(ls) for ls in (rollout(policy, rng, a.envs, a.max_t, True)[1]
                                               for _ in range(rounds))) / rounds
    last10 = sum(means[-10:]) / len(means[-10:])
    print(f"seed {seed}: mean episode length {means[0]:.1f} at the first rollout, {last10:.1f} over the last 10; "
          f"greedy {greedy:.1f} over {rounds * a.envs} episodes", flush=True)
    return {"seed": seed, "finalLoss": loss.item(), "firstMeanEpisodeLength": means[0],
            "lastMeanEpisodeLength10": last10, "greedyMeanEpisodeLength": greedy,
            "meanLengths": means, "losses": losses}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=150, help="rollouts, one training step each")
    ap.add_argument("--envs", type=int, default=16, help="episodes per rollout")
    ap.add_argument("--max-t", type=int, default=200, help="longest episode")
    ap.add_argument("--eval-episodes", type=int, default=32, help="greedy episodes after training")
    ap.add_argument("--seed", type=int, default=42, help="init and draws, as cartpole --seed")
    ap.add_argument("--seeds", type=int, default=3, help="runs with seeds --seed .. --seed+N-1")
    ap.add_argument("--json", help="write the runs and their spread here (for check.py)")
    a = ap.parse_args()
    runs = [run(a, a.seed + i) for i in range(a.seeds)]
    write(a.json, "cartpole", {"steps": a.steps, "envs": a.envs, "max_t": a.max_t}, runs,
          ["firstMeanEpisodeLength", "lastMeanEpisodeLength10", "greedyMeanEpisodeLength"])


if __name__ == "__main__":
    main()

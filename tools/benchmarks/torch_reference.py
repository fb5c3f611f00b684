"""PyTorch twins of gosbi's training-step benchmarks, timed in the same run as the Go ones.

PyTorch runs in float32, its default and what its users train in. Each function builds the same shapes as the Go benchmark it is named after (two_moons-like
pairs: 2 parameters, 2 data values, batch 128) and returns the median wall time of one step in
milliseconds. Run by `go run ./tools/benchmarks` with Debian's python3-torch; prints JSON.
"""
import json
import statistics
import sys
import time

import torch
import torch.nn as nn

torch.set_num_threads(2)
torch.manual_seed(1)
BATCH = 128


def mlp(sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def timed(step, seconds):
    for _ in range(20):
        step()
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 20:
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def nre_step(hidden, balance=0.0):
    """Ratio estimator step: joint and shuffled pairs in one stacked batch, the mean of the two
    classes' binary cross-entropies (plus λ·(E_joint σ + E_marg σ − 1)² for BNRE), clipping at
    norm 5, Adam."""
    net = mlp([4] + hidden + [1])
    opt = torch.optim.Adam(net.parameters(), lr=5e-4)
    theta = torch.rand(4096, 2) * 2 - 1
    x = theta + 0.1 * torch.randn(4096, 2)
    bce = nn.BCEWithLogitsLoss()
    ones = torch.ones(BATCH, 1)
    zeros = torch.zeros(BATCH, 1)

    def step():
        idx = torch.randint(0, 4096, (BATCH,))
        th, xb = theta[idx], x[idx]
        inp = torch.cat([torch.cat([th, xb], 1), torch.cat([th.roll(1, 0), xb], 1)], 0)
        out = net(inp)
        lj, lm = out[:BATCH], out[BATCH:]
        loss = (bce(lj, ones) + bce(lm, zeros)) / 2
        if balance:
            loss = loss + balance * (torch.sigmoid(lj).mean() + torch.sigmoid(lm).mean() - 1) ** 2
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        opt.step()

    return step


def mlp_step():
    """One Adam step of an 8 → 128 → 128 → 1 ReLU MLP on 512 rows with a squared error."""
    net = mlp([8, 128, 128, 1])
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.rand(512, 8) * 2 - 1
    y = torch.rand(512, 1) * 2 - 1

    def step():
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def conv_step(dims, cin, cout, backward):
    """A convolution layer (kernel 5, padding 2 for series; 3×3, padding 1 for images) on the
    shapes of the Go benchmarks BenchmarkConv{1D,2D}[Layer2]Forward[Backward]: the forward
    pass alone without gradients, or forward and backward with gradients for the input, the
    weights and the bias (the upstream gradient given)."""
    if dims == 1:
        conv = nn.Conv1d(cin, cout, 5, padding=2)
        x = torch.rand(200, cin, 100) * 2 - 1
    else:
        conv = nn.Conv2d(cin, cout, 3, padding=1)
        x = torch.rand(64, cin, 28, 28) * 2 - 1
    if not backward:
        def fwd():
            with torch.no_grad():
                conv(x)
        return fwd
    x.requires_grad_(True)
    grad = torch.randn_like(conv(x))

    def step():
        x.grad = None
        conv.zero_grad()
        conv(x).backward(grad)

    return step


CASES = {
    "nre-step-3x64": lambda: nre_step([64, 64, 64]),
    "nre-step-2x64": lambda: nre_step([64, 64]),
    "bnre-step-3x64": lambda: nre_step([64, 64, 64], balance=100.0),
    "mlp-step": mlp_step,
    "conv1d-fwd": lambda: conv_step(1, 2, 16, False),
    "conv1d-fwdbwd": lambda: conv_step(1, 2, 16, True),
    "conv1d-l2-fwd": lambda: conv_step(1, 16, 32, False),
    "conv1d-l2-fwdbwd": lambda: conv_step(1, 16, 32, True),
    "conv2d-fwd": lambda: conv_step(2, 1, 16, False),
    "conv2d-fwdbwd": lambda: conv_step(2, 1, 16, True),
    "conv2d-l2-fwd": lambda: conv_step(2, 16, 32, False),
    "conv2d-l2-fwdbwd": lambda: conv_step(2, 16, 32, True),
}

if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "ms": {}}
    steps = {name: make() for name, make in CASES.items()}
    for step in steps.values():  # warm every case first: the first timed case paid for the
        timed(step, seconds / 4)  # thread pool's start-up
    for name, step in steps.items():
        out["ms"][name] = timed(step, seconds)
    json.dump(out, sys.stdout)

"""PyTorch twins of gosbi's training-step benchmarks, timed in the same run as the Go ones.

PyTorch runs in float32, its default and what its users train in. Each function builds the same shapes as the Go benchmark it is named after (two_moons-like
pairs: 2 parameters, 2 data values, batch 128) and returns the median wall time of one step in
milliseconds. Run by `go run ./tools/benchmarks` with Debian's python3-torch as
`torch_reference.py SECONDS [CASE...]` (the cases named, or all); prints JSON.
"""
import json
import math
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


def timed(step, seconds, min_runs=20):
    for _ in range(min_runs):
        step()
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < min_runs:
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


def fmpe_step():
    """Flow-matching step of sbi's default FMPE field, as BenchmarkFMPEStep builds it: an MLP
    on [θ_t, cos kπt, sin kπt (k = 1, 2, 3), x] (10 inputs) with five hidden layers of 64 and
    ELU; per pair a fresh t ~ U(0, 1) and ε ~ N(0, I), θ_t = (1 − (1 − σ_min)t)ε + tθ, the
    squared error against u_t = θ − (1 − σ_min)ε averaged over pairs and features; clipping at
    norm 5, Adam."""
    sizes = [10] + [64] * 5 + [2]
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ELU())
    net = nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=5e-4)
    theta = torch.randn(4096, 2)
    x = theta + 0.1 * torch.randn(4096, 2)
    freqs = torch.arange(1, 4, dtype=torch.float32) * torch.pi
    s = 1 - 1e-3

    def step():
        idx = torch.randint(0, 4096, (BATCH,))
        th, xb = theta[idx], x[idx]
        t = torch.rand(BATCH, 1)
        eps = torch.randn(BATCH, 2)
        th_t = (1 - s * t) * eps + t * th
        u = th - s * eps
        inp = torch.cat([th_t, torch.cos(t * freqs), torch.sin(t * freqs), xb], 1)
        loss = ((net(inp) - u) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        opt.step()

    return step


def fixed_field():
    """sbi's default FMPE field (as fmpe_step) with the fixed weights of gosbi's benchField:
    w_ij = 2·sin(1 + 1.3i + 0.7j + 0.5l)/√fan-in (i the input, j the output of layer l) and
    b_j = 0.1·cos(1 + 0.9j + 0.5l), so that both integrate the same ODE."""
    sizes = [10] + [64] * 5 + [2]
    layers = []
    for l in range(len(sizes) - 1):
        lin = nn.Linear(sizes[l], sizes[l + 1])
        i = torch.arange(sizes[l], dtype=torch.float32).view(-1, 1)
        j = torch.arange(sizes[l + 1], dtype=torch.float32).view(1, -1)
        with torch.no_grad():
            lin.weight.copy_((2 * torch.sin(1 + 1.3 * i + 0.7 * j + 0.5 * l) / math.sqrt(sizes[l])).t())
            lin.bias.copy_(0.1 * torch.cos(1 + 0.9 * j.view(-1) + 0.5 * l))
        layers.append(lin)
        if l < len(sizes) - 2:
            layers.append(nn.ELU())
    return nn.Sequential(*layers)


# Dormand–Prince 5(4): nodes, stage weights (the last row is the 5th-order solution) and the
# weights of the error estimate (Hairer, Nørsett and Wanner, Solving ODEs I, Table 5.2).
DP_C = [0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1]
DP_A = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
        [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
        [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
        [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
DP_E = [71 / 57600, 0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40]


def solve_rows(f, y, rtol, atol):
    """Integrates dy/dt = f(t, y) for every row from t = 0 to 1 with a step size per row, as
    gosbi's ode.SolveRows: Hairer's initial step per row, the RMS error norm of a row, the
    controller h·min(5, max(0.2, 0.9·err^(−1/5))), every row evaluated at every stage until the
    slowest row is done."""
    n = y.shape[0]
    t = torch.zeros(n, 1)
    k0 = f(t, y)
    sc = atol + rtol * y.abs()
    d0 = (y / sc).pow(2).mean(1, keepdim=True).sqrt()
    d1 = (k0 / sc).pow(2).mean(1, keepdim=True).sqrt()
    h0 = torch.where((d0 >= 1e-5) & (d1 >= 1e-5), 0.01 * d0 / d1, torch.full_like(d0, 1e-6))
    d2 = ((f(t + h0, y + h0 * k0) - k0) / sc).pow(2).mean(1, keepdim=True).sqrt() / h0
    m = torch.maximum(d1, d2)
    h1 = torch.where(m <= 1e-15, torch.clamp(h0 * 1e-3, min=1e-6), (0.01 / m).pow(0.2))
    h = torch.minimum(100 * h0, h1)
    done = torch.zeros(n, 1, dtype=torch.bool)
    while not bool(done.all()):
        last = t + h >= 1
        hs = torch.where(done, torch.zeros_like(h), torch.where(last, 1 - t, h))
        ks = [k0]
        for st in range(1, 7):
            acc = y
            for jj, a in enumerate(DP_A[st]):
                acc = acc + hs * a * ks[jj]
            ks.append(f(t + DP_C[st] * hs, acc))
        err = hs * sum(e * k for e, k in zip(DP_E, ks))
        norm = (err / (atol + rtol * torch.maximum(y.abs(), acc.abs()))).pow(2).mean(1, keepdim=True).sqrt()
        factor = (0.9 * norm.clamp(min=1e-10).pow(-0.2)).clamp(0.2, 5)
        accept = (norm <= 1) & ~done
        reject = (norm > 1) & ~done
        y = torch.where(accept, acc, y)
        k0 = torch.where(accept, ks[6], k0)
        t = torch.where(accept, torch.where(last, torch.ones_like(t), t + hs), t)
        done = done | (accept & last)
        h = torch.where(reject, hs * factor.clamp(max=1), torch.where(accept, hs * factor, h))
    return y


def fmpe_sample():
    """gosbi's BenchmarkFMPESample10k: the fixed field at x = (0.5, −0.3), integrated from
    standard normal draws at sbi's tolerances (RelTol 10⁻⁵, AbsTol 10⁻⁶) by solve_rows, on
    10,000 rows (the benchmark's normal prior rejects none)."""
    net = fixed_field()
    xo = torch.tensor([[0.5, -0.3]])
    freqs = torch.arange(1, 4, dtype=torch.float32) * torch.pi

    def v(t, y):
        return net(torch.cat([y, torch.cos(t * freqs), torch.sin(t * freqs), xo.expand(y.shape[0], 2)], 1))

    @torch.no_grad()
    def run():
        return solve_rows(v, torch.randn(10000, 2), 1e-5, 1e-6)

    return run


def conv_step(dims, cin, cout, backward, dtype=torch.float32):
    """A convolution layer (kernel 5, padding 2 for series; 3×3, padding 1 for images) on the
    shapes of the Go benchmarks BenchmarkConv{1D,2D}[Layer2]Forward[Backward]: the forward
    pass alone without gradients, or forward and backward with gradients for the input, the
    weights and the bias (the upstream gradient given). In float32 (PyTorch's default) or in
    float64, gosbi's precision."""
    if dims == 1:
        conv = nn.Conv1d(cin, cout, 5, padding=2, dtype=dtype)
        x = torch.rand(200, cin, 100, dtype=dtype) * 2 - 1
    else:
        conv = nn.Conv2d(cin, cout, 3, padding=1, dtype=dtype)
        x = torch.rand(64, cin, 28, 28, dtype=dtype) * 2 - 1
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


class MADE(nn.Module):
    """gosbi's MADE (sbi/flow/made.go): input feature d has degree d+1 and the context degree 0;
    with a context, hidden unit k has degree k mod D; an output of feature d sees hidden units
    of degree < d+1. Masked weights as nflows' MaskedLinear: F.linear(x, W*mask, b)."""

    def __init__(self, features, context, hidden, per_feature):
        super().__init__()
        degrees_in = [d + 1 for d in range(features)] + [0] * context
        self.layers = nn.ModuleList()
        self.masks = []
        d_in = torch.tensor(degrees_in)
        for h in hidden:
            d_out = torch.tensor([k % features for k in range(h)])
            self.layers.append(nn.Linear(len(d_in), h))
            self.masks.append((d_out[:, None] >= d_in[None, :]).float())
            d_in = d_out
        d_out = torch.tensor([d + 1 for d in range(features) for _ in range(per_feature)])
        self.layers.append(nn.Linear(len(d_in), len(d_out)))
        self.masks.append((d_out[:, None] > d_in[None, :]).float())
        self.features, self.per = features, per_feature

    def forward(self, x, context):
        h = torch.cat([x, context], 1)
        for i, (lin, mask) in enumerate(zip(self.layers, self.masks)):
            h = torch.nn.functional.linear(h, lin.weight * mask, lin.bias)
            if i < len(self.layers) - 1:
                h = torch.tanh(h)
        return h.view(-1, self.features, self.per)


SOFTPLUS_ONE = math.log(math.e - 1)


class MAF(nn.Module):
    """gosbi's MAF (sbi/flow): transforms y = x·scale + shift with scale = softplus(r + log(e−1))
    + 10⁻³ from a MADE of the preceding features and the context, the feature order reversed
    between transforms, a standard normal base; log q(x | context)."""

    def __init__(self, features, context, transforms=5, hidden=(50, 50)):
        super().__init__()
        self.mades = nn.ModuleList(MADE(features, context, list(hidden), 2) for _ in range(transforms))
        self.features = features

    def log_prob(self, x, context):
        logdet = torch.zeros(x.shape[0])
        for k, made in enumerate(self.mades):
            p = made(x, context)
            scale = torch.nn.functional.softplus(p[:, :, 1] + SOFTPLUS_ONE) + 1e-3
            x = x * scale + p[:, :, 0]
            logdet = logdet + torch.log(scale).sum(1)
            if k < len(self.mades) - 1:
                x = x.flip(1)
        base = -0.5 * (x ** 2).sum(1) - 0.5 * self.features * math.log(2 * math.pi)
        return base + logdet


def nle_step():
    """NLE step with sbi's default likelihood flow (as gosbi's BenchmarkNLEStep): MAF, 5
    transforms, MADEs of 2×50 tanh, x of 2 values given θ of 2, batch 128, −mean log q(x | θ),
    clipping at norm 5, Adam."""
    flow = MAF(2, 2)
    opt = torch.optim.Adam(flow.parameters(), lr=5e-4)
    theta = torch.randn(10000, 2)
    x = theta + 0.5 * torch.randn(10000, 2)

    def step():
        idx = torch.randint(0, 10000, (BATCH,))
        loss = -flow.log_prob(x[idx], theta[idx]).mean()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(flow.parameters(), 5.0)
        opt.step()

    return step


class AffineMADE(nn.Module):
    """A masked autoencoder for one affine autoregressive transform (as nflows builds sbi's
    MAF): inputs θ (degrees 1…D) and an unmasked context, hidden layers with degrees cycling
    through 1…D−1, tanh, and per feature a shift and a log-scale."""

    def __init__(self, d, context, hidden, layers):
        super().__init__()
        deg_in = torch.arange(1, d + 1)
        degs = [deg_in]
        sizes = [d] + [hidden] * layers
        self.lins, self.masks = nn.ModuleList(), []
        for i in range(layers):
            deg = torch.arange(hidden) % max(d - 1, 1) + 1
            self.lins.append(nn.Linear(sizes[i], hidden))
            self.masks.append((deg[:, None] >= degs[-1][None, :]).float())
            degs.append(deg)
        self.ctx = nn.Linear(context, hidden)
        deg_out = deg_in.repeat(2)
        self.out = nn.Linear(hidden, 2 * d)
        self.out_mask = (deg_out[:, None] > degs[-1][None, :]).float()

    def forward(self, theta, ctx):
        h = theta
        for i, lin in enumerate(self.lins):
            h = nn.functional.linear(h, lin.weight * self.masks[i], lin.bias)
            if i == 0:
                h = h + self.ctx(ctx)
            h = torch.tanh(h)
        out = nn.functional.linear(h, self.out.weight * self.out_mask, self.out.bias)
        return out.chunk(2, dim=1)


def npe_cnn_step():
    """One NPE training step on the shapes of BenchmarkNPECNNStep: θ of 2 values, series of
    100 steps × 2 channels, batch 128; sbi's CNNEmbedding (Conv1d 2→6 and 6→12, kernel 5,
    padding 2, ReLU, MaxPool1d(2), then 300 → 50 → 20) and a MAF of 5 transforms with MADEs of
    2×50 (tanh), reversing the features between transforms; loss −mean log q(θ | x), clipping
    at norm 5, Adam."""
    emb = nn.Sequential(
        nn.Conv1d(2, 6, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
        nn.Conv1d(6, 12, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
        nn.Flatten(), nn.Linear(300, 50), nn.ReLU(), nn.Linear(50, 20))
    mades = nn.ModuleList(AffineMADE(2, 20, 50, 2) for _ in range(5))
    params = list(emb.parameters()) + list(mades.parameters())
    opt = torch.optim.Adam(params, lr=5e-4)
    theta = torch.rand(2000, 2) * 1.5 + 0.5
    x = torch.randn(2000, 2, 100)
    log2pi = torch.log(torch.tensor(2 * torch.pi))

    def step():
        idx = torch.randint(0, 2000, (BATCH,))
        z, ctx = theta[idx], emb(x[idx])
        logdet = torch.zeros(BATCH)
        for made in mades:
            shift, logscale = made(z, ctx)
            z = (z - shift) * torch.exp(-logscale)
            logdet = logdet - logscale.sum(1)
            z = z.flip(1)
        logq = -0.5 * (z ** 2).sum(1) - log2pi + logdet
        loss = -logq.mean()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 5.0)
        opt.step()

    return step


def nle_slice(draws=10000, chains=100, burn_in=200, thin=5):
    """10,000 posterior draws of an NLE by gosbi's slice sampler (sbi/slice.go: coordinate-wise
    stepping out and shrinkage, Neal 2003, vectorised over chains, each evaluation a batch of
    the chains that need it; widths twice the chains' spread, adapted during burn-in; starts by
    importance resampling of 1000 prior draws), as gosbi's BenchmarkNLESlice10k: the MAF above,
    untrained, so that the posterior is close to the prior U(−1, 1)² on both sides."""
    flow = MAF(2, 2)
    xo = torch.tensor([[0.1, -0.2]])

    @torch.no_grad()
    def logp(theta):  # the flow only inside the prior's box, as gosbi's RatioPosterior.LogProb
        out = torch.full((theta.shape[0],), -math.inf)
        inside = (theta.abs() <= 1).all(1)
        if inside.any():
            th = theta[inside]
            out[inside] = flow.log_prob(xo.expand(th.shape[0], 2), th) + math.log(0.25)
        return out

    def adapt(state):
        w = 2 * state.std(0, unbiased=False)
        return torch.where(w > 1e-8, w, torch.clamp(0.1 * state.mean(0).abs(), min=1e-2))

    def update(state, lp, width, d):
        C = state.shape[0]
        y = lp - torch.empty(C).exponential_()
        left = state[:, d] - width[d] * torch.rand(C)
        right = left + width[d]
        for end, sign in ((left, -1.0), (right, 1.0)):
            active = torch.arange(C)
            for _ in range(50):
                if len(active) == 0:
                    break
                pts = state[active].clone()
                pts[:, d] = end[active]
                inside = logp(pts) > y[active]
                end[active[inside]] += sign * width[d]
                active = active[inside]
        active = torch.arange(C)
        for _ in range(100):
            if len(active) == 0:
                break
            prop = left[active] + torch.rand(len(active)) * (right[active] - left[active])
            pts = state[active].clone()
            pts[:, d] = prop
            v = logp(pts)
            ok = v > y[active]
            acc = active[ok]
            state[acc, d] = prop[ok]
            lp[acc] = v[ok]
            rej, prej = active[~ok], prop[~ok]
            below = prej < state[rej, d]
            left[rej[below]] = prej[below]
            right[rej[~below]] = prej[~below]
            active = rej

    def run():
        cand = torch.rand(1000, 2) * 2 - 1
        w = torch.softmax(logp(cand), 0)
        state = cand[torch.multinomial(w, chains, replacement=True)].clone()
        lp = logp(state)
        width = adapt(state)
        out = torch.empty(draws, 2)
        got = 0
        per_chain = (draws + chains - 1) // chains
        for sweep in range(1, burn_in + per_chain * thin + 1):
            for d in range(2):
                update(state, lp, width, d)
            if sweep <= burn_in:
                width = adapt(state)
            elif (sweep - burn_in) % thin == 0:
                take = min(chains, draws - got)
                out[got:got + take] = state[:take]
                got += take
        return out

    return run


CASES = {
    "nre-step-3x64": lambda: nre_step([64, 64, 64]),
    "nre-step-2x64": lambda: nre_step([64, 64]),
    "bnre-step-3x64": lambda: nre_step([64, 64, 64], balance=100.0),
    "mlp-step": mlp_step,
    "fmpe-step": fmpe_step,
    "fmpe-sample-10k": fmpe_sample,
    "conv1d-fwd": lambda: conv_step(1, 2, 16, False),
    "conv1d-fwdbwd": lambda: conv_step(1, 2, 16, True),
    "conv1d-l2-fwd": lambda: conv_step(1, 16, 32, False),
    "conv1d-l2-fwdbwd": lambda: conv_step(1, 16, 32, True),
    "conv2d-fwd": lambda: conv_step(2, 1, 16, False),
    "conv2d-fwdbwd": lambda: conv_step(2, 1, 16, True),
    "conv2d-l2-fwd": lambda: conv_step(2, 16, 32, False),
    "conv2d-l2-fwdbwd": lambda: conv_step(2, 16, 32, True),
    "conv1d-fwd-f64": lambda: conv_step(1, 2, 16, False, torch.float64),
    "conv1d-fwdbwd-f64": lambda: conv_step(1, 2, 16, True, torch.float64),
    "conv1d-l2-fwd-f64": lambda: conv_step(1, 16, 32, False, torch.float64),
    "conv1d-l2-fwdbwd-f64": lambda: conv_step(1, 16, 32, True, torch.float64),
    "conv2d-fwd-f64": lambda: conv_step(2, 1, 16, False, torch.float64),
    "conv2d-fwdbwd-f64": lambda: conv_step(2, 1, 16, True, torch.float64),
    "conv2d-l2-fwd-f64": lambda: conv_step(2, 16, 32, False, torch.float64),
    "conv2d-l2-fwdbwd-f64": lambda: conv_step(2, 16, 32, True, torch.float64),
    "nle-maf-step": nle_step,
    "nle-maf-slice-10k": nle_slice,
    "npe-cnn-step": npe_cnn_step,
}

# Cases that take seconds each run: timed over this many runs (the median), not 20.
RUNS = {"nle-maf-slice-10k": 1}

if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    wanted = set(sys.argv[2:]) or set(CASES)  # the cases named after the seconds, or all
    out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "ms": {}}
    steps = {name: make() for name, make in CASES.items() if name in wanted}
    for name, step in steps.items():  # warm every case first: the first timed case paid for
        timed(step, seconds / 4, RUNS.get(name, 20))  # the thread pool's start-up
    for name, step in steps.items():
        out["ms"][name] = timed(step, seconds, RUNS.get(name, 20))
    json.dump(out, sys.stdout)

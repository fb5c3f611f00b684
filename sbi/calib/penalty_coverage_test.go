package calib

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
)

// refRanks is eq. 14 of Falkiewicz et al. (2023) in plain Go on given draws (row i·L+j is the
// j-th draw of pair i) with their proposal log densities; indicator maps the pair index, draw
// index and d = log q* − log qⱼ to the indicator's value. NaN marks a pair without weight.
func refRanks(g *gaussModel, theta, x, draws *mat.Dense, logI []float64, L int,
	indicator func(i, j int, d float64) float64) []float64 {
	n, _ := theta.Dims()
	alpha := make([]float64, n)
	for i := range alpha {
		star := g.logQ(theta.RawRowView(i), x.RawRowView(i))
		lw := make([]float64, L)
		m := math.Inf(-1)
		for j := range lw {
			lw[j] = g.logQ(draws.RawRowView(i*L+j), x.RawRowView(i)) - logI[i*L+j]
			m = max(m, lw[j])
		}
		var num, den float64
		for j, v := range lw {
			w := math.Exp(v - m)
			lq := v + logI[i*L+j]
			num += w * indicator(i, j, star-lq)
			den += w
		}
		alpha[i] = num / den
	}
	return alpha
}

func step(_, _ int, d float64) float64 {
	if d > 0 {
		return 1
	}
	return 0
}

// refPenalty is the sort-based penalty in plain Go; NaN ranks are left out.
func refPenalty(alpha []float64, lambda, mix float64, q Quantiles) float64 {
	var a []float64
	for _, v := range alpha {
		if !math.IsNaN(v) {
			a = append(a, v)
		}
	}
	slices.Sort(a)
	m := float64(len(a))
	denom := m + 1
	if q == QuantilesECDF {
		denom = m
	}
	s := 0.0
	for i, v := range a {
		d := float64(i+1)/denom - v
		r := (1-mix)*math.Max(d, 0) + mix*d
		s += r * r
	}
	return lambda * s / m
}

// replayDraws returns the proposal draws Coverage makes from a batch built with seed.
func replayDraws(prop dist.Distribution, seed uint64, n int) (*mat.Dense, []float64) {
	draws := prop.Sample(rand.New(rand.NewPCG(seed, 7)), n)
	return draws, prop.LogProb(draws)
}

// The tape's ranks and penalty are eq. 14 and the sorted penalty on the same draws, for each
// objective, quantile convention and proposal.
func TestCoverageMatchesReference(t *testing.T) {
	const n, L = 40, 8
	theta, x := simulate(rand.New(rand.NewPCG(1, 1)), n)
	wide := dist.NewNormal([]float64{0.3, -0.2}, []float64{2, 1.5})
	cases := []struct {
		name string
		cfg  CoverageRegularizerConfig
		mix  float64
		q    Quantiles
		prop dist.Distribution
	}{
		{"conservative", CoverageRegularizerConfig{}, 0, QuantilesMean, nil},
		{"calibration", CoverageRegularizerConfig{Mixture: 1}, 1, QuantilesMean, nil},
		{"mixture", CoverageRegularizerConfig{Mixture: 0.3}, 0.3, QuantilesMean, nil},
		{"ecdf", CoverageRegularizerConfig{Quantiles: QuantilesECDF}, 0, QuantilesECDF, nil},
		{"proposal", CoverageRegularizerConfig{Proposal: wide, Mixture: 1}, 1, QuantilesMean, wide},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := exactGauss(0.7)
			tp := nn.NewTape()
			b := gaussBatch(tp, g, theta, x, 3)
			cfg := c.cfg
			cfg.Lambda, cfg.Samples = 2.5, L
			reg := NewCoverageRegularizer(cfg)
			pen, err := reg.Penalty(b)
			if err != nil {
				t.Fatal(err)
			}
			prop := c.prop
			if prop == nil {
				prop = b.Prior
			}
			draws, logI := replayDraws(prop, 3, n*L)
			want := refPenalty(refRanks(g, theta, x, draws, logI, L, step), 2.5, c.mix, c.q)
			if got := pen.Item(); math.Abs(got-want) > 1e-12*math.Max(1, want) {
				t.Errorf("penalty %.15g, reference %.15g", got, want)
			}
		})
	}
}

// closedFormRank is the exact HPD rank of θ* under a 2-D Gaussian with diagonal covariance:
// {θ : q(θ) < q(θ*)} is the outside of the ellipse through θ*, whose mass is exp(−‖z*‖²/2).
func closedFormRank(g *gaussModel, theta, x []float64) float64 {
	z2 := 0.0
	for k := range theta {
		z := (theta[k] - g.a.Data[k]*x[k] - g.mu.Data[k]) / math.Exp(g.logStd.Data[k])
		z2 += z * z
	}
	return math.Exp(-z2 / 2)
}

// With many draws the importance-sampling ranks agree with the closed-form HPD ranks, for the
// prior and for another proposal (the −log I terms matter there).
func TestCoverageRanksClosedForm(t *testing.T) {
	const n, L = 32, 4000
	theta, x := simulate(rand.New(rand.NewPCG(2, 2)), n)
	for _, prop := range []dist.Distribution{nil, dist.NewNormal([]float64{0.5, 0}, []float64{1.5, 2})} {
		g := exactGauss(1)
		tp := nn.NewTape()
		b := gaussBatch(tp, g, theta, x, 5)
		reg := NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 1, Samples: L, Proposal: prop})
		alpha, invalid, err := reg.ranks(b)
		if err != nil || invalid != nil {
			t.Fatal(err, invalid)
		}
		if prop == nil {
			prop = b.Prior
		}
		draws, logI := replayDraws(prop, 5, n*L)
		// Standard error of each self-normalised estimate by the delta method:
		// se² = Σⱼ w̄ⱼ² (1ⱼ − α)² with normalised weights w̄ and the exact α (Owen 2013, §9.2).
		sumZ2 := 0.0
		for i := 0; i < n; i++ {
			star := g.logQ(theta.RawRowView(i), x.RawRowView(i))
			var lw []float64
			m := math.Inf(-1)
			for j := 0; j < L; j++ {
				v := g.logQ(draws.RawRowView(i*L+j), x.RawRowView(i)) - logI[i*L+j]
				lw = append(lw, v)
				m = max(m, v)
			}
			var den float64
			for _, v := range lw {
				den += math.Exp(v - m)
			}
			a := alpha.Data[i]
			want := closedFormRank(g, theta.RawRowView(i), x.RawRowView(i))
			se2 := 0.0
			for j, v := range lw {
				w := math.Exp(v-m) / den
				d := step(0, 0, star-(v+logI[i*L+j])) - want
				se2 += w * w * d * d
			}
			// The realised weights never see a region no draw fell in (θ* at the mode, α → 1),
			// so add the variance of direct sampling from q, α(1−α)/L, as a floor.
			z := (a - want) / math.Sqrt(se2+want*(1-want)/L)
			if math.Abs(z) > 5 {
				t.Errorf("pair %d: rank %.4f, closed form %.4f (%.1f standard errors)", i, a, want, z)
			}
			sumZ2 += z * z
		}
		// Σ z² over 32 pairs is χ²₃₂ when the errors are the delta-method ones: 99.9% below 62.
		t.Logf("Σ z² = %.1f over %d pairs", sumZ2, n)
		if sumZ2 > 62 {
			t.Errorf("Σ z² = %.1f over %d pairs, want ≤ 62 (χ²₃₂ 99.9%% quantile)", sumZ2, n)
		}
	}
}

// The unit cases of the method note: the prior used as posterior and a too-wide posterior pay
// about nothing, a too-narrow posterior pays a large conservative penalty, and the calibration
// objective penalises the too-wide one as well.
func TestCoverageUnitCases(t *testing.T) {
	const n, L, batches = 128, 16, 20
	mean := func(g *gaussModel, mix float64) float64 {
		rng := rand.New(rand.NewPCG(9, 9))
		tp := nn.NewTape()
		s := 0.0
		for k := 0; k < batches; k++ {
			theta, x := simulate(rng, n)
			pen, err := NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 1, Samples: L, Mixture: mix}).Penalty(gaussBatch(tp, g, theta, x, uint64(k)))
			if err != nil {
				t.Fatal(err)
			}
			s += pen.Item()
			tp.Reset()
		}
		return s / batches
	}
	// Bound for a calibrated estimator. With exact uniform ranks the calibration penalty has
	// expectation (1/N) Σᵢ Var U₍ᵢ₎ = 1/(6(N+1)) (U₍ᵢ₎ ~ Beta(i, N+1−i)); the prior as posterior
	// gives the discrete ranks k/L, k uniform on {0..L}, within 1/(L+1) of a coupled uniform,
	// so its expected penalty is at most 2/(6(N+1)) + 2/(L+1)² ≈ 0.0095 in both objectives.
	calibrated := 2/(6.0*(n+1)) + 2/math.Pow(L+1, 2)
	// A posterior of width c times the exact one has ranks α = U^(1/c²); the exact-rank
	// penalty is ∫ max(u − u^(1/c²), 0)² du ≈ 0.22 for c = 0.3 (conservative), and
	// ∫ (u^(1/c²) − u)² du ≈ 0.20 for c = 3 (calibration). With L = 16 prior draws the weights
	// of the narrow posterior collapse on one or two draws, which pushes α̂ towards {0, 1} and
	// the penalty well below 0.22; "large" is taken as 4× the calibrated bound.
	for _, c := range []struct {
		name      string
		g         *gaussModel
		mix       float64
		low, high float64
	}{
		{"prior/conservative", priorGauss(), 0, 0, calibrated},
		{"prior/calibration", priorGauss(), 1, 0, calibrated},
		{"wide/conservative", exactGauss(3), 0, 0, calibrated},
		{"narrow/conservative", exactGauss(0.3), 0, 4 * calibrated, 1},
		{"wide/calibration", exactGauss(3), 1, 0.10, 1},
	} {
		got := mean(c.g, c.mix)
		t.Logf("%-20s mean penalty %.5f", c.name, got)
		if got < c.low || got > c.high {
			t.Errorf("%s: mean penalty %.5f, want in [%.4f, %.4f]", c.name, got, c.low, c.high)
		}
	}
	// The exact posterior (ranks noisy from importance sampling) sits far below the narrow one.
	if ex, na := mean(exactGauss(1), 0), mean(exactGauss(0.3), 0); ex > na/5 {
		t.Errorf("exact posterior penalty %.4f, narrow %.4f: want exact < narrow/5", ex, na)
	}
}

// gradient returns the tape gradient of the penalty with respect to the model's parameters
// (concatenated) and the penalty value, on the batch of seed 11.
func gradient(t *testing.T, g *gaussModel, theta, x *mat.Dense, reg sbi.Regularizer) ([]float64, float64) {
	t.Helper()
	tp := nn.NewTape()
	g.zeroGrad()
	return backward(t, g, reg, gaussBatch(tp, g, theta, x, 11))
}

// backward runs the penalty of the batch b backwards and returns the gradient with respect to
// the model's parameters (concatenated; zero them before building b) and the penalty value.
func backward(t *testing.T, g *gaussModel, reg sbi.Regularizer, b *sbi.RegBatch) ([]float64, float64) {
	t.Helper()
	pen, err := reg.Penalty(b)
	if err != nil {
		t.Fatal(err)
	}
	b.Tape.Backward(pen)
	var grad []float64
	for _, p := range g.params() {
		grad = append(grad, p.Grad...)
	}
	return grad, pen.Item()
}

// penaltyValue is the penalty on the batch of seed 11, without gradients.
func penaltyValue(t *testing.T, g *gaussModel, theta, x *mat.Dense, reg sbi.Regularizer) float64 {
	t.Helper()
	tp := nn.NewTape()
	tp.NoGrad = true
	pen, err := reg.Penalty(gaussBatch(tp, g, theta, x, 11))
	if err != nil {
		t.Fatal(err)
	}
	return pen.Item()
}

// finiteDiff is the central difference of f with respect to every parameter of g.
func finiteDiff(g *gaussModel, f func() float64) []float64 {
	const h = 1e-6
	var fd []float64
	for _, p := range g.params() {
		for k := range p.Data {
			v := p.Data[k]
			p.Data[k] = v + h
			up := f()
			p.Data[k] = v - h
			down := f()
			p.Data[k] = v
			fd = append(fd, (up-down)/(2*h))
		}
	}
	return fd
}

func closeSlices(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for k := range got {
		if math.Abs(got[k]-want[k]) > tol*math.Max(1, math.Abs(want[k])) {
			t.Errorf("%s: gradient %d is %.10g, finite differences %.10g", what, k, got[k], want[k])
		}
	}
}

// Where the indicator passes no gradient (a window far below every |log q* − log qⱼ|) the
// penalty is differentiable through the importance weights and the sort alone, and its tape
// gradient is the finite-difference gradient.
func TestCoverageGradientThroughWeights(t *testing.T) {
	const n, L = 24, 6
	theta, x := simulate(rand.New(rand.NewPCG(4, 4)), n)
	for _, mix := range []float64{0, 1, 0.5} {
		g := exactGauss(0.6)
		reg := NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 3, Samples: L, Mixture: mix, STE: STELog, STEWindow: 1e-9})
		grad, _ := gradient(t, g, theta, x, reg)
		fd := finiteDiff(g, func() float64 { return penaltyValue(t, g, theta, x, reg) })
		if slices.Max(fd) == 0 && slices.Min(fd) == 0 {
			t.Fatal("finite differences all zero: the case tests nothing")
		}
		closeSlices(t, "weights only", grad, fd, 1e-5)
	}
}

// With a straight-through estimator the gradient is that of the surrogate in which each
// indicator 1[q*ᵢ > qᵢⱼ] is replaced by its value plus s − s(at the current parameters), where
// s = log q*ᵢ − log qᵢⱼ for STELog and s = q*ᵢ − qᵢⱼ for the authors' STEDensity (whose clip of
// the incoming gradient to [−1, 1] does not act here: that gradient is at most
// 2λ/N = 0.25). The tape gradient is checked against finite differences of that surrogate,
// computed in plain Go, for each estimator and objective.
func TestCoverageGradientSTE(t *testing.T) {
	for _, ste := range []STE{STELog, STEDensity} {
		t.Run(ste.String(), func(t *testing.T) { checkGradientSTE(t, ste) })
	}
}

func checkGradientSTE(t *testing.T, ste STE) {
	const n, L = 24, 6
	theta, x := simulate(rand.New(rand.NewPCG(5, 5)), n)
	for _, mix := range []float64{0, 1, 0.4} {
		g := exactGauss(0.6)
		reg := NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 3, Samples: L, Mixture: mix, STE: ste})
		grad, value := gradient(t, g, theta, x, reg)
		prior := dist.NewStandardNormal(gDim)
		draws, logI := replayDraws(prior, 11, n*L)
		// The surrogate's argument s of each indicator, from d = log q* − log qⱼ and the
		// current log q*.
		arg := func(i int, d float64) float64 {
			if ste == STELog {
				return d
			}
			star := g.logQ(theta.RawRowView(i), x.RawRowView(i))
			return math.Exp(star) - math.Exp(star-d)
		}
		// Indicator values and arguments at the current parameters.
		d0, s0 := make([]float64, n*L), make([]float64, n*L)
		refRanks(g, theta, x, draws, logI, L, func(i, j int, d float64) float64 {
			d0[i*L+j], s0[i*L+j] = d, arg(i, d)
			return 0
		})
		// The sort's permutation at the current parameters, ties in index order as in
		// nn.SortRows: the gradient of the sorted values follows it.
		alpha0 := refRanks(g, theta, x, draws, logI, L, step)
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(alpha0[a], alpha0[b]) })
		surrogate := func() float64 {
			alpha := refRanks(g, theta, x, draws, logI, L, func(i, j int, d float64) float64 {
				return step(0, 0, d0[i*L+j]) + arg(i, d) - s0[i*L+j]
			})
			s := 0.0
			for k, i := range order {
				d := float64(k+1)/float64(n+1) - alpha[i]
				r := (1-mix)*math.Max(d, 0) + mix*d
				s += r * r
			}
			return 3 * s / n
		}
		if s := surrogate(); math.Abs(s-value) > 1e-12 {
			t.Fatalf("surrogate %.15g differs from the penalty %.15g at the current parameters", s, value)
		}
		closeSlices(t, ste.String()+" STE", grad, finiteDiff(g, surrogate), 1e-5)
	}
}

// Draws where the posterior density is zero carry no weight; pairs whose draws all have zero
// density are left out of the penalty; a batch where all are left out is an error.
func TestCoverageZeroDensityDraws(t *testing.T) {
	const n, L = 64, 2
	rng := rand.New(rand.NewPCG(6, 6))
	prior := dist.NewUniformCube(-1, 1, gDim)
	theta := prior.Sample(rng, n)
	x := mat.NewDense(n, gDim, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < gDim; k++ {
			x.Set(i, k, theta.At(i, k)+0.3*rng.NormFloat64())
		}
	}
	// An NRE-style log posterior: log p(θ) + log r̂(θ, x), with r̂ a Gaussian bump.
	scale := nn.NewVariable(1, 1, []float64{-2})
	build := func(tp *nn.Tape) func(*mat.Dense, []int) *nn.Tensor {
		return func(th *mat.Dense, rows []int) *nn.Tensor {
			lr := tp.Scale(tp.Mul(tp.RowSum(tp.Square(tp.Sub(tp.FromDense(th), tp.Gather(x, rows)))), scale), 1)
			lp := tp.New(len(rows), 1)
			copy(lp.Data, prior.LogProb(th))
			return tp.Add(lp, lr)
		}
	}
	box := dist.NewUniformCube(-3, 3, gDim)
	tp := nn.NewTape()
	b := &sbi.RegBatch{Tape: tp, Rng: rand.New(rand.NewPCG(1, 7)), Prior: prior, Theta: theta, X: x, LogPost: build(tp)}
	reg := NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 1, Samples: L, Proposal: box, Mixture: 1})
	pen, err := reg.Penalty(b)
	if err != nil {
		t.Fatal(err)
	}
	tp.Backward(pen)
	if math.IsNaN(pen.Item()) || math.IsNaN(scale.Grad[0]) || math.IsInf(scale.Grad[0], 0) {
		t.Fatalf("penalty %v, gradient %v: want finite", pen.Item(), scale.Grad[0])
	}
	// Reference: drop pairs without a draw inside the prior.
	draws, logI := replayDraws(box, 1, n*L)
	alpha := make([]float64, n)
	dropped := 0
	for i := range alpha {
		lr := func(th []float64) float64 {
			s := 0.0
			for k := range th {
				s += (th[k] - x.At(i, k)) * (th[k] - x.At(i, k))
			}
			return -2 * s
		}
		star := lr(theta.RawRowView(i)) + prior.LogProb(mat.NewDense(1, gDim, theta.RawRowView(i)))[0]
		var num, den float64
		for j := 0; j < L; j++ {
			th := draws.RawRowView(i*L + j)
			if !prior.InSupport(th) {
				continue
			}
			lq := lr(th) + star - lr(theta.RawRowView(i))
			w := math.Exp(lq - logI[i*L+j])
			den += w
			num += w * step(0, 0, star-lq)
		}
		alpha[i] = num / den
		if den == 0 {
			dropped++
		}
	}
	if dropped == 0 || dropped == n {
		t.Fatalf("%d of %d pairs dropped: the case does not test dropping", dropped, n)
	}
	if want := refPenalty(alpha, 1, 1, QuantilesMean); math.Abs(pen.Item()-want) > 1e-12 {
		t.Errorf("penalty %.15g, reference without the %d empty pairs %.15g", pen.Item(), dropped, want)
	}

	far := dist.NewUniformCube(2, 3, gDim)
	tp.Reset()
	b.LogPost = build(tp)
	_, err = NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 1, Samples: L, Proposal: far}).Penalty(b)
	if err == nil || !strings.Contains(err.Error(), "covers the posterior") {
		t.Errorf("proposal outside the prior: error %v, want one that asks for a covering proposal", err)
	}
}

func TestCoverageBadInput(t *testing.T) {
	theta, x := simulate(rand.New(rand.NewPCG(1, 1)), 8)
	tp := nn.NewTape()
	b := gaussBatch(tp, priorGauss(), theta, x, 1)
	for _, c := range []struct {
		reg  *CoverageRegularizer
		want string
	}{
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: -1, Samples: 16}), "Lambda = -1"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: math.NaN(), Samples: 16}), "Lambda = NaN"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Samples: 16}), "Lambda = 0"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 5}), "Samples = 0"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 5, Samples: 16, Mixture: 1.5}), "Mixture = 1.5"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 5, Samples: 16, STE: STELog, STEWindow: -1}), "STEWindow = -1"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 5, Samples: 16, STEWindow: 0.5}), "set STE to calib.STELog"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 5, Samples: 16, STE: 9}), "straight-through estimator 9"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 5, Samples: 16, Quantiles: 7}), "quantile targets 7"},
		{NewCoverageRegularizer(CoverageRegularizerConfig{Lambda: 5, Samples: 16, Proposal: dist.NewStandardNormal(3)}), "3 dimensions, the parameters 2"},
	} {
		if _, err := c.reg.Penalty(b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	cfg := CoverageRegularizerConfig{Lambda: 5, Samples: 16}
	if _, err := NewCoverageRegularizer(cfg).Penalty(&sbi.RegBatch{Tape: tp, Rng: b.Rng, Theta: theta}); err == nil || !strings.Contains(err.Error(), "LogPost") {
		t.Errorf("batch without LogPost: error %v", err)
	}
	nb := *b
	nb.Prior = nil
	if _, err := NewCoverageRegularizer(cfg).Penalty(&nb); err == nil || !strings.Contains(err.Error(), "CoverageRegularizerConfig.Proposal") {
		t.Errorf("batch without prior: error %v", err)
	}
	if r := NewCoverageRegularizer(cfg); r.Name() != "coverage" || r.Lambda() != 5 || r.Samples() != 16 {
		t.Errorf("Name, Lambda, Samples = %q, %v, %v", r.Name(), r.Lambda(), r.Samples())
	}
}

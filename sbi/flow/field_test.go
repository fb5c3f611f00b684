package flow

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// gaussianTarget is θ ~ N(μ, Σ) in two dimensions, the target whose optimal flow-matching field
// is known in closed form.
type gaussianTarget struct {
	mu    [2]float64
	sigma *mat.SymDense
	chol  mat.Cholesky
}

func newGaussianTarget() *gaussianTarget {
	g := &gaussianTarget{mu: [2]float64{0.8, -0.5}, sigma: mat.NewSymDense(2, []float64{0.5, 0.24, 0.24, 0.3})}
	if !g.chol.Factorize(g.sigma) {
		panic("not positive definite")
	}
	return g
}

func (g *gaussianTarget) sample(rng *rand.Rand, n int) []float64 {
	var L mat.TriDense
	g.chol.LTo(&L)
	out := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		out[2*i] = g.mu[0] + L.At(0, 0)*z0
		out[2*i+1] = g.mu[1] + L.At(1, 0)*z0 + L.At(1, 1)*z1
	}
	return out
}

// moments2 returns, at time t of the path θ_t = aε + tθ (a = 1 − s·t, s = 1 − σ_min, u_t =
// θ − sε) for θ ~ N(μ, Σ), K = Cov(θ_t) = a²I + t²Σ and C = Cov(u_t, θ_t) = tΣ − s·a·I, as
// row-major 2×2 matrices.
func (g *gaussianTarget) moments2(t, sigmaMin float64) (K, C [4]float64) {
	s := 1 - sigmaMin
	a := 1 - s*t
	for r := 0; r < 2; r++ {
		for c := 0; c < 2; c++ {
			K[2*r+c] = t * t * g.sigma.At(r, c)
			C[2*r+c] = t * g.sigma.At(r, c)
		}
		K[3*r] += a * a
		C[3*r] -= s * a
	}
	return K, C
}

// mulInv2 returns C·K⁻¹ for 2×2 row-major matrices.
func mulInv2(C, K [4]float64) [4]float64 {
	det := K[0]*K[3] - K[1]*K[2]
	inv := [4]float64{K[3] / det, -K[1] / det, -K[2] / det, K[0] / det}
	return [4]float64{C[0]*inv[0] + C[1]*inv[2], C[0]*inv[1] + C[1]*inv[3], C[2]*inv[0] + C[3]*inv[2], C[2]*inv[1] + C[3]*inv[3]}
}

// optimal returns the marginal field u*(y, t) = E[u_t | θ_t = y]: θ_t ~ N(tμ, K), so
// u* = μ + C K⁻¹ (y − tμ).
func (g *gaussianTarget) optimal(y []float64, t, sigmaMin float64) [2]float64 {
	K, C := g.moments2(t, sigmaMin)
	M := mulInv2(C, K)
	r := [2]float64{y[0] - t*g.mu[0], y[1] - t*g.mu[1]}
	return [2]float64{g.mu[0] + M[0]*r[0] + M[1]*r[1], g.mu[1] + M[2]*r[0] + M[3]*r[1]}
}

// minimalLoss is the least value of the flow-matching loss (mean over the two features), the
// expected conditional variance of u_t given θ_t: E_t tr(Σ + s²I − C K⁻¹ Cᵀ)/2, by the
// midpoint rule over t ∈ [0, 1] with 20,000 points.
func (g *gaussianTarget) minimalLoss(sigmaMin float64) float64 {
	s := 1 - sigmaMin
	const m = 20000
	var sum float64
	for j := 0; j < m; j++ {
		t := (float64(j) + 0.5) / m
		K, C := g.moments2(t, sigmaMin)
		M := mulInv2(C, K)
		// tr(M Cᵀ) = Σ_rc M[r,c]·C[r,c]
		tr := M[0]*C[0] + M[1]*C[1] + M[2]*C[2] + M[3]*C[3]
		sum += (g.sigma.At(0, 0) + g.sigma.At(1, 1) + 2*s*s - tr) / 2
	}
	return sum / m
}

// TestFieldLossMinimumClosedForm checks the path and target of the loss against the closed
// form: on a Gaussian target the loss of the optimal field u* is the minimal loss, E_t of the
// conditional variance of u_t given θ_t. With σ_min = 0.3 (large, so that a wrong convention
// shows) the Monte Carlo loss of u* on the path that Loss uses must match it within 4
// standard errors, while the target of the path without σ_min (u_t = θ − ε) must not.
func TestFieldLossMinimumClosedForm(t *testing.T) {
	g := newGaussianTarget()
	const sigmaMin = 0.3
	f, err := NewField(rand.New(rand.NewPCG(1, 1)), FieldConfig{Features: 2, Hidden: []int{8}, SigmaMin: sigmaMin})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	const n = 50000
	theta := g.sample(rng, n)
	tt, eps := make([]float64, n), make([]float64, 2*n)
	f.DrawNoise(rng, tt, eps)
	thetaT, target := make([]float64, 2*n), make([]float64, 2*n)
	f.path(thetaT, target, theta, tt, eps)
	lossOf := func(target func(i, k int) float64) (mean, se float64) {
		var s, s2 float64
		for i := 0; i < n; i++ {
			u := g.optimal(thetaT[2*i:2*i+2], tt[i], sigmaMin)
			var l float64
			for k := 0; k < 2; k++ {
				l += (u[k] - target(i, k)) * (u[k] - target(i, k)) / 2
			}
			s += l
			s2 += l * l
		}
		mean = s / n
		return mean, math.Sqrt((s2/n - mean*mean) / n)
	}
	want := g.minimalLoss(sigmaMin)
	got, se := lossOf(func(i, k int) float64 { return target[2*i+k] })
	if math.Abs(got-want) > 4*se {
		t.Errorf("loss of the optimal field %.5f ± %.5f, closed-form minimum %.5f", got, se, want)
	}
	if wrong, se := lossOf(func(i, k int) float64 { return theta[2*i+k] - eps[2*i+k] }); math.Abs(wrong-want) < 4*se {
		t.Errorf("with the target θ − ε the loss is %.5f ± %.5f, not distinguishable from the minimum %.5f: the check has no power", wrong, se, want)
	}
}

// trainGaussian trains a small field on the Gaussian target with Adam and returns it.
func trainGaussian(t *testing.T, g *gaussianTarget, steps int) *Field {
	t.Helper()
	f, err := NewField(rand.New(rand.NewPCG(3, 3)), FieldConfig{Features: 2, Hidden: []int{32, 32}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	opt := nn.NewAdam(f.Params(), 3e-3)
	tp := nn.NewTape()
	const batch = 256
	for step := 0; step < steps; step++ {
		opt.SetLR(3e-3*(1-float64(step)/float64(steps)) + 1e-5) // linear decay
		theta := tp.Const(batch, 2, g.sample(rng, batch))
		tt, eps := tp.New(batch, 1), tp.New(batch, 2)
		f.DrawNoise(rng, tt.Data, eps.Data)
		tp.Backward(f.Loss(tp, theta, nil, tt, eps))
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	return f
}

// fieldError is the root mean square of v − u* over points of the path, relative to the root
// mean square of u*.
func fieldError(f *Field, g *gaussianTarget, n int) float64 {
	rng := rand.New(rand.NewPCG(5, 5))
	theta := g.sample(rng, n)
	tt, eps := make([]float64, n), make([]float64, 2*n)
	f.DrawNoise(rng, tt, eps)
	thetaT, target := make([]float64, 2*n), make([]float64, 2*n)
	f.path(thetaT, target, theta, tt, eps)
	v := make([]float64, 2*n)
	f.newEvaluator(n, nil, false).eval(tt, thetaT, 2, v, 2, nil, 0)
	var e2, u2 float64
	for i := 0; i < n; i++ {
		u := g.optimal(thetaT[2*i:2*i+2], tt[i], f.cfg.SigmaMin)
		for k := 0; k < 2; k++ {
			e2 += (v[2*i+k] - u[k]) * (v[2*i+k] - u[k])
			u2 += u[k] * u[k]
		}
	}
	return math.Sqrt(e2 / u2)
}

// TestFieldLearnsOptimalField trains a field on a correlated Gaussian and compares it with the
// closed-form optimal field on points of the path: the regression target of the loss is u*,
// so a trained field must come close (8% of u*'s size here; 3000 steps reach 5%), which a
// fresh one does not.
func TestFieldLearnsOptimalField(t *testing.T) {
	g := newGaussianTarget()
	fresh, err := NewField(rand.New(rand.NewPCG(3, 3)), FieldConfig{Features: 2, Hidden: []int{32, 32}})
	if err != nil {
		t.Fatal(err)
	}
	const tol = 0.08
	if e := fieldError(fresh, g, 4000); e < 4*tol {
		t.Fatalf("an untrained field is within %.3f of u*: the check has no power", e)
	}
	f := gaussianField(t)
	if e := fieldError(f, g, 4000); e > tol {
		t.Errorf("trained field: relative RMS error %.3f against the closed-form field, expected ≤ %.2f", e, tol)
	}
}

var gaussianOnce struct {
	sync.Once
	f *Field
}

// gaussianField returns the field trained on newGaussianTarget for 3000 steps, trained once
// for all the tests that use it.
func gaussianField(t *testing.T) *Field {
	gaussianOnce.Do(func() { gaussianOnce.f = trainGaussian(t, newGaussianTarget(), 3000) })
	return gaussianOnce.f
}

// TestFieldEvaluatorMatchesTape: the tape-free evaluation of the ODEs gives the velocity that
// training differentiates, and its divergence is the trace of the Jacobian by central
// differences, for every activation and with a context.
func TestFieldEvaluatorMatchesTape(t *testing.T) {
	for _, act := range []nn.Activation{nn.ELU, nn.ReLU, nn.LeakyReLU, nn.SELU, nn.Tanh, nn.Sigmoid, nn.Softplus} {
		t.Run(act.String(), func(t *testing.T) {
			const n, d, c = 5, 3, 2
			f, err := NewField(rand.New(rand.NewPCG(7, 7)), FieldConfig{Features: d, Context: c, Hidden: []int{7, 5, 6}, Activation: act})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(8, 8))
			theta, ctx, tt := make([]float64, n*d), make([]float64, n*c), make([]float64, n)
			for i := range theta {
				theta[i] = rng.NormFloat64()
			}
			for i := range ctx {
				ctx[i] = rng.NormFloat64()
			}
			for i := range tt {
				tt[i] = rng.Float64()
			}
			tp := nn.NewTape()
			want := f.Velocity(tp, tp.Const(n, d, theta), tp.Const(n, 1, tt), tp.Const(n, c, ctx))
			ev := f.newEvaluator(n, ctx, true)
			v, div := make([]float64, n*d), make([]float64, n)
			ev.eval(tt, theta, d, v, d, div, 1)
			for i := range v {
				if math.Abs(v[i]-want.Data[i]) > 1e-12 {
					t.Fatalf("velocity %d: %v without a tape, %v on the tape", i, v[i], want.Data[i])
				}
			}
			const h = 1e-5
			vp, vm, dummy := make([]float64, n*d), make([]float64, n*d), make([]float64, n)
			for i := 0; i < n; i++ {
				var fd float64
				for k := 0; k < d; k++ {
					p, m := append([]float64(nil), theta...), append([]float64(nil), theta...)
					p[i*d+k] += h
					m[i*d+k] -= h
					ev.eval(tt, p, d, vp, d, dummy, 1)
					ev.eval(tt, m, d, vm, d, dummy, 1)
					fd += (vp[i*d+k] - vm[i*d+k]) / (2 * h)
				}
				if math.Abs(div[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("row %d: divergence %.10g, central differences %.10g", i, div[i], fd)
				}
			}
		})
	}
}

// TestFieldDensityConsistent: LogProb and Sample integrate the same ODE in opposite
// directions, so exp(LogProb) integrates to one and the draws have the moments of the density,
// whatever the weights. The field is the one trained on the Gaussian target (its divergence
// is far from zero: a wrong sign of the log-determinant changes the mass by a large factor).
func TestFieldDensityConsistent(t *testing.T) {
	f := gaussianField(t)
	g := newGaussianTarget()
	const G, half = 101, 6.0
	sd := [2]float64{math.Sqrt(g.sigma.At(0, 0)), math.Sqrt(g.sigma.At(1, 1))}
	grid := mat.NewDense(G*G, 2, nil)
	var hx [2]float64
	for k := 0; k < 2; k++ {
		hx[k] = 2 * half * sd[k] / G
	}
	for a := 0; a < G; a++ {
		for b := 0; b < G; b++ {
			grid.Set(a*G+b, 0, g.mu[0]-half*sd[0]+(float64(a)+0.5)*hx[0])
			grid.Set(a*G+b, 1, g.mu[1]-half*sd[1]+(float64(b)+0.5)*hx[1])
		}
	}
	lp, err := f.LogProb(grid, nil)
	if err != nil {
		t.Fatal(err)
	}
	var z float64
	var mean, sq [2]float64
	for i, v := range lp {
		w := math.Exp(v) * hx[0] * hx[1]
		z += w
		for k := 0; k < 2; k++ {
			mean[k] += w * grid.At(i, k)
			sq[k] += w * grid.At(i, k) * grid.At(i, k)
		}
	}
	if math.Abs(z-1) > 0.01 {
		t.Fatalf("exp(LogProb) integrates to %.5f on the grid, expected 1 ± 0.01", z)
	}
	const N = 20000
	draws, err := f.Sample(rand.New(rand.NewPCG(9, 9)), N, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 2; k++ {
		m := mean[k] / z
		s := math.Sqrt(sq[k]/z - m*m)
		col := mat.Col(nil, k, draws)
		var sm, ss float64
		for _, v := range col {
			sm += v / N
		}
		for _, v := range col {
			ss += (v - sm) * (v - sm) / (N - 1)
		}
		// 4.5 standard errors: the mean's is s/√N, the standard deviation's about s/√(2N).
		if math.Abs(sm-m) > 4.5*s/math.Sqrt(N) {
			t.Errorf("θ%d: mean of the draws %.4f, of the density %.4f (± %.4f)", k, sm, m, 4.5*s/math.Sqrt(N))
		}
		if math.Abs(math.Sqrt(ss)-s) > 4.5*s/math.Sqrt(2*N) {
			t.Errorf("θ%d: sd of the draws %.4f, of the density %.4f (± %.4f)", k, math.Sqrt(ss), s, 4.5*s/math.Sqrt(2*N))
		}
	}
}

// TestFieldRowsIndependent: a row's log-density is the same, bit for bit, alone or beside other
// rows, including rows whose ODE fails (a NaN θ), which get NaN and an error.
func TestFieldRowsIndependent(t *testing.T) {
	f, err := NewField(rand.New(rand.NewPCG(1, 2)), FieldConfig{Features: 2, Context: 1, Hidden: []int{16, 16}})
	if err != nil {
		t.Fatal(err)
	}
	alone := make([]float64, 1)
	if _, err := f.LogProbRows(alone, []float64{0.3, -0.4}, []float64{0.5}); err != nil {
		t.Fatal(err)
	}
	batch := make([]float64, 3)
	_, err = f.LogProbRows(batch, []float64{4, 4, 0.3, -0.4, math.NaN(), 1}, []float64{-2, 0.5, 0.5})
	if !errors.Is(err, ErrFieldODE) {
		t.Errorf("a NaN row: error %v, expected one wrapping ErrFieldODE", err)
	}
	// OpenBLAS, which the openblas build uses for products of few rows, rounds a row
	// differently with the number of rows; gosbi's own kernels and gonum's do not.
	tol, same := 0.0, "the same bits"
	if strings.HasPrefix(nn.Backend(), "OpenBLAS") {
		tol, same = 1e-12*math.Abs(alone[0]), "the same value to 1e-12 (OpenBLAS)"
	}
	if math.Abs(batch[1]-alone[0]) > tol || !math.IsNaN(batch[2]) || math.IsNaN(batch[0]) {
		t.Errorf("log-densities %v beside other rows, %v alone: expected %s, a finite first row and NaN for the NaN row", batch, alone, same)
	}
}

// TestDrawNoiseTimePrior: times follow p(t) = (1+α)t^α, whose mean is (1+α)/(2+α).
func TestDrawNoiseTimePrior(t *testing.T) {
	for _, alpha := range []float64{0, 4} {
		f, err := NewField(rand.New(rand.NewPCG(1, 1)), FieldConfig{Features: 1, Hidden: []int{4}, TimeExponent: alpha})
		if err != nil {
			t.Fatal(err)
		}
		const n = 100000
		tt, eps := make([]float64, n), make([]float64, n)
		f.DrawNoise(rand.New(rand.NewPCG(2, 2)), tt, eps)
		var m, v float64
		for _, x := range tt {
			m += x / n
		}
		for _, x := range tt {
			v += (x - m) * (x - m) / n
		}
		if want := (1 + alpha) / (2 + alpha); math.Abs(m-want) > 4.5*math.Sqrt(v/n) {
			t.Errorf("α = %v: mean time %.4f, expected %.4f", alpha, m, want)
		}
	}
}

func TestFieldConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  FieldConfig
		want string
	}{
		{FieldConfig{}, "Features"},
		{FieldConfig{Features: 2, Context: -1}, "Context"},
		{FieldConfig{Features: 2, Hidden: []int{}}, "Hidden"},
		{FieldConfig{Features: 2, Hidden: []int{4, 0}}, "width"},
		{FieldConfig{Features: 2, SigmaMin: 1.5}, "SigmaMin"},
		{FieldConfig{Features: 2, SigmaMin: math.NaN()}, "SigmaMin"},
		{FieldConfig{Features: 2, TimeExponent: -1}, "TimeExponent"},
		{FieldConfig{Features: 2, Frequencies: -1}, "Frequencies"},
		{FieldConfig{Features: 2, RelTol: -1}, "ODE"},
		{FieldConfig{Features: 2, RelTol: 1e-300}, "RelTol = 1e-300"},
		{FieldConfig{Features: 2, AbsTol: 1e-20}, "AbsTol = 1e-20"},
		{FieldConfig{Features: 2, RelTol: 1}, "RelTol = 1,"},
		{FieldConfig{Features: 2, AbsTol: math.Inf(1)}, "AbsTol = +Inf"},
		{FieldConfig{Features: 2, Activation: nn.Activation(99)}, "Activation"},
	} {
		if _, err := NewField(rand.New(rand.NewPCG(1, 1)), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, expected one naming %s", c.cfg, err, c.want)
		}
	}
}

// linearField is a field whose weights make it the affine field
//
//	v(θ, t, c) = Aθ + β·cos πt + δ·sin πt + γ·c
//
// in two dimensions with a scalar context: one hidden layer of 5 units copies θ, cos πt,
// sin πt and c shifted by a constant B large enough that the activation (ELU or ReLU, the
// identity on positive inputs) passes them unchanged, and the output layer applies
// [A | β | δ | γ] and takes the shift off again. Its flow is known in closed form (see
// TestFieldLinearClosedForm).
func linearField(t *testing.T, act nn.Activation, A [2][2]float64, beta, delta, gamma [2]float64) *Field {
	t.Helper()
	f, err := NewField(rand.New(rand.NewPCG(1, 1)), FieldConfig{Features: 2, Context: 1, Hidden: []int{5}, Frequencies: 1,
		Activation: act, RelTol: 1e-10, AbsTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	const B = 30
	// Inputs: θ0, θ1, cos πt, sin πt, c; the hidden units copy them, each + B.
	hid, out := f.net.Layers[0], f.net.Layers[1]
	clear(hid.W.Data)
	for j := 0; j < 5; j++ {
		hid.W.Data[j*hid.Out+j] = 1
		hid.B.Data[j] = B
	}
	M := [2][5]float64{{A[0][0], A[0][1], beta[0], delta[0], gamma[0]}, {A[1][0], A[1][1], beta[1], delta[1], gamma[1]}}
	for k := 0; k < 2; k++ {
		out.B.Data[k] = 0
		for j := 0; j < 5; j++ {
			out.W.Data[j*out.Out+k] = M[k][j]
			out.B.Data[k] -= B * M[k][j]
		}
	}
	return f
}

// TestFieldLinearClosedForm checks sampling and log-densities against the closed form of an
// affine field v(θ, t, c) = Aθ + β·cos πt + δ·sin πt + γ·c (linearField). Its flow from t = 0
// to 1 is
//
//	θ₁ = e^A·z + m(c),    m(c) = ∫₀¹ e^{A(1−s)} (β·cos πs + δ·sin πs + γ·c) ds,
//
// so q(θ | c) = N(m(c), e^A e^{Aᵀ}) and log q(θ | c) = log N(e^{−A}(θ − m); 0, I) − tr A (the
// instantaneous change of variables with the exact divergence tr A). m is computed by
// Simpson's rule on 2000 intervals (error below 10⁻¹²). With the solver at tolerances 10⁻¹⁰,
// MapRows and LogProbRows must agree with the closed form to 10⁻⁶; a divergence with the wrong
// sign or a missing one is off by 2·tr A = 1.6 or tr A, and time running the other way
// (cos π(1−t) = −cos πt) moves m.
func TestFieldLinearClosedForm(t *testing.T) {
	A := [2][2]float64{{0.6, -0.8}, {0.5, 0.2}} // tr A = 0.8, complex eigenvalues: the flow rotates
	beta, delta, gamma := [2]float64{1.0, -0.5}, [2]float64{-0.4, 0.9}, [2]float64{0.7, 0.2}
	Am := mat.NewDense(2, 2, []float64{A[0][0], A[0][1], A[1][0], A[1][1]})
	expA := func(u float64) *mat.Dense {
		var s, e mat.Dense
		s.Scale(u, Am)
		e.Exp(&s)
		return &e
	}
	mean := func(c float64) [2]float64 {
		const K = 2000
		var m [2]float64
		for k := 0; k <= K; k++ {
			s := float64(k) / K
			w := 2.0 + 2*float64(k%2) // Simpson: 1, 4, 2, 4, …, 4, 1
			if k == 0 || k == K {
				w = 1
			}
			w /= 3 * K
			cs, sn := math.Cos(math.Pi*s), math.Sin(math.Pi*s)
			g := [2]float64{beta[0]*cs + delta[0]*sn + gamma[0]*c, beta[1]*cs + delta[1]*sn + gamma[1]*c}
			E := expA(1 - s)
			for i := 0; i < 2; i++ {
				m[i] += w * (E.At(i, 0)*g[0] + E.At(i, 1)*g[1])
			}
		}
		return m
	}
	E1 := expA(1)
	var Einv mat.Dense
	if err := Einv.Inverse(E1); err != nil {
		t.Fatal(err)
	}
	trA := A[0][0] + A[1][1]
	const tol = 1e-6
	for _, act := range []nn.Activation{nn.ELU, nn.ReLU} {
		f := linearField(t, act, A, beta, delta, gamma)
		for _, c := range []float64{0, 1.5, -2} {
			m := mean(c)
			// Sampling: base points carried to e^A z + m.
			z := []float64{0, 0, 1, -0.5, -1.2, 2, 0.3, 0.9}
			want := make([]float64, len(z))
			for i := 0; i < len(z)/2; i++ {
				for k := 0; k < 2; k++ {
					want[2*i+k] = E1.At(k, 0)*z[2*i] + E1.At(k, 1)*z[2*i+1] + m[k]
				}
			}
			if _, err := f.MapRows(z, []float64{c}); err != nil {
				t.Fatal(err)
			}
			for i := range z {
				if math.Abs(z[i]-want[i]) > tol {
					t.Errorf("%v, c = %v: MapRows value %d = %.9f, closed form %.9f", act, c, i, z[i], want[i])
				}
			}
			// Log-densities at points around the mean.
			theta := []float64{m[0], m[1], m[0] + 1, m[1] - 0.5, m[0] - 2, m[1] + 1.5, m[0] + 0.3, m[1] + 2.5}
			got := make([]float64, len(theta)/2)
			if _, err := f.LogProbRows(got, theta, []float64{c}); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				d0, d1 := theta[2*i]-m[0], theta[2*i+1]-m[1]
				z0, z1 := Einv.At(0, 0)*d0+Einv.At(0, 1)*d1, Einv.At(1, 0)*d0+Einv.At(1, 1)*d1
				lq := -math.Log(2*math.Pi) - 0.5*(z0*z0+z1*z1) - trA
				if math.Abs(got[i]-lq) > tol {
					t.Errorf("%v, c = %v: LogProbRows at θ = %v: %.9f, closed form %.9f", act, c, theta[2*i:2*i+2], got[i], lq)
				}
			}
		}
	}
}

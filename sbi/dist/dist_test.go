package dist

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"
)

// univariate is the gonum reference for one coordinate of a distribution.
type univariate interface {
	LogProb(float64) float64
}

func testCases() []struct {
	name string
	d    Distribution
	ref  []univariate // per coordinate; nil when the reference is multivariate
} {
	return []struct {
		name string
		d    Distribution
		ref  []univariate
	}{
		{"BoxUniform", NewBoxUniform([]float64{-1, 2}, []float64{3, 2.5}),
			[]univariate{distuv.Uniform{Min: -1, Max: 3}, distuv.Uniform{Min: 2, Max: 2.5}}},
		{"Normal", NewNormal([]float64{0.5, -2}, []float64{0.1, 3}),
			[]univariate{distuv.Normal{Mu: 0.5, Sigma: 0.1}, distuv.Normal{Mu: -2, Sigma: 3}}},
		{"LogNormal", NewLogNormal([]float64{math.Log(0.4), math.Log(0.125)}, []float64{0.5, 0.2}),
			[]univariate{distuv.LogNormal{Mu: math.Log(0.4), Sigma: 0.5}, distuv.LogNormal{Mu: math.Log(0.125), Sigma: 0.2}}},
		{"Gamma", NewGamma([]float64{0.5, 3}, []float64{2, 0.5}),
			[]univariate{distuv.Gamma{Alpha: 0.5, Beta: 2}, distuv.Gamma{Alpha: 3, Beta: 0.5}}},
		{"Beta", NewBeta([]float64{0.7, 2}, []float64{3, 1}),
			[]univariate{distuv.Beta{Alpha: 0.7, Beta: 3}, distuv.Beta{Alpha: 2, Beta: 1}}},
		{"Independent", NewIndependent(NewNormal([]float64{1}, []float64{2}), NewBoxUniform([]float64{0}, []float64{4})),
			[]univariate{distuv.Normal{Mu: 1, Sigma: 2}, distuv.Uniform{Min: 0, Max: 4}}},
		{"AffineNormal", NewAffine(NewStandardNormal(2), []float64{1, -1}, []float64{2, -0.5}),
			[]univariate{distuv.Normal{Mu: 1, Sigma: 2}, distuv.Normal{Mu: -1, Sigma: 0.5}}},
		{"ExpNormal", NewExp(NewNormal([]float64{-0.125, -3}, []float64{0.5, 0.5})),
			[]univariate{distuv.LogNormal{Mu: -0.125, Sigma: 0.5}, distuv.LogNormal{Mu: -3, Sigma: 0.5}}},
	}
}

// TestLogProbAgainstGonum compares LogProb with gonum's distuv on draws from the distribution and
// on points outside the support.
func TestLogProbAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range testCases() {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.d.Sample(rng, 200)
			lp := tc.d.LogProb(x)
			for i, got := range lp {
				want := 0.0
				for j, r := range tc.ref {
					want += r.LogProb(x.At(i, j))
				}
				if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Fatalf("row %d %v: LogProb %v, gonum %v", i, x.RawRowView(i), got, want)
				}
				if !tc.d.InSupport(x.RawRowView(i)) {
					t.Fatalf("draw %v not in the support", x.RawRowView(i))
				}
			}
		})
	}
}

// TestLogProbOutsideSupport checks −Inf (never NaN) outside the support and for NaN rows.
func TestLogProbOutsideSupport(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		d    Distribution
		out  [][]float64
	}{
		{"BoxUniform", NewUniformCube(-1, 1, 2), [][]float64{{1.5, 0}, {0, -1.01}, {nan, 0}, {math.Inf(1), 0}}},
		{"Normal", NewStandardNormal(2), [][]float64{{nan, 0}, {math.Inf(-1), 0}}},
		{"MultivariateNormal", NewMultivariateNormal([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1})), [][]float64{{nan, 1}}},
		{"LogNormal", NewLogNormal([]float64{0}, []float64{1}), [][]float64{{0}, {-1}, {nan}}},
		{"Gamma", NewGamma([]float64{2}, []float64{1}), [][]float64{{-0.1}, {nan}, {math.Inf(1)}}},
		{"Beta", NewBeta([]float64{2}, []float64{2}), [][]float64{{-0.1}, {1.1}, {nan}}},
		{"Exp", NewExp(NewUniformCube(-4, 1, 2)), [][]float64{{0, 1}, {math.Exp(2), 1}, {-1, 1}}},
		{"Independent", NewIndependent(NewGamma([]float64{0.5}, []float64{1}), NewBeta([]float64{0.5}, []float64{1})), [][]float64{{0, 1.5}, {-1, 0.5}}},
	} {
		for _, row := range tc.out {
			lp := tc.d.LogProb(mat.NewDense(1, len(row), row))[0]
			if !math.IsInf(lp, -1) {
				t.Errorf("%s: LogProb(%v) = %v, want −Inf", tc.name, row, lp)
			}
			if tc.d.InSupport(row) {
				t.Errorf("%s: InSupport(%v) = true", tc.name, row)
			}
		}
	}
	// Edges of the support are finite or ±Inf, never NaN.
	for _, tc := range []struct {
		d Distribution
		x float64
	}{
		{NewGamma([]float64{1}, []float64{2}), 0}, {NewGamma([]float64{0.5}, []float64{2}), 0},
		{NewBeta([]float64{1}, []float64{3}), 0}, {NewBeta([]float64{2}, []float64{1}), 1}, {NewBeta([]float64{0.5}, []float64{0.5}), 1},
	} {
		if lp := tc.d.LogProb(mat.NewDense(1, 1, []float64{tc.x}))[0]; math.IsNaN(lp) {
			t.Errorf("%T at %v: LogProb is NaN", tc.d, tc.x)
		}
	}
}

// TestMultivariateNormalAgainstDistmv compares with gonum's distmv.Normal.
func TestMultivariateNormalAgainstDistmv(t *testing.T) {
	mean := []float64{1, -2, 0.5}
	cov := mat.NewSymDense(3, []float64{2, 0.6, -0.3, 0.6, 1, 0.2, -0.3, 0.2, 0.5})
	d := NewMultivariateNormal(mean, cov)
	ref, ok := distmv.NewNormal(mean, cov, nil)
	if !ok {
		t.Fatal("distmv rejected the covariance")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := d.Sample(rng, 100)
	for i, got := range d.LogProb(x) {
		if want := ref.LogProb(x.RawRowView(i)); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Fatalf("row %d: %v, distmv %v", i, got, want)
		}
	}
	var prec mat.SymDense
	var ch mat.Cholesky
	ch.Factorize(cov)
	if err := ch.InverseTo(&prec); err != nil {
		t.Fatal(err)
	}
	dp := NewMultivariateNormalPrecision(mean, &prec)
	for i, got := range dp.LogProb(x) {
		if want := ref.LogProb(x.RawRowView(i)); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("precision form row %d: %v, distmv %v", i, got, want)
		}
	}
}

// TestSampleMoments checks the sample mean and covariance of n draws against the closed forms.
// Tolerance: 5 standard errors, where the standard error of a mean is sqrt(Var/n) and that of a
// (co)variance entry is the sample standard deviation of the centred products divided by sqrt(n).
func TestSampleMoments(t *testing.T) {
	const n = 200000
	rng := rand.New(rand.NewPCG(5, 6))
	cases := append(testCases(), struct {
		name string
		d    Distribution
		ref  []univariate
	}{"MultivariateNormal", NewMultivariateNormal([]float64{1, -2}, mat.NewSymDense(2, []float64{2, -0.9, -0.9, 1})), nil})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mean, cov, ok := MeanCov(tc.d)
			if !ok {
				t.Fatal("no closed-form moments")
			}
			x := tc.d.Sample(rng, n)
			checkMoments(t, x, mean, cov)
		})
	}
}

func checkMoments(t *testing.T, x *mat.Dense, mean []float64, cov mat.Symmetric) {
	t.Helper()
	n, d := x.Dims()
	m := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			m[j] += v / float64(n)
		}
	}
	for j := 0; j < d; j++ {
		se := math.Sqrt(cov.At(j, j) / float64(n))
		if math.Abs(m[j]-mean[j]) > 5*se {
			t.Errorf("mean[%d] = %v, want %v ± %v", j, m[j], mean[j], 5*se)
		}
	}
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			var s, s2 float64
			for i := 0; i < n; i++ {
				p := (x.At(i, a) - m[a]) * (x.At(i, b) - m[b])
				s += p
				s2 += p * p
			}
			c := s / float64(n)
			se := math.Sqrt((s2/float64(n) - c*c) / float64(n))
			if math.Abs(c-cov.At(a, b)) > 5*se+1e-12 {
				t.Errorf("cov[%d,%d] = %v, want %v ± %v", a, b, c, cov.At(a, b), 5*se)
			}
		}
	}
}

func TestSupportAndBounds(t *testing.T) {
	low, high, ok := Bounds(NewExp(NewUniformCube(-4, 1, 2)))
	if !ok || math.Abs(low[0]-math.Exp(-4)) > 1e-15 || math.Abs(high[1]-math.E) > 1e-15 {
		t.Errorf("Exp(BoxUniform) bounds %v %v %v", low, high, ok)
	}
	low, high, ok = Bounds(NewAffine(NewUniformCube(0, 1, 1), []float64{1}, []float64{-2}))
	if !ok || low[0] != -1 || high[0] != 1 {
		t.Errorf("affine bounds %v %v", low, high)
	}
	if _, _, ok := Bounds(NewIndependent(NewUniformCube(0, 1, 1), NewGamma([]float64{1}, []float64{1}))); ok {
		t.Error("Gamma part should make the bounds infinite")
	}
	if _, _, ok := MeanCov(NewExp(NewUniformCube(0, 1, 1))); ok {
		t.Error("Exp of a uniform has no closed form here, yet MeanCov reported one")
	}
}

func TestBadParametersPanic(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		msg  string
	}{
		{"box low≥high", func() { NewBoxUniform([]float64{1}, []float64{1}) }, "expected low < high"},
		{"box lengths", func() { NewBoxUniform([]float64{0, 0}, []float64{1}) }, "expected 2"},
		{"normal std", func() { NewNormal([]float64{0}, []float64{-1}) }, "expected a finite value > 0"},
		{"mvn not PD", func() { NewMultivariateNormal([]float64{0, 0}, mat.NewSymDense(2, []float64{1, 2, 2, 1})) }, "not positive definite"},
		{"mvn shape", func() { NewMultivariateNormal([]float64{0}, mat.NewSymDense(2, nil)) }, "expected 1×1"},
		{"LogProb columns", func() { NewStandardNormal(2).LogProb(mat.NewDense(1, 3, nil)) }, "expected 2"},
		{"affine zero scale", func() { NewAffine(NewStandardNormal(1), []float64{0}, []float64{0}) }, "non-zero"},
		{"negative n", func() { NewStandardNormal(1).Sample(rand.New(rand.NewPCG(1, 1)), -1) }, "n ≥ 0"},
		{"box width overflows", func() { NewBoxUniform([]float64{-1e308}, []float64{1e308}) }, "width"},
		{"mvn infinite cov", func() { NewMultivariateNormal([]float64{0, 0}, mat.NewSymDense(2, []float64{math.Inf(1), 0, 0, 1})) }, "expected a finite value"},
		{"mvn precision empty", func() { NewMultivariateNormalPrecision(nil, mat.NewSymDense(1, []float64{1})) }, "mean is empty"},
		{"transformed affine zero scale", func() {
			NewTransformed(NewStandardNormal(1), Affine{Shift: []float64{0}, Scale: []float64{0}})
		}, "NewTransformed: scale[0] = 0"},
		{"transformed *affine zero scale", func() {
			NewTransformed(NewStandardNormal(1), &Affine{Shift: []float64{0}, Scale: []float64{0}})
		}, "NewTransformed: scale[0] = 0"},
		{"transformed affine lengths", func() {
			NewTransformed(NewStandardNormal(2), Affine{Shift: []float64{0}, Scale: []float64{1}})
		}, "NewTransformed: shift has length 1, expected 2"},
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), tc.msg) {
					t.Errorf("%s: panic %v, want one containing %q", tc.name, r, tc.msg)
				}
			}()
			tc.f()
		}()
	}
}

func TestSampleDeterministic(t *testing.T) {
	for _, tc := range testCases() {
		a := tc.d.Sample(rand.New(rand.NewPCG(9, 9)), 10)
		b := tc.d.Sample(rand.New(rand.NewPCG(9, 9)), 10)
		if !mat.Equal(a, b) {
			t.Errorf("%s: same seed gave different draws", tc.name)
		}
	}
	if r, c := NewStandardNormal(3).Sample(rand.New(rand.NewPCG(1, 1)), 0).Dims(); r != 0 || c != 0 {
		t.Errorf("zero draws gave %d×%d", r, c)
	}
}

// TestGaussianScore checks the closed-form scores against the hand-inverted 2×2 covariance
// Σ = [[2, 0.6], [0.6, 1]] (det 1.64, Σ⁻¹ = [[1, −0.6], [−0.6, 2]]/1.64) and against a central
// difference of LogProb (step 1e-5: error O(h²) ≈ 1e-10, well inside 1e-6).
func TestGaussianScore(t *testing.T) {
	mean := []float64{0.5, -1}
	mvn := NewMultivariateNormal(mean, mat.NewSymDense(2, []float64{2, 0.6, 0.6, 1}))
	x := mat.NewDense(2, 2, []float64{1, 1, -3, 0.25})
	got := mvn.Score(x)
	for i := 0; i < 2; i++ {
		d0, d1 := mean[0]-x.At(i, 0), mean[1]-x.At(i, 1)
		want := []float64{(d0 - 0.6*d1) / 1.64, (-0.6*d0 + 2*d1) / 1.64}
		for j := range want {
			if math.Abs(got.At(i, j)-want[j]) > 1e-12 {
				t.Errorf("MultivariateNormal score[%d][%d] = %v, want %v", i, j, got.At(i, j), want[j])
			}
		}
	}
	n := NewNormal(mean, []float64{2, 0.5})
	const h = 1e-5
	for _, d := range []interface {
		Distribution
		Score(*mat.Dense) *mat.Dense
	}{mvn, n} {
		s := d.Score(x)
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				p, m := mat.DenseCopyOf(x.Slice(i, i+1, 0, 2)), mat.DenseCopyOf(x.Slice(i, i+1, 0, 2))
				p.Set(0, j, p.At(0, j)+h)
				m.Set(0, j, m.At(0, j)-h)
				fd := (d.LogProb(p)[0] - d.LogProb(m)[0]) / (2 * h)
				if math.Abs(s.At(i, j)-fd) > 1e-6 {
					t.Errorf("%T score[%d][%d] = %v, central difference %v", d, i, j, s.At(i, j), fd)
				}
			}
		}
	}
}

// TestBetaSampleTinyParameters draws from Beta distributions whose Gamma draws underflow to 0
// (alpha, beta ≪ 1: G(k) = G(k+1)·U^(1/k)), where G_a/(G_a + G_b) is 0/0. Every draw must lie
// in [0, 1], and the mean and variance match the closed forms within 5 standard errors.
func TestBetaSampleTinyParameters(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(11, 12))
	d := NewBeta([]float64{1e-3, 0.01, 1e-3}, []float64{1e-3, 0.02, 5})
	x := d.Sample(rng, n)
	for i := 0; i < n; i++ {
		if !d.InSupport(x.RawRowView(i)) {
			t.Fatalf("draw %d = %v, outside [0, 1]", i, x.RawRowView(i))
		}
	}
	mean, cov, _ := MeanCov(d)
	checkMoments(t, x, mean, cov)
}

// TestInSupportWrongLength checks that a point of the wrong length is outside the support,
// for every distribution, rather than a panic or a true.
func TestInSupportWrongLength(t *testing.T) {
	cases := append(testCases(), struct {
		name string
		d    Distribution
		ref  []univariate
	}{"MultivariateNormal", NewMultivariateNormal([]float64{1, -2}, mat.NewSymDense(2, []float64{2, -0.9, -0.9, 1})), nil})
	rng := rand.New(rand.NewPCG(13, 14))
	for _, tc := range cases {
		in := tc.d.Sample(rng, 1).RawRowView(0) // a point of the support, then one too short and one too long
		for _, x := range [][]float64{in[:len(in)-1], append(append([]float64(nil), in...), in[0])} {
			if tc.d.InSupport(x) {
				t.Errorf("%s: InSupport(%v) = true for a point of %d values, want false (Dim %d)", tc.name, x, len(x), tc.d.Dim())
			}
		}
	}
}

// TestLogProbNeverNaNAtCorners checks points on the boundary of a product of Beta or Gamma
// coordinates where one coordinate's density is infinite and another's is zero: the sum
// +Inf + (−Inf) of their log densities was NaN; the point has density 0·∞, which LogProb
// gives as −Inf, as Independent does for its parts.
func TestLogProbNeverNaNAtCorners(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Distribution
		x    []float64
	}{
		{"Beta upper corner", NewBeta([]float64{0.5, 5}, []float64{0.5, 5}), []float64{1, 1}},
		{"Beta lower corner", NewBeta([]float64{0.5, 5}, []float64{0.5, 5}), []float64{0, 0}},
		{"Beta mixed corner", NewBeta([]float64{0.5, 2}, []float64{2, 2}), []float64{0, 0}},
		{"Gamma origin", NewGamma([]float64{0.5, 3}, []float64{1, 1}), []float64{0, 0}},
	} {
		if lp := tc.d.LogProb(mat.NewDense(1, len(tc.x), tc.x))[0]; !math.IsInf(lp, -1) {
			t.Errorf("%s: LogProb(%v) = %v, want −Inf (density 0·∞ on the boundary, never NaN)", tc.name, tc.x, lp)
		}
	}
}

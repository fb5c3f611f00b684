package task

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// jumpPaths returns n paths of sirJumpPath, days 0, …, days−1, one per row.
func jumpPaths(seed uint64, n int, beta, gamma float64, pop, i0, days int) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, days, nil)
	for r := range n {
		sirJumpPath(rng, beta, gamma, pop, i0, 0, x.RawRowView(r))
	}
	return x
}

// peakDays returns the day on which each path of x (one per row) peaks, for the paths whose
// peak is above 100 infected (the epidemics that took off); the first such day on a tie.
func peakDays(x *mat.Dense) []float64 {
	r, _ := x.Dims()
	var days []float64
	for k := range r {
		row := x.RawRowView(k)
		top := 0
		for day, v := range row {
			if v > row[top] {
				top = day
			}
		}
		if row[top] > 100 {
			days = append(days, float64(top))
		}
	}
	return days
}

// TestSIRJumpPureDeath: with β = 0 each of the I₀ infected recovers after an exponential time
// of rate γ, independently, so I(t) ~ Binomial(I₀, p), p = e^{−γt}. Over 2000 paths the sample
// mean and variance at two days agree with I₀p and I₀pq within 4 standard errors (of the mean,
// √(I₀pq/n); of the variance, √((μ₄ − σ⁴)/n) with the binomial's fourth central moment
// μ₄ = I₀pq(1 + 3(I₀ − 2)pq)). Halving or doubling the recovery rate, or reading a day late,
// moves the mean by tens of standard errors.
func TestSIRJumpPureDeath(t *testing.T) {
	const (
		n     = 2000
		i0    = 20
		gamma = 0.125
	)
	x := jumpPaths(3, n, 0, gamma, sirJumpN, i0, 13)
	for _, day := range []int{4, 12} {
		p := math.Exp(-gamma * float64(day))
		pq := p * (1 - p)
		sigma2 := i0 * pq
		mu4 := i0 * pq * (1 + 3*(i0-2)*pq)
		mean, sd := colMeanSD(x, day)
		variance := sd * sd
		if se := math.Sqrt(sigma2 / n); math.Abs(mean-i0*p) > 4*se {
			t.Errorf("day %d: mean of I %.3f, want %.3f ± %.3f (4 s.e.)", day, mean, i0*p, 4*se)
		}
		if se := math.Sqrt((mu4 - sigma2*sigma2) / n); math.Abs(variance-sigma2) > 4*se {
			t.Errorf("day %d: variance of I %.3f, want %.3f ± %.3f (4 s.e.)", day, variance, sigma2, 4*se)
		}
	}
}

// TestSIRJumpLinearBirthDeath: while S ≈ N the epidemic is the linear birth–death process of
// birth rate λ = β and death rate μ = γ, whose law from one individual is known in closed form
// (Kendall 1948): with r = λ − μ,
//
//	P(I(t) = 0) = μ(e^{rt} − 1)/(λe^{rt} − μ),  E I(t) = e^{rt},  Var I(t) = (λ+μ)/r · e^{rt}(e^{rt} − 1).
//
// With N = 10⁶ and t ≤ 20 days a path infects a few hundred people, so S/N stays above 0.997 and
// the epidemic's departure from the linear process is far below the tolerances. Over 4000 paths
// the fraction extinct and the mean at days 10 and 20 agree with the closed forms within 4
// standard errors (binomial for the fraction, from the variance above for the mean).
func TestSIRJumpLinearBirthDeath(t *testing.T) {
	const (
		n     = 4000
		beta  = 0.5
		gamma = 0.25
		r     = beta - gamma
	)
	x := jumpPaths(4, n, beta, gamma, 1_000_000, 1, 21)
	for _, day := range []int{10, 20} {
		g := math.Exp(r * float64(day))
		pExt := gamma * (g - 1) / (beta*g - gamma)
		var extinct float64
		for k := range n {
			if x.At(k, day) == 0 {
				extinct++
			}
		}
		extinct /= n
		if se := math.Sqrt(pExt * (1 - pExt) / n); math.Abs(extinct-pExt) > 4*se {
			t.Errorf("day %d: fraction extinct %.4f, want %.4f ± %.4f (4 s.e.)", day, extinct, pExt, 4*se)
		}
		mean, _ := colMeanSD(x, day)
		variance := (beta + gamma) / r * g * (g - 1)
		if se := math.Sqrt(variance / n); math.Abs(mean-g) > 4*se {
			t.Errorf("day %d: mean of I %.3f, want %.3f ± %.3f (4 s.e.)", day, mean, g, 4*se)
		}
	}
}

// TestSIRJumpLayout: simulations from the prior are counts in [0, 1000] starting from one
// infected, deterministic for a seed, and at a fixed θ the epidemics that take off peak on
// different days (the ODE of sir_raw peaks on one day for a given θ). For the linear
// birth–death process, log of the limit of I(t)e^{−rt} given survival has the standard
// deviation of a log-exponential variable, π/√6, which shifts the peak by about π/√6/r ≈ 4.7
// days at θ = (0.4, 0.125); the test asks for more than 2.
func TestSIRJumpLayout(t *testing.T) {
	tk := SIRJump()
	if tk.DataDim() != 161 || len(tk.Days()) != 161 || tk.Days()[160] != 160 {
		t.Fatalf("DataDim %d, %d days ending at %v; want 161 days 0 … 160", tk.DataDim(), len(tk.Days()), tk.Days()[len(tk.Days())-1])
	}
	theta := tk.Prior().Sample(rand.New(rand.NewPCG(6, 6)), 300)
	x := tk.Simulate(rand.New(rand.NewPCG(7, 7)), theta)
	if !mat.Equal(x, tk.Simulate(rand.New(rand.NewPCG(7, 7)), theta)) {
		t.Error("two simulations with the same seed differ")
	}
	for k := range 300 {
		row := x.RawRowView(k)
		if row[0] != 1 {
			t.Errorf("row %d: I(0) = %v, want 1", k, row[0])
		}
		for day, v := range row {
			if v != math.Trunc(v) || v < 0 || v > sirJumpN {
				t.Fatalf("row %d, day %d: I = %v, want an integer count in [0, %d]", k, day, v, sirJumpN)
			}
		}
	}

	days := peakDays(jumpPaths(8, 400, 0.4, 0.125, sirJumpN, 1, 161))
	if len(days) < 100 {
		t.Fatalf("%d of 400 epidemics at R₀ = 3.2 took off, want more than 100 (about 69%%)", len(days))
	}
	mean, _ := meanSE(days)
	variance, _ := varSE(days)
	sd := math.Sqrt(variance)
	t.Logf("%d of 400 took off; peak day %.1f ± %.1f (sd)", len(days), mean, sd)
	if sd < 2 {
		t.Errorf("the peak day of %d epidemics has sd %.2f days, want > 2 (about 4.7)", len(days), sd)
	}
}

// TestSIRJumpSummary: Summary keeps days 0, 17, …, 153 of each row and refuses a series of
// the wrong length.
func TestSIRJumpSummary(t *testing.T) {
	tk := SIRJump()
	x := mat.NewDense(3, 161, nil)
	for r := range 3 {
		for c := range 161 {
			x.Set(r, c, float64(1000*r+c))
		}
	}
	s := tk.Summary(x)
	if r, c := s.Dims(); r != 3 || c != 10 {
		t.Fatalf("summary is %d×%d, want 3×10", r, c)
	}
	for r := range 3 {
		for j := range 10 {
			if got, want := s.At(r, j), float64(1000*r+17*j); got != want {
				t.Errorf("summary[%d][%d] = %v, want %v (day %d)", r, j, got, want, 17*j)
			}
		}
	}
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, "sir_jump") || !strings.Contains(msg, "expected 161") {
			t.Errorf("Summary of 160 columns: panic %q, want one naming sir_jump and 161 columns", msg)
		}
	}()
	tk.Summary(mat.NewDense(1, 160, nil))
}

// TestSIRJumpOnsetArrival: with β = γ = 10⁻³⁰⁰ (the prior's support excludes 0) the first
// event waits some 10³⁰⁰ days, so a path is 0 before the arrival and 1 from it on: the fraction of paths infected on day d is P(start ≤ d) = d/60
// for d ≤ 60 and 1 after. Over 4000 paths each fraction agrees within 4 binomial standard
// errors (exactly, where it is 0 or 1). A path that started on day 0 (sir_jump) or arrived
// within 30 days would be infected on day 30 in every path.
func TestSIRJumpOnsetArrival(t *testing.T) {
	const n = 4000
	tk := SIRJumpOnset()
	theta := mat.NewDense(n, 2, nil)
	for k := range n {
		theta.SetRow(k, []float64{1e-300, 1e-300})
	}
	x := tk.Simulate(rand.New(rand.NewPCG(9, 9)), theta)
	for _, day := range []int{0, 15, 30, 45, 59, 60, 100, 160} {
		p := math.Min(float64(day)/sirJumpOnsetMax, 1)
		var infected float64
		for k := range n {
			switch v := x.At(k, day); v {
			case 1:
				infected++
			case 0:
			default:
				t.Fatalf("row %d, day %d: I = %v, want 0 or 1 with β = γ = 10⁻³⁰⁰", k, day, v)
			}
		}
		infected /= n
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(infected-p) > 4*se {
			t.Errorf("day %d: fraction infected %.4f, want %.4f ± %.4f (4 s.e.)", day, infected, p, 4*se)
		}
	}
}

// TestSIRJumpOnsetShift: at θ = (0.4, 0.125) the epidemics of sir_jump_onset are those of
// sir_jump moved by the arrival day, uniform on [0, 60): among the epidemics that take off,
// the mean peak day is sir_jump's plus 30 (within 4 standard errors of the difference, and
// half a day for the daily grid) and its spread is at least that of the arrival, 60/√12 ≈ 17
// days (the test asks for more than 12; sir_jump's is about 5).
func TestSIRJumpOnsetShift(t *testing.T) {
	const n = 600
	theta := mat.NewDense(n, 2, nil)
	for k := range n {
		theta.SetRow(k, []float64{0.4, 0.125})
	}
	tookOff := func(tk *SIRJumpTask) []float64 {
		days := peakDays(tk.Simulate(rand.New(rand.NewPCG(10, 10)), theta))
		if len(days) < n/4 {
			t.Fatalf("%s: %d of %d epidemics took off, want more than %d (about 69%%)", tk.Name(), len(days), n, n/4)
		}
		return days
	}
	onset, plain := tookOff(SIRJumpOnset()), tookOff(SIRJump())
	mOnset, seOnset := meanSE(onset)
	mPlain, sePlain := meanSE(plain)
	shift, se := mOnset-mPlain, math.Hypot(seOnset, sePlain)
	if math.Abs(shift-sirJumpOnsetMax/2) > 4*se+0.5 {
		t.Errorf("mean peak day %.1f with the arrival, %.1f without: shift %.1f, want %d ± %.1f", mOnset, mPlain, shift, sirJumpOnsetMax/2, 4*se+0.5)
	}
	if v, _ := varSE(onset); math.Sqrt(v) < 12 {
		t.Errorf("peak day sd %.1f days, want > 12 (the arrival's alone is %.1f)", math.Sqrt(v), sirJumpOnsetMax/math.Sqrt(12))
	}
}

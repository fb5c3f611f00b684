package task

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/internal/sbibmtest"
	"github.com/gosbi/gosbi/sbi/dist"
)

// isMoments draws m parameters from a Gaussian in log θ fitted to the reference samples ref
// (its covariance doubled), weighs each by p(x | θ)·π(θ)/r(θ) with the summary likelihood of
// st, and returns the weighted mean and standard deviation of each log θ coordinate and the
// effective sample size (Σw)²/Σw².
func isMoments(t *testing.T, st *SeriesTask, x []float64, ref *mat.Dense, m int, rng *rand.Rand) (mean, sd []float64, ess float64) {
	t.Helper()
	n, d := ref.Dims()
	logRef := mat.NewDense(n, d, nil)
	logRef.Apply(func(_, _ int, v float64) float64 { return math.Log(v) }, ref)
	cov := mat.NewSymDense(d, nil)
	stat.CovarianceMatrix(cov, logRef, nil)
	cov.ScaleSym(2, cov)
	mu := make([]float64, d)
	for j := range mu {
		mu[j] = stat.Mean(column(logRef, j), nil)
	}
	r := dist.NewMultivariateNormal(mu, cov)
	z := r.Sample(rng, m)
	lr := r.LogProb(z)
	theta := mat.NewDense(m, d, nil)
	theta.Apply(func(_, _ int, v float64) float64 { return math.Exp(v) }, z)
	lp := st.Prior().LogProb(theta)
	lw := make([]float64, m)
	best := math.Inf(-1)
	for i := range lw {
		ll, err := st.SummaryLogLikelihood(theta.RawRowView(i), x)
		if err != nil && !errors.Is(err, ErrODE) {
			t.Fatal(err)
		}
		jac := 0.0 // log |dθ/dz|
		for _, v := range z.RawRowView(i) {
			jac += v
		}
		lw[i] = ll + lp[i] - (lr[i] - jac)
		best = math.Max(best, lw[i])
	}
	w := make([]float64, m)
	sw, sw2 := 0.0, 0.0
	for i, v := range lw {
		w[i] = math.Exp(v - best)
		sw += w[i]
		sw2 += w[i] * w[i]
	}
	mean, sd = make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		mean[j], sd[j] = stat.MeanStdDev(column(z, j), w)
	}
	return mean, sd, sw * sw / sw2
}

// momentsAgree reports which coordinates' IS moments differ from those of the reference
// samples by more than 4 standard errors: of a mean sd·√(1/ESS + 1/n), of a standard
// deviation sd·√(1/(2·ESS) + 1/(2n)) (Gaussian approximations).
func momentsAgree(ref *mat.Dense, mean, sd []float64, ess float64) []string {
	n, d := ref.Dims()
	var bad []string
	for j := 0; j < d; j++ {
		lc := column(ref, j)
		for i := range lc {
			lc[i] = math.Log(lc[i])
		}
		rm, rs := stat.MeanStdDev(lc, nil)
		if se := rs * math.Sqrt(1/ess+1/float64(n)); math.Abs(mean[j]-rm) > 4*se {
			bad = append(bad, fmt.Sprintf("mean of log θ[%d]: %.4f vs reference %.4f (4 SE = %.4f)", j, mean[j], rm, 4*se))
		}
		if se := rs * math.Sqrt(1/(2*ess)+1/(2*float64(n))); math.Abs(sd[j]-rs) > 4*se {
			bad = append(bad, fmt.Sprintf("sd of log θ[%d]: %.4f vs reference %.4f (4 SE = %.4f)", j, sd[j], rs, 4*se))
		}
	}
	return bad
}

// TestSummaryLikelihoodReference checks SummaryLogLikelihood against sbibm's reference
// posteriors of sir and lotka_volterra (observation 1): the posterior that the likelihood and
// the prior define, estimated by importance sampling, must have the means and standard
// deviations (of log θ) of the reference samples. The check has power: the same estimate with
// a wrong likelihood (1200 binomial draws instead of 1000; a noise sd of 0.2 instead of 0.1)
// must disagree.
func TestSummaryLikelihoodReference(t *testing.T) {
	sbibmtest.Use(t)
	wrongSIR, wrongLV := *SIRRaw(), *LotkaVolterraRaw()
	wrongSIR.model, wrongLV.model = sirModel(1200), lvModel(0.2)
	for _, c := range []struct {
		st, wrong *SeriesTask
		draws     int
	}{{SIRRaw(), &wrongSIR, 4000}, {LotkaVolterraRaw(), &wrongLV, 4000}} {
		name := c.st.SummaryTask().Name()
		t.Run(name, func(t *testing.T) {
			tk := c.st.SummaryTask()
			x, err := tk.Observation(1)
			needData(t, err)
			ref, err := tk.ReferencePosterior(1)
			needData(t, err)
			mean, sd, ess := isMoments(t, c.st, x, ref, c.draws, rand.New(rand.NewPCG(3, 1)))
			if ess < 200 {
				t.Fatalf("inconclusive: effective sample size %.0f of %d draws", ess, c.draws)
			}
			if bad := momentsAgree(ref, mean, sd, ess); len(bad) > 0 {
				t.Errorf("posterior of SummaryLogLikelihood (ESS %.0f) differs from the reference:\n%s", ess, strings.Join(bad, "\n"))
			}
			mean, sd, ess = isMoments(t, c.wrong, x, ref, c.draws, rand.New(rand.NewPCG(3, 1)))
			if bad := momentsAgree(ref, mean, sd, ess); ess >= 200 && len(bad) == 0 {
				t.Errorf("a wrong likelihood's posterior (ESS %.0f) agrees with the reference: the check has no power", ess)
			}
		})
	}
}

// lvClamped has a predator population that falls to about 2·10⁻¹⁸ between t = 0 and 20, so that
// the clamp at 10⁻¹⁰ of the observation model acts on some of its values.
var lvClamped = []float64{6.617942074511487, 0.02638541140510797, 0.7117603966035342, 0.07904562447407532}

// TestLVLikelihoodSimulated checks the likelihood of lotka_volterra_raw and lotka_volterra
// against their simulators: for data simulated at θ, log p(x | θ) + Σ log x is
// −Σ z²/2 − n·(log 0.1 + ½·log 2π) with z = (log x − μ)/0.1 standard normal, so its mean over
// simulations is −n·(log 0.1 + ½·log 2π + ½) whatever the ODE's solution, with standard error
// √(n/2/sims). A likelihood with another noise sd, another clamp or another layout than the
// simulator's fails it: the test runs at a θ where the clamp acts and with the noise sd of the
// likelihood changed to 0.15 (power).
func TestLVLikelihoodSimulated(t *testing.T) {
	const sims = 400
	raw := LotkaVolterraRaw()
	wrong := *raw
	wrong.model = lvModel(0.15)
	summaryLik := func(st *SeriesTask) func(theta, x []float64) (float64, error) { return st.SummaryLogLikelihood }
	for _, c := range []struct {
		name  string
		sim   Task
		lik   func(theta, x []float64) (float64, error)
		theta []float64
		fail  bool
	}{
		{"raw", raw, raw.LogLikelihood, []float64{0.8, 0.05, 1, 0.05}, false},
		{"raw/clamped", raw, raw.LogLikelihood, lvClamped, false},
		{"summary", LotkaVolterra(), summaryLik(raw), []float64{0.8, 0.05, 1, 0.05}, false},
		{"summary/clamped", LotkaVolterra(), summaryLik(raw), lvClamped, false},
		{"raw/sd 0.15", raw, wrong.LogLikelihood, []float64{0.8, 0.05, 1, 0.05}, true},
		{"summary/sd 0.15", LotkaVolterra(), summaryLik(&wrong), []float64{0.8, 0.05, 1, 0.05}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim, err := Simulate(rand.New(rand.NewPCG(4, 1)), c.sim, constTheta(sims, c.theta...))
			if err != nil {
				t.Fatal(err)
			}
			n := c.sim.DataDim()
			v := make([]float64, sims)
			for i := range v {
				x := sim.X.RawRowView(i)
				ll, err := c.lik(c.theta, x)
				if err != nil {
					t.Fatal(err)
				}
				v[i] = ll
				for _, xv := range x {
					v[i] += math.Log(xv)
				}
			}
			want := -float64(n) * (math.Log(0.1) + 0.5*math.Log(2*math.Pi) + 0.5)
			se := math.Sqrt(float64(n) / 2 / sims)
			got := stat.Mean(v, nil)
			if agree := math.Abs(got-want) <= 4*se; agree == c.fail {
				t.Errorf("mean of log p(x | θ) + Σ log x over %d simulations: %.3f, closed form %.3f (4 SE = %.3f); a wrong likelihood: %v", sims, got, want, 4*se, c.fail)
			}
		})
	}
}

// sirPMF returns the probability of every count 0…1000 of value j of x under lik at θ, each
// from lik with x[j] set to that count (the other values of x held), normalized.
func sirPMF(t *testing.T, lik func(theta, x []float64) (float64, error), theta, x []float64, j int) []float64 {
	t.Helper()
	y := append([]float64(nil), x...)
	lp := make([]float64, sirCount+1)
	best := math.Inf(-1)
	for k := range lp {
		y[j] = float64(k)
		l, err := lik(theta, y)
		if err != nil {
			t.Fatal(err)
		}
		lp[k] = l
		best = math.Max(best, l)
	}
	sum := 0.0
	for k := range lp {
		lp[k] = math.Exp(lp[k] - best)
		sum += lp[k]
	}
	for k := range lp {
		lp[k] /= sum
	}
	return lp
}

// chiSquareTail compares the counts of value j over the rows of x with the probabilities pmf,
// pooling neighbouring counts into bins that expect at least 5, and returns the upper tail
// probability of Pearson's statistic.
func chiSquareTail(x *mat.Dense, j int, pmf []float64) float64 {
	n, _ := x.Dims()
	obs := make([]float64, len(pmf))
	for i := 0; i < n; i++ {
		obs[int(x.At(i, j))]++
	}
	var eBins, oBins []float64
	e, o := 0.0, 0.0
	for k := range pmf {
		e, o = e+pmf[k]*float64(n), o+obs[k]
		if e >= 5 {
			eBins, oBins = append(eBins, e), append(oBins, o)
			e, o = 0, 0
		}
	}
	eBins[len(eBins)-1] += e
	oBins[len(oBins)-1] += o
	chi := 0.0
	for b := range eBins {
		chi += (oBins[b] - eBins[b]) * (oBins[b] - eBins[b]) / eBins[b]
	}
	return distuv.ChiSquared{K: float64(len(eBins) - 1)}.Survival(chi)
}

// TestSIRLikelihoodSimulated checks the likelihood of sir_raw and sir against their
// simulators: at a fixed θ, the counts of one day over 2000 simulations must follow the
// distribution that the likelihood gives that day's value (its probabilities from the
// likelihood of one series with that value varied), by Pearson's chi-square (tail ≥ 10⁻³).
// The check has power: a likelihood with 1100 binomial draws instead of 1000 must fail it.
func TestSIRLikelihoodSimulated(t *testing.T) {
	const sims = 2000
	raw := SIRRaw()
	wrong := *raw
	wrong.model = sirModel(1100)
	theta := []float64{0.5, 0.15}
	for _, c := range []struct {
		name string
		sim  Task
		lik  func(theta, x []float64) (float64, error)
		j    int // the value tested: day 20 of the raw series, day 34 of the summary
		fail bool
	}{
		{"raw", raw, raw.LogLikelihood, 20, false},
		{"summary", SIR(), raw.SummaryLogLikelihood, 2, false},
		{"raw/1100 draws", raw, wrong.LogLikelihood, 20, true},
		{"summary/1100 draws", SIR(), wrong.SummaryLogLikelihood, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim, err := Simulate(rand.New(rand.NewPCG(5, 1)), c.sim, constTheta(sims, theta...))
			if err != nil {
				t.Fatal(err)
			}
			pmf := sirPMF(t, c.lik, theta, sim.X.RawRowView(0), c.j)
			if tail := chiSquareTail(sim.X, c.j, pmf); (tail >= 1e-3) == c.fail {
				t.Errorf("chi-square of value %d's counts against the likelihood: tail %.3g; a wrong likelihood: %v", c.j, tail, c.fail)
			}
		})
	}
}

// TestSeriesLikelihoodErrors checks that bad input is an error that says what was expected.
func TestSeriesLikelihoodErrors(t *testing.T) {
	sir, lv := SIRRaw(), LotkaVolterraRaw()
	sx, lx := make([]float64, sir.DataDim()), make([]float64, lv.DataDim())
	for i := range lx {
		lx[i] = 1
	}
	bad := func(x []float64, i int, v float64) []float64 {
		y := append([]float64(nil), x...)
		y[i] = v
		return y
	}
	for _, c := range []struct {
		name  string
		lik   func(theta, x []float64) (float64, error)
		theta []float64
		x     []float64
		want  string
		inf   bool
	}{
		{"short x", sir.LogLikelihood, []float64{0.4, 0.1}, sx[:10], "x 10, expected 2 and 161", false},
		{"summary length", sir.SummaryLogLikelihood, []float64{0.4, 0.1}, sx, "x 161, expected 2 and 10", false},
		{"short θ", lv.LogLikelihood, []float64{1, 1}, lx, "θ has 2 values", false},
		{"NaN θ", sir.LogLikelihood, []float64{math.NaN(), 0.1}, sx, "θ[0] = NaN", false},
		{"NaN x", lv.LogLikelihood, []float64{1, 0.05, 1, 0.05}, bad(lx, 7, math.NaN()), "x[7] = NaN, expected a finite value", false},
		{"fractional count", sir.LogLikelihood, []float64{0.4, 0.1}, bad(sx, 3, 2.5), "x[3] = 2.5: expected a count", false},
		{"count above 1000", sir.LogLikelihood, []float64{0.4, 0.1}, bad(sx, 3, 1001), "integer from 0 to 1000", false},
		{"logarithm passed", lv.LogLikelihood, []float64{1, 0.05, 1, 0.05}, bad(lx, 5, -2), "not its logarithm", false},
		{"failed solve", lv.LogLikelihood, []float64{1, 0.05, -50, 1e3}, lx, "ODE solve failed", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := c.lik(c.theta, c.x)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if c.inf && (!math.IsInf(v, -1) || !errors.Is(err, ErrODE)) {
				t.Errorf("failed solve: value %v, error %v; want −Inf and an error wrapping ErrODE", v, err)
			}
		})
	}
}

// TestLikelihoodSubnormal checks the logarithms of the observation models at a subnormal
// argument, where math.Log on amd64 is wrong (golang/go#56600): a sir proportion I/N of 1e-310
// and a lotka_volterra value of 1e-310 must give ln(1e-310) = −310·ln 10.
func TestLikelihoodSubnormal(t *testing.T) {
	want := -310 * math.Ln10
	if got := xlogy(1, 1e-310); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("xlogy(1, 1e-310) = %v, want %v", got, want)
	}
	m := lvModel(0.1)
	u := []float64{1, 1}
	got, err := m.logObs(u, 0, 1e-310) // log density −lx − log sd − log 2π/2 − lx²/(2 sd²) at u = 1
	lx := want
	ref := -lx - math.Log(0.1) - 0.5*math.Log(2*math.Pi) - lx*lx/0.02
	if err != nil || math.Abs(got-ref) > 1e-9*math.Abs(ref) {
		t.Errorf("lotka_volterra log density of 1e-310 = %v, %v; want %v", got, err, ref)
	}
}

package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/task"
)

// gaussianLinearLogLik is log N(x; θ, 0.1·I), gaussian_linear's likelihood.
func gaussianLinearLogLik(theta, x []float64) (float64, error) {
	s := 0.0
	for i := range x {
		r := x[i] - theta[i]
		s += -r*r/0.2 - 0.5*math.Log(2*math.Pi*0.1)
	}
	return s, nil
}

// shiftedPosterior returns, for an observation of gaussian_linear, a Gaussian proposal around
// the exact posterior's mean x/2 shifted by shift in every coordinate, with sd sd (the exact
// posterior's is √0.05 ≈ 0.22).
func shiftedPosterior(shift, sd float64) func(x []float64) []sbi.Posterior {
	return func(x []float64) []sbi.Posterior {
		mean := make([]float64, len(x))
		sds := make([]float64, len(x))
		for i, v := range x {
			mean[i], sds[i] = v/2+shift, sd
		}
		return []sbi.Posterior{dist.NewNormal(mean, sds)}
	}
}

// TestReferenceLogPosteriors checks the importance-sampling estimate of log p(θ* | x) against
// gaussian_linear's exact posterior (10 parameters): with a deliberately imperfect proposal
// (shifted by 0.05 and 30% too wide) every pair's estimate lies within 4 of its standard
// errors of the exact value, and those errors are small enough (< 0.05) for the check to
// tell; with a proposal far off and too narrow every pair is inconclusive (low ESS), and
// counted as such, until the Laplace component is added, which makes them all conclusive and
// exact within their errors.
func TestReferenceLogPosteriors(t *testing.T) {
	tk := task.GaussianLinear()
	rng := rand.New(rand.NewPCG(7, 7))
	theta := tk.Prior().Sample(rng, 12)
	x := tk.Simulate(rng, theta)
	good := ReferenceModel{Prior: tk.Prior(), LogLikelihood: gaussianLinearLogLik, Proposals: shiftedPosterior(0.05, 1.3*math.Sqrt(0.05))}
	res, err := ReferenceLogPosteriors(theta, x, good, ReferenceConfig{Draws: 4000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inconclusive != 0 {
		t.Errorf("%d pairs inconclusive with a good proposal", res.Inconclusive)
	}
	for i, p := range res.Pairs {
		post, err := tk.ExactPosterior(x.RawRowView(i))
		if err != nil {
			t.Fatal(err)
		}
		exact := post.LogProb(mat.NewDense(1, 10, theta.RawRowView(i)))[0]
		if math.Abs(p.LogPosterior-exact) > 4*p.SE || !(p.SE < 0.05) {
			t.Errorf("pair %d: estimate %.4f ± %.4f (ESS %.0f), exact %.4f", i, p.LogPosterior, p.SE, p.ESS, exact)
		}
	}
	bad := ReferenceModel{Prior: tk.Prior(), LogLikelihood: gaussianLinearLogLik, Proposals: shiftedPosterior(0.5, 0.05)}
	res, err = ReferenceLogPosteriors(theta, x, bad, ReferenceConfig{Draws: 4000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inconclusive != len(res.Pairs) {
		t.Errorf("a bad proposal left %d of %d pairs conclusive", len(res.Pairs)-res.Inconclusive, len(res.Pairs))
	}
	for i, p := range res.Pairs {
		if !strings.HasPrefix(p.Inconclusive, "inconclusive: ") {
			t.Errorf("pair %d: Inconclusive %q, ESS %.1f", i, p.Inconclusive, p.ESS)
		}
	}
	// The same bad proposal with the Laplace component: conclusive and exact within the errors.
	res, err = ReferenceLogPosteriors(theta, x, bad, ReferenceConfig{Draws: 4000, Seed: 1, Laplace: true})
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, tk, theta, x, res)
}

// checkExact fails t unless every pair of res is conclusive, has a Laplace component and lies
// within 4 of its standard errors of gaussian_linear's exact log posterior, errors below 0.05.
func checkExact(t *testing.T, tk *task.GaussianLinearTask, theta, x *mat.Dense, res *ReferenceResult) {
	t.Helper()
	for i, p := range res.Pairs {
		post, err := tk.ExactPosterior(x.RawRowView(i))
		if err != nil {
			t.Fatal(err)
		}
		exact := post.LogProb(mat.NewDense(1, 10, theta.RawRowView(i)))[0]
		if p.Inconclusive != "" || !p.Laplace || math.Abs(p.LogPosterior-exact) > 4*p.SE || !(p.SE < 0.05) {
			t.Errorf("pair %d with a Laplace component: estimate %.4f ± %.4f (ESS %.0f, Laplace %v, %q), exact %.4f", i, p.LogPosterior, p.SE, p.ESS, p.Laplace, p.Inconclusive, exact)
		}
	}
}

// TestReferenceLogPosteriorsErrors checks that bad input is an error saying what was expected.
func TestReferenceLogPosteriorsErrors(t *testing.T) {
	tk := task.GaussianLinear()
	rng := rand.New(rand.NewPCG(7, 8))
	theta := tk.Prior().Sample(rng, 3)
	x := tk.Simulate(rng, theta)
	ok := ReferenceModel{Prior: tk.Prior(), LogLikelihood: gaussianLinearLogLik}
	for _, c := range []struct {
		name  string
		theta *mat.Dense
		model ReferenceModel
		cfg   ReferenceConfig
		want  string
	}{
		{"rows", theta.Slice(0, 2, 0, 10).(*mat.Dense), ok, ReferenceConfig{}, "x has 3 rows"},
		{"draws", theta, ok, ReferenceConfig{Draws: 1}, "at least 2 draws"},
		{"share", theta, ReferenceModel{Prior: tk.Prior(), LogLikelihood: gaussianLinearLogLik, Proposals: shiftedPosterior(0, 0.2)}, ReferenceConfig{Defensive: 1.5}, "a share in [0, 1]"},
		{"no likelihood", theta, ReferenceModel{Prior: tk.Prior()}, ReferenceConfig{}, "needs the model's Prior and LogLikelihood"},
		{"proposal dim", theta, ReferenceModel{Prior: tk.Prior(), LogLikelihood: gaussianLinearLogLik,
			Proposals: func([]float64) []sbi.Posterior { return []sbi.Posterior{dist.NewNormal([]float64{0}, []float64{1})} }}, ReferenceConfig{}, "proposal 0 has 1 parameters, expected 10"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReferenceLogPosteriors(c.theta, x, c.model, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// gridLogPosterior returns log p(θ* | x) of SIR's two parameters, normalized on a grid in
// (u, v) = (log β − log γ, log γ) of p(x | θ)·π(θ)·βγ (the Jacobian of θ to (u, v)): u is the
// log of the reproduction number, which the data fix far more tightly than v. Coarse grids
// zoom in from lo..hi, each on the cells within 30 nats of its highest log density and three
// cells around them; the last, finer grid integrates. It fails t if that grid's edges hold
// density within 20 nats of its highest.
func sirGridLogPosterior(t *testing.T, logJoint func(th []float64) float64, thetaStar, lo, hi []float64) float64 {
	t.Helper()
	var vals [][]float64
	var step []float64
	best := math.Inf(-1)
	for _, n := range []int{40, 40, 40, 120} {
		if vals != nil { // zoom in on the cells within 30 nats of the best
			nlo, nhi := []float64{math.Inf(1), math.Inf(1)}, []float64{math.Inf(-1), math.Inf(-1)}
			for i, r := range vals {
				for j, v := range r {
					if v > best-30 {
						a, b := lo[0]+float64(i)*step[0], lo[1]+float64(j)*step[1]
						nlo[0], nlo[1] = math.Min(nlo[0], a-3*step[0]), math.Min(nlo[1], b-3*step[1])
						nhi[0], nhi[1] = math.Max(nhi[0], a+3*step[0]), math.Max(nhi[1], b+3*step[1])
					}
				}
			}
			lo, hi = nlo, nhi
		}
		step = []float64{(hi[0] - lo[0]) / float64(n-1), (hi[1] - lo[1]) / float64(n-1)}
		vals, best = make([][]float64, n), math.Inf(-1)
		for i := range vals {
			vals[i] = make([]float64, n)
			for j := range vals[i] {
				a, b := lo[0]+float64(i)*step[0], lo[1]+float64(j)*step[1]
				vals[i][j] = logJoint([]float64{math.Exp(a + b), math.Exp(b)}) + a + 2*b // log β + log γ = u + 2v
				best = math.Max(best, vals[i][j])
			}
		}
	}
	n, edge, sum := len(vals), math.Inf(-1), 0.0
	for i, r := range vals {
		for j, v := range r {
			sum += math.Exp(v - best)
			if i == 0 || j == 0 || i == n-1 || j == n-1 {
				edge = math.Max(edge, v)
			}
		}
	}
	if edge > best-20 {
		t.Fatalf("inconclusive: the grid's edge holds log density %.1f, within 20 nats of its highest %.1f", edge, best)
	}
	return logJoint(thetaStar) - (best + math.Log(sum*step[0]*step[1]))
}

// TestReferenceLogPosteriorsSIRGrid checks the estimate, with the prior and the Laplace
// component as the only proposals, on sir_raw (161 binomial counts, a posterior far narrower
// than the prior) against the log posterior density normalized on a grid, for two pairs:
// within 4 standard errors plus 0.01 for the grid.
func TestReferenceLogPosteriorsSIRGrid(t *testing.T) {
	st := task.SIRRaw()
	rng := rand.New(rand.NewPCG(9, 1))
	sim, err := task.Simulate(rng, st, mat.NewDense(2, 2, []float64{0.6, 0.15, 0.35, 0.1})) // epidemics that take off
	if err != nil {
		t.Fatal(err)
	}
	model := ReferenceModel{Prior: st.Prior(), LogLikelihood: st.LogLikelihood}
	res, err := ReferenceLogPosteriors(sim.Theta, sim.X, model, ReferenceConfig{Draws: 1000, Seed: 2, Laplace: true})
	if err != nil {
		t.Fatal(err)
	}
	lo := []float64{math.Log(0.4/0.125) - 3*0.55, math.Log(0.125) - 3*0.2} // ±3 prior sd of u and v
	hi := []float64{math.Log(0.4/0.125) + 3*0.55, math.Log(0.125) + 3*0.2}
	for i, p := range res.Pairs {
		x := sim.X.RawRowView(i)
		logJoint := func(th []float64) float64 {
			ll, err := st.LogLikelihood(th, x)
			if err != nil {
				t.Fatal(err)
			}
			return ll + st.Prior().LogProb(mat.NewDense(1, 2, th))[0]
		}
		want := sirGridLogPosterior(t, logJoint, sim.Theta.RawRowView(i), lo, hi)
		if p.Inconclusive != "" || math.Abs(p.LogPosterior-want) > 4*p.SE+0.01 {
			t.Errorf("pair %d: estimate %.4f ± %.4f (ESS %.0f, %q), grid %.4f", i, p.LogPosterior, p.SE, p.ESS, p.Inconclusive, want)
		}
	}
}

package sbitest

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// The suite's own tests: its checks pass an estimator that is exact (level) and fail
// estimators that are wrong in one way each (power), without any training.

// closedForm is an estimator whose posterior is the task's closed form, optionally made wrong.
type closedForm struct {
	task        *GaussianLinear
	shift       float64 // added to the posterior mean of θ₀, in posterior sd
	scale       float64 // factor of the posterior sd (0: 1)
	pairsOffset float64 // added to LogProbPairs only
	nanFinite   bool    // LogProbPairs gives a finite value for a NaN θ
	ignoreStop  bool    // Train does not stop when the context is cancelled
}

func (c *closedForm) post(x []float64) *dist.MultivariateNormal {
	p := c.task.Posterior(x)
	mean, cov := p.Mean(), p.Covariance()
	mean[0] += c.shift * math.Sqrt(cov.At(0, 0))
	if c.scale != 0 {
		cov.ScaleSym(c.scale*c.scale, cov)
	}
	return dist.NewMultivariateNormal(mean, cov)
}

// refusing is the posterior at an observation that is not finite.
type refusing struct{}

func (refusing) Dim() int                           { return 2 }
func (refusing) Sample(*rand.Rand, int) *mat.Dense  { panic("not finite") }
func (refusing) LogProb(theta *mat.Dense) []float64 { panic("not finite") }
func (refusing) SampleContext(context.Context, *rand.Rand, int) (*mat.Dense, error) {
	return nil, fmt.Errorf("not finite")
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func (c *closedForm) Posterior(x []float64) sbi.Posterior {
	if !finite(x) {
		return refusing{}
	}
	return c.post(x)
}

func (c *closedForm) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range out {
		th := theta.RawRowView(i)
		switch {
		case !finite(x.RawRowView(i)):
			out[i] = math.Inf(-1)
		case c.nanFinite && !finite(th):
			out[i] = 0
		default:
			out[i] = c.post(x.RawRowView(i)).LogProb(mat.NewDense(1, 2, append([]float64(nil), th...)))[0] + c.pairsOffset
		}
	}
	return out
}

// Train drops the non-finite pairs and runs the steps of the configuration, calling the
// regularizer in each and checking the context before each unless ignoreStop.
func (c *closedForm) Train(theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	n, _ := theta.Dims()
	res := &sbi.TrainResult{}
	for i := 0; i < n; i++ {
		if !finite(theta.RawRowView(i)) || !finite(x.RawRowView(i)) {
			res.Dropped++
		}
	}
	tp := nn.NewTape()
	for step := 0; step < 50; step++ {
		if err := sbi.Canceled("train"); err != nil && !c.ignoreStop {
			return nil, err
		}
		if cfg.Regularizer != nil {
			if _, err := cfg.Regularizer.Penalty(&sbi.RegBatch{Tape: tp}); err != nil {
				return nil, err
			}
		}
		tp.Reset()
	}
	if err := sbi.Canceled("train"); err != nil {
		return nil, err
	}
	return res, nil
}

func (c *closedForm) Save(w io.Writer) error { return nil }

// recorder is a testing.TB that records failures instead of reporting them.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Errorf(f string, a ...any) { r.add(fmt.Sprintf(f, a...)) }
func (r *recorder) Error(a ...any)            { r.add(fmt.Sprint(a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.add(fmt.Sprintf(f, a...)); runtime.Goexit() }
func (r *recorder) Fatal(a ...any)            { r.add(fmt.Sprint(a...)); runtime.Goexit() }

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, s)
}

// failures runs check on a recorder and returns what it reported.
func failures(t *testing.T, check func(tb testing.TB)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.errs
}

// exactConfig is the suite's configuration for a closed-form estimator: no allowance.
var exactConfig = Config{Allowance: 1e-12}

func TestExactEstimatorPasses(t *testing.T) {
	s := newSuite(exactConfig)
	exact := &closedForm{task: s.task}
	for name, check := range map[string]func(tb testing.TB){
		"train":      func(tb testing.TB) { s.checkTrain(tb, exact) },
		"moments":    func(tb testing.TB) { s.checkMoments(tb, exact) },
		"pairs":      func(tb testing.TB) { s.checkPairs(tb, exact) },
		"nonfinite":  func(tb testing.TB) { s.checkNonFinite(tb, exact) },
		"concurrent": func(tb testing.TB) { s.checkConcurrent(tb, exact) },
		"cancel":     func(tb testing.TB) { s.checkCancel(tb, exact) },
	} {
		if errs := failures(t, check); len(errs) > 0 {
			t.Errorf("%s: the exact estimator fails: %s", name, strings.Join(errs, "; "))
		}
	}
}

// TestWrongEstimatorsFail checks the power of each check against an estimator that is wrong
// in its way: the moment check must catch a mean off by half a posterior sd and a sd 50% too
// wide at the default allowance.
func TestWrongEstimatorsFail(t *testing.T) {
	s := newSuite(Config{})
	task := s.task
	cases := []struct {
		name  string
		check func(tb testing.TB)
		want  string
	}{
		{"mean off by half an sd", func(tb testing.TB) { s.checkMoments(tb, &closedForm{task: task, shift: 0.5}) }, "mean of θ0"},
		{"sd 50% too wide", func(tb testing.TB) { s.checkMoments(tb, &closedForm{task: task, scale: 1.5}) }, "sd of θ"},
		{"sd 40% too narrow", func(tb testing.TB) { s.checkMoments(tb, &closedForm{task: task, scale: 0.6}) }, "sd of θ"},
		{"LogProbPairs off by a constant", func(tb testing.TB) { s.checkPairs(tb, &closedForm{task: task, pairsOffset: 1e-3}) }, "LogProbPairs"},
		{"a finite density at NaN θ", func(tb testing.TB) { s.checkNonFinite(tb, &closedForm{task: task, nanFinite: true}) }, "θ NaN"},
		{"training that ignores cancellation", func(tb testing.TB) { s.checkCancel(tb, &closedForm{task: task, ignoreStop: true}) }, "more steps after"},
		{"a load that changes the densities", func(tb testing.TB) {
			s := newSuite(Config{Load: func(io.Reader) (sbi.Amortized, error) { return &closedForm{task: task, shift: 1e-9}, nil }})
			s.checkRoundTrip(tb, &closedForm{task: task})
		}, "after the round trip"},
	}
	for _, c := range cases {
		errs := failures(t, c.check)
		if len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), c.want) {
			t.Errorf("%s: the check reported %q, expected a failure about %q", c.name, errs, c.want)
		}
	}
}

// TestEstimatorRunsEveryCheck runs the whole suite on the exact estimator.
func TestEstimatorRunsEveryCheck(t *testing.T) {
	cfg := exactConfig
	var task *GaussianLinear
	cfg.Load = func(io.Reader) (sbi.Amortized, error) { return &closedForm{task: task}, nil }
	TestEstimator(t, func(prior dist.Distribution) Estimator {
		task = NewGaussianLinear(1)
		return &closedForm{task: task}
	}, cfg)
}

// TestGaussianLinearPosterior checks the closed form against importance sampling from the
// prior with the likelihood as weight, with 200,000 draws: the Monte Carlo error of the
// weighted mean is below 0.01 posterior sd (ESS ≈ 10⁴), so 0.05 sd leaves a wide margin,
// and it is tested with 3 trials to check the sum over trials.
func TestGaussianLinearPosterior(t *testing.T) {
	task := NewGaussianLinear(3)
	rng := rand.New(rand.NewPCG(3, 4))
	th := task.Prior().Sample(rng, 1)
	xo := task.Simulate(rng, th).RawRowView(0)
	want := truth(task.Posterior(xo))
	const n = 200_000
	draws := task.Prior().Sample(rng, n)
	var w, m0, m1 float64
	for i := 0; i < n; i++ {
		d := draws.RawRowView(i)
		ll := 0.0
		for tr := 0; tr < 3; tr++ {
			for r := 0; r < 3; r++ {
				mu := glA.At(r, 0)*d[0] + glA.At(r, 1)*d[1]
				z := (xo[3*tr+r] - mu) / glNoise
				ll -= z * z / 2
			}
		}
		wi := math.Exp(ll)
		w += wi
		m0 += wi * d[0]
		m1 += wi * d[1]
	}
	got := [2]float64{m0 / w, m1 / w}
	for j := 0; j < 2; j++ {
		if math.Abs(got[j]-want.mean[j]) > 0.05*want.sd[j] {
			t.Errorf("θ%d: importance-sampled posterior mean %.4f, closed form %.4f (sd %.4f)", j, got[j], want.mean[j], want.sd[j])
		}
	}
}

// failingTrain is an estimator whose training fails.
type failingTrain struct{ closedForm }

func (*failingTrain) Train(*mat.Dense, *mat.Dense, sbi.TrainConfig) (*sbi.TrainResult, error) {
	return nil, fmt.Errorf("diverged")
}

// TestEstimatorError checks the measurement of an estimator's error against estimators whose
// error is known: the closed form (none), a mean shifted by 0.3 posterior sd, an sd 20% too
// wide; and that a training error is returned rather than measured.
func TestEstimatorError(t *testing.T) {
	cases := []struct {
		name    string
		make    func(task *GaussianLinear) Estimator
		want    float64
		wantErr string
	}{
		{"exact", func(task *GaussianLinear) Estimator { return &closedForm{task: task} }, 0, ""},
		{"mean off by 0.3 sd", func(task *GaussianLinear) Estimator { return &closedForm{task: task, shift: 0.3} }, 0.3, ""},
		{"sd 20% too wide", func(task *GaussianLinear) Estimator { return &closedForm{task: task, scale: 1.2} }, 0.2, ""},
		{"training fails", func(task *GaussianLinear) Estimator { return &failingTrain{closedForm{task: task}} }, 0, "diverged"},
	}
	for _, c := range cases {
		got, err := EstimatorError(func(dist.Distribution) Estimator { return c.make(NewGaussianLinear(1)) }, Config{})
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, expected one saying %q", c.name, err, c.wantErr)
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr == "" && math.Abs(got-c.want) > quadratureError:
			t.Errorf("%s: error %.5f, expected %.2f ± %.0e", c.name, got, c.want, quadratureError)
		}
	}
}

package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestSampleSizeBounded checks that every sampler of the package refuses, with an error that
// says to draw in several calls, a request of more than maxSampleValues values (n·Dim) before
// it allocates the draws: n·Dim past int (whose allocation panicked) and just above the bound
// (whose allocation a larger n turns into an out-of-memory crash of the process). n below 1
// is refused too.
func TestSampleSizeBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	prior := dist.NewUniformCube(-1, 1, 2)
	npe, fm := trainedNPEAndFMPE(t, prior, rng)
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	ratio := func(m SamplerMethod) Posterior {
		return newRatioPosterior("test", nil, prior, flat, nil, SamplerConfig{Method: m})
	}
	samplers := map[string]contextSampler{
		"NPE":        npe.PosteriorAt([]float64{0, 0}),
		"FMPE":       fm.PosteriorAt([]float64{0, 0}),
		"mcmc":       ratio(SamplerMCMC).(contextSampler),
		"grid":       ratio(SamplerGrid).(contextSampler),
		"importance": ratio(SamplerImportance).(contextSampler),
		"mixture":    &MixturePosterior{Members: []Posterior{ratio(SamplerGrid), ratio(SamplerGrid)}},
		"truncated":  &TruncatedPrior{prior: prior, post: ratio(SamplerGrid), Threshold: -1, floor: 1e-3},
	}
	for name, s := range samplers {
		for _, c := range []struct {
			what string
			n    int
			want string
		}{
			{"overflow", math.MaxInt/2 + 1, "several calls"},
			{"above", maxSampleValues/2 + 1, "several calls"},
			{"zero", 0, "at least 1"},
			{"negative", -1, "at least 1"},
		} {
			t.Run(name+"/"+c.what, func(t *testing.T) {
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("panic: %v", r)
						}
					}()
					_, err = s.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), c.n)
				}()
				if err == nil || !strings.Contains(err.Error(), c.want) || strings.HasPrefix(err.Error(), "panic") {
					t.Errorf("n = %d: error %v, want one that says %q", c.n, err, c.want)
				}
			})
		}
	}
}

// trainedNPEAndFMPE trains a small NPE and a small FMPE for one epoch on 200 pairs of a
// two-parameter prior, x = θ + 0.3ε, drawn with rng: estimators whose samplers the tests of
// sample sizes and interrupts call, whatever their accuracy.
func trainedNPEAndFMPE(t *testing.T, prior dist.Distribution, rng *rand.Rand) (*NPE, *FMPE) {
	t.Helper()
	theta := prior.Sample(rng, 200)
	x := mat.NewDense(200, 2, nil)
	for i := range 200 {
		for j := range 2 {
			x.Set(i, j, theta.At(i, j)+0.3*rng.NormFloat64())
		}
	}
	npe := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
	fm := NewFMPE(prior, FMPEConfig{Hidden: 8, Layers: 1})
	for _, e := range []Estimator{npe, fm} {
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return npe, fm
}

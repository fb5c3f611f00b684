package calib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"gonum.org/v1/gonum/mat"
)

// nanPosterior is a posterior whose log density is NaN at every θ with θ₀ > cut: a posterior
// that breaks on part of its support.
type nanPosterior struct {
	sbi.Posterior
	cut float64
}

func (p nanPosterior) LogProb(theta *mat.Dense) []float64 {
	lp := p.Posterior.LogProb(theta)
	for i := range lp {
		if theta.At(i, 0) > p.cut {
			lp[i] = math.NaN()
		}
	}
	return lp
}

// nanPosteriorEstimator is a gaussEstimator whose posteriors are nanPosteriors.
type nanPosteriorEstimator struct {
	gaussEstimator
	cut float64
}

func (e nanPosteriorEstimator) Posterior(x []float64) sbi.Posterior {
	return nanPosterior{e.gaussEstimator.Posterior(x), e.cut}
}

// TestRegionNaNDensity: Region.Contains counted a θ at which the posterior's log density is
// NaN as outside the region, and so did Sample (which rejected such draws), GridVolume and
// Volume (which counted them out, or reported that Z could not be estimated), giving a region
// smaller than the posterior's without a word. Contains and Volume, having no error result,
// now panic with an error naming the NaN log density, as Conformal.Contains does; Sample,
// GridVolume and ExpectedVolume return it.
func TestRegionNaNDensity(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	broken := &Region{Posterior: nanPosterior{isoGauss([]float64{0}, 1), 1}, Threshold: 2}
	const want = "the posterior returned a NaN log density at θ = "
	panics := func(t *testing.T, caller string, call func()) {
		t.Helper()
		defer func() {
			r := recover()
			err, ok := r.(error)
			if !ok {
				t.Fatalf("recovered %v, want a panic with an error naming the NaN log density", r)
			}
			if !strings.HasPrefix(err.Error(), "calib: "+caller+": ") || !strings.Contains(err.Error(), want) {
				t.Errorf("panic %q, want calib: %s: …%s…", err, caller, want)
			}
		}()
		call()
	}
	fails := func(t *testing.T, caller string, err error) {
		t.Helper()
		if err == nil || !strings.HasPrefix(err.Error(), "calib: "+caller+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want calib: %s: …%s…", err, caller, want)
		}
	}
	t.Run("Contains", func(t *testing.T) {
		theta := mat.NewDense(3, 1, []float64{0, 0.5, 1.5})
		panics(t, "Region.Contains", func() { broken.Contains(theta) })
		// a row with a NaN entry, at which a sound posterior gives NaN: the panic says to drop it
		defer func() {
			want := "calib: Region.Contains: θ = [NaN] (row 1 of theta) has a NaN or infinite entry"
			if r := fmt.Sprint(recover()); !strings.HasPrefix(r, want) {
				t.Errorf("Contains with a NaN row: recovered %q, want %q…", r, want)
			}
		}()
		sound := &Region{Posterior: isoGauss([]float64{0}, 1), Threshold: 2}
		sound.Contains(mat.NewDense(2, 1, []float64{0, math.NaN()}))
	})
	t.Run("Sample", func(t *testing.T) {
		_, err := broken.Sample(rand.New(rand.NewPCG(1, 2)), 500)
		fails(t, "Region.Sample", err)
	})
	t.Run("GridVolume", func(t *testing.T) {
		_, err := broken.GridVolume([]float64{-4}, []float64{4}, 100)
		fails(t, "Region.GridVolume", err)
	})
	for _, normalized := range []bool{false, true} {
		t.Run(fmt.Sprint("Volume Normalized=", normalized), func(t *testing.T) {
			cfg := VolumeConfig{Samples: 200, Normalized: normalized}
			panics(t, "Region.Volume", func() { broken.Volume(rand.New(rand.NewPCG(3, 4)), m.prior(), cfg) })
		})
	}
	t.Run("ExpectedVolume", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		th := m.prior().Sample(rng, 200)
		c, err := NewConformal(m.estimator(1, 0), th, m.simulate(rng, th), 0.1)
		if err != nil {
			t.Fatal(err)
		}
		c.Estimator = nanPosteriorEstimator{m.estimator(1, 0), 1}
		xs := m.simulate(rng, m.prior().Sample(rng, 3))
		_, _, err = c.ExpectedVolume(rng, m.prior(), xs, VolumeConfig{Samples: 200})
		fails(t, "ExpectedVolume", err)
	})
	// finite densities: the same answers as before
	sound := &Region{Posterior: isoGauss([]float64{0}, 1), Threshold: 2}
	in := sound.Contains(mat.NewDense(3, 1, []float64{0, 1.4, 1.6}))
	if !in[0] || !in[1] || in[2] { // −log q ≤ 2 ⇔ |θ| ≤ √(4 − log 2π) ≈ 1.47
		t.Errorf("Contains = %v, want [true true false]", in)
	}
}

// TestRegionNaNPriorDensity: a prior whose log density is NaN at some draws made Volume
// return NaN, NaN (the bridge estimate of Z fails, or a NaN term enters the sum) and
// ExpectedVolume report that "no prior draw falls where the estimator's density is positive",
// which is not what went wrong. Both now name the prior's NaN log density, as they name the
// posterior's: Volume panics with the error, ExpectedVolume returns it.
func TestRegionNaNPriorDensity(t *testing.T) {
	m := linGaussModel{d: 1, s0: 2, sigma: 1}
	prior := nanPosterior{m.prior(), 1}
	region := &Region{Posterior: isoGauss([]float64{0}, 1), Threshold: 2}
	const want = "the prior returned a NaN log density at θ = "
	for _, normalized := range []bool{false, true} {
		t.Run(fmt.Sprint("Volume Normalized=", normalized), func(t *testing.T) {
			defer func() {
				r := recover()
				err, ok := r.(error)
				if !ok || !strings.HasPrefix(err.Error(), "calib: Region.Volume: ") || !strings.Contains(err.Error(), want) {
					t.Errorf("recovered %v, want a panic with calib: Region.Volume: …%s…", r, want)
				}
			}()
			vol, se := region.Volume(rand.New(rand.NewPCG(3, 4)), prior, VolumeConfig{Samples: 200, Normalized: normalized})
			t.Errorf("Volume = %v ± %v, no panic", vol, se)
		})
	}
	t.Run("ExpectedVolume", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		th := m.prior().Sample(rng, 200)
		c, err := NewConformal(m.estimator(1, 0), th, m.simulate(rng, th), 0.1)
		if err != nil {
			t.Fatal(err)
		}
		xs := m.simulate(rng, m.prior().Sample(rng, 3))
		_, _, err = c.ExpectedVolume(rng, prior, xs, VolumeConfig{Samples: 200})
		if err == nil || !strings.HasPrefix(err.Error(), "calib: ExpectedVolume: observation 0: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want calib: ExpectedVolume: observation 0: …%s…", err, want)
		}
	})
}

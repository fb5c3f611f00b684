package sbi

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// TestMCMCHealthReported checks that an MCMC posterior reports its chains' health and warns
// exactly when they did not mix: a Gaussian posterior (the chains mix: no warning, every split
// R̂ within its limit) and a posterior with two modes 10 standard deviations apart, between
// which slice sampling cannot move (chains started in both stay there: R̂ far above the limit,
// a warning that says so).
func TestMCMCHealthReported(t *testing.T) {
	var buf bytes.Buffer
	defer func(f func() io.Writer) { warnOutput = f }(warnOutput)
	warnOutput = func() io.Writer { return &buf }
	prior := dist.NewUniformCube(-10, 10, 2)
	gauss := func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		for i := range out {
			a, b := theta.At(i, 0)-1, theta.At(i, 1)+2
			out[i] = -0.5 * (a*a + b*b)
		}
		return out
	}
	twoModes := func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		for i := range out {
			a, b := math.Abs(theta.At(i, 0))-5, theta.At(i, 1)
			out[i] = -0.5 * (a*a + b*b) / 0.25
		}
		return out
	}
	cfg := SamplerConfig{Method: SamplerMCMC, Chains: 20, BurnIn: 100}
	p := newRatioPosterior(prior, gauss, nil, cfg)
	if p.MCMCHealth() != nil {
		t.Error("health reported before any draw")
	}
	if _, err := p.SampleChecked(rand.New(rand.NewPCG(1, 1)), 2000); err != nil {
		t.Fatal(err)
	}
	h := p.MCMCHealth()
	switch {
	case h == nil || !h.Assessed():
		t.Fatalf("Gaussian: health %v, expected assessed diagnostics", h)
	case len(h.Warnings()) > 0 || buf.Len() > 0:
		t.Errorf("Gaussian: warnings %q, printed %q, expected none\n%v", h.Warnings(), buf.String(), h)
	case h.Chains != 20 || h.Draws != 100 || len(h.Rhat) != 2 || len(h.ESSBulk) != 2:
		t.Errorf("Gaussian: %d chains × %d draws, %d R̂, %d ESS; expected 20 × 100, 2 and 2", h.Chains, h.Draws, len(h.Rhat), len(h.ESSBulk))
	case !strings.HasPrefix(h.Verdict(), "mixed well"):
		t.Errorf("Gaussian: verdict %q", h.Verdict())
	}
	p = newRatioPosterior(prior, twoModes, nil, cfg)
	if _, err := p.SampleChecked(rand.New(rand.NewPCG(1, 1)), 2000); err != nil {
		t.Fatal(err)
	}
	h = p.MCMCHealth()
	if h == nil || !(h.Rhat[0] > h.RhatLimit) || !strings.Contains(buf.String(), "split R̂ above") || !strings.HasPrefix(h.Verdict(), "poor mixing") {
		t.Errorf("two modes: health %v, printed %q, expected R̂ of θ1 above its limit and a warning", h, buf.String())
	}
	// Too few draws per chain: not assessed, and said so.
	if _, err := p.SampleChecked(rand.New(rand.NewPCG(1, 1)), 40); err != nil {
		t.Fatal(err)
	}
	if h := p.MCMCHealth(); h == nil || h.Assessed() || !strings.HasPrefix(h.Verdict(), "not assessed") {
		t.Errorf("2 draws per chain: health %v, expected not assessed", h)
	}
}

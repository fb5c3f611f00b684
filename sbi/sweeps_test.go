package sbi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestSliceSweepsOverflow checks that MCMC refuses settings whose sweeps, BurnIn +
// ⌈n/Chains⌉·Thin, overflow a count, with an error naming the settings, instead of running no
// sweep at all and returning a matrix of zeros.
func TestSliceSweepsOverflow(t *testing.T) {
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	for _, c := range []struct {
		name string
		cfg  SamplerConfig
	}{
		{"Thin", SamplerConfig{Method: SamplerMCMC, Chains: 2, Thin: 1 << 62}},
		{"BurnIn", SamplerConfig{Method: SamplerMCMC, Chains: 2, BurnIn: 1<<63 - 1}},
		{"both", SamplerConfig{Method: SamplerMCMC, Chains: 2, BurnIn: 1 << 62, Thin: 1 << 61}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newRatioPosterior("test", nil, dist.NewUniformCube(0, 1, 2), flat, nil, c.cfg)
			s, err := p.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), 4)
			if err == nil {
				t.Fatalf("draws %v, want an error naming BurnIn and Thin", s.RawMatrix().Data)
			}
			if !strings.Contains(err.Error(), "BurnIn") || !strings.Contains(err.Error(), "Thin") {
				t.Errorf("error %q, want it to name BurnIn and Thin", err)
			}
		})
	}
}

package sbi_test

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestMAPNoUniqueMode: a posterior whose highest log-density is reached at points far apart
// (a flat density, two modes of equal height) has no single mode; MAP returned one of those
// points as if it were the mode. It must say the answer is inconclusive and why. A single
// sharp mode beside a lower one (TestMAPClosedForm's mixture) still has its answer.
func TestMAPNoUniqueMode(t *testing.T) {
	for _, c := range []struct {
		name string
		p    sbi.Posterior
	}{
		{"uniform", dist.NewUniformCube(0, 1, 2)},
		{"two equal modes", &sbi.MixturePosterior{Members: []sbi.Posterior{
			dist.NewNormal([]float64{-2, 1}, []float64{0.3, 0.3}),
			dist.NewNormal([]float64{2, 1}, []float64{0.3, 0.3}),
		}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := sbi.MAP(c.p, sbi.MAPConfig{Starts: 20, Seed: 3})
			if err == nil || !strings.Contains(err.Error(), "inconclusive") || !strings.Contains(err.Error(), "no unique mode") {
				t.Errorf("MAP = %v, error %v; want an inconclusive answer saying there is no unique mode", got, err)
			}
		})
	}
}

package task_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist/disttest"
	"github.com/gosbi/gosbi/sbi/task"
)

// Every task's prior passes the conformance suite of dist.Distribution.
func TestPriorConformance(t *testing.T) {
	for _, name := range task.Names() {
		t.Run(name, func(t *testing.T) {
			disttest.TestDistribution(t, task.MustGet(name).Prior(), disttest.Config{})
		})
	}
}

// The exact posteriors pass the conformance suite at observations simulated from prior
// draws.
func TestExactPosteriorConformance(t *testing.T) {
	for _, name := range task.Names() {
		tk := task.MustGet(name)
		ex, ok := tk.(task.ExactPosterior)
		if !ok {
			continue
		}
		rng := rand.New(rand.NewPCG(31, 7))
		x := tk.Simulate(rng, tk.Prior().Sample(rng, 2))
		for k := range 2 {
			post, err := ex.ExactPosterior(x.RawRowView(k))
			if err != nil {
				t.Fatalf("%s: ExactPosterior at a simulated observation: %v", name, err)
			}
			t.Run(name, func(t *testing.T) { disttest.TestDistribution(t, post, disttest.Config{}) })
		}
	}
}

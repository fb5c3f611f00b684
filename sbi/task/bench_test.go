package task

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkSimulate times t.Simulate on prior draws with 1 and 2 cores and reports the time per
// simulation (ns/sim): 100,000 two_moons, 10,000 lotka_volterra and 10,000 sir draws.
func BenchmarkSimulate(b *testing.B) {
	for _, c := range []struct {
		task Task
		n    int
	}{{TwoMoons(), 100000}, {LotkaVolterra(), 10000}, {SIR(), 10000}} {
		theta := c.task.Prior().Sample(rand.New(rand.NewPCG(1, 2)), c.n)
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/n=%d/procs=%d", c.task.Name(), c.n, procs), func(b *testing.B) {
				old := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(old)
				rng := rand.New(rand.NewPCG(3, 4))
				for b.Loop() {
					c.task.Simulate(rng, theta)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.n), "ns/sim")
			})
		}
	}
}

package certify_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/certify"
	"github.com/gosbi/gosbi/sbi/dist"
)

// noisy is a simulator written by the user: x = θ + ε with ε ~ N(0, 0.5²), per coordinate.
type noisy struct{ dim int }

func (s noisy) DataDim() int { return s.dim }

func (s noisy) SimulateBatch(rng *rand.Rand, theta, x *mat.Dense) {
	n, _ := theta.Dims()
	for i := range n {
		for j := range s.dim {
			x.Set(i, j, theta.At(i, j)+0.5*rng.NormFloat64())
		}
	}
}

// Certify trains an NPE on half of a budget of 10,000 simulations, checks its coverage at the
// levels 0.5, 0.8, 0.9 and 0.95 on fresh simulations, applies remedies if needed, and judges the
// result once on a final test set. The second observation is far outside anything the simulator
// produces and is refused. (The local test at each observation is off here, to keep the example
// quick; see Config.LocalSimulations.)
func ExampleCertify() {
	prior := dist.NewNormal([]float64{0, 0}, []float64{1, 1})
	obs := mat.NewDense(2, 2, []float64{
		0.4, -0.3,
		25, 25,
	})
	cert, err := certify.Certify(prior, noisy{2}, obs, certify.Config{
		Simulations:      10000,
		TestSimulations:  2000,
		CheckSimulations: 1500,
		New: func() sbi.Estimator {
			return sbi.NewNPE(prior, sbi.NPEConfig{Transforms: 2, Hidden: 16})
		},
		Train:            sbi.TrainConfig{Epochs: 60},
		Remedies:         []certify.Remedy{certify.RemedyConformal},
		Samples:          200,
		SBCSamples:       99,
		LocalSimulations: -1,
		Seed:             1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verdict:", cert.Verdict())
	for i, o := range cert.Observations {
		fmt.Printf("observation %d: %s\n", i, o.Verdict)
	}
	// Output:
	// verdict: certified
	// observation 0: certified
	// observation 1: not certified
}

package sbi_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// An estimator file holds the estimator's kind, configuration, embedding, prior and weights:
// Load returns the estimator it holds, with its prior, and LoadNPE refuses a prior that is not
// the one stored.
func ExampleLoad() {
	rng := rand.New(rand.NewPCG(1, 2))
	prior := dist.NewNormal([]float64{0, 0}, []float64{1, 2})
	theta := prior.Sample(rng, 200)
	x := mat.NewDense(200, 2, nil)
	x.Apply(func(i, j int, _ float64) float64 { return theta.At(i, j) + 0.5*rng.NormFloat64() }, x)
	npe := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 8, Transforms: 1})
	if _, err := npe.Train(theta, x, sbi.TrainConfig{Epochs: 2, Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer
	if err := npe.Save(&file); err != nil {
		fmt.Println(err)
		return
	}

	est, err := sbi.Load(bytes.NewReader(file.Bytes()))
	if err != nil {
		fmt.Println(err)
		return
	}
	loaded := est.(*sbi.NPE)
	fmt.Printf("%T with a %d-parameter prior\n", est, loaded.Prior().Dim())

	_, err = sbi.LoadNPE(bytes.NewReader(file.Bytes()), dist.NewStandardNormal(2))
	fmt.Println(err)
	// Output:
	// *sbi.NPE with a 2-parameter prior
	// load: the prior given differs from the one stored in the file at std[1] (stored 2, given 1): pass nil to load with the stored prior
}

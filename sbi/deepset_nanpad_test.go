package sbi_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// TestDeepSetWidthSaysWithCounts trains an NPE with a DeepSet of MaxTrials 4 on observations
// of the wrong width, sbi's layout of padded sets among them (4 trials, NaN after the trials
// present, no count): the error must name WithCounts, which lays such data out. It then
// checks that WithCounts reads NaN padding as it reads any values after a row's count: not
// at all.
func TestDeepSetWidthSaysWithCounts(t *testing.T) {
	ds := sbi.DeepSetEmbedding{MaxTrials: 4, Hidden: []int{4}, Features: 2, Head: []int{4}, Out: 2}
	prior := dist.NewUniformCube(-1, 1, 1)
	nan := math.NaN()
	for _, c := range []struct {
		name string
		x    *mat.Dense
	}{
		{"padded with NaN, no count (sbi)", mat.NewDense(4, 4, []float64{
			0.1, 0.2, nan, nan,
			0.3, nan, nan, nan,
			0.1, 0.2, 0.3, 0.4,
			-0.5, 0.5, -0.5, nan,
		})},
		{"another width", mat.NewDense(4, 3, nil)},
	} {
		t.Run(c.name, func(t *testing.T) {
			theta := mat.NewDense(4, 1, []float64{0.1, 0.2, 0.3, 0.4})
			npe := sbi.NewNPE(prior, sbi.NPEConfig{Embedding: ds})
			_, err := npe.Train(theta, c.x, sbi.TrainConfig{Epochs: 1, Seed: 1})
			if err == nil || !strings.Contains(err.Error(), "WithCounts") {
				t.Errorf("Train gives %v; want an error naming WithCounts", err)
			}
		})
	}
	full := mat.NewDense(2, 4, []float64{0.1, 0.2, 9, 9, 0.3, 0.4, 0.5, 9})
	padded := mat.NewDense(2, 4, []float64{0.1, 0.2, nan, nan, 0.3, 0.4, 0.5, nan})
	a, b := ds.MustWithCounts(full, []int{2, 3}), ds.MustWithCounts(padded, []int{2, 3})
	if !mat.Equal(a, b) {
		t.Errorf("WithCounts of NaN-padded rows gives %v, of the same trials with other padding %v", mat.Formatted(b), mat.Formatted(a))
	}
}

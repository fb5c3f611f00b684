package sbi_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/simstore"
)

// Train given θ and x in each other's place says so where that is the likely cause: x has
// the prior's width and θ the width x must have (any, for an untrained estimator); it does
// not where θ merely has a wrong width. TrainStream, given a store of θ and x written in each
// other's place, says so by the same rule.
func TestTrainSwappedThetaXHint(t *testing.T) {
	prior := dist.NewUniformCube(0, 1, 2)
	cols := func(n, c int) *mat.Dense {
		rng := rand.New(rand.NewPCG(1, uint64(c)))
		m := mat.NewDense(n, c, nil)
		for i := range n {
			for j := range c {
				m.Set(i, j, rng.Float64())
			}
		}
		return m
	}
	tc := sbi.TrainConfig{Epochs: 1, BatchSize: 50, Seed: 1}
	trained := func() *sbi.NPE {
		e := sbi.NewNPE(prior, sbi.NPEConfig{Flow: sbi.MAF, Hidden: 8, Transforms: 1})
		if _, err := e.Train(cols(100, 2), cols(100, 3), tc); err != nil {
			t.Fatal(err)
		}
		return e
	}
	cases := []struct {
		name     string
		est      *sbi.NPE
		dt, dx   int
		swapHint bool
	}{
		{"untrained, swapped", sbi.NewNPE(prior, sbi.NPEConfig{}), 3, 2, true},
		{"untrained, θ too wide", sbi.NewNPE(prior, sbi.NPEConfig{}), 3, 4, false},
		{"trained on x of 3, swapped", trained(), 3, 2, true},
		{"trained on x of 3, θ of 5", trained(), 5, 2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.est.Train(cols(100, c.dt), cols(100, c.dx), tc)
			checkSwapHint(t, err, c.swapHint, "Train takes theta first")
		})
		t.Run("TrainStream/"+c.name, func(t *testing.T) {
			store, err := simstore.Create(t.TempDir(), c.dt, c.dx)
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Append(cols(100, c.dt), cols(100, c.dx)); err != nil {
				t.Fatal(err)
			}
			_, err = c.est.TrainStream(store, nil, tc)
			checkSwapHint(t, err, c.swapHint, "simstore.Create takes the width of θ first")
		})
	}
}

// checkSwapHint checks that err refuses the width of θ against the prior's 2 parameters and
// asks whether θ and x are swapped, naming the order of the arguments (order), exactly when
// hint is true.
func checkSwapHint(t *testing.T, err error, hint bool, order string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "the prior has 2 parameters") {
		t.Fatalf("error %v, want the width of θ refused", err)
	}
	if got := strings.Contains(err.Error(), "swapped") && strings.Contains(err.Error(), order); got != hint {
		t.Errorf("error %q: asks whether θ and x are swapped, saying %q: %v, want %v", err, order, got, hint)
	}
}

// Train given θ of one column for a prior of more parameters says that a 1-D .npy array
// loads as one column, where that is the likely cause (θ has one column, or its values are
// those of θ flattened: n·D rows for n rows of x), and counts in the singular.
func TestTrainOneColumnThetaHint(t *testing.T) {
	prior := dist.NewUniformCube(0, 1, 2)
	tc := sbi.TrainConfig{Epochs: 1, BatchSize: 50, Seed: 1}
	cases := []struct {
		name           string
		nt, dt, nx, dx int
		want, notWant  string
	}{
		{"one column", 100, 1, 100, 3, "theta has 1 column, the prior has 2 parameters (a 1-D .npy array loads as one column", ""},
		{"flattened", 200, 1, 100, 3, "theta has 200 rows and x 100, expected one x row per θ row (a 1-D .npy array loads as one column", ""},
		{"three columns", 100, 3, 100, 4, "theta has 3 columns, the prior has 2 parameters", ".npy"},
		{"too many rows, two columns", 200, 2, 100, 3, "theta has 200 rows and x 100", ".npy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := sbi.NewNPE(prior, sbi.NPEConfig{Flow: sbi.MAF, Hidden: 8, Transforms: 1})
			_, err := e.Train(mat.NewDense(c.nt, c.dt, nil), mat.NewDense(c.nx, c.dx, nil), tc)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if c.notWant != "" && strings.Contains(err.Error(), c.notWant) {
				t.Errorf("error %q mentions %q where the shapes do not suggest it", err, c.notWant)
			}
		})
	}
}

package sbi

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// TestParallelChunksPanic checks that a panic in a chunk run on a worker goroutine comes back
// to the caller's goroutine as a *safe.PanicError instead of ending the process.
func TestParallelChunksPanic(t *testing.T) {
	for trial := range 20 {
		err := safe.Call("caller", func() error {
			parallelChunks(64, 1, func(c, _, _ int) {
				if c == 37 {
					panic("boom in chunk 37")
				}
			})
			return nil
		})
		var pe *safe.PanicError
		if !errors.As(err, &pe) || pe.Value != "boom in chunk 37" {
			t.Fatalf("trial %d: error %v, want the chunk's panic", trial, err)
		}
	}
}

// panickyEstimator is an estimator whose posterior panics for observations whose first value is 13.
type panickyEstimator struct{}

func (panickyEstimator) Posterior(x []float64) Posterior {
	if x[0] == 13 {
		panic("panicky: observation 13")
	}
	return nil
}

func (panickyEstimator) LogProbPairs(theta, x *mat.Dense) []float64 { return nil }

// TestSampleManyPanic checks that a panicking estimator makes SampleMany return an error.
func TestSampleManyPanic(t *testing.T) {
	xs := mat.NewDense(32, 1, nil)
	for i := range 32 {
		xs.Set(i, 0, float64(i))
	}
	out, err := SampleMany(panickyEstimator{}, rand.New(rand.NewPCG(1, 2)), xs, 10)
	if err == nil || !strings.Contains(err.Error(), "panicky: observation 13") || out != nil {
		t.Fatalf("SampleMany: %d results, error %v; want none and the estimator's panic", len(out), err)
	}
}

// TestRunChunksPanic checks that a panic in the work of a simulation chunk is an error.
func TestRunChunksPanic(t *testing.T) {
	n := 8 * ChunkRows
	err := runChunks(context.Background(), n, 8, func(c int) (int, int) { return c * ChunkRows, (c + 1) * ChunkRows },
		func(lo, hi int, _ *rand.PCG, _ *rand.Rand) error {
			if lo == 5*ChunkRows {
				panic("boom in chunk 5")
			}
			return nil
		}, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "boom in chunk 5") {
		t.Fatalf("runChunks: error %v, want the chunk's panic", err)
	}
}

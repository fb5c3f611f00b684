package draw

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var errRefused = errors.New("refused")

// plain samples with Sample alone, panicking with v when v is not nil.
type plain struct{ v any }

func (p plain) Sample(rng *rand.Rand, n int) *mat.Dense {
	if p.v != nil {
		panic(p.v)
	}
	return mat.NewDense(n, 1, nil)
}

// withContext has SampleContext, which returns ctx's error; its Sample panics.
type withContext struct{ plain }

func (withContext) SampleContext(ctx context.Context, rng *rand.Rand, n int) (*mat.Dense, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return mat.NewDense(n, 2, nil), nil
}

// TestContextAndRecovered: both draw with SampleContext where the posterior has it (so a done
// context stops them), else with Sample; Recovered returns Sample's panic as an error, the
// panic value itself when it is one.
func TestContextAndRecovered(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name    string
		ctx     context.Context
		p       Sampler
		cols    int   // the draws' width; 0 for an error
		want    error // the error errors.Is must see, or nil
		message string
	}{
		{"SampleContext", context.Background(), withContext{plain{"Sample called"}}, 2, nil, ""},
		{"SampleContext stopped", done, withContext{plain{"Sample called"}}, 0, context.Canceled, "context canceled"},
		{"Sample", done, plain{}, 1, nil, ""},
		{"Sample panics with an error", context.Background(), plain{errRefused}, 0, errRefused, "refused"},
		{"Sample panics with a string", context.Background(), plain{"no draws"}, 0, nil, "no draws"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			s, err := Recovered(c.ctx, c.p, rng, 3)
			if c.cols == 0 {
				if err == nil || err.Error() != c.message || c.want != nil && !errors.Is(err, c.want) {
					t.Fatalf("Recovered: %v, %v; want the error %q", s, err, c.message)
				}
				return
			}
			if err != nil || s.RawMatrix().Cols != c.cols {
				t.Fatalf("Recovered: %v, %v; want 3×%d draws", s, err, c.cols)
			}
			if s, err := Context(c.ctx, c.p, rng, 3); err != nil || s.RawMatrix().Cols != c.cols {
				t.Fatalf("Context: %v, %v; want 3×%d draws", s, err, c.cols)
			}
		})
	}
}

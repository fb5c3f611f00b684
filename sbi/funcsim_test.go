package sbi

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFuncSimulator runs noisy through FuncSimulator and SimulateBatch on 4000 rows: the
// residual x₀ − θ₀ must have mean 0 and variance 1 within five standard errors, rows where the
// function returns nil must be dropped and counted, the caller's θ must survive a function
// that writes into its input, and a function returning the wrong length must be reported as
// that row's panic, naming both lengths.
func TestFuncSimulator(t *testing.T) {
	const n = 4000
	theta := grid(n)
	orig := mat.DenseCopyOf(theta)
	f := func(rng *rand.Rand, th []float64) []float64 {
		out := noisy(rng, th)
		th[0] = 99 // a function that alters its input
		if th[1] == 4 {
			return nil // rows i with i%5 == 4 fail
		}
		return out
	}
	s, err := SimulateBatch(rand.New(rand.NewPCG(5, 6)), FuncSimulator(f, 2), theta)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dropped != n/5 || len(s.Kept) != n-n/5 {
		t.Errorf("dropped %d and kept %d rows, want %d and %d", s.Dropped, len(s.Kept), n/5, n-n/5)
	}
	if !mat.Equal(theta, orig) {
		t.Error("the function's writes into θ reached the caller's theta")
	}
	m := len(s.Kept)
	var sum, sq float64
	for k := 0; k < m; k++ {
		r := s.X.At(k, 0) - s.Theta.At(k, 0)
		sum += r
		sq += r * r
	}
	mean, variance := sum/float64(m), sq/float64(m)-(sum/float64(m))*(sum/float64(m))
	if se := 1 / math.Sqrt(float64(m)); math.Abs(mean) > 5*se {
		t.Errorf("mean residual %.4f, want 0 within %.4f", mean, 5*se)
	}
	if se := math.Sqrt(2 / float64(m)); math.Abs(variance-1) > 5*se {
		t.Errorf("residual variance %.4f, want 1 within %.4f", variance, 5*se)
	}

	short := func(rng *rand.Rand, th []float64) []float64 {
		if th[1] == 3 {
			return []float64{1}
		}
		return noisy(rng, th)
	}
	_, err = SimulateBatch(rand.New(rand.NewPCG(5, 6)), FuncSimulator(short, 2), grid(20))
	var part *PartialSimulationError
	if !errors.As(err, &part) || len(part.Panicked) != 4 || !strings.Contains(err.Error(), "row 3 ") || !strings.Contains(err.Error(), "returned 1 value, expected 2") {
		t.Errorf("wrong length: error %v, want rows 3, 8, 13, 18 reported, naming both lengths", err)
	}
}

// TestFuncSimulatorBadInput requires a clear panic for a nil function or a dataDim below 1.
func TestFuncSimulatorBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		f    SimFunc
		dim  int
		want string
	}{
		{"nil function", nil, 2, "function is nil"},
		{"zero dataDim", noisy, 0, "dataDim is 0, expected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), c.want) {
					t.Errorf("panic %v, want one saying %q", p, c.want)
				}
			}()
			FuncSimulator(c.f, c.dim)
		})
	}
}

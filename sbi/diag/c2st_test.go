package diag

import (
	"compress/bzip2"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func gaussianSample(seed uint64, n int, mean []float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 21))
	m := mat.NewDense(n, len(mean), nil)
	for i := range n {
		for j, mu := range mean {
			m.Set(i, j, mu+rng.NormFloat64())
		}
	}
	return m
}

func TestC2ST(t *testing.T) {
	const n = 1000
	cases := []struct {
		name   string
		shift  []float64
		lo, hi float64
	}{
		// Identical distributions: accuracy 0.5; held-out accuracy over 2n = 2000 points has a
		// standard error of 0.011, and a fitted classifier can only do worse than chance on
		// average, so [0.45, 0.535] allows 3–4.5 standard errors.
		{"identical", []float64{0, 0}, 0.45, 0.535},
		// N(0,1) against N(1,1): the Bayes classifier thresholds at ½ and reaches Φ(½) = 0.6915.
		// A classifier cannot beat it beyond noise (3 standard errors: 0.031) and the MLP on
		// 1-D data comes within 0.02 of it (plus 2 standard errors).
		{"shifted by 1", []float64{1}, 0.6915 - 0.045, 0.6915 + 0.031},
		// Means 6 standard deviations apart: Φ(3) = 0.9987.
		{"separated", []float64{6, 0}, 0.99, 1},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := gaussianSample(uint64(2*i), n, make([]float64, len(c.shift)))
			y := gaussianSample(uint64(2*i+1), n, c.shift)
			r, err := C2STWith(x, y, C2STOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if r.Accuracy < c.lo || r.Accuracy > c.hi {
				t.Errorf("C2ST = %.4f (folds %v, epochs %v), want in [%.3f, %.3f]", r.Accuracy, r.Folds, r.Epochs, c.lo, c.hi)
			}
			t.Logf("C2ST %.4f, epochs %v", r.Accuracy, r.Epochs)
			if len(r.Folds) != 5 {
				t.Errorf("%d folds, want 5", len(r.Folds))
			}
		})
	}
}

// TestC2STZScore: z-scoring by the reference makes the test invariant to an affine change of
// units applied to both sets.
func TestC2STZScore(t *testing.T) {
	x := gaussianSample(1, 300, []float64{0, 0})
	y := gaussianSample(2, 300, []float64{0.8, 0})
	a, err := C2STWith(x, y, C2STOptions{Seed: 3, MaxEpochs: 100})
	if err != nil {
		t.Fatal(err)
	}
	scale := func(m *mat.Dense) *mat.Dense {
		r, c := m.Dims()
		out := mat.NewDense(r, c, nil)
		out.Apply(func(_, j int, v float64) float64 { return 1000*v + 50*float64(j+1) }, m)
		return out
	}
	b, err := C2STWith(scale(x), scale(y), C2STOptions{Seed: 3, MaxEpochs: 100})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Accuracy-b.Accuracy) > 1e-9 {
		t.Errorf("C2ST changed under a change of units: %.6f vs %.6f", a.Accuracy, b.Accuracy)
	}
}

func TestC2STErrors(t *testing.T) {
	x := gaussianSample(1, 10, []float64{0})
	bad := mat.DenseCopyOf(x)
	bad.Set(3, 0, math.NaN())
	if _, err := C2STWith(x, bad, C2STOptions{}); err == nil {
		t.Error("NaN sample: no error")
	}
	if _, err := C2STWith(x, x, C2STOptions{Folds: 1}); err == nil {
		t.Error("1 fold: no error")
	}
	if _, err := C2STWith(nil, x, C2STOptions{}); err == nil {
		t.Error("nil set: no error")
	}
}

// TestC2STReferenceHalves compares two halves of sbibm's two_moons reference posterior: the
// same distribution, strongly non-Gaussian, so the accuracy must be about 0.5 (standard error
// 0.007 on 5000 points).
func TestC2STReferenceHalves(t *testing.T) {
	dir := os.Getenv("GOSBI_DATA")
	if dir == "" {
		dir = "/work/shared/sbibm"
	}
	path := filepath.Join(dir, "two_moons", "num_observation_1", "reference_posterior_samples.csv.bz2")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reference samples: %v (set GOSBI_DATA to the sbibm data directory)", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(bzip2.NewReader(f)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows = rows[1:] // header
	half := 2500
	x, y := mat.NewDense(half, 2, nil), mat.NewDense(half, 2, nil)
	for i := range 2 * half {
		for j := range 2 {
			v, err := strconv.ParseFloat(rows[i][j], 64)
			if err != nil {
				t.Fatal(err)
			}
			if i < half {
				x.Set(i, j, v)
			} else {
				y.Set(i-half, j, v)
			}
		}
	}
	r, err := C2STWith(x, y, C2STOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Accuracy < 0.46 || r.Accuracy > 0.53 {
		t.Errorf("C2ST of two halves of one reference sample = %.4f, want ≈ 0.5", r.Accuracy)
	}
}

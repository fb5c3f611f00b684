package diag

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/sbibmtest"
	"github.com/gosbi/gosbi/sbi/task"
)

// Accuracies of sbibm's C2ST (scikit-learn) on sklearnPairs; see TestC2STAgainstScikitLearn.
const (
	sklearnShift = 0.5443
	sklearnScale = 0.6432
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
			r, err := C2STWith(x, y, C2STConfig{Seed: 1})
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
	a, err := C2STWith(x, y, C2STConfig{Seed: 3, MaxEpochs: 100})
	if err != nil {
		t.Fatal(err)
	}
	scale := func(m *mat.Dense) *mat.Dense {
		r, c := m.Dims()
		out := mat.NewDense(r, c, nil)
		out.Apply(func(_, j int, v float64) float64 { return 1000*v + 50*float64(j+1) }, m)
		return out
	}
	b, err := C2STWith(scale(x), scale(y), C2STConfig{Seed: 3, MaxEpochs: 100})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Accuracy-b.Accuracy) > 1e-9 {
		t.Errorf("C2ST changed under a change of units: %.6f vs %.6f", a.Accuracy, b.Accuracy)
	}
}

// TestC2STAtExtremeScales: N(0, 1) against N(3, 1) in units of 1e200 or 1e-200 are as far
// apart as in units of 1: the Bayes accuracy is Φ(1.5) = 0.9332 and held-out accuracy over
// 2000 points has a standard error of 0.0056, so [0.9332 − 0.045, 0.9332 + 0.02] allows the
// MLP's shortfall plus 3.5 standard errors. A z-scoring whose sum of squares overflows (or
// underflows) maps both sets to 0 (or leaves them at 1e-200) and scores about 0.5.
func TestC2STAtExtremeScales(t *testing.T) {
	x := gaussianSample(5, 1000, []float64{0})
	y := gaussianSample(6, 1000, []float64{3})
	for _, s := range []float64{1e200, 1e-200, 1e300} {
		var xs, ys mat.Dense
		xs.Scale(s, x)
		ys.Scale(s, y)
		r, err := C2STWith(&xs, &ys, C2STConfig{Seed: 1, MaxEpochs: 300})
		if err != nil {
			t.Fatal(err)
		}
		if r.Accuracy < 0.9332-0.045 || r.Accuracy > 0.9332+0.02 {
			t.Errorf("scale %g: C2ST = %.4f, want Φ(1.5) = 0.9332 within [0.888, 0.953]", s, r.Accuracy)
		}
		t.Logf("scale %g: C2ST %.4f", s, r.Accuracy)
	}
}

func TestC2STErrors(t *testing.T) {
	x := gaussianSample(1, 10, []float64{0})
	bad := mat.DenseCopyOf(x)
	bad.Set(3, 0, math.NaN())
	if _, err := C2STWith(x, bad, C2STConfig{}); err == nil {
		t.Error("NaN sample: no error")
	}
	if _, err := C2STWith(x, x, C2STConfig{Folds: 1}); err == nil {
		t.Error("1 fold: no error")
	}
	if _, err := C2STWith(nil, x, C2STConfig{}); err == nil {
		t.Error("nil set: no error")
	}
}

// twoMoonsReference returns the 10,000 reference posterior samples of sbibm's two_moons,
// observation 1, from the data directory of the tests (see package sbibmtest), or skips t.
func twoMoonsReference(t testing.TB) *mat.Dense {
	t.Helper()
	sbibmtest.Use(t)
	ref, err := task.TwoMoons().ReferencePosterior(1)
	if errors.Is(err, task.ErrNotAvailable) {
		sbibmtest.Skip(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// TestC2STReferenceHalves compares two halves of sbibm's two_moons reference posterior: the
// same distribution, strongly non-Gaussian, so the accuracy must be about 0.5 (standard error
// 0.009 on 3000 points; the bounds are 3–4.5 of them).
func TestC2STReferenceHalves(t *testing.T) {
	ref := twoMoonsReference(t)
	x := mat.DenseCopyOf(ref.Slice(0, 1500, 0, 2))
	y := mat.DenseCopyOf(ref.Slice(1500, 3000, 0, 2))
	r, err := C2STWith(x, y, C2STConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Accuracy < 0.46 || r.Accuracy > 0.53 {
		t.Errorf("C2ST of two halves of one reference sample = %.4f, want ≈ 0.5", r.Accuracy)
	}
}

// sklearnPairs are the sample pairs of TestC2STAgainstScikitLearn, 2000 draws each:
// N(0, I₂) against N((0.3, 0), I₂) (Bayes accuracy Φ(0.15) = 0.560) and against N(0, 1.5²·I₂),
// which needs a curved decision boundary. (On thin, curved distributions such as the two_moons
// posterior, sbibm's own classifier varies by ±0.07 with its random_state, too much for a
// comparison.)
func sklearnPairs() map[string][2]*mat.Dense {
	x := gaussianSample(40, 2000, []float64{0, 0})
	shift := gaussianSample(41, 2000, []float64{0.3, 0})
	scale := gaussianSample(42, 2000, []float64{0, 0})
	scale.Scale(1.5, scale)
	return map[string][2]*mat.Dense{"shift": {x, shift}, "scale": {x, scale}}
}

// TestC2STAgainstScikitLearn compares C2ST with sbibm's own implementation (scikit-learn's
// MLPClassifier, as in sbibm/metrics/c2st.py) on the same samples. The reference accuracies
// come from testdata/c2st_sklearn.py run on the files that GOSBI_WRITE_C2ST=dir writes
// (scikit-learn 1.2.1, random_state 1). Two trainings of the same classifier on 4000 points
// differ by the noise of the held-out accuracy (standard error ≤ 0.008) and of the fit, so the
// tolerance is 0.025, three standard errors.
func TestC2STAgainstScikitLearn(t *testing.T) {
	want := map[string]float64{"shift": sklearnShift, "scale": sklearnScale}
	pairs := sklearnPairs()
	if dir := os.Getenv("GOSBI_WRITE_C2ST"); dir != "" {
		for name, p := range pairs {
			writeCSV(t, filepath.Join(dir, name+"_x.csv"), p[0])
			writeCSV(t, filepath.Join(dir, name+"_y.csv"), p[1])
		}
	}
	for name, p := range pairs {
		r, err := C2STWith(p[0], p[1], C2STConfig{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: C2ST %.4f, scikit-learn %.4f", name, r.Accuracy, want[name])
		if math.Abs(r.Accuracy-want[name]) > 0.025 {
			t.Errorf("%s: C2ST %.4f, sbibm's implementation gives %.4f", name, r.Accuracy, want[name])
		}
	}
}

func writeCSV(t testing.TB, path string, m *mat.Dense) {
	var b strings.Builder
	r, c := m.Dims()
	for i := range r {
		for j := range c {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(m.At(i, j), 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestC2STMaxSamples caps the sets at m rows each. x is a sorted sample of N(0, 1) and y an
// unsorted one of the same law: the cap must draw a random subset, for the first m rows of x
// are its smallest values and would separate perfectly. On a random subset the sets are
// identical in law, and the held-out accuracy over 2m = 600 points has a standard error of
// √(0.25/600) = 0.020; [0.41, 0.58] allows 4.5 standard errors below (a fitted classifier
// does worse than chance on average) and 4 above. The separated case checks that the cap
// keeps the test's power: Φ(3) = 0.9987 for means 6 apart.
func TestC2STMaxSamples(t *testing.T) {
	const n, m = 4000, 300
	x := gaussianSample(10, n, []float64{0})
	sorted := append([]float64(nil), x.RawMatrix().Data...)
	slices.Sort(sorted)
	xs := mat.NewDense(n, 1, sorted)
	cases := []struct {
		name   string
		x, y   *mat.Dense
		lo, hi float64
	}{
		{"identical, x sorted", xs, gaussianSample(11, n, []float64{0}), 0.41, 0.58},
		{"separated", x, gaussianSample(12, n, []float64{6}), 0.99, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := C2STWith(c.x, c.y, C2STConfig{Seed: 3, MaxSamples: m})
			if err != nil {
				t.Fatal(err)
			}
			if r.NX != m || r.NY != m {
				t.Errorf("used %d and %d rows, want %d each", r.NX, r.NY, m)
			}
			if r.Accuracy < c.lo || r.Accuracy > c.hi {
				t.Errorf("C2ST with MaxSamples %d = %.4f (folds %v), want in [%.2f, %.2f]", m, r.Accuracy, r.Folds, c.lo, c.hi)
			}
		})
	}
	if _, err := C2STWith(x, x, C2STConfig{MaxSamples: -1}); err == nil || !strings.Contains(err.Error(), "MaxSamples") {
		t.Errorf("MaxSamples -1: error %v, want one naming MaxSamples", err)
	}
	small := gaussianSample(13, 50, []float64{0})
	if r, err := C2STWith(small, small, C2STConfig{MaxSamples: m}); err != nil {
		t.Errorf("sets smaller than the cap: %v", err)
	} else if r.NX != 50 || r.NY != 50 {
		t.Errorf("sets smaller than the cap: used %d and %d rows, want all 50", r.NX, r.NY)
	}
}

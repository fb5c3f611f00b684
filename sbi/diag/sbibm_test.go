package diag

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

func normalSample(seed uint64, n int, mu ...float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 21))
	out := mat.NewDense(n, len(mu), nil)
	for i := range n {
		for j, m := range mu {
			out.Set(i, j, m+rng.NormFloat64())
		}
	}
	return out
}

// TestMMDDefinition compares MMD with the unbiased estimate written out pair by pair, on
// small sets, with the lower median of the pairwise distances as bandwidth.
func TestMMDDefinition(t *testing.T) {
	x, y := normalSample(1, 30, 0, 0), normalSample(2, 20, 0.5, 0)
	var d []float64
	for i := range 30 {
		for j := i + 1; j < 30; j++ {
			d = append(d, math.Hypot(x.At(i, 0)-x.At(j, 0), x.At(i, 1)-x.At(j, 1)))
		}
	}
	sort.Float64s(d)
	sigma := d[(len(d)-1)/2] // 435 distances: the 218th
	k := func(a, b []float64) float64 {
		return math.Exp(-(math.Pow(a[0]-b[0], 2) + math.Pow(a[1]-b[1], 2)) / (2 * sigma * sigma))
	}
	var xx, yy, xy float64
	for i := range 30 {
		for j := range 30 {
			if i != j {
				xx += k(x.RawRowView(i), x.RawRowView(j))
			}
		}
		for j := range 20 {
			xy += k(x.RawRowView(i), y.RawRowView(j))
		}
	}
	for i := range 20 {
		for j := range 20 {
			if i != j {
				yy += k(y.RawRowView(i), y.RawRowView(j))
			}
		}
	}
	want := xx/(30*29) + yy/(20*19) - 2*xy/(30*20)
	got, err := MMD(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("MMD %v, written out %v", got, want)
	}
	if _, err := MMD(x, mat.NewDense(3, 1, nil)); err == nil {
		t.Error("different widths: no error")
	}
}

// TestMMDClosedForm: between N(0, 1) and N(1, 1) samples of 3000, the unbiased MMD² is close
// to its population value 2·σ/√(σ²+2)·(1 − exp(−μ²/(2(σ²+2)))) with σ → √2·Φ⁻¹(¾), the
// median of |X − X'| (the estimate's SD is about 0.003 at this size; tolerance 0.012); and
// between two samples of one law it averages 0 over 20 repetitions within 4 SE.
func TestMMDClosedForm(t *testing.T) {
	sigma := math.Sqrt2 * distuv.UnitNormal.Quantile(0.75)
	want := 2 * sigma / math.Sqrt(sigma*sigma+2) * (1 - math.Exp(-1/(2*(sigma*sigma+2))))
	got, err := MMD(normalSample(3, 3000, 0), normalSample(4, 3000, 1))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 0.012 {
		t.Errorf("MMD² of N(0,1) against N(1,1): %.4f, population %.4f", got, want)
	}
	var vals []float64
	for r := range 20 {
		v, err := MMD(normalSample(uint64(10+r), 300, 0), normalSample(uint64(50+r), 300, 0))
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	m, sd := meanOf(vals), math.Sqrt(variance(vals))
	if math.Abs(m) > 4*sd/math.Sqrt(20) {
		t.Errorf("MMD² of samples of one law: mean %.5f over 20, SD %.5f: biased", m, sd)
	}
}

// TestMedianPairDistanceLarge: above the collection limit the binned search returns the same
// lower median as sorting all distances.
func TestMedianPairDistanceLarge(t *testing.T) {
	x := normalSample(5, 3000, 0, 0, 0) // 4,498,500 distances > medianCollectLimit
	var d []float64
	for i := range 3000 {
		for j := i + 1; j < 3000; j++ {
			d = append(d, math.Sqrt(sqd(x.RawRowView(i), x.RawRowView(j))))
		}
	}
	sort.Float64s(d)
	if got, want := MedianPairDistance(x), d[(len(d)-1)/2]; got != want {
		t.Errorf("median %v, sorted %v", got, want)
	}
}

func sqd(a, b []float64) (s float64) {
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// TestMedianDistance checks sbibm's MEDDIST on a hand example (numpy's median of an even count
// averages the middle two).
func TestMedianDistance(t *testing.T) {
	p := mat.NewDense(4, 2, []float64{3, 4, 0, 1, 6, 8, 0, 0})
	got, err := MedianDistance(p, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if got != 3 { // distances 5, 1, 10, 0: middle two 1 and 5
		t.Errorf("median distance %v, want 3", got)
	}
	p.Set(0, 0, math.NaN())
	if _, err := MedianDistance(p, []float64{0, 0}); err == nil {
		t.Error("NaN simulation: no error")
	}
}

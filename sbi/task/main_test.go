package task

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/sbibmtest"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestMain points GOSBI_DATA at the sbibm files when it is not set: see package sbibmtest.
func TestMain(m *testing.M) { sbibmtest.Main(m, DataDir) }

// needData returns if err is nil, skips t when err says that a data file is not available,
// and fails t otherwise.
func needData(t testing.TB, err error) {
	t.Helper()
	switch {
	case err == nil:
	case errors.Is(err, ErrNotAvailable):
		sbibmtest.Skip(t, err)
	default:
		t.Fatal(err)
	}
}

// meanSE returns the sample mean of v and its standard error sd/√n.
func meanSE(v []float64) (mean, se float64) {
	n := float64(len(v))
	for _, x := range v {
		mean += x / n
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

// varSE returns the sample variance of v and its standard error, estimated as the standard
// deviation of the squared deviations over √n.
func varSE(v []float64) (variance, se float64) {
	m, _ := meanSE(v)
	d := make([]float64, len(v))
	for i, x := range v {
		d[i] = (x - m) * (x - m)
	}
	return meanSE(d)
}

// energyTest is a two-sample test of equal distributions: the energy distance
// E = 2·mean‖X−Y‖ − mean‖X−X′‖ − mean‖Y−Y′‖ (Székely and Rizzo, 2004) with a permutation null
// over the pooled sample. It returns the p-value (the fraction of permutations with a
// statistic ≥ the observed one, counting the observed one).
func energyTest(a, b *mat.Dense, perms int, rng *rand.Rand) float64 {
	na, d := a.Dims()
	nb, _ := b.Dims()
	n := na + nb
	pts := make([][]float64, 0, n)
	for i := 0; i < na; i++ {
		pts = append(pts, a.RawRowView(i))
	}
	for i := 0; i < nb; i++ {
		pts = append(pts, b.RawRowView(i))
	}
	dm := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s := 0.0
			for k := 0; k < d; k++ {
				v := pts[i][k] - pts[j][k]
				s += v * v
			}
			dm[i*n+j] = math.Sqrt(s)
			dm[j*n+i] = dm[i*n+j]
		}
	}
	// With a the 0/1 indicator of the first sample, D the distance matrix and T = 1ᵀD1:
	// S_aa = ½·aᵀDa, S_ab = aᵀD1 − aᵀDa, S_bb = ½·(T − 2·aᵀD1 + aᵀDa) are the pair sums.
	rowSum := make([]float64, n)
	total := 0.0
	for i := 0; i < n; i++ {
		for _, v := range dm[i*n : (i+1)*n] {
			rowSum[i] += v
		}
		total += rowSum[i]
	}
	label := make([]float64, n)
	for i := 0; i < na; i++ {
		label[i] = 1
	}
	stat := func() float64 {
		var aDa, aD1 float64
		for i, li := range label {
			if li == 0 {
				continue
			}
			aD1 += rowSum[i]
			s := 0.0
			for j, v := range dm[i*n : (i+1)*n] {
				s += v * label[j]
			}
			aDa += s
		}
		saa, sab, sbb := aDa/2, aD1-aDa, (total-2*aD1+aDa)/2
		fa, fb := float64(na), float64(nb)
		return 2*sab/(fa*fb) - 2*saa/(fa*fa) - 2*sbb/(fb*fb)
	}
	obs := stat()
	count := 1
	for p := 0; p < perms; p++ {
		rng.Shuffle(n, func(i, j int) { label[i], label[j] = label[j], label[i] })
		if stat() >= obs {
			count++
		}
	}
	return float64(count) / float64(perms+1)
}

// rows returns the first n rows of m.
func rows(m *mat.Dense, n int) *mat.Dense {
	_, c := m.Dims()
	return mat.DenseCopyOf(m.Slice(0, n, 0, c))
}

func constTheta(n int, theta ...float64) *mat.Dense {
	m := mat.NewDense(n, len(theta), nil)
	for i := 0; i < n; i++ {
		copy(m.RawRowView(i), theta)
	}
	return m
}

func column(m *mat.Dense, j int) []float64 {
	r, _ := m.Dims()
	v := make([]float64, r)
	for i := range v {
		v[i] = m.At(i, j)
	}
	return v
}

func sortedNames() []string {
	n := Names()
	sort.Strings(n)
	return n
}

// io2header prepends a header line to r.
func io2header(r io.Reader) io.Reader { return io.MultiReader(strings.NewReader("header\n"), r) }

func meanCov(d dist.Distribution) ([]float64, *mat.SymDense, bool) { return dist.MeanCov(d) }

// observed returns observation k of tk and its true parameters, or skips t when they are not
// available.
func observed(t testing.TB, tk Task, k int) (x, theta []float64) {
	t.Helper()
	x, err := tk.Observation(k)
	needData(t, err)
	theta, err = tk.TrueParameters(k)
	needData(t, err)
	return x, theta
}

package diag

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// withPadding returns x with a column of the count 7 first and two padding columns last, a
// zero and pad (0 or NaN): a DeepSet layout with a fixed count. It returns the names of the
// columns too.
func withPadding(x *mat.Dense, names []string, pad float64) (*mat.Dense, []string) {
	m, D := x.Dims()
	out := mat.NewDense(m, D+3, nil)
	for i := range m {
		row := out.RawRowView(i)
		row[0] = 7
		copy(row[1:], x.RawRowView(i))
		row[D+1], row[D+2] = 0, pad
	}
	return out, append(append([]string{"count"}, names...), "pad₁", "pad₂")
}

// TestPredictivePaddingNotCounted: data values equal in every simulation and in the
// observation (a fixed count, zero and NaN padding) carry no evidence. Before the fix they
// were counted in the Bonferroni correction (with 400 simulations of 7 values the check was
// inconclusive, "simulate at least 480", where without them it decides) and NaN padding made
// every simulation a failure (an error). The check with padding must give the verdict of the
// check without it, followed by the number of values not tested.
func TestPredictivePaddingNotCounted(t *testing.T) {
	names := []string{"a₁", "a₂", "a₃", "a₄", "a₅", "a₆", "a₇"}
	for _, c := range []struct {
		name string
		m    int
		off  float64 // added to the observation's a₃
		pad  float64 // the last padding column
	}{
		{"too few simulations", 100, 0, math.NaN()},
		{"typical", 400, 0, math.NaN()},
		{"typical, zero padding", 400, 0, 0},
		{"one value off", 400, 6, math.NaN()},
		{"one value off, zero padding", 400, 6, 0},
	} {
		rng := rand.New(rand.NewPCG(uint64(c.m), 11))
		x := mat.NewDense(c.m, 7, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
		xo := make([]float64, 7)
		for d := range xo {
			xo[d] = 0.3 * rng.NormFloat64()
		}
		xo[2] += c.off
		plain, err := PredictiveFromSimulations(x, xo, PredictiveConfig{Names: names})
		if err != nil {
			t.Fatal(err)
		}
		px, pnames := withPadding(x, names, c.pad)
		pxo := append(append([]float64{7}, xo...), 0, c.pad)
		padded, err := PredictiveFromSimulations(px, pxo, PredictiveConfig{Names: pnames})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := plain.Verdict() + "; 3 data values equal in every simulation and in the observation not tested"
		if got := padded.Verdict(); got != want || padded.Reject() != plain.Reject() {
			t.Errorf("%s: with padding (reject %v)\n  %s\nwant (reject %v)\n  %s", c.name, padded.Reject(), got, plain.Reject(), want)
		}
		if len(padded.Constant) != 3 || padded.Constant[0] != 0 || padded.Constant[2] != 9 || padded.Dropped != 0 {
			t.Errorf("%s: Constant %v, Dropped %d; want [0 8 9] and 0", c.name, padded.Constant, padded.Dropped)
		}
	}
}

// TestPredictiveConstantThatDiffersIsFlagged: a data value constant in the simulations but
// different in the observation is the strongest misfit the test can see. It must be tested and
// flagged, with the smallest p-value the test gives and a verdict that says every simulation
// differs; a NaN padding column of the simulations where the observation holds a value, and
// padding in the observation where the simulations hold values, likewise.
func TestPredictiveConstantThatDiffersIsFlagged(t *testing.T) {
	const m = 500
	rng := rand.New(rand.NewPCG(5, 5))
	x := mat.NewDense(m, 3, nil)
	for i := range m {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, 7)
		x.Set(i, 2, math.NaN())
	}
	for _, c := range []struct {
		name string
		x    *mat.Dense
		xo   []float64
		d    int
		p    float64
		want string
	}{
		{"count differs", x, []float64{0.1, 6, math.NaN()}, 1, 2.0 / (m + 1), "x₂ (6 where every simulation gives 7: p = 0.00399, the smallest with 500 simulations)"},
		{"value where the simulations pad", x, []float64{0.1, 7, 2}, 2, 1.0 / (m + 1), "x₃ (2 where every simulation is NaN, padding: p = 0.002, the smallest with 500 simulations)"},
		{"padding where the simulations hold values", filled(x, 2, 1), []float64{0.1, 7, math.NaN()}, 2, 1.0 / (m + 1), "x₃ (NaN, padding, where 500 of 500 simulations hold a value: p = 0.002)"},
	} {
		res, err := PredictiveFromSimulations(c.x, c.xo, PredictiveConfig{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if f := res.Flagged(); len(f) != 1 || f[0] != c.d || math.Abs(res.PValues[c.d]-c.p) > 1e-15 {
			t.Errorf("%s: flagged %v, p %v; want [%d] at p = %v", c.name, f, res.PValues, c.d, c.p)
		}
		if v := res.Verdict(); !strings.HasPrefix(v, "atypical") || !strings.Contains(v, c.want) {
			t.Errorf("%s: verdict %q, want it to say %q", c.name, v, c.want)
		}
	}
}

// filled returns a copy of x with column d set to v.
func filled(x *mat.Dense, d int, v float64) *mat.Dense {
	out := mat.DenseCopyOf(x)
	m, _ := x.Dims()
	for i := range m {
		out.Set(i, d, v)
	}
	return out
}

// TestPredictiveRowsScannedOnce: whether a simulation holds a finite value is decided once per
// row. Before the fix paddingColumns rescanned every row for every data value, n·D scans (10⁹
// at n = D = 1000), and simulationOK scanned each row again.
func TestPredictiveRowsScannedOnce(t *testing.T) {
	const n, D = 40, 30
	rng := rand.New(rand.NewPCG(3, 5))
	x := mat.NewDense(n, D, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	for i := range n {
		x.Set(i, D-1, math.NaN()) // a padding value
	}
	xo := make([]float64, D)
	xo[D-1] = math.NaN()
	calls := 0
	counted := func(v []float64) bool { calls++; return hasFinite(v) }
	if _, err := predictiveFromSimulations(x, xo, PredictiveConfig{}, counted); err != nil {
		t.Fatal(err)
	}
	if calls != n {
		t.Errorf("%d rows of %d values scanned for a finite value %d times, want once per row", n, D, calls)
	}
}

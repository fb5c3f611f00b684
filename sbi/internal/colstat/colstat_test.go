package colstat

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// naive is the unscaled two-pass formula the package reproduces where it does not overflow.
func naive(col []float64, ddof int) (mean, sd float64) {
	n := float64(len(col))
	for _, v := range col {
		mean += v / n
	}
	var ss float64
	for _, v := range col {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / (n - float64(ddof)))
}

func sample(n int, scale float64, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := mat.NewDense(n, 2, nil)
	for i := range n {
		m.Set(i, 0, (3+rng.NormFloat64())*scale)
		m.Set(i, 1, (-1+0.5*rng.NormFloat64())*scale)
	}
	return m
}

// TestFitMatchesNaiveBitForBit: at ordinary scales the scaled sums give exactly the naive
// formula's values, so standardizations (and trained weights) do not change.
func TestFitMatchesNaiveBitForBit(t *testing.T) {
	for _, ddof := range []int{0, 1} {
		m := sample(1000, 7.3, 1)
		cols, err := Fit(m, nil, ddof)
		if err != nil {
			t.Fatal(err)
		}
		for j := range cols {
			mean, sd := naive(mat.Col(nil, j, m), ddof)
			if cols[j].Mean != mean || cols[j].Std != sd {
				t.Errorf("ddof %d, column %d: mean %v, sd %v; naive %v, %v", ddof, j, cols[j].Mean, cols[j].Std, mean, sd)
			}
		}
	}
}

// TestFitAtExtremeScales: the statistics of data scaled by s are s times those of the data,
// where the naive formula gives +Inf (large s) or 0 (small s).
func TestFitAtExtremeScales(t *testing.T) {
	base := sample(500, 1, 2)
	ref, err := Fit(base, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{1e154, 1e200, 1e300, 1e-160, 1e-300} {
		var m mat.Dense
		m.Scale(s, base)
		cols, err := Fit(&m, nil, 1)
		if err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		var acc Accumulator
		for i := range 500 {
			if err := acc.Add(m.RawRowView(i)); err != nil {
				t.Fatal(err)
			}
		}
		one, err := acc.Columns(2, 1)
		if err != nil {
			t.Fatal(err)
		}
		for j := range cols {
			for _, got := range []Column{cols[j], one[j]} {
				if d := math.Abs(got.Mean/s - ref[j].Mean); d > 1e-10*math.Abs(ref[j].Mean) {
					t.Errorf("scale %g, column %d: mean/s %v, want %v", s, j, got.Mean/s, ref[j].Mean)
				}
				if d := math.Abs(got.Std/s - ref[j].Std); d > 1e-10*ref[j].Std {
					t.Errorf("scale %g, column %d: sd/s %v, want %v", s, j, got.Std/s, ref[j].Std)
				}
				if got.Scale() != got.Std {
					t.Errorf("scale %g, column %d: a spread column taken as constant (scale %v, sd %v)", s, j, got.Scale(), got.Std)
				}
			}
			if _, sd := naive(mat.Col(nil, j, &m), 1); s > 1e153 && !math.IsInf(sd, 1) {
				t.Errorf("scale %g: the naive sd %v did not overflow; the test does not exercise the scaling", s, sd)
			}
			z := Standardize(m.At(0, j), cols[j].Mean, cols[j].Scale())
			want := (base.At(0, j) - ref[j].Mean) / ref[j].Std
			if math.Abs(z-want) > 1e-9 {
				t.Errorf("scale %g, column %d: z %v, want %v", s, j, z, want)
			}
		}
	}
}

// TestAccumulatorMatchesFit: the one-pass statistics agree with the two-pass ones, also when
// the largest magnitude grows along the stream and a column starts with zeros.
func TestAccumulatorMatchesFit(t *testing.T) {
	m := mat.NewDense(6, 2, []float64{0, 1e-3, 0, 2e-3, 1e-200, 1, 3e-200, 1e100, 2e-200, 1e250, 5e-200, -1e250})
	cols, err := Fit(m, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var acc Accumulator
	for i := range 6 {
		if err := acc.Add(m.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
	}
	one, err := acc.Columns(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for j := range cols {
		if math.Abs(one[j].Mean-cols[j].Mean) > 1e-12*cols[j].Max || math.Abs(one[j].Std-cols[j].Std) > 1e-12*cols[j].Std {
			t.Errorf("column %d: one pass %+v, two passes %+v", j, one[j], cols[j])
		}
		if !(cols[j].Std > 0) || math.IsInf(cols[j].Std, 0) {
			t.Errorf("column %d: sd %v", j, cols[j].Std)
		}
	}
}

func TestErrorsNameTheColumn(t *testing.T) {
	tests := []struct {
		name string
		data []float64
		want string
	}{
		{"spread beyond float64", []float64{1, -1.7e308, 1, 1.7e308}, "column 1: the spread"},
		{"NaN", []float64{1, 2, math.NaN(), 3}, "row 1, column 0 holds NaN"},
		{"Inf", []float64{1, math.Inf(1), 2, 3}, "row 0, column 1 holds +Inf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(mat.NewDense(2, 2, tc.data), nil, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	var acc Accumulator
	acc.Add([]float64{1, -1.7e308})
	acc.Add([]float64{1, 1.7e308})
	if _, err := acc.Columns(2, 1); err == nil || !strings.Contains(err.Error(), "column 1") {
		t.Errorf("accumulator: error %v, want one naming column 1", err)
	}
}

func TestConstantColumnIsCentredOnly(t *testing.T) {
	m := mat.NewDense(3, 2, []float64{5, 1e200, 5, 1e200 * (1 + 2e-16), 5, 1e200})
	cols, err := Fit(m, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if cols[0].Scale() != 5 || cols[1].Scale() != 1e200*(1+2e-16) {
		t.Errorf("scales %v, %v; want the largest magnitudes 5 and 1e200", cols[0].Scale(), cols[1].Scale())
	}
}

// TestAccumulatorAddAt: values added one column at a time, in different numbers per column,
// give the statistics of each column's values.
func TestAccumulatorAddAt(t *testing.T) {
	var acc Accumulator
	vals := [][]float64{{1e200, 3e200, 2e200}, {5e-200, -5e-200}}
	for j, col := range vals {
		for _, v := range col {
			if err := acc.AddAt(j, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	cols, err := acc.Columns(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []Column{{Mean: 2e200, Std: 1e200, Max: 3e200}, {Mean: 0, Std: math.Sqrt(2) * 5e-200, Max: 5e-200}, {}}
	for j, w := range want {
		g := cols[j]
		if math.Abs(g.Mean-w.Mean) > 1e-12*w.Max || math.Abs(g.Std-w.Std) > 1e-12*w.Std || g.Max != w.Max {
			t.Errorf("column %d: %+v, want %+v", j, g, w)
		}
	}
	if err := acc.AddAt(0, math.NaN()); err == nil {
		t.Error("AddAt of NaN: no error")
	}
}

// Package colstat computes the column means and standard deviations that standardize data
// (z = (v − mean)/scale) at any finite scale, for the estimators of package sbi, the
// diagnostics of package diag, the regularizers of package calib and package variational.
//
// The naive sum of squares overflows once values pass about 1e154 (and underflows below about
// 1e-154), after which a standardization divides by +Inf (every z is 0: the data are ignored)
// or by 0. Here every column is first multiplied by the power of two 2^-e that brings its
// largest magnitude into [0.5, 1); means and sums of squared deviations are accumulated in
// those units and scaled back with math.Ldexp. Multiplying by a power of two is exact, so for
// data whose squares neither overflow nor underflow the results are bit for bit those of the
// unscaled two-pass formulas
//
//	mean = Σᵢ vᵢ/n,   sd = √(Σᵢ (vᵢ − mean)² / (n − ddof)),
//
// and for all other finite data they are as accurate. A standard deviation that is itself
// not representable (values near ±1.8e308 of both signs) is an error naming the column.
//
// A column is constant when its standard deviation is at most RelTol times its largest
// magnitude (all values equal up to rounding); it is then only centred, divided by
// max(1, largest magnitude) so that rounding noise stays at rounding level.
package colstat

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RelTol is the relative spread below which a column counts as constant.
const RelTol = 1e-14

// Column holds the statistics of one column.
type Column struct {
	Mean float64 // the column mean
	Std  float64 // the standard deviation (with the ddof of the fit); 0 for one row
	Max  float64 // the largest magnitude
}

// Scale is the divisor of the standardization: Std, or max(1, Max) for a constant column.
func (c Column) Scale() float64 {
	if !c.Constant() {
		return c.Std
	}
	return math.Max(1, c.Max)
}

// Constant reports whether the column's values are all equal up to rounding (its standard
// deviation at most RelTol times its largest magnitude), or it has fewer than two values.
func (c Column) Constant() bool {
	return !(c.Std > RelTol*c.Max && c.Std > 0)
}

// Standardize returns (v − mean)/scale without overflowing in the difference.
func Standardize(v, mean, scale float64) float64 {
	d := v - mean
	if math.IsInf(d, 0) && !math.IsInf(v, 0) && !math.IsInf(mean, 0) {
		return v/scale - mean/scale
	}
	return d / scale
}

// exponent returns e with max·2^-e in [0.5, 1) (0 for max = 0), clamped so that 2^-e is a
// normal float64.
func exponent(largest float64) int {
	if largest == 0 {
		return 0
	}
	_, e := math.Frexp(largest)
	return min(max(e, -1021), 1023)
}

// Fit returns the statistics of the columns of the rows idx of m (all rows when idx is nil),
// with the standard deviation divided by n − ddof (ddof 1: the sample standard deviation, 0:
// the population one). It returns an error naming the row and column of a NaN or ±Inf value,
// and naming the column whose standard deviation exceeds the float64 range.
func Fit(m *mat.Dense, idx []int, ddof int) ([]Column, error) {
	r, c := m.Dims()
	if idx == nil {
		idx = make([]int, r)
		for i := range idx {
			idx[i] = i
		}
	}
	cols := make([]Column, c)
	for _, i := range idx {
		for j, v := range m.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("row %d, column %d holds %v: expected finite values (drop or repair such rows first)", i, j, v)
			}
			cols[j].Max = math.Max(cols[j].Max, math.Abs(v))
		}
	}
	if len(idx) == 0 {
		return cols, nil
	}
	n := float64(len(idx))
	scale := make([]float64, c)
	exps := make([]int, c)
	mean := make([]float64, c)
	for j := range cols {
		exps[j] = exponent(cols[j].Max)
		scale[j] = math.Ldexp(1, -exps[j])
	}
	for _, i := range idx {
		for j, v := range m.RawRowView(i) {
			mean[j] += v * scale[j] / n
		}
	}
	ss := make([]float64, c)
	for _, i := range idx {
		for j, v := range m.RawRowView(i) {
			d := v*scale[j] - mean[j]
			ss[j] += d * d
		}
	}
	for j := range cols {
		cols[j].Mean = math.Ldexp(mean[j], exps[j])
		if len(idx) > ddof {
			cols[j].Std = math.Ldexp(math.Sqrt(ss[j]/(n-float64(ddof))), exps[j])
		}
		if err := cols[j].check(j); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

func (c Column) check(j int) error {
	if math.IsInf(c.Std, 0) || math.IsInf(c.Mean, 0) {
		return fmt.Errorf("column %d: the spread of its values (largest magnitude %g) exceeds the float64 range, so it cannot be standardized; divide this column by a constant first", j, c.Max)
	}
	return nil
}

// Accumulator collects the same statistics in one pass (Welford's update in the scaled
// units of the largest magnitude seen so far; a larger value rescales the sums, exactly, by
// a power of two). Its zero value is ready: Add takes whole rows, AddAt single values of one
// column (columns may then hold different numbers of values, as the groups of an embedding's
// input layout do).
type Accumulator struct {
	exps             []int
	n, max, mean, m2 []float64 // per column; mean and m2 in units of 2^exps[j]
}

// grow makes room for c columns.
func (a *Accumulator) grow(c int) {
	for len(a.mean) < c {
		a.exps = append(a.exps, 0)
		a.n, a.max = append(a.n, 0), append(a.max, 0)
		a.mean, a.m2 = append(a.mean, 0), append(a.m2, 0)
	}
}

// Add accumulates one row; a NaN or ±Inf value is an error naming its column, and the row is
// then not counted.
func (a *Accumulator) Add(row []float64) error {
	a.grow(len(row))
	if len(row) != len(a.mean) {
		return fmt.Errorf("row of %d values, expected %d", len(row), len(a.mean))
	}
	for j, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("column %d holds %v: expected finite values", j, v)
		}
	}
	for j, v := range row {
		a.add(j, v)
	}
	return nil
}

// AddAt accumulates the value v of column j; a NaN or ±Inf value is an error.
func (a *Accumulator) AddAt(j int, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("column %d holds %v: expected finite values", j, v)
	}
	a.grow(j + 1)
	a.add(j, v)
	return nil
}

func (a *Accumulator) add(j int, v float64) {
	a.n[j]++
	if av := math.Abs(v); av > a.max[j] {
		first := a.max[j] == 0 // every earlier value was 0
		a.max[j] = av
		if e := exponent(av); e > a.exps[j] || first {
			a.mean[j] = math.Ldexp(a.mean[j], a.exps[j]-e)
			a.m2[j] = math.Ldexp(a.m2[j], 2*(a.exps[j]-e))
			a.exps[j] = e
		}
	}
	s := math.Ldexp(v, -a.exps[j])
	d := s - a.mean[j]
	a.mean[j] += d / a.n[j]
	a.m2[j] += d * (s - a.mean[j])
}

// Columns returns the statistics of the first c columns (those never given a value have
// mean 0 and standard deviation 0), with the standard deviation divided by n − ddof, or an
// error naming a column whose spread exceeds the float64 range.
func (a *Accumulator) Columns(c, ddof int) ([]Column, error) {
	a.grow(c)
	cols := make([]Column, c)
	for j := range cols {
		cols[j] = Column{Mean: math.Ldexp(a.mean[j], a.exps[j]), Max: a.max[j]}
		if a.n[j] > float64(ddof) {
			cols[j].Std = math.Ldexp(math.Sqrt(a.m2[j]/(a.n[j]-float64(ddof))), a.exps[j])
		}
		if err := cols[j].check(j); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

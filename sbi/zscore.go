package sbi

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// zscore standardizes columns: z = (v − Mean)/Std, with Mean and Std learned from training
// data, as sbi's z_score_theta/z_score_x="independent" do.
type zscore struct {
	Mean, Std []float64
}

// minStd is the smallest standard deviation a column keeps; a constant column (smaller
// spread) is left unscaled, as sbi does for std < 1e-14.
const minStd = 1e-14

// fitZScore learns the column means and standard deviations of the rows idx of m.
func fitZScore(m *mat.Dense, idx []int) zscore {
	_, c := m.Dims()
	z := zscore{Mean: make([]float64, c), Std: make([]float64, c)}
	n := float64(len(idx))
	for _, i := range idx {
		for j, v := range m.RawRowView(i) {
			z.Mean[j] += v / n
		}
	}
	for _, i := range idx {
		for j, v := range m.RawRowView(i) {
			d := v - z.Mean[j]
			z.Std[j] += d * d
		}
	}
	for j := range z.Std {
		if len(idx) > 1 {
			z.Std[j] = math.Sqrt(z.Std[j] / (n - 1))
		}
		if !(z.Std[j] >= minStd) {
			z.Std[j] = 1
		}
	}
	return z
}

// apply returns the standardized copy of m.
func (z zscore) apply(m *mat.Dense) *mat.Dense {
	r, c := m.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		z.applyRow(out.RawRowView(i), m.RawRowView(i))
	}
	return out
}

// applyRow writes the standardized src into dst.
func (z zscore) applyRow(dst, src []float64) {
	for j, v := range src {
		dst[j] = (v - z.Mean[j]) / z.Std[j]
	}
}

// invertRow maps standardized values back to raw units in place.
func (z zscore) invertRow(v []float64) {
	for j := range v {
		v[j] = v[j]*z.Std[j] + z.Mean[j]
	}
}

// logJacobian is Σ_j log Std_j: log q_raw(v) = log q_z(z) − logJacobian.
func (z zscore) logJacobian() float64 {
	s := 0.0
	for _, v := range z.Std {
		s += math.Log(v)
	}
	return s
}

package sbi

import (
	"fmt"
	"strings"

	"github.com/gosbi/gosbi/sbi/internal/colstat"
	"github.com/gosbi/gosbi/sbi/internal/mathx"

	"gonum.org/v1/gonum/mat"
)

// zscore standardizes columns: z = (v − Mean)/Std, with Mean and Std learned from training
// data, as sbi's z_score_theta/z_score_x="independent" do.
type zscore struct {
	Mean, Std []float64
	// constant lists the columns whose training values were all equal (only centred), in
	// increasing order; constKnown says whether it is known, which is read for θ only: for θ
	// after a fit and after a load from a file that records it (format 5 on,
	// "constant_theta"). The standardization of x by an embedding's input layout (groups)
	// leaves it unknown. An unknown list is empty and must not be read as "no constant
	// column".
	constant   []int
	constKnown bool
}

// fitZScore learns the column means and standard deviations (n − 1) of the rows idx of m,
// scaled so that data of any finite magnitude standardize (package colstat); a constant
// column is only centred. It returns an error naming a column whose spread exceeds the
// float64 range.
func fitZScore(what string, m *mat.Dense, idx []int) (zscore, error) {
	cols, err := colstat.Fit(m, idx, 1)
	if err != nil {
		return zscore{}, fmt.Errorf("standardizing %s: %w", what, err)
	}
	return zscoreOf(cols), nil
}

func zscoreOf(cols []colstat.Column) zscore {
	z := zscore{Mean: make([]float64, len(cols)), Std: make([]float64, len(cols)), constKnown: true}
	for j, c := range cols {
		z.Mean[j], z.Std[j] = c.Mean, c.Scale()
		if c.Constant() {
			z.constant = append(z.constant, j)
		}
	}
	return z
}

// constantWarnings returns the warnings about the columns that did not vary in the training
// pairs standardized by zt and zx: of θ, a parameter the simulations held fixed, of which
// nothing can be learned; of the first modeledX columns of x, those whose density a likelihood
// estimator models (0 for the others, to which a constant summary is harmless), a point mass.
func constantWarnings(zt, zx zscore, modeledX int) []string {
	var out []string
	if len(zt.constant) > 0 {
		out = append(out, constantList("θ", zt, len(zt.Mean))+" in every training pair: the simulations did not vary it, so nothing of its posterior can be learned (NPE and FMPE put all its mass on that value, ratio and likelihood estimators leave it at the prior); draw θ from the prior, or leave a fixed parameter out of θ and the prior")
	}
	if s := constantList("x", zx, modeledX); s != "" {
		out = append(out, s+" in every training pair: the likelihood estimator learns a point mass there, so an observation with another value there has a likelihood near zero for every θ; leave a constant summary out of x")
	}
	return out
}

// constantList names the constant columns of z below limit with their values, "" for none.
func constantList(what string, z zscore, limit int) string {
	var cols []string
	for _, j := range z.constant {
		if j < limit {
			cols = append(cols, fmt.Sprintf("%s column %d holds the same value (%.6g)", what, j, z.Mean[j]))
		}
	}
	return strings.Join(cols, ", ")
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
		dst[j] = colstat.Standardize(v, z.Mean[j], z.Std[j])
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
		s += mathx.Log(v)
	}
	return s
}

package sbitest

import (
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi"
	"gonum.org/v1/gonum/mat"
)

// WithCoin makes an MNLE an Estimator of the suite's continuous task, whose data have no
// discrete part: it appends to every x a discrete column, a coin d ~ Bernoulli(0.3)
// independent of θ and x in training and d = 1 in evaluation. Since p(x, d | θ) = p(x | θ)·p(d),
// the posterior given (x, d) is the suite's closed form, and the MNLE must learn a categorical
// part that ignores θ and a flow that ignores d. The coins of a training come from a fixed
// seed.
func WithCoin(m *sbi.MNLE) Estimator { return withCoin{m} }

type withCoin struct{ *sbi.MNLE }

// appendColumn returns x with a column more, value(i) in row i.
func appendColumn(x *mat.Dense, value func(i int) float64) *mat.Dense {
	n, c := x.Dims()
	out := mat.NewDense(n, c+1, nil)
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		copy(row, x.RawRowView(i))
		row[c] = value(i)
	}
	return out
}

func (w withCoin) Train(theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	return w.MNLE.Train(theta, appendColumn(x, func(int) float64 {
		if rng.Float64() < 0.3 {
			return 1
		}
		return 0
	}), cfg)
}

func (w withCoin) Posterior(x []float64) sbi.Posterior {
	return w.MNLE.Posterior(append(append([]float64(nil), x...), 1))
}

func (w withCoin) LogProbPairs(theta, x *mat.Dense) []float64 {
	return w.MNLE.LogProbPairs(theta, appendColumn(x, func(int) float64 { return 1 }))
}

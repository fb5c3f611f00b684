package diag

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// SyntheticModel is one of the synthetic calibration benchmarks of the KCCSD paper (Glaser et
// al., §7 and App. F, after Widmann et al. 2022 and Jitkrittum et al. 2020). Each draws
// covariates z, a target y | z and a Gaussian prediction p(z); the miscalibration δ
// (SyntheticConfig.Delta) is 0 for a calibrated model, law(Y | P) = P.
type SyntheticModel int

const (
	// MeanGaussian (MGM, and MMGM for δ ≠ 0): z ~ N(0, I_d), y | z ~ N(z, I_d), prediction
	// N(z + δ, I_d) with δ added to every coordinate (δ·1, App. F.5–F.6) or, with ShiftFirst,
	// to the first only (δ·e₁, main Fig. 2 and App. F.7–F.8). Default d = 2.
	MeanGaussian SyntheticModel = iota
	// LinearGaussian (LGM, App. F.3–F.4): z ~ N(0, I_d), y | z ~ N(Σᵢ i·zᵢ, 1), prediction
	// N(δ + Σᵢ i·zᵢ, 1). Default d = 5; the paper uses δ = 0 (a null model).
	LinearGaussian
	// HeteroscedasticGaussian (HGM, App. F.9–F.10): z ~ N(0, I_d), y | z ~ N(Σᵢ zᵢ, 1),
	// prediction N(Σᵢ zᵢ, 1 + 10·δ·exp(−‖z − c‖²/(2·0.8²))) with c = (2/3)·1: too wide near
	// c. Default d = 3; the paper's alternative is δ = 1.
	HeteroscedasticGaussian
	// QuadraticGaussian (QGM, App. F.11–F.12): z ~ U(−2, 2), y | z ~ N(0.1z² + z + 1, 1),
	// prediction N(0.1(1 − δ)z² + z + 1, 1): the quadratic term is missed. Always d = 1; the
	// paper's alternative is δ = 1.
	QuadraticGaussian
)

func (m SyntheticModel) String() string {
	switch m {
	case MeanGaussian:
		return "MGM"
	case LinearGaussian:
		return "LGM"
	case HeteroscedasticGaussian:
		return "HGM"
	case QuadraticGaussian:
		return "QGM"
	}
	return fmt.Sprintf("SyntheticModel(%d)", int(m))
}

// defaultDim is the dimension of z in the authors' data generators.
func (m SyntheticModel) defaultDim() int {
	switch m {
	case LinearGaussian:
		return 5
	case HeteroscedasticGaussian:
		return 3
	case QuadraticGaussian:
		return 1
	}
	return 2
}

// SyntheticConfig sets SyntheticData. N is required; the zero value of every other field is the
// calibrated MGM in d = 2.
type SyntheticConfig struct {
	Model SyntheticModel
	N     int     // pairs (prediction, target), at least 1
	Dim   int     // dimension d of the covariates z; 0 for the model's default (QGM: always 1)
	Delta float64 // miscalibration δ; 0 is calibrated
	// ShiftFirst shifts only the first coordinate of the MGM's mean (δ·e₁) instead of all (δ·1).
	ShiftFirst bool
}

// HeteroscedasticVariance is the predicted variance of the HGM at covariates z,
// 1 + 10·δ·exp(−‖z − c‖²/(2·0.8²)) with c = (2/3)·1.
func HeteroscedasticVariance(z []float64, delta float64) float64 {
	var s float64
	for _, v := range z {
		t := (v - 2.0/3) / 0.8
		s += t * t
	}
	return 1 + 10*delta*math.Exp(-s/2)
}

// SyntheticData draws cfg.N pairs of one of the KCCSD paper's synthetic models: the Gaussian
// predictions (for KCCSDTest and SKCETest, which use their closed forms with Dist.Exact) and the
// targets, one per row of y. It returns an error for N < 1, a negative Dim, a Dim other than 1
// for the QGM, a non-finite δ, ShiftFirst on another model than the MGM, or a negative
// variance factor δ of the HGM.
func SyntheticData(rng *rand.Rand, cfg SyntheticConfig) ([]Prediction, *mat.Dense, error) {
	d, err := cfg.check()
	if err != nil {
		return nil, nil, err
	}
	n, delta := cfg.N, cfg.Delta
	preds := make([]Prediction, n)
	ydim := 1
	if cfg.Model == MeanGaussian {
		ydim = d
	}
	y := mat.NewDense(n, ydim, nil)
	z := make([]float64, d)
	for i := range n {
		for j := range z {
			if cfg.Model == QuadraticGaussian {
				z[j] = 4*rng.Float64() - 2
			} else {
				z[j] = rng.NormFloat64()
			}
		}
		switch cfg.Model {
		case MeanGaussian:
			mu := make([]float64, d)
			for j := range d {
				y.Set(i, j, z[j]+rng.NormFloat64())
				mu[j] = z[j]
				if j == 0 || !cfg.ShiftFirst {
					mu[j] += delta
				}
			}
			preds[i] = NewIsoGaussian(mu, 1)
		case LinearGaussian:
			var m float64
			for j, v := range z {
				m += float64(j+1) * v
			}
			y.Set(i, 0, m+rng.NormFloat64())
			preds[i] = NewIsoGaussian([]float64{m + delta}, 1)
		case HeteroscedasticGaussian:
			var m float64
			for _, v := range z {
				m += v
			}
			y.Set(i, 0, m+rng.NormFloat64())
			preds[i] = NewIsoGaussian([]float64{m}, HeteroscedasticVariance(z, delta))
		case QuadraticGaussian:
			v := z[0]
			y.Set(i, 0, 0.1*v*v+v+1+rng.NormFloat64())
			preds[i] = NewIsoGaussian([]float64{0.1*(1-delta)*v*v + v + 1}, 1)
		}
	}
	return preds, y, nil
}

// MustSyntheticData is SyntheticData for notebook cells: it panics with the error.
func MustSyntheticData(rng *rand.Rand, cfg SyntheticConfig) ([]Prediction, *mat.Dense) {
	p, y, err := SyntheticData(rng, cfg)
	if err != nil {
		panic(err)
	}
	return p, y
}

// check validates cfg and returns the dimension of z.
func (cfg SyntheticConfig) check() (int, error) {
	var errs []error
	if cfg.Model < MeanGaussian || cfg.Model > QuadraticGaussian {
		return 0, fmt.Errorf("diag: unknown synthetic model %d; use MeanGaussian, LinearGaussian, HeteroscedasticGaussian or QuadraticGaussian", int(cfg.Model))
	}
	d := cfg.Dim
	if d == 0 {
		d = cfg.Model.defaultDim()
	}
	if cfg.N < 1 {
		errs = append(errs, fmt.Errorf("diag: SyntheticData: N = %d, want at least 1 pair", cfg.N))
	}
	if d < 1 || (cfg.Model == QuadraticGaussian && d != 1) {
		errs = append(errs, fmt.Errorf("diag: SyntheticData: Dim = %d for the %v; want ≥ 1 (QGM: 1, or 0 for the default)", cfg.Dim, cfg.Model))
	}
	if math.IsNaN(cfg.Delta) || math.IsInf(cfg.Delta, 0) {
		errs = append(errs, fmt.Errorf("diag: SyntheticData: Delta = %v, want a finite value", cfg.Delta))
	}
	if cfg.Model == HeteroscedasticGaussian && cfg.Delta < 0 {
		errs = append(errs, fmt.Errorf("diag: SyntheticData: Delta = %v for the HGM, want ≥ 0 (it scales a variance)", cfg.Delta))
	}
	if cfg.ShiftFirst && cfg.Model != MeanGaussian {
		errs = append(errs, fmt.Errorf("diag: SyntheticData: ShiftFirst applies to the MGM only, not the %v", cfg.Model))
	}
	return d, errors.Join(errs...)
}

package diag

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/sbi/internal/pairs"
)

// DistKernelKind is the kernel k(p, p') on predicted distributions, always of the exponentiated
// form exp(−D²(p, p')/(2σ²)) for a Hilbertian distance D (Glaser et al., Section 4).
type DistKernelKind int

const (
	// FisherKernel uses the generalized Fisher divergence D² = ∫‖s_p − s_p'‖² dν with ν =
	// N(0, I) (Definition 4.1): from scores only.
	FisherKernel DistKernelKind = iota
	// KernelizedFisherKernel smooths the score difference with a Gaussian ground kernel on the
	// base points (KGFD): D² = ∫∫ k(z, z') Δ(z)ᵀΔ(z') dν dν, Δ = s_p − s_p'.
	KernelizedFisherKernel
	// MMDKernel uses the maximum mean discrepancy with a Gaussian ground kernel; the
	// approximate version needs predictions that can be sampled.
	MMDKernel
	// WassersteinKernel uses the 2-Wasserstein distance between isotropic Gaussian predictions
	// N(μ, σ²I), D² = ‖μ − μ'‖² + d(σ − σ')² (exact only; see WassersteinFeatures).
	WassersteinKernel
)

func (k DistKernelKind) String() string {
	switch k {
	case KernelizedFisherKernel:
		return "exp. kernelized Fisher"
	case MMDKernel:
		return "exp. MMD"
	case WassersteinKernel:
		return "exp. Wasserstein"
	}
	return "exp. Fisher"
}

// DistKernelConfig configures the kernel on distributions.
type DistKernelConfig struct {
	Kind DistKernelKind
	// Exact uses the closed forms for Gaussian predictions (every prediction must be a
	// *Gaussian); otherwise the divergence is estimated from BaseSamples points of ν = N(0, I),
	// drawn once and shared by all predictions (Fisher kinds), or from BaseSamples draws of each
	// prediction (MMD).
	Exact       bool
	BaseSamples int // default 10, as in the paper
	// Bandwidth σ of exp(−D²/(2σ²)); 0 picks the median of D over pairs.
	Bandwidth float64
	// GroundBandwidth of the Gaussian ground kernel of KernelizedFisherKernel and MMDKernel;
	// 0 picks the median distance between base points (KGFD; for exact kernels the median of
	// ‖z − z'‖ under ν) or the median distance between pooled prediction draws (MMD; for exact
	// kernels the median over pairs of √(‖μ − μ'‖² + tr Σ + tr Σ')).
	GroundBandwidth float64
}

// pairDist gives D²(pᵢ, pⱼ) for a batch of predictions.
type pairDist interface {
	sq(i, j int) float64
}

// featureDist is D² = ‖fᵢ − fⱼ‖² for feature rows.
type featureDist struct{ f *mat.Dense }

func (f featureDist) sq(i, j int) float64 { return sqDist(f.f.RawRowView(i), f.f.RawRowView(j)) }

func sqDist(a, b []float64) float64 {
	var s float64
	for k := range a {
		t := a[k] - b[k]
		s += t * t
	}
	return s
}

// prepare builds the distance of the kernel for the predictions and reports the ground
// bandwidth it used (0 where there is none).
func (k DistKernelConfig) prepare(rng *rand.Rand, preds []Prediction) (pairDist, float64, error) {
	m := k.BaseSamples
	if m <= 0 {
		m = 10
	}
	d := preds[0].Dim()
	if k.Exact {
		gs, err := gaussians(preds)
		if err != nil {
			return nil, 0, err
		}
		switch k.Kind {
		case FisherKernel:
			return featureDist{gaussFisherFeatures(gs, 0)}, 0, nil
		case KernelizedFisherKernel:
			ell := k.GroundBandwidth
			if ell <= 0 {
				ell = math.Sqrt(2 * distuv.ChiSquared{K: float64(d)}.Quantile(0.5))
			}
			return featureDist{gaussFisherFeatures(gs, ell)}, ell, nil
		case MMDKernel:
			lam := k.GroundBandwidth
			if lam <= 0 {
				lam = gaussMMDBandwidth(rng, gs)
			}
			return newGaussMMD(gs, lam), lam, nil
		case WassersteinKernel:
			f, err := isoWassersteinFeatures(gs)
			return featureDist{f}, 0, err
		}
		return nil, 0, fmt.Errorf("diag: unknown kernel on distributions %d", k.Kind)
	}
	switch k.Kind {
	case FisherKernel, KernelizedFisherKernel:
		z := mat.NewDense(m, d, nil)
		for i := range m {
			for j := range d {
				z.Set(i, j, rng.NormFloat64())
			}
		}
		scores := make([]*mat.Dense, len(preds))
		for i, p := range preds {
			scores[i] = p.Score(z)
			if a, ok := firstNonFiniteRow(scores[i]); ok {
				return nil, 0, fmt.Errorf("diag: the score of prediction %d at the base point %v of ν = N(0, I) is %v: its log density is −Inf or NaN there, "+
					"so its support is not all of R^d and the %s kernel is undefined; test a posterior on a bounded support in unconstrained coordinates "+
					"(UnconstrainedPrediction with dist.Unconstrain(prior); KCCSDAmortized does this for estimators with a Prior method), "+
					"or use Dist.Kind = MMDKernel, which needs samples instead of scores at base points", i, z.RawRowView(a), scores[i].RawRowView(a), k.Kind)
			}
		}
		if k.Kind == FisherKernel {
			return featureDist{GFDFeatures(scores)}, 0, nil
		}
		ell := k.GroundBandwidth
		if ell <= 0 {
			ell = medianPairDist(z)
		}
		f, err := KGFDFeatures(scores, z, ell)
		return featureDist{f}, ell, err
	case MMDKernel:
		samples := make([]*mat.Dense, len(preds))
		for i, p := range preds {
			s, ok := p.(SampledPrediction)
			if !ok {
				return nil, 0, fmt.Errorf("diag: the MMD kernel needs predictions that can be sampled, prediction %d (%T) cannot", i, p)
			}
			samples[i] = s.Sample(rng, m)
			if a, ok := firstNonFiniteRow(samples[i]); ok {
				return nil, 0, fmt.Errorf("diag: draw %d of prediction %d is %v; the MMD kernel needs finite draws (in unconstrained coordinates, a draw on the boundary of the support has none)", a, i, samples[i].RawRowView(a))
			}
		}
		lam := k.GroundBandwidth
		if lam <= 0 {
			lam = pooledMedian(rng, samples)
		}
		return newSampleMMD(samples, lam), lam, nil
	case WassersteinKernel:
		return nil, 0, errors.New("diag: the Wasserstein kernel is closed-form for isotropic Gaussian predictions only; set Dist.Exact true")
	}
	return nil, 0, fmt.Errorf("diag: unknown kernel on distributions %d", k.Kind)
}

// GFDFeatures embeds predictions for the generalized Fisher divergence: row i is the stacked
// scores of prediction i at m shared base points divided by √m, so that ‖fᵢ − fⱼ‖² is the GFD
// estimate (1/m) Σₐ ‖s_i(zₐ) − s_j(zₐ)‖² (Glaser et al., Algorithm 2). The features are linear
// in the scores, so a penalty gets ∂/∂scores from ∂/∂features by the same scaling.
func GFDFeatures(scoresAtBase []*mat.Dense) *mat.Dense {
	m, d := scoresAtBase[0].Dims()
	f := mat.NewDense(len(scoresAtBase), m*d, nil)
	c := 1 / math.Sqrt(float64(m))
	for i, s := range scoresAtBase {
		row := f.RawRowView(i)
		for a := range m {
			for j, v := range s.RawRowView(a) {
				row[a*d+j] = c * v
			}
		}
	}
	return f
}

// KGFDFeatures embeds predictions for the kernelized Fisher divergence with a Gaussian ground
// kernel of bandwidth ell on the base points z (m×d): with G = k(zₐ, z_b) = LLᵀ, row i is
// vec(LᵀSᵢ)/m, so that ‖fᵢ − fⱼ‖² = (1/m²) Σₐ_b k(zₐ, z_b) Δ(zₐ)ᵀΔ(z_b), Δ = sᵢ − sⱼ.
func KGFDFeatures(scoresAtBase []*mat.Dense, z *mat.Dense, ell float64) (*mat.Dense, error) {
	m, d := z.Dims()
	g := mat.NewSymDense(m, nil)
	for a := range m {
		for b := a; b < m; b++ {
			v := math.Exp(-sqDist(z.RawRowView(a), z.RawRowView(b)) / (2 * ell * ell))
			if a == b {
				v += 1e-8
			}
			g.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return nil, errors.New("diag: the ground-kernel Gram matrix of the base points is not positive definite; use fewer base samples or another bandwidth")
	}
	var L mat.TriDense
	ch.LTo(&L)
	f := mat.NewDense(len(scoresAtBase), m*d, nil)
	var t mat.Dense
	for i, s := range scoresAtBase {
		t.Mul(L.T(), s) // m×d
		row := f.RawRowView(i)
		for a := range m {
			for j := range d {
				row[a*d+j] = t.At(a, j) / float64(m)
			}
		}
	}
	return f, nil
}

// gaussFisherFeatures are exact features of Gaussian predictions for ν = N(0, I). With P the
// precision and η = Pμ, s_p(z) − s_q(z) = (P_q − P_p)z + (η_p − η_q), so GFD = ‖P_p − P_q‖²_F +
// ‖η_p − η_q‖² and features [vec P, η] (ell = 0). For the KGFD with ground bandwidth ℓ,
// KGFD = (ℓ²/(ℓ²+2))^{d/2} (‖ΔP‖²_F/(ℓ²+2) + ‖Δη‖²), features scaled accordingly.
func gaussFisherFeatures(gs []*gaussian, ell float64) *mat.Dense {
	d := len(gs[0].Mean)
	f := mat.NewDense(len(gs), d*d+d, nil)
	cP, cEta := 1.0, 1.0
	if ell > 0 {
		c := math.Pow(ell*ell/(ell*ell+2), float64(d)/2)
		cP = math.Sqrt(c / (ell*ell + 2))
		cEta = math.Sqrt(c)
	}
	for i, g := range gs {
		row := f.RawRowView(i)
		for j := range d {
			var eta float64
			for k := range d {
				row[j*d+k] = cP * g.prec.At(j, k)
				eta += g.prec.At(j, k) * g.Mean[k]
			}
			row[d*d+j] = cEta * eta
		}
	}
	return f
}

// gaussMMD is the exact MMD² between Gaussians under a Gaussian ground kernel of bandwidth λ:
// E k(X, Y) = det(I + (Σx + Σy)/λ²)^{−1/2} exp(−½ Δμᵀ(Σx + Σy + λ²I)⁻¹Δμ).
type gaussMMD struct {
	gs   []*gaussian
	lam  float64
	self []float64
}

func newGaussMMD(gs []*gaussian, lam float64) *gaussMMD {
	g := &gaussMMD{gs: gs, lam: lam, self: make([]float64, len(gs))}
	for i := range gs {
		g.self[i] = g.cross(i, i)
	}
	return g
}

func (g *gaussMMD) cross(i, j int) float64 {
	return gaussKernelMean(g.gs[i].Mean, g.gs[j].Mean, g.gs[i].Cov, g.gs[j].Cov, g.lam)
}

func (g *gaussMMD) sq(i, j int) float64 {
	return math.Max(g.self[i]+g.self[j]-2*g.cross(i, j), 0)
}

// sampleMMD is the (V-statistic) MMD² between empirical measures of draws.
type sampleMMD struct {
	s    []*mat.Dense
	lam  float64
	self []float64
}

func newSampleMMD(s []*mat.Dense, lam float64) *sampleMMD {
	g := &sampleMMD{s: s, lam: lam, self: make([]float64, len(s))}
	for i := range s {
		g.self[i] = g.cross(i, i)
	}
	return g
}

func (g *sampleMMD) cross(i, j int) float64 {
	a, b := g.s[i], g.s[j]
	na, _ := a.Dims()
	nb, _ := b.Dims()
	var sum float64
	c := -1 / (2 * g.lam * g.lam)
	for x := range na {
		ra := a.RawRowView(x)
		for y := range nb {
			sum += math.Exp(c * sqDist(ra, b.RawRowView(y)))
		}
	}
	return sum / float64(na*nb)
}

func (g *sampleMMD) sq(i, j int) float64 {
	return math.Max(g.self[i]+g.self[j]-2*g.cross(i, j), 0)
}

// randomPairs returns up to max distinct-index pairs (all pairs i < j when there are few).
func randomPairs(rng *rand.Rand, n, maxPairs int) [][2]int {
	total := n * (n - 1) / 2
	var pairs [][2]int
	if total <= maxPairs {
		for i := range n {
			for j := i + 1; j < n; j++ {
				pairs = append(pairs, [2]int{i, j})
			}
		}
		return pairs
	}
	for len(pairs) < maxPairs {
		i, j := rng.IntN(n), rng.IntN(n)
		if i != j {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	return pairs
}

// medianOf returns the median of positive values, ignoring zeros; 1 when all are zero (the
// fallback of the authors' code for degenerate data).
func medianOf(v []float64) float64 {
	pos := v[:0:0]
	for _, a := range v {
		if a > 0 && !math.IsInf(a, 0) && !math.IsNaN(a) {
			pos = append(pos, a)
		}
	}
	if len(pos) == 0 {
		return 1
	}
	sort.Float64s(pos)
	if len(pos)%2 == 1 {
		return pos[len(pos)/2]
	}
	return (pos[len(pos)/2-1] + pos[len(pos)/2]) / 2
}

const maxMedianPairs = 5000

func medianPairDist(z *mat.Dense) float64 {
	n, _ := z.Dims()
	var v []float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			v = append(v, math.Sqrt(sqDist(z.RawRowView(i), z.RawRowView(j))))
		}
	}
	return medianOf(v)
}

func pooledMedian(rng *rand.Rand, samples []*mat.Dense) float64 {
	var rows [][]float64
	for _, s := range samples {
		n, _ := s.Dims()
		for i := range n {
			rows = append(rows, s.RawRowView(i))
		}
	}
	v := make([]float64, 0, maxMedianPairs)
	for _, p := range randomPairs(rng, len(rows), maxMedianPairs) {
		v = append(v, math.Sqrt(sqDist(rows[p[0]], rows[p[1]])))
	}
	return medianOf(v)
}

func gaussMMDBandwidth(rng *rand.Rand, gs []*gaussian) float64 {
	v := make([]float64, 0, maxMedianPairs)
	for _, p := range randomPairs(rng, len(gs), maxMedianPairs) {
		a, b := gs[p[0]], gs[p[1]]
		s := sqDist(a.Mean, b.Mean)
		for k := range len(a.Mean) {
			s += a.Cov.At(k, k) + b.Cov.At(k, k)
		}
		v = append(v, math.Sqrt(s))
	}
	return medianOf(v)
}

// firstNonFiniteRow returns the first row of a that holds a NaN or infinite entry.
func firstNonFiniteRow(a *mat.Dense) (int, bool) {
	r, _ := a.Dims()
	for i := range r {
		if !pairs.AllFinite(a.RawRowView(i)) {
			return i, true
		}
	}
	return 0, false
}

// gaussians returns the moments of predictions that must all be Gaussians of package dist.
func gaussians(preds []Prediction) ([]*gaussian, error) {
	gs := make([]*gaussian, len(preds))
	for i, p := range preds {
		g, ok := asGaussian(p)
		if !ok {
			return nil, fmt.Errorf("diag: exact kernels need Gaussian predictions (*dist.MultivariateNormal or *dist.Normal), prediction %d is %T; set Exact false for base-sample estimates", i, p)
		}
		gs[i] = g
	}
	return gs, nil
}

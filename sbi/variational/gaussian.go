package variational

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/internal/colstat"
	"github.com/gosbi/gosbi/sbi/internal/mathx"
	"github.com/gosbi/gosbi/sbi/internal/table"
	"github.com/gosbi/gosbi/sbi/nn"
)

// Gaussian is a trained amortized Gaussian variational posterior: for an observation x,
// u = f⁻¹(θ) ~ N(μ(x), L(x)L(x)ᵀ) in the unconstrained coordinates of the prior's support, θ =
// f(u). It is an sbi.Amortized in θ.
type Gaussian struct {
	Objective Objective
	Config    Config        // the settings it was trained with, defaults filled in
	Losses    []float64     // mean training loss of each of (up to) 100 equal stretches of steps
	Duration  time.Duration // training time

	prior    dist.Distribution
	smap     dist.SupportMap
	identity bool // smap is θ = u
	net      *nn.MLP
	xMean    []float64
	xStd     []float64
	d        int
	diagonal bool
}

// Prior is the prior the estimator was trained with (its support sets the coordinates).
func (g *Gaussian) Prior() dist.Distribution { return g.prior }

// outputs is the number of network outputs: d means, d log-diagonals, and d(d−1)/2
// sub-diagonal entries of L unless the family is diagonal.
func outputs(d int, diagonal bool) int {
	if diagonal {
		return 2 * d
	}
	return 2*d + d*(d-1)/2
}

// offIndex is the column of L's entry (j, k), k < j, among the network outputs.
func offIndex(d, j, k int) int { return 2*d + j*(j-1)/2 + k }

// forward evaluates the network (no gradient) for the rows of x, standardized, and returns
// one output row per observation.
func (g *Gaussian) forward(x *mat.Dense) *mat.Dense {
	n, c := x.Dims()
	if c != len(g.xMean) {
		panic(fmt.Sprintf("variational: observations have %d columns, want %d", c, len(g.xMean)))
	}
	xz := mat.NewDense(n, c, nil)
	for i := range n {
		row, src := xz.RawRowView(i), x.RawRowView(i)
		for j := range c {
			row[j] = colstat.Standardize(src[j], g.xMean[j], g.xStd[j])
		}
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	return g.net.Forward(tp, tp.FromDense(xz)).Dense()
}

// moments unpacks one output row into μ and the lower-triangular L.
func (g *Gaussian) moments(out []float64) ([]float64, *mat.TriDense) {
	d := g.d
	mu := append([]float64(nil), out[:d]...)
	L := mat.NewTriDense(d, mat.Lower, nil)
	for j := range d {
		L.SetTri(j, j, math.Exp(out[d+j]))
		if !g.diagonal {
			for k := range j {
				L.SetTri(j, k, out[offIndex(d, j, k)])
			}
		}
	}
	return mu, L
}

// Unconstrained returns the mean μ(x) and the covariance L(x)L(x)ᵀ of q in the unconstrained
// coordinates u = f⁻¹(θ) (θ itself when the prior's support is all of R^d).
func (g *Gaussian) Unconstrained(x []float64) ([]float64, *mat.SymDense) {
	mu, L := g.moments(g.forward(mat.NewDense(1, len(x), append([]float64(nil), x...))).RawRowView(0))
	cov := mat.NewSymDense(g.d, nil)
	cov.SymOuterK(1, L)
	return mu, cov
}

// Posterior is q(· | x).
func (g *Gaussian) Posterior(x []float64) sbi.Posterior {
	mu, L := g.moments(g.forward(mat.NewDense(1, len(x), append([]float64(nil), x...))).RawRowView(0))
	return &GaussianPosterior{Mean: mu, Chol: L, est: g}
}

// LogProbPairs is log q(θᵢ | xᵢ) for every row, in θ (with the Jacobian of f): −Inf where θᵢ lies
// outside the prior's support.
func (g *Gaussian) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, _ := theta.Dims()
	if r, _ := x.Dims(); r != n {
		panic(fmt.Sprintf("variational: LogProbPairs of %d parameters and %d observations; want one per row", n, r))
	}
	out := g.forward(x)
	lp := make([]float64, n)
	for i := range n {
		mu, L := g.moments(out.RawRowView(i))
		lp[i] = (&GaussianPosterior{Mean: mu, Chol: L, est: g}).logProb(theta.RawRowView(i))
	}
	return lp
}

// String names the estimator.
func (g *Gaussian) String() string {
	fam := "full-covariance"
	if g.diagonal {
		fam = "diagonal"
	}
	return fmt.Sprintf("amortized %s Gaussian q(θ|x) trained by %v (%d steps)", fam, g.Objective, g.Config.Steps)
}

// MIMEBundle shows the training summary.
func (g *Gaussian) MIMEBundle() map[string]any {
	t := &table.Table{Title: "Amortized variational posterior", Header: []string{"quantity", "value"}}
	t.Add("objective", g.Objective.String())
	fam := "Gaussian, full covariance"
	if g.diagonal {
		fam = "Gaussian, diagonal covariance (mean field)"
	}
	if !g.identity {
		fam += ", in the unconstrained coordinates of the prior's support"
	}
	t.Add("family", fam)
	t.Add("network", fmt.Sprintf("MLP %v → %d outputs", append([]int{len(g.xMean)}, g.Config.Hidden...), outputs(g.d, g.diagonal)))
	t.Add("steps × batch", fmt.Sprintf("%d × %d", g.Config.Steps, g.Config.BatchSize))
	if g.Objective == IWBO {
		t.Add("particles K", fmt.Sprint(g.Config.Particles))
	}
	if g.Objective != FAVI {
		obs := fmt.Sprintf("fixed set of %d simulated observations", g.Config.Observations)
		if g.Config.Fresh {
			obs = "fresh simulated observations every step"
		}
		t.Add("observations", obs)
	}
	if len(g.Losses) > 0 {
		t.Add("loss first → last stretch", fmt.Sprintf("%.4g → %.4g", g.Losses[0], g.Losses[len(g.Losses)-1]))
	}
	t.Add("training time", g.Duration.Round(time.Millisecond).String())
	return t.Bundle()
}

// GaussianPosterior is q(· | x) of a Gaussian estimator for one observation: u ~ N(Mean,
// Chol·Cholᵀ), θ = f(u).
type GaussianPosterior struct {
	Mean []float64     // μ(x) in u
	Chol *mat.TriDense // L(x), lower triangular with a positive diagonal
	est  *Gaussian
}

// Dim is the number of parameters.
func (p *GaussianPosterior) Dim() int { return p.est.d }

// Sample draws n parameter vectors θ = f(μ + Lε), ε ~ N(0, I).
func (p *GaussianPosterior) Sample(rng *rand.Rand, n int) *mat.Dense {
	d := p.est.d
	out := mat.NewDense(max(n, 1), d, nil)
	eps, u := make([]float64, d), make([]float64, d)
	for i := range n {
		for j := range eps {
			eps[j] = rng.NormFloat64()
		}
		for j := range d {
			s := p.Mean[j]
			for k := 0; k <= j; k++ {
				s += p.Chol.At(j, k) * eps[k]
			}
			u[j] = s
		}
		p.est.toTheta(u, out.RawRowView(i))
	}
	if n == 0 {
		return &mat.Dense{}
	}
	return out
}

// LogProb is log q(θ | x) for every row: log N(f⁻¹(θ); μ, LLᵀ) − log|det ∂f/∂u|, −Inf outside
// the prior's support.
func (p *GaussianPosterior) LogProb(theta *mat.Dense) []float64 {
	n, c := theta.Dims()
	if c != p.est.d {
		panic(fmt.Sprintf("variational: LogProb of %d-column parameters, want %d", c, p.est.d))
	}
	lp := make([]float64, n)
	for i := range n {
		lp[i] = p.logProb(theta.RawRowView(i))
	}
	return lp
}

func (p *GaussianPosterior) logProb(theta []float64) float64 {
	d := p.est.d
	u := make([]float64, d)
	if !p.est.smap.Inverse(theta, u) {
		return math.Inf(-1)
	}
	// Forward substitution: ε = L⁻¹(u − μ); log N = −Σ log Lⱼⱼ − ½‖ε‖² − (d/2) log 2π.
	eps := make([]float64, d)
	var lp float64
	for j := range d {
		r := u[j] - p.Mean[j]
		for k := range j {
			r -= p.Chol.At(j, k) * eps[k]
		}
		ljj := p.Chol.At(j, j)
		eps[j] = r / ljj
		lp -= mathx.Log(ljj) + 0.5*eps[j]*eps[j]
	}
	lp -= 0.5 * float64(d) * math.Log(2*math.Pi)
	if !p.est.identity {
		lp -= p.est.smap.LogAbsDetJacobian(u)
	}
	if math.IsNaN(lp) {
		return math.Inf(-1)
	}
	return lp
}

// toTheta maps u to θ.
func (g *Gaussian) toTheta(u, theta []float64) {
	if g.identity {
		copy(theta, u)
		return
	}
	g.smap.Forward(u, theta)
}

// The estimator serves the conformal methods and the diagnostics.
var (
	_ sbi.Amortized = (*Gaussian)(nil)
	_ sbi.Posterior = (*GaussianPosterior)(nil)
)

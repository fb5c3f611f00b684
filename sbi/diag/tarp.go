package diag

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// TARPResult is the Tests of Accuracy with Random Points coverage (Lemos et al. 2023).
type TARPResult struct {
	Alpha []float64 // credibility levels, 0 … 1
	ECP   []float64 // expected coverage probability at each level; the diagonal when calibrated
	F     []float64 // per-pair TARP statistic f; Uniform(0, 1) for the exact posterior
	// ATC is Σ (ECP − α) over the levels above 0.5, as sbi's check_tarp: ≈ 0 when calibrated,
	// > 0 conservative, < 0 over-confident.
	ATC float64
	// KSPValue is the p-value of the Kolmogorov–Smirnov test of F against Uniform(0, 1).
	KSPValue float64
	// Dropped counts the test pairs left out because θ or x held NaN or ±Inf.
	Dropped int
	// Proposal is the estimator's TrainingProposal (sbi.NPE.TrainingProposal) when it was
	// trained on parameters drawn from a proposal, not from its prior (Sequential's later
	// rounds); "" otherwise. String and MIMEBundle then note that over test pairs drawn from the
	// whole prior the check tests what the estimator was not trained for. The verdict does not
	// use it.
	Proposal string
}

type tarpSetup struct {
	mean, std, lo, hi []float64
}

// newTARPSetup z-scores parameters by the test set's mean and standard deviation and draws
// reference points uniformly in the box spanned by the z-scored test parameters, as sbi's
// run_tarp with z_score_theta=True.
func newTARPSetup(theta *mat.Dense) *tarpSetup {
	n, d := theta.Dims()
	s := &tarpSetup{mean: make([]float64, d), std: make([]float64, d), lo: make([]float64, d), hi: make([]float64, d)}
	col := make([]float64, n)
	for j := range d {
		mat.Col(col, j, theta)
		s.mean[j], s.std[j] = stat.MeanStdDev(col, nil)
		if !(s.std[j] > 0) {
			s.std[j] = 1
		}
		s.lo[j], s.hi[j] = math.Inf(1), math.Inf(-1)
		for _, v := range col {
			z := (v - s.mean[j]) / s.std[j]
			s.lo[j], s.hi[j] = math.Min(s.lo[j], z), math.Max(s.hi[j], z)
		}
	}
	return s
}

// statistic is f = fraction of draws closer (Euclidean, z-scored) to a random reference point
// than θ*, with ties and discreteness randomised like the HPD rank.
func (s *tarpSetup) statistic(rng *rand.Rand, draws *mat.Dense, star []float64) float64 {
	d := len(star)
	ref := make([]float64, d)
	for j := range d {
		ref[j] = s.lo[j] + rng.Float64()*(s.hi[j]-s.lo[j])
	}
	dist := func(v []float64) float64 {
		var sum float64
		for j := range d {
			z := (v[j]-s.mean[j])/s.std[j] - ref[j]
			sum += z * z
		}
		return sum
	}
	dStar := dist(star)
	m, _ := draws.Dims()
	less, ties := 0, 0
	for i := range m {
		switch di := dist(draws.RawRowView(i)); {
		case di < dStar:
			less++
		case di == dStar:
			ties++
		}
	}
	return (float64(less) + rng.Float64()*float64(ties+1)) / float64(m+1)
}

// TARP runs the TARP coverage test (Lemos et al. 2023, "Sampling-based accuracy testing of
// posterior estimators for general inference"): for each pair it draws cfg.Samples posterior
// samples and a random reference point θᵣ, and computes f = P_q(‖θ − θᵣ‖ < ‖θ* − θᵣ‖). The
// expected coverage probability at level α is ECP(α) = fraction of pairs with f < α; it lies
// on the diagonal for the exact posterior. cfg.Levels is ignored: ECP is given at 101 levels.
// It holds cfg.Samples × Dim draws per worker, one pair at a time, and F, one value per pair
// (see RankConfig).
func TARP(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*TARPResult, error) {
	return TARPContext(runenv.Context(), est, theta, x, cfg)
}

// MustTARP is TARP for notebook cells: it returns the result alone and panics with TARP's error.
func MustTARP(est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) *TARPResult {
	return safe.Must(TARP(est, theta, x, cfg))
}

// TARPContext is TARP stopped by ctx instead of the host's context (runenv.Context).
func TARPContext(ctx context.Context, est sbi.Amortized, theta, x *mat.Dense, cfg RankConfig) (*TARPResult, error) {
	cfg = cfg.withDefaults()
	pass, err := runSamplePass(ctx, est, theta, x, cfg, passTARP, "TARP")
	if err != nil {
		return nil, err
	}
	r := tarpFromStatistics(pass.tarp)
	r.Dropped, r.Proposal = pass.dropped, pass.proposal
	return r, nil
}

func tarpFromStatistics(f []float64) *TARPResult {
	const steps = 100
	r := &TARPResult{Alpha: make([]float64, steps+1), ECP: make([]float64, steps+1), F: f}
	for k := range r.Alpha {
		a := float64(k) / steps
		r.Alpha[k] = a
		r.ECP[k] = fractionBelow(f, a)
		if a > 0.5 {
			r.ATC += r.ECP[k] - a
		}
	}
	r.KSPValue = KSUniformPValue(f)
	return r
}

func fractionBelow(v []float64, t float64) float64 {
	c := 0
	for _, x := range v {
		if x < t {
			c++
		}
	}
	return float64(c) / float64(len(v))
}

// String is a one-line summary.
func (r *TARPResult) String() string {
	s := fmt.Sprintf("TARP (%d pairs): ATC %+.3f, KS p-value %.3g", len(r.F), r.ATC, r.KSPValue)
	if r.Dropped > 0 {
		s += fmt.Sprintf(", %d pairs with NaN or infinite values left out", r.Dropped)
	}
	if r.Proposal != "" {
		s += "\nnote: " + proposalNote(r.Proposal, false)
	}
	return s
}

// MIMEBundle shows the summary as HTML and text.
func (r *TARPResult) MIMEBundle() map[string]any {
	var b strings.Builder
	fmt.Fprintf(&b, "<div><b>TARP</b> — %d pairs: ATC <b>%+.3f</b>, KS p-value %.3g%s</div>", len(r.F), r.ATC, r.KSPValue, proposalNoteHTML(r.Proposal))
	return map[string]any{"text/html": b.String(), "text/plain": r.String()}
}

package viz

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
)

// normalModel is θ ~ N(0, I), x = θ + N(0, I), whose posterior is N(x/2, I/2); width ≠ 1
// scales the posterior's standard deviation (0 means 1).
type normalModel struct{ width float64 }

type normalPost struct {
	mu []float64
	sd float64
}

func (m normalModel) Posterior(x []float64) sbi.Posterior {
	mu := make([]float64, len(x))
	for i, v := range x {
		mu[i] = v / 2
	}
	w := m.width
	if w == 0 {
		w = 1
	}
	return normalPost{mu, w * math.Sqrt(0.5)}
}

// normalPairs draws n pairs of dimension d from the joint of normalModel.
func normalPairs(seed uint64, n, d int) (theta, x *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	theta, x = mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			th := rng.NormFloat64()
			theta.Set(i, j, th)
			x.Set(i, j, th+rng.NormFloat64())
		}
	}
	return theta, x
}

func (m normalModel) LogProbPairs(theta, x *mat.Dense) []float64 {
	n, d := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		out[i] = m.Posterior(x.RawRowView(i)).LogProb(mat.NewDense(1, d, theta.RawRowView(i)))[0]
	}
	return out
}

func (p normalPost) Dim() int { return len(p.mu) }

func (p normalPost) Sample(rng *rand.Rand, n int) *mat.Dense {
	out := mat.NewDense(n, len(p.mu), nil)
	for i := range n {
		for j, mu := range p.mu {
			out.Set(i, j, mu+p.sd*rng.NormFloat64())
		}
	}
	return out
}

func (p normalPost) LogProb(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	for i := range n {
		for j, mu := range p.mu {
			z := (theta.At(i, j) - mu) / p.sd
			out[i] += -0.5*z*z - math.Log(p.sd*math.Sqrt(2*math.Pi))
		}
	}
	return out
}

func TestReport(t *testing.T) {
	theta, x := normalPairs(1, 300, 2)
	rep, err := diag.NewReport(normalModel{}, theta, x, diag.ReportConfig{Label: "exact", Samples: 99, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	figs := rep.Figures()
	if len(figs) != 3 {
		t.Fatalf("%d report figures, want 3 (coverage, TARP, SBC)", len(figs))
	}
	h := rep.MIMEBundle()["text/html"].(string)
	if c := strings.Count(h, "<img "); c != 3 {
		t.Errorf("report HTML has %d images, want 3", c)
	}
	checkPlot(t, "tarp", TARP(rep.TARP), "calibrated", "ATC "+fmtSigned(rep.TARP.ATC))
	checkPlot(t, "report", Report(rep), "simultaneous 95% band, all 19 levels (n = 300)", "pointwise 95% band, each level", "calibrated", "exact (AUC "+fmtSigned(rep.Coverage.AUC)+")",
		"ATC "+fmtSigned(rep.TARP.ATC), "99% band of uniform ranks", "expected count")
}

package viz

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// normalModel is θ ~ N(0, I), x = θ + N(0, I), whose posterior is N(x/2, I/2); width ≠ 1
// scales the posterior's standard deviation (0 means 1).
type normalModel struct{ width float64 }

func (m normalModel) Posterior(x []float64) sbi.Posterior {
	mu := make([]float64, len(x))
	for i, v := range x {
		mu[i] = v / 2
	}
	w := m.width
	if w == 0 {
		w = 1
	}
	sd := make([]float64, len(x))
	for i := range sd {
		sd[i] = w * math.Sqrt(0.5)
	}
	return dist.NewNormal(mu, sd)
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

// TestReport checks that the report's plots come through viz.Report, explicitly: the report
// itself shows its table and names viz.Report (linking viz changes nothing), while
// viz.Report(r) shows the table followed by the four figures, each a PNG that decodes.
func TestReport(t *testing.T) {
	theta, x := normalPairs(1, 300, 2)
	rep, err := diag.NewReport(normalModel{}, theta, x, diag.ReportConfig{Label: "exact", Samples: 99, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	plain := rep.MIMEBundle()["text/html"].(string)
	if c := strings.Count(plain, "<img "); c != 0 || !strings.Contains(plain, "viz.Report(report)") {
		t.Errorf("report shown without viz.Report: %d images, names viz.Report %v; want 0 and true",
			c, strings.Contains(plain, "viz.Report(report)"))
	}
	shown := Report(rep)
	h := shown.MIMEBundle()["text/html"].(string)
	if c := strings.Count(h, "<img "); c != 4 || !strings.Contains(h, "Calibration report") {
		t.Errorf("viz.Report HTML has %d images and table %v, want 4 and true", c, strings.Contains(h, "Calibration report"))
	}
	titles := []string{"expected coverage", "TARP", "SBC ranks", "SBC ECDF"}
	if len(shown.Figures) != len(titles) {
		t.Fatalf("%d report figures, want %d", len(shown.Figures), len(titles))
	}
	for i, f := range shown.Figures {
		if f.Title != titles[i] {
			t.Errorf("figure %d is %q, want %q", i, f.Title, titles[i])
		}
		if _, err := png.Decode(bytes.NewReader(f.PNG)); err != nil {
			t.Errorf("figure %q: PNG does not decode: %v", f.Title, err)
		}
	}
	checkPlot(t, "tarp", TARP(rep.TARP), "calibrated", "ATC "+fmtSigned(rep.TARP.ATC))
}

// A calibration report shown with its plots: as the last expression of a notebook cell,
// Report(rep) displays the report's table followed by its coverage, TARP and SBC figures (ranks and ECDF),
// where rep alone shows the table.
func ExampleReport() {
	theta, x := normalPairs(1, 300, 2) // test pairs from the joint of a model with a known posterior
	rep, err := diag.NewReport(normalModel{}, theta, x, diag.ReportConfig{Label: "exact", Samples: 99, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range Report(rep).Figures {
		fmt.Println(f.Title, len(f.PNG) > 0)
	}
	// Output:
	// expected coverage true
	// TARP true
	// SBC ranks true
	// SBC ECDF true
}

// TestReportAtObservation: a report with an observation shows the misspecification check and
// L-C2ST at it after the global figures.
func TestReportAtObservation(t *testing.T) {
	theta, x := normalPairs(2, 200, 1)
	rep, err := diag.NewReport(normalModel{width: 0.5}, theta, x, diag.ReportConfig{Samples: 99, Seed: 1, Observation: []float64{0.4},
		LC2ST: diag.LC2STConfig{Null: 19, Evals: 200, Hidden: []int{8}, MaxEpochs: 20, LearningRate: 0.03, BatchSize: 400}})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, f := range Report(rep).Figures {
		if f.PNG == nil {
			t.Errorf("figure %q not drawn", f.Title)
		}
		titles = append(titles, f.Title)
	}
	want := []string{"expected coverage", "TARP", "SBC ranks", "SBC ECDF", "misspecification at x_o", "L-C2ST at x_o"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Errorf("figures %q, want %q", titles, want)
	}
}

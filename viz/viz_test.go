package viz

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// checkPlot renders p as PNG and SVG and checks that both decode, have the requested size,
// are not blank, and that the legend has the wanted entries. With VIZ_OUT set it also writes
// the PNG there for review.
func checkPlot(t *testing.T, name string, p *Plot, legend ...string) {
	t.Helper()
	data, err := p.PNG()
	if err != nil {
		t.Fatalf("%s: PNG: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: PNG does not decode: %v", name, err)
	}
	wantW := int(math.Round(float64(p.Width) / 72 * float64(p.DPI)))
	wantH := int(math.Round(float64(p.Height) / 72 * float64(p.DPI)))
	if b := img.Bounds(); abs(b.Dx()-wantW) > 1 || abs(b.Dy()-wantH) > 1 {
		t.Errorf("%s: PNG is %d×%d, want %d×%d", name, b.Dx(), b.Dy(), wantW, wantH)
	}
	// Not blank: at least 1% of the pixels differ from white.
	b := img.Bounds()
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if r < 0xF000 || g < 0xF000 || bb < 0xF000 {
				inked++
			}
		}
	}
	if inked < b.Dx()*b.Dy()/100 {
		t.Errorf("%s: only %d of %d pixels are not white", name, inked, b.Dx()*b.Dy())
	}
	svg, err := p.SVG()
	if err != nil {
		t.Fatalf("%s: SVG: %v", name, err)
	}
	var doc struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal(svg, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Errorf("%s: SVG does not parse as an <svg> document: %v", name, err)
	}
	got := p.Legend()
	if len(got) != len(legend) {
		t.Errorf("%s: legend %q, want %q", name, got, legend)
	} else {
		for i := range legend {
			if got[i] != legend[i] {
				t.Errorf("%s: legend entry %d is %q, want %q", name, i, got[i], legend[i])
			}
		}
	}
	mb := p.MIMEBundle()
	if _, ok := mb["image/png"].([]byte); !ok {
		t.Errorf("%s: MIMEBundle has no image/png bytes", name)
	}
	if _, ok := mb["image/svg+xml"].(string); !ok {
		t.Errorf("%s: MIMEBundle has no image/svg+xml", name)
	}
	if dir := os.Getenv("VIZ_OUT"); dir != "" {
		if err := p.Save(filepath.Join(dir, name+".png")); err != nil {
			t.Error(err)
		}
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// ranks draws n HPD ranks u^power with u uniform: power 1 is calibrated, > 1 over-confident
// (ranks pushed to 0), < 1 conservative.
func ranks(seed uint64, n int, power float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := make([]float64, n)
	for i := range r {
		r[i] = math.Pow(rng.Float64(), power)
	}
	return r
}

func TestCoveragePlot(t *testing.T) {
	theta, x := normalPairs(2, 1000, 2)
	var res []*diag.CoverageResult
	for _, c := range []struct {
		label string
		width float64
	}{{"exact posterior", 1}, {"too narrow (sd × 0.7)", 0.7}, {"too wide (sd × 1.5)", 1.5}} {
		r, err := diag.RankCoverage(normalModel{width: c.width}, theta, x, diag.RankConfig{Samples: 200, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		r.Label = c.label
		res = append(res, r)
	}
	p := Coverage(res...)
	checkPlot(t, "coverage", p, "simultaneous 95% band, all 19 levels (n = 1000)", "pointwise 95% band, each level", "calibrated",
		"exact posterior (AUC "+sign(res[0].AUC)+")", "too narrow (sd × 0.7) (AUC "+sign(res[1].AUC)+")",
		"too wide (sd × 1.5) (AUC "+sign(res[2].AUC)+")", flaggedName)
}

// TestCoveragePlotOverConfident checks, on the data the figure is drawn from, that the plot of
// a too-narrow posterior agrees with its verdict: the light band is the simultaneous band the
// verdict uses, the dark one the pointwise band, and the ringed points are exactly the levels
// below the simultaneous band that the verdict counts as over-confident.
func TestCoveragePlotOverConfident(t *testing.T) {
	theta, x := normalPairs(4, 300, 2)
	r, err := diag.RankCoverage(normalModel{width: 0.7}, theta, x, diag.RankConfig{Samples: 200, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	below, above := r.Flagged()
	v := r.Verdict()
	t.Logf("verdict: %s; flagged below %v, above %v", v, below, above)
	if !strings.HasPrefix(v, fmt.Sprintf("over-confident: %d of 19 levels below the simultaneous 95%% band", len(below))) || len(below) == 0 || len(above) != 0 {
		t.Fatalf("verdict %q with %d levels below and %d above the simultaneous band, want over-confident", v, len(below), len(above))
	}
	lay := coverageLayers([]*diag.CoverageResult{r})
	if want := bandPolygon(r.Levels, r.SimLower, r.SimUpper); !slices.Equal(lay.sim, want) {
		t.Errorf("light band %v, want the simultaneous band %v", lay.sim, want)
	}
	if want := bandPolygon(r.Levels, r.Lower, r.Upper); !slices.Equal(lay.point, want) {
		t.Errorf("dark band %v, want the pointwise band %v", lay.point, want)
	}
	// Every ringed point lies below the drawn light band at its level, and every level whose
	// point lies outside the drawn light band is ringed.
	k := len(r.Levels)
	ringed := map[float64]bool{}
	for _, p := range lay.flagged[0] {
		ringed[p.X] = true
	}
	for j, l := range r.Levels {
		upper, lower := lay.sim[j].Y, lay.sim[2*k-1-j].Y
		out := r.Coverage[j] < lower || r.Coverage[j] > upper
		if out != ringed[l] {
			t.Errorf("level %.2f: coverage %.4f, drawn band [%.4f, %.4f], ringed %v", l, r.Coverage[j], lower, upper, ringed[l])
		}
		if ringed[l] && r.Coverage[j] > upper {
			t.Errorf("level %.2f ringed above the band of an over-confident posterior", l)
		}
	}
	if len(lay.flagged[0]) != len(below) {
		t.Errorf("%d points ringed, the verdict counts %d", len(lay.flagged[0]), len(below))
	}
	checkPlot(t, "coverage-overconfident", Coverage(r), "simultaneous 95% band, all 19 levels (n = 300)",
		"pointwise 95% band, each level", "calibrated", "rank estimate (AUC "+sign(r.AUC)+")", flaggedName)
}

func sign(v float64) string { return fmtSigned(v) }

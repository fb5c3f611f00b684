package diag

import (
	"strings"
	"testing"
)

// TestParameterNamesAgree checks that every display of a result names parameter d as the
// figures (θ₁, θ₂, …), the SBC ECDF verdict and the MCMC warnings do, θ(d+1): the SBC table,
// the marginal-coverage table and the report's summary named the first parameter θ[0], so
// that next to the ECDF verdict "θ1 (…) outside the band" a reader took θ[1] for the one
// flagged.
func TestParameterNamesAgree(t *testing.T) {
	r := uniformRanks(3, 500, 99, 2, 0)
	bad := uniformRanks(4, 500, 99, 1, 0.5)
	r.Ranks[1] = bad.Ranks[0]
	ecdf, err := SBCECDF(r, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := ecdf.Verdict(); !strings.Contains(v, "θ2 (") {
		t.Fatalf("ECDF verdict %q does not name θ2", v)
	}
	r.ChiSq, r.PValues, r.KSPValues, r.Bins = []float64{1, 2}, []float64{0.5, 0.001}, []float64{0.5, 0.001}, 4
	m := &MarginalResult{N: 10, Levels: []float64{0.5, 0.9}, Coverage: [][]float64{{0.5, 0.9}, {0.4, 0.8}},
		Lower: []float64{0.2, 0.6}, Upper: []float64{0.8, 1}}
	rep := &Report{Marginal: m}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"SBC text", r.String(), []string{"θ1: χ²", "θ2: χ²"}},
		{"SBC HTML", r.MIMEBundle()["text/html"].(string), []string{"<th>θ1</th>", "<th>θ2</th>"}},
		{"marginal text", m.String(), []string{"\nθ1 ", "\nθ2 "}},
		{"marginal HTML", m.MIMEBundle()["text/html"].(string), []string{"<th>θ1</th>", "<th>θ2</th>"}},
		{"report summary", rep.marginalSummary(), []string{"θ1 0.900", "θ2 0.800"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s: %q lacks %q", c.name, c.text, w)
			}
		}
		if strings.Contains(c.text, "θ[") || strings.Contains(c.text, "θ0") {
			t.Errorf("%s: %q names a parameter from 0", c.name, c.text)
		}
	}
}

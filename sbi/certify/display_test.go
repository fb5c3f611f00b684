package certify

import (
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The display shows the sentence, and its plot is drawn from the numbers of the final test:
// one dot per level whose title quotes the same coverage, count and interval as the table.
func TestDisplayShowsTheNumbersOfTheVerdict(t *testing.T) {
	cert := certifySynthetic(t, 0.8, 1000, 5)
	b := cert.MIMEBundle()
	h, text := b["text/html"].(string), b["text/plain"].(string)
	if !strings.Contains(h, html.EscapeString(cert.Sentence())) || !strings.Contains(text, cert.Sentence()) {
		t.Errorf("the display does not show the sentence %q", cert.Sentence())
	}
	svg := regexp.MustCompile(`(?s)<svg.*</svg>`).FindString(h)
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the plot is not well-formed SVG: %v", err)
		}
	}
	for _, c := range cert.Final.Checks {
		want := fmt.Sprintf("final, level %.3g: %.3f (%d/%d), interval [%.3f, %.3f], %s", c.Level, c.Coverage, c.Count, c.N, c.Lower, c.Upper, c.Status)
		if !strings.Contains(svg, html.EscapeString(want)) && !strings.Contains(svg, want) {
			t.Errorf("the plot has no point %q", want)
		}
		row := fmt.Sprintf("<td>%.3f</td><td>%d/%d</td><td>[%.3f, %.3f]</td>", c.Coverage, c.Count, c.N, c.Lower, c.Upper)
		if !strings.Contains(h, row) {
			t.Errorf("the table has no row %q", row)
		}
	}
	if cert.Verdict() != NotCertified || !strings.Contains(text, "outside") {
		t.Errorf("s = 0.8 on 1000 pairs should be refused at level 0.5 (coverage ≈ 0.40): %s", cert.Sentence())
	}
}

// The observations table shows the local test at each observation with its statistic,
// p-value and level (the same numbers as the result), the claim, and what the test means.
func TestDisplayShowsTheLocalTest(t *testing.T) {
	cert := localCert(t, locallyWrong{}, mat.NewDense(2, 1, []float64{2, -1}), 300, 100)
	b := cert.MIMEBundle()
	h, text := b["text/html"].(string), b["text/plain"].(string)
	for i, o := range cert.Observations {
		if o.Local == nil {
			t.Fatalf("observation %d has no local test: %s", i, o.Reason)
		}
		cell := fmt.Sprintf("%s %.3g, p = %.3g at level %.3g", o.Local.Statistic, o.Local.Value, o.Local.PValue, o.Local.Alpha)
		if !strings.Contains(h, html.EscapeString(cell)) || !strings.Contains(text, cell) {
			t.Errorf("observation %d: the display does not show %q", i, cell)
		}
		if !strings.Contains(h, "<td>"+string(o.Claim)+"</td>") {
			t.Errorf("observation %d: the table does not show the claim %q", i, o.Claim)
		}
	}
	if !strings.Contains(h, html.EscapeString(localNote)) || !strings.Contains(h, "local test (L-C2ST)") {
		t.Error("the display does not explain the local test")
	}
	if o := cert.Observations[0]; !o.Local.Reject() || !strings.Contains(h, html.EscapeString("local test rejects")) {
		t.Errorf("observation x = 2 of the locally wrong posterior: %s: %s", o.Verdict, o.Reason)
	}
}

package certify

import (
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"
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

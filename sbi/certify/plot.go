package certify

import (
	"fmt"
	"html"
	"strings"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/diag"
)

// coverageSVG draws the evidence of the verdict from the same numbers the sentence quotes: at
// each target level L the tolerance [L − ε, L + ε] (grey bar), the final test's coverage with
// its (1 − 2α) Clopper–Pearson interval (dot and whisker, green within, red outside, amber
// undecided), and the first estimator's coverage on its check set (hollow circle), over the
// diagonal of exact calibration.
func coverageSVG(t Target, before *diag.CoverageResult, final *Decision) string {
	const w, h, pad = 340.0, 300.0, 40.0
	px := func(v float64) float64 { return pad + v*(w-pad-10) }
	py := func(v float64) float64 { return h - pad - v*(h-pad-10) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="11">`, w, h)
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#444"/>`, px(0), py(1), px(1)-px(0), py(0)-py(1))
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%g</text>`, px(v), py(0)+14, v)
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="end">%g</text>`, px(0)-4, py(v)+4, v)
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">credibility level</text>`, px(0.5), h-6)
	fmt.Fprintf(&b, `<text transform="translate(11,%g) rotate(-90)" text-anchor="middle">expected coverage</text>`, py(0.5))
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999" stroke-dasharray="4 3"/>`, px(0), py(0), px(1), py(1))
	for _, c := range final.Checks {
		lo, hi := t.band(c.Level)
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#ccc" stroke-width="9"><title>target at %.3g: [%.3f, %.3f]</title></line>`,
			px(c.Level), py(lo), px(c.Level), py(hi), c.Level, lo, hi)
	}
	if before != nil {
		for _, c := range final.Checks {
			if k := levelIndex(before.Levels, c.Level); k >= 0 {
				fmt.Fprintf(&b, `<circle cx="%g" cy="%g" r="4" fill="none" stroke="#555"><title>before, level %.3g: %.3f on %d check pairs</title></circle>`,
					px(c.Level), py(before.Coverage[k]), c.Level, before.Coverage[k], before.N)
			}
		}
	}
	color := map[LevelStatus]string{LevelPass: "#1a7f37", LevelFail: "#cf222e", LevelUndecided: "#bf8700"}
	for _, c := range final.Checks {
		col := color[c.Status]
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/>`, px(c.Level), py(c.Lower), px(c.Level), py(c.Upper), col)
		fmt.Fprintf(&b, `<circle cx="%g" cy="%g" r="3" fill="%s"><title>final, level %.3g: %.3f (%d/%d), interval [%.3f, %.3f], %s</title></circle>`,
			px(c.Level), py(c.Coverage), col, c.Level, c.Coverage, c.Count, c.N, c.Lower, c.Upper, html.EscapeString(string(c.Status)))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g">● final test (%s interval)</text>`, px(0.02), py(0.95), text.Percent(1-2*t.Alpha))
	if before != nil {
		fmt.Fprintf(&b, `<text x="%g" y="%g">○ first estimator, check set</text>`, px(0.02), py(0.95)+14)
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" fill="#888">▮ target ±%.3g</text>`, px(0.02), py(0.95)+28, t.Tolerance)
	b.WriteString(`</svg>`)
	return b.String()
}

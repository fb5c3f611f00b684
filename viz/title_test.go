package viz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// TestTitleFitsTheFigure: a figure title wider than the figure (the verdict MCMC puts over a
// run of 20 chains, or a long Title set by hand) was drawn on one line centred on the figure,
// so that both of its ends were cut off; it is wrapped at spaces so that every line lies
// inside the figure, and no word is lost. A title that fits stays on one line.
func TestTitleFitsTheFigure(t *testing.T) {
	// healths whose verdicts are of several lengths: chains of an AR(1) process with a
	// correlation that sets the ESS, over a few chain counts
	var mcmc []*Plot
	for _, rho := range []float64{0, 0.5, 0.9} {
		for _, n := range []int{4, 8, 20} {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			chains := make([][][]float64, n)
			for c := range chains {
				a, b := 0.0, 0.0
				for range 50 {
					a = rho*a + rng.NormFloat64()
					b = rho*b + rng.NormFloat64()
					chains[c] = append(chains[c], []float64{a, b})
				}
			}
			h, err := sbi.NewMCMCHealth("slice", chains)
			if err != nil {
				t.Fatal(err)
			}
			mcmc = append(mcmc, MCMC(h))
		}
	}
	long := Coverage()
	long.Title = strings.Repeat("a title far wider than its figure ", 6)
	short := Coverage()
	short.Title = "coverage"
	type titleCase struct {
		name  string
		p     *Plot
		lines int // lines the title must take; 0: more than one; -1: any number
	}
	cases := []titleCase{
		{"long Title", long, 0},
		{"short Title", short, 1},
	}
	for i, p := range mcmc {
		cases = append(cases, titleCase{fmt.Sprintf("MCMC verdict %d", i), p, -1})
		// the font has no combining circumflex: R̂ would be drawn as "Rˆ"
		if strings.ContainsRune(p.Title, '\u0302') {
			t.Errorf("MCMC title %q holds a combining circumflex, which the font does not draw", p.Title)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			title := c.p.Title
			var rec recorder.Canvas
			c.p.Draw(draw.NewCanvas(&rec, c.p.Width, c.p.Height))
			st := textStyle(12)
			var words []string
			var lines int
			for _, a := range rec.Actions {
				fs, ok := a.(*recorder.FillString)
				if !ok || fs.Size != 12 || !strings.Contains(title, fs.String) {
					continue
				}
				lines++
				words = append(words, strings.Fields(fs.String)...)
				if w := st.Width(fs.String); fs.Point.X < 0 || fs.Point.X+w > c.p.Width+vg.Length(1e-9) {
					t.Errorf("title line %q spans x %.1f to %.1f pt, outside the figure's 0 to %.1f", fs.String, fs.Point.X, fs.Point.X+w, c.p.Width)
				}
			}
			if got, want := strings.Join(words, " "), strings.Join(strings.Fields(title), " "); got != want {
				t.Errorf("title drawn as %q, want %q", got, want)
			}
			if c.lines > 0 && lines != c.lines || c.lines == 0 && lines < 2 || lines == 0 {
				t.Errorf("title drawn on %d lines, want %v", lines, map[bool]string{true: "1", false: "more than 1"}[c.lines == 1])
			}
		})
	}
}

// TestTitleSpacingIsPerLine: the space above a title was measured on the whole title, so that
// a title of two lines (one holding "\n", or wrapped) was anchored lower under the top edge
// than a title of one line; the space is one line's worth, whatever the title's lines.
func TestTitleSpacingIsPerLine(t *testing.T) {
	st := textStyle(12)
	st.XAlign = draw.XCenter
	st.YAlign = draw.YTop
	// firstLine returns the height of the first line's baseline under the top of a canvas of
	// height h: drawn by Plot.Draw as the title, or with FillText anchored at the top edge.
	firstLine := func(title string, asTitle bool) vg.Length {
		p := Coverage()
		p.Title = title
		var rec recorder.Canvas
		c := draw.NewCanvas(&rec, p.Width, p.Height)
		if asTitle {
			p.Draw(c)
		} else {
			c.FillText(st, vg.Point{X: p.Width / 2, Y: p.Height}, title)
		}
		for _, a := range rec.Actions {
			if fs, ok := a.(*recorder.FillString); ok && fs.Size == 12 && strings.HasPrefix(fs.String, "first") {
				return p.Height - fs.Point.Y
			}
		}
		t.Fatalf("title %q not drawn", title)
		return 0
	}
	// how far under the top edge Plot.Draw anchors the title
	anchor := func(title string) vg.Length { return firstLine(title, true) - firstLine(title, false) }
	one, two := anchor("first"), anchor("first\nsecond")
	if math.Abs(float64(one-two)) > 1e-9 {
		t.Errorf("a two-line title is anchored %.2f pt under the top edge, a one-line title %.2f pt", two, one)
	}
}

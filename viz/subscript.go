package viz

import (
	"math"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// subscriptText is the text handler of all viz text: plain text, except that a run of the
// subscript digits ₀–₉, which viz writes in parameter and data names (θ₁₀, x₃), is drawn as
// normal digits at subScale of the font size, lowered by subDrop of it. The subscript glyphs
// of Liberation Sans have small ink but advance by the full width of a normal digit, so that
// drawn as they are "x₁₀" reads "x₁ ₀"; scaled normal digits sit as close as normal digits do.
// Text without subscript digits is measured and drawn as text.Plain does.
type subscriptText struct {
	text.Plain
}

// vizText is the text handler of viz's text styles.
var vizText text.Handler = subscriptText{text.Plain{Fonts: font.DefaultCache}}

const (
	subScale = 0.7  // size of subscript digits, relative to the font size
	subDrop  = 0.15 // how far subscript digits lie under the baseline, relative to the font size
)

// textRun is a piece of a line drawn in one size: sub marks subscript digits, held as the
// normal digits drawn in their place.
type textRun struct {
	s   string
	sub bool
}

// isSubDigit reports whether r is one of the subscript digits ₀–₉.
func isSubDigit(r rune) bool { return '₀' <= r && r <= '₉' }

// textRuns splits line into runs of subscript digits, turned into normal digits, and runs of
// other text.
func textRuns(line string) []textRun {
	var (
		runs []textRun
		b    strings.Builder
		sub  bool
	)
	for _, r := range line {
		isSub := isSubDigit(r)
		if isSub != sub && b.Len() > 0 {
			runs = append(runs, textRun{b.String(), sub})
			b.Reset()
		}
		sub = isSub
		if isSub {
			r = '0' + r - '₀'
		}
		b.WriteRune(r)
	}
	if b.Len() > 0 {
		runs = append(runs, textRun{b.String(), sub})
	}
	return runs
}

// face is the font face of a run in fnt: fnt itself, or fnt scaled for subscript digits.
func (h subscriptText) face(fnt font.Font, sub bool) font.Face {
	if sub {
		fnt.Size *= subScale
	}
	return h.Fonts.Lookup(fnt, fnt.Size)
}

// width is the advance of a line: the sum of its runs' advances.
func (h subscriptText) width(line string, fnt font.Font) vg.Length {
	var w vg.Length
	for _, r := range textRuns(line) {
		f := h.face(fnt, r.sub)
		w += f.Width(r.s)
	}
	return w
}

// Box returns the width of a line of text as drawn, and the ascent and descent of fnt:
// subscript digits lie within the descent.
func (h subscriptText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	if !strings.ContainsFunc(txt, isSubDigit) {
		return h.Plain.Box(txt, fnt)
	}
	_, height, depth = h.Plain.Box("", fnt)
	return h.width(txt, fnt), height, depth
}

// Draw draws txt with sty at pt, as text.Plain places its lines, each line a run after run.
func (h subscriptText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	if !strings.ContainsFunc(txt, isSubDigit) {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		defer c.Pop()
		c.Rotate(sty.Rotation)
	}
	// pt in the rotated frame, in which the lines run along x
	sin, cos := math.Sincos(sty.Rotation)
	pt.X, pt.Y = pt.Y*vg.Length(sin)+pt.X*vg.Length(cos), pt.Y*vg.Length(cos)-pt.X*vg.Length(sin)
	ascent := h.Extents(sty.Font).Ascent
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - ascent
	lines := h.Lines(txt)
	for i, line := range lines {
		x := pt.X + vg.Length(sty.XAlign)*h.width(line, sty.Font)
		y := pt.Y + vg.Length(len(lines)-i)*sty.Font.Size
		for _, r := range textRuns(line) {
			face, dy := h.face(sty.Font, r.sub), vg.Length(0)
			if r.sub {
				dy = subDrop * sty.Font.Size
			}
			c.FillString(face, vg.Point{X: x, Y: y - dy}, r.s)
			x += face.Width(r.s)
		}
	}
}

package nbtest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font/liberation"
)

// SVG figures drawn by gonum/plot (package viz) place every label at the width gonum/plot
// measured with the Liberation fonts, and name only their family ("Liberation Sans"). A browser
// without that font draws the text in another one, wider or narrower, and legends run off
// the figure. So a page that shows such figures carries the fonts they name: the TrueType data
// of gonum/plot's own collection, inline as @font-face rules.

// svgFontRE matches the text style gonum/plot's SVG canvas writes: family, variant, weight and
// style.
var svgFontRE = regexp.MustCompile(`font-family:([^;"'<>]+);font-variant:[^;"'<>]*;font-weight:([a-z0-9]+);font-style:([a-z]+)`)

type faceKey struct{ family, weight, style string }

// fontFaces returns the @font-face rules, with the font data inline, for the used faces of
// gonum/plot's Liberation collection ("" for none).
func fontFaces(used map[faceKey]bool) string {
	if len(used) == 0 {
		return ""
	}
	var b strings.Builder
	var names sfnt.Buffer
	for _, f := range liberation.Collection() {
		family, err := f.Face.Name(&names, sfnt.NameIDFamily)
		if err != nil {
			continue
		}
		key := faceKey{family, weightName(f.Font.Weight), styleName(f.Font.Style)}
		if !used[key] {
			continue
		}
		var raw bytes.Buffer
		if _, err := f.Face.WriteSourceTo(nil, &raw); err != nil {
			continue
		}
		fmt.Fprintf(&b, "@font-face{font-family:%q;font-weight:%s;font-style:%s;src:url(data:font/ttf;base64,%s) format(\"truetype\")}\n",
			key.family, key.weight, key.style, base64.StdEncoding.EncodeToString(raw.Bytes()))
	}
	return b.String()
}

// weightName and styleName are the CSS names gonum/plot's SVG canvas gives a face's weight
// and style.
func weightName(w xfont.Weight) string {
	switch w {
	case xfont.WeightNormal:
		return "normal"
	case xfont.WeightBold:
		return "bold"
	}
	return fmt.Sprint(400 + 100*int(w))
}

func styleName(s xfont.Style) string {
	switch s {
	case xfont.StyleItalic:
		return "italic"
	case xfont.StyleOblique:
		return "oblique"
	}
	return "normal"
}

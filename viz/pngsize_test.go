package viz

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/gosbi/gosbi/sbi/diag"
)

// noPanic calls f and turns a panic into a test error.
func noPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", name, r)
		}
	}()
	f()
}

// TestPNGSizeLimit: a figure whose PNG would exceed MaxPNGPixels, or whose size is not a
// positive finite length, is refused with an error that says so, before the image is
// allocated; the SVG of the same figure still renders.
func TestPNGSizeLimit(t *testing.T) {
	r, err := diag.CoverageFromRanks(ranks(1, 100, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		w, h vg.Length
		dpi  int
		want string
	}{
		// 8000 × 8000 pixels: 64 million, above the limit (and cheap to allocate if it were not).
		{"too many pixels", 8 * vg.Inch, 8 * vg.Inch, 1000, "more than the 50000000 pixels"},
		{"NaN width", vg.Length(math.NaN()), 5 * vg.Centimeter, 0, "width NaN"},
		{"negative height", 5 * vg.Centimeter, -5 * vg.Centimeter, 0, "height -"},
		{"zero width", 0, 5 * vg.Centimeter, 0, "width 0"},
	} {
		p := Coverage(r)
		p.Width, p.Height, p.DPI = c.w, c.h, c.dpi
		noPanic(t, c.name, func() {
			data, err := p.PNG()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: PNG of %d bytes, error %v; want an error containing %q", c.name, len(data), err, c.want)
			}
			if mb := p.MIMEBundle(); mb["image/png"] != nil || !strings.Contains(fmt.Sprint(mb["text/plain"]), c.want) {
				t.Errorf("%s: MIMEBundle text %q, want the error", c.name, mb["text/plain"])
			}
		})
	}
	// A large figure within the limit renders.
	p := Coverage(r)
	p.Width, p.Height, p.DPI = 2*vg.Inch, 2*vg.Inch, 1000
	if _, err := p.PNG(); err != nil {
		t.Errorf("2000 × 2000 pixels: %v", err)
	}
}

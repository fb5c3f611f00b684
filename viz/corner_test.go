package viz

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"
)

// correlated draws n samples of a d-dimensional Gaussian with mean mu and correlation rho
// between neighbouring coordinates (x_d = rho·x_{d−1} + √(1−rho²)·z_d), scaled by sd.
func correlated(seed uint64, n int, mu []float64, sd, rho float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := len(mu)
	m := mat.NewDense(n, d, nil)
	for i := range n {
		prev := 0.0
		for j := range d {
			z := rng.NormFloat64()
			if j > 0 {
				z = rho*prev + sqrt1m(rho)*z
			}
			prev = z
			m.Set(i, j, mu[j]+sd*z)
		}
	}
	return m
}

func sqrt1m(r float64) float64 {
	v := 1 - r*r
	x := v
	for range 30 {
		x = 0.5 * (x + v/x)
	}
	return x
}

func TestCorner(t *testing.T) {
	a := correlated(1, 10000, []float64{0, 1, -1}, 1, 0.7)
	p := CornerWith(CornerConfig{Truth: []float64{0.3, 1.2, -0.5}}, a)
	checkPlot(t, "corner", p, "true parameters")

	b := correlated(2, 10000, []float64{0.5, 1, -1.5}, 0.6, -0.3)
	p = CornerWith(CornerConfig{Labels: []string{"set A", "set B"}, Names: []string{"μ", "log σ", "ρ"}, Truth: []float64{0.3, 1.2, -0.5}}, a, b)
	checkPlot(t, "corner_overlay", p, "set A", "set B", "true parameters")

	one := correlated(3, 2000, []float64{2}, 1, 0)
	checkPlot(t, "corner_1d", CornerWith(CornerConfig{Truth: []float64{2.5}}, one), "true parameters")
	other := correlated(4, 2000, []float64{1.5}, 0.8, 0)
	p = CornerWith(CornerConfig{Labels: []string{"NPE", "reference"}}, one, other)
	checkPlot(t, "corner_1d_overlay", p, "NPE", "reference")
	// the legend lies in a strip right of the panel: some of its pixels have the second colour
	if n := colourPixels(t, p, Color(1), int(p.Height/72*vg.Length(p.DPI))); n == 0 {
		t.Errorf("corner_1d_overlay: no legend line in the colour of the second set right of the panel")
	}

	// Non-finite draws are left out of the ranges and histograms instead of breaking the plot,
	// and the legend says so.
	bad := mat.DenseCopyOf(a)
	bad.Set(0, 0, math.NaN())
	bad.Set(1, 1, math.Inf(1))
	checkPlot(t, "corner_nonfinite", Corner(bad), "2 draws with NaN or ±Inf left out")
}

func TestCornerBadInput(t *testing.T) {
	a := correlated(1, 100, []float64{0, 1}, 1, 0.5)
	b := correlated(1, 100, []float64{0, 1, 2}, 1, 0.5)
	for name, f := range map[string]func(){
		"no samples":       func() { Corner() },
		"mismatched sets":  func() { Corner(a, b) },
		"wrong truth size": func() { CornerWith(CornerConfig{Truth: []float64{1}}, a) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkCorner10k renders a 3-parameter corner plot of 10,000 samples to PNG.
func BenchmarkCorner10k(b *testing.B) {
	s := correlated(1, 10000, []float64{0, 1, -1}, 1, 0.7)
	for b.Loop() {
		if _, err := CornerWith(CornerConfig{Truth: []float64{0, 1, -1}}, s).PNG(); err != nil {
			b.Fatal(err)
		}
	}
}

// colourPixels counts the pixels of p's PNG at x ≥ minX whose colour is within 8/255 of c
// in each channel.
func colourPixels(t *testing.T, p *Plot, c color.Color, minX int) int {
	t.Helper()
	data, err := p.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b uint32) bool { return max(a, b)-min(a, b) <= 8*0x101 }
	cr, cg, cb, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := max(b.Min.X, minX); x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if near(r, cr) && near(g, cg) && near(bb, cb) {
				n++
			}
		}
	}
	return n
}

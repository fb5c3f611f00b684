package viz

import (
	"image/color"
	"math"
	"sort"
)

// gridZ is a regular grid of values z[row*nx+col] at cell centres, implementing
// plotter.GridXYZ.
type gridZ struct {
	nx, ny         int
	x0, dx, y0, dy float64 // centre of the first cell and cell sizes
	z              []float64
}

func newGridZ(nx, ny int, xlo, xhi, ylo, yhi float64) *gridZ {
	dx, dy := (xhi-xlo)/float64(nx), (yhi-ylo)/float64(ny)
	return &gridZ{nx: nx, ny: ny, x0: xlo + dx/2, dx: dx, y0: ylo + dy/2, dy: dy, z: make([]float64, nx*ny)}
}

func (g *gridZ) Dims() (c, r int)   { return g.nx, g.ny }
func (g *gridZ) Z(c, r int) float64 { return g.z[r*g.nx+c] }
func (g *gridZ) X(c int) float64    { return g.x0 + float64(c)*g.dx }
func (g *gridZ) Y(r int) float64    { return g.y0 + float64(r)*g.dy }

// histogram2D bins the points (xs[i], ys[i]) into g; points outside are dropped.
func (g *gridZ) histogram2D(xs, ys []float64) {
	xlo, ylo := g.x0-g.dx/2, g.y0-g.dy/2
	for i := range xs {
		c := int(math.Floor((xs[i] - xlo) / g.dx))
		r := int(math.Floor((ys[i] - ylo) / g.dy))
		if c >= 0 && c < g.nx && r >= 0 && r < g.ny {
			g.z[r*g.nx+c]++
		}
	}
}

// smooth convolves the grid with a Gaussian of standard deviation sigma cells, separably in
// x then y, truncated at 3σ; mass leaving the grid is lost, as with a kernel density estimate
// restricted to the plotted box.
func (g *gridZ) smooth(sigma float64) {
	if sigma <= 0 {
		return
	}
	half := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*half+1)
	for i := range k {
		d := float64(i - half)
		k[i] = math.Exp(-0.5 * d * d / (sigma * sigma))
	}
	tmp := make([]float64, len(g.z))
	for r := range g.ny {
		for c := range g.nx {
			var s float64
			for i, w := range k {
				if cc := c + i - half; cc >= 0 && cc < g.nx {
					s += w * g.z[r*g.nx+cc]
				}
			}
			tmp[r*g.nx+c] = s
		}
	}
	for r := range g.ny {
		for c := range g.nx {
			var s float64
			for i, w := range k {
				if rr := r + i - half; rr >= 0 && rr < g.ny {
					s += w * tmp[rr*g.nx+c]
				}
			}
			g.z[r*g.nx+c] = s
		}
	}
}

// hpdThresholds returns, for each mass m in masses, the value t such that the cells with
// z ≥ t hold a fraction m of the total: the density level of the HPD region of mass m.
func hpdThresholds(z []float64, masses []float64) []float64 {
	s := append([]float64(nil), z...)
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	var total float64
	for _, v := range s {
		total += v
	}
	out := make([]float64, len(masses))
	for k, m := range masses {
		var cum float64
		out[k] = s[len(s)-1]
		for _, v := range s {
			cum += v
			if cum >= m*total {
				out[k] = v
				break
			}
		}
	}
	return out
}

// rampPalette runs from near-white to c in n steps.
type rampPalette struct {
	c color.Color
	n int
}

func (p rampPalette) Colors() []color.Color {
	r, g, b, _ := color.NRGBAModel.Convert(p.c).RGBA()
	out := make([]color.Color, p.n)
	for i := range out {
		t := float64(i) / float64(p.n-1)
		mix := func(v uint32) uint8 { return uint8((1-t)*255 + t*float64(v>>8) + 0.5) }
		out[i] = color.NRGBA{mix(r), mix(g), mix(b), 0xFF}
	}
	return out
}

func sortFloats(v []float64) { sort.Float64s(v) }

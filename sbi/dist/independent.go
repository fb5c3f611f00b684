package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Independent is the product of independent parts, each with its own dimension: a point is
// the concatenation of one point of each part, and its log density is the sum of the parts'.
type Independent struct {
	parts  []Distribution
	offset []int // first column of each part
	dim    int
}

// NewIndependent returns the product of parts, in order.
func NewIndependent(parts ...Distribution) *Independent {
	if len(parts) == 0 {
		panic("dist: NewIndependent: no parts, expected at least one distribution")
	}
	d := &Independent{parts: append([]Distribution(nil), parts...)}
	for _, p := range parts {
		d.offset = append(d.offset, d.dim)
		d.dim += p.Dim()
	}
	return d
}

// Parts returns the parts of the product.
func (d *Independent) Parts() []Distribution { return append([]Distribution(nil), d.parts...) }

// Dim is the sum of the parts' dimensions.
func (d *Independent) Dim() int { return d.dim }

// Sample draws each part in turn and concatenates the columns.
func (d *Independent) Sample(rng *rand.Rand, n int) *mat.Dense {
	checkN("Independent", n, d.dim)
	x := newDense(n, d.dim)
	if n == 0 {
		return x
	}
	for k, p := range d.parts {
		s := p.Sample(rng, n)
		x.Slice(0, n, d.offset[k], d.offset[k]+p.Dim()).(*mat.Dense).Copy(s)
	}
	return x
}

// LogProb is the sum of the parts' log densities.
func (d *Independent) LogProb(x *mat.Dense) []float64 {
	n := checkCols("Independent", d.dim, x)
	lp := make([]float64, n)
	if n == 0 {
		return lp
	}
	for k, p := range d.parts {
		part := p.LogProb(x.Slice(0, n, d.offset[k], d.offset[k]+p.Dim()).(*mat.Dense))
		for i, v := range part {
			lp[i] += v
		}
	}
	for i := range lp {
		if math.IsNaN(lp[i]) { // +Inf + −Inf from two parts
			lp[i] = math.Inf(-1)
		}
	}
	return lp
}

// InSupport reports whether each part's slice of x lies in that part's support.
func (d *Independent) InSupport(x []float64) bool {
	if len(x) != d.dim {
		return false
	}
	for k, p := range d.parts {
		if !p.InSupport(x[d.offset[k] : d.offset[k]+p.Dim()]) {
			return false
		}
	}
	return true
}

// Support concatenates the parts' supports.
func (d *Independent) Support() (low, high []float64) {
	for _, p := range d.parts {
		l, h := p.Support()
		low, high = append(low, l...), append(high, h...)
	}
	return low, high
}

func (d *Independent) meanCov() ([]float64, *mat.SymDense, bool) {
	mean := make([]float64, 0, d.dim)
	cov := mat.NewSymDense(d.dim, nil)
	for k, p := range d.parts {
		m, c, ok := MeanCov(p)
		if !ok {
			return nil, nil, false
		}
		mean = append(mean, m...)
		o := d.offset[k]
		for i := 0; i < p.Dim(); i++ {
			for j := i; j < p.Dim(); j++ {
				cov.SetSym(o+i, o+j, c.At(i, j))
			}
		}
	}
	return mean, cov, true
}

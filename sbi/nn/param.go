package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// Param is a trainable tensor: Data holds the values and Grad accumulates the gradient of
// every Backward until the optimizer's ZeroGrad. Name identifies it in saved files.
type Param struct {
	Name string
	*Tensor
}

// NewParam returns a zeroed rows×cols parameter with a gradient buffer.
func NewParam(name string, rows, cols int) *Param {
	return &Param{Name: name, Tensor: NewVariable(rows, cols, nil)}
}

// Module is anything with trainable parameters.
type Module interface {
	Params() []*Param
}

// InitUniform fills p with independent draws from U(−bound, bound).
func InitUniform(p *Param, rng *rand.Rand, bound float64) {
	for i := range p.Data {
		p.Data[i] = bound * (2*rng.Float64() - 1)
	}
}

// InitLinear initializes a linear layer's weights (fanIn×fanOut) and bias like PyTorch's
// nn.Linear: both uniform on ±1/√fanIn (Kaiming-uniform with a = √5).
func InitLinear(w, b *Param, rng *rand.Rand) {
	fanIn := w.Rows
	bound := 1 / math.Sqrt(float64(max(fanIn, 1)))
	InitUniform(w, rng, bound)
	if b != nil {
		InitUniform(b, rng, bound)
	}
}

// NumParams returns the total number of scalar parameters.
func NumParams(ps []*Param) int {
	n := 0
	for _, p := range ps {
		n += p.Len()
	}
	return n
}

// ZeroGrads sets every parameter gradient to zero.
func ZeroGrads(ps []*Param) {
	for _, p := range ps {
		clear(p.Grad)
	}
}

// GradsFinite reports whether every parameter gradient is finite.
func GradsFinite(ps []*Param) bool {
	for _, p := range ps {
		// Σg² (gonum's vectorized dot product) is finite when every g is; only when it is not
		// (a NaN or ±Inf, or a square that overflows) are the elements looked at one by one.
		if s := floats.Dot(p.Grad, p.Grad); !math.IsNaN(s) && !math.IsInf(s, 0) {
			continue
		}
		for _, g := range p.Grad {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				return false
			}
		}
	}
	return true
}

// GradNorm returns the Euclidean norm of all parameter gradients together: NaN if a
// gradient is NaN, +Inf if one is infinite or the norm exceeds the largest float64. Gradients
// whose squares overflow or underflow get their norm all the same.
func GradNorm(ps []*Param) float64 {
	norm, _, _ := gradNorm(ps)
	return norm
}

// gradNorm returns the norm of the gradients of ps, with, when it took the scaled pass, the
// largest |g| and the norm of g/big (so that the norm is big·rel even where that overflows;
// big = 0 otherwise). Σg² (gonum's vectorized dot product) gives the norm unless it
// overflowed or may have underflowed (below 2⁻⁹⁰⁰, where squares of 2⁻⁵¹¹ lose digits); then
// the gradients are divided by the largest |g| before squaring.
func gradNorm(ps []*Param) (norm, big, rel float64) {
	s := 0.0
	for _, p := range ps {
		s += floats.Dot(p.Grad, p.Grad)
	}
	if math.IsNaN(s) || (s >= 0x1p-900 && !math.IsInf(s, 1)) {
		return math.Sqrt(s), 0, 0
	}
	for _, p := range ps {
		for _, g := range p.Grad {
			big = max(big, math.Abs(g))
		}
	}
	if big == 0 || math.IsInf(big, 1) {
		return big, 0, 0
	}
	r := 0.0
	for _, p := range ps {
		for _, g := range p.Grad {
			r += (g / big) * (g / big)
		}
	}
	rel = math.Sqrt(r)
	return big * rel, big, rel
}

// ClipGradNorm rescales all gradients together so that their joint Euclidean norm is at most
// maxNorm (like torch.nn.utils.clip_grad_norm_: by maxNorm/(norm + 1e-6)) and returns the
// norm before clipping (see GradNorm). maxNorm must be > 0 (it panics otherwise; +Inf clips
// nothing). Gradients whose norm overflows float64 are scaled all the same; an infinite
// gradient makes the gradients NaN, so that the optimizers skip the step.
func ClipGradNorm(ps []*Param, maxNorm float64) float64 {
	if maxNorm <= 0 || math.IsNaN(maxNorm) {
		panic(fmt.Sprintf("nn: ClipGradNorm max norm %v, want > 0", maxNorm))
	}
	norm, big, rel := gradNorm(ps)
	if norm > maxNorm {
		c := maxNorm / (norm + 1e-6)
		if math.IsInf(norm, 1) && big != 0 { // finite gradients, norm beyond float64
			c = maxNorm / big / rel
		}
		for _, p := range ps {
			floats.Scale(c, p.Grad)
		}
	}
	return norm
}

// CopyParams copies the values of src into dst; they must have equal shapes, in order.
func CopyParams(dst, src []*Param) error {
	if len(dst) != len(src) {
		return fmt.Errorf("nn: copy parameters: %d destinations, %d sources", len(dst), len(src))
	}
	for i := range dst {
		if dst[i].Rows != src[i].Rows || dst[i].Cols != src[i].Cols {
			return fmt.Errorf("nn: copy parameters: %q is %d×%d, source %q is %d×%d",
				dst[i].Name, dst[i].Rows, dst[i].Cols, src[i].Name, src[i].Rows, src[i].Cols)
		}
		copy(dst[i].Data, src[i].Data)
	}
	return nil
}

package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
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
		for _, g := range p.Grad {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				return false
			}
		}
	}
	return true
}

// GradNorm returns the Euclidean norm of all parameter gradients together.
func GradNorm(ps []*Param) float64 {
	s := 0.0
	for _, p := range ps {
		for _, g := range p.Grad {
			s += g * g
		}
	}
	return math.Sqrt(s)
}

// ClipGradNorm rescales all gradients together so that their joint Euclidean norm is at most
// maxNorm (like torch.nn.utils.clip_grad_norm_) and returns the norm before clipping.
func ClipGradNorm(ps []*Param, maxNorm float64) float64 {
	if maxNorm <= 0 || math.IsNaN(maxNorm) {
		panic(fmt.Sprintf("nn: ClipGradNorm max norm %v, want > 0", maxNorm))
	}
	norm := GradNorm(ps)
	if norm > maxNorm {
		c := maxNorm / (norm + 1e-6)
		for _, p := range ps {
			for i := range p.Grad {
				p.Grad[i] *= c
			}
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

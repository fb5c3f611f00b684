package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ---- layers of embedding networks ----
//
// Each layer owns its weights and applies one of the tape's operations with them. The
// initializations are PyTorch's, so that a network built here starts from the distribution a
// PyTorch user expects: convolutions like nn.Conv1d/nn.Conv2d (weights and bias uniform on
// ±1/√fan_in, fan_in = kernel taps × input channels: Kaiming-uniform with a = √5), layer
// normalization like nn.LayerNorm (gain 1, bias 0, eps 10⁻⁵), the GRU like nn.GRU (every
// weight and bias uniform on ±1/√hidden).

// Conv1D is a 1-D convolution layer over channels-last series (see Tape.Conv1D): Config is the
// input's shape and the window, Out the output channels, W the Kernel·Channels × Out weights
// and B the 1×Out bias.
type Conv1D struct {
	Config Conv1DConfig
	Out    int
	W, B   *Param
}

// NewConv1D returns a Conv1D layer initialized like PyTorch's nn.Conv1d from rng; name
// prefixes the parameter names (name+".w", name+".b"). It panics when the geometry is
// invalid (the window does not fit) or out < 1.
func NewConv1D(rng *rand.Rand, name string, cfg Conv1DConfig, out int) *Conv1D {
	g := cfg.geom("NewConv1D", false)
	if out < 1 {
		panic(fmt.Sprintf("nn: NewConv1D: %d output channels, want ≥ 1", out))
	}
	l := &Conv1D{Config: cfg, Out: out, W: NewParam(name+".w", g.taps(), out), B: NewParam(name+".b", 1, out)}
	InitLinear(l.W, l.B, rng) // fan_in = taps: PyTorch's bound for a convolution
	return l
}

// OutLength is the number of output positions (Config.OutLength).
func (l *Conv1D) OutLength() int { return l.Config.OutLength() }

// Forward returns the convolution of x (n × Length·Channels) with the layer's weights:
// n × OutLength·Out, channels-last.
func (l *Conv1D) Forward(tp *Tape, x *Tensor) *Tensor {
	return tp.Conv1D(x, l.W.Tensor, l.B.Tensor, l.Config)
}

// Params returns W and B.
func (l *Conv1D) Params() []*Param { return []*Param{l.W, l.B} }

// Conv2D is a 2-D convolution layer over channels-last images (see Tape.Conv2D), shaped like
// Conv1D.
type Conv2D struct {
	Config Conv2DConfig
	Out    int
	W, B   *Param
}

// NewConv2D returns a Conv2D layer initialized like PyTorch's nn.Conv2d from rng.
func NewConv2D(rng *rand.Rand, name string, cfg Conv2DConfig, out int) *Conv2D {
	g := cfg.geom("NewConv2D", false)
	if out < 1 {
		panic(fmt.Sprintf("nn: NewConv2D: %d output channels, want ≥ 1", out))
	}
	l := &Conv2D{Config: cfg, Out: out, W: NewParam(name+".w", g.taps(), out), B: NewParam(name+".b", 1, out)}
	InitLinear(l.W, l.B, rng)
	return l
}

// OutSize is the output height and width (Config.OutSize).
func (l *Conv2D) OutSize() (height, width int) { return l.Config.OutSize() }

// Forward returns the convolution of x (n × Height·Width·Channels): n ×
// OutHeight·OutWidth·Out, channels-last.
func (l *Conv2D) Forward(tp *Tape, x *Tensor) *Tensor {
	return tp.Conv2D(x, l.W.Tensor, l.B.Tensor, l.Config)
}

// Params returns W and B.
func (l *Conv2D) Params() []*Param { return []*Param{l.W, l.B} }

// LayerNormEps is the eps of NewLayerNorm, PyTorch's default.
const LayerNormEps = 1e-5

// LayerNorm is a layer normalization over groups of Size consecutive values of a row (see
// Tape.LayerNorm), with a learned Gain and Bias (1×Size each).
type LayerNorm struct {
	Size       int
	Eps        float64
	Gain, Bias *Param
}

// NewLayerNorm returns a LayerNorm over groups of size values, with gain 1, bias 0 and eps
// LayerNormEps, as PyTorch's nn.LayerNorm starts.
func NewLayerNorm(name string, size int) *LayerNorm {
	if size < 1 {
		panic(fmt.Sprintf("nn: NewLayerNorm: size %d, want ≥ 1", size))
	}
	l := &LayerNorm{Size: size, Eps: LayerNormEps, Gain: NewParam(name+".gain", 1, size), Bias: NewParam(name+".bias", 1, size)}
	for i := range l.Gain.Data {
		l.Gain.Data[i] = 1
	}
	return l
}

// Forward normalizes every group of Size values of each row of x.
func (l *LayerNorm) Forward(tp *Tape, x *Tensor) *Tensor {
	return tp.LayerNorm(x, l.Gain.Tensor, l.Bias.Tensor, l.Size, l.Eps)
}

// Params returns Gain and Bias.
func (l *LayerNorm) Params() []*Param { return []*Param{l.Gain, l.Bias} }

// GRU is a gated recurrent unit layer over channels-last series of In channels with Hidden
// units (see Tape.GRU): Wi (In × 3·Hidden) and Wh (Hidden × 3·Hidden) hold the reset, update
// and candidate weights side by side, Bi and Bh their biases (1 × 3·Hidden). PyTorch's nn.GRU
// stores the transposes, gates in the same order.
type GRU struct {
	In, Hidden int
	Wi, Wh     *Param
	Bi, Bh     *Param
}

// NewGRU returns a GRU layer initialized like PyTorch's nn.GRU from rng.
func NewGRU(rng *rand.Rand, name string, in, hidden int) *GRU {
	if in < 1 || hidden < 1 {
		panic(fmt.Sprintf("nn: NewGRU: %d inputs and %d hidden units, want ≥ 1 each", in, hidden))
	}
	l := &GRU{In: in, Hidden: hidden,
		Wi: NewParam(name+".wi", in, 3*hidden), Wh: NewParam(name+".wh", hidden, 3*hidden),
		Bi: NewParam(name+".bi", 1, 3*hidden), Bh: NewParam(name+".bh", 1, 3*hidden)}
	bound := 1 / math.Sqrt(float64(hidden))
	for _, p := range l.Params() {
		InitUniform(p, rng, bound)
	}
	return l
}

// Forward returns the states after every position of the series x (n × length·In):
// n × length·Hidden, channels-last.
func (l *GRU) Forward(tp *Tape, x *Tensor, length int) *Tensor {
	return tp.GRU(x, l.Wi.Tensor, l.Wh.Tensor, l.Bi.Tensor, l.Bh.Tensor, length)
}

// Last returns the final state of each series of x (n × Hidden), the summary a recurrent
// embedding passes on.
func (l *GRU) Last(tp *Tape, x *Tensor, length int) *Tensor {
	h := l.Forward(tp, x, length)
	return tp.Columns(h, h.Cols-l.Hidden, h.Cols)
}

// Params returns Wi, Wh, Bi and Bh.
func (l *GRU) Params() []*Param { return []*Param{l.Wi, l.Wh, l.Bi, l.Bh} }

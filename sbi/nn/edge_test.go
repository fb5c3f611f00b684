package nn

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLayerNormConstantRow checks a group of equal values (variance 0): the output is the
// bias and the gradient PyTorch's formula with σ² = 0, dx = (ĝ − mean ĝ)/√eps, finite.
func TestLayerNormConstantRow(t *testing.T) {
	const eps = LayerNormEps
	tp := NewTape()
	x := tp.Variable(2, 4, []float64{3, 3, 3, 3, -1e300, -1e300, -1e300, -1e300})
	gain := tp.Variable(1, 4, []float64{1, 2, -1, 0.5})
	bias := tp.Variable(1, 4, []float64{0.1, 0.2, 0.3, 0.4})
	y := tp.LayerNorm(x, gain, bias, 4, eps)
	dy := []float64{1, -2, 0.5, 4, 1, -2, 0.5, 4}
	tp.BackwardWith(y, dy)
	for k := 0; k < 2; k++ {
		mean := 0.0
		for j := 0; j < 4; j++ {
			mean += dy[4*k+j] * gain.Data[j] / 4
		}
		for j := 0; j < 4; j++ {
			if y.Data[4*k+j] != bias.Data[j] {
				t.Errorf("row %d: output %d is %v, want the bias %v", k, j, y.Data[4*k+j], bias.Data[j])
			}
			want := (dy[4*k+j]*gain.Data[j] - mean) / math.Sqrt(eps)
			if g := x.Grad[4*k+j]; !(math.Abs(g-want) <= 1e-12*math.Abs(want)) {
				t.Errorf("row %d: gradient %d is %v, want %v", k, j, g, want)
			}
		}
	}
}

// TestSoftmaxLargeLogits checks that softmax and attention subtract the maximum: logits of
// ±1e308 and 1e3 give exact weights, not NaN, and a set of one element attends to itself.
func TestSoftmaxLargeLogits(t *testing.T) {
	tp := NewTape()
	x := tp.Variable(3, 3, []float64{1e308, -1e308, 1e308, 1e3, 0, -1e3, 1e3, 1e3, 1e3 - math.Ln2})
	y := tp.Softmax(x)
	tp.Backward(tp.Sum(tp.Mul(y, y)))
	want := []float64{0.5, 0, 0.5, 1, 0, 0, 0.4, 0.4, 0.2}
	for i, w := range want {
		if math.Abs(y.Data[i]-w) > 1e-12 || math.IsNaN(x.Grad[i]) { // 1e3 − ln 2 rounds by 1e-13
			t.Errorf("softmax element %d is %v (gradient %v), want %v", i, y.Data[i], x.Grad[i], w)
		}
	}
	// scores q·k/√2 of ±1e3·√2: the weights are one-hot
	s := 1e3
	q := tp.Variable(2, 2, []float64{s, s, -s, -s})
	v := tp.Variable(2, 1, []float64{7, -3})
	o := tp.Attention(q, q, v, AttentionConfig{Length: 2})
	tp.Backward(tp.Sum(o))
	if o.Data[0] != 7 || o.Data[1] != -3 || math.IsNaN(q.Grad[0]) || math.IsNaN(v.Grad[0]) {
		t.Errorf("attention with large scores: %v, gradients %v %v; want [7 -3]", o.Data, q.Grad, v.Grad)
	}
	big := []float64{1e150, 1e150} // score 2e300/√2
	one := NewTape().Attention(NewTensor(1, 2, big), NewTensor(1, 2, big), NewTensor(1, 1, []float64{5}), AttentionConfig{Length: 1})
	if one.Data[0] != 5 {
		t.Errorf("attention over a set of one element with score 1.4e300: %v, want 5", one.Data[0])
	}
}

// TestGRULongSequence checks that backpropagation through 1000 steps gives finite gradients,
// and that the first input still gets one.
func TestGRULongSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	const L, in, hid = 1000, 2, 3
	tp := NewTape()
	x := tp.Variable(2, L*in, randConst(rng, 2, L*in, -3, 3).Data)
	wi, wh := tp.Variable(in, 3*hid, randConst(rng, in, 3*hid, -1, 1).Data), tp.Variable(hid, 3*hid, randConst(rng, hid, 3*hid, -1, 1).Data)
	bi, bh := tp.Variable(1, 3*hid, randConst(rng, 1, 3*hid, -1, 1).Data), tp.Variable(1, 3*hid, randConst(rng, 1, 3*hid, -1, 1).Data)
	tp.Backward(tp.Sum(tp.GRU(x, wi, wh, bi, bh, L)))
	for _, p := range []*Tensor{x, wi, wh, bi, bh} {
		if !NewTensor(1, len(p.Grad), p.Grad).AllFinite() {
			t.Fatalf("gradient of a %d×%d input is not finite", p.Rows, p.Cols)
		}
	}
	if x.Grad[0] == 0 {
		t.Error("the first input of a 1000-step series gets no gradient")
	}
}

// TestMaxPoolNaNAndTies checks the documented choices of every max pooling: NaN wins (the
// first NaN), and of equal maxima the first position gets the gradient.
func TestMaxPoolNaNAndTies(t *testing.T) {
	nan := math.NaN()
	// one channel, six positions: windows {1, NaN, NaN} {5, 5, 2} by three
	data := []float64{1, nan, nan, 5, 5, 2}
	cases := []struct {
		name string
		f    func(tp *Tape, x *Tensor) *Tensor
		want string // the gradient of Σ k·y_k
	}{
		{"MaxPool1D/3", func(tp *Tape, x *Tensor) *Tensor {
			return tp.MaxPool1D(x, Conv1DConfig{Channels: 1, Length: 6, Kernel: 3})
		}, "[0 1 0 2 0 0]"},
		{"MaxPool1D/pairs", func(tp *Tape, x *Tensor) *Tensor { // the vector kernel: {1, NaN} {NaN, 5} {5, 2}
			return tp.MaxPool1D(x, Conv1DConfig{Channels: 1, Length: 6, Kernel: 2})
		}, "[0 1 2 0 3 0]"},
		{"MaxPool1D/pairs tied", func(tp *Tape, x *Tensor) *Tensor { // {NaN, NaN} {5, 5}
			return tp.MaxPool1D(tp.Columns(x, 1, 5), Conv1DConfig{Channels: 1, Length: 4, Kernel: 2})
		}, "[0 1 0 2 0 0]"},
		{"MaxPool1D/padded", func(tp *Tape, x *Tensor) *Tensor {
			return tp.MaxPool1D(x, Conv1DConfig{Channels: 1, Length: 6, Kernel: 3, Padding: 1})
		}, "[0 1 2 0 0 0]"}, // {pad, 1, NaN} {NaN, 5, 5}
		{"MaxPool2D", func(tp *Tape, x *Tensor) *Tensor {
			return tp.MaxPool2D(x, Conv2DConfig{Channels: 1, Height: 2, Width: 3, Kernel: [2]int{2, 3}})
		}, "[0 1 0 0 0 0]"},
		{"GlobalMaxPool", func(tp *Tape, x *Tensor) *Tensor { return tp.GlobalMaxPool(x, 1) }, "[0 1 0 0 0 0]"},
		{"SegmentMax", func(tp *Tape, x *Tensor) *Tensor {
			return tp.SegmentMax(tp.Reshape(x, 6, 1), []int{0, 3, 6})
		}, "[0 1 0 2 0 0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tp := NewTape()
			x := tp.Variable(1, 6, data)
			y := c.f(tp, x)
			w := make([]float64, y.Len())
			for k := range w {
				w[k] = float64(k + 1)
			}
			tp.BackwardWith(y, w)
			if !math.IsNaN(y.Data[0]) {
				t.Errorf("the window holding NaN gives %v, want NaN", y.Data[0])
			}
			if got := fmt.Sprint(x.Grad); got != c.want {
				t.Errorf("gradient %s, want %s", got, c.want)
			}
		})
	}
}

// TestSegmentEmpty checks that an empty set sums to 0 and that its mean and maximum are
// refused with a message saying why.
func TestSegmentEmpty(t *testing.T) {
	x := NewTensor(3, 1, []float64{1, 2, 3})
	if got := NewTape().SegmentSum(x, []int{0, 0, 3}).Data; got[0] != 0 || got[1] != 6 {
		t.Errorf("SegmentSum with an empty set: %v, want [0 6]", got)
	}
	for _, op := range []func(*Tape, *Tensor, []int) *Tensor{(*Tape).SegmentMean, (*Tape).SegmentMax} {
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, "every segment needs an element") {
					t.Errorf("empty set: panic %q, want one saying every segment needs an element", msg)
				}
			}()
			op(NewTape(), x, []int{0, 0, 3})
		}()
	}
}

// TestParamsReadNeverPanics reads every truncation of a parameter file, and every one-byte
// change with its checksum made to match (a structure the checksum does not catch): each
// gives an error or a complete read, never a panic, and a failed read changes nothing.
func TestParamsReadNeverPanics(t *testing.T) {
	ps := NewMLP(rand.New(rand.NewPCG(36, 37)), []int{2, 3, 1}, Tanh).Params()
	good := MarshalParams(ps)
	try := func(name string, data []byte) error {
		before := MarshalParams(ps)
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: panic %v", name, r)
			}
		}()
		err := UnmarshalParams(data, ps)
		if err != nil && !bytes.Equal(before, MarshalParams(ps)) {
			t.Fatalf("%s: a failed read changed the parameters", name)
		}
		return err
	}
	for n := range good {
		if try(fmt.Sprintf("first %d bytes", n), good[:n]) == nil {
			t.Fatalf("first %d of %d bytes read without error", n, len(good))
		}
	}
	for i := 0; i < len(good)-4; i++ {
		for _, v := range []byte{0, 1, 0x7f, 0xff} {
			b := bytes.Clone(good)
			b[i] = v
			binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
			try(fmt.Sprintf("byte %d set to %#x", i, v), b)
		}
	}
}

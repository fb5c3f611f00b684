package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi/internal/kernels"
)

type gradCase struct {
	name   string
	inputs []*Tensor
	f      func(tp *Tape, in []*Tensor) *Tensor
}

// TestConvGradients checks the convolutions and poolings against finite differences on small
// random shapes, with the edge cases of strides, padding, dilation, causal padding, 1×1
// kernels (no im2col), windows that leave positions unused and missing biases.
func TestConvGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	r := func(rows, cols int) *Tensor { return randVar(rng, rows, cols, -2, 2) }
	conv1 := []Conv1DConfig{
		{Channels: 2, Length: 7, Kernel: 3},
		{Channels: 3, Length: 8, Kernel: 3, Stride: 2, Padding: 1},
		{Channels: 2, Length: 9, Kernel: 2, Dilation: 3, Padding: 2},
		{Channels: 2, Length: 6, Kernel: 3, Causal: true},
		{Channels: 1, Length: 10, Kernel: 3, Stride: 3, Dilation: 2, Causal: true},
		{Channels: 3, Length: 5, Kernel: 1},
		{Channels: 2, Length: 5, Kernel: 5, Padding: 4, Stride: 4},
	}
	var cases []gradCase
	for _, c := range conv1 {
		c := c
		cout := 3
		cases = append(cases,
			gradCase{fmt.Sprintf("Conv1D/%+v", c), []*Tensor{r(3, c.Length*c.Channels), r(c.Kernel*c.Channels, cout), r(1, cout)},
				func(tp *Tape, in []*Tensor) *Tensor { return tp.Conv1D(in[0], in[1], in[2], c) }},
			gradCase{fmt.Sprintf("Conv1DNoBias/%+v", c), []*Tensor{r(2, c.Length*c.Channels), r(c.Kernel*c.Channels, cout)},
				func(tp *Tape, in []*Tensor) *Tensor { return tp.Conv1D(in[0], in[1], nil, c) }},
		)
	}
	conv2 := []Conv2DConfig{
		{Channels: 2, Height: 4, Width: 5, Kernel: [2]int{3, 2}},
		{Channels: 1, Height: 6, Width: 5, Kernel: [2]int{3, 3}, Stride: [2]int{2, 1}, Padding: [2]int{1, 2}},
		{Channels: 2, Height: 6, Width: 6, Kernel: [2]int{2, 3}, Dilation: [2]int{2, 1}, Padding: [2]int{1, 0}},
		{Channels: 3, Height: 3, Width: 2, Kernel: [2]int{1, 1}},
		{Channels: 2, Height: 5, Width: 5, Kernel: [2]int{1, 1}, Stride: [2]int{2, 2}},
		{Channels: 2, Height: 5, Width: 4, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}},
		{Channels: 8, Height: 4, Width: 4, Kernel: [2]int{3, 2}, Padding: [2]int{1, 1}},
		{Channels: 16, Height: 3, Width: 4, Kernel: [2]int{2, 3}, Padding: [2]int{1, 0}},
		{Channels: 16, Height: 4, Width: 3, Kernel: [2]int{3, 1}, Padding: [2]int{1, 0}},
		{Channels: 1, Height: 1, Width: 6, Kernel: [2]int{1, 3}, Padding: [2]int{0, 2}},
	}
	for _, c := range conv2 {
		c := c
		cases = append(cases, gradCase{fmt.Sprintf("Conv2D/%+v", c),
			[]*Tensor{r(2, c.Height*c.Width*c.Channels), r(c.Kernel[0]*c.Kernel[1]*c.Channels, 2), r(1, 2)},
			func(tp *Tape, in []*Tensor) *Tensor { return tp.Conv2D(in[0], in[1], in[2], c) }})
	}
	pool1 := []Conv1DConfig{
		{Channels: 2, Length: 8, Kernel: 2},
		{Channels: 3, Length: 7, Kernel: 3, Stride: 2, Padding: 1},
		{Channels: 1, Length: 5, Kernel: 2, Stride: 1},
	}
	for _, c := range pool1 {
		c := c
		cases = append(cases,
			gradCase{fmt.Sprintf("MaxPool1D/%+v", c), []*Tensor{r(3, c.Length*c.Channels)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.MaxPool1D(in[0], c) }},
			gradCase{fmt.Sprintf("MeanPool1D/%+v", c), []*Tensor{r(3, c.Length*c.Channels)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.MeanPool1D(in[0], c) }},
		)
	}
	pool2 := []Conv2DConfig{
		{Channels: 2, Height: 4, Width: 6, Kernel: [2]int{2, 2}},
		{Channels: 1, Height: 5, Width: 5, Kernel: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}},
	}
	for _, c := range pool2 {
		c := c
		cases = append(cases,
			gradCase{fmt.Sprintf("MaxPool2D/%+v", c), []*Tensor{r(2, c.Height*c.Width*c.Channels)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.MaxPool2D(in[0], c) }},
			gradCase{fmt.Sprintf("MeanPool2D/%+v", c), []*Tensor{r(2, c.Height*c.Width*c.Channels)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.MeanPool2D(in[0], c) }},
		)
	}
	cases = append(cases,
		gradCase{"GlobalMaxPool", []*Tensor{r(3, 5*4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.GlobalMaxPool(in[0], 4) }},
		gradCase{"GlobalMeanPool", []*Tensor{r(3, 5*4)}, func(tp *Tape, in []*Tensor) *Tensor { return tp.GlobalMeanPool(in[0], 4) }},
		gradCase{"CNN", []*Tensor{r(2, 12*2), r(3*2, 4), r(1, 4), r(3*4, 3), r(1, 3)}, func(tp *Tape, in []*Tensor) *Tensor {
			h := tp.Tanh(tp.Conv1D(in[0], in[1], in[2], Conv1DConfig{Channels: 2, Length: 12, Kernel: 3, Padding: 1}))
			h = tp.MaxPool1D(h, Conv1DConfig{Channels: 4, Length: 12, Kernel: 2})
			h = tp.Conv1D(h, in[3], in[4], Conv1DConfig{Channels: 4, Length: 6, Kernel: 3, Causal: true})
			return tp.GlobalMeanPool(tp.Tanh(h), 3)
		}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c.name, c.inputs, c.f) })
	}
}

// TestConvOutSize checks the output sizes against PyTorch's formula on hand-worked cases, and
// that impossible shapes are refused.
func TestConvOutSize(t *testing.T) {
	for _, c := range []struct {
		cfg  Conv1DConfig
		want int
	}{
		{Conv1DConfig{Channels: 1, Length: 100, Kernel: 5, Padding: 2}, 100},
		{Conv1DConfig{Channels: 1, Length: 100, Kernel: 5}, 96},
		{Conv1DConfig{Channels: 1, Length: 100, Kernel: 5, Stride: 2}, 48},
		{Conv1DConfig{Channels: 1, Length: 100, Kernel: 3, Dilation: 4}, 92},
		{Conv1DConfig{Channels: 1, Length: 100, Kernel: 3, Dilation: 4, Causal: true}, 100},
		{Conv1DConfig{Channels: 1, Length: 7, Kernel: 3, Stride: 3, Padding: 1}, 3},
	} {
		if got := c.cfg.OutLength(); got != c.want {
			t.Errorf("%+v: OutLength %d, want %d", c.cfg, got, c.want)
		}
	}
	if h, w := (Conv2DConfig{Channels: 3, Height: 28, Width: 20, Kernel: [2]int{5, 3}, Stride: [2]int{2, 1}, Padding: [2]int{2, 0}}).OutSize(); h != 14 || w != 18 {
		t.Errorf("Conv2D OutSize %d×%d, want 14×18", h, w)
	}
	if got := (Conv1DConfig{Channels: 2, Length: 100, Kernel: 2}).PoolOutLength(); got != 50 {
		t.Errorf("PoolOutLength with the default stride: %d, want 50", got)
	}
	if h, w := (Conv2DConfig{Channels: 1, Height: 28, Width: 27, Kernel: [2]int{2, 3}}).PoolOutSize(); h != 14 || w != 9 {
		t.Errorf("PoolOutSize %d×%d, want 14×9", h, w)
	}
	for _, bad := range []func(){
		func() { Conv1DConfig{Channels: 1, Length: 3, Kernel: 5}.OutLength() },
		func() { Conv1DConfig{Channels: 1, Length: 8, Kernel: 3, Causal: true, Padding: 1}.OutLength() },
		func() { Conv1DConfig{Channels: 0, Length: 8, Kernel: 3}.OutLength() },
		func() { Conv1DConfig{Channels: 1, Length: 8, Kernel: 3, Stride: -1}.OutLength() },
		func() {
			NewTape().MaxPool1D(NewTensor(1, 8, nil), Conv1DConfig{Channels: 1, Length: 8, Kernel: 2, Padding: 2})
		},
		func() {
			NewTape().Conv1D(NewTensor(1, 8, nil), NewTensor(4, 1, nil), nil, Conv1DConfig{Channels: 1, Length: 8, Kernel: 3})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("an impossible shape was not refused")
				}
			}()
			bad()
		}()
	}
}

// exactProducts reports whether the convolution of geometry g multiplies on the package's own
// kernel, whose sums are the fused multiply-add chains of kernels.TileGo (so that a direct
// loop written the same way gives the same bits): always in place, and through im2col where
// OpenBLAS is not linked.
func exactProducts(g *convGeom) bool {
	return g.inPlace() || fastKernelBuild && kernels.AVX2 && !openblasLinked
}

// TestConvMatchesReference checks the convolution (in place or through im2col) against the
// direct loop, bit for bit where the products run on the package's kernel (else to 1e-13
// relative), on batches large enough for the product and the copies to be split over
// workers.
func TestConvMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		name string
		g    convGeom
		run  func(tp *Tape, x, w, b *Tensor) *Tensor
	}{
		{"1D", Conv1DConfig{Channels: 3, Length: 50, Kernel: 5, Padding: 2}.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor {
			return tp.Conv1D(x, w, b, Conv1DConfig{Channels: 3, Length: 50, Kernel: 5, Padding: 2})
		}},
		{"1D/causal dilated strided", Conv1DConfig{Channels: 2, Length: 60, Kernel: 4, Stride: 2, Dilation: 3, Causal: true}.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor {
			return tp.Conv1D(x, w, b, Conv1DConfig{Channels: 2, Length: 60, Kernel: 4, Stride: 2, Dilation: 3, Causal: true})
		}},
		{"2D", Conv2DConfig{Channels: 3, Height: 12, Width: 10, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}, Stride: [2]int{1, 2}}.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor {
			return tp.Conv2D(x, w, b, Conv2DConfig{Channels: 3, Height: 12, Width: 10, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}, Stride: [2]int{1, 2}})
		}},
		{"2D/unit strides", Conv2DConfig{Channels: 8, Height: 9, Width: 7, Kernel: [2]int{3, 2}, Padding: [2]int{1, 2}}.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor {
			return tp.Conv2D(x, w, b, Conv2DConfig{Channels: 8, Height: 9, Width: 7, Kernel: [2]int{3, 2}, Padding: [2]int{1, 2}})
		}},
		{"1D/causal", Conv1DConfig{Channels: 2, Length: 40, Kernel: 4, Causal: true}.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor {
			return tp.Conv1D(x, w, b, Conv1DConfig{Channels: 2, Length: 40, Kernel: 4, Causal: true})
		}},
		{"2D/1×1", Conv2DConfig{Channels: 4, Height: 6, Width: 6, Kernel: [2]int{1, 1}}.geom("", false), func(tp *Tape, x, w, b *Tensor) *Tensor {
			return tp.Conv2D(x, w, b, Conv2DConfig{Channels: 4, Height: 6, Width: 6, Kernel: [2]int{1, 1}})
		}},
	} {
		const n, cout = 150, 13
		x, w, b := randConst(rng, n, c.g.in(), -1, 1), randConst(rng, c.g.taps(), cout, -1, 1), randConst(rng, 1, cout, -1, 1)
		for _, bias := range []*Tensor{b, nil} {
			tp := NewTape()
			got := c.run(tp, x, w, bias).Data
			var bd []float64
			if bias != nil {
				bd = bias.Data
			}
			want := convRef(&c.g, x.Data, n, w.Data, cout, bd)
			for i := range want {
				if exactProducts(&c.g) && math.Float64bits(got[i]) != math.Float64bits(want[i]) || !(math.Abs(got[i]-want[i]) <= 1e-13*max(1, math.Abs(want[i]))) {
					t.Fatalf("%s (bias %v): output %d is %v, the direct loop gives %v", c.name, bias != nil, i, got[i], want[i])
				}
			}
		}
	}
}

// TestOpsThreadsDeterministic checks that the results and gradients of the convolution, the
// poolings and attention do not change a bit with the number of goroutines the kernels may use.
func TestOpsThreadsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	cfg := Conv1DConfig{Channels: 4, Length: 64, Kernel: 5, Padding: 2, Stride: 1}
	x0 := randVar(rng, 300, 64*4, -1, 1)
	w0, b0 := randVar(rng, 5*4, 16, -1, 1), randVar(rng, 1, 16, -1, 1)
	wq := randVar(rng, 16, 16, -1, 1)
	run := func(threads int) [][]float64 {
		runenv.SetThreads(threads)
		defer runenv.SetThreads(0)
		tp := NewTape()
		x := tp.Variable(x0.Rows, x0.Cols, x0.Data)
		w, b := tp.Variable(w0.Rows, w0.Cols, w0.Data), tp.Variable(b0.Rows, b0.Cols, b0.Data)
		q := tp.Variable(wq.Rows, wq.Cols, wq.Data)
		h := tp.Conv1D(x, w, b, cfg)     // 300 × 64·16
		tok := tp.Reshape(h, 300*64, 16) // one row per position
		a := tp.Attention(tp.MatMul(tok, q), tok, tok, AttentionConfig{Length: 64, Heads: 2})
		pool := Conv1DConfig{Channels: 16, Length: 64, Kernel: 2}
		mx, mean := tp.MaxPool1D(h, pool), tp.MeanPool1D(h, pool)
		y := tp.Add(tp.Sum(tp.Square(a)), tp.Add(tp.Sum(tp.Square(mx)), tp.Sum(tp.Square(mean))))
		tp.Backward(y)
		return [][]float64{h.Data, a.Data, mx.Data, mean.Data, x.Grad, w.Grad, b.Grad, q.Grad}
	}
	one, three := run(1), run(3)
	for k := range one {
		for i := range one[k] {
			if math.Float64bits(one[k][i]) != math.Float64bits(three[k][i]) {
				t.Fatalf("result %d, element %d: %v on one goroutine, %v on three", k, i, one[k][i], three[k][i])
			}
		}
	}
}

// TestPoolMatchesReference checks the poolings' values and the maximum's gradient against
// direct loops written from their definitions: max ignores padding, mean counts it as zeros,
// and the maximum's gradient goes to the first position holding it (rows, then columns),
// NaN counting as the largest value. The inputs are rounded to a few values so that ties
// occur, and a few are NaN.
func TestPoolMatchesReference(t *testing.T) {
	for _, cfg := range []Conv2DConfig{
		{Channels: 2, Height: 5, Width: 7, Kernel: [2]int{3, 2}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}},
		{Channels: 3, Height: 1, Width: 12, Kernel: [2]int{1, 2}},                                             // 1-D, stride = kernel
		{Channels: 9, Height: 1, Width: 13, Kernel: [2]int{1, 2}},                                             // pairs, eight channels and one, the last position left out
		{Channels: 2, Height: 1, Width: 6, Kernel: [2]int{2, 2}, Stride: [2]int{1, 2}, Padding: [2]int{1, 0}}, // one row padded above and below: two output rows
		{Channels: 1, Height: 1, Width: 9, Kernel: [2]int{1, 3}, Stride: [2]int{1, 1}},                        // overlapping
		{Channels: 2, Height: 1, Width: 9, Kernel: [2]int{1, 2}, Stride: [2]int{1, 1}},                        // overlapping pairs
		{Channels: 2, Height: 6, Width: 6, Kernel: [2]int{2, 2}},                                              // 2-D, stride = kernel
		{Channels: 1, Height: 4, Width: 5, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}},                       // padded all round
	} {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) { checkPool(t, cfg) })
	}
}

func checkPool(t *testing.T, cfg Conv2DConfig) {
	rng := rand.New(rand.NewPCG(43, 44))
	g := cfg.geom("", true)
	const n = 3
	x := randConst(rng, n, g.in(), -1, 1)
	for k := range x.Data {
		x.Data[k] = math.Round(4*x.Data[k]) / 4 // ties
		if rng.IntN(17) == 0 {
			x.Data[k] = math.NaN()
		}
	}
	tp := NewTape()
	xv := tp.Variable(n, g.in(), x.Data)
	mx := tp.MaxPool2D(xv, cfg)
	mean := tp.MeanPool2D(tp.Variable(n, g.in(), x.Data), cfg)
	tp.Backward(tp.Sum(mx))
	wantGrad := make([]float64, len(x.Data))
	same := func(a, b float64) bool { return a == b || (a != a && b != b) }
	for i := 0; i < n; i++ {
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				for ch := 0; ch < g.c; ch++ {
					best, arg, sum := 0.0, -1, 0.0
					for ky := 0; ky < g.kh; ky++ {
						for kx := 0; kx < g.kw; kx++ {
							iy, ix := oy*g.sh+ky-g.pt, ox*g.sw+kx-g.pl
							if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
								continue
							}
							k := i*g.in() + (iy*g.w+ix)*g.c + ch
							v := x.Data[k]
							sum += v
							if arg < 0 || v > best || (math.IsNaN(v) && !math.IsNaN(best)) {
								best, arg = v, k
							}
						}
					}
					wantGrad[arg]++
					k := (oy*g.ow+ox)*g.c + ch
					if got := mx.At(i, k); !same(got, best) {
						t.Fatalf("max pool (%d,%d,%d,%d) = %v, want %v", i, oy, ox, ch, got, best)
					}
					want := sum / float64(g.kh*g.kw)
					if got := mean.At(i, k); !same(got, want) && math.Abs(got-want) > 1e-15 {
						t.Fatalf("mean pool (%d,%d,%d,%d) = %v, want %v", i, oy, ox, ch, got, want)
					}
				}
			}
		}
	}
	for k, want := range wantGrad {
		if xv.Grad[k] != want {
			t.Fatalf("max pool's gradient at input %d: %v, want %v (the first position of the maximum)", k, xv.Grad[k], want)
		}
	}
}

// TestChannelsLastPerm checks the permutation on a 2-channel series of 3 positions.
func TestChannelsLastPerm(t *testing.T) {
	x := NewTensor(1, 6, []float64{10, 11, 12, 20, 21, 22}) // channel 0 then channel 1
	if got := fmt.Sprint(NewTape().PermuteColumns(x, ChannelsLastPerm(2, 3)).Data); got != "[10 20 11 21 12 22]" {
		t.Errorf("channels-last %s, want [10 20 11 21 12 22]", got)
	}
}

// convBackRef is the scalar reference of the convolutions' backward pass, the direct loops
// of the gradients of y = b + Σ x·W (see conv.go): dX[i, iy, ix, c] = Σ dY[i, oy, ox, o]·W[tap, o]
// and dW[tap, o] = Σ x[i, iy, ix, c]·dY[i, oy, ox, o] over the outputs whose window holds
// (iy, ix) at that tap, db[o] = Σ dY[…, o].
func convBackRef(g *convGeom, x []float64, n int, w []float64, cout int, dy []float64) (dx, dw, db []float64) {
	dx, dw, db = make([]float64, len(x)), make([]float64, len(w)), make([]float64, cout)
	for i := 0; i < n; i++ {
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				d := dy[(i*g.out()+oy*g.ow+ox)*cout:][:cout]
				for o, v := range d {
					db[o] += v
				}
				for ky := 0; ky < g.kh; ky++ {
					for kx := 0; kx < g.kw; kx++ {
						iy, ix := oy*g.sh+ky*g.dh-g.pt, ox*g.sw+kx*g.dw-g.pl
						if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
							continue
						}
						for ch := 0; ch < g.c; ch++ {
							xi, tap := i*g.in()+(iy*g.w+ix)*g.c+ch, (ky*g.kw+kx)*g.c+ch
							for o, v := range d {
								dx[xi] += v * w[tap*cout+o]
								dw[tap*cout+o] += x[xi] * v
							}
						}
					}
				}
			}
		}
	}
	return dx, dw, db
}

// TestConvBackwardMatchesReference checks the gradients of the convolutions (in place, with
// padding that makes output rows wrap, and through im2col) against the direct loops, to
// 1e-12 relative: the sums are taken in other orders.
func TestConvBackwardMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for _, c := range []struct {
		name    string
		c1      *Conv1DConfig
		c2      *Conv2DConfig
		inPlace bool // where the own kernels run
	}{
		{"1D padded", &Conv1DConfig{Channels: 3, Length: 30, Kernel: 5, Padding: 2}, nil, true},
		{"1D padded, 16 channels", &Conv1DConfig{Channels: 16, Length: 20, Kernel: 3, Padding: 1}, nil, true},
		{"1D causal", &Conv1DConfig{Channels: 2, Length: 25, Kernel: 3, Causal: true}, nil, true},
		{"1D strided dilated", &Conv1DConfig{Channels: 2, Length: 25, Kernel: 3, Stride: 2, Dilation: 2, Padding: 1}, nil, false},
		{"2D padded", nil, &Conv2DConfig{Channels: 8, Height: 7, Width: 6, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, true},
		{"2D padded, 16 channels", nil, &Conv2DConfig{Channels: 16, Height: 5, Width: 6, Kernel: [2]int{3, 2}, Padding: [2]int{2, 1}}, true},
		{"2D wide kernel", nil, &Conv2DConfig{Channels: 4, Height: 5, Width: 8, Kernel: [2]int{2, 4}, Padding: [2]int{0, 3}}, true},
		{"2D one channel", nil, &Conv2DConfig{Channels: 1, Height: 6, Width: 6, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, false},
		{"2D strided", nil, &Conv2DConfig{Channels: 2, Height: 8, Width: 7, Kernel: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}}, false},
	} {
		const n, cout = 40, 5
		var g convGeom
		if c.c1 != nil {
			g = c.c1.geom("", false)
		} else {
			g = c.c2.geom("", false)
		}
		if ownWidth() > 0 && forcedPath == pathAuto && g.inPlace() != c.inPlace {
			t.Fatalf("%s: in place %v, want %v", c.name, g.inPlace(), c.inPlace)
		}
		x0 := randConst(rng, n, g.in(), -1, 1)
		w0, b0 := randConst(rng, g.taps(), cout, -1, 1), randConst(rng, 1, cout, -1, 1)
		tp := NewTape()
		x, w, b := tp.Variable(n, g.in(), x0.Data), tp.Variable(g.taps(), cout, w0.Data), tp.Variable(1, cout, b0.Data)
		var y *Tensor
		if c.c1 != nil {
			y = tp.Conv1D(x, w, b, *c.c1)
		} else {
			y = tp.Conv2D(x, w, b, *c.c2)
		}
		dy := make([]float64, y.Len())
		for i := range dy {
			dy[i] = rng.NormFloat64()
		}
		tp.BackwardWith(y, dy)
		dx, dw, db := convBackRef(&g, x0.Data, n, w0.Data, cout, dy)
		for _, r := range []struct {
			what      string
			got, want []float64
		}{{"dX", x.Grad, dx}, {"dW", w.Grad, dw}, {"db", b.Grad, db}} {
			for i := range r.want {
				if !(math.Abs(r.got[i]-r.want[i]) <= 1e-12*max(1, math.Abs(r.want[i]))) {
					t.Fatalf("%s (in place %v): %s[%d] = %v, the direct loop gives %v", c.name, g.inPlace(), r.what, i, r.got[i], r.want[i])
				}
			}
		}
	}
}

// TestConvWeightGradOrientations checks that the weight gradient of the in-place
// convolutions has the same bits whether each kernel row's product is taken as Pᵀ·dY or as
// its transpose dYᵀ·P (weightGradTransposed), over geometries where either has fewer tiles,
// and that the orientation changes nothing else.
func TestConvWeightGradOrientations(t *testing.T) {
	noConvTaps = true // the series of few taps take their gradient without a product otherwise
	defer func() { forceWeightGrad, noConvTaps = 0, false }()
	rng := rand.New(rand.NewPCG(47, 48))
	for _, c := range []struct {
		c1   *Conv1DConfig
		c2   *Conv2DConfig
		cout int
	}{
		{&Conv1DConfig{Channels: 2, Length: 100, Kernel: 5}, nil, 6}, // sbi's CNNEmbedding, first layer
		{&Conv1DConfig{Channels: 6, Length: 50, Kernel: 5}, nil, 12},
		{&Conv1DConfig{Channels: 3, Length: 30, Kernel: 5, Padding: 2}, nil, 17},
		{nil, &Conv2DConfig{Channels: 1, Height: 9, Width: 9, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, 16},
		{nil, &Conv2DConfig{Channels: 8, Height: 7, Width: 6, Kernel: [2]int{3, 3}, Padding: [2]int{1, 1}}, 5},
	} {
		var g convGeom
		if c.c1 != nil {
			g = c.c1.geom("", false)
		} else {
			g = c.c2.geom("", false)
		}
		const n = 45 // more than one block of examples for the series
		x0 := randConst(rng, n, g.in(), -1, 1)
		w0, b0 := randConst(rng, g.taps(), c.cout, -1, 1), randConst(rng, 1, c.cout, -1, 1)
		dy := make([]float64, n*g.out()*c.cout)
		for i := range dy {
			dy[i] = rng.NormFloat64()
		}
		grads := func(force int) [][]float64 {
			forceWeightGrad = force
			tp := NewTape()
			x, w, b := tp.Variable(n, g.in(), x0.Data), tp.Variable(g.taps(), c.cout, w0.Data), tp.Variable(1, c.cout, b0.Data)
			var y *Tensor
			if c.c1 != nil {
				y = tp.Conv1D(x, w, b, *c.c1)
			} else {
				y = tp.Conv2D(x, w, b, *c.c2)
			}
			tp.BackwardWith(y, dy)
			return [][]float64{w.Grad, x.Grad, b.Grad}
		}
		plain, transposed := grads(-1), grads(1)
		for k, what := range []string{"dW", "dX", "db"} {
			for i := range plain[k] {
				if math.Float64bits(plain[k][i]) != math.Float64bits(transposed[k][i]) {
					t.Fatalf("%+v %+v cout %d: %s[%d] = %v as Pᵀ·dY, %v as (dYᵀ·P)ᵀ", c.c1, c.c2, c.cout, what, i, plain[k][i], transposed[k][i])
				}
			}
		}
	}
}

// TestConvZeroOutputChannels checks that a convolution with weights of no columns (no output
// channels) gives its n × 0 result and leaves the input's gradient at 0 on every path, as a
// product with no columns does: the in-place path's products (ownGemm) have no columns, or,
// for the input's gradient, no depth, and must be empty, not declined by the kernel.
func TestConvZeroOutputChannels(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for _, c := range []struct {
		name string
		c1   *Conv1DConfig
		c2   *Conv2DConfig
	}{
		{"1D series", &Conv1DConfig{Channels: 2, Length: 8, Kernel: 3}, nil},
		{"1D padded, 16 channels", &Conv1DConfig{Channels: 16, Length: 6, Kernel: 3, Padding: 1}, nil},
		{"1D causal", &Conv1DConfig{Channels: 3, Length: 5, Kernel: 2, Causal: true}, nil},
		{"1D strided dilated", &Conv1DConfig{Channels: 2, Length: 9, Kernel: 3, Stride: 2, Dilation: 2}, nil},
		{"2D padded, 16 channels", nil, &Conv2DConfig{Channels: 16, Height: 4, Width: 3, Kernel: [2]int{2, 2}, Padding: [2]int{1, 1}}},
		{"2D one channel", nil, &Conv2DConfig{Channels: 1, Height: 4, Width: 4, Kernel: [2]int{3, 3}}},
		{"2D 1×1", nil, &Conv2DConfig{Channels: 2, Height: 3, Width: 3, Kernel: [2]int{1, 1}}},
	} {
		for _, n := range []int{1, 30} {
			t.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(t *testing.T) {
				var g convGeom
				if c.c1 != nil {
					g = c.c1.geom("", false)
				} else {
					g = c.c2.geom("", false)
				}
				tp := NewTape()
				x, w, b := randVar(rng, n, g.in(), -1, 1), NewVariable(g.taps(), 0, nil), NewVariable(1, 0, nil)
				var y *Tensor
				if c.c1 != nil {
					y = tp.Conv1D(x, w, b, *c.c1)
				} else {
					y = tp.Conv2D(x, w, b, *c.c2)
				}
				if y.Rows != n || y.Cols != 0 {
					t.Fatalf("result %d×%d, want %d×0", y.Rows, y.Cols, n)
				}
				tp.Backward(tp.Sum(y))
				for i, v := range x.Grad {
					if v != 0 {
						t.Fatalf("input gradient %d is %v, want 0 (no outputs)", i, v)
					}
				}
			})
		}
	}
}

// TestPoolOutLengthRefusesCausal checks that PoolOutLength refuses a causal configuration, as
// MaxPool1D and MeanPool1D do (Causal is for convolutions), and says why, rather than
// returning the length of a causally padded pooling that no pooling computes or complaining
// about padding the caller did not set.
func TestPoolOutLengthRefusesCausal(t *testing.T) {
	for _, cfg := range []Conv1DConfig{
		{Channels: 1, Length: 8, Kernel: 2, Causal: true},
		{Channels: 2, Length: 8, Kernel: 3, Causal: true},
		{Channels: 1, Length: 5, Kernel: 1, Causal: true},
		{Channels: 1, Length: 9, Kernel: 2, Stride: 1, Causal: true},
	} {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			for _, f := range []struct {
				name string
				run  func()
			}{
				{"PoolOutLength", func() { cfg.PoolOutLength() }},
				{"MaxPool1D", func() { NewTape().MaxPool1D(NewTensor(1, cfg.Length*cfg.Channels, nil), cfg) }},
				{"MeanPool1D", func() { NewTape().MeanPool1D(NewTensor(1, cfg.Length*cfg.Channels, nil), cfg) }},
			} {
				func() {
					defer func() {
						msg, _ := recover().(string)
						if !strings.Contains(msg, "Causal is for convolutions") {
							t.Errorf("%s: panic %q, want a refusal of Causal", f.name, msg)
						}
					}()
					f.run()
				}()
			}
		})
	}
}

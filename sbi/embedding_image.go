package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/nn"
)

func init() { RegisterEmbedding("cnn2d", CNN2DEmbedding{}) }

// CNN2DEmbedding is a 2-D convolutional network for small images: convolutions of
// Kernel×Kernel windows padded by Kernel/2 (the image keeps its size), each followed by
// Activation and a pooling of Pool×Pool pixels (max, or mean with Pooling "mean"), then a
// fully connected head of widths Hidden… → Out on the flattened pixels (or, with
// GlobalPool, on each channel's mean). An observation is an image of Height×Width pixels of
// in/(Height·Width) channels, stored channels-last and row-major (pixel (y, x), channel c is
// column (y·Width + x)·Channels + c; PyTorch's NCHW data become channels-last by permuting
// the columns with nn.ChannelsLastPerm); each channel is standardized with one mean and
// deviation over all pixels (InputLayout).
//
// Zero values take the defaults: a square image of one channel (Height = Width =
// √in), convolutions of 8 and 16 channels with 3×3 kernels, pooling by 2, one hidden layer
// of 64, 20 summaries, ReLU.
type CNN2DEmbedding struct {
	Height, Width int        // pixels; 0 and 0 mean a square image of Channels channels
	Channels      int        // channels of a pixel; 0 means in/(Height·Width), or 1 for a square image
	Conv          []int      // output channels of each convolution; nil means {8, 16}
	Kernel        int        // side of every convolution's window; 0 means 3
	Pool          int        // side of the pooling after each convolution; 0 means 2, 1 none
	Pooling       Pooling    // "max" (default) or "mean"
	GlobalPool    bool       // average the last pixels per channel instead of flattening them
	Hidden        []int      // hidden widths of the head; nil means {64}, []int{} none
	Out           int        // summary size; 0 means 20
	Activation    Activation // after every convolution and hidden layer; "" means ReLU
	// Float32 runs the convolutions, their ReLU and their max pooling in float32 (PyTorch's
	// precision; nn.Conv2D32), whose products do twice the work per instruction; the head
	// stays float64. It needs ReLU and max pooling. Off by default.
	Float32 bool
}

// copied returns e with slices of its own (copyEmbedding; nil stays nil).
func (e CNN2DEmbedding) copied() CNN2DEmbedding {
	e.Conv, e.Hidden = slices.Clone(e.Conv), slices.Clone(e.Hidden)
	return e
}

func (e CNN2DEmbedding) withDefaults() CNN2DEmbedding {
	if e.Conv == nil {
		e.Conv = []int{8, 16}
	}
	if e.Kernel == 0 {
		e.Kernel = 3
	}
	if e.Pool == 0 {
		e.Pool = 2
	}
	if e.Pooling == "" {
		e.Pooling = MaxPooling
	}
	if e.Hidden == nil {
		e.Hidden = []int{64}
	}
	if e.Out == 0 {
		e.Out = 20
	}
	if e.Activation == "" {
		e.Activation = ReLU
	}
	return e
}

// shape returns the image's height, width and channels for in values.
func (e CNN2DEmbedding) shape(in int) (h, w, c int, err error) {
	h, w, c = e.Height, e.Width, e.Channels
	if h == 0 && w == 0 {
		if c == 0 {
			c = 1
		}
		if c > 0 && in%c == 0 {
			side := int(math.Round(math.Sqrt(float64(in / c))))
			h, w = side, side
		}
	} else if c == 0 && h > 0 && w > 0 && satMul(h, w) <= in && in%(h*w) == 0 {
		c = in / (h * w)
	}
	// The products saturate rather than wrap: Height and Width of 2³² must not make an image
	// of 0 pixels, nor 7 × 0x6DB6DB6DB6DB6DC0 one of 64.
	if h < 1 || w < 1 || c < 1 || satMul(satMul(h, w), c) != in {
		return 0, 0, 0, fmt.Errorf("embedding: CNN2D: observations of %d values are not images of Height %d × Width %d × Channels %d (0 and 0 mean a square image): set Height, Width and Channels so that their product is %d", in, e.Height, e.Width, e.Channels, in)
	}
	return h, w, c, nil
}

func (e CNN2DEmbedding) plan(in int) (*cnnPlan, error) {
	const kind = "CNN2D"
	H, W, c, err := e.shape(in)
	if err != nil {
		return nil, err
	}
	e = e.withDefaults()
	act, err := e.Activation.parse()
	if err != nil {
		return nil, fmt.Errorf("embedding: %s: %w", kind, err)
	}
	switch {
	case len(e.Conv) == 0:
		return nil, fmt.Errorf("embedding: %s: no convolution (Conv is empty), expected at least one: use MLPEmbedding for none", kind)
	case e.Kernel < 1 || e.Pool < 1:
		return nil, fmt.Errorf("embedding: %s: Kernel %d and Pool %d, expected ≥ 1 each", kind, e.Kernel, e.Pool)
	case e.Out < 1:
		return nil, fmt.Errorf("embedding: %s: Out = %d, expected ≥ 1", kind, e.Out)
	}
	if err := checkWidths(kind, "Conv channels", e.Conv); err != nil {
		return nil, err
	}
	if err := checkWidths(kind, "Hidden widths", e.Hidden); err != nil {
		return nil, err
	}
	if err := checkPooling(kind, e.Pooling); err != nil {
		return nil, err
	}
	if err := checkKernel(kind, e.Kernel, 1, true); err != nil {
		return nil, err
	}
	if err := checkFloat32(kind, e.Float32, act == nn.ReLU, e.Activation, e.Pooling, false); err != nil {
		return nil, err
	}
	p := &cnnPlan{act: act, outs: e.Conv, global: e.GlobalPool, mean: e.Pooling == MeanPooling, out: e.Out, f32: e.Float32}
	k := e.Kernel
	for i, out := range e.Conv {
		cfg := nn.Conv2DConfig{Channels: c, Height: H, Width: W, Kernel: [2]int{k, k}, Padding: [2]int{k / 2, k / 2}}
		H, W = cfg.OutSize()
		p.conv2 = append(p.conv2, cfg)
		p.layers = append(p.layers, EmbeddingLayer{
			Layer:   fmt.Sprintf("Conv2D %d→%d, kernel %d×%d, padding %d, %s%s", c, out, k, k, k/2, actName(e.Activation), precision(e.Float32)),
			Output:  fmt.Sprintf("%d×%d pixels × %d channels", H, W, out),
			Weights: satAdd(satMul(satMul(satMul(k, k), c), out), out)})
		c = out
		var pool nn.Conv2DConfig
		if e.Pool > 1 {
			if H < e.Pool || W < e.Pool {
				return nil, fmt.Errorf("embedding: %s: after convolution %d the image has %d×%d pixels, fewer than the pooling window %d×%d: use fewer convolutions, a smaller Pool, or Pool: 1 (none)", kind, i+1, H, W, e.Pool, e.Pool)
			}
			pool = nn.Conv2DConfig{Channels: c, Height: H, Width: W, Kernel: [2]int{e.Pool, e.Pool}}
			H, W = pool.PoolOutSize()
			p.layers = append(p.layers, EmbeddingLayer{Layer: fmt.Sprintf("%sPool2D %d×%d", p.poolName(), e.Pool, e.Pool), Output: fmt.Sprintf("%d×%d pixels × %d channels", H, W, c)})
		}
		p.pool2 = append(p.pool2, pool)
	}
	p.head = p.flatten(H*W, c)
	p.head = append(append(p.head, e.Hidden...), e.Out)
	p.layers = append(p.layers, denseLayers(p.head, e.Activation, false)...)
	return p, nil
}

// Build implements Embedding.
func (e CNN2DEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	p, err := e.plan(in)
	if err != nil {
		return nil, err
	}
	return p.build(rng), nil
}

// Size implements SavableEmbedding.
func (e CNN2DEmbedding) Size(in int) (out, weights int, err error) { return sizeOf(e, in) }

func (e CNN2DEmbedding) layers(in int) ([]EmbeddingLayer, int, error) {
	p, err := e.plan(in)
	if err != nil {
		return nil, 0, err
	}
	return p.layers, p.out, nil
}

// InputGroups implements InputLayout: one group per channel.
func (e CNN2DEmbedding) InputGroups(in int) ([]int, error) {
	if _, err := e.plan(in); err != nil {
		return nil, err
	}
	_, _, c, _ := e.shape(in)
	return channelGroups(in, c), nil
}

// inputShape implements inputShaper.
func (e CNN2DEmbedding) inputShape(in int) string {
	h, w, c, err := e.shape(in)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("an image of %d×%d pixels × %s, channels-last and row-major: pixel (y, x), channel c is column (y·Width + x)·Channels + c", h, w, text.Count(c, "channel"))
}

// InputUsed implements InputLayout: every value is data.
func (e CNN2DEmbedding) InputUsed(row []float64) (int, error) { return len(row), nil }

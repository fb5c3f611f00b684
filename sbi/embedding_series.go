package sbi

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gosbi/gosbi/internal/text"
	"github.com/gosbi/gosbi/sbi/nn"
)

// Embeddings of series: a 1-D convolutional network and a recurrent one. Both read an
// observation as a series of in/Channels positions of Channels values each, stored
// channels-last (value c at position t is column t·Channels + c; data stored channel after
// channel becomes channels-last by permuting its columns with nn.ChannelsLastPerm), and
// standardize each channel with one mean and deviation over all positions (InputLayout).

func init() {
	RegisterEmbedding("cnn1d", CNN1DEmbedding{})
	RegisterEmbedding("gru", GRUEmbedding{})
}

// maxCausalLayers bounds the convolutions of a causal CNN, whose dilation doubles per layer.
const maxCausalLayers = 24

// CNN1DEmbedding is a 1-D convolutional network for time series, like sbi's CNNEmbedding:
// convolution layers, each followed by Activation and a pooling of width Pool (the largest
// value, or with Pooling "mean" the mean, of each channel over Pool positions), then a
// fully connected head of widths Hidden… → Out on the flattened positions. With Causal the
// convolutions are causal and dilated 1, 2, 4, … (a temporal CNN, like sbi's
// CausalCNNEmbedding, where output t sees inputs up to t); otherwise they are centred, padded
// by Kernel/2 on both ends. With GlobalPool the positions left after the convolutions are
// averaged per channel instead of flattened, so the head's size does not grow with the
// series' length.
//
// An observation is a series of in/Channels positions stored channels-last: value c at
// position t is column t·Channels + c. Data stored channel after channel (PyTorch's N×C×L)
// have the same width and cannot be told apart: permute their columns with
// nn.ChannelsLastPerm first. The network is built for the length it is trained on, and a
// posterior refuses observations of another length.
//
// Zero values take the defaults, sbi's: two convolutions of 6 and 12 channels with a kernel
// of 5, pooling by 2, one hidden layer of 50, 20 summaries, ReLU.
type CNN1DEmbedding struct {
	Channels   int     // channels of the series; 0 means 1 (x holds in/Channels positions)
	Conv       []int   // output channels of each convolution; nil means {6, 12}
	Kernel     int     // window of every convolution; 0 means 5
	Pool       int     // width of the pooling after each convolution; 0 means 2, 1 none
	Pooling    Pooling // "max" (default, as sbi) or "mean" (which averages noise out)
	Causal     bool    // causal convolutions, dilated 2^layer
	GlobalPool bool    // average the last positions per channel instead of flattening them
	// IndependentScaling standardizes every value of x with its own mean and deviation (sbi's
	// z_score_x = "independent", what MLPEmbedding gets) instead of one scale per channel.
	// Series that start from a fixed state vary little at first, yet their first steps may
	// carry the growth rate; a scale per position makes them as visible as the rest.
	IndependentScaling bool
	Hidden             []int      // hidden widths of the head; nil means {50}, []int{} none
	Out                int        // summary size; 0 means 20
	Activation         Activation // after every convolution and hidden layer; "" means ReLU
	// Float32 runs the convolutions, their ReLU and their max pooling in float32 (PyTorch's
	// precision; nn.Conv1D32), whose products do twice the work per instruction; the head
	// stays float64. It needs ReLU, max pooling and convolutions that are not Causal (those
	// are dilated). Off by default.
	Float32 bool
}

// copied returns e with slices of its own (copyEmbedding; nil stays nil).
func (e CNN1DEmbedding) copied() CNN1DEmbedding {
	e.Conv, e.Hidden = slices.Clone(e.Conv), slices.Clone(e.Hidden)
	return e
}

func (e CNN1DEmbedding) withDefaults() CNN1DEmbedding {
	if e.Channels == 0 {
		e.Channels = 1
	}
	if e.Conv == nil {
		e.Conv = []int{6, 12}
	}
	if e.Kernel == 0 {
		e.Kernel = 5
	}
	if e.Pool == 0 {
		e.Pool = 2
	}
	if e.Pooling == "" {
		e.Pooling = MaxPooling
	}
	if e.Hidden == nil {
		e.Hidden = []int{50}
	}
	if e.Out == 0 {
		e.Out = 20
	}
	if e.Activation == "" {
		e.Activation = ReLU
	}
	return e
}

// cnnPlan is the shape of a convolutional embedding for one input size: the configuration
// with its defaults, the convolutions and poolings (a pooling of Kernel 0 is none), and the
// widths of the head from its input to Out.
type cnnPlan struct {
	act    nn.Activation
	conv1  []nn.Conv1DConfig
	pool1  []nn.Conv1DConfig
	conv2  []nn.Conv2DConfig
	pool2  []nn.Conv2DConfig
	outs   []int // output channels of each convolution
	global bool
	mean   bool // mean pooling instead of max pooling
	f32    bool // the convolutions, ReLU and max pooling in float32
	head   []int
	layers []EmbeddingLayer
	out    int
}

// seriesShape checks the channels of a series embedding for in values and returns the
// number of positions.
func seriesShape(kind string, in, channels int) (int, error) {
	if channels < 1 || in < channels || in%channels != 0 {
		return 0, fmt.Errorf("embedding: %s: observations of %d values are not a series of %d channels (expected a positive multiple of Channels values, channels-last)", kind, in, channels)
	}
	return in / channels, nil
}

// checkWidths returns an error naming what when a width is below 1.
func checkWidths(kind, what string, ws []int) error {
	for _, w := range ws {
		if w < 1 {
			return fmt.Errorf("embedding: %s: %s %v, expected every width ≥ 1", kind, what, ws)
		}
	}
	return nil
}

func (e CNN1DEmbedding) plan(in int) (*cnnPlan, error) {
	const kind = "CNN1D"
	e = e.withDefaults()
	act, err := e.Activation.parse()
	if err != nil {
		return nil, fmt.Errorf("embedding: %s: %w", kind, err)
	}
	L, err := seriesShape(kind, in, e.Channels)
	if err != nil {
		return nil, err
	}
	switch {
	case len(e.Conv) == 0:
		return nil, fmt.Errorf("embedding: %s: no convolution (Conv is empty), expected at least one: use MLPEmbedding for none", kind)
	case e.Causal && len(e.Conv) > maxCausalLayers:
		return nil, fmt.Errorf("embedding: %s: %d causal convolutions, expected at most %d (the dilation doubles per layer)", kind, len(e.Conv), maxCausalLayers)
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
	dilation := 1 // the largest
	if e.Causal {
		dilation = 1 << (len(e.Conv) - 1)
	}
	if err := checkKernel(kind, e.Kernel, dilation, false); err != nil {
		return nil, err
	}
	if err := checkFloat32(kind, e.Float32, act == nn.ReLU, e.Activation, e.Pooling, e.Causal); err != nil {
		return nil, err
	}
	p := &cnnPlan{act: act, outs: e.Conv, global: e.GlobalPool, mean: e.Pooling == MeanPooling, out: e.Out, f32: e.Float32}
	c := e.Channels
	for i, out := range e.Conv {
		cfg := nn.Conv1DConfig{Channels: c, Length: L, Kernel: e.Kernel}
		pad := fmt.Sprintf("padding %d", e.Kernel/2)
		if e.Causal {
			cfg.Causal, cfg.Dilation = true, 1<<i
			pad = fmt.Sprintf("causal, dilation %d", cfg.Dilation)
		} else {
			cfg.Padding = e.Kernel / 2
		}
		L = cfg.OutLength()
		p.conv1 = append(p.conv1, cfg)
		p.layers = append(p.layers, EmbeddingLayer{
			Layer:   fmt.Sprintf("Conv1D %d→%d, kernel %d, %s, %s%s", c, out, e.Kernel, pad, actName(e.Activation), precision(e.Float32)),
			Output:  fmt.Sprintf("%d positions × %d channels", L, out),
			Weights: satAdd(satMul(satMul(e.Kernel, c), out), out)})
		c = out
		var pool nn.Conv1DConfig
		if e.Pool > 1 {
			if L < e.Pool {
				return nil, fmt.Errorf("embedding: %s: after convolution %d the series has %d positions, fewer than the pooling width %d: use fewer convolutions, a smaller Pool, or Pool: 1 (none)", kind, i+1, L, e.Pool)
			}
			pool = nn.Conv1DConfig{Channels: c, Length: L, Kernel: e.Pool}
			L = pool.PoolOutLength()
			p.layers = append(p.layers, EmbeddingLayer{Layer: fmt.Sprintf("%sPool1D %d", p.poolName(), e.Pool), Output: fmt.Sprintf("%d positions × %d channels", L, c)})
		}
		p.pool1 = append(p.pool1, pool)
	}
	p.head = p.flatten(L, c)
	p.head = append(append(p.head, e.Hidden...), e.Out)
	p.layers = append(p.layers, denseLayers(p.head, e.Activation, false)...)
	return p, nil
}

// checkFloat32 refuses a float32 convolution stack (Float32) that the float32 ops cannot
// run: they have ReLU, max pooling and no dilation.
func checkFloat32(kind string, f32, relu bool, act Activation, pooling Pooling, causal bool) error {
	switch {
	case !f32:
		return nil
	case !relu:
		return fmt.Errorf("embedding: %s: Float32 with Activation %q, expected %q (the float32 convolution stack has ReLU only): leave Float32 off for another activation", kind, act, ReLU)
	case pooling != MaxPooling:
		return fmt.Errorf("embedding: %s: Float32 with Pooling %q, expected %q (the float32 convolution stack has max pooling only): leave Float32 off for mean pooling", kind, pooling, MaxPooling)
	case causal:
		return fmt.Errorf("embedding: %s: Float32 with Causal, expected Causal off (causal convolutions are dilated, float32 ones have no dilation): leave Float32 off for a causal CNN", kind)
	}
	return nil
}

// precision is what a layer's description adds for a float32 convolution.
func precision(f32 bool) string {
	if f32 {
		return ", float32"
	}
	return ""
}

// checkKernel refuses a kernel too large to index: its window, dilated (the largest dilation)
// and with square true one row per tap (a 2-D kernel), spans maxCount values or more, where
// the geometry of the convolution would overflow int (a panic, or a network of another shape,
// from Build, Size and Load).
func checkKernel(kind string, kernel, dilation int, square bool) error {
	n := satMul(kernel, dilation)
	if square {
		n = satMul(n, kernel)
	}
	if n >= maxCount {
		return fmt.Errorf("embedding: %s: Kernel %d is too large to index (its window would span more than %d values): use a kernel no longer than the input", kind, kernel, maxCount)
	}
	return nil
}

// checkPooling refuses a pooling a convolutional embedding does not have.
func checkPooling(kind string, p Pooling) error {
	if p != MaxPooling && p != MeanPooling {
		return fmt.Errorf("embedding: %s: Pooling %q, expected %q or %q", kind, p, MaxPooling, MeanPooling)
	}
	return nil
}

// poolName is "Max" or "Mean", for the layers' names.
func (p *cnnPlan) poolName() string {
	if p.mean {
		return "Mean"
	}
	return "Max"
}

// flatten describes how the last feature map of P positions and c channels enters the head
// and returns the head's input width as a one-element slice.
func (p *cnnPlan) flatten(P, c int) []int {
	if p.global {
		p.layers = append(p.layers, EmbeddingLayer{Layer: "GlobalMeanPool", Output: fmt.Sprint(c)})
		return []int{c}
	}
	p.layers = append(p.layers, EmbeddingLayer{Layer: "Flatten", Output: fmt.Sprint(satMul(P, c))})
	return []int{satMul(P, c)}
}

// Build implements Embedding.
func (e CNN1DEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	p, err := e.plan(in)
	if err != nil {
		return nil, err
	}
	return p.build(rng), nil
}

// Size implements SavableEmbedding.
func (e CNN1DEmbedding) Size(in int) (out, weights int, err error) { return sizeOf(e, in) }

func (e CNN1DEmbedding) layers(in int) ([]EmbeddingLayer, int, error) {
	p, err := e.plan(in)
	if err != nil {
		return nil, 0, err
	}
	return p.layers, p.out, nil
}

// InputGroups implements InputLayout: one group per channel, or one per value with
// IndependentScaling.
func (e CNN1DEmbedding) InputGroups(in int) ([]int, error) {
	if _, err := e.plan(in); err != nil {
		return nil, err
	}
	if e.IndependentScaling {
		return channelGroups(in, in), nil
	}
	return channelGroups(in, e.withDefaults().Channels), nil
}

// inputShape implements inputShaper.
func (e CNN1DEmbedding) inputShape(in int) string {
	return seriesDescription(in, e.withDefaults().Channels)
}

// seriesDescription says what in values are to a series embedding of that many channels.
func seriesDescription(in, channels int) string {
	if channels < 1 || in%channels != 0 {
		return ""
	}
	return fmt.Sprintf("a series of %d positions × %s, channels-last: value c at position t is column t·Channels + c, and the network is built for this length", in/channels, text.Count(channels, "channel"))
}

// InputUsed implements InputLayout: every value is data.
func (e CNN1DEmbedding) InputUsed(row []float64) (int, error) { return len(row), nil }

// channelGroups returns the group of each of in channels-last values: its channel.
func channelGroups(in, channels int) []int {
	g := make([]int, in)
	for j := range g {
		g[j] = j % channels
	}
	return g
}

// poolFirst lets cnnNet.Forward take a max pooling before ReLU (see there); tests turn it off
// to compare with the plain order.
var poolFirst = true

// cnnNet is a built convolutional embedding (1-D or 2-D).
type cnnNet struct {
	plan  *cnnPlan
	conv1 []*nn.Conv1D
	conv2 []*nn.Conv2D
	head  *nn.MLP
}

func (p *cnnPlan) build(rng *rand.Rand) *cnnNet {
	n := &cnnNet{plan: p}
	for i, cfg := range p.conv1 {
		n.conv1 = append(n.conv1, nn.NewConv1D(rng, fmt.Sprintf("embed.conv%d", i), cfg, p.outs[i]))
	}
	for i, cfg := range p.conv2 {
		n.conv2 = append(n.conv2, nn.NewConv2D(rng, fmt.Sprintf("embed.conv%d", i), cfg, p.outs[i]))
	}
	n.head = nn.NewMLP(rng, p.head, p.act)
	prefix(n.head.Params(), "embed.head.")
	return n
}

// Forward maps standardized observations (n × in) to n × Out summaries.
//
// Each convolution is activated, then pooled. Max pooling commutes with ReLU (the largest of
// max(vᵢ, 0) is max(largest vᵢ, 0), and the gradient reaches a position only where it is
// positive and the window's maximum, whichever comes first), so with ReLU the maximum is taken
// first and the activation runs on the pooled values only: the same values and gradients,
// to the bit, for a fraction of the work (poolFirst).
func (n *cnnNet) Forward(tp *nn.Tape, x *nn.Tensor) *nn.Tensor {
	p := n.plan
	if p.f32 {
		x = n.forward32(tp, x)
		if p.global {
			x = tp.GlobalMeanPool(x, p.outs[len(p.outs)-1])
		}
		return n.head.Forward(tp, x)
	}
	first := poolFirst && p.act == nn.ReLU && !p.mean
	for i, c := range n.conv1 {
		x = c.Forward(tp, x)
		switch {
		case p.pool1[i].Kernel == 0:
			x = tp.Activate(x, p.act)
		case p.mean:
			x = tp.MeanPool1D(tp.Activate(x, p.act), p.pool1[i])
		case first:
			x = tp.Activate(tp.MaxPool1D(x, p.pool1[i]), p.act)
		default:
			x = tp.MaxPool1D(tp.Activate(x, p.act), p.pool1[i])
		}
	}
	for i, c := range n.conv2 {
		x = c.Forward(tp, x)
		switch {
		case p.pool2[i].Kernel[0] == 0:
			x = tp.Activate(x, p.act)
		case p.mean:
			x = tp.MeanPool2D(tp.Activate(x, p.act), p.pool2[i])
		case first:
			x = tp.Activate(tp.MaxPool2D(x, p.pool2[i]), p.act)
		default:
			x = tp.MaxPool2D(tp.Activate(x, p.act), p.pool2[i])
		}
	}
	if p.global {
		x = tp.GlobalMeanPool(x, p.outs[len(p.outs)-1])
	}
	return n.head.Forward(tp, x)
}

// forward32 runs the convolutions in float32 (Float32): each convolution, its max pooling
// and ReLU, in that order (they commute, see Forward), from x cast to float32 to the result
// cast back.
func (n *cnnNet) forward32(tp *nn.Tape, x *nn.Tensor) *nn.Tensor {
	p, h := n.plan, tp.To32(x)
	for i, c := range n.conv1 {
		h = tp.Conv1D32(h, c.W.Tensor, c.B.Tensor, c.Config)
		if p.pool1[i].Kernel != 0 {
			h = tp.MaxPool1D32(h, p.pool1[i])
		}
		h = tp.ReLU32(h)
	}
	for i, c := range n.conv2 {
		h = tp.Conv2D32(h, c.W.Tensor, c.B.Tensor, c.Config)
		if p.pool2[i].Kernel[0] != 0 {
			h = tp.MaxPool2D32(h, p.pool2[i])
		}
		h = tp.ReLU32(h)
	}
	return tp.To64(h)
}

// Params returns the convolutions' weights, then the head's.
func (n *cnnNet) Params() []*nn.Param {
	var ps []*nn.Param
	for _, c := range n.conv1 {
		ps = append(ps, c.Params()...)
	}
	for _, c := range n.conv2 {
		ps = append(ps, c.Params()...)
	}
	return append(ps, n.head.Params()...)
}

// Out is the summary size.
func (n *cnnNet) Out() int { return n.plan.out }

// GRUEmbedding is a recurrent embedding for long sequences: a gated recurrent unit of Hidden
// units runs over the series (nn.GRU, PyTorch's form and initialization), and a linear layer
// maps its final state to Out summaries. Unlike a convolutional network it has as many
// weights for any length, but an estimator is trained and asked at one length. An
// observation is stored channels-last, as for CNN1DEmbedding (value c at position t is
// column t·Channels + c; permute channel-after-channel data with nn.ChannelsLastPerm). Zero
// values take the defaults: 1 channel, 32 units, 20 summaries.
type GRUEmbedding struct {
	Channels int // channels of the series; 0 means 1 (x holds in/Channels positions)
	Hidden   int // units of the recurrent state; 0 means 32
	Out      int // summary size; 0 means 20
}

func (e GRUEmbedding) withDefaults() GRUEmbedding {
	if e.Channels == 0 {
		e.Channels = 1
	}
	if e.Hidden == 0 {
		e.Hidden = 32
	}
	if e.Out == 0 {
		e.Out = 20
	}
	return e
}

func (e GRUEmbedding) layers(in int) ([]EmbeddingLayer, int, error) {
	e = e.withDefaults()
	L, err := seriesShape("GRU", in, e.Channels)
	if err != nil {
		return nil, 0, err
	}
	if e.Hidden < 1 || e.Out < 1 {
		return nil, 0, fmt.Errorf("embedding: GRU: Hidden %d and Out %d, expected ≥ 1 each", e.Hidden, e.Out)
	}
	H := e.Hidden
	return []EmbeddingLayer{
		{Layer: fmt.Sprintf("GRU %d→%d over %d positions, final state", e.Channels, H, L), Output: fmt.Sprint(H),
			Weights: satMul(satMul(3, H), satAdd(satAdd(e.Channels, H), 2))},
		{Layer: fmt.Sprintf("Linear %d→%d", H, e.Out), Output: fmt.Sprint(e.Out), Weights: satAdd(satMul(H, e.Out), e.Out)},
	}, e.Out, nil
}

// Build implements Embedding.
func (e GRUEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	if _, _, err := e.layers(in); err != nil {
		return nil, err
	}
	e = e.withDefaults()
	n := &gruNet{length: in / e.Channels, gru: nn.NewGRU(rng, "embed.gru", e.Channels, e.Hidden), head: nn.NewLinear(rng, "embed.head", e.Hidden, e.Out)}
	return n, nil
}

// Size implements SavableEmbedding.
func (e GRUEmbedding) Size(in int) (out, weights int, err error) { return sizeOf(e, in) }

// InputGroups implements InputLayout: one group per channel.
func (e GRUEmbedding) InputGroups(in int) ([]int, error) {
	if _, _, err := e.layers(in); err != nil {
		return nil, err
	}
	return channelGroups(in, e.withDefaults().Channels), nil
}

// inputShape implements inputShaper.
func (e GRUEmbedding) inputShape(in int) string {
	return seriesDescription(in, e.withDefaults().Channels)
}

// InputUsed implements InputLayout: every value is data.
func (e GRUEmbedding) InputUsed(row []float64) (int, error) { return len(row), nil }

type gruNet struct {
	length int
	gru    *nn.GRU
	head   *nn.Linear
}

func (n *gruNet) Forward(tp *nn.Tape, x *nn.Tensor) *nn.Tensor {
	return n.head.Forward(tp, n.gru.Last(tp, x, n.length))
}

func (n *gruNet) Params() []*nn.Param { return append(n.gru.Params(), n.head.Params()...) }

func (n *gruNet) Out() int { return n.head.Out }

package sbi

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gosbi/gosbi/sbi/nn"
)

// Embedding describes a network that maps (standardized) observations to a summary vector,
// which the estimator uses in place of x. MLPEmbedding is the one built in.
//
// An estimator keeps a private copy of an embedding of this package (given as a value or a
// pointer, its slices included), so that changing the caller's configuration after the
// estimator was made changes neither the estimator nor its files. An embedding of another
// package is kept as given: do not change it after passing it to an estimator. Train passes
// one training observation through the network such an embedding builds, and returns an
// error when the network does not give Out() values for it (or panics).
type Embedding interface {
	// Build returns the network for observations of in values, initialized from rng.
	Build(rng *rand.Rand, in int) (EmbeddingNet, error)
}

// EmbeddingNet is a built embedding network.
type EmbeddingNet interface {
	Forward(tp *nn.Tape, x *nn.Tensor) *nn.Tensor // n×in → n×Out()
	Params() []*nn.Param
	Out() int
}

// MLPEmbedding is a fully connected embedding network: x → Hidden… → Out, with Activation
// between layers (like sbi's FCEmbedding).
type MLPEmbedding struct {
	Hidden     []int      // hidden widths; nil means one layer of 64
	Out        int        // summary size; 0 means 20
	Activation Activation // "relu" (default), "elu", "tanh", …
}

// Build implements Embedding.
func (e MLPEmbedding) Build(rng *rand.Rand, in int) (EmbeddingNet, error) {
	e = e.withDefaults()
	act, err := e.Activation.parse()
	if err != nil {
		return nil, fmt.Errorf("embedding: %w", err)
	}
	sizes := append([]int{in}, e.Hidden...)
	for _, h := range sizes {
		if h < 1 {
			return nil, fmt.Errorf("embedding: layer widths %v, expected every width ≥ 1", sizes)
		}
	}
	if e.Out < 1 {
		return nil, fmt.Errorf("embedding: Out = %d, expected ≥ 1", e.Out)
	}
	m := nn.NewMLP(rng, append(sizes, e.Out), act)
	prefix(m.Params(), "embed.")
	return m, nil
}

func (e MLPEmbedding) withDefaults() MLPEmbedding {
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

// checkEmbeddingNet passes the standardized observation row through net, built by e, when e
// is an embedding of another package, and returns an error naming e unless it gives one row
// of net.Out() ≥ 1 values: the estimator's network is built for Out() inputs, and would
// otherwise fail in the middle of training with a message about its own shapes. A panic of
// the network's Forward is returned as an error too. The embeddings of this package are
// trusted and not run.
func checkEmbeddingNet(e Embedding, net EmbeddingNet, row []float64) (err error) {
	if _, ours := e.(describer); ours {
		return nil
	}
	out := net.Out()
	if out < 1 {
		return fmt.Errorf("embedding %T: its network's Out() = %d, expected ≥ 1", e, out)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("embedding %T: its network's Forward panicked on a training observation: %v", e, r)
		}
	}()
	tp := nn.NewTape()
	tp.NoGrad = true
	y := net.Forward(tp, tp.Const(1, len(row), row))
	switch {
	case y == nil:
		return fmt.Errorf("embedding %T: its network's Forward returned nil, expected 1 row of Out() = %d values for one observation", e, out)
	case y.Rows != 1 || y.Cols != out:
		return fmt.Errorf("embedding %T: its network's Forward gives %d rows of %d columns for one observation, but Out() = %d: expected 1 row of Out() values, which the estimator's network reads", e, y.Rows, y.Cols, out)
	}
	return nil
}

// copyEmbedding returns a copy of e that shares nothing with it (no slice, and a new pointer
// for a pointer), for the embeddings of this package; another package's embedding is
// returned as it is, as is a nil one. An estimator keeps the copy, so that the caller's later
// changes to its configuration do not reach the network the estimator built, its checks of
// x, or the configuration its files store.
func copyEmbedding(e Embedding) Embedding {
	switch e := e.(type) {
	case MLPEmbedding:
		return e.copied()
	case *MLPEmbedding:
		if e != nil {
			c := e.copied()
			return &c
		}
	case CNN1DEmbedding:
		return e.copied()
	case *CNN1DEmbedding:
		if e != nil {
			c := e.copied()
			return &c
		}
	case GRUEmbedding:
		return e // no slices
	case *GRUEmbedding:
		if e != nil {
			c := *e
			return &c
		}
	case CNN2DEmbedding:
		return e.copied()
	case *CNN2DEmbedding:
		if e != nil {
			c := e.copied()
			return &c
		}
	case DeepSetEmbedding:
		return e.copied()
	case *DeepSetEmbedding:
		if e != nil {
			c := e.copied()
			return &c
		}
	}
	return e
}

// copied returns e with slices of its own (nil stays nil: it takes the default).
func (e MLPEmbedding) copied() MLPEmbedding {
	e.Hidden = slices.Clone(e.Hidden)
	return e
}

func prefix(ps []*nn.Param, p string) {
	for _, q := range ps {
		q.Name = p + q.Name
	}
}

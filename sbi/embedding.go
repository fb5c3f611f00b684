package sbi

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/nn"
)

// Embedding describes a network that maps (standardized) observations to a summary vector,
// which the estimator uses in place of x. MLPEmbedding is the one built in.
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

func prefix(ps []*nn.Param, p string) {
	for _, q := range ps {
		q.Name = p + q.Name
	}
}

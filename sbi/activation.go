package sbi

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/nn"
)

// Activation names the hidden-layer nonlinearity of a network built by this package (the
// MADEs of NPE, the classifier of NRE, MLPEmbedding). It is a string so that a literal such as
// "relu" may stand for it, and so that estimator files store it by name; the names are those
// of nn.ParseActivation.
type Activation string

// The activations, as in package nn.
const (
	Identity  Activation = "identity"
	ReLU      Activation = "relu"
	ELU       Activation = "elu"
	SELU      Activation = "selu"
	Tanh      Activation = "tanh"
	Sigmoid   Activation = "sigmoid"
	Softplus  Activation = "softplus"
	LeakyReLU Activation = "leaky_relu"
)

// parse returns the activation of package nn, or an error naming a and the known names.
func (a Activation) parse() (nn.Activation, error) {
	act, err := nn.ParseActivation(string(a))
	if err != nil {
		return 0, fmt.Errorf("activation: %w", err)
	}
	return act, nil
}

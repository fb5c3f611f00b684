package nn

import "fmt"

// Activation selects an elementwise nonlinearity for layers and Tape.Activate.
type Activation int

// The activations. ELU uses α = 1; SELU uses the constants of Klambauer et al. (2017);
// LeakyReLU uses slope 0.01 for negative inputs.
const (
	Identity Activation = iota
	ReLU
	ELU
	SELU
	Tanh
	Sigmoid
	Softplus
	LeakyReLU
)

var activationNames = [...]string{"identity", "relu", "elu", "selu", "tanh", "sigmoid", "softplus", "leaky_relu"}

// String returns the lower-case name used by ParseActivation.
func (a Activation) String() string {
	if a < 0 || int(a) >= len(activationNames) {
		return fmt.Sprintf("Activation(%d)", int(a))
	}
	return activationNames[a]
}

// ParseActivation returns the activation with the given name ("relu", "elu", "selu", "tanh",
// "sigmoid", "softplus", "leaky_relu", "identity").
func ParseActivation(name string) (Activation, error) {
	for i, n := range activationNames {
		if n == name {
			return Activation(i), nil
		}
	}
	return 0, fmt.Errorf("nn: unknown activation %q: want one of %v", name, activationNames)
}

func (a Activation) fn() int {
	switch a {
	case Identity:
		return fnIdentity
	case ReLU:
		return fnReLU
	case ELU:
		return fnELU
	case SELU:
		return fnSELU
	case Tanh:
		return fnTanh
	case Sigmoid:
		return fnSigmoid
	case Softplus:
		return fnSoftplus
	case LeakyReLU:
		return fnLeakyReLU
	}
	panic(fmt.Sprintf("nn: unknown activation %d", int(a)))
}

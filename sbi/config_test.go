package sbi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/flow"
	"gonum.org/v1/gonum/mat"
)

// TestUnknownEnumErrors checks that a configuration with an unknown enumeration value is
// refused with an error that names the value and the values allowed.
func TestUnknownEnumErrors(t *testing.T) {
	prior := dist.NewUniformCube(0, 1, 2)
	theta, x := mat.NewDense(4, 2, nil), mat.NewDense(4, 1, nil)
	activations := []string{"identity", "relu", "elu", "selu", "tanh", "sigmoid", "softplus", "leaky_relu"}
	train := func(e interface {
		Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
	}) error {
		_, err := e.Train(theta, x, TrainConfig{Epochs: 1})
		return err
	}
	for _, c := range []struct {
		name string
		err  func() error
		want []string // substrings of the error
	}{
		{"NPE Flow", func() error { return train(NewNPE(prior, NPEConfig{Flow: "realnvp"})) },
			[]string{`"realnvp"`, `"maf"`, `"nsf"`}},
		{"NPE Flow upper case", func() error { return train(NewNPE(prior, NPEConfig{Flow: "NSF"})) },
			[]string{`"NSF"`, `"maf"`, `"nsf"`}},
		{"NPE Activation", func() error { return train(NewNPE(prior, NPEConfig{Activation: "swish"})) },
			append([]string{`"swish"`}, activations...)},
		{"NPE Activation identity", func() error { return train(NewNPE(prior, NPEConfig{Activation: Identity})) },
			[]string{`"identity"`, "nonlinearity"}},
		{"NRE Activation", func() error { return train(NewNRE(prior, NREConfig{Activation: "swish"})) },
			append([]string{`"swish"`}, activations...)},
		{"NRE Loss", func() error { return train(NewNRE(prior, NREConfig{Loss: "nre-d"})) },
			[]string{`"nre-d"`, `"nre-a"`, `"nre-b"`, `"nre-c"`}},
		{"NRE Sampler Method", func() error {
			return train(NewNRE(prior, NREConfig{Sampler: SamplerConfig{Method: "nuts"}}))
		}, []string{`"nuts"`, `"auto"`, `"mcmc"`, `"grid"`, `"importance"`}},
		{"MLPEmbedding Activation", func() error {
			_, err := MLPEmbedding{Activation: "swish"}.Build(rand.New(rand.NewPCG(1, 1)), 3)
			return err
		}, append([]string{`"swish"`}, activations...)},
	} {
		err := c.err()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %s", c.name, err, w)
			}
		}
	}
}

// TestEnumConstants checks that every named constant is a value its field accepts.
func TestEnumConstants(t *testing.T) {
	for _, a := range []Activation{Identity, ReLU, ELU, SELU, Tanh, Sigmoid, Softplus, LeakyReLU} {
		if _, err := a.parse(); err != nil {
			t.Errorf("Activation %q: %v", a, err)
		}
	}
	for _, k := range []flow.Kind{MAF, NSF} {
		if _, err := (NPEConfig{Flow: k}).withDefaults().flowConfig(2, 1); err != nil {
			t.Errorf("Flow %q: %v", k, err)
		}
	}
	for _, l := range []NRELoss{NREA, NREB, NREC} {
		if err := (NREConfig{Loss: l}).withDefaults().validate(); err != nil {
			t.Errorf("NRELoss %q: %v", l, err)
		}
	}
	for _, m := range []SamplerMethod{SamplerAuto, SamplerMCMC, SamplerGrid, SamplerImportance} {
		if err := (SamplerConfig{Method: m}).validate(); err != nil {
			t.Errorf("SamplerMethod %q: %v", m, err)
		}
	}
}

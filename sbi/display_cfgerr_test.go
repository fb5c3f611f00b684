package sbi

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// TestStringSaysInvalidConfig: an estimator built with an invalid setting (NewX does not
// refuse it; Train does) must not be shown as a plain untrained estimator: its String names
// the error Train returns, so that a cell that shows the estimator tells what is wrong.
func TestStringSaysInvalidConfig(t *testing.T) {
	prior := dist.NewUniformCube(-1, 1, 2)
	for _, tc := range []struct {
		name string
		est  interface {
			fmt.Stringer
			Train(theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error)
		}
	}{
		{"NPE", NewNPE(prior, NPEConfig{Flow: "realnvp"})},
		{"NLE", NewNLE(prior, NLEConfig{Flow: "realnvp"})},
		{"NRE", NewNRE(prior, NREConfig{Loss: "hinge"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			theta := prior.Sample(rng, 20)
			_, err := tc.est.Train(theta, theta, TrainConfig{Epochs: 1})
			if err == nil {
				t.Fatal("Train accepted an invalid configuration")
			}
			s := tc.est.String()
			if !strings.Contains(s, err.Error()) || !strings.Contains(s, "invalid") {
				t.Errorf("String() = %q; want it to say the configuration is invalid with Train's error %q", s, err)
			}
		})
	}
}

package sbi

import (
	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// NewRatioPosteriorForTest is newRatioPosterior for the package's external tests.
func NewRatioPosteriorForTest(prior dist.Distribution, lr func(*mat.Dense) []float64, s SamplerConfig) *RatioPosterior {
	return newRatioPosterior("test", nil, prior, lr, nil, s)
}

package sbi_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// fragileNormal is N(0, I) whose LogProb panics from its second call on: the first call is
// MAP's evaluation of the draws, the later ones those of the local searches.
type fragileNormal struct {
	*dist.Normal
	calls *atomic.Int64
}

func (f fragileNormal) LogProb(theta *mat.Dense) []float64 {
	if f.calls.Add(1) > 1 {
		panic("log-density not defined here")
	}
	return f.Normal.LogProb(theta)
}

// TestMAPLogProbPanics: the local searches evaluate the log-density on goroutines of package
// gonum/optimize; a panic of LogProb there ended the process. MAP must return it as an error
// naming the panic.
func TestMAPLogProbPanics(t *testing.T) {
	p := fragileNormal{dist.NewNormal([]float64{0, 0}, []float64{1, 1}), new(atomic.Int64)}
	got, err := sbi.MAP(p, sbi.MAPConfig{Draws: 50, Starts: 3, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "log-density not defined here") {
		t.Errorf("MAP = %v, error %v; want an error with the panic of LogProb", got, err)
	}
}

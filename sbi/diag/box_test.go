package diag_test

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/task"
)

// TestBoxOfTaskPrior checks that a task's prior gives the grid its box: two moons has the
// uniform prior on [−1, 1]² (Greenberg et al. 2019; sbibm).
func TestBoxOfTaskPrior(t *testing.T) {
	o := diag.GridConfig{Points: 7}.BoxOf(task.TwoMoons().Prior())
	if !slices.Equal(o.Lower, []float64{-1, -1}) || !slices.Equal(o.Upper, []float64{1, 1}) {
		t.Fatalf("BoxOf(two moons prior) = [%v, %v], want [[-1 -1], [1 1]]", o.Lower, o.Upper)
	}
	if o.Points != 7 {
		t.Errorf("BoxOf changed Points to %d", o.Points)
	}
}

// TestBoxOfUnboundedPrior checks that a prior with an infinite side reaches GridCoverage as
// a clear error rather than a grid of infinities.
func TestBoxOfUnboundedPrior(t *testing.T) {
	prior := dist.NewNormal([]float64{0}, []float64{1})
	theta := mat.NewDense(2, 1, []float64{0.1, -0.2})
	_, err := diag.GridCoverage(flatEstimator{}, theta, theta, diag.GridConfig{}.BoxOf(prior))
	if err == nil || !strings.Contains(err.Error(), "finite bounds") {
		t.Fatalf("GridCoverage with a normal prior's box: error %v, want one asking for finite bounds", err)
	}
}

// flatEstimator is never evaluated: the box is refused first.
type flatEstimator struct{}

func (flatEstimator) Posterior(x []float64) sbi.Posterior { panic("diag test: posterior evaluated") }

func (flatEstimator) LogProbPairs(theta, x *mat.Dense) []float64 {
	panic("diag test: posterior evaluated")
}

package viz

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestPredictiveCheckDrawsPadding: a check whose data hold a count equal in every simulation
// and the observation, zero and NaN padding (a DeepSet layout), and a value the simulations
// pad with NaN where the observation holds one, could not be drawn ("simulation 1 of x₄ is
// NaN"). The values not tested are left out of the panels and counted in the legend; the
// padding value present on one side only is drawn with its values that are not NaN.
func TestPredictiveCheckDrawsPadding(t *testing.T) {
	const m = 500
	rng := rand.New(rand.NewPCG(4, 4))
	x := mat.NewDense(m, 5, nil)
	for i := range m {
		x.SetRow(i, []float64{7, rng.NormFloat64(), 0, math.NaN(), math.NaN()})
	}
	r, err := diag.PredictiveFromSimulations(x, []float64{7, 0.2, 0, math.NaN(), 1}, diag.PredictiveConfig{})
	if err != nil {
		t.Fatal(err)
	}
	p := PredictiveCheck(r)
	if _, err := p.PNG(); err != nil {
		t.Fatalf("%v (verdict %s)", err, r.Verdict())
	}
	want := "3 of 5 data values equal in every simulation and the observation: not tested, not drawn"
	if legend := p.Legend(); !strings.Contains(strings.Join(legend, "\n"), want) {
		t.Errorf("legend %q, want %q", legend, want)
	}
	if got := predictivePanels(r); len(got) != 2 || got[0] != 4 || got[1] != 1 {
		t.Errorf("panels %v, want [4 1]: the flagged padding value, then the other tested value", got)
	}
	if titles, _ := predictiveTitles(r); !strings.HasPrefix(titles[4], "x₅   NaN in 500 of 500, p = ") {
		t.Errorf("title of the padding value %q", titles[4])
	}
}

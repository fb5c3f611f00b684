package viz

import (
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestMarginalCoverageRings: the rings of MarginalCoverage mark levels outside the band
// simultaneous over all parameters and levels, the band of diag.MarginalResult: a coverage
// between that band and the narrower one of a single curve's 19 levels is not ringed, so that
// 5 calibrated parameters are not flagged about 5 times as often as one; a coverage beyond the
// wider band is.
func TestMarginalCoverageRings(t *testing.T) {
	const n, dim = 200, 5
	levels := diag.Levels(19)
	r := &diag.MarginalResult{N: n, Levels: levels, Coverage: make([][]float64, dim)}
	r.Lower, r.Upper = diag.BinomialBand(n, levels, diag.DefaultConfidence)
	r.SimLower, r.SimUpper = diag.BinomialBand(n, levels, 1-(1-diag.DefaultConfidence)/float64(dim*len(levels)))
	oneLo, _ := diag.SimultaneousBand(n, levels, diag.DefaultConfidence)
	for d := range r.Coverage {
		r.Coverage[d] = append([]float64(nil), levels...)
	}
	const k = 9 // level 0.5
	if !(r.SimLower[k] < oneLo[k]-1.5/n) {
		t.Fatalf("bands at level ½: all cells %v, one curve %v; want the first wider", r.SimLower[k], oneLo[k])
	}
	r.Coverage[1][k] = oneLo[k] - 1.0/n      // outside one curve's band, inside the band of all cells
	r.Coverage[3][k] = r.SimLower[k] - 1.0/n // outside both
	curves, err := marginalCoverageCurves(r)
	if err != nil {
		t.Fatal(err)
	}
	flagged := coverageLayers(curves).flagged
	for d := range dim {
		want := 0
		if d == 3 {
			want = 1
		}
		if len(flagged[d]) != want {
			t.Errorf("θ%d: %d levels ringed (%v), want %d", d+1, len(flagged[d]), flagged[d], want)
		}
	}
}

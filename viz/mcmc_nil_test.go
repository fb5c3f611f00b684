package viz

import (
	"strings"
	"testing"
)

// TestMCMCNilSaysWhy: RatioPosterior.MCMCHealth is nil for a posterior sampled on a grid,
// which "auto" picks for a few parameters on a bounded prior, so a notebook that draws it gets
// a nil health; the figure's error says how to get one instead of only "no result".
func TestMCMCNilSaysWhy(t *testing.T) {
	_, err := MCMC(nil).PNG()
	for _, want := range []string{"no result", `Method: "mcmc"`, "grid"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("PNG error %v, want one containing %q", err, want)
		}
	}
}

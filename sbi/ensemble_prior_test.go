package sbi

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TestEnsembleMembersSharePrior: an ensemble evaluates its members under member 0's prior, so
// members built with another prior are refused; the same prior built twice (as a load does)
// is accepted.
func TestEnsembleMembersSharePrior(t *testing.T) {
	box := func(lo, hi float64) dist.Distribution {
		return dist.NewBoxUniform([]float64{lo, lo}, []float64{hi, hi})
	}
	normal := func(mean float64) dist.Distribution {
		return dist.NewNormal([]float64{mean, 0}, []float64{1, 1})
	}
	shared := box(-1, 1)
	for _, c := range []struct {
		name string
		a, b dist.Distribution
		want string // "" when accepted
	}{
		{"one value", shared, shared, ""},
		{"the same box built twice", box(-1, 1), box(-1, 1), ""},
		{"the same normal built twice", normal(0), normal(0), ""},
		{"another box", box(-1, 1), box(-2, 2), "support"},
		{"another mean", normal(0), normal(0.5), "log-density"},
	} {
		npe, err := NewNPEEnsemble(NewNPE(c.a, NPEConfig{}), NewNPE(c.b, NPEConfig{}))
		nre, err2 := NewNREEnsemble(NewNRE(c.a, NREConfig{}), NewNRE(c.b, NREConfig{}))
		for _, e := range []error{err, err2} {
			switch {
			case c.want == "" && e != nil:
				t.Errorf("%s: %v; want the ensemble", c.name, e)
			case c.want != "" && (e == nil || !strings.Contains(e.Error(), c.want) || !strings.Contains(e.Error(), "member 1")):
				t.Errorf("%s: error %v; want one naming member 1 and its prior's %s", c.name, e, c.want)
			}
		}
		_, _ = npe, nre
	}
}

package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/dist"
)

// afterInit returns a log-ratio that is 0 for the first chains calls (MCMC's initialization,
// one sampling-importance-resampling per chain) and bad(θ) from then on: an estimator
// whose degenerate region the initialization's prior draws did not reach.
func afterInit(chains int, bad func(theta []float64) float64) func(*mat.Dense) []float64 {
	calls := 0
	return func(theta *mat.Dense) []float64 {
		calls++
		n, _ := theta.Dims()
		out := make([]float64, n)
		if calls > chains {
			for i := range out {
				out[i] = bad(theta.RawRowView(i))
			}
		}
		return out
	}
}

// pointIn returns the parameter point an error names after "θ = (", or nil.
func pointIn(msg string) []float64 {
	_, rest, ok := strings.Cut(msg, "θ = (")
	if !ok {
		return nil
	}
	var a, b float64
	if n, _ := fmt.Sscanf(rest, "%g, %g)", &a, &b); n != 2 {
		return nil
	}
	return []float64{a, b}
}

// TestSliceInfiniteLogDensity checks that MCMC stops with an error naming the point when the
// log-density is +Inf at a chain's start or at a point it evaluates later (a density has no
// infinite values: the estimator is degenerate there), as grid and importance sampling do for
// any such point. Before, a chain that reached +Inf stayed there for ever (no point of the
// slice lies above +Inf), and the draws were copies of that point, returned without error. A
// NaN log-density counts as zero density, as in grid and importance sampling: the chains stay
// out of the region.
func TestSliceInfiniteLogDensity(t *testing.T) {
	const chains = 10
	right := func(bad float64) func([]float64) float64 {
		return func(th []float64) float64 {
			if th[0] > 0.5 {
				return bad
			}
			return 0
		}
	}
	for _, c := range []struct {
		name    string
		from    int // the first call that sees bad: chains+1 is the chains' start, chains+2 the first sweep
		bad     func([]float64) float64
		wantErr string
	}{
		{"+Inf at the start", chains + 1, func([]float64) float64 { return math.Inf(1) }, "starts at"},
		{"+Inf mid-chain", chains + 2, right(math.Inf(1)), "reached"},
		{"NaN", 1, right(math.NaN()), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newRatioPosterior("test", nil, dist.NewUniformCube(0, 1, 2), afterInit(c.from-1, c.bad), nil,
				SamplerConfig{Method: SamplerMCMC, Chains: chains, BurnIn: 20})
			s, err := p.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), 200)
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				for i := range 200 {
					if th := s.RawRowView(i); th[0] > 0.5 {
						t.Fatalf("draw %d is %v, where the log-density is NaN", i, th)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; the draws (%v …) come from a chain stuck at +Inf", s.RawRowView(0))
			}
			t.Log(err)
			th := pointIn(err.Error())
			if !strings.Contains(err.Error(), "+Inf") || !strings.Contains(err.Error(), c.wantErr) || th == nil || !math.IsInf(c.bad(th), 1) {
				t.Errorf("error %q, want one saying %q, +Inf and naming a point θ = (…) where it is", err, c.wantErr)
			}
		})
	}
}

// TestSamplersWarnNaN checks that every ratio sampler warns, naming a point, when the
// estimator's log-density is NaN at points it evaluated: they count as zero density, so no
// draw lies there, which is wrong where the posterior has mass; before, the draws came back
// without a word. A log-density finite everywhere gives no warning.
func TestSamplersWarnNaN(t *testing.T) {
	nanRight := func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		for i := range out {
			if theta.At(i, 0) > 0.5 {
				out[i] = math.NaN()
			}
		}
		return out
	}
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	for _, m := range []SamplerMethod{SamplerMCMC, SamplerGrid, SamplerImportance} {
		for _, c := range []struct {
			name string
			lr   func(*mat.Dense) []float64
			warn bool
		}{
			{"NaN", nanRight, true},
			{"finite", flat, false},
		} {
			t.Run(string(m)+"/"+c.name, func(t *testing.T) {
				buf := captureWarnings(t)
				p := newRatioPosterior("test", nil, dist.NewUniformCube(0, 1, 2), c.lr, nil,
					SamplerConfig{Method: m, Chains: 10, BurnIn: 20, GridPoints: 64})
				if _, err := p.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), 100); err != nil {
					t.Fatal(err)
				}
				t.Log(buf.String())
				warned := strings.Contains(buf.String(), "NaN")
				if th := pointIn(buf.String()); warned != c.warn || c.warn && (th == nil || th[0] <= 0.5) {
					t.Errorf("warnings %q, want one saying NaN and naming a point where it is: %v", buf.String(), c.warn)
				}
			})
		}
	}
}

package sbi

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// captureWarnings sends the package's warnings to a buffer (and resets the rate limit) for the
// rest of the test.
func captureWarnings(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	old := warnOutput
	warnOutput = func() io.Writer { return &buf }
	warnings.Lock()
	warnings.kinds = map[string]*warnState{}
	warnings.Unlock()
	t.Cleanup(func() { warnOutput = old })
	return &buf
}

// bimodalPosterior is an equal mixture of N((−3, −3), 0.3²I) and N((3, 3), 0.3²I) under a
// N(0, 5²I) prior. Coordinate-wise slice sampling cannot cross between the modes: moving one
// coordinate from one mode leaves the other coordinate in a region of density ≈ e^-200.
func bimodalPosterior(s SamplerConfig) *RatioPosterior {
	prior := dist.NewNormal([]float64{0, 0}, []float64{5, 5})
	lr := func(theta *mat.Dense) []float64 {
		n, _ := theta.Dims()
		out := make([]float64, n)
		lp := prior.LogProb(theta)
		for i := range n {
			a, b := theta.At(i, 0), theta.At(i, 1)
			l1 := -((a+3)*(a+3) + (b+3)*(b+3)) / (2 * 0.09)
			l2 := -((a-3)*(a-3) + (b-3)*(b-3)) / (2 * 0.09)
			m := math.Max(l1, l2)
			out[i] = m + math.Log(math.Exp(l1-m)+math.Exp(l2-m)) - lp[i]
		}
		return out
	}
	return newRatioPosterior("test", nil, prior, lr, nil, s)
}

// TestMCMCHealthBimodalFlagged: with 6 chains on the bimodal posterior the chains sit in the
// mode they start in, the split R̂ is far above its limit and the draw warns; the flagged
// health's verdict names the trouble.
func TestMCMCHealthBimodalFlagged(t *testing.T) {
	warn := captureWarnings(t)
	post := bimodalPosterior(SamplerConfig{Method: "mcmc", Chains: 6, BurnIn: 100, Thin: 2})
	s, err := post.SampleChecked(rand.New(rand.NewPCG(4, 4)), 600)
	if err != nil {
		t.Fatal(err)
	}
	h := post.MCMCHealth()
	if h == nil || h.Chains != 6 || h.Draws != 100 {
		t.Fatalf("health %+v, want 6 chains of 100 draws", h)
	}
	// Both modes hold chains (the resampling start puts chains in each with this seed): the
	// test is about detecting chains that disagree.
	var low, high int
	for c := range 6 {
		if h.Traces[0][c][0] < 0 {
			low++
		} else {
			high++
		}
	}
	if low == 0 || high == 0 {
		t.Fatalf("all chains started in one mode (%d low, %d high): pick another seed", low, high)
	}
	t.Logf("%d chains in the lower mode, %d in the upper; %s", low, high, h)
	// Rank normalization bounds R̂ for chains in disjoint regions (4 against 2 chains: about
	// 1.6); a tenth of that excess over 1 is already far above the limit of 1.02.
	if r := h.MaxRhat(); !(r > 1.3) {
		t.Errorf("max R̂ %.3f for chains stuck in two modes 8.5 SD apart, want > 1.3", r)
	}
	if v := h.Verdict(); !strings.HasPrefix(v, "poor mixing: R̂ above") {
		t.Errorf("verdict %q, want poor mixing with R̂ named", v)
	}
	if !strings.Contains(warn.String(), "sbi: warning: MCMC posterior (6 chains × 100 draws): R̂ above") {
		t.Errorf("no MCMC warning printed; got %q", warn.String())
	}
	if r, _ := s.Dims(); r != 600 {
		t.Errorf("%d draws, want 600", r)
	}
}

// TestMCMCHealthGaussianHealthy: on a correlated Gaussian the default 100 chains mix, the
// health says so and nothing is printed. The slice sampler's counts are recorded.
func TestMCMCHealthGaussianHealthy(t *testing.T) {
	warn := captureWarnings(t)
	cov := mat.NewSymDense(3, []float64{1, 0.5, 0, 0.5, 1, 0, 0, 0, 0.25})
	post := analyticPosterior(dist.NewStandardNormal(3), []float64{1, 0, -1}, cov, SamplerConfig{Method: "mcmc"})
	if _, err := post.SampleChecked(rand.New(rand.NewPCG(2, 2)), 2000); err != nil {
		t.Fatal(err)
	}
	h := post.MCMCHealth()
	if h == nil || !h.Assessed() {
		t.Fatalf("health %v, want assessed", h)
	}
	if w := h.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q for a well-mixing sampler", w)
	}
	if !strings.HasPrefix(h.Verdict(), "mixed well") {
		t.Errorf("verdict %q", h.Verdict())
	}
	if warn.Len() != 0 {
		t.Errorf("printed %q", warn.String())
	}
	// 100 chains × (20 draws kept, thin 5) sweeps × 3 coordinates after burn-in.
	if want := 100 * 20 * 5 * 3; h.Updates != want {
		t.Errorf("%d updates counted, want %d", h.Updates, want)
	}
	if h.Shrinks == 0 || h.StepOuts == 0 {
		t.Errorf("step-outs %d, shrinks %d: the counters did not run", h.StepOuts, h.Shrinks)
	}
	b := h.MIMEBundle()
	if s, _ := b["text/html"].(string); !strings.Contains(s, "R̂") || !strings.Contains(s, "mixed well") {
		t.Errorf("HTML %q", s)
	}
}

// TestMCMCHealthShortChains: 100 chains of one draw each cannot be assessed, and the verdict
// says so instead of passing.
func TestMCMCHealthShortChains(t *testing.T) {
	captureWarnings(t)
	post := analyticPosterior(dist.NewStandardNormal(2), []float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, 1}), SamplerConfig{Method: "mcmc"})
	if _, err := post.SampleChecked(rand.New(rand.NewPCG(3, 3)), 100); err != nil {
		t.Fatal(err)
	}
	h := post.MCMCHealth()
	if h == nil || h.Assessed() || !strings.HasPrefix(h.Verdict(), "not assessed") {
		t.Errorf("health of 1 draw per chain: %v", h)
	}
}

// TestWarnRateLimit: a kind of warning is printed warnBurst times per window, and the next one
// printed counts the ones left out.
func TestWarnRateLimit(t *testing.T) {
	buf := captureWarnings(t)
	for i := range 5 {
		warnf("test", "number %d", i)
	}
	if n := strings.Count(buf.String(), "sbi: warning: number"); n != warnBurst {
		t.Errorf("%d warnings printed, want %d:\n%s", n, warnBurst, buf)
	}
	warnings.Lock()
	warnings.kinds["test"].start = warnings.kinds["test"].start.Add(-2 * warnWindow)
	warnings.Unlock()
	warnf("test", "later")
	if !strings.Contains(buf.String(), "later (2 more warnings of this kind were not printed)") {
		t.Errorf("the warning after the window does not count the 2 left out:\n%s", buf)
	}
}

// TestMCMCHealthShortChainsAdvice follows the advice of the verdict of chains too short to be
// assessed: drawing the number of samples it names, with the same settings, must give chains
// that are assessed. The sampler runs min(Chains, n) chains, so below n = Chains every chain
// holds one draw whatever n, and the advice must name 4·Chains samples, not 4·n.
func TestMCMCHealthShortChainsAdvice(t *testing.T) {
	captureWarnings(t)
	advice := regexp.MustCompile(`draw at least (\d+) samples`)
	for _, c := range []struct{ chains, n int }{{100, 3}, {100, 50}, {100, 100}, {100, 350}, {10, 5}, {1, 3}} {
		t.Run(fmt.Sprintf("%d chains, %d samples", c.chains, c.n), func(t *testing.T) {
			post := analyticPosterior(dist.NewStandardNormal(2), []float64{0, 0}, mat.NewSymDense(2, []float64{1, 0, 0, 1}), SamplerConfig{Method: "mcmc", Chains: c.chains, BurnIn: 10})
			draw := func(n int) *MCMCHealth {
				if _, err := post.SampleContext(t.Context(), rand.New(rand.NewPCG(3, 3)), n); err != nil {
					t.Fatal(err)
				}
				return post.MCMCHealth()
			}
			h := draw(c.n)
			if h.Assessed() {
				t.Fatalf("%d samples of %d chains assessed: %s", c.n, c.chains, h.Verdict())
			}
			m := advice.FindStringSubmatch(h.Verdict())
			if m == nil {
				t.Fatalf("verdict %q names no number of samples to draw", h.Verdict())
			}
			n, _ := strconv.Atoi(m[1])
			if h2 := draw(n); !h2.Assessed() {
				t.Errorf("verdict %q; drawing %d samples gave %q", h.Verdict(), n, h2.Verdict())
			}
		})
	}
}

// TestNewMCMCHealthRefusesBadDraws checks that NewMCMCHealth returns an error, as its doc
// says, for non-finite draws whatever the chains' length, and for draws of no parameters.
// Before, chains shorter than the 4 draws the diagnostics need were never looked at: NaN or
// ±Inf draws gave a health "not assessed" for want of draws, with the NaN in its traces, and
// rows of no parameters one that asked for more draws.
func TestNewMCMCHealthRefusesBadDraws(t *testing.T) {
	chains := func(n int, v float64) [][][]float64 {
		out := make([][][]float64, 3)
		for c := range out {
			for i := range n {
				out[c] = append(out[c], []float64{float64(c + i), float64(c * i)})
			}
		}
		out[1][n-1][1] = v
		return out
	}
	for _, c := range []struct {
		name   string
		chains [][][]float64
		want   string // in the error; "" for none
	}{
		{"NaN, 3 draws", chains(3, math.NaN()), "NaN"},
		{"+Inf, 2 draws", chains(2, math.Inf(1)), "+Inf"},
		{"NaN, 10 draws", chains(10, math.NaN()), "NaN"},
		{"no parameters", [][][]float64{{{}, {}}, {{}, {}}}, "no parameters"},
		{"finite, 3 draws", chains(3, 1), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := NewMCMCHealth("test", c.chains)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("error %v, want a health not assessed", err)
			case c.want == "" && h.Assessed():
				t.Errorf("health assessed from 3 draws per chain: %v", h)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

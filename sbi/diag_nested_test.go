package sbi_test

import (
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/dist"
)

// bimodalMCMC's posterior is, whatever x, the equal mixture of N((−3, −3), 0.3²I) and
// N((3, 3), 0.3²I) under a N(0, 5²I) prior, sampled by MCMC, whose coordinate-wise chains stay
// in the mode they start in: their R-hat is flagged whenever both modes hold chains. It keeps
// the posteriors it made.
type bimodalMCMC struct {
	mu    sync.Mutex
	posts []*sbi.RatioPosterior
}

var bimodalPrior = dist.NewNormal([]float64{0, 0}, []float64{5, 5})

func bimodalLogRatio(theta *mat.Dense) []float64 {
	n, _ := theta.Dims()
	out := make([]float64, n)
	lp := bimodalPrior.LogProb(theta)
	for i := range n {
		a, b := theta.At(i, 0), theta.At(i, 1)
		l1 := -((a+3)*(a+3) + (b+3)*(b+3)) / (2 * 0.09)
		l2 := -((a-3)*(a-3) + (b-3)*(b-3)) / (2 * 0.09)
		m := math.Max(l1, l2)
		out[i] = m + math.Log(math.Exp(l1-m)+math.Exp(l2-m)) - lp[i]
	}
	return out
}

func (e *bimodalMCMC) Posterior(x []float64) sbi.Posterior {
	p := sbi.NewRatioPosteriorForTest(bimodalPrior, bimodalLogRatio, sbi.SamplerConfig{Method: "mcmc", Chains: 6, BurnIn: 20, Thin: 1})
	e.mu.Lock()
	e.posts = append(e.posts, p)
	e.mu.Unlock()
	return p
}

func (e *bimodalMCMC) LogProbPairs(theta, x *mat.Dense) []float64 {
	return e.Posterior(nil).LogProb(theta)
}

// A diagnostic over test pairs with MCMC posteriors reports one progress bar, its own, and
// says the chains' trouble once for all pairs, with how many were flagged, instead of a
// sampler's bar and warning per pair (SBC of an NLE printed about 60 lines in one cell).
func TestDiagnosticOverMCMCPairsReportsOnce(t *testing.T) {
	var mu sync.Mutex
	labels := map[string]int{}
	old := runenv.Progress()
	runenv.SetProgress(func(ev runenv.ProgressEvent) {
		mu.Lock()
		labels[ev.Label]++
		mu.Unlock()
	})
	defer runenv.SetProgress(old)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	est := &bimodalMCMC{}
	const pairs = 8
	theta, x := mat.NewDense(pairs, 2, nil), mat.NewDense(pairs, 1, nil)
	for i := range pairs {
		theta.Set(i, 0, 3)
		theta.Set(i, 1, 3)
	}
	_, sbcErr := diag.SBC(est, theta, x, diag.RankConfig{Samples: 60, Seed: 3, Workers: 2})
	os.Stderr = stderr
	w.Close()
	out, _ := io.ReadAll(r)
	if sbcErr != nil {
		t.Fatal(sbcErr)
	}
	flagged := 0
	for _, p := range est.posts {
		if h := p.MCMCHealth(); h != nil && len(h.Warnings()) > 0 {
			flagged++
		}
	}
	if flagged == 0 {
		t.Fatal("no pair's chains were flagged: the test needs some (pick another seed)")
	}
	if labels["mcmc"] > 0 {
		t.Errorf("%d progress events of the samplers' own bars (%v), want only the diagnostic's", labels["mcmc"], labels)
	}
	if labels["SBC"] == 0 {
		t.Errorf("no progress of the diagnostic itself (%v)", labels)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines of warnings, want one for the loop:\n%s", len(lines), out)
	}
	for _, want := range []string{"SBC", "R-hat", "R̂ above", "of " + strconv.Itoa(pairs) + " test pairs", strconv.Itoa(flagged) + " of "} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("warning %q does not say %q", lines[0], want)
		}
	}
}

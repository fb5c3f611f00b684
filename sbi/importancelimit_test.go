package sbi

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/dist"
	"gonum.org/v1/gonum/mat"
)

// askedPrior is a standard normal prior that records the largest number of draws asked of it
// and returns a single draw whatever the number, so that a test can see what importance
// sampling would allocate without allocating it.
type askedPrior struct {
	dist.Distribution
	asked *int
}

func (p askedPrior) Sample(rng *rand.Rand, n int) *mat.Dense {
	*p.asked = max(*p.asked, n)
	return p.Distribution.Sample(rng, 1)
}

// TestImportanceProposalsBounded checks that importance sampling refuses, with an error naming
// n, Proposals and the bound, a request whose n·Proposals proposals hold more than
// maxImportanceValues values (dim + 2 each: the point, its log-weight and cumulative weight),
// before it asks the prior for them; a request at the bound is drawn.
func TestImportanceProposalsBounded(t *testing.T) {
	flat := func(theta *mat.Dense) []float64 { n, _ := theta.Dims(); return make([]float64, n) }
	const dim = 2 // 4 values per proposal
	for _, c := range []struct {
		n, proposals int
		ok           bool
	}{
		{10_000, 10_000, false},              // 10⁸ proposals, 4·10⁸ values
		{8, 1 << (bits.UintSize - 3), false}, // n·Proposals overflows int (wraps to 0)
		{1<<12 + 1, 1 << 12, false},          // just above the bound
		{1 << 12, 1 << 12, true},             // at the bound: 2²⁴ proposals of 4 values
		{100, 0, true},                       // the default 20 per sample
	} {
		t.Run(fmt.Sprintf("%d×%d", c.n, c.proposals), func(t *testing.T) {
			asked := 0
			prior := askedPrior{dist.NewStandardNormal(dim), &asked}
			p := newRatioPosterior("test", nil, prior, flat, nil, SamplerConfig{Method: SamplerImportance, Proposals: c.proposals})
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				_, err = p.SampleContext(context.Background(), rand.New(rand.NewPCG(1, 1)), c.n)
			}()
			if c.ok {
				want := c.n * c.proposals
				if c.proposals == 0 {
					want = c.n * 20
				}
				if err != nil || asked != want {
					t.Errorf("error %v, %d prior draws asked; want no error and %d", err, asked, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "Proposals") || !strings.Contains(err.Error(), fmt.Sprint(maxImportanceValues)) {
				t.Errorf("error %v, want one naming Proposals and the bound %d", err, maxImportanceValues)
			}
			if asked != 0 {
				t.Errorf("the prior was asked for %d draws before the refusal", asked)
			}
		})
	}
}

// TestImportanceWarnsLowESS checks that importance sampling warns when its draws rest on few
// distinct proposals: a posterior N(0, 0.001²I) under a U(−1, 1)² prior keeps about one of the
// 20,000 proposals (ESS ≈ 1), and the 1,000 draws are copies of it, returned without a word
// before. A posterior N((0.2, −0.3), (0.2, 0.3)) keeps an ESS in the thousands: no warning.
func TestImportanceWarnsLowESS(t *testing.T) {
	prior := dist.NewUniformCube(-1, 1, 2)
	for _, c := range []struct {
		name string
		mean []float64
		sd   float64
		warn bool
	}{
		{"narrow", []float64{0, 0}, 0.001, true},
		{"broad", []float64{0.2, -0.3}, 0.25, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf := captureWarnings(t)
			cov := mat.NewSymDense(2, []float64{c.sd * c.sd, 0, 0, c.sd * c.sd})
			p := analyticPosterior(prior, c.mean, cov, SamplerConfig{Method: SamplerImportance})
			if _, err := p.SampleContext(t.Context(), rand.New(rand.NewPCG(1, 1)), 1000); err != nil {
				t.Fatal(err)
			}
			warned := strings.Contains(buf.String(), "effective sample size")
			if warned != c.warn {
				t.Errorf("ESS %.1f of 1000 draws: warning %q, want one: %v", p.ESS(), buf.String(), c.warn)
			}
		})
	}
}

package sbi

import (
	"context"
	"fmt"
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
		{10_000, 10_000, false},     // 10⁸ proposals, 4·10⁸ values
		{8, 1 << 61, false},         // n·Proposals overflows int (wraps to 0)
		{1<<12 + 1, 1 << 12, false}, // just above the bound
		{1 << 12, 1 << 12, true},    // at the bound: 2²⁴ proposals of 4 values
		{100, 0, true},              // the default 20 per sample
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

package diag

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKernelTestSizeBounded asks the kernel calibration tests for more values than
// MaxKernelTestValues: a complete design over 12,000 samples (an n×n matrix of 1.1 GiB), and
// bootstrap draws beyond any memory (2^30, eight times the limit, and an int on every platform). Each must return the limit's error before it allocates
// or evaluates a pair.
func TestKernelTestSizeBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	big, ybig := meanGaussianModel(rng, 12000, 1, 0)
	small, ysmall := meanGaussianModel(rng, 100, 1, 0)
	m := gaussModel{dim: 1, tau: 2, s: 1, width: 1}
	theta, x := m.simulate(5, 12000)
	exact := DistKernelConfig{Exact: true}
	cases := []struct {
		name string
		run  func() error
	}{
		{"KCCSD complete, 12000 samples", func() error {
			_, err := KCCSDTest(rng, big, ybig, KernelTestConfig{Dist: exact})
			return err
		}},
		{"SKCE complete, 12000 samples", func() error {
			_, err := SKCETest(rng, big, ybig, KernelTestConfig{Dist: exact})
			return err
		}},
		{"KCCSDAmortized complete, 12000 pairs", func() error {
			_, err := KCCSDAmortized(rng, m, theta, x, 0, KernelTestConfig{})
			return err
		}},
		{"complete, 2^30 bootstrap draws", func() error {
			_, err := KCCSDTest(rng, small, ysmall, KernelTestConfig{Dist: exact, Bootstrap: 1 << 30})
			return err
		}},
		{"disjoint pairs, 2^30 bootstrap draws", func() error {
			_, err := KCCSDTest(rng, small, ysmall, KernelTestConfig{Dist: exact, Design: DisjointPairs, Bootstrap: 1 << 30})
			return err
		}},
		{"superdiagonals, 2^30 bootstrap draws", func() error {
			_, err := KCCSDTest(rng, small, ysmall, KernelTestConfig{Dist: exact, Design: Superdiagonals, Superdiagonals: 1 << 30, Bootstrap: 1 << 30})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil || !strings.Contains(err.Error(), "MaxKernelTestValues") {
				t.Fatalf("got error %v, want one naming MaxKernelTestValues", err)
			}
		})
	}
}

// TestKernelTestSizeSuggestion checks that the number of samples the complete design's error
// suggests fits, and one more does not, for several bootstrap counts; and that an incomplete
// design over the same samples fits.
func TestKernelTestSizeSuggestion(t *testing.T) {
	for _, b := range []int{1, 200, 500, 20000} {
		cfg := KernelTestConfig{Bootstrap: b}.withDefaults()
		err := checkTestSize(1<<20, cfg)
		if err == nil {
			t.Fatalf("B = %d: 2^20 samples in the complete design: want an error", b)
		}
		_, after, ok := strings.Cut(err.Error(), "use at most ")
		var most int
		if _, scan := fmt.Sscanf(after, "%d samples", &most); !ok || scan != nil {
			t.Fatalf("B = %d: no suggested number of samples in %q", b, err)
		}
		if e := checkTestSize(most, cfg); e != nil {
			t.Errorf("B = %d: the suggested %d samples are refused: %v", b, most, e)
		}
		if checkTestSize(most+1, cfg) == nil {
			t.Errorf("B = %d: %d samples, one more than suggested, are accepted: the suggestion is not the most", b, most+1)
		}
		for _, d := range []Design{DisjointPairs, Superdiagonals} {
			c := cfg
			c.Design = d
			if e := checkTestSize(1<<20, c); e != nil {
				t.Errorf("B = %d: %v over 2^20 samples refused: %v", b, d, e)
			}
		}
	}
}

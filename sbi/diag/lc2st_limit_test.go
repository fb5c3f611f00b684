package diag

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestLC2STSizeBounded asks L-C2ST for classifiers that would hold more values than
// MaxLC2STValues: hidden layers of 2^15 units (2^30 parameters each), 2^24 evaluation draws,
// and 64 classifiers at a time (Workers) where 32 fit. Each must be refused before anything is
// trained: the context is cancelled, so a call that passes the check returns the cancellation
// instead. The largest Workers the error suggests must fit, and one more must not; with the
// default Workers the classifiers are run fewer at a time rather than refused.
func TestLC2STSizeBounded(t *testing.T) {
	m := gaussModel{dim: 4, tau: 2, s: 1, width: 1}
	theta, x := m.simulate(1, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run := func(cfg LC2STConfig) error {
		_, err := NewLC2STContext(ctx, m, theta, x, cfg)
		return err
	}
	limited := func(err error) bool { return err != nil && strings.Contains(err.Error(), "MaxLC2STValues") }
	// Each of the 64 classifiers evaluates 4000 rows of about 1000 values; one fits easily.
	manyAtOnce := LC2STConfig{Null: 63, Evals: 4000, Hidden: []int{1000}, Workers: 64}
	for _, c := range []struct {
		name string
		cfg  LC2STConfig
		want []string
	}{
		{"hidden widths 2^15", LC2STConfig{Null: 19, Hidden: []int{1 << 15, 1 << 15}}, []string{"hidden widths [32768 32768]", "narrower Hidden"}},
		{"Evals 2^24", LC2STConfig{Null: 19, Evals: 1 << 24}, []string{"Evals = 16777216", "fewer calibration pairs or Evals"}},
		{"Workers 64", manyAtOnce, []string{"64 classifiers at a time", "use at most Workers ="}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := run(c.cfg)
			if !limited(err) {
				t.Fatalf("error %v, want one naming MaxLC2STValues", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want one saying %q", err, w)
				}
			}
		})
	}
	_, after, _ := strings.Cut(fmt.Sprint(run(manyAtOnce)), "use at most Workers = ")
	var most int
	if _, err := fmt.Sscanf(after, "%d", &most); err != nil || most < 1 || most >= 64 {
		t.Fatalf("suggested Workers %q: want a number in [1, 64)", after)
	}
	fits, over := manyAtOnce, manyAtOnce
	fits.Workers, over.Workers = most, most+1
	if err := run(fits); !errors.Is(err, context.Canceled) {
		t.Errorf("the suggested Workers = %d: error %v, want the cancellation", most, err)
	}
	if err := run(over); !limited(err) {
		t.Errorf("Workers = %d, one more than suggested: error %v, want one naming MaxLC2STValues", most+1, err)
	}
	auto := manyAtOnce
	auto.Workers = 0
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(64))
	if err := run(auto); !errors.Is(err, context.Canceled) {
		t.Errorf("the default Workers with GOMAXPROCS = 64: error %v, want the cancellation (fewer classifiers at a time)", err)
	}
}

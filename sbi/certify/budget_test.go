package certify

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPlanTooSmallBudget: the error for a budget too small for its sets listed the sets at
// that budget, with the reserve of RemedyMoreSimulations taken as a third of a negative rest
// ("a reserve of -16"), and asked a given estimator for 100 training simulations it does not
// use. It now gives the budget given and a budget that holds the settings, with the sets at
// that budget (no negative counts), or says that no budget does when the default set sizes
// grow with Simulations faster than the budget.
func TestPlanTooSmallBudget(t *testing.T) {
	negative := regexp.MustCompile(`-\d`)
	holds := regexp.MustCompile(`; (\d+) simulations would hold them`)
	cases := []struct {
		name    string
		cfg     Config
		trained bool
		nObs    int
		dflt    bool
		want    string // start of the error
		parts   []string
	}{
		{"default remedies", Config{Simulations: 300}, false, 0, true,
			"certify: a budget of 300 simulations is too small for these settings; ",
			[]string{"a test set of", "3 check sets of", "a reserve of", "for more simulations", "training simulations"}},
		{"set sizes", Config{Simulations: 2000, TestSimulations: 1000, CheckSimulations: 500, Remedies: []Remedy{RemedyMoreSimulations}}, false, 0, false,
			"certify: a budget of 2000 simulations is too small for these settings; ",
			[]string{"a test set of 1000", "2 check sets of 500", "training simulations"}},
		{"given estimator", Config{Simulations: 500, TestSimulations: 1000, Remedies: []Remedy{RemedyConformal}}, true, 0, false,
			"certify: a budget of 500 simulations is too small for these settings; ",
			[]string{"a test set of 1000", "a conformal calibration set of"}},
		{"score calibration of many observations", Config{Simulations: 10000, Remedies: []Remedy{RemedyScoreCalibration}}, false, 20, false,
			"certify: a budget of 10000 simulations is too small for these settings, and no budget up to ", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg.withDefaults()
			_, _, err := plan(cfg, c.trained, c.nObs, c.dflt)
			if err == nil {
				t.Fatal("plan fits, want an error (the test's premise)")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, c.want) || negative.MatchString(msg) {
				t.Fatalf("error %q, want one starting %q without negative counts", msg, c.want)
			}
			if c.trained && strings.Contains(msg, "training") {
				t.Errorf("error %q asks a given estimator for training simulations", msg)
			}
			for _, p := range c.parts {
				if !strings.Contains(msg, p) {
					t.Errorf("error %q does not list %q", msg, p)
				}
			}
			if c.parts == nil {
				return
			}
			m := holds.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("error %q names no budget that holds the settings", msg)
			}
			n, _ := strconv.Atoi(m[1])
			cfg.Simulations = n
			if b, _, err := plan(cfg, c.trained, c.nObs, c.dflt); err != nil {
				t.Errorf("the budget %d named by the error does not hold the settings: %v", n, err)
			} else if want := fmt.Sprintf("a test set of %d", b.Test); !strings.Contains(msg, want) {
				t.Errorf("error %q, want the sets at %d simulations (%s)", msg, n, want)
			}
		})
	}
}

package certify

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/diag"
)

// TestTargetShownWithinUnitInterval checks that the target of a level below the tolerance
// (0.02 ± 0.05) is shown as [0.000, 0.070], in the reason and in the HTML table, not with a
// negative lower edge that no coverage can reach; and that of a level near 1 as [.., 1.000].
func TestTargetShownWithinUnitInterval(t *testing.T) {
	for _, c := range []struct {
		level, coverage float64
		want, notWant   string
	}{
		{0.02, 0.3, "[0.000, 0.070]", "-0.030"},
		{0.98, 0.5, "[0.930, 1.000]", "1.030"},
	} {
		cov := &diag.CoverageResult{N: 1000, Levels: []float64{c.level}, Coverage: []float64{c.coverage}}
		d, err := Decide(cov, Target{Levels: []float64{c.level}, Tolerance: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Reason, c.want) || strings.Contains(d.Reason, c.notWant) {
			t.Errorf("level %v: reason %q, want the target shown as %s", c.level, d.Reason, c.want)
		}
		cert := &Certificate{Target: d.Target, Final: d}
		html, _ := cert.MIMEBundle()["text/html"].(string)
		if !strings.Contains(html, c.want) || strings.Contains(html, c.notWant) {
			t.Errorf("level %v: the HTML table does not show the target as %s", c.level, c.want)
		}
	}
}

package nbtest

import (
	"strings"
	"testing"
)

// TestRunUsageStatesStopAndRaisesException: the help of gosbi run said it "runs every code
// cell", while a run stops at the first cell that fails, and it did not name the cell tag
// "raises-exception" that lets a cell fail on purpose (a notebook that shows error messages).
func TestRunUsageStatesStopAndRaisesException(t *testing.T) {
	usage := strings.Join(strings.Fields(runUsage), " ")
	for _, want := range []string{"stops at the first cell that fails", `tagged "raises-exception"`} {
		if !strings.Contains(usage, want) {
			t.Errorf("the usage of gosbi run does not say %q:\n%s", want, runUsage)
		}
	}
}

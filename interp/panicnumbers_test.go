package interp

import (
	"strings"
	"testing"
)

// TestPanicKeepsLargeNumbers: a number of seven digits or more in a panic's message is a
// position of the interpreter only when it names a line of a cell the session ran; the
// count of a library's message ("only 13 of 1049677 draws", an NPE's low acceptance) was
// shown as "only 13 of cell [0] line 49677 draws". A real position in the message is still
// rewritten.
func TestPanicKeepsLargeNumbers(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "x := 1\n_ = x")
	ts.mustRun(t, "y := 2\n_ = y")
	tests := []struct {
		msg, want string
	}{
		{"only 13 of 1049677 draws fell inside", "only 13 of 1049677 draws fell inside"},
		{"drew 3000000 values", "drew 3000000 values"},
		// slot 2 ran (cell 2) but has no line 34567
		{"seed 1234567 failed", "seed 1234567 failed"},
		{"broke at (1200002)", "broke at (cell [2] line 2)"},
	}
	for _, tc := range tests {
		t.Run(tc.msg, func(t *testing.T) {
			res := ts.run("panic(" + strings.ReplaceAll(`"`+tc.msg+`"`, "\n", "") + ")")
			if res.Err == nil {
				t.Fatal("the cell did not fail")
			}
			if !strings.Contains(res.Err.Value, tc.want) {
				t.Errorf("error %q, want it to hold %q", res.Err.Value, tc.want)
			}
		})
	}
}

package sbi

import (
	"math"
	"testing"
)

// TestAcceptanceCounts: the counts of a posterior's rejection sampler add up over calls, the
// rate is NaN and the description empty before the first draw.
func TestAcceptanceCounts(t *testing.T) {
	var a acceptance
	if r := a.rate(); !math.IsNaN(r) {
		t.Errorf("rate before any draw = %g, want NaN", r)
	}
	if s := a.describe("flow"); s != "" {
		t.Errorf("description before any draw = %q, want empty", s)
	}
	a.add(30, 10)
	a.add(10, 5)
	if r := a.rate(); r != 15.0/40 {
		t.Errorf("rate after 15 of 40 = %g, want %g", r, 15.0/40)
	}
	want := ", 15 of 40 flow draws (37.5%) inside the prior's support"
	if s := a.describe("flow"); s != want {
		t.Errorf("description = %q, want %q", s, want)
	}
}

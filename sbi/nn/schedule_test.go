package nn

import (
	"math"
	"strings"
	"testing"
)

func TestCosineLR(t *testing.T) {
	p := NewParam("p", 1, 1)
	opt := NewSGD([]*Param{p}, 1, 0)
	s := NewCosineLR(opt, 4, 0.2)
	// lr_t = 0.2 + 0.8·(1+cos(πt/4))/2 for t = 1…4, then constant
	want := []float64{0.2 + 0.4*(1+math.Sqrt2/2), 0.6, 0.2 + 0.4*(1-math.Sqrt2/2), 0.2, 0.2}
	for i, w := range want {
		s.Step(0)
		if math.Abs(opt.LR()-w) > 1e-15 {
			t.Errorf("step %d: lr %v, want %v", i+1, opt.LR(), w)
		}
	}
}

func TestReduceOnPlateau(t *testing.T) {
	p := NewParam("p", 1, 1)
	opt := NewAdam([]*Param{p}, 1)
	s := NewReduceOnPlateau(opt, 0.5, 2, 0.2)
	losses := []float64{10, 9, 9, 9, 9, 8, 8.9999, 8.9999, 8.9999, 8, 8, 8, 8, 8, 8, 8}
	// improvement at steps 1,2,6; three non-improving steps in a row (> patience 2) halve the
	// lr: after step 5 (1→0.5), after step 9 (0.5→0.25), after step 12 and 15 (floor 0.2)
	want := []float64{1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2, 0.2}
	for i, l := range losses {
		s.Step(l)
		if opt.LR() != want[i] {
			t.Fatalf("step %d (loss %v): lr %v, want %v", i+1, l, opt.LR(), want[i])
		}
	}
}

// TestScheduleRefusesBadMin checks that a minimum learning rate that is NaN (or, for
// ReduceOnPlateau, infinite) is refused: it passed the checks, and the schedules then
// computed NaN rates, which they never applied, so the rate silently stayed constant.
func TestScheduleRefusesBadMin(t *testing.T) {
	opt := NewSGD([]*Param{NewParam("p", 1, 1)}, 1, 0)
	cases := []struct {
		name string
		make func()
	}{
		{"CosineLR/NaN", func() { NewCosineLR(opt, 4, math.NaN()) }},
		{"ReduceOnPlateau/NaN", func() { NewReduceOnPlateau(opt, 0.5, 1, math.NaN()) }},
		{"ReduceOnPlateau/Inf", func() { NewReduceOnPlateau(opt, 0.5, 1, math.Inf(1)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, "min") {
					t.Errorf("panic %v, want one naming the minimum", r)
				}
			}()
			c.make()
		})
	}
}

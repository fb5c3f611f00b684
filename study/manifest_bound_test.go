package study

import (
	"strings"
	"testing"
)

// TestValidateBoundsJobList gives specs whose job lists would take more than the manifest's
// bound, counted from the axes: Validate refuses them with the bound before anything is
// listed (expanding 10⁶ jobs that each hold a 16 KiB value would take 32 GiB). A spec whose
// job list takes 875 MiB is accepted.
func TestValidateBoundsJobList(t *testing.T) {
	long := func(n, size int) []string {
		v := make([]string, n)
		for i := range v {
			v[i] = strings.Repeat("v", size-8) + Ints(10_000_000 + i)[0]
		}
		return v
	}
	cases := []struct {
		name string
		axes []Axis
		ok   bool
	}{
		{"16 KiB values × 10⁶ jobs", []Axis{{Name: "a", Values: long(1000, 16<<10)}, {Name: "b", Values: Ints(seq(1000)...)}}, false},
		{"64 KiB values × 7000 jobs (875 MiB)", []Axis{{Name: "a", Values: long(1000, 64<<10)}, {Name: "b", Values: Ints(seq(7)...)}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Spec{Name: "big", Axes: c.axes, Stages: []Stage{{Name: "run", Func: "f"}}}
			err := s.Validate()
			switch {
			case c.ok && err != nil:
				t.Fatalf("Validate: %v, want nil", err)
			case !c.ok && (err == nil || !strings.Contains(err.Error(), "manifest") || !strings.Contains(err.Error(), "1073741824")):
				t.Fatalf("Validate: %v, want an error naming the manifest's bound of 1073741824 bytes", err)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

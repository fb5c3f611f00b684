package sat

import (
	"math"
	"testing"
)

func TestSaturates(t *testing.T) {
	cases := []struct {
		name string
		got  int
		want int
	}{
		{"Mul small", Mul(3, 4), 12},
		{"Mul zero", Mul(0, math.MaxInt), 0},
		{"Mul wraps", Mul(math.MaxInt/4+1, 4), Max},
		{"Mul at Max", Mul(Max, 1), Max},
		{"Add", Add(2, 3), 5},
		{"Add wraps", Add(math.MaxInt, math.MaxInt), Max},
		{"Prod", Prod(2, 3, 4), 24},
		{"Prod none", Prod(), 1},
		{"Prod wraps", Prod(1<<30, 1<<30, 1<<30), Max},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

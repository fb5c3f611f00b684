package kernels

import (
	"testing"
	"unsafe"
)

// TestLanesLayout checks the offsets of Lanes that spline_amd64.h gives the assembly of the
// vector spline kernels (amd64 only: there is no such assembly elsewhere, and with 4-byte
// pointers the offsets after Rows differ).
func TestLanesLayout(t *testing.T) {
	var l Lanes
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"V", unsafe.Offsetof(l.V), 12288},
		{"Out", unsafe.Offsetof(l.Out), 12352},
		{"C", unsafe.Offsetof(l.C), 12480},
		{"S", unsafe.Offsetof(l.S), 13376},
		{"Rows", unsafe.Offsetof(l.Rows), 14016},
		{"Bins (after the assembly's fields)", unsafe.Offsetof(l.Bins), 14080},
	} {
		if c.got != c.want {
			t.Errorf("Lanes.%s at %d, the assembly expects %d", c.name, c.got, c.want)
		}
	}
}

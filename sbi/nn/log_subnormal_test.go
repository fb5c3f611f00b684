package nn

import (
	"math"
	"testing"
)

// TestTapeLogSubnormal: Tape.Log took math.Log, wrong on amd64 for subnormal values
// (golang/go#56600: −709.09 at both 5e−324 and 1e−310); a log of a probability or a weight
// that underflows reaches it. Its values are checked against ln 2⁻¹⁰⁷⁴ = −1074·ln 2 and
// ln(1e−310) (to 40 digits), and at ordinary values against math.Log bit for bit.
func TestTapeLogSubnormal(t *testing.T) {
	in := []float64{5e-324, 1e-310, 0.5, 3, 2.2250738585072014e-308}
	want := []float64{-744.4400719213812623141072984460816341131, -713.8013788281541651006446006623883741382,
		math.Log(0.5), math.Log(3), math.Log(2.2250738585072014e-308)}
	tp := NewTape()
	out := tp.Log(tp.Const(1, len(in), in))
	for i, x := range in {
		got := out.Data[i]
		if x >= 0x1p-1022 {
			if math.Float64bits(got) != math.Float64bits(want[i]) {
				t.Errorf("Log(%v) = %v, want math.Log's %v", x, got, want[i])
			}
			continue
		}
		if math.Abs(got-want[i]) > 2e-13 {
			t.Errorf("Log(%v) = %v, want %v", x, got, want[i])
		}
	}
}

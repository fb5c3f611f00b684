package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSampleSizeOverflow asks for so many points (MaxInt/2 + 1, on 32-bit and 64-bit
// platforms alike) that n × Dim does not fit an int: Sample
// panics saying so, not with an index out of range after allocating a wrapped size.
func TestSampleSizeOverflow(t *testing.T) {
	box := NewBoxUniform([]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1})
	for _, c := range []struct {
		name string
		d    Distribution
	}{
		{"BoxUniform", box},
		{"Independent", NewIndependent(box, box)},
		{"MultivariateNormal", NewMultivariateNormal([]float64{0, 0, 0, 0}, mat.NewDiagDense(4, []float64{1, 1, 1, 1}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if want := "more values than an int can count"; !strings.Contains(msg, want) {
					t.Fatalf("panic %q, want one containing %q", msg, want)
				}
			}()
			c.d.Sample(rand.New(rand.NewPCG(1, 2)), math.MaxInt/2+1)
		})
	}
}

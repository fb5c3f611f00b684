package diag

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMustFormsPanic: the cell forms panic with the error of the function they call.
func TestMustFormsPanic(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func()
		want string
	}{
		{"MustMisspecification", func() { MustMisspecification(nil, mat.NewDense(50, 2, nil), []float64{1}, MisspecConfig{}) }, "1 values"},
		{"MustSBCECDF", func() { MustSBCECDF(nil, 0) }, "needs SBC ranks"},
		{"MustMCMCHealth", func() { MustMCMCHealth("x", nil) }, "no chains"},
	} {
		func() {
			defer func() {
				r := recover()
				if err, ok := r.(error); !ok || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: recovered %v, want an error mentioning %q", c.name, r, c.want)
				}
			}()
			c.run()
		}()
	}
	if r := MustMisspecification(nil, gaussianDraws(3, 100), []float64{0, 0}, MisspecConfig{}); r == nil {
		t.Error("MustMisspecification returned nil")
	}
}

func gaussianDraws(seed uint64, n int) *mat.Dense { return normalSample(seed, n, 0, 0) }

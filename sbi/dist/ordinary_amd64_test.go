package dist

import (
	"fmt"
	"math"
	"testing"
)

// ordinaryCase is a log-density or a transform's logarithm at an ordinary point (no subnormal
// argument anywhere), named for the failure message.
type ordinaryCase struct {
	name string
	f    func() float64
}

// ordinaryCases are the log-densities and transforms that take logarithms of coordinates,
// parameters or widths, at ordinary points of every branch.
func ordinaryCases() []ordinaryCase {
	var cs []ordinaryCase
	add := func(name string, f func() float64) { cs = append(cs, ordinaryCase{name, f}) }
	for _, p := range [][2]float64{{0.5, 1}, {2, 3}, {1e7, 1e7}, {1e7, 2}} {
		for _, x := range []float64{1e-300, 0.3, 1, 2.5} {
			add(fmt.Sprintf("Gamma(%g, %g) at %g", p[0], p[1], x), func() float64 { return at(NewGamma([]float64{p[0]}, []float64{p[1]}), x) })
		}
	}
	for _, p := range [][2]float64{{0.5, 0.5}, {2, 5}, {1e7, 2}, {2, 1e7}, {1e7, 3e7}} {
		for _, x := range []float64{1e-300, 1e-7, 0.25, 0.5, 1 - 1e-7} {
			add(fmt.Sprintf("Beta(%g, %g) at %g", p[0], p[1], x), func() float64 { return at(NewBeta([]float64{p[0]}, []float64{p[1]}), x) })
		}
	}
	for _, x := range []float64{1e-300, 0.5, 3} {
		add(fmt.Sprintf("LogNormal(0.2, 0.7) at %g", x), func() float64 { return at(NewLogNormal([]float64{0.2}, []float64{0.7}), x) })
		add(fmt.Sprintf("Normal(1, 0.3) at %g", x), func() float64 { return at(NewNormal([]float64{1}, []float64{0.3}), x) })
	}
	add("BoxUniform[-1, 2.5]×[0, 1e-300]", func() float64 { return at(NewBoxUniform([]float64{-1, 0}, []float64{2.5, 1e-300}), 0, 0) })
	add("Affine scale (-0.3, 7)", func() float64 {
		return Affine{Shift: []float64{0, 0}, Scale: []float64{-0.3, 7}}.LogAbsDetJacobian([]float64{1, 1})
	})
	add("Exp inverse at (1e-300, 0.4, 9)", func() float64 {
		x := make([]float64, 3)
		Exp{}.Inverse([]float64{1e-300, 0.4, 9}, x)
		return x[0] + 2*x[1] + 3*x[2]
	})
	for _, c := range []struct {
		lo, hi float64
		th     []float64
	}{
		{0, 1, []float64{1e-300, 0.3}}, {-2, 3, []float64{1e-300, 0.3}}, {0, math.Inf(1), []float64{1e-300, 0.3}},
		{math.Inf(-1), 0, []float64{-1e-300, -0.3}}, {-math.MaxFloat64, math.MaxFloat64, []float64{-1e-300, 0.3}},
	} {
		m := SupportMap{Low: []float64{c.lo}, High: []float64{c.hi}}
		for _, th := range c.th {
			add(fmt.Sprintf("SupportMap[%g, %g] at %g", c.lo, c.hi, th), func() float64 {
				u := make([]float64, 1)
				m.Inverse([]float64{th}, u)
				return u[0] + m.LogAbsDetJacobian([]float64{0.7})
			})
		}
	}
	return cs
}

// TestOrdinaryLogBits checks that the log-densities and transforms whose logarithms became
// mathx.Log keep, at ordinary points of every branch, the bits they had with math.Log, so that
// saved results stay valid.
func TestOrdinaryLogBits(t *testing.T) {
	cs := ordinaryCases()
	if len(cs) != len(ordinaryBits) {
		t.Fatalf("%d cases, %d recorded values", len(cs), len(ordinaryBits))
	}
	for i, c := range cs {
		if got := c.f(); math.Float64bits(got) != ordinaryBits[i] {
			t.Errorf("%s = %v (%#016x), want the recorded %v (%#016x)", c.name, got, math.Float64bits(got),
				math.Float64frombits(ordinaryBits[i]), ordinaryBits[i])
		}
	}
}

// ordinaryBits are the values of ordinaryCases, in order, as computed on amd64 (where no
// multiply-add is fused, hence a file for amd64 only) with math.Log before the logarithms of
// this package became mathx.Log.
var ordinaryBits = [...]uint64{
	0x40758d0bdfd40be4, // Gamma(0.5, 1) at 1e-300
	0xbfd14de1cb87286b, // Gamma(0.5, 1) at 0.3
	0xbff928682473d0de, // Gamma(0.5, 1) at 1
	0xc00c3e7c3056047e, // Gamma(0.5, 1) at 2.5
	0xc08584a05d7dd2b2, // Gamma(2, 3) at 1e-300
	0x3fb7df59235f88d0, // Gamma(2, 3) at 0.3
	0xbfe9b056154bf3d8, // Gamma(2, 3) at 1
	0xc0118bc2a48d626c, // Gamma(2, 3) at 2.5
	0xc1f9b2361d511062, // Gamma(1e+07, 1e+07) at 1e-300
	0xc1533999ecbf5209, // Gamma(1e+07, 1e+07) at 0.3
	0x401c8f78cee192ac, // Gamma(1e+07, 1e+07) at 1
	0xc15644479d46b1fe, // Gamma(1e+07, 1e+07) at 2.5
	0xc1fa4550ae1c53e6, // Gamma(1e+07, 2) at 1e-300
	0xc1a2a1916a019e51, // Gamma(1e+07, 2) at 0.3
	0xc1a132250f20b428, // Gamma(1e+07, 2) at 1
	0xc1a01a83e052a61f, // Gamma(1e+07, 2) at 2.5
	0x407583e377af9813, // Beta(0.5, 0.5) at 1e-300
	0x401ba842f99e6acd, // Beta(0.5, 0.5) at 1e-07
	0xbfd3b20a1d0fa54c, // Beta(0.5, 0.5) at 0.25
	0xbfdce6bb25aa1316, // Beta(0.5, 0.5) at 0.5
	0x401ba842f9a2f045, // Beta(0.5, 0.5) at 0.9999999
	0xc0857afea0ff73de, // Beta(2, 5) at 1e-300
	0xc0296f0d57a65897, // Beta(2, 5) at 1e-07
	0x3feba751c3d12f6c, // Beta(2, 5) at 0.25
	0xbfb08598b59e3a00, // Beta(2, 5) at 0.5
	0xc04e891c99c7dc8a, // Beta(2, 5) at 0.9999999
	0xc1f9bbbf83bf86d5, // Beta(1e+07, 2) at 1e-300
	0xc1a336d9d84f82fd, // Beta(1e+07, 2) at 1e-07
	0xc16a70ffc8d83ac8, // Beta(1e+07, 2) at 0.25
	0xc15a70fbe4712e77, // Beta(1e+07, 2) at 0.5
	0x402e3c770d85d261, // Beta(1e+07, 2) at 0.9999999
	0xc08494508fa72914, // Beta(2, 1e+07) at 1e-300
	0x402e3c770d85d261, // Beta(2, 1e+07) at 1e-07
	0xc145f2bacb20cea3, // Beta(2, 1e+07) at 0.25
	0xc15a70fbe4712e77, // Beta(2, 1e+07) at 0.5
	0xc1a336d9d85234e4, // Beta(2, 1e+07) at 0.9999999
	0xc1f9a64bf776cf36, // Beta(1e+07, 3e+07) at 1e-300
	0xc1a0886855388f24, // Beta(1e+07, 3e+07) at 1e-07
	0x4021572a4f8eece7, // Beta(1e+07, 3e+07) at 0.25
	0xc153f5d643867a4e, // Beta(1e+07, 3e+07) at 0.5
	0xc1bb7b0e61a53a81, // Beta(1e+07, 3e+07) at 0.9999999
	0xc11db19325c74aea, // LogNormal(0.2, 0.7) at 1e-300
	0xc01515038816119d, // Normal(1, 0.3) at 1e-300
	0xbfe5dc0594599b09, // LogNormal(0.2, 0.7) at 0.5
	0xbff1a96375ad9bc8, // Normal(1, 0.3) at 0.5
	0xc003e0fe11994c87, // LogNormal(0.2, 0.7) at 3
	0xc035efeb8cb02f13, // Normal(1, 0.3) at 3
	0x40858c2e9f612516, // BoxUniform[-1, 2.5]×[0, 1e-300]
	0x3fe7bdf362e9666c, // Affine scale (-0.3, 7)
	0xc0857021a900e91c, // Exp inverse at (1e-300, 0.4, 9)
	0xc085a24154c8fbf9, // SupportMap[0, 1] at 1e-300
	0xc002d450ea3eef3a, // SupportMap[0, 1] at 0.3
	0xbfd35a8290eb8020, // SupportMap[-2, 3] at 1e-300
	0xbfad5363add366b0, // SupportMap[-2, 3] at 0.3
	0xc085909aae5ee61b, // SupportMap[0, +Inf] at 1e-300
	0xbfe0208b9314e7dc, // SupportMap[0, +Inf] at 0.3
	0x4085909aae5ee61b, // SupportMap[-Inf, 0] at -1e-300
	0x3fe0208b9314e7dc, // SupportMap[-Inf, 0] at -0.3
	0x408627c182e97c39, // SupportMap[-1.7976931348623157e+308, 1.7976931348623157e+308] at -1e-300
	0x408627c182e97c39, // SupportMap[-1.7976931348623157e+308, 1.7976931348623157e+308] at 0.3
}

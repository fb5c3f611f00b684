//go:build amd64 && !noasm

package kernels

//go:noescape
func reluAVX(y []float64)

//go:noescape
func reluBackAVX(y, gy, g []float64, add int)

//go:noescape
func tanhBackAVX(y, gy, g []float64, add int)

//go:noescape
func expAVX2(dst, src []float64) int

//go:noescape
func logAVX2(dst, src []float64) int

//go:noescape
func tanhAVX2(dst, src []float64)

//go:noescape
func tanhAVX512(dst, src []float64)

//go:noescape
func tanh32AVX512(dst, src []float32)

//go:noescape
func eluAVX2(dst, src []float64, c *[2]float64)

//go:noescape
func eluBackAVX(y, gy, g []float64, c *[2]float64)

//go:noescape
func adamAVX(x, g, m, v []float64, c *[7]float64)

// Relu is ReluGo, four values at a time where the CPU has AVX2.
func Relu(y []float64) {
	n := 0
	if AVX2 {
		n = len(y) &^ 3
		reluAVX(y[:n])
	}
	ReluGo(y[n:])
}

// ReluBack is ReluBackGo, four values at a time where the CPU has AVX2.
func ReluBack(y, gy, g []float64) {
	n := 0
	if AVX2 {
		n = len(y) &^ 3
		reluBackAVX(y[:n], gy[:n], g[:n], 0)
	}
	ReluBackGo(y[n:], gy[n:], g[n:])
}

// ReluBackAdd is ReluBackAddGo, four values at a time where the CPU has AVX2 (the same bits).
func ReluBackAdd(y, gy, g []float64) {
	n := 0
	if AVX2 {
		n = len(y) &^ 3
		reluBackAVX(y[:n], gy[:n], g[:n], 1)
	}
	ReluBackAddGo(y[n:], gy[n:], g[n:])
}

// TanhBack is TanhBackGo, four values at a time where the CPU has AVX2 (the same bits).
func TanhBack(y, gy, g []float64) {
	n := 0
	if AVX2 {
		n = len(y) &^ 3
		tanhBackAVX(y[:n], gy[:n], g[:n], 0)
	}
	TanhBackGo(y[n:], gy[n:], g[n:])
}

// TanhBackAdd is TanhBackAddGo, four values at a time where the CPU has AVX2 (the same bits).
func TanhBackAdd(y, gy, g []float64) {
	n := 0
	if AVX2 {
		n = len(y) &^ 3
		tanhBackAVX(y[:n], gy[:n], g[:n], 1)
	}
	TanhBackAddGo(y[n:], gy[n:], g[n:])
}

// Adam is AdamGo, four values at a time where the CPU has AVX2.
func Adam(x, g, m, v []float64, c *[7]float64) {
	n := 0
	if AVX2 {
		n = len(x) &^ 3
		adamAVX(x[:n], g[:n], m[:n], v[:n], c)
	}
	AdamGo(x[n:], g[n:], m[n:], v[n:], c)
}

// Exp is ExpGo, four values at a time where the CPU has AVX2. Every value gets the same bits
// wherever it lies in src: the values the vector kernel leaves (a group outside its range,
// the last len%4) are computed one at a time by ExpOne, its scalar twin.
func Exp(dst, src []float64) {
	if !AVX2 {
		ExpGo(dst, src)
		return
	}
	withScalarTwin(dst, src, false)
}

// Log is LogGo, four values at a time where the CPU has AVX2 (as Exp, with LogOne).
func Log(dst, src []float64) {
	if !AVX2 {
		LogGo(dst, src)
		return
	}
	withScalarTwin(dst, src, true)
}

// withScalarTwin runs the vector kernel of exp (or of log), which stops before the first group
// of four outside its range (returning the number of values done), and computes those groups
// and the last len%4 values one at a time with its scalar twin. The kernels are named, not
// passed as function values, so that dst and src do not escape: a caller's buffer on the
// stack stays there (EluGo's).
func withScalarTwin(dst, src []float64, log bool) {
	one := func(v float64) float64 {
		if log {
			return LogOne(v)
		}
		return ExpOne(v)
	}
	i := 0
	for len(src)-i >= 4 {
		if log {
			i += logAVX2(dst[i:], src[i:len(src)&^3])
		} else {
			i += expAVX2(dst[i:], src[i:len(src)&^3])
		}
		if len(src)-i < 4 {
			break
		}
		for _, v := range src[i : i+4] { // a group outside the kernel's range
			dst[i] = one(v)
			i++
		}
	}
	for ; i < len(src); i++ {
		dst[i] = one(src[i])
	}
}

// Elu is EluGo, four values at a time where the CPU has AVX2.
func Elu(dst, src []float64, scale, sa float64) {
	n := 0
	if AVX2 {
		n = len(src) &^ 3
		eluAVX2(dst[:n], src[:n], &[2]float64{scale, sa})
	}
	EluGo(dst[n:], src[n:], scale, sa)
}

// EluBack is EluBackGo, four values at a time where the CPU has AVX2.
func EluBack(y, gy, g []float64, scale, sa float64) {
	n := 0
	if AVX2 {
		n = len(y) &^ 3
		eluBackAVX(y[:n], gy[:n], g[:n], &[2]float64{scale, sa})
	}
	EluBackGo(y[n:], gy[n:], g[n:], scale, sa)
}

// Tanh is TanhGo, eight values at a time where the CPU has AVX-512 and four where it has AVX2,
// with the same bits for every value (the vector kernels compute exactly TanhGo's operations;
// the last values, fewer than a vector, go through TanhGo).
func Tanh(dst, src []float64) {
	n := 0
	switch {
	case AVX512:
		n = len(src) &^ 7
		tanhAVX512(dst[:n], src[:n])
	case AVX2:
		n = len(src) &^ 3
		tanhAVX2(dst[:n], src[:n])
	}
	TanhGo(dst[n:len(src)], src[n:])
}

// Tanh32 is Tanh32Go, sixteen values at a time where the CPU has AVX-512, with the same bits
// for every value (the vector kernel computes exactly Tanh32Go's operations; the last len%16
// values go through Tanh32Go).
func Tanh32(dst, src []float32) {
	n := 0
	if AVX512 {
		n = len(src) &^ 15
		tanh32AVX512(dst[:n], src[:n])
	}
	Tanh32Go(dst[n:len(src)], src[n:])
}

//go:noescape
func colSumAVX(dst, src []float64, rows, stride int)

// ColSumAdd is ColSumAddGo, sixteen, four, two or one column at a time where the CPU has
// AVX2. Each column is summed row by row as in the reference, so the results have the same
// bits.
func ColSumAdd(dst, src []float64, rows, stride int) {
	if rows <= 0 || len(dst) == 0 {
		return
	}
	_ = src[(rows-1)*stride+len(dst)-1] // the last value read, in bounds
	if !AVX2 {
		ColSumAddGo(dst, src, rows, stride)
		return
	}
	colSumAVX(dst, src, rows, stride)
}

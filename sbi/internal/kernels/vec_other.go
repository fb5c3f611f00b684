//go:build !amd64 || noasm

package kernels

// Without assembly every vector kernel is its reference loop.

// Relu is ReluGo.
func Relu(y []float64) { ReluGo(y) }

// ReluBack is ReluBackGo.
func ReluBack(y, gy, g []float64) { ReluBackGo(y, gy, g) }

// Adam is AdamGo.
func Adam(x, g, m, v []float64, c *[7]float64) { AdamGo(x, g, m, v, c) }

// Exp is ExpGo.
func Exp(dst, src []float64) { ExpGo(dst, src) }

// Log is LogGo.
func Log(dst, src []float64) { LogGo(dst, src) }

// Elu is EluGo.
func Elu(dst, src []float64, scale, sa float64) { EluGo(dst, src, scale, sa) }

// EluBack is EluBackGo.
func EluBack(y, gy, g []float64, scale, sa float64) { EluBackGo(y, gy, g, scale, sa) }

// Tanh is TanhGo.
func Tanh(dst, src []float64) { TanhGo(dst, src) }

// Tanh32 is Tanh32Go.
func Tanh32(dst, src []float32) { Tanh32Go(dst, src) }

// TanhBack is TanhBackGo.
func TanhBack(y, gy, g []float64) { TanhBackGo(y, gy, g) }

// TanhBackAdd is TanhBackAddGo.
func TanhBackAdd(y, gy, g []float64) { TanhBackAddGo(y, gy, g) }

// ReluBackAdd is ReluBackAddGo.
func ReluBackAdd(y, gy, g []float64) { ReluBackAddGo(y, gy, g) }

// ColSumAdd is ColSumAddGo.
func ColSumAdd(dst, src []float64, rows, stride int) { ColSumAddGo(dst, src, rows, stride) }

//go:build !amd64 || noasm

package kernels

// Without assembly every vector kernel is its reference loop.

func Relu(y []float64)                              { ReluGo(y) }
func ReluBack(y, gy, g []float64)                   { ReluBackGo(y, gy, g) }
func Adam(x, g, m, v []float64, c *[7]float64)      { AdamGo(x, g, m, v, c) }
func Exp(dst, src []float64)                        { ExpGo(dst, src) }
func Log(dst, src []float64)                        { LogGo(dst, src) }
func Elu(dst, src []float64, scale, sa float64)     { EluGo(dst, src, scale, sa) }
func EluBack(y, gy, g []float64, scale, sa float64) { EluBackGo(y, gy, g, scale, sa) }

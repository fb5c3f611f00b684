//go:build amd64 && !noasm

package nn

//go:noescape
func reluAVX(y []float64)

//go:noescape
func reluBackAVX(y, gy, g []float64)

//go:noescape
func adamAVX(x, g, m, v []float64, c *[7]float64)

func reluVec(y []float64) {
	n := 0
	if hasAVX2 {
		n = len(y) &^ 3
		reluAVX(y[:n])
	}
	reluGo(y[n:])
}

func reluBackVec(y, gy, g []float64) {
	n := 0
	if hasAVX2 {
		n = len(y) &^ 3
		reluBackAVX(y[:n], gy[:n], g[:n])
	}
	reluBackGo(y[n:], gy[n:], g[n:])
}

func adamVec(x, g, m, v []float64, c *[7]float64) {
	n := 0
	if hasAVX2 {
		n = len(x) &^ 3
		adamAVX(x[:n], g[:n], m[:n], v[:n], c)
	}
	adamGo(x[n:], g[n:], m[n:], v[n:], c)
}

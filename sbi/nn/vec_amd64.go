//go:build amd64 && !noasm

package nn

import "math"

//go:noescape
func reluAVX(y []float64)

//go:noescape
func reluBackAVX(y, gy, g []float64)

//go:noescape
func expAVX2(dst, src []float64) int

//go:noescape
func logAVX2(dst, src []float64) int

//go:noescape
func eluAVX2(dst, src []float64, c *[2]float64)

//go:noescape
func eluBackAVX(y, gy, g []float64, c *[2]float64)

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

// expVec sets dst[i] = e^src[i] (dst and src may be the same slice).
func expVec(dst, src []float64) {
	i := 0
	if hasAVX2 {
		for len(src)-i >= 4 {
			i += expAVX2(dst[i:], src[i:len(src)&^3])
			if len(src)-i < 4 {
				break
			}
			for _, v := range src[i : i+4] { // a group outside the fast path's range
				dst[i] = math.Exp(v)
				i++
			}
		}
	}
	expGo(dst[i:], src[i:])
}

// eluVec sets dst[i] = scale·x for x > 0 and sa·(eˣ − 1) otherwise (see eluGo).
func eluVec(dst, src []float64, scale, sa float64) {
	n := 0
	if hasAVX2 {
		n = len(src) &^ 3
		eluAVX2(dst[:n], src[:n], &[2]float64{scale, sa})
	}
	eluGo(dst[n:], src[n:], scale, sa)
}

// eluBack sets g[i] = gy[i]·f'(x_i) for ELU-type outputs y (see eluBackGo).
func eluBack(y, gy, g []float64, scale, sa float64) {
	n := 0
	if hasAVX2 {
		n = len(y) &^ 3
		eluBackAVX(y[:n], gy[:n], g[:n], &[2]float64{scale, sa})
	}
	eluBackGo(y[n:], gy[n:], g[n:], scale, sa)
}

// logVec sets dst[i] = ln src[i] (dst and src may be the same slice).
func logVec(dst, src []float64) {
	i := 0
	if hasAVX2 {
		for len(src)-i >= 4 {
			i += logAVX2(dst[i:], src[i:len(src)&^3])
			if len(src)-i < 4 {
				break
			}
			for _, v := range src[i : i+4] { // a group outside the fast path's range
				dst[i] = math.Log(v)
				i++
			}
		}
	}
	logGo(dst[i:], src[i:])
}

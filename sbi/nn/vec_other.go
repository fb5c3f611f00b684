//go:build !amd64 || noasm

package nn

import "math"

func reluVec(y []float64)                           { reluGo(y) }
func reluBackVec(y, gy, g []float64)                { reluBackGo(y, gy, g) }
func adamVec(x, g, m, v []float64, c *[7]float64)   { adamGo(x, g, m, v, c) }
func expVec(dst, src []float64)                     { expGo(dst, src) }
func eluVec(dst, src []float64, scale, sa float64)  { eluGo(dst, src, scale, sa) }
func eluBack(y, gy, g []float64, scale, sa float64) { eluBackGo(y, gy, g, scale, sa) }
func logVec(dst, src []float64)                     { logGo(dst, src) }
func logOne(x float64) float64                      { return math.Log(x) }

// Without the vector spline kernel every spline takes the scalar path (see byLanes).
const splineLaneCount = 0

func splineKernel(*splineLanes, int, int) bool { return false }

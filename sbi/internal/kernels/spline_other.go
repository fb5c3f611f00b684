//go:build !amd64 || noasm

package kernels

// LaneCount is 0: without the vector spline kernel every spline takes the scalar path.
var LaneCount = 0

// RunLanes reports false: there is no vector spline kernel in this build.
func RunLanes(*Lanes, int, int) bool { return false }

// LaneCounts returns {0}: there is no vector spline kernel.
func LaneCounts() []int { return []int{0} }

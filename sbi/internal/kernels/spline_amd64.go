//go:build amd64 && !noasm

package kernels

//go:noescape
func rqsLanesAVX2(l *Lanes, k, mode int) bool

//go:noescape
func rqsLanesAVX512(l *Lanes, k, mode int) bool

// LaneCount is the number of splines the vector spline kernel in use evaluates at once: 8
// with AVX-512, 4 with AVX2, 0 without either (tests set it to a narrower kernel the CPU can
// run).
var LaneCount = laneCountFor(AVX2, AVX512)

func laneCountFor(avx2, avx512 bool) int {
	switch {
	case avx512:
		return 8
	case avx2:
		return 4
	}
	return 0
}

// RunLanes evaluates the LaneCount splines of l, of k bins each, in the given mode and
// reports true, or reports false where some lane's spline is outside the kernel's range or
// there is no kernel (the caller then takes its scalar path).
func RunLanes(l *Lanes, k, mode int) bool {
	switch LaneCount {
	case 8:
		return rqsLanesAVX512(l, k, mode)
	case 4:
		return rqsLanesAVX2(l, k, mode)
	}
	return false
}

// LaneCounts returns the lane counts of the vector spline kernels this CPU can run, widest
// first ({0} where there is none), for tests to try each.
func LaneCounts() []int {
	switch {
	case AVX512:
		return []int{8, 4}
	case AVX2:
		return []int{4}
	}
	return []int{0}
}

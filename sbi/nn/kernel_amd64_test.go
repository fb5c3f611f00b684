//go:build amd64 && !noasm

package nn

import "github.com/gosbi/gosbi/sbi/internal/kernels"

// kernelWidths returns the micro-kernel widths this CPU can run.
func kernelWidths() []int {
	switch {
	case kernels.AVX512:
		return []int{16, 8}
	case kernels.AVX2:
		return []int{8}
	}
	return []int{0}
}

// useKernelWidth selects a micro-kernel width and returns a function restoring the previous.
func useKernelWidth(w int) func() {
	old := gemmNR
	if w > 0 {
		gemmNR = w
	}
	return func() { gemmNR = old }
}

func kernelWidth() int {
	if !kernels.AVX2 {
		return 0
	}
	return gemmNR
}

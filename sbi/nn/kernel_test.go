package nn

import "github.com/gosbi/gosbi/sbi/internal/kernels"

// kernelWidths returns the micro-kernel widths this CPU can run.
func kernelWidths() []int { return kernels.GemmWidths() }

// useKernelWidth selects a micro-kernel width and returns a function restoring the previous.
func useKernelWidth(w int) func() { return kernels.SetGemmWidth(w) }

func kernelWidth() int { return kernels.GemmWidth() }

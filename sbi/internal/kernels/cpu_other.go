//go:build !amd64 || noasm

package kernels

// AVX2 and AVX512 are false without assembly: every kernel runs its reference loop.
var (
	AVX2   = false
	AVX512 = false
)

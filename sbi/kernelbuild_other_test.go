//go:build !amd64 || noasm

package sbi

// fastKernelBuild is false where every product goes through gonum's BLAS, whose Dgemm
// allocates for its goroutines.
const fastKernelBuild = false

//go:build !amd64 || noasm

package nn

// fastKernelBuild is false where every product goes through gonum's BLAS.
const fastKernelBuild = false

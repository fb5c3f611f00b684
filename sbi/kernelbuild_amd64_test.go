//go:build amd64 && !noasm

package sbi

// fastKernelBuild is true where the products may run on the engine's own kernels, which
// allocate nothing.
const fastKernelBuild = true

//go:build amd64 && !noasm

package nn

// fastKernelBuild is true where the products may run on the package's own kernel.
const fastKernelBuild = true

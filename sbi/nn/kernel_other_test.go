//go:build !amd64 || noasm

package nn

func kernelWidths() []int       { return []int{0} }
func useKernelWidth(int) func() { return func() {} }
func kernelWidth() int          { return 0 }

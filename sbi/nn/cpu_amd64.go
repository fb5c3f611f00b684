//go:build amd64 && !noasm

package nn

func cpuid(eax, ecx uint32) (a, b, c, d uint32)
func xgetbv() uint32

// hasAVX2 reports whether the CPU and OS support AVX2 and FMA, which the assembly kernels
// (matrix product, ReLU, Adam) need; without them the portable Go code runs.
var hasAVX2 = detectAVX2()

func detectAVX2() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xgetbv()&6 != 6 { // the OS saves XMM and YMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0 // AVX2
}

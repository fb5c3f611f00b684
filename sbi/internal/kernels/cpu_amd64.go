//go:build amd64 && !noasm

package kernels

func cpuid(eax, ecx uint32) (a, b, c, d uint32)
func xgetbv() uint32

// AVX2 reports whether the CPU and OS support AVX2 and FMA, which every assembly kernel
// needs; without them the reference loops run.
var AVX2 = detectAVX2()

// AVX512 reports whether the CPU and OS support AVX-512F with ZMM state saved: the kernels of
// eight float64 (sixteen float32) lanes run.
var AVX512 = AVX2 && detectAVX512()

func detectAVX512() bool {
	if xgetbv()&0xe6 != 0xe6 { // XMM, YMM, opmask and both halves of the ZMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<16) != 0 // AVX512F
}

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

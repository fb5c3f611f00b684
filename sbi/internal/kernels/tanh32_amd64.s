//go:build amd64 && !noasm

#include "textflag.h"

// The constants of tanh32AVX512, one float32 (or int32) each, read by broadcast.
DATA ·tanh32c+0(SB)/4, $0x7fffffff  // |x| mask
DATA ·tanh32c+4(SB)/4, $127         // the float32 exponent bias
DATA ·tanh32c+8(SB)/4, $0x41100000  // 9
DATA ·tanh32c+12(SB)/4, $0x3f800000 // 1
DATA ·tanh32c+16(SB)/4, $0x3f200000 // 0.625
DATA ·tanh32c+20(SB)/4, $0x3fb8aa3b // log2 e
DATA ·tanh32c+24(SB)/4, $0x3f318000 // c1 = 0.693359375
DATA ·tanh32c+28(SB)/4, $0xb95e8083 // c2 = −2.12194440e−4
DATA ·tanh32c+32(SB)/4, $0x39506967 // e5 = 1.9875691500e−4
DATA ·tanh32c+36(SB)/4, $0x3ab743ce // e4 = 1.3981999507e−3
DATA ·tanh32c+40(SB)/4, $0x3c088908 // e3 = 8.3334519073e−3
DATA ·tanh32c+44(SB)/4, $0x3d2aa9c1 // e2 = 4.1665795894e−2
DATA ·tanh32c+48(SB)/4, $0x3e2aaaaa // e1 = 1.6666665459e−1
DATA ·tanh32c+52(SB)/4, $0x3f000000 // e0 = 5.0000001201e−1
DATA ·tanh32c+56(SB)/4, $0x40000000 // 2
DATA ·tanh32c+60(SB)/4, $0xbbbaf0ea // p4 = −5.70498872745e−3
DATA ·tanh32c+64(SB)/4, $0x3ca9134e // p3 = 2.06390887954e−2
DATA ·tanh32c+68(SB)/4, $0xbd5c1e2d // p2 = −5.37397155531e−2
DATA ·tanh32c+72(SB)/4, $0x3e088393 // p1 = 1.33314422036e−1
DATA ·tanh32c+76(SB)/4, $0xbeaaaa99 // p0 = −3.33332819422e−1
GLOBL ·tanh32c(SB), RODATA|NOPTR, $80

// func tanh32AVX512(dst, src []float32)
// dst[i] = tanh(src[i]) for len(src) a multiple of 16: Tanh32Go's operations, sixteen values
// at a time, both branches computed and the small one blended in where |x| < 0.625 (false for
// NaN, which the large branch carries through).
TEXT ·tanh32AVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $4, CX
	JE   done
	LEAQ ·tanh32c(SB), R9
	VPBROADCASTD 0(R9), Z20  // |x| mask
	VBROADCASTSS 8(R9), Z21  // 9
	VBROADCASTSS 12(R9), Z22 // 1
	VBROADCASTSS 16(R9), Z23 // 0.625
	VBROADCASTSS 56(R9), Z24 // 2

loop:
	VMOVUPS (SI), Z0
	VPANDD  Z20, Z0, Z1 // a = |x|
	VMINPS  Z1, Z21, Z2 // min(a, 9); a NaN a is returned
	VADDPS  Z2, Z2, Z2  // v = 2·min(a, 9)

	// e^v (Exp32One)
	VMULPS.BCST 20(R9), Z2, Z3 // v·log2 e
	VRNDSCALEPS $0, Z3, Z3     // n, to even
	VMULPS.BCST 24(R9), Z3, Z4 // n·c1
	VSUBPS      Z4, Z2, Z4     // r = v − n·c1
	VMULPS.BCST 28(R9), Z3, Z5 // n·c2
	VSUBPS      Z5, Z4, Z4     // r −= n·c2
	VMULPS.BCST 32(R9), Z4, Z5 // q = e5·r
	VADDPS.BCST 36(R9), Z5, Z5
	VMULPS      Z4, Z5, Z5
	VADDPS.BCST 40(R9), Z5, Z5
	VMULPS      Z4, Z5, Z5
	VADDPS.BCST 44(R9), Z5, Z5
	VMULPS      Z4, Z5, Z5
	VADDPS.BCST 48(R9), Z5, Z5
	VMULPS      Z4, Z5, Z5
	VADDPS.BCST 52(R9), Z5, Z5 // q
	VMULPS      Z4, Z4, Z6     // r²
	VMULPS      Z6, Z5, Z5     // q·r²
	VADDPS      Z4, Z5, Z5     // + r
	VADDPS      Z22, Z5, Z5    // + 1
	VCVTPS2DQ   Z3, Z6         // n as an integer (exact)
	VPADDD.BCST 4(R9), Z6, Z6
	VPSLLD      $23, Z6, Z6    // 2^n
	VMULPS      Z6, Z5, Z5     // e^v

	VADDPS  Z22, Z5, Z5 // e^v + 1
	VDIVPS  Z5, Z24, Z5 // 2/(e^v + 1)
	VSUBPS  Z5, Z22, Z5 // 1 − 2/(e^v + 1)
	VPANDND Z0, Z20, Z7 // the sign of x
	VPXORD  Z7, Z5, Z5  // negated where x < 0

	// x + x·z·P(z) for |x| < 0.625
	VMULPS      Z0, Z0, Z8      // z = x²
	VMULPS.BCST 60(R9), Z8, Z9  // p4·z
	VADDPS.BCST 64(R9), Z9, Z9
	VMULPS      Z8, Z9, Z9
	VADDPS.BCST 68(R9), Z9, Z9
	VMULPS      Z8, Z9, Z9
	VADDPS.BCST 72(R9), Z9, Z9
	VMULPS      Z8, Z9, Z9
	VADDPS.BCST 76(R9), Z9, Z9  // P
	VMULPS      Z8, Z9, Z9      // P·z
	VMULPS      Z0, Z9, Z9      // ·x
	VADDPS      Z9, Z0, Z9      // x + x·z·P
	VCMPPS      $0x11, Z23, Z1, K1 // a < 0.625 (false for NaN)
	VMOVAPS     Z9, K1, Z5

	VMOVUPS Z5, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNE     loop

done:
	VZEROUPPER
	RET

//go:build amd64 && !noasm

#include "textflag.h"
#include "vec_amd64.h"

// The constants of tanhAVX2, four copies of each (one 32-byte row per constant).
#define TANHC(off, bits) \
	DATA ·tanhc+(off)(SB)/8, $bits \
	DATA ·tanhc+(off+8)(SB)/8, $bits \
	DATA ·tanhc+(off+16)(SB)/8, $bits \
	DATA ·tanhc+(off+24)(SB)/8, $bits

TANHC(0, 0x7fffffffffffffff)   // |x| mask
TANHC(32, 0x4036000000000000)  // 22
TANHC(64, 0xc000000000000000)  // −2
TANHC(96, 0x3ff0000000000000)  // 1
TANHC(128, 0x3fe4000000000000) // 0.625
TANHC(160, 0xbfeedc5baafd6f4b) // p0 = −9.64399179425052238628e−1
TANHC(192, 0xc058d26a0e26682d) // p1 = −9.92877231001918586564e1
TANHC(224, 0xc0993ac030580563) // p2 = −1.61468768441708447952e3
TANHC(256, 0x405c33f28a581b86) // q0 = 1.12811678491632931402e2
TANHC(288, 0x40a176fa0e5535fa) // q1 = 2.23548839060100448583e3
TANHC(320, 0x40b2ec102442040c) // q2 = 4.84406305325125486048e3
GLOBL ·tanhc(SB), RODATA|NOPTR, $352

// func tanhAVX2(dst, src []float64)
// dst[i] = tanh(src[i]) for len(src) a multiple of 4: TanhGo's operations, four values at a
// time, both branches computed and the small one blended in where |x| < 0.625 (false for
// NaN, which the large branch carries through).
TEXT ·tanhAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $2, CX
	JE   tdone
	LEAQ ·expc(SB), R8
	LEAQ ·tanhc(SB), R9
	VMOVUPD 0(R9), Y12  // |x| mask
	VMOVUPD 32(R9), Y13 // 22
	VMOVUPD 96(R9), Y14 // 1
tloop:
	VMOVUPD (SI), Y0
	VANDPD  Y12, Y0, Y1    // a = |x|
	VMINPD  Y1, Y13, Y2    // min(a, 22); a NaN a is returned
	VMULPD  64(R9), Y2, Y2 // −2·min(a, 22)
	EXP4(Y2, Y3, Y4, Y5)   // t
	VSUBPD  Y5, Y14, Y6    // 1 − t
	VADDPD  Y14, Y5, Y7    // t + 1
	VDIVPD  Y7, Y6, Y6     // (1 − t)/(1 + t)
	VANDNPD Y0, Y12, Y7    // the sign of x
	VXORPD  Y7, Y6, Y6     // negated where x < 0
	VMULPD  Y0, Y0, Y8     // z = x²
	VMULPD  160(R9), Y8, Y9
	VADDPD  192(R9), Y9, Y9
	VMULPD  Y8, Y9, Y9
	VADDPD  224(R9), Y9, Y9 // P = (p0·z + p1)·z + p2
	VADDPD  256(R9), Y8, Y10
	VMULPD  Y8, Y10, Y10
	VADDPD  288(R9), Y10, Y10
	VMULPD  Y8, Y10, Y10
	VADDPD  320(R9), Y10, Y10 // Q = ((z + q0)·z + q1)·z + q2
	VMULPD  Y9, Y8, Y9        // z·P
	VDIVPD  Y10, Y9, Y9       // z·P/Q
	VMULPD  Y9, Y0, Y9        // x·(z·P/Q)
	VADDPD  Y9, Y0, Y9        // x + x·(z·P/Q)
	VCMPPD  $0x11, 128(R9), Y1, Y11 // a < 0.625 (false for NaN)
	VBLENDVPD Y11, Y9, Y6, Y6
	VMOVUPD Y6, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNE     tloop
tdone:
	VZEROUPPER
	RET

// func tanhAVX512(dst, src []float64)
// tanhAVX2 on eight lanes for len(src) a multiple of 8, with one division instead of two: the
// large branch's numerator 1 − t and denominator 1 + t and the small branch's z·P and Q are
// blended before the division (where |x| < 0.625: opmask K1), so each lane divides exactly the
// operands TanhGo divides and gets its bits.
TEXT ·tanhAVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $3, CX
	JE   t8done
	LEAQ ·expc(SB), R8
	LEAQ ·tanhc(SB), R9
	VBROADCASTSD 0(R9), Z12  // |x| mask
	VBROADCASTSD 32(R9), Z13 // 22
	VBROADCASTSD 96(R9), Z14 // 1
t8loop:
	VMOVUPD     (SI), Z0
	VPANDQ      Z12, Z0, Z1    // a = |x|
	VMINPD      Z1, Z13, Z2    // min(a, 22); a NaN a is returned
	VMULPD.BCST 64(R9), Z2, Z2 // −2·min(a, 22)
	EXP8(Z2, Z3, Z4, Z5)       // t
	VSUBPD      Z5, Z14, Z6    // 1 − t
	VADDPD      Z14, Z5, Z7    // t + 1
	VMULPD      Z0, Z0, Z8     // z = x²
	VMULPD.BCST 160(R9), Z8, Z9
	VADDPD.BCST 192(R9), Z9, Z9
	VMULPD      Z8, Z9, Z9
	VADDPD.BCST 224(R9), Z9, Z9 // P = (p0·z + p1)·z + p2
	VADDPD.BCST 256(R9), Z8, Z10
	VMULPD      Z8, Z10, Z10
	VADDPD.BCST 288(R9), Z10, Z10
	VMULPD      Z8, Z10, Z10
	VADDPD.BCST 320(R9), Z10, Z10 // Q = ((z + q0)·z + q1)·z + q2
	VMULPD      Z9, Z8, Z9        // z·P
	VCMPPD.BCST $0x11, 128(R9), Z1, K1 // a < 0.625 (false for NaN)
	VMOVAPD     Z9, K1, Z6        // numerator: z·P where small, 1 − t elsewhere
	VMOVAPD     Z10, K1, Z7       // denominator: Q where small, 1 + t elsewhere
	VDIVPD      Z7, Z6, Z6        // (1 − t)/(1 + t), or z·P/Q
	VPANDNQ     Z0, Z12, Z11      // the sign of x
	VPXORQ      Z11, Z6, Z11      // large: negated where x < 0
	VMULPD      Z6, Z0, Z9        // small: x·(z·P/Q)
	VADDPD      Z9, Z0, Z9        // x + x·(z·P/Q)
	VMOVAPD     Z9, K1, Z11
	VMOVUPD     Z11, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNE         t8loop
t8done:
	VZEROUPPER
	RET

//go:build amd64 && !noasm

#include "textflag.h"
#include "vec_amd64.h"
#include "spline_amd64.h"

// The AVX-512 spline kernel: rqsLanesAVX2's steps on eight lanes, in the same order and with
// the same operations (so the same bits as the scalar path), with opmask registers for the
// comparisons. The constant tables ·expc and ·logc hold four copies of each constant; the
// kernel reads the first with embedded broadcasts (EXP8 is in vec_amd64.h).

// LOG8(C) is LOG4 (vec_amd64.h) on eight lanes: Z12 = ln Z0, with Z1–Z11 and K1 as scratch
// and C pointing at logc.
#define LOG8(C) \
	VPANDQ.BCST      512(C), Z0, Z1 \
	VPORQ.BCST       160(C), Z1, Z1 \
	VPSRLQ           $52, Z0, Z2 \
	VPORQ.BCST       544(C), Z2, Z2 \
	VSUBPD.BCST      480(C), Z2, Z2 \
	VCMPPD.BCST      $0x11, 64(C), Z1, K1 \
	VMOVAPD.Z        Z1, K1, Z4 \
	VADDPD           Z4, Z1, Z1 \
	VBROADCASTSD     96(C), Z4 \
	VMOVAPD.Z        Z4, K1, Z4 \
	VSUBPD           Z4, Z2, Z2 \
	VSUBPD.BCST      96(C), Z1, Z1 \
	VADDPD.BCST      128(C), Z1, Z4 \
	VDIVPD           Z4, Z1, Z4 \
	VMULPD           Z4, Z4, Z5 \
	VMULPD           Z5, Z5, Z6 \
	VBROADCASTSD     448(C), Z7 \
	VFMADD213PD.BCST 384(C), Z6, Z7 \
	VFMADD213PD.BCST 320(C), Z6, Z7 \
	VFMADD213PD.BCST 256(C), Z6, Z7 \
	VMULPD           Z5, Z7, Z7 \
	VBROADCASTSD     416(C), Z8 \
	VFMADD213PD.BCST 352(C), Z6, Z8 \
	VFMADD213PD.BCST 288(C), Z6, Z8 \
	VMULPD           Z6, Z8, Z8 \
	VADDPD           Z8, Z7, Z7 \
	VMULPD           Z1, Z1, Z9 \
	VMULPD.BCST      160(C), Z9, Z9 \
	VADDPD           Z7, Z9, Z10 \
	VMULPD.BCST      224(C), Z2, Z11 \
	VFMADD231PD      Z10, Z4, Z11 \
	VSUBPD           Z11, Z9, Z11 \
	VSUBPD           Z1, Z11, Z11 \
	VMULPD.BCST      192(C), Z2, Z12 \
	VSUBPD           Z11, Z12, Z12

// KEEP8(MASK) clears the bits of BX of the lanes where the opmask MASK is false.
#define KEEP8(MASK) \
	KMOVW MASK, DX \
	ANDQ  DX, BX

// DELTA8(SRC, DST) is DELTA (spline_amd64.s) on eight lanes: DST = m_δ + softplus(v).
#define DELTA8(SRC, DST) \
	VMOVUPD          SRC, Z13 \
	VPORQ            L_SIGN(SI), Z13, Z14 \
	VCMPPD.BCST      $0x1D, 480(R8), Z14, K1 \
	KEEP8(K1) \
	EXP8(Z14, Z1, Z2, Z3) \
	VMOVAPD          Z3, Z15 \
	VADDPD           L_ONE(SI), Z3, Z0 \
	LOG8(R9) \
	VMULPD           Z15, Z12, Z12 \
	VSUBPD           L_ONE(SI), Z0, Z1 \
	VDIVPD           Z1, Z12, Z12 \
	VCMPPD           $0x04, L_ONE(SI), Z0, K1 \
	VBLENDMPD        Z12, Z15, K1, Z12 \
	VPXORQ           Z3, Z3, Z3 \
	VMAXPD           Z3, Z13, Z1 \
	VADDPD           L_MIND(SI), Z1, Z1 \
	VADDPD           Z12, Z1, Z1 \
	VMOVUPD          Z1, DST

// NEXTKNOT8 is NEXTKNOT (spline_amd64.s) on eight lanes.
#define NEXTKNOT8(E, R, MIN, SCALE, ACC, C) \
	VMOVUPD E, C \
	VMULPD  R(SI), C, C \
	VMULPD  SCALE(SI), C, C \
	VADDPD  MIN(SI), C, C \
	VADDPD  C, ACC, ACC \
	VMULPD  L_TWOB(SI), ACC, C \
	VADDPD  L_NEGB(SI), C, C

// func rqsLanesAVX512(l *Lanes, k, mode int) bool
//
// rqsLanesAVX2 on eight lanes (see its comment for the modes, the steps and when it returns
// false). The parameters are gathered from the lanes' rows with one gather per parameter.
// Opmask registers: K1 scratch, K3 the scan's c_j ≤ v, K5 c_1 ≤ v, K6 c_{K−1} ≤ v.
TEXT ·rqsLanesAVX512(SB), NOSPLIT, $0-25
	MOVQ l+0(FP), SI
	MOVQ k+8(FP), CX
	MOVQ mode+16(FP), DI

	// gather the 3K−1 parameters of the eight lanes' rows into u
	VMOVDQU64 L_ROWS(SI), Z20
	LEAQ      -1(CX)(CX*2), AX
	XORQ      DX, DX
	MOVQ      SI, R9
gather:
	KXNORW     K1, K1, K1
	VGATHERQPD (DX)(Z20*1), K1, Z0
	VMOVUPD    Z0, (R9)
	ADDQ       $8, DX
	ADDQ       $64, R9
	DECQ       AX
	JNE        gather

	LEAQ ·expc(SB), R8
	LEAQ ·logc(SB), R9
	MOVQ $0xFF, BX

	// softmax numerators e_i = e^(u_i − u_0) in place and 1/Σe_i, widths then heights
	MOVQ SI, R12
	LEAQ L_RW(SI), R13
	MOVQ $2, AX
parts:
	VMOVUPD (R12), Z13
	VPXORQ  Z14, Z14, Z14
	MOVQ    CX, R11
softmax:
	VMOVUPD     (R12), Z0
	VSUBPD      Z13, Z0, Z0
	VCMPPD.BCST $0x1D, 480(R8), Z0, K1 // ≥ −708 (false for NaN)
	VCMPPD.BCST $0x12, 512(R8), Z0, K2 // ≤ 708
	KANDW       K1, K2, K1
	KEEP8(K1)
	EXP8(Z0, Z1, Z2, Z3)
	VMOVUPD     Z3, (R12)
	VADDPD      Z3, Z14, Z14
	ADDQ        $64, R12
	DECQ        R11
	JNE         softmax
	VCMPPD      $0x12, L_MAX(SI), Z14, K1 // the sum is finite
	KEEP8(K1)
	VMOVUPD     L_ONE(SI), Z1
	VDIVPD      Z14, Z1, Z1
	VMOVUPD     Z1, (R13)
	ADDQ        $64, R13
	DECQ        AX
	JNE         parts
	CMPQ        BX, $0xFF
	JNE         fail

	// bin 0: [x_0, x_1) × [y_0, y_1); Z1, Z2 accumulate the widths and heights
	VMOVUPD L_V(SI), Z0
	MOVQ    CX, R12
	SHLQ    $6, R12
	ADDQ    SI, R12 // e_h,0
	MOVQ    CX, R13
	SHLQ    $7, R13
	ADDQ    SI, R13 // the parameter of δ_1, after 2K widths and heights
	VMOVUPD (SI), Z1
	VMULPD  L_RW(SI), Z1, Z1
	VMULPD  L_WS(SI), Z1, Z1
	VADDPD  L_MINW(SI), Z1, Z1 // Σ_{j<1} (m + s·p_j)
	VMULPD  L_TWOB(SI), Z1, Z3
	VADDPD  L_NEGB(SI), Z3, Z3 // x_1
	VMOVUPD (R12), Z2
	VMULPD  L_RH(SI), Z2, Z2
	VMULPD  L_HS(SI), Z2, Z2
	VADDPD  L_MINH(SI), Z2, Z2
	VMULPD  L_TWOB(SI), Z2, Z4
	VADDPD  L_NEGB(SI), Z4, Z4 // y_1
	VMOVUPD L_NEGB(SI), Z5     // x_k
	VMOVAPD Z3, Z6             // x_{k+1}
	VMOVUPD L_NEGB(SI), Z7     // y_k
	VMOVAPD Z4, Z8             // y_{k+1}
	VMOVUPD (R13), Z9          // parameter of δ_k (unused in bin 0)
	VMOVUPD (R13), Z10         // parameter of δ_{k+1}
	TESTQ   DI, DI
	JNE     m1inv
	VCMPPD  $0x12, Z0, Z3, K5 // x_1 ≤ v
	JMP     scaninit
m1inv:
	VCMPPD  $0x12, Z0, Z4, K5 // y_1 ≤ v

scaninit:
	// bins 1…K−2: Z3, Z4 hold the left knots c_j; R10, R12 point at e_w,j and e_h,j, R13 at
	// the parameter of δ_j
	LEAQ 64(SI), R10
	ADDQ $64, R12
	LEAQ -2(CX), R11
scan:
	TESTQ   R11, R11
	JE      lastbin
	TESTQ   DI, DI
	JNE     scaninv
	VCMPPD  $0x12, Z0, Z3, K3 // c_j ≤ v
	JMP     scanknots
scaninv:
	VCMPPD  $0x12, Z0, Z4, K3
scanknots:
	NEXTKNOT8((R10), L_RW, L_MINW, L_WS, Z1, Z11) // x_{j+1}
	NEXTKNOT8((R12), L_RH, L_MINH, L_HS, Z2, Z12) // y_{j+1}
	VBLENDMPD Z3, Z5, K3, Z5
	VBLENDMPD Z11, Z6, K3, Z6
	VBLENDMPD Z4, Z7, K3, Z7
	VBLENDMPD Z12, Z8, K3, Z8
	VBLENDMPD (R13), Z9, K3, Z9
	VBLENDMPD 64(R13), Z10, K3, Z10
	VMOVAPD   Z11, Z3
	VMOVAPD   Z12, Z4
	ADDQ      $64, R10
	ADDQ      $64, R12
	ADDQ      $64, R13
	DECQ      R11
	JMP       scan

lastbin: // bin K−1: [x_{K−1}, B) × [y_{K−1}, B); its right δ is 1
	TESTQ   DI, DI
	JNE     lastinv
	VCMPPD  $0x12, Z0, Z3, K6
	JMP     lastsel
lastinv:
	VCMPPD  $0x12, Z0, Z4, K6
lastsel:
	VBLENDMPD Z3, Z5, K6, Z5
	VBLENDMPD L_B(SI), Z6, K6, Z6
	VBLENDMPD Z4, Z7, K6, Z7
	VBLENDMPD L_B(SI), Z8, K6, Z8
	VBLENDMPD (R13), Z9, K6, Z9
	VSUBPD    Z5, Z6, Z6 // w_k = x_{k+1} − x_k
	VSUBPD    Z7, Z8, Z8 // h_k
	VMOVUPD   Z5, L_XK(SI)
	VMOVUPD   Z6, L_WK(SI)
	VMOVUPD   Z7, L_YK(SI)
	VMOVUPD   Z8, L_HK(SI)
	VMOVUPD   Z10, L_VK1(SI)
	VMOVUPD   Z9, L_DK(SI)

	// knot derivatives, 1 at the ends
	DELTA8(L_DK(SI), L_DK(SI))
	DELTA8(L_VK1(SI), L_VK1(SI))
	VMOVUPD   L_ONE(SI), Z1
	VBLENDMPD L_DK(SI), Z1, K5, Z9 // δ_k: 1 in bin 0
	VMOVUPD   L_VK1(SI), Z3
	VBLENDMPD Z1, Z3, K6, Z10      // δ_{k+1}: 1 in bin K−1
	VMOVUPD   L_V(SI), Z0
	VMOVUPD   L_XK(SI), Z5
	VMOVUPD   L_WK(SI), Z6
	VMOVUPD   L_YK(SI), Z7
	VMOVUPD   L_HK(SI), Z8
	TESTQ     DI, DI
	JNE       inverse

	// forward, eqs. 4–5: ξ = (x − x_k)/w_k, s = h_k/w_k
	VSUBPD      Z5, Z0, Z1
	VDIVPD      Z6, Z1, Z1       // ξ
	VDIVPD      Z6, Z8, Z2       // s
	VMOVUPD     L_ONE(SI), Z3
	VSUBPD      Z1, Z3, Z3       // 1 − ξ
	VMULPD      Z3, Z1, Z4       // t = ξ(1 − ξ)
	VMULPD      Z1, Z2, Z11
	VMULPD      Z1, Z11, Z11     // s·ξ·ξ
	VMULPD      Z4, Z9, Z12
	VADDPD      Z12, Z11, Z11    // num = sξ² + δ_k t
	VADDPD      Z10, Z9, Z12
	VMULPD      L_TWO(SI), Z2, Z13 // 2s
	VSUBPD      Z13, Z12, Z12
	VMULPD      Z4, Z12, Z12
	VADDPD      Z12, Z2, Z12     // den = s + (δ_k + δ_{k+1} − 2s)t
	VMULPD      Z11, Z8, Z14
	VDIVPD      Z12, Z14, Z14
	VADDPD      Z14, Z7, Z14     // y = y_k + h_k·num/den
	VMOVUPD     Z14, L_OUT(SI)
	VMOVUPD     L_MAX(SI), Z5
	VCMPPD      $0x12, Z5, Z14, K1 // y ≤ max (h_k·num overflows in a steep bin of a wide spline)
	VPXORQ      L_SIGN(SI), Z5, Z5
	VCMPPD      $0x1D, Z5, Z14, K2 // y ≥ −max
	KANDW       K1, K2, K1
	KEEP8(K1)
	VMULPD      Z1, Z10, Z14
	VMULPD      Z1, Z14, Z14     // δ_{k+1}ξ²
	VMULPD      Z4, Z13, Z15
	VADDPD      Z15, Z14, Z14    // + 2s·t
	VMULPD      Z3, Z9, Z15
	VMULPD      Z3, Z15, Z15
	VADDPD      Z15, Z14, Z14    // m = … + δ_k(1 − ξ)²
	VMULPD      Z2, Z2, Z15
	VMULPD      Z14, Z15, Z15
	VMULPD      Z12, Z12, Z14
	VDIVPD      Z14, Z15, Z0     // dy/dx = s²m/den²
	VCMPPD.BCST $0x1D, 0(R9), Z0, K1  // a normal number
	VCMPPD.BCST $0x12, 32(R9), Z0, K2 // and finite
	KANDW       K1, K2, K1
	KEEP8(K1)
	LOG8(R9)
	VMOVUPD     Z12, L_OUT+64(SI)
	JMP         done

inverse: // eqs. 6–8: the root ξ = 2c/(−b − √(b² − 4ac)) of aξ² + bξ + c = 0
	VDIVPD  Z6, Z8, Z2       // s
	VSUBPD  Z7, Z0, Z1       // y − y_k
	VADDPD  Z10, Z9, Z3
	VMULPD  L_TWO(SI), Z2, Z13 // 2s
	VSUBPD  Z13, Z3, Z3      // δ_k + δ_{k+1} − 2s
	VMULPD  Z3, Z1, Z4       // (y − y_k)(δ_k + δ_{k+1} − 2s)
	VSUBPD  Z9, Z2, Z11
	VMULPD  Z11, Z8, Z11
	VADDPD  Z11, Z4, Z11     // a
	VMULPD  Z9, Z8, Z12
	VSUBPD  Z4, Z12, Z12     // b
	VPXORQ  L_SIGN(SI), Z2, Z14
	VMULPD  Z1, Z14, Z14     // c = −s(y − y_k)
	VMULPD  Z12, Z12, Z15
	VMULPD  L_FOUR(SI), Z11, Z4
	VMULPD  Z14, Z4, Z4
	// the form is accurate (plainRootOK): b² ≤ max, |4ac| ≤ max, and b ≥ 0 or |4ac| ≥ 10⁻⁶b²
	VCMPPD  $0x12, L_MAX(SI), Z15, K1 // b² ≤ max
	VMOVUPD L_SIGN(SI), Z8
	VPANDNQ Z4, Z8, Z8       // |4ac|
	VCMPPD  $0x12, L_MAX(SI), Z8, K2 // |4ac| ≤ max
	KANDW   K1, K2, K1
	KEEP8(K1)
	VMULPD  L_RCT(SI), Z15, Z0 // 10⁻⁶b²
	VCMPPD  $0x1D, Z0, Z8, K1 // |4ac| ≥ 10⁻⁶b²
	VPXORQ  Z0, Z0, Z0
	VCMPPD  $0x1D, Z0, Z12, K2 // b ≥ 0
	KORW    K1, K2, K1
	KEEP8(K1)
	VSUBPD  Z4, Z15, Z15
	VPXORQ  Z4, Z4, Z4
	VMAXPD  Z15, Z4, Z15     // max(b² − 4ac, 0)
	VSQRTPD Z15, Z15
	VPXORQ  L_SIGN(SI), Z12, Z4
	VSUBPD  Z15, Z4, Z4
	VMULPD  L_TWO(SI), Z14, Z15
	VDIVPD  Z4, Z15, Z1      // ξ
	VMULPD  Z6, Z1, Z15
	VADDPD  Z5, Z15, Z15     // x = ξ w_k + x_k
	VMOVUPD Z15, L_OUT(SI)
	VMOVUPD L_MAX(SI), Z4
	VCMPPD  $0x12, Z4, Z15, K1 // x ≤ max
	VPXORQ  L_SIGN(SI), Z4, Z4
	VCMPPD  $0x1D, Z4, Z15, K2 // x ≥ −max
	KANDW   K1, K2, K1
	KEEP8(K1)
	CMPQ    DI, $2
	JNE     done
	VMOVUPD L_ONE(SI), Z11
	VSUBPD  Z1, Z11, Z11     // 1 − ξ
	VMULPD  Z11, Z1, Z4      // t
	VMULPD  Z4, Z3, Z12
	VADDPD  Z12, Z2, Z12     // den
	VMULPD  Z1, Z10, Z14
	VMULPD  Z1, Z14, Z14
	VMULPD  Z4, Z13, Z15
	VADDPD  Z15, Z14, Z14
	VMULPD  Z11, Z9, Z15
	VMULPD  Z11, Z15, Z15
	VADDPD  Z15, Z14, Z14    // m
	VMULPD  Z2, Z2, Z15
	VMULPD  Z14, Z15, Z15
	VMULPD  Z12, Z12, Z14
	VDIVPD  Z14, Z15, Z0     // dy/dx
	VCMPPD.BCST $0x1D, 0(R9), Z0, K1
	VCMPPD.BCST $0x12, 32(R9), Z0, K2
	KANDW   K1, K2, K1
	KEEP8(K1)
	LOG8(R9)
	VPXORQ  L_SIGN(SI), Z12, Z12 // log dx/dy = −log dy/dx
	VMOVUPD Z12, L_OUT+64(SI)

done:
	CMPQ  BX, $0xFF
	SETEQ ret+24(FP)
	VZEROUPPER
	RET
fail:
	MOVB $0, ret+24(FP)
	VZEROUPPER
	RET

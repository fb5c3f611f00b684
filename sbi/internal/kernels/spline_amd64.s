//go:build amd64 && !noasm

#include "textflag.h"
#include "vec_amd64.h"
#include "spline_amd64.h"

// KEEP(MASK) clears the bits of BX of the lanes where MASK is false: BX ends with the lanes
// whose every step stayed in the vector path's range.
#define KEEP(MASK) \
	VMOVMSKPD MASK, DX \
	ANDQ      DX, BX

// DELTA(SRC, DST) sets DST = m_δ + softplus(v) for the parameters v at SRC, with softplus(v)
// = max(v, 0) + log1p(t), t = e^−|v|, and log1p(t) = ln(1 + t)·t/((1 + t) − 1) (Goldberg's
// correction; t where 1 + t rounds to 1): the operations of splineBlock.prepare.
#define DELTA(SRC, DST) \
	VMOVUPD   SRC, Y13 \
	VORPD     L_SIGN(SI), Y13, Y14 \
	VCMPPD    $0x1D, 480(R8), Y14, Y15 \
	KEEP(Y15) \
	EXP4(Y14, Y1, Y2, Y3) \
	VMOVAPD   Y3, Y15 \
	VADDPD    L_ONE(SI), Y3, Y0 \
	LOG4(R9) \
	VMULPD    Y15, Y12, Y12 \
	VSUBPD    L_ONE(SI), Y0, Y1 \
	VDIVPD    Y1, Y12, Y12 \
	VCMPPD    $0x04, L_ONE(SI), Y0, Y2 \
	VBLENDVPD Y2, Y12, Y15, Y12 \
	VXORPD    Y3, Y3, Y3 \
	VMAXPD    Y3, Y13, Y1 \
	VADDPD    L_MIND(SI), Y1, Y1 \
	VADDPD    Y12, Y1, Y1 \
	VMOVUPD   Y1, DST

// NEXTKNOT(E, R, MIN, SCALE, ACC, C) advances the knot position of one coordinate:
// ACC += MIN + SCALE·(e·r) with e at E and r at R, and C = −B + 2B·ACC (knots.positions).
#define NEXTKNOT(E, R, MIN, SCALE, ACC, C) \
	VMOVUPD E, C \
	VMULPD  R(SI), C, C \
	VMULPD  SCALE(SI), C, C \
	VADDPD  MIN(SI), C, C \
	VADDPD  C, ACC, ACC \
	VMULPD  L_TWOB(SI), ACC, C \
	VADDPD  L_NEGB(SI), C, C

// func rqsLanesAVX2(l *Lanes, k, mode int) bool
//
// Evaluates four rational-quadratic splines of k ≥ 2 bins at once, one per lane, with the
// operations of the scalar path (splineBlock.prepare, knots.positions, knots.evalDeriv and
// knots.inverse, with LogOne) in the same order, so that every lane gets the same bits. It
// first copies the parameters of lane i, at l.Rows[i], into l.U[·][i]; the exponentials of the
// widths and heights then overwrite them. mode 0 evaluates y and log dy/dx at the points x = l.v; mode 1 inverts the
// splines at y = l.v (x only) and mode 2 adds log dx/dy. The points must lie inside [−B, B].
// It returns false, leaving l.Out unspecified, when a lane leaves the kernel's range (an
// exponent outside [−708, 708], a softmax sum or a result (y forward, x inverse) that is not
// finite, a derivative
// that is not a normal number, an inverse whose root ξ = 2c/(−b − √(b² − 4ac)) is not
// accurate: b² or 4ac not finite, or b < 0 and |4ac| < 10⁻⁶b², as in transform's plainRootOK):
// the caller then takes the scalar path for the four splines.
//
// Steps: the softmaxes of widths and heights (shifted by the first value); a scan over the
// bins that computes the knots x_i, y_i and keeps, where c_i ≤ v (c = x knots forward, y knots
// inverse), the bin's knots and the parameters of its two knot derivatives, so that only two
// softplus per lane are taken; the derivatives; then Durkan et al. (2019), eqs. 4–8.
TEXT ·rqsLanesAVX2(SB), NOSPLIT, $0-25
	MOVQ l+0(FP), SI
	MOVQ k+8(FP), CX
	MOVQ mode+16(FP), DI

	// transpose the 3K−1 parameters of the four lanes' rows into u
	MOVQ L_ROWS(SI), R10
	MOVQ L_ROWS+8(SI), R11
	MOVQ L_ROWS+16(SI), R12
	MOVQ L_ROWS+24(SI), R13
	LEAQ -1(CX)(CX*2), AX
	XORQ DX, DX
	MOVQ SI, R9
gather:
	VMOVSD      (R10)(DX*1), X0
	VMOVHPD     (R11)(DX*1), X0, X0
	VMOVSD      (R12)(DX*1), X1
	VMOVHPD     (R13)(DX*1), X1, X1
	VINSERTF128 $1, X1, Y0, Y0
	VMOVUPD     Y0, (R9)
	ADDQ        $8, DX
	ADDQ        $64, R9
	DECQ        AX
	JNE         gather

	LEAQ ·expc(SB), R8
	LEAQ ·logc(SB), R9
	MOVQ $15, BX

	// softmax numerators e_i = e^(u_i − u_0) in place and 1/Σe_i, widths then heights
	MOVQ SI, R12
	LEAQ L_RW(SI), R13
	MOVQ $2, AX
parts:
	VMOVUPD (R12), Y13
	VXORPD  Y14, Y14, Y14
	MOVQ    CX, R11
softmax:
	VMOVUPD (R12), Y0
	VSUBPD  Y13, Y0, Y0
	VCMPPD  $0x1D, 480(R8), Y0, Y1 // ≥ −708 (false for NaN)
	VCMPPD  $0x12, 512(R8), Y0, Y2 // ≤ 708
	VANDPD  Y1, Y2, Y1
	KEEP(Y1)
	EXP4(Y0, Y1, Y2, Y3)
	VMOVUPD Y3, (R12)
	VADDPD  Y3, Y14, Y14
	ADDQ    $64, R12
	DECQ    R11
	JNE     softmax
	VCMPPD  $0x12, L_MAX(SI), Y14, Y1 // the sum is finite
	KEEP(Y1)
	VMOVUPD L_ONE(SI), Y1
	VDIVPD  Y14, Y1, Y1
	VMOVUPD Y1, (R13)
	ADDQ    $64, R13
	DECQ    AX
	JNE     parts
	CMPQ    BX, $15
	JNE     fail

	// bin 0: [x_0, x_1) × [y_0, y_1); Y1, Y2 accumulate the widths and heights
	VMOVUPD L_V(SI), Y0
	MOVQ    CX, R12
	SHLQ    $6, R12
	ADDQ    SI, R12 // e_h,0
	MOVQ    CX, R13
	SHLQ    $7, R13
	ADDQ    SI, R13 // the parameter of δ_1, after 2K widths and heights
	VMOVUPD (SI), Y1
	VMULPD  L_RW(SI), Y1, Y1
	VMULPD  L_WS(SI), Y1, Y1
	VADDPD  L_MINW(SI), Y1, Y1 // Σ_{j<1} (m + s·p_j)
	VMULPD  L_TWOB(SI), Y1, Y3
	VADDPD  L_NEGB(SI), Y3, Y3 // x_1
	VMOVUPD (R12), Y2
	VMULPD  L_RH(SI), Y2, Y2
	VMULPD  L_HS(SI), Y2, Y2
	VADDPD  L_MINH(SI), Y2, Y2
	VMULPD  L_TWOB(SI), Y2, Y4
	VADDPD  L_NEGB(SI), Y4, Y4 // y_1
	VMOVUPD L_NEGB(SI), Y5     // x_k
	VMOVAPD Y3, Y6             // x_{k+1}
	VMOVUPD L_NEGB(SI), Y7     // y_k
	VMOVAPD Y4, Y8             // y_{k+1}
	VMOVUPD (R13), Y9          // parameter of δ_k (unused in bin 0)
	VMOVUPD (R13), Y10         // parameter of δ_{k+1}
	TESTQ   DI, DI
	JNE     m1inv
	VCMPPD  $0x12, Y0, Y3, Y11 // x_1 ≤ v
	JMP     m1done
m1inv:
	VCMPPD  $0x12, Y0, Y4, Y11 // y_1 ≤ v
m1done:
	VMOVUPD Y11, L_M1(SI)

	// bins 1…K−2: Y3, Y4 hold the left knots c_j; R10, R12 point at e_w,j and e_h,j, R13 at
	// the parameter of δ_j
	LEAQ 64(SI), R10
	ADDQ $64, R12
	LEAQ -2(CX), R11
scan:
	TESTQ   R11, R11
	JE      lastbin
	TESTQ   DI, DI
	JNE     scaninv
	VCMPPD  $0x12, Y0, Y3, Y13 // c_j ≤ v
	JMP     scanknots
scaninv:
	VCMPPD  $0x12, Y0, Y4, Y13
scanknots:
	NEXTKNOT((R10), L_RW, L_MINW, L_WS, Y1, Y11) // x_{j+1}
	NEXTKNOT((R12), L_RH, L_MINH, L_HS, Y2, Y12) // y_{j+1}
	VBLENDVPD Y13, Y3, Y5, Y5
	VBLENDVPD Y13, Y11, Y6, Y6
	VBLENDVPD Y13, Y4, Y7, Y7
	VBLENDVPD Y13, Y12, Y8, Y8
	VBLENDVPD Y13, (R13), Y9, Y9
	VBLENDVPD Y13, 64(R13), Y10, Y10
	VMOVAPD   Y11, Y3
	VMOVAPD   Y12, Y4
	ADDQ      $64, R10
	ADDQ      $64, R12
	ADDQ      $64, R13
	DECQ      R11
	JMP       scan

lastbin: // bin K−1: [x_{K−1}, B) × [y_{K−1}, B); its right δ is 1
	TESTQ   DI, DI
	JNE     lastinv
	VCMPPD  $0x12, Y0, Y3, Y13
	JMP     lastsel
lastinv:
	VCMPPD  $0x12, Y0, Y4, Y13
lastsel:
	VMOVUPD   Y13, L_ML(SI)
	VBLENDVPD Y13, Y3, Y5, Y5
	VBLENDVPD Y13, L_B(SI), Y6, Y6
	VBLENDVPD Y13, Y4, Y7, Y7
	VBLENDVPD Y13, L_B(SI), Y8, Y8
	VBLENDVPD Y13, (R13), Y9, Y9
	VSUBPD    Y5, Y6, Y6 // w_k = x_{k+1} − x_k
	VSUBPD    Y7, Y8, Y8 // h_k
	VMOVUPD   Y5, L_XK(SI)
	VMOVUPD   Y6, L_WK(SI)
	VMOVUPD   Y7, L_YK(SI)
	VMOVUPD   Y8, L_HK(SI)
	VMOVUPD   Y10, L_VK1(SI)
	VMOVUPD   Y9, L_DK(SI)

	// knot derivatives, 1 at the ends
	DELTA(L_DK(SI), L_DK(SI))
	DELTA(L_VK1(SI), L_VK1(SI))
	VMOVUPD   L_ONE(SI), Y1
	VMOVUPD   L_M1(SI), Y2
	VBLENDVPD Y2, L_DK(SI), Y1, Y9 // δ_k: 1 in bin 0
	VMOVUPD   L_ML(SI), Y2
	VMOVUPD   L_VK1(SI), Y3
	VBLENDVPD Y2, Y1, Y3, Y10      // δ_{k+1}: 1 in bin K−1
	VMOVUPD   L_V(SI), Y0
	VMOVUPD   L_XK(SI), Y5
	VMOVUPD   L_WK(SI), Y6
	VMOVUPD   L_YK(SI), Y7
	VMOVUPD   L_HK(SI), Y8
	TESTQ     DI, DI
	JNE       inverse

	// forward, eqs. 4–5: ξ = (x − x_k)/w_k, s = h_k/w_k
	VSUBPD  Y5, Y0, Y1
	VDIVPD  Y6, Y1, Y1       // ξ
	VDIVPD  Y6, Y8, Y2       // s
	VMOVUPD L_ONE(SI), Y3
	VSUBPD  Y1, Y3, Y3       // 1 − ξ
	VMULPD  Y3, Y1, Y4       // t = ξ(1 − ξ)
	VMULPD  Y1, Y2, Y11
	VMULPD  Y1, Y11, Y11     // s·ξ·ξ
	VMULPD  Y4, Y9, Y12
	VADDPD  Y12, Y11, Y11    // num = sξ² + δ_k t
	VADDPD  Y10, Y9, Y12
	VMULPD  L_TWO(SI), Y2, Y13 // 2s
	VSUBPD  Y13, Y12, Y12
	VMULPD  Y4, Y12, Y12
	VADDPD  Y12, Y2, Y12     // den = s + (δ_k + δ_{k+1} − 2s)t
	VMULPD  Y11, Y8, Y14
	VDIVPD  Y12, Y14, Y14
	VADDPD  Y14, Y7, Y14     // y = y_k + h_k·num/den
	VMOVUPD Y14, L_OUT(SI)
	VMOVUPD L_MAX(SI), Y5
	VCMPPD  $0x12, Y5, Y14, Y6 // y ≤ max (h_k·num overflows in a steep bin of a wide spline)
	VXORPD  L_SIGN(SI), Y5, Y5
	VCMPPD  $0x1D, Y5, Y14, Y7 // y ≥ −max
	VANDPD  Y6, Y7, Y6
	KEEP(Y6)
	VMULPD  Y1, Y10, Y14
	VMULPD  Y1, Y14, Y14     // δ_{k+1}ξ²
	VMULPD  Y4, Y13, Y15
	VADDPD  Y15, Y14, Y14    // + 2s·t
	VMULPD  Y3, Y9, Y15
	VMULPD  Y3, Y15, Y15
	VADDPD  Y15, Y14, Y14    // m = … + δ_k(1 − ξ)²
	VMULPD  Y2, Y2, Y15
	VMULPD  Y14, Y15, Y15
	VMULPD  Y12, Y12, Y14
	VDIVPD  Y14, Y15, Y0     // dy/dx = s²m/den²
	VCMPPD  $0x1D, 0(R9), Y0, Y1  // a normal number
	VCMPPD  $0x12, 32(R9), Y0, Y2 // and finite
	VANDPD  Y1, Y2, Y1
	KEEP(Y1)
	LOG4(R9)
	VMOVUPD Y12, L_OUT+64(SI)
	JMP     done

inverse: // eqs. 6–8: the root ξ = 2c/(−b − √(b² − 4ac)) of aξ² + bξ + c = 0
	VDIVPD  Y6, Y8, Y2       // s
	VSUBPD  Y7, Y0, Y1       // y − y_k
	VADDPD  Y10, Y9, Y3
	VMULPD  L_TWO(SI), Y2, Y13 // 2s
	VSUBPD  Y13, Y3, Y3      // δ_k + δ_{k+1} − 2s
	VMULPD  Y3, Y1, Y4       // (y − y_k)(δ_k + δ_{k+1} − 2s)
	VSUBPD  Y9, Y2, Y11
	VMULPD  Y11, Y8, Y11
	VADDPD  Y11, Y4, Y11     // a
	VMULPD  Y9, Y8, Y12
	VSUBPD  Y4, Y12, Y12     // b
	VXORPD  L_SIGN(SI), Y2, Y14
	VMULPD  Y1, Y14, Y14     // c = −s(y − y_k)
	VMULPD  Y12, Y12, Y15
	VMULPD  L_FOUR(SI), Y11, Y4
	VMULPD  Y14, Y4, Y4
	// the form is accurate (plainRootOK): b² ≤ max, |4ac| ≤ max, and b ≥ 0 or |4ac| ≥ 10⁻⁶b²
	VMOVUPD L_MAX(SI), Y0
	VCMPPD  $0x12, Y0, Y15, Y7 // b² ≤ max
	VMOVUPD L_SIGN(SI), Y8
	VANDNPD Y4, Y8, Y8       // |4ac|
	VCMPPD  $0x12, Y0, Y8, Y0 // |4ac| ≤ max
	VANDPD  Y0, Y7, Y7
	VMULPD  L_RCT(SI), Y15, Y0 // 10⁻⁶b²
	VCMPPD  $0x1D, Y0, Y8, Y0 // |4ac| ≥ 10⁻⁶b²
	VXORPD  Y8, Y8, Y8
	VCMPPD  $0x1D, Y8, Y12, Y8 // b ≥ 0
	VORPD   Y8, Y0, Y0
	VANDPD  Y0, Y7, Y7
	KEEP(Y7)
	VSUBPD  Y4, Y15, Y15
	VXORPD  Y4, Y4, Y4
	VMAXPD  Y15, Y4, Y15     // max(b² − 4ac, 0)
	VSQRTPD Y15, Y15
	VXORPD  L_SIGN(SI), Y12, Y4
	VSUBPD  Y15, Y4, Y4
	VMULPD  L_TWO(SI), Y14, Y15
	VDIVPD  Y4, Y15, Y1      // ξ
	VMULPD  Y6, Y1, Y15
	VADDPD  Y5, Y15, Y15     // x = ξ w_k + x_k
	VMOVUPD Y15, L_OUT(SI)
	VMOVUPD L_MAX(SI), Y4
	VCMPPD  $0x12, Y4, Y15, Y5 // x ≤ max
	VXORPD  L_SIGN(SI), Y4, Y4
	VCMPPD  $0x1D, Y4, Y15, Y6 // x ≥ −max
	VANDPD  Y5, Y6, Y5
	KEEP(Y5)
	CMPQ    DI, $2
	JNE     done
	VMOVUPD L_ONE(SI), Y11
	VSUBPD  Y1, Y11, Y11     // 1 − ξ
	VMULPD  Y11, Y1, Y4      // t
	VMULPD  Y4, Y3, Y12
	VADDPD  Y12, Y2, Y12     // den
	VMULPD  Y1, Y10, Y14
	VMULPD  Y1, Y14, Y14
	VMULPD  Y4, Y13, Y15
	VADDPD  Y15, Y14, Y14
	VMULPD  Y11, Y9, Y15
	VMULPD  Y11, Y15, Y15
	VADDPD  Y15, Y14, Y14    // m
	VMULPD  Y2, Y2, Y15
	VMULPD  Y14, Y15, Y15
	VMULPD  Y12, Y12, Y14
	VDIVPD  Y14, Y15, Y0     // dy/dx
	VCMPPD  $0x1D, 0(R9), Y0, Y1
	VCMPPD  $0x12, 32(R9), Y0, Y2
	VANDPD  Y1, Y2, Y1
	KEEP(Y1)
	LOG4(R9)
	VXORPD  L_SIGN(SI), Y12, Y12 // log dx/dy = −log dy/dx
	VMOVUPD Y12, L_OUT+64(SI)

done:
	CMPQ  BX, $15
	SETEQ ret+24(FP)
	VZEROUPPER
	RET
fail:
	MOVB $0, ret+24(FP)
	VZEROUPPER
	RET

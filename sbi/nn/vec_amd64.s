//go:build amd64 && !noasm

#include "textflag.h"

// func reluAVX(y []float64)
// y[i] = (0 > y[i]) ? 0 : y[i] for len(y) a multiple of 4: NaN propagates, −0 stays −0.
TEXT ·reluAVX(SB), NOSPLIT, $0-24
	MOVQ   y_base+0(FP), SI
	MOVQ   y_len+8(FP), CX
	SHRQ   $2, CX
	JE     rdone
	VXORPD Y1, Y1, Y1
rloop:
	VMOVUPD (SI), Y0
	VMAXPD  Y0, Y1, Y0
	VMOVUPD Y0, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JNE     rloop
rdone:
	VZEROUPPER
	RET

// func reluBackAVX(y, gy, g []float64)
// g[i] = gy[i] where y[i] > 0, else 0, for len(y) a multiple of 4.
TEXT ·reluBackAVX(SB), NOSPLIT, $0-72
	MOVQ   y_base+0(FP), SI
	MOVQ   y_len+8(FP), CX
	MOVQ   gy_base+24(FP), DI
	MOVQ   g_base+48(FP), DX
	SHRQ   $2, CX
	JE     bdone
	VXORPD Y1, Y1, Y1
bloop:
	VMOVUPD (SI), Y0
	VCMPPD  $0x0e, Y1, Y0, Y2 // Y2 = (y > 0), predicate GT_OS
	VANDPD  (DI), Y2, Y2
	VMOVUPD Y2, (DX)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, DX
	DECQ    CX
	JNE     bloop
bdone:
	VZEROUPPER
	RET

// func adamAVX(x, g, m, v []float64, c *[7]float64)
// c = {β₁, 1−β₁, β₂, 1−β₂, lr/bc₁, ε, √bc₂}: Adam's bias-corrected update of four parameters
// at a time, with the operations of adamGo in the same order (so the results are identical):
//   m = β₁m + (1−β₁)g;  v = β₂v + ((1−β₂)g)g;  x −= (step·m) / (√v/√bc₂ + ε).
TEXT ·adamAVX(SB), NOSPLIT, $0-104
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ g_base+24(FP), DI
	MOVQ m_base+48(FP), R8
	MOVQ v_base+72(FP), R9
	MOVQ c+96(FP), AX
	SHRQ $2, CX
	JE   adone
	VBROADCASTSD 0(AX), Y8  // β₁
	VBROADCASTSD 8(AX), Y9  // 1−β₁
	VBROADCASTSD 16(AX), Y10 // β₂
	VBROADCASTSD 24(AX), Y11 // 1−β₂
	VBROADCASTSD 32(AX), Y12 // step size
	VBROADCASTSD 40(AX), Y13 // ε
	VBROADCASTSD 48(AX), Y14 // √bc₂
aloop:
	VMOVUPD (DI), Y0       // g
	VMULPD  (R8), Y8, Y1   // β₁m
	VMULPD  Y0, Y9, Y2     // (1−β₁)g
	VADDPD  Y2, Y1, Y1     // m
	VMOVUPD Y1, (R8)
	VMULPD  (R9), Y10, Y3  // β₂v
	VMULPD  Y0, Y11, Y4    // (1−β₂)g
	VMULPD  Y0, Y4, Y4     // (1−β₂)g·g
	VADDPD  Y4, Y3, Y3     // v
	VMOVUPD Y3, (R9)
	VSQRTPD Y3, Y5         // √v
	VDIVPD  Y14, Y5, Y5    // √v/√bc₂
	VADDPD  Y13, Y5, Y5    // + ε
	VMULPD  Y1, Y12, Y6    // step·m
	VDIVPD  Y5, Y6, Y6     // step·m/(…)
	VMOVUPD (SI), Y7
	VSUBPD  Y6, Y7, Y7
	VMOVUPD Y7, (SI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, R8
	ADDQ    $32, R9
	DECQ    CX
	JNE     aloop
adone:
	VZEROUPPER
	RET

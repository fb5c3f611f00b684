//go:build amd64 && !noasm

#include "textflag.h"
#include "vec_amd64.h"

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

// func reluBackAVX(y, gy, g []float64, add int)
// g[i] = gy[i] where y[i] > 0, else 0 (add = 0), or g[i] += that (add = 1), for len(y) a
// multiple of 4.
TEXT ·reluBackAVX(SB), NOSPLIT, $0-80
	MOVQ   y_base+0(FP), SI
	MOVQ   y_len+8(FP), CX
	MOVQ   gy_base+24(FP), DI
	MOVQ   g_base+48(FP), DX
	MOVQ   add+72(FP), AX
	SHRQ   $2, CX
	JE     bdone
	VXORPD Y1, Y1, Y1
bloop:
	VMOVUPD (SI), Y0
	VCMPPD  $0x0e, Y1, Y0, Y2 // Y2 = (y > 0), predicate GT_OS
	VANDPD  (DI), Y2, Y2
	TESTQ   AX, AX
	JE      bstore
	VADDPD  (DX), Y2, Y2 // g + the masked gy
bstore:
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
// at a time, with the operations of AdamGo in the same order (so the results are identical):
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

// Constants of expAVX2, each repeated in four lanes: log2(e), ln 2 split in a high part with
// trailing zero bits (so that k·ln2hi is exact) and the rest, the Taylor coefficients 1/i! of
// e^r for i = 12…0, the range of the fast path, the shifter 1.5·2⁵² and the exponent bias.
DATA ·expc+0(SB)/8, $0x3ff71547652b82fe  // log2 e
DATA ·expc+8(SB)/8, $0x3ff71547652b82fe
DATA ·expc+16(SB)/8, $0x3ff71547652b82fe
DATA ·expc+24(SB)/8, $0x3ff71547652b82fe
DATA ·expc+32(SB)/8, $0x3fe62e42fee00000  // ln2hi
DATA ·expc+40(SB)/8, $0x3fe62e42fee00000
DATA ·expc+48(SB)/8, $0x3fe62e42fee00000
DATA ·expc+56(SB)/8, $0x3fe62e42fee00000
DATA ·expc+64(SB)/8, $0x3dea39ef35793c76  // ln2lo
DATA ·expc+72(SB)/8, $0x3dea39ef35793c76
DATA ·expc+80(SB)/8, $0x3dea39ef35793c76
DATA ·expc+88(SB)/8, $0x3dea39ef35793c76
DATA ·expc+96(SB)/8, $0x3e21eed8eff8d898  // 1/12!
DATA ·expc+104(SB)/8, $0x3e21eed8eff8d898
DATA ·expc+112(SB)/8, $0x3e21eed8eff8d898
DATA ·expc+120(SB)/8, $0x3e21eed8eff8d898
DATA ·expc+128(SB)/8, $0x3e5ae64567f544e4  // 1/11!
DATA ·expc+136(SB)/8, $0x3e5ae64567f544e4
DATA ·expc+144(SB)/8, $0x3e5ae64567f544e4
DATA ·expc+152(SB)/8, $0x3e5ae64567f544e4
DATA ·expc+160(SB)/8, $0x3e927e4fb7789f5c  // 1/10!
DATA ·expc+168(SB)/8, $0x3e927e4fb7789f5c
DATA ·expc+176(SB)/8, $0x3e927e4fb7789f5c
DATA ·expc+184(SB)/8, $0x3e927e4fb7789f5c
DATA ·expc+192(SB)/8, $0x3ec71de3a556c734  // 1/9!
DATA ·expc+200(SB)/8, $0x3ec71de3a556c734
DATA ·expc+208(SB)/8, $0x3ec71de3a556c734
DATA ·expc+216(SB)/8, $0x3ec71de3a556c734
DATA ·expc+224(SB)/8, $0x3efa01a01a01a01a  // 1/8!
DATA ·expc+232(SB)/8, $0x3efa01a01a01a01a
DATA ·expc+240(SB)/8, $0x3efa01a01a01a01a
DATA ·expc+248(SB)/8, $0x3efa01a01a01a01a
DATA ·expc+256(SB)/8, $0x3f2a01a01a01a01a  // 1/7!
DATA ·expc+264(SB)/8, $0x3f2a01a01a01a01a
DATA ·expc+272(SB)/8, $0x3f2a01a01a01a01a
DATA ·expc+280(SB)/8, $0x3f2a01a01a01a01a
DATA ·expc+288(SB)/8, $0x3f56c16c16c16c17  // 1/6!
DATA ·expc+296(SB)/8, $0x3f56c16c16c16c17
DATA ·expc+304(SB)/8, $0x3f56c16c16c16c17
DATA ·expc+312(SB)/8, $0x3f56c16c16c16c17
DATA ·expc+320(SB)/8, $0x3f81111111111111  // 1/5!
DATA ·expc+328(SB)/8, $0x3f81111111111111
DATA ·expc+336(SB)/8, $0x3f81111111111111
DATA ·expc+344(SB)/8, $0x3f81111111111111
DATA ·expc+352(SB)/8, $0x3fa5555555555555  // 1/4!
DATA ·expc+360(SB)/8, $0x3fa5555555555555
DATA ·expc+368(SB)/8, $0x3fa5555555555555
DATA ·expc+376(SB)/8, $0x3fa5555555555555
DATA ·expc+384(SB)/8, $0x3fc5555555555555  // 1/3!
DATA ·expc+392(SB)/8, $0x3fc5555555555555
DATA ·expc+400(SB)/8, $0x3fc5555555555555
DATA ·expc+408(SB)/8, $0x3fc5555555555555
DATA ·expc+416(SB)/8, $0x3fe0000000000000  // 1/2!
DATA ·expc+424(SB)/8, $0x3fe0000000000000
DATA ·expc+432(SB)/8, $0x3fe0000000000000
DATA ·expc+440(SB)/8, $0x3fe0000000000000
DATA ·expc+448(SB)/8, $0x3ff0000000000000  // 1
DATA ·expc+456(SB)/8, $0x3ff0000000000000
DATA ·expc+464(SB)/8, $0x3ff0000000000000
DATA ·expc+472(SB)/8, $0x3ff0000000000000
DATA ·expc+480(SB)/8, $0xc086200000000000  // −708
DATA ·expc+488(SB)/8, $0xc086200000000000
DATA ·expc+496(SB)/8, $0xc086200000000000
DATA ·expc+504(SB)/8, $0xc086200000000000
DATA ·expc+512(SB)/8, $0x4086200000000000  // 708
DATA ·expc+520(SB)/8, $0x4086200000000000
DATA ·expc+528(SB)/8, $0x4086200000000000
DATA ·expc+536(SB)/8, $0x4086200000000000
DATA ·expc+544(SB)/8, $0x4338000000000000  // 1.5·2⁵²
DATA ·expc+552(SB)/8, $0x4338000000000000
DATA ·expc+560(SB)/8, $0x4338000000000000
DATA ·expc+568(SB)/8, $0x4338000000000000
DATA ·expc+576(SB)/8, $1023  // exponent bias
DATA ·expc+584(SB)/8, $1023
DATA ·expc+592(SB)/8, $1023
DATA ·expc+600(SB)/8, $1023
GLOBL ·expc(SB), RODATA|NOPTR, $608

// func expAVX2(dst, src []float64) int
// dst[i] = e^src[i] for len(src) a multiple of 4, eight (then four) at a time, while all of
// a group lie in [−708, 708]; it stops before the first group of four that does not (or
// holds a NaN) and returns the number of values done. The pairs of groups run EXP4 with the
// two groups' instructions interleaved (about 1.3× faster than one group after the other:
// their dependency chains overlap); a last single group runs EXP4 itself.
TEXT ·expAVX2(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $2, CX
	XORQ AX, AX
	LEAQ ·expc(SB), R8
epair:
	CMPQ CX, $2
	JLT  esingle
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y4
	VCMPPD   $0x1D, 480(R8), Y0, Y8 // x ≥ −708 (false for NaN)
	VCMPPD   $0x12, 512(R8), Y0, Y9 // x ≤ 708
	VANDPD   Y8, Y9, Y8
	VCMPPD   $0x1D, 480(R8), Y4, Y10 // x ≥ −708 (false for NaN)
	VCMPPD   $0x12, 512(R8), Y4, Y11 // x ≤ 708
	VANDPD   Y10, Y11, Y10
	VANDPD   Y8, Y10, Y8
	VMOVMSKPD Y8, DX
	CMPQ     DX, $15
	JNE      esingle
	VMULPD   0(R8), Y0, Y1
	VMULPD   0(R8), Y4, Y5
	VROUNDPD $0, Y1, Y1
	VROUNDPD $0, Y5, Y5
	VMOVAPD  Y0, Y2
	VMOVAPD  Y4, Y6
	VFNMADD231PD 32(R8), Y1, Y2
	VFNMADD231PD 32(R8), Y5, Y6
	VFNMADD231PD 64(R8), Y1, Y2
	VFNMADD231PD 64(R8), Y5, Y6
	VMOVAPD  96(R8), Y3
	VMOVAPD  96(R8), Y7
	VFMADD213PD 128(R8), Y2, Y3
	VFMADD213PD 128(R8), Y6, Y7
	VFMADD213PD 160(R8), Y2, Y3
	VFMADD213PD 160(R8), Y6, Y7
	VFMADD213PD 192(R8), Y2, Y3
	VFMADD213PD 192(R8), Y6, Y7
	VFMADD213PD 224(R8), Y2, Y3
	VFMADD213PD 224(R8), Y6, Y7
	VFMADD213PD 256(R8), Y2, Y3
	VFMADD213PD 256(R8), Y6, Y7
	VFMADD213PD 288(R8), Y2, Y3
	VFMADD213PD 288(R8), Y6, Y7
	VFMADD213PD 320(R8), Y2, Y3
	VFMADD213PD 320(R8), Y6, Y7
	VFMADD213PD 352(R8), Y2, Y3
	VFMADD213PD 352(R8), Y6, Y7
	VFMADD213PD 384(R8), Y2, Y3
	VFMADD213PD 384(R8), Y6, Y7
	VFMADD213PD 416(R8), Y2, Y3
	VFMADD213PD 416(R8), Y6, Y7
	VFMADD213PD 448(R8), Y2, Y3
	VFMADD213PD 448(R8), Y6, Y7
	VFMADD213PD 448(R8), Y2, Y3
	VFMADD213PD 448(R8), Y6, Y7
	VADDPD   544(R8), Y1, Y1
	VADDPD   544(R8), Y5, Y5
	VPADDQ   576(R8), Y1, Y1
	VPADDQ   576(R8), Y5, Y5
	VPSLLQ   $52, Y1, Y1
	VPSLLQ   $52, Y5, Y5
	VMULPD   Y1, Y3, Y3
	VMULPD   Y5, Y7, Y7
	VMOVUPD  Y3, (DI)(AX*8)
	VMOVUPD  Y7, 32(DI)(AX*8)
	ADDQ     $8, AX
	SUBQ     $2, CX
	JMP      epair
esingle:
	TESTQ CX, CX
	JE    edone
	VMOVUPD (SI)(AX*8), Y0
	VCMPPD   $0x1D, 480(R8), Y0, Y8 // x ≥ −708 (false for NaN)
	VCMPPD   $0x12, 512(R8), Y0, Y9 // x ≤ 708
	VANDPD   Y8, Y9, Y8
	VMOVMSKPD Y8, DX
	CMPQ     DX, $15
	JNE      edone
	EXP4(Y0, Y1, Y2, Y3)
	VMOVUPD  Y3, (DI)(AX*8)
	ADDQ     $4, AX
	DECQ     CX
	JMP      esingle
edone:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

// func eluAVX2(dst, src []float64, c *[2]float64)
// c = {scale, sa}: dst[i] = scale·max(x, 0) + sa·(e^t − 1), t = max(min(x, 0), −708), for
// len(src) a multiple of 4 (see eluVec). e^t is expAVX2's polynomial without its range check:
// t never leaves [−708, 0], where e^−708 − 1 already rounds to −1; a NaN x propagates.
TEXT ·eluAVX2(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	MOVQ c+48(FP), DX
	SHRQ $2, CX
	JE   eludone
	LEAQ ·expc(SB), R8
	VBROADCASTSD (DX), Y12
	VBROADCASTSD 8(DX), Y13
	VMOVUPD      480(R8), Y14 // −708
	VXORPD       Y15, Y15, Y15
eluloop:
	VMOVUPD (SI), Y0
	VMINPD  Y0, Y15, Y1 // min(0, x); a NaN x is returned
	VMAXPD  Y1, Y14, Y1 // max(−708, t); a NaN t is returned
	EXP4(Y1, Y4, Y2, Y3)    // e^t
	VSUBPD   448(R8), Y3, Y3 // e^t − 1
	VMULPD   Y13, Y3, Y3     // sa·(e^t − 1)
	VMAXPD   Y0, Y15, Y1     // max(0, x)
	VFMADD231PD Y12, Y1, Y3  // + scale·max(0, x)
	VMOVUPD  Y3, (DI)
	ADDQ     $32, SI
	ADDQ     $32, DI
	DECQ     CX
	JNE      eluloop
eludone:
	VZEROUPPER
	RET

// func eluBackAVX(y, gy, g []float64, c *[2]float64)
// c = {scale, sa}: g[i] = gy[i]·(y[i] > 0 ? scale : y[i] + sa) for len(y) a multiple of 4.
TEXT ·eluBackAVX(SB), NOSPLIT, $0-80
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	MOVQ gy_base+24(FP), DI
	MOVQ g_base+48(FP), DX
	MOVQ c+72(FP), R8
	SHRQ $2, CX
	JE   ebdone
	VBROADCASTSD (R8), Y12
	VBROADCASTSD 8(R8), Y13
	VXORPD       Y15, Y15, Y15
ebloop:
	VMOVUPD   (SI), Y0
	VCMPPD    $0x0e, Y15, Y0, Y2 // y > 0, predicate GT_OS
	VADDPD    Y13, Y0, Y1        // y + sa
	VBLENDVPD Y2, Y12, Y1, Y1    // scale where y > 0
	VMULPD    (DI), Y1, Y1
	VMOVUPD   Y1, (DX)
	ADDQ      $32, SI
	ADDQ      $32, DI
	ADDQ      $32, DX
	DECQ      CX
	JNE       ebloop
ebdone:
	VZEROUPPER
	RET

// Constants of logAVX2, each repeated in four lanes: the range of the fast path, √2/2, 1, 2, ½,
// ln 2 split as in expc, the coefficients L1…L7 of the reduced logarithm's polynomial (those of
// FreeBSD's e_log.c, which Go's math.Log also uses), 2⁵² + 1022, the mantissa mask and the
// exponent bits of 2⁵².
DATA ·logc+0(SB)/8, $0x0010000000000000  // smallest normal float64
DATA ·logc+8(SB)/8, $0x0010000000000000
DATA ·logc+16(SB)/8, $0x0010000000000000
DATA ·logc+24(SB)/8, $0x0010000000000000
DATA ·logc+32(SB)/8, $0x7fefffffffffffff  // largest finite float64
DATA ·logc+40(SB)/8, $0x7fefffffffffffff
DATA ·logc+48(SB)/8, $0x7fefffffffffffff
DATA ·logc+56(SB)/8, $0x7fefffffffffffff
DATA ·logc+64(SB)/8, $0x3fe6a09e667f3bcd  // √2/2
DATA ·logc+72(SB)/8, $0x3fe6a09e667f3bcd
DATA ·logc+80(SB)/8, $0x3fe6a09e667f3bcd
DATA ·logc+88(SB)/8, $0x3fe6a09e667f3bcd
DATA ·logc+96(SB)/8, $0x3ff0000000000000  // 1
DATA ·logc+104(SB)/8, $0x3ff0000000000000
DATA ·logc+112(SB)/8, $0x3ff0000000000000
DATA ·logc+120(SB)/8, $0x3ff0000000000000
DATA ·logc+128(SB)/8, $0x4000000000000000  // 2
DATA ·logc+136(SB)/8, $0x4000000000000000
DATA ·logc+144(SB)/8, $0x4000000000000000
DATA ·logc+152(SB)/8, $0x4000000000000000
DATA ·logc+160(SB)/8, $0x3fe0000000000000  // ½
DATA ·logc+168(SB)/8, $0x3fe0000000000000
DATA ·logc+176(SB)/8, $0x3fe0000000000000
DATA ·logc+184(SB)/8, $0x3fe0000000000000
DATA ·logc+192(SB)/8, $0x3fe62e42fee00000  // ln2hi
DATA ·logc+200(SB)/8, $0x3fe62e42fee00000
DATA ·logc+208(SB)/8, $0x3fe62e42fee00000
DATA ·logc+216(SB)/8, $0x3fe62e42fee00000
DATA ·logc+224(SB)/8, $0x3dea39ef35793c76  // ln2lo
DATA ·logc+232(SB)/8, $0x3dea39ef35793c76
DATA ·logc+240(SB)/8, $0x3dea39ef35793c76
DATA ·logc+248(SB)/8, $0x3dea39ef35793c76
DATA ·logc+256(SB)/8, $0x3fe5555555555593  // L1
DATA ·logc+264(SB)/8, $0x3fe5555555555593
DATA ·logc+272(SB)/8, $0x3fe5555555555593
DATA ·logc+280(SB)/8, $0x3fe5555555555593
DATA ·logc+288(SB)/8, $0x3fd999999997fa04  // L2
DATA ·logc+296(SB)/8, $0x3fd999999997fa04
DATA ·logc+304(SB)/8, $0x3fd999999997fa04
DATA ·logc+312(SB)/8, $0x3fd999999997fa04
DATA ·logc+320(SB)/8, $0x3fd2492494229359  // L3
DATA ·logc+328(SB)/8, $0x3fd2492494229359
DATA ·logc+336(SB)/8, $0x3fd2492494229359
DATA ·logc+344(SB)/8, $0x3fd2492494229359
DATA ·logc+352(SB)/8, $0x3fcc71c51d8e78af  // L4
DATA ·logc+360(SB)/8, $0x3fcc71c51d8e78af
DATA ·logc+368(SB)/8, $0x3fcc71c51d8e78af
DATA ·logc+376(SB)/8, $0x3fcc71c51d8e78af
DATA ·logc+384(SB)/8, $0x3fc7466496cb03de  // L5
DATA ·logc+392(SB)/8, $0x3fc7466496cb03de
DATA ·logc+400(SB)/8, $0x3fc7466496cb03de
DATA ·logc+408(SB)/8, $0x3fc7466496cb03de
DATA ·logc+416(SB)/8, $0x3fc39a09d078c69f  // L6
DATA ·logc+424(SB)/8, $0x3fc39a09d078c69f
DATA ·logc+432(SB)/8, $0x3fc39a09d078c69f
DATA ·logc+440(SB)/8, $0x3fc39a09d078c69f
DATA ·logc+448(SB)/8, $0x3fc2f112df3e5244  // L7
DATA ·logc+456(SB)/8, $0x3fc2f112df3e5244
DATA ·logc+464(SB)/8, $0x3fc2f112df3e5244
DATA ·logc+472(SB)/8, $0x3fc2f112df3e5244
DATA ·logc+480(SB)/8, $0x43300000000003fe  // 2⁵² + 1022
DATA ·logc+488(SB)/8, $0x43300000000003fe
DATA ·logc+496(SB)/8, $0x43300000000003fe
DATA ·logc+504(SB)/8, $0x43300000000003fe
DATA ·logc+512(SB)/8, $0x000fffffffffffff  // mantissa mask
DATA ·logc+520(SB)/8, $0x000fffffffffffff
DATA ·logc+528(SB)/8, $0x000fffffffffffff
DATA ·logc+536(SB)/8, $0x000fffffffffffff
DATA ·logc+544(SB)/8, $0x4330000000000000  // exponent bits of 2⁵²
DATA ·logc+552(SB)/8, $0x4330000000000000
DATA ·logc+560(SB)/8, $0x4330000000000000
DATA ·logc+568(SB)/8, $0x4330000000000000
GLOBL ·logc(SB), RODATA|NOPTR, $576

// func logAVX2(dst, src []float64) int
// dst[i] = ln src[i] for len(src) a multiple of 4, four at a time, while all of a group are
// normal, positive and finite; it stops before the first group that is not (or holds a NaN)
// and returns the number of values done. The algorithm is math.Log's: x = 2^k·(1 + f) with
// √2/2 ≤ 1 + f < √2, s = f/(2 + f), R = s²·P(s²) (P from L1…L7), and
//
//	ln x = k·ln2hi − ((½f² − (s·(½f² + R) + k·ln2lo)) − f),
//
// with fused multiply-adds, so results may differ from math.Log's in the last bit.
TEXT ·logAVX2(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	SHRQ $2, CX
	XORQ AX, AX
	LEAQ ·logc(SB), R8
lloop:
	TESTQ CX, CX
	JE    ldone
	VMOVUPD (SI)(AX*8), Y0
	VCMPPD  $0x1D, 0(R8), Y0, Y8  // x ≥ smallest normal (false for NaN)
	VCMPPD  $0x12, 32(R8), Y0, Y9 // x ≤ largest finite
	VANDPD  Y8, Y9, Y8
	VMOVMSKPD Y8, DX
	CMPQ    DX, $15
	JNE     ldone
	LOG4(R8)
	VMOVUPD Y12, (DI)(AX*8)
	ADDQ    $4, AX
	DECQ    CX
	JMP     lloop
ldone:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET

// func tanhBackAVX(y, gy, g []float64, add int)
// g[i] = gy[i]·(1 − y[i]·y[i]) (add = 0) or g[i] += gy[i]·(1 − y[i]·y[i]) (add = 1) for tanh
// outputs y, len(y) a multiple of 4: TanhBackGo's operations, each rounded (no fused
// multiply-add).
TEXT ·tanhBackAVX(SB), NOSPLIT, $0-80
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	MOVQ gy_base+24(FP), DI
	MOVQ g_base+48(FP), DX
	MOVQ add+72(FP), AX
	SHRQ $2, CX
	JE   tbdone
	MOVQ         $0x3ff0000000000000, BX
	MOVQ         BX, X3
	VBROADCASTSD X3, Y3 // 1
tbloop:
	VMOVUPD (SI), Y0
	VMULPD  Y0, Y0, Y0 // y²
	VSUBPD  Y0, Y3, Y0 // 1 − y²
	VMULPD  (DI), Y0, Y0 // gy·(1 − y²)
	TESTQ   AX, AX
	JE      tbstore
	VADDPD  (DX), Y0, Y0 // g + gy·(1 − y²)
tbstore:
	VMOVUPD Y0, (DX)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, DX
	DECQ    CX
	JNE     tbloop
tbdone:
	VZEROUPPER
	RET

// func colSumAVX(dst, src []float64, rows, stride int)
// dst[j] += Σ_r src[r·stride + j] for rows ≥ 1, each column summed in row order
// (ColSumAddGo): sixteen columns in four registers over all rows, then four, two and one at
// a time.
TEXT ·colSumAVX(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ stride+56(FP), R9
	SHLQ $3, R9 // the row stride in bytes
cs16:
	CMPQ    CX, $16
	JLT     cs4
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ    SI, AX
	MOVQ    R8, DX
cs16row:
	VADDPD 0(AX), Y0, Y0
	VADDPD 32(AX), Y1, Y1
	VADDPD 64(AX), Y2, Y2
	VADDPD 96(AX), Y3, Y3
	ADDQ   R9, AX
	DECQ   DX
	JNE    cs16row
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	SUBQ    $16, CX
	JMP     cs16
cs4:
	CMPQ    CX, $4
	JLT     cs2
	VMOVUPD (DI), Y0
	MOVQ    SI, AX
	MOVQ    R8, DX
cs4row:
	VADDPD (AX), Y0, Y0
	ADDQ   R9, AX
	DECQ   DX
	JNE    cs4row
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     cs4
cs2:
	CMPQ    CX, $2
	JLT     cs1
	VMOVUPD (DI), X0
	MOVQ    SI, AX
	MOVQ    R8, DX
cs2row:
	VADDPD (AX), X0, X0
	ADDQ   R9, AX
	DECQ   DX
	JNE    cs2row
	VMOVUPD X0, (DI)
	ADDQ    $16, DI
	ADDQ    $16, SI
	SUBQ    $2, CX
cs1:
	CMPQ   CX, $1
	JLT    csdone
	VMOVSD (DI), X0
	MOVQ   SI, AX
	MOVQ   R8, DX
cs1row:
	VADDSD (AX), X0, X0
	ADDQ   R9, AX
	DECQ   DX
	JNE    cs1row
	VMOVSD X0, (DI)
csdone:
	VZEROUPPER
	RET

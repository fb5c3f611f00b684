//go:build amd64 && !noasm

#include "textflag.h"

// 0, 1, …, 7: the lanes' offsets within a block of eight channels.
DATA ·maxPairsLanes+0(SB)/8, $0
DATA ·maxPairsLanes+8(SB)/8, $1
DATA ·maxPairsLanes+16(SB)/8, $2
DATA ·maxPairsLanes+24(SB)/8, $3
DATA ·maxPairsLanes+32(SB)/8, $4
DATA ·maxPairsLanes+40(SB)/8, $5
DATA ·maxPairsLanes+48(SB)/8, $6
DATA ·maxPairsLanes+56(SB)/8, $7
GLOBL ·maxPairsLanes(SB), RODATA|NOPTR, $64

// PAIR compares the channels of mask KM at SI (first position) and SI + 8c (second), stores
// the winners at DI and their indices, BX plus the lanes' offsets (Z7) plus c (Z6) where the
// second wins, at R10. MaxStep's rule: the second wins where it is greater (GT_OQ, 0x1e) or
// NaN (UNORD_Q, 3) while the first is not (ORD_Q, 7).
#define PAIR(KM) \
	VMOVUPD.Z    (SI), KM, Z0 \
	VMOVUPD.Z    (SI)(R12*1), KM, Z1 \
	VCMPPD       $0x1e, Z0, Z1, K3 \
	VCMPPD       $3, Z1, Z1, K4 \
	VCMPPD       $7, Z0, Z0, K5 \
	KANDB        K4, K5, K4 \
	KORB         K3, K4, K3 \
	VBLENDMPD    Z1, Z0, K3, Z2 \
	VMOVUPD      Z2, KM, (DI) \
	VPBROADCASTQ BX, Z5 \
	VPADDQ       Z7, Z5, Z5 \
	VPADDQ       Z6, Z5, K3, Z5 \
	VMOVDQU64    Z5, KM, (R10)

// func maxPairsAVX512(y []float64, arg []int, x []float64, c, rows, offset int, tail uint64)
// MaxPairsGo for rows ≥ 1 and c ≥ 1: each row's channels eight at a time, the last block
// of c mod 8 channels under the mask tail (none when 0).
TEXT ·maxPairsAVX512(SB), NOSPLIT, $0-104
	MOVQ         y_base+0(FP), DI
	MOVQ         arg_base+24(FP), R10
	MOVQ         x_base+48(FP), SI
	MOVQ         c+72(FP), CX
	MOVQ         rows+80(FP), R8
	MOVQ         offset+88(FP), BX
	MOVQ         tail+96(FP), AX
	KMOVB        AX, K2
	MOVQ         $0xff, AX
	KMOVB        AX, K1
	VPBROADCASTQ CX, Z6
	VMOVDQU64    ·maxPairsLanes(SB), Z7
	MOVQ         CX, R12
	SHLQ         $3, R12 // 8c: the second position's offset in bytes
	MOVQ         CX, R13
	SHRQ         $3, R13 // full blocks of eight channels per row
	MOVQ         CX, R14
	ANDQ         $7, R14 // channels of the last block
mprow:
	MOVQ R13, DX
	TESTQ DX, DX
	JE   mptail
mpblock:
	PAIR(K1)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R10
	ADDQ $8, BX
	DECQ DX
	JNE  mpblock
mptail:
	TESTQ R14, R14
	JE    mpnext
	PAIR(K2)
	LEAQ (SI)(R14*8), SI
	LEAQ (DI)(R14*8), DI
	LEAQ (R10)(R14*8), R10
	ADDQ R14, BX
mpnext:
	ADDQ R12, SI // past the row's second position
	ADDQ CX, BX
	DECQ R8
	JNE  mprow
	VZEROUPPER
	RET

// func copyRunsAVX512(dst, src []float64, n, dstStride, srcStride int, mask uint64)
// CopyRunsGo for n ≥ 1 runs of at most eight values: one masked load and store per run.
TEXT ·copyRunsAVX512(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  n+48(FP), CX
	MOVQ  dstStride+56(FP), R8
	MOVQ  srcStride+64(FP), R9
	MOVQ  mask+72(FP), AX
	KMOVB AX, K1
	SHLQ  $3, R8
	SHLQ  $3, R9
crloop:
	VMOVUPD.Z (SI), K1, Z0
	VMOVUPD   Z0, K1, (DI)
	ADDQ      R9, SI
	ADDQ      R8, DI
	DECQ      CX
	JNE       crloop
	VZEROUPPER
	RET

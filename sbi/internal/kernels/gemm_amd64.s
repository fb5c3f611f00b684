//go:build amd64 && !noasm

#include "textflag.h"

// func kernel6x8(k int, a *float64, rs, cs int, b, c *float64, ldc int, d *float64, ldd int)
//
// C[0:6, 0:8] = D + A·Bp for a 6×k block of A whose element (r, l) is a[r*rs + l*cs] (a packed
// panel has rs = 1, cs = 6; rows of a row-major matrix read in place have rs = lda, cs = 1)
// and a packed k×8 panel of B (Bp[l*8+j]); C is row-major with row stride ldc, and row r of D
// starts at d + r·ldd: D = C (d = c, ldd = ldc) accumulates, a bias row (ldd = 0) adds the
// bias to every row without reading C first. Twelve ymm
// accumulators hold the 6×8 block; every step of l broadcasts six values of A against two
// vectors of B (12 FMAs).
TEXT ·kernel6x8(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rs+16(FP), R9
	SHLQ $3, R9
	MOVQ cs+24(FP), R11
	SHLQ $3, R11
	MOVQ b+32(FP), DI
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R8
	SHLQ $3, R8
	LEAQ (SI)(R9*2), R10
	ADDQ R9, R10 // row 3

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

	TESTQ CX, CX
	JE    store

loop:
	VMOVUPD      (DI), Y12
	VMOVUPD      32(DI), Y13
	VBROADCASTSD (SI), Y14
	VFMADD231PD  Y12, Y14, Y0
	VFMADD231PD  Y13, Y14, Y1
	VBROADCASTSD (SI)(R9*1), Y15
	VFMADD231PD  Y12, Y15, Y2
	VFMADD231PD  Y13, Y15, Y3
	VBROADCASTSD (SI)(R9*2), Y14
	VFMADD231PD  Y12, Y14, Y4
	VFMADD231PD  Y13, Y14, Y5
	VBROADCASTSD (R10), Y15
	VFMADD231PD  Y12, Y15, Y6
	VFMADD231PD  Y13, Y15, Y7
	VBROADCASTSD (R10)(R9*1), Y14
	VFMADD231PD  Y12, Y14, Y8
	VFMADD231PD  Y13, Y14, Y9
	VBROADCASTSD (R10)(R9*2), Y15
	VFMADD231PD  Y12, Y15, Y10
	VFMADD231PD  Y13, Y15, Y11
	ADDQ         R11, SI
	ADDQ         R11, R10
	ADDQ         $64, DI
	DECQ         CX
	JNE          loop

store:
	MOVQ d+56(FP), BX
	MOVQ ldd+64(FP), R12
	SHLQ $3, R12
	VADDPD  (BX), Y0, Y0
	VMOVUPD Y0, (DX)
	VADDPD  32(BX), Y1, Y1
	VMOVUPD Y1, 32(DX)
	ADDQ    R8, DX
	ADDQ    R12, BX
	VADDPD  (BX), Y2, Y2
	VMOVUPD Y2, (DX)
	VADDPD  32(BX), Y3, Y3
	VMOVUPD Y3, 32(DX)
	ADDQ    R8, DX
	ADDQ    R12, BX
	VADDPD  (BX), Y4, Y4
	VMOVUPD Y4, (DX)
	VADDPD  32(BX), Y5, Y5
	VMOVUPD Y5, 32(DX)
	ADDQ    R8, DX
	ADDQ    R12, BX
	VADDPD  (BX), Y6, Y6
	VMOVUPD Y6, (DX)
	VADDPD  32(BX), Y7, Y7
	VMOVUPD Y7, 32(DX)
	ADDQ    R8, DX
	ADDQ    R12, BX
	VADDPD  (BX), Y8, Y8
	VMOVUPD Y8, (DX)
	VADDPD  32(BX), Y9, Y9
	VMOVUPD Y9, 32(DX)
	ADDQ    R8, DX
	ADDQ    R12, BX
	VADDPD  (BX), Y10, Y10
	VMOVUPD Y10, (DX)
	VADDPD  32(BX), Y11, Y11
	VMOVUPD Y11, 32(DX)
	VZEROUPPER
	RET

// FMA16 is one step of l of kernel6x16: the six values of A's column l (SI, R10, stride R9)
// times the row of B in Z12, Z13, added to the accumulators Z0–Z11; it moves SI and R10 to
// the next column (R11).
#define FMA16 \
	VBROADCASTSD (SI), Z14 \
	VFMADD231PD  Z12, Z14, Z0 \
	VFMADD231PD  Z13, Z14, Z1 \
	VBROADCASTSD (SI)(R9*1), Z15 \
	VFMADD231PD  Z12, Z15, Z2 \
	VFMADD231PD  Z13, Z15, Z3 \
	VBROADCASTSD (SI)(R9*2), Z14 \
	VFMADD231PD  Z12, Z14, Z4 \
	VFMADD231PD  Z13, Z14, Z5 \
	VBROADCASTSD (R10), Z15 \
	VFMADD231PD  Z12, Z15, Z6 \
	VFMADD231PD  Z13, Z15, Z7 \
	VBROADCASTSD (R10)(R9*1), Z14 \
	VFMADD231PD  Z12, Z14, Z8 \
	VFMADD231PD  Z13, Z14, Z9 \
	VBROADCASTSD (R10)(R9*2), Z15 \
	VFMADD231PD  Z12, Z15, Z10 \
	VFMADD231PD  Z13, Z15, Z11 \
	ADDQ R11, SI \
	ADDQ R11, R10

// STORE16(A0, A1) finishes one row of kernel6x16's tile: adds the row of D (BX) to the
// accumulators A0, A1, applies the floor (Z14) and stores the columns of K1, K2 to C (DX), then
// moves DX and BX to the next row.
#define STORE16(A0, A1) \
	VMOVUPD.Z (BX), K1, Z12 \
	VADDPD    Z12, A0, A0 \
	VMAXPD    A0, Z14, A0 \
	VMOVUPD   A0, K1, (DX) \
	VMOVUPD.Z 64(BX), K2, Z13 \
	VADDPD    Z13, A1, A1 \
	VMAXPD    A1, Z14, A1 \
	VMOVUPD   A1, K2, 64(DX) \
	ADDQ      R8, DX \
	ADDQ      R12, BX

// func kernel6x16(k int, a *float64, rs, cs int, b, c *float64, ldc int, d *float64, ldd int, cols uint16, floor float64, ldb int)
//
// kernel6x8 with AVX-512: C[0:6, 0:16] = max(D + A·B, floor) for a 6×k block of A addressed
// as in kernel6x8 and k rows of 16 columns of B, row l at b + l·ldb (a packed panel has
// ldb = 16; a row-major B read in place its row stride), twelve zmm accumulators, 12 FMAs of 8
// lanes per step of l. Only the columns whose bit is set in cols are read from B and D and
// written to C (masked loads and stores: a narrow panel needs no copy; the other columns of B
// count as zeros). floor is −Inf, or 0 for a fused ReLU; the maximum keeps NaN and −0 (as
// reluAVX).
TEXT ·kernel6x16(SB), NOSPLIT, $0-96
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rs+16(FP), R9
	SHLQ $3, R9
	MOVQ cs+24(FP), R11
	SHLQ $3, R11
	MOVQ b+32(FP), DI
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R8
	SHLQ $3, R8
	MOVQ ldb+88(FP), R13
	SHLQ $3, R13
	MOVQ cols+72(FP), AX
	KMOVW AX, K1 // columns 0…7
	SHRQ $8, AX
	KMOVW AX, K2 // columns 8…15
	LEAQ (SI)(R9*2), R10
	ADDQ R9, R10 // row 3
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11

	TESTQ CX, CX
	JE    store16

	CMPQ R13, $128
	JNE  strided16 // rows ldb apart (B read in place): masked loads
	MOVQ cols+72(FP), AX
	CMPQ AX, $0xffff
	JNE  strided16 // some columns only: masked loads

loop16: // every column of rows 128 bytes apart (a packed panel)
	VMOVUPD (DI), Z12
	VMOVUPD 64(DI), Z13
	FMA16
	ADDQ $128, DI
	DECQ CX
	JNE  loop16
	JMP  store16

strided16:
	VMOVUPD.Z (DI), K1, Z12
	VMOVUPD.Z 64(DI), K2, Z13
	FMA16
	ADDQ R13, DI
	DECQ CX
	JNE  strided16

store16:
	MOVQ d+56(FP), BX
	MOVQ ldd+64(FP), R12
	SHLQ $3, R12
	VBROADCASTSD floor+80(FP), Z14 // K1, K2: the columns to store
	STORE16(Z0, Z1)
	STORE16(Z2, Z3)
	STORE16(Z4, Z5)
	STORE16(Z6, Z7)
	STORE16(Z8, Z9)
	STORE16(Z10, Z11)
	VZEROUPPER
	RET

//go:build amd64 && !noasm

#include "textflag.h"

// The 12×16 float32 micro-kernel of the convolutions' narrow products (16 columns or fewer):
// SI, R10 = SI + 3·R9, R14 = SI + 5·R9 and DX = SI + 10·R9 walk the twelve rows of A (R9 = ra
// in bytes; every step of l moves them BX = ka bytes), DI walks B (rows ldb apart), CX counts
// steps of l, R11 and R12 hold the tile's rows of A and C (R8 = ldc in bytes), AX counts
// tiles; Z0–Z11 accumulate rows 0–11, Z19 holds the bias, Z18 the floor, K1 the columns.

// TILE12_START points the row registers and DI at the tile's inputs and panel, sets CX to k
// and zeroes the accumulators.
#define TILE12_START \
	MOVQ k+8(FP), CX \
	MOVQ b+40(FP), DI \
	MOVQ R11, SI \
	LEAQ (SI)(R9*2), R10 \
	ADDQ R9, R10 \
	LEAQ (SI)(R9*4), R14 \
	ADDQ R9, R14 \
	LEAQ (SI)(R9*8), DX \
	LEAQ (DX)(R9*2), DX \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11

// STEP12 is one step of l: twelve FMAs of one vector of B with a value of A broadcast from
// memory (embedded broadcasts: one instruction each).
#define STEP12 \
	VMOVUPS.Z    (DI), K1, Z12 \
	VFMADD231PS.BCST (SI), Z12, Z0 \
	VFMADD231PS.BCST (SI)(R9*1), Z12, Z1 \
	VFMADD231PS.BCST (SI)(R9*2), Z12, Z2 \
	VFMADD231PS.BCST (R10), Z12, Z3 \
	VFMADD231PS.BCST (SI)(R9*4), Z12, Z4 \
	VFMADD231PS.BCST (R14), Z12, Z5 \
	VFMADD231PS.BCST (R14)(R9*1), Z12, Z6 \
	VFMADD231PS.BCST (R10)(R9*4), Z12, Z7 \
	VFMADD231PS.BCST (SI)(R9*8), Z12, Z8 \
	VFMADD231PS.BCST (R14)(R9*4), Z12, Z9 \
	VFMADD231PS.BCST (DX), Z12, Z10 \
	VFMADD231PS.BCST (R10)(R9*8), Z12, Z11 \
	ADDQ         BX, SI \
	ADDQ         BX, R10 \
	ADDQ         BX, R14 \
	ADDQ         BX, DX \
	ADDQ         R13, DI

// STORE16B(A) adds the bias to one row, applies the floor, stores the columns of K1 and moves
// DX to the next row; STORE16A(A) adds the row of C instead of the bias.
#define STORE16B(A) \
	VADDPS  Z19, A, A \
	VMAXPS  A, Z18, A \
	VMOVUPS A, K1, (DX) \
	ADDQ    R8, DX

#define STORE16A(A) \
	VMOVUPS.Z (DX), K1, Z16 \
	VADDPS    Z16, A, A \
	VMAXPS    A, Z18, A \
	VMOVUPS   A, K1, (DX) \
	ADDQ      R8, DX

// func sgemm12x16s(blocks, k int, a *float32, ra, ka int, b *float32, ldb int, c *float32, ldc int, bias *float32, floor float32, cols, acc uint32)
//
// sgemm6x32s for at most 16 columns, on tiles of 12×16: C[r, j] = max(S[r, j] + Σ_{l<k}
// A[r, l]·B[l, j], floor) for r < 12·blocks and the columns j < 16 whose bit is set in cols,
// A[r, l] = a[r·ra + l·ka], B[l, j] = b[l·ldb + j], C[r, j] = c[r·ldc + j], S the bias or,
// when acc is 1, C. Every step of l broadcasts twelve values of A against one vector of B, so
// that a product of 16 columns uses all the lanes of its FMAs.
TEXT ·sgemm12x16s(SB), NOSPLIT, $0-92
	MOVQ         blocks+0(FP), AX
	MOVQ         a+16(FP), R11
	MOVQ         ra+24(FP), R9
	SHLQ         $2, R9
	MOVQ         ka+32(FP), BX
	SHLQ         $2, BX
	MOVQ         ldb+48(FP), R13
	SHLQ         $2, R13
	MOVQ         c+56(FP), R12
	MOVQ         ldc+64(FP), R8
	SHLQ         $2, R8
	MOVQ         bias+72(FP), CX
	VMOVUPS      (CX), Z19
	VBROADCASTSS floor+80(FP), Z18
	MOVL         cols+84(FP), CX
	KMOVW        CX, K1
	TESTQ        AX, AX
	JE           done

tile:
	TILE12_START
	TESTQ CX, CX
	JE    store

loop:
	STEP12
	DECQ CX
	JNE  loop

store:
	MOVQ R12, DX
	CMPL acc+88(FP), $0
	JNE  accum
	STORE16B(Z0)
	STORE16B(Z1)
	STORE16B(Z2)
	STORE16B(Z3)
	STORE16B(Z4)
	STORE16B(Z5)
	STORE16B(Z6)
	STORE16B(Z7)
	STORE16B(Z8)
	STORE16B(Z9)
	STORE16B(Z10)
	STORE16B(Z11)
	JMP  next

accum:
	STORE16A(Z0)
	STORE16A(Z1)
	STORE16A(Z2)
	STORE16A(Z3)
	STORE16A(Z4)
	STORE16A(Z5)
	STORE16A(Z6)
	STORE16A(Z7)
	STORE16A(Z8)
	STORE16A(Z9)
	STORE16A(Z10)
	STORE16A(Z11)

next:
	LEAQ (R11)(R9*8), R11
	LEAQ (R11)(R9*4), R11
	LEAQ (R12)(R8*8), R12
	LEAQ (R12)(R8*4), R12
	DECQ AX
	JNE  tile

done:
	VZEROUPPER
	RET

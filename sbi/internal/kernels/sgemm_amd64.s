//go:build amd64 && !noasm

#include "textflag.h"

// The two float32 micro-kernels of MADE evaluation share their registers and all but the
// store: SI, R10 walk rows 0 and 3 of A (R9 = lda in bytes), DI walks the packed panel, CX
// counts steps of l, DX points at the tile's first row of C (R8 = ldc in bytes), R11 and R12
// hold the tile's rows of A and C, AX counts tiles; Z0–Z11 accumulate, Z19–Z20 hold the bias
// and Z18 the floor.

// TILE_START points SI, R10, DX at the tile's inputs and outputs, sets CX to k and zeroes the
// accumulators (each kernel points DI at the panel, its b, first).
#define TILE_START \
	MOVQ k+8(FP), CX \
	MOVQ R11, SI \
	LEAQ (SI)(R9*2), R10 \
	ADDQ R9, R10 \
	MOVQ R12, DX \
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

// STEP is one step of l: six broadcasts of A against the panel's two vectors, 12 FMAs.
#define STEP \
	VMOVUPS (DI), Z12 \
	VMOVUPS 64(DI), Z13 \
	VBROADCASTSS (SI), Z14 \
	VFMADD231PS Z12, Z14, Z0 \
	VFMADD231PS Z13, Z14, Z1 \
	VBROADCASTSS (SI)(R9*1), Z15 \
	VFMADD231PS Z12, Z15, Z2 \
	VFMADD231PS Z13, Z15, Z3 \
	VBROADCASTSS (SI)(R9*2), Z14 \
	VFMADD231PS Z12, Z14, Z4 \
	VFMADD231PS Z13, Z14, Z5 \
	VBROADCASTSS (R10), Z15 \
	VFMADD231PS Z12, Z15, Z6 \
	VFMADD231PS Z13, Z15, Z7 \
	VBROADCASTSS (R10)(R9*1), Z14 \
	VFMADD231PS Z12, Z14, Z8 \
	VFMADD231PS Z13, Z14, Z9 \
	VBROADCASTSS (R10)(R9*2), Z15 \
	VFMADD231PS Z12, Z15, Z10 \
	VFMADD231PS Z13, Z15, Z11 \
	ADDQ $4, SI \
	ADDQ $4, R10 \
	ADDQ $128, DI

// NEXT_TILE moves R11 and R12 six rows on.
#define NEXT_TILE \
	LEAQ (R11)(R9*4), R11 \
	LEAQ (R11)(R9*2), R11 \
	LEAQ (R12)(R8*4), R12 \
	LEAQ (R12)(R8*2), R12

// FINISH(A0, A1) adds the bias to a row's two accumulators and applies the floor.
#define FINISH(A0, A1) \
	VADDPS Z19, A0, A0 \
	VMAXPS A0, Z18, A0 \
	VADDPS Z20, A1, A1 \
	VMAXPS A1, Z18, A1

// STORE32(A0, A1) stores one row of the tile as float32 and moves DX to the next row.
#define STORE32(A0, A1) \
	FINISH(A0, A1) \
	VMOVUPS A0, (DX) \
	VMOVUPS A1, 64(DX) \
	ADDQ    R8, DX

// STORE64(A0, Y0, A1, Y1) stores one row of the tile as float64 (Yn: the low half of An),
// only the columns of K1–K4, and moves DX to the next row.
#define STORE64(A0, Y0, A1, Y1) \
	FINISH(A0, A1) \
	VCVTPS2PD     Y0, Z16 \
	VEXTRACTF64X4 $1, A0, Y17 \
	VCVTPS2PD     Y17, Z17 \
	VMOVUPD       Z16, K1, (DX) \
	VMOVUPD       Z17, K2, 64(DX) \
	VCVTPS2PD     Y1, Z16 \
	VEXTRACTF64X4 $1, A1, Y17 \
	VCVTPS2PD     Y17, Z17 \
	VMOVUPD       Z16, K3, 128(DX) \
	VMOVUPD       Z17, K4, 192(DX) \
	ADDQ          R8, DX

// STEPS is STEP for an A whose steps of l are BX bytes apart and a B whose rows are R13
// bytes apart, of which only the columns of K1 and K2 are read; its broadcasts are embedded in
// the FMAs (one instruction each, the value of A loaded twice).
#define STEPS \
	VMOVUPS.Z (DI), K1, Z12 \
	VMOVUPS.Z 64(DI), K2, Z13 \
	VFMADD231PS.BCST (SI), Z12, Z0 \
	VFMADD231PS.BCST (SI), Z13, Z1 \
	VFMADD231PS.BCST (SI)(R9*1), Z12, Z2 \
	VFMADD231PS.BCST (SI)(R9*1), Z13, Z3 \
	VFMADD231PS.BCST (SI)(R9*2), Z12, Z4 \
	VFMADD231PS.BCST (SI)(R9*2), Z13, Z5 \
	VFMADD231PS.BCST (R10), Z12, Z6 \
	VFMADD231PS.BCST (R10), Z13, Z7 \
	VFMADD231PS.BCST (R10)(R9*1), Z12, Z8 \
	VFMADD231PS.BCST (R10)(R9*1), Z13, Z9 \
	VFMADD231PS.BCST (R10)(R9*2), Z12, Z10 \
	VFMADD231PS.BCST (R10)(R9*2), Z13, Z11 \
	ADDQ BX, SI \
	ADDQ BX, R10 \
	ADDQ R13, DI

// STOREB(A0, A1) adds the bias to one row of the tile, applies the floor, stores the columns
// of K1 (0…15) and K2 (16…31) and moves DX to the next row.
#define STOREB(A0, A1) \
	FINISH(A0, A1) \
	VMOVUPS A0, K1, (DX) \
	VMOVUPS A1, K2, 64(DX) \
	ADDQ    R8, DX

// STOREA(A0, A1) adds the row of C (its columns of K1, K2; the others read as 0) instead of
// the bias, applies the floor, stores those columns and moves DX to the next row.
#define STOREA(A0, A1) \
	VMOVUPS.Z (DX), K1, Z16 \
	VMOVUPS.Z 64(DX), K2, Z17 \
	VADDPS    Z16, A0, A0 \
	VMAXPS    A0, Z18, A0 \
	VADDPS    Z17, A1, A1 \
	VMAXPS    A1, Z18, A1 \
	VMOVUPS   A0, K1, (DX) \
	VMOVUPS   A1, K2, 64(DX) \
	ADDQ      R8, DX

// func sgemm6x32(blocks, k int, a *float32, lda int, b, c *float32, ldc int, bias *float32, floor float32)
//
// The float32 micro-kernel of MADE evaluation (package nn, made32.go), AVX-512, over blocks tiles of six
// rows: C[r, j] = max(bias[j] + Σ_{l<k} A[r, l]·Bp[l, j], floor) for r < 6·blocks and j < 32,
// where A[r, l] = a[r·lda + l] (rows of the activations, read in place), Bp is a packed k×32
// panel (Bp[l, j] = b[l·32 + j]) and C[r, j] = c[r·ldc + j]. Twelve zmm accumulators of 16
// lanes hold a 6×32 tile; every step of l broadcasts six values of A against two vectors of
// B (12 FMAs). floor is −Inf, or 0 for a fused ReLU; the maximum keeps NaN (as kernel6x16).
TEXT ·sgemm6x32(SB), NOSPLIT, $0-68
	MOVQ         blocks+0(FP), AX
	MOVQ         a+16(FP), R11
	MOVQ         lda+24(FP), R9
	SHLQ         $2, R9
	MOVQ         c+40(FP), R12
	MOVQ         ldc+48(FP), R8
	SHLQ         $2, R8
	MOVQ         bias+56(FP), BX
	VMOVUPS      (BX), Z19
	VMOVUPS      64(BX), Z20
	VBROADCASTSS floor+64(FP), Z18
	TESTQ        AX, AX
	JE           done

tile:
	MOVQ b+32(FP), DI
	TILE_START
	TESTQ CX, CX
	JE    store

loop:
	STEP
	DECQ CX
	JNE  loop

store:
	STORE32(Z0, Z1)
	STORE32(Z2, Z3)
	STORE32(Z4, Z5)
	STORE32(Z6, Z7)
	STORE32(Z8, Z9)
	STORE32(Z10, Z11)
	NEXT_TILE
	DECQ AX
	JNE  tile

done:
	VZEROUPPER
	RET

// func sgemm6x32to64(blocks, k int, a *float32, lda int, b *float32, c *float64, ldc int, bias *float32, floor float32, cols uint32)
//
// sgemm6x32 storing the tiles as float64 (a MADE's last layer, whose outputs the splines
// read in float64): only the columns whose bit is set in cols are written (masked stores).
TEXT ·sgemm6x32to64(SB), NOSPLIT, $0-72
	MOVQ         blocks+0(FP), AX
	MOVQ         a+16(FP), R11
	MOVQ         lda+24(FP), R9
	SHLQ         $2, R9
	MOVQ         c+40(FP), R12
	MOVQ         ldc+48(FP), R8
	SHLQ         $3, R8
	MOVQ         bias+56(FP), BX
	VMOVUPS      (BX), Z19
	VMOVUPS      64(BX), Z20
	VBROADCASTSS floor+64(FP), Z18
	MOVL         cols+68(FP), BX
	KMOVW        BX, K1 // columns 0…7
	SHRL         $8, BX
	KMOVW        BX, K2 // 8…15
	SHRL         $8, BX
	KMOVW        BX, K3 // 16…23
	SHRL         $8, BX
	KMOVW        BX, K4 // 24…31
	TESTQ        AX, AX
	JE           done

tile:
	MOVQ b+32(FP), DI
	TILE_START
	TESTQ CX, CX
	JE    store

loop:
	STEP
	DECQ CX
	JNE  loop

store:
	STORE64(Z0, Y0, Z1, Y1)
	STORE64(Z2, Y2, Z3, Y3)
	STORE64(Z4, Y4, Z5, Y5)
	STORE64(Z6, Y6, Z7, Y7)
	STORE64(Z8, Y8, Z9, Y9)
	STORE64(Z10, Y10, Z11, Y11)
	NEXT_TILE
	DECQ AX
	JNE  tile

done:
	VZEROUPPER
	RET

// func sgemm6x32s(blocks, k int, a *float32, ra, ka int, b *float32, ldb int, c *float32, ldc int, bias *float32, floor float32, cols, acc uint32)
//
// The float32 micro-kernel of the float32 convolutions (package nn, conv32.go), AVX-512:
// C[r, j] = max(S[r, j] + Σ_{l<k} A[r, l]·B[l, j], floor) for r < 6·blocks and the columns j
// whose bit is set in cols, where A[r, l] = a[r·ra + l·ka] (R9 = ra and BX = ka in bytes),
// B[l, j] = b[l·ldb + j] (rows of a padded input read in place, or a packed panel with
// ldb = 32), C[r, j] = c[r·ldc + j] and S
// is the bias, or C itself when acc is 1. Loads of B and loads and stores of C are masked by
// cols; the maximum keeps NaN.
TEXT ·sgemm6x32s(SB), NOSPLIT, $0-92
	MOVQ         blocks+0(FP), AX
	MOVQ         a+16(FP), R11
	MOVQ         ra+24(FP), R9
	SHLQ         $2, R9
	MOVQ         ldb+48(FP), R13
	SHLQ         $2, R13
	MOVQ         c+56(FP), R12
	MOVQ         ldc+64(FP), R8
	SHLQ         $2, R8
	MOVQ         bias+72(FP), BX
	VMOVUPS      (BX), Z19
	VMOVUPS      64(BX), Z20
	VBROADCASTSS floor+80(FP), Z18
	MOVL         cols+84(FP), BX
	KMOVW        BX, K1 // columns 0…15
	SHRL         $16, BX
	KMOVW        BX, K2 // 16…31
	MOVQ         ka+32(FP), BX
	SHLQ         $2, BX
	TESTQ        AX, AX
	JE           done

tile:
	MOVQ b+40(FP), DI
	TILE_START
	TESTQ CX, CX
	JE    store

loop:
	STEPS
	DECQ CX
	JNE  loop

store:
	CMPL  acc+88(FP), $0
	JNE   accum
	STOREB(Z0, Z1)
	STOREB(Z2, Z3)
	STOREB(Z4, Z5)
	STOREB(Z6, Z7)
	STOREB(Z8, Z9)
	STOREB(Z10, Z11)
	JMP   next

accum:
	STOREA(Z0, Z1)
	STOREA(Z2, Z3)
	STOREA(Z4, Z5)
	STOREA(Z6, Z7)
	STOREA(Z8, Z9)
	STOREA(Z10, Z11)

next:
	NEXT_TILE
	DECQ AX
	JNE  tile

done:
	VZEROUPPER
	RET

//go:build amd64 && !noasm

#include "textflag.h"

// The direct convolution of few taps (ConvTapsGo): the k×16 weights stay in Z8…Z31 (tap l in
// Z(8+2l), Z(9+2l), columns 0…7 and 8…15), four outputs of a row are accumulated in Z0…Z7 at
// once, each tap of each output read once as an embedded broadcast.

// WLOAD(L, W0, W1) loads row L of the weights (AX, rows R14 bytes apart) into W0, W1 under the
// column masks K1, K2, and leaves for wdone after the k-th (CX).
#define WLOAD(L, W0, W1) \
	VMOVUPD.Z (AX), K1, W0 \
	VMOVUPD.Z 64(AX), K2, W1 \
	ADDQ      R14, AX \
	CMPQ      CX, $(L+1) \
	JEQ       wdone

// TAP4(L, W0, W1) adds tap L (offset off[L] from BX) of the four windows at R13, R13 + sa
// (R11), + 2sa, + 3sa (R10) times the weights W0, W1 to the accumulators Z0…Z7, and leaves
// for done4 after the k-th.
#define TAP4(L, W0, W1) \
	MOVQ             (L*8)(BX), AX \
	LEAQ             (R13)(AX*8), R14 \
	VFMADD231PD.BCST (R14), W0, Z0 \
	VFMADD231PD.BCST (R14), W1, Z1 \
	VFMADD231PD.BCST (R14)(R11*1), W0, Z2 \
	VFMADD231PD.BCST (R14)(R11*1), W1, Z3 \
	VFMADD231PD.BCST (R14)(R11*2), W0, Z4 \
	VFMADD231PD.BCST (R14)(R11*2), W1, Z5 \
	VFMADD231PD.BCST (R14)(R10*1), W0, Z6 \
	VFMADD231PD.BCST (R14)(R10*1), W1, Z7 \
	CMPQ             CX, $(L+1) \
	JEQ              done4

// TAP1(L, W0, W1) is TAP4 for the one window at R13 (Z0, Z1), leaving for done1.
#define TAP1(L, W0, W1) \
	MOVQ             (L*8)(BX), AX \
	VFMADD231PD.BCST (R13)(AX*8), W0, Z0 \
	VFMADD231PD.BCST (R13)(AX*8), W1, Z1 \
	CMPQ             CX, $(L+1) \
	JEQ              done1

// STORE(A0, A1) adds the row D (DI) to the accumulators A0, A1 and stores the columns of
// K1, K2 at DX, then moves DX to the next output (R12).
#define STORE(A0, A1) \
	VADDPD  (DI), A0, K1, A0 \
	VMOVUPD A0, K1, (DX) \
	VADDPD  64(DI), A1, K2, A1 \
	VMOVUPD A1, K2, 64(DX) \
	ADDQ    R12, DX

// func convTaps16(rows, cols, k int, a *float64, ra, sa int, off *int, w *float64, ldw int, d, c *float64, ldc int, mask uint64)
//
// ConvTapsGo for rows, cols ≥ 1, 1 ≤ k ≤ 12 and the columns of mask (n ≤ 16, the lowest
// bits): per output row, its outputs four at a time, then one at a time.
TEXT ·convTaps16(SB), NOSPLIT, $0-104
	MOVQ  mask+96(FP), AX
	KMOVW AX, K1 // columns 0…7
	SHRQ  $8, AX
	KMOVW AX, K2 // columns 8…15
	MOVQ  k+16(FP), CX
	MOVQ  w+56(FP), AX
	MOVQ  ldw+64(FP), R14
	SHLQ  $3, R14
	WLOAD(0, Z8, Z9)
	WLOAD(1, Z10, Z11)
	WLOAD(2, Z12, Z13)
	WLOAD(3, Z14, Z15)
	WLOAD(4, Z16, Z17)
	WLOAD(5, Z18, Z19)
	WLOAD(6, Z20, Z21)
	WLOAD(7, Z22, Z23)
	WLOAD(8, Z24, Z25)
	WLOAD(9, Z26, Z27)
	WLOAD(10, Z28, Z29)
	WLOAD(11, Z30, Z31)

wdone:
	MOVQ rows+0(FP), R8
	MOVQ a+24(FP), SI
	MOVQ sa+40(FP), R11
	SHLQ $3, R11
	LEAQ (R11)(R11*2), R10 // 3sa
	MOVQ off+48(FP), BX
	MOVQ d+72(FP), DI
	MOVQ c+80(FP), DX
	MOVQ ldc+88(FP), R12
	SHLQ $3, R12

row:
	MOVQ SI, R13
	MOVQ cols+8(FP), R9
	CMPQ R9, $4
	JLT  single

quad:
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	TAP4(0, Z8, Z9)
	TAP4(1, Z10, Z11)
	TAP4(2, Z12, Z13)
	TAP4(3, Z14, Z15)
	TAP4(4, Z16, Z17)
	TAP4(5, Z18, Z19)
	TAP4(6, Z20, Z21)
	TAP4(7, Z22, Z23)
	TAP4(8, Z24, Z25)
	TAP4(9, Z26, Z27)
	TAP4(10, Z28, Z29)
	TAP4(11, Z30, Z31)

done4:
	STORE(Z0, Z1)
	STORE(Z2, Z3)
	STORE(Z4, Z5)
	STORE(Z6, Z7)
	LEAQ (R13)(R11*4), R13
	SUBQ $4, R9
	CMPQ R9, $4
	JGE  quad

single:
	TESTQ R9, R9
	JEQ   nextrow
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	TAP1(0, Z8, Z9)
	TAP1(1, Z10, Z11)
	TAP1(2, Z12, Z13)
	TAP1(3, Z14, Z15)
	TAP1(4, Z16, Z17)
	TAP1(5, Z18, Z19)
	TAP1(6, Z20, Z21)
	TAP1(7, Z22, Z23)
	TAP1(8, Z24, Z25)
	TAP1(9, Z26, Z27)
	TAP1(10, Z28, Z29)
	TAP1(11, Z30, Z31)

done1:
	STORE(Z0, Z1)
	ADDQ R11, R13
	DECQ R9
	JMP  single

nextrow:
	MOVQ ra+32(FP), AX
	LEAQ (SI)(AX*8), SI
	DECQ R8
	JNE  row
	VZEROUPPER
	RET

// The weight gradient of the direct convolution (ConvGradWGo): the k×16 partial sums stay in
// Z8…Z31 (tap l in Z(8+2l), Z(9+2l)), the row of dY of one output in Z0, Z1, and each tap of
// the output's window is broadcast once into Z2.

// SLOAD(L, S0, S1) loads row L of the partial sums (DI, rows 128 bytes apart) into S0, S1
// under the column masks K1, K2, and leaves for sdone after the k-th (CX).
#define SLOAD(L, S0, S1) \
	VMOVUPD.Z (DI), K1, S0 \
	VMOVUPD.Z 64(DI), K2, S1 \
	ADDQ      $128, DI \
	CMPQ      CX, $(L+1) \
	JEQ       sdone

// GTAP(L, S0, S1) adds tap L (offset off[L] from BX) of the window at R13 times the row of dY
// in Z0, Z1 to S0, S1, and leaves for tdone after the k-th.
#define GTAP(L, S0, S1) \
	MOVQ         (L*8)(BX), AX \
	VBROADCASTSD (R13)(AX*8), Z2 \
	VFMADD231PD  Z0, Z2, S0 \
	VFMADD231PD  Z1, Z2, S1 \
	CMPQ         CX, $(L+1) \
	JEQ          tdone

// GFLUSH(L, S0, S1) sets row L of C (DI, rows R14 bytes apart) to S0, S1 plus itself in the
// columns of K1, K2, clears S0, S1, and leaves for fdone after the k-th.
#define GFLUSH(L, S0, S1) \
	VADDPD  (DI), S0, K1, S0 \
	VMOVUPD S0, K1, (DI) \
	VADDPD  64(DI), S1, K2, S1 \
	VMOVUPD S1, K2, 64(DI) \
	VPXORQ  S0, S0, S0 \
	VPXORQ  S1, S1, S1 \
	ADDQ    R14, DI \
	CMPQ    CX, $(L+1) \
	JEQ     fdone

// SSTORE(L, S0, S1) stores S0, S1 to row L of the partial sums (DI) in the columns of K1,
// K2, and leaves for stdone after the k-th.
#define SSTORE(L, S0, S1) \
	VMOVUPD S0, K1, (DI) \
	VMOVUPD S1, K2, 64(DI) \
	ADDQ    $128, DI \
	CMPQ    CX, $(L+1) \
	JEQ     stdone

// func convGradW16(rows, cols, k int, a *float64, ra, sa int, off *int, dy *float64, lddy int, s, c *float64, ldc, left int, mask uint64) int
//
// ConvGradWGo for rows, cols ≥ 1, 1 ≤ k ≤ 12, 1 ≤ left ≤ 256 and the columns of mask (n ≤
// 16, the lowest bits): output by output, flushing the sums to C where a depth block ends.
TEXT ·convGradW16(SB), NOSPLIT, $0-120
	MOVQ  mask+104(FP), AX
	KMOVW AX, K1 // columns 0…7
	SHRQ  $8, AX
	KMOVW AX, K2 // columns 8…15
	MOVQ  k+16(FP), CX
	MOVQ  s+72(FP), DI
	SLOAD(0, Z8, Z9)
	SLOAD(1, Z10, Z11)
	SLOAD(2, Z12, Z13)
	SLOAD(3, Z14, Z15)
	SLOAD(4, Z16, Z17)
	SLOAD(5, Z18, Z19)
	SLOAD(6, Z20, Z21)
	SLOAD(7, Z22, Z23)
	SLOAD(8, Z24, Z25)
	SLOAD(9, Z26, Z27)
	SLOAD(10, Z28, Z29)
	SLOAD(11, Z30, Z31)

sdone:
	MOVQ rows+0(FP), R8
	MOVQ a+24(FP), SI
	MOVQ sa+40(FP), R11
	SHLQ $3, R11
	MOVQ off+48(FP), BX
	MOVQ dy+56(FP), DX
	MOVQ lddy+64(FP), R12
	SHLQ $3, R12
	MOVQ left+96(FP), R10

grow:
	MOVQ SI, R13
	MOVQ cols+8(FP), R9

gout:
	VMOVUPD.Z (DX), K1, Z0
	VMOVUPD.Z 64(DX), K2, Z1
	GTAP(0, Z8, Z9)
	GTAP(1, Z10, Z11)
	GTAP(2, Z12, Z13)
	GTAP(3, Z14, Z15)
	GTAP(4, Z16, Z17)
	GTAP(5, Z18, Z19)
	GTAP(6, Z20, Z21)
	GTAP(7, Z22, Z23)
	GTAP(8, Z24, Z25)
	GTAP(9, Z26, Z27)
	GTAP(10, Z28, Z29)
	GTAP(11, Z30, Z31)

tdone:
	ADDQ R12, DX
	ADDQ R11, R13
	DECQ R10
	JNE  gnext
	MOVQ c+80(FP), DI
	MOVQ ldc+88(FP), R14
	SHLQ $3, R14
	GFLUSH(0, Z8, Z9)
	GFLUSH(1, Z10, Z11)
	GFLUSH(2, Z12, Z13)
	GFLUSH(3, Z14, Z15)
	GFLUSH(4, Z16, Z17)
	GFLUSH(5, Z18, Z19)
	GFLUSH(6, Z20, Z21)
	GFLUSH(7, Z22, Z23)
	GFLUSH(8, Z24, Z25)
	GFLUSH(9, Z26, Z27)
	GFLUSH(10, Z28, Z29)
	GFLUSH(11, Z30, Z31)

fdone:
	MOVQ $256, R10 // KC

gnext:
	DECQ R9
	JNE  gout
	MOVQ ra+32(FP), AX
	LEAQ (SI)(AX*8), SI
	DECQ R8
	JNE  grow
	MOVQ s+72(FP), DI
	SSTORE(0, Z8, Z9)
	SSTORE(1, Z10, Z11)
	SSTORE(2, Z12, Z13)
	SSTORE(3, Z14, Z15)
	SSTORE(4, Z16, Z17)
	SSTORE(5, Z18, Z19)
	SSTORE(6, Z20, Z21)
	SSTORE(7, Z22, Z23)
	SSTORE(8, Z24, Z25)
	SSTORE(9, Z26, Z27)
	SSTORE(10, Z28, Z29)
	SSTORE(11, Z30, Z31)

stdone:
	MOVQ R10, ret+112(FP)
	VZEROUPPER
	RET

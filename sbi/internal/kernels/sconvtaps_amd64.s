//go:build amd64 && !noasm

#include "textflag.h"

// The direct float32 convolution of few taps (ConvTaps32Go): the k×16 weights stay in
// Z8…Z31 (tap l in Z(8+l)), eight outputs of a row are accumulated in Z0…Z7 at once,
// started at the row D, each tap of each output read once as an embedded broadcast.

// WLOAD32(L, W) loads row L of the weights (AX, rows R14 bytes apart) into W under the column
// mask K1, and leaves for wdone after the k-th (CX).
#define WLOAD32(L, W) \
	VMOVUPS.Z (AX), K1, W \
	ADDQ      R14, AX \
	CMPQ      CX, $(L+1) \
	JEQ       wdone

// TAP8(L, W) adds tap L (offset off[L] from BX) of the eight windows at R13, R13 + sa (R11),
// …, R13 + 7sa (R10 = 3sa) times the weights W to the accumulators Z0…Z7, and leaves for
// done8 after the k-th.
#define TAP8(L, W) \
	MOVQ             (L*8)(BX), AX \
	LEAQ             (R13)(AX*4), R14 \
	LEAQ             (R14)(R11*4), DI \
	VFMADD231PS.BCST (R14), W, Z0 \
	VFMADD231PS.BCST (R14)(R11*1), W, Z1 \
	VFMADD231PS.BCST (R14)(R11*2), W, Z2 \
	VFMADD231PS.BCST (R14)(R10*1), W, Z3 \
	VFMADD231PS.BCST (DI), W, Z4 \
	VFMADD231PS.BCST (DI)(R11*1), W, Z5 \
	VFMADD231PS.BCST (DI)(R11*2), W, Z6 \
	VFMADD231PS.BCST (DI)(R10*1), W, Z7 \
	CMPQ             CX, $(L+1) \
	JEQ              done8

// TAP1(L, W) is TAP8 for the one window at R13 (Z0), leaving for done1.
#define TAP1(L, W) \
	MOVQ             (L*8)(BX), AX \
	VFMADD231PS.BCST (R13)(AX*4), W, Z0 \
	CMPQ             CX, $(L+1) \
	JEQ              done1

// STORE32(A) stores the columns of K1 of the accumulator A at DX, then moves DX to the next
// output (R12).
#define STORE32(A) \
	VMOVUPS A, K1, (DX) \
	ADDQ    R12, DX

// func convTaps32x16(rows, cols, k int, a *float32, ra, sa int, off *int, w *float32, ldw int, d, c *float32, ldc int, mask uint64)
//
// ConvTaps32Go for rows, cols ≥ 1, 1 ≤ k ≤ 24 and the columns of mask (n ≤ 16, the lowest
// bits): per output row, its outputs eight at a time, the last eight of a row of at least
// eight again where fewer are left (the same bits stored twice), and those of a shorter row
// one at a time.
TEXT ·convTaps32x16(SB), NOSPLIT, $0-104
	MOVQ  mask+96(FP), AX
	KMOVW AX, K1
	MOVQ  k+16(FP), CX
	MOVQ  w+56(FP), AX
	MOVQ  ldw+64(FP), R14
	SHLQ  $2, R14
	WLOAD32(0, Z8)
	WLOAD32(1, Z9)
	WLOAD32(2, Z10)
	WLOAD32(3, Z11)
	WLOAD32(4, Z12)
	WLOAD32(5, Z13)
	WLOAD32(6, Z14)
	WLOAD32(7, Z15)
	WLOAD32(8, Z16)
	WLOAD32(9, Z17)
	WLOAD32(10, Z18)
	WLOAD32(11, Z19)
	WLOAD32(12, Z20)
	WLOAD32(13, Z21)
	WLOAD32(14, Z22)
	WLOAD32(15, Z23)
	WLOAD32(16, Z24)
	WLOAD32(17, Z25)
	WLOAD32(18, Z26)
	WLOAD32(19, Z27)
	WLOAD32(20, Z28)
	WLOAD32(21, Z29)
	WLOAD32(22, Z30)
	WLOAD32(23, Z31)

wdone:
	MOVQ rows+0(FP), R8
	MOVQ a+24(FP), SI
	MOVQ sa+40(FP), R11
	SHLQ $2, R11
	LEAQ (R11)(R11*2), R10 // 3sa
	MOVQ off+48(FP), BX
	MOVQ c+80(FP), DX
	MOVQ ldc+88(FP), R12
	SHLQ $2, R12

row:
	MOVQ SI, R13
	MOVQ cols+8(FP), R9
	CMPQ R9, $8
	JLT  single

block:
	MOVQ      d+72(FP), AX
	VMOVUPS.Z (AX), K1, Z0
	VMOVAPS   Z0, Z1
	VMOVAPS   Z0, Z2
	VMOVAPS   Z0, Z3
	VMOVAPS   Z0, Z4
	VMOVAPS   Z0, Z5
	VMOVAPS   Z0, Z6
	VMOVAPS   Z0, Z7
	TAP8(0, Z8)
	TAP8(1, Z9)
	TAP8(2, Z10)
	TAP8(3, Z11)
	TAP8(4, Z12)
	TAP8(5, Z13)
	TAP8(6, Z14)
	TAP8(7, Z15)
	TAP8(8, Z16)
	TAP8(9, Z17)
	TAP8(10, Z18)
	TAP8(11, Z19)
	TAP8(12, Z20)
	TAP8(13, Z21)
	TAP8(14, Z22)
	TAP8(15, Z23)
	TAP8(16, Z24)
	TAP8(17, Z25)
	TAP8(18, Z26)
	TAP8(19, Z27)
	TAP8(20, Z28)
	TAP8(21, Z29)
	TAP8(22, Z30)
	TAP8(23, Z31)

done8:
	STORE32(Z0)
	STORE32(Z1)
	STORE32(Z2)
	STORE32(Z3)
	STORE32(Z4)
	STORE32(Z5)
	STORE32(Z6)
	STORE32(Z7)
	LEAQ (R13)(R11*8), R13
	SUBQ $8, R9
	JEQ  nextrow
	CMPQ R9, $8
	JGE  block

	// 0 < R9 < 8 outputs left: back by 8 − R9 windows and outputs, then one more block
	MOVQ  $8, AX
	SUBQ  R9, AX
	MOVQ  AX, R14
	IMULQ R11, AX
	SUBQ  AX, R13
	IMULQ R12, R14
	SUBQ  R14, DX
	MOVQ  $8, R9
	JMP   block

single:
	MOVQ      d+72(FP), AX
	VMOVUPS.Z (AX), K1, Z0
	TAP1(0, Z8)
	TAP1(1, Z9)
	TAP1(2, Z10)
	TAP1(3, Z11)
	TAP1(4, Z12)
	TAP1(5, Z13)
	TAP1(6, Z14)
	TAP1(7, Z15)
	TAP1(8, Z16)
	TAP1(9, Z17)
	TAP1(10, Z18)
	TAP1(11, Z19)
	TAP1(12, Z20)
	TAP1(13, Z21)
	TAP1(14, Z22)
	TAP1(15, Z23)
	TAP1(16, Z24)
	TAP1(17, Z25)
	TAP1(18, Z26)
	TAP1(19, Z27)
	TAP1(20, Z28)
	TAP1(21, Z29)
	TAP1(22, Z30)
	TAP1(23, Z31)

done1:
	STORE32(Z0)
	ADDQ R11, R13
	DECQ R9
	JNE  single

nextrow:
	MOVQ ra+32(FP), AX
	LEAQ (SI)(AX*4), SI
	DECQ R8
	JNE  row
	VZEROUPPER
	RET

// The weight gradient of the direct float32 convolution (ConvGradW32Go): the k×16 sums stay
// in Z8…Z31 (tap l in Z(8+l)), the row of dY of one output in Z0, and each tap of the
// output's window is read once as an embedded broadcast.

// SLOAD32(L, S) loads row L of the sums (DI, rows 64 bytes apart) into S under the column
// mask K1, and leaves for sdone after the k-th (CX).
#define SLOAD32(L, S) \
	VMOVUPS.Z (DI), K1, S \
	ADDQ      $64, DI \
	CMPQ      CX, $(L+1) \
	JEQ       sdone

// GTAP32(L, S) adds tap L (offset off[L] from BX) of the window at R13 times the row of dY in
// Z0 to S, and leaves for tdone after the k-th.
#define GTAP32(L, S) \
	MOVQ             (L*8)(BX), AX \
	VFMADD231PS.BCST (R13)(AX*4), Z0, S \
	CMPQ             CX, $(L+1) \
	JEQ              tdone

// SSTORE32(L, S) stores S to row L of the sums (DI) in the columns of K1, and leaves for
// stdone after the k-th.
#define SSTORE32(L, S) \
	VMOVUPS S, K1, (DI) \
	ADDQ    $64, DI \
	CMPQ    CX, $(L+1) \
	JEQ     stdone

// func convGradW32x16(rows, cols, k int, a *float32, ra, sa int, off *int, dy *float32, lddy int, s *float32, mask uint64)
//
// ConvGradW32Go for rows, cols ≥ 1, 1 ≤ k ≤ 24 and the columns of mask (n ≤ 16, the lowest
// bits): output by output.
TEXT ·convGradW32x16(SB), NOSPLIT, $0-88
	MOVQ  mask+80(FP), AX
	KMOVW AX, K1
	MOVQ  k+16(FP), CX
	MOVQ  s+72(FP), DI
	SLOAD32(0, Z8)
	SLOAD32(1, Z9)
	SLOAD32(2, Z10)
	SLOAD32(3, Z11)
	SLOAD32(4, Z12)
	SLOAD32(5, Z13)
	SLOAD32(6, Z14)
	SLOAD32(7, Z15)
	SLOAD32(8, Z16)
	SLOAD32(9, Z17)
	SLOAD32(10, Z18)
	SLOAD32(11, Z19)
	SLOAD32(12, Z20)
	SLOAD32(13, Z21)
	SLOAD32(14, Z22)
	SLOAD32(15, Z23)
	SLOAD32(16, Z24)
	SLOAD32(17, Z25)
	SLOAD32(18, Z26)
	SLOAD32(19, Z27)
	SLOAD32(20, Z28)
	SLOAD32(21, Z29)
	SLOAD32(22, Z30)
	SLOAD32(23, Z31)

sdone:
	MOVQ rows+0(FP), R8
	MOVQ a+24(FP), SI
	MOVQ sa+40(FP), R11
	SHLQ $2, R11
	MOVQ off+48(FP), BX
	MOVQ dy+56(FP), DX
	MOVQ lddy+64(FP), R12
	SHLQ $2, R12

grow:
	MOVQ SI, R13
	MOVQ cols+8(FP), R9

gout:
	VMOVUPS.Z (DX), K1, Z0
	GTAP32(0, Z8)
	GTAP32(1, Z9)
	GTAP32(2, Z10)
	GTAP32(3, Z11)
	GTAP32(4, Z12)
	GTAP32(5, Z13)
	GTAP32(6, Z14)
	GTAP32(7, Z15)
	GTAP32(8, Z16)
	GTAP32(9, Z17)
	GTAP32(10, Z18)
	GTAP32(11, Z19)
	GTAP32(12, Z20)
	GTAP32(13, Z21)
	GTAP32(14, Z22)
	GTAP32(15, Z23)
	GTAP32(16, Z24)
	GTAP32(17, Z25)
	GTAP32(18, Z26)
	GTAP32(19, Z27)
	GTAP32(20, Z28)
	GTAP32(21, Z29)
	GTAP32(22, Z30)
	GTAP32(23, Z31)

tdone:
	ADDQ R12, DX
	ADDQ R11, R13
	DECQ R9
	JNE  gout
	MOVQ ra+32(FP), AX
	LEAQ (SI)(AX*4), SI
	DECQ R8
	JNE  grow
	MOVQ s+72(FP), DI
	SSTORE32(0, Z8)
	SSTORE32(1, Z9)
	SSTORE32(2, Z10)
	SSTORE32(3, Z11)
	SSTORE32(4, Z12)
	SSTORE32(5, Z13)
	SSTORE32(6, Z14)
	SSTORE32(7, Z15)
	SSTORE32(8, Z16)
	SSTORE32(9, Z17)
	SSTORE32(10, Z18)
	SSTORE32(11, Z19)
	SSTORE32(12, Z20)
	SSTORE32(13, Z21)
	SSTORE32(14, Z22)
	SSTORE32(15, Z23)
	SSTORE32(16, Z24)
	SSTORE32(17, Z25)
	SSTORE32(18, Z26)
	SSTORE32(19, Z27)
	SSTORE32(20, Z28)
	SSTORE32(21, Z29)
	SSTORE32(22, Z30)
	SSTORE32(23, Z31)

stdone:
	VZEROUPPER
	RET

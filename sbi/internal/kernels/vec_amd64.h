// Vector math macros shared by the assembly files of this package. They read their constants
// from the tables ·expc and ·logc of vec_amd64.s.

// EXP4(X, K, R, P) sets P = e^X for four values of X in [−708, 708], with K and R as scratch
// and R8 pointing at expc: with x = k·ln 2 + r, k = round(x·log2 e), |r| ≤ ln2/2,
// e^x = 2^k · e^r, e^r by its Taylor polynomial of degree 12 (truncation error < 2e−16
// relative), 2^k built in the exponent bits. ExpOne is its scalar twin.
#define EXP4(X, K, R, P) \
	VMULPD       0(R8), X, K \
	VROUNDPD     $0, K, K \
	VMOVAPD      X, R \
	VFNMADD231PD 32(R8), K, R \
	VFNMADD231PD 64(R8), K, R \
	VMOVAPD      96(R8), P \
	VFMADD213PD  128(R8), R, P \
	VFMADD213PD  160(R8), R, P \
	VFMADD213PD  192(R8), R, P \
	VFMADD213PD  224(R8), R, P \
	VFMADD213PD  256(R8), R, P \
	VFMADD213PD  288(R8), R, P \
	VFMADD213PD  320(R8), R, P \
	VFMADD213PD  352(R8), R, P \
	VFMADD213PD  384(R8), R, P \
	VFMADD213PD  416(R8), R, P \
	VFMADD213PD  448(R8), R, P \
	VFMADD213PD  448(R8), R, P \
	VADDPD       544(R8), K, K \
	VPADDQ       576(R8), K, K \
	VPSLLQ       $52, K, K \
	VMULPD       K, P, P

// EXP8(X, K, R, P) is EXP4 on eight lanes: P = e^X for X in [−708, 708], with
// R8 pointing at expc.
#define EXP8(X, K, R, P) \
	VMULPD.BCST       0(R8), X, K \
	VRNDSCALEPD       $0, K, K \
	VMOVAPD           X, R \
	VFNMADD231PD.BCST 32(R8), K, R \
	VFNMADD231PD.BCST 64(R8), K, R \
	VBROADCASTSD      96(R8), P \
	VFMADD213PD.BCST  128(R8), R, P \
	VFMADD213PD.BCST  160(R8), R, P \
	VFMADD213PD.BCST  192(R8), R, P \
	VFMADD213PD.BCST  224(R8), R, P \
	VFMADD213PD.BCST  256(R8), R, P \
	VFMADD213PD.BCST  288(R8), R, P \
	VFMADD213PD.BCST  320(R8), R, P \
	VFMADD213PD.BCST  352(R8), R, P \
	VFMADD213PD.BCST  384(R8), R, P \
	VFMADD213PD.BCST  416(R8), R, P \
	VFMADD213PD.BCST  448(R8), R, P \
	VFMADD213PD.BCST  448(R8), R, P \
	VADDPD.BCST       544(R8), K, K \
	VPADDQ.BCST       576(R8), K, K \
	VPSLLQ            $52, K, K \
	VMULPD            K, P, P

// LOG4(C) sets Y12 = ln Y0 for four normal, positive, finite values (the caller checks the
// range), with Y1–Y11 as scratch and C pointing at logc: math.Log's algorithm, x = 2^k·(1 + f)
// with √2/2 ≤ 1 + f < √2, s = f/(2 + f), R = s²·P(s²) (P from L1…L7), and
//
//	ln x = k·ln2hi − ((½f² − (s·(½f² + R) + k·ln2lo)) − f),
//
// with fused multiply-adds. LogOne is its scalar twin.
#define LOG4(C) \
	VANDPD  512(C), Y0, Y1 \
	VORPD   160(C), Y1, Y1 \
	VPSRLQ  $52, Y0, Y2 \
	VORPD   544(C), Y2, Y2 \
	VSUBPD  480(C), Y2, Y2 \
	VCMPPD  $0x11, 64(C), Y1, Y3 \
	VANDPD  Y3, Y1, Y4 \
	VADDPD  Y4, Y1, Y1 \
	VANDPD  96(C), Y3, Y4 \
	VSUBPD  Y4, Y2, Y2 \
	VSUBPD  96(C), Y1, Y1 \
	VADDPD  128(C), Y1, Y4 \
	VDIVPD  Y4, Y1, Y4 \
	VMULPD  Y4, Y4, Y5 \
	VMULPD  Y5, Y5, Y6 \
	VMOVAPD 448(C), Y7 \
	VFMADD213PD 384(C), Y6, Y7 \
	VFMADD213PD 320(C), Y6, Y7 \
	VFMADD213PD 256(C), Y6, Y7 \
	VMULPD  Y5, Y7, Y7 \
	VMOVAPD 416(C), Y8 \
	VFMADD213PD 352(C), Y6, Y8 \
	VFMADD213PD 288(C), Y6, Y8 \
	VMULPD  Y6, Y8, Y8 \
	VADDPD  Y8, Y7, Y7 \
	VMULPD  Y1, Y1, Y9 \
	VMULPD  160(C), Y9, Y9 \
	VADDPD  Y7, Y9, Y10 \
	VMULPD  224(C), Y2, Y11 \
	VFMADD231PD Y10, Y4, Y11 \
	VSUBPD  Y11, Y9, Y11 \
	VSUBPD  Y1, Y11, Y11 \
	VMULPD  192(C), Y2, Y12 \
	VSUBPD  Y11, Y12, Y12

// Byte offsets in Lanes, shared by the AVX2 and AVX-512 spline kernels (checked by
// TestLanesLayout). Every per-lane vector is 64 bytes long (eight lanes); the AVX2
// kernel uses its first 32.
#define L_V 12288     // v: the points, x (forward) or y (inverse)
#define L_OUT 12352   // out[0]: the result, y (forward) or x (inverse); out[1] (+64): the log-derivative
#define L_NEGB 12480  // c[0]: −B
#define L_TWOB 12544  // c[1]: 2B
#define L_B 12608     // c[2]: B
#define L_MINW 12672  // c[3]: MinBinWidth
#define L_WS 12736    // c[4]: 1 − K·MinBinWidth
#define L_MINH 12800  // c[5]: MinBinHeight
#define L_HS 12864    // c[6]: 1 − K·MinBinHeight
#define L_MIND 12928  // c[7]: MinDerivative
#define L_ONE 12992   // c[8]: 1
#define L_TWO 13056   // c[9]: 2
#define L_MAX 13120   // c[10]: the largest finite float64
#define L_FOUR 13184  // c[11]: 4
#define L_SIGN 13248  // c[12]: −0 (the sign bit)
#define L_RCT 13312   // c[13]: rootCancelTol, 10⁻⁶
#define L_RW 13376    // s[0]: 1/Σ e^(u_w,i − u_w,0)
#define L_RH 13440    // s[1]: 1/Σ e^(u_h,i − u_h,0)
#define L_M1 13504    // s[2]: c_1 ≤ v (false: the point lies in bin 0, whose left δ is 1)
#define L_ML 13568    // s[3]: c_{K−1} ≤ v (the point lies in bin K−1, whose right δ is 1)
#define L_XK 13632    // s[4]: left knot x_k
#define L_WK 13696    // s[5]: bin width w_k
#define L_YK 13760    // s[6]: left knot y_k
#define L_HK 13824    // s[7]: bin height h_k
#define L_VK1 13888   // s[8]: parameter of δ_{k+1}, then δ_{k+1}
#define L_DK 13952    // s[9]: δ_k
#define L_ROWS 14016  // rows: the parameters of each lane

// Package kernels holds the numerical kernels of package nn that have assembly twins: the
// matrix-product micro-tiles (float64 and float32), the vector operations (ReLU and its
// derivative, Adam's update, exp, log, ELU/SELU and its derivative) and the vector evaluation
// of rational-quadratic splines, with the CPU feature detection that chooses among them.
// Packing, threading and everything differentiable live in package nn; this package knows
// nothing of tensors or tapes.
//
// # The pattern
//
// Every kernel is a pure-Go reference loop, named with the suffix Go (TileGo, ReluGo,
// Tiles32Go, …) or One for a scalar (ExpOne, LogOne), which documents what the kernel computes
// and is what builds without assembly run, and one or more assembly twins in *_amd64.s. The
// exported function without suffix (Tile6x16, Relu, Exp, …) is the dispatch: it checks the
// bounds of its slices (the assembly does not), runs the widest twin the CPU supports and
// the reference loop on what the twin leaves (the tail of a slice shorter than a vector, a
// value outside a vector kernel's range). Tests compare every twin with its reference loop:
// bit for bit where both do the same IEEE operations in the same order (the float64
// micro-tiles, the vector operations), within float32 rounding where the assembly fuses
// multiply-adds that the Go loop cannot (Tiles32). The vector spline kernels are the one
// exception: their reference is the scalar spline of package nn, against which nn's tests
// compare them to the bit (see Lanes).
//
// # Dispatch
//
// AVX2 and AVX512 are read once at start-up (CPUID and XGETBV: the CPU has the instructions
// and the OS saves the registers). Every assembly kernel needs AVX2 with FMA; the 6×16 float64
// micro-tile, the float32 micro-tile and the eight-lane spline kernel need AVX-512F. Builds
// for other architectures, or with the tag noasm, have no assembly: the dispatch functions
// are their reference loops, and AVX2, AVX512, Float32 and LaneCount are false or 0.
package kernels

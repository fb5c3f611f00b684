package kernels

// Lanes is the memory of the vector spline kernels, which evaluate several monotonic
// rational-quadratic splines at once, one per lane: eight with AVX-512 (spline512_amd64.s),
// four with AVX2 (spline_amd64.s, which uses the first four lanes of every vector). Its layout
// is fixed: the assembly addresses the fields by offset (spline_amd64.h, TestLanesLayout).
//
// The kernels have no Go loop of their own: their reference is the scalar spline of package
// transform (knots, evalDeriv, inverse), whose formulas they evaluate lane by lane, and its tests
// compare the two to the bit. Where no kernel runs, RunLanes reports false and the caller
// takes that scalar path.
type Lanes struct {
	U    [3 * MaxBins][MaxLanes]float64 // the parameters, transposed by the kernel: U[p][lane]
	V    [MaxLanes]float64              // the points
	Out  [2][MaxLanes]float64           // the results and the log-derivatives
	C    [14][MaxLanes]float64          // constants (see setLaneConstants in package transform)
	S    [10][MaxLanes]float64          // the kernel's scratch
	Rows [MaxLanes]*float64             // the parameters of each lane (3K−1 values)

	Bins  int     // the splines C holds the constants of (0: none yet)
	Bound float64 // (fields after Rows are Go's only)
}

// MaxBins is the largest number of bins of a spline the kernels evaluate.
const MaxBins = 64

// MaxLanes is the widest vector spline kernel's number of lanes.
const MaxLanes = 8

// Modes of the vector spline kernel.
const (
	LanesForward       = iota // y and log dy/dx at x
	LanesInverse              // x at y
	LanesInverseLogDet        // x and log dx/dy at y
)

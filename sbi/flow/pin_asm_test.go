//go:build amd64 && !noasm

package flow

import (
	"github.com/gosbi/gosbi/sbi/internal/kernels"
	"github.com/gosbi/gosbi/sbi/nn"
)

// useFloat32GoTile makes float32 MADE evaluation run on the Go micro-tile (Tiles32Go) and
// returns a function that restores the previous choice.
func useFloat32GoTile() (restore func()) {
	kernel, forward := kernels.Float32, float32Forward
	kernels.Float32, float32Forward = false, true
	return func() { kernels.Float32, float32Forward = kernel, forward }
}

// exactProducts reports whether the matrix products run on the package's own kernels, whose
// bits the pins hold.
func exactProducts() bool { return kernels.AVX2 && nn.Backend() != "openblas" }

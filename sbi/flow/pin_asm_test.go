//go:build amd64 && !noasm

package flow

import (
	"strings"

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

// exactProducts reports whether every matrix product runs on gosbi's own kernels, whose bits
// the pins hold (as nn.Backend reports it).
func exactProducts() bool {
	b := nn.Backend()
	return kernels.AVX2 && strings.HasPrefix(b, "gosbi's") && strings.HasSuffix(b, "for every product")
}

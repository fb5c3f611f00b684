//go:build !amd64 || noasm

package flow

// useFloat32GoTile makes float32 MADE evaluation run (on the Go micro-tile, the only one in
// this build) and returns a function that restores the previous choice.
func useFloat32GoTile() (restore func()) {
	forward := float32Forward
	float32Forward = true
	return func() { float32Forward = forward }
}

// exactProducts reports false: this build's products are gonum's, whose bits the pins do not
// hold.
func exactProducts() bool { return false }

package npy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gosbi/gosbi/sbi/npy"
	"gonum.org/v1/gonum/mat"
)

// Write and Read work on any stream; the header says the dtype and shape NumPy will see, and
// WriteFloat32 halves the size as np.float32 does.
func ExampleWrite() {
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	var f8, f4 bytes.Buffer
	if err := npy.Write(&f8, m); err != nil {
		fmt.Println(err)
		return
	}
	if err := npy.WriteFloat32(&f4, m); err != nil {
		fmt.Println(err)
		return
	}
	h, err := npy.ReadHeader(bytes.NewReader(f8.Bytes()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Descr, h.Shape, h.Len(), "values")
	back, err := npy.Read(&f4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("float32 read back:", mat.Equal(back, m))
	// Output:
	// <f8 [2 3] 6 values
	// float32 read back: true
}

// WriteNPZFile stores several arrays in one archive, as np.savez_compressed does; np.load (or
// OpenNPZ) finds each under its name.
func ExampleWriteNPZFile() {
	dir, err := os.MkdirTemp("", "npy-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sims.npz")
	theta := mat.NewDense(3, 2, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6})
	weights := mat.NewVecDense(3, []float64{0.5, 0.25, 0.25})
	if err := npy.WriteNPZFile(path, []string{"theta", "weights"}, []mat.Matrix{theta, weights}, true); err != nil {
		fmt.Println(err)
		return
	}
	z, err := npy.OpenNPZ(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer z.Close()
	w, err := z.Vector("weights")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(z.Names(), w)
	// Output: [theta weights] [0.5 0.25 0.25]
}

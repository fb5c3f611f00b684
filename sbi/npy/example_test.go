package npy_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gosbi/gosbi/sbi/npy"
	"gonum.org/v1/gonum/mat"
)

// Simulations made in Python (np.savez("sims.npz", theta=theta, x=x)) come in as matrices,
// one row per simulation; posterior samples go back as a .npy file for np.load.
func Example() {
	z, err := npy.OpenNPZ(filepath.Join("testdata", "stored.npz"))
	if err != nil {
		log.Fatal(err)
	}
	defer z.Close()
	theta, err := z.Dense("theta")
	if err != nil {
		log.Fatal(err)
	}
	r, c := theta.Dims()
	fmt.Printf("theta: %d×%d, first row %.4f\n", r, c, theta.RawRowView(0))

	samples := mat.NewDense(2, 2, []float64{0.1, 0.2, 0.3, 0.4})
	out := filepath.Join(os.TempDir(), "posterior_samples.npy")
	if err := npy.WriteFile(out, samples); err != nil {
		log.Fatal(err)
	}
	defer os.Remove(out)
	back, err := npy.ReadFile(out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read back:", mat.Equal(back, samples))
	// Output:
	// theta: 4×2, first row [-1.3000 -1.1571]
	// read back: true
}

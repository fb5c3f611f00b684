package simstore_test

import (
	"fmt"
	"log"
	"os"

	"github.com/gosbi/gosbi/sbi/simstore"
	"gonum.org/v1/gonum/mat"
)

// Jobs append their simulations to one store (each Append is one chunk file, safe from any
// number of processes); training reads it back in shuffled batches.
func Example() {
	dir, err := os.MkdirTemp("", "store")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := simstore.Create(dir, 1, 2) // θ of 1 value, x of 2
	if err != nil {
		log.Fatal(err)
	}
	for job := 0; job < 3; job++ {
		theta := mat.NewDense(4, 1, nil)
		x := mat.NewDense(4, 2, nil)
		for i := 0; i < 4; i++ {
			v := float64(4*job + i)
			theta.Set(i, 0, v)
			x.SetRow(i, []float64{v, -v})
		}
		if err := s.Append(theta, x); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(s.Len(), "pairs in", s.Chunks(), "chunks")
	it := s.Batches(5, 1)
	defer it.Close()
	for it.Next() {
		theta, _ := it.Batch()
		r, _ := theta.Dims()
		fmt.Print(r, " ")
	}
	fmt.Println(it.Err())
	// Output:
	// 12 pairs in 3 chunks
	// 5 5 2 <nil>
}

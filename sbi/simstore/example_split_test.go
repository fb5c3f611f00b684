package simstore_test

import (
	"fmt"
	"os"

	"github.com/gosbi/gosbi/sbi/simstore"
	"gonum.org/v1/gonum/mat"
)

// A store written by earlier jobs is opened again and divided, by whole chunks, into a training
// and a validation part that read no chunk in common, as TrainStream requires. Which chunks go
// to validation depends on their file names, which are unique to each store, so the sizes of
// the parts differ from store to store: about a fifth of the chunks here, at least one.
func ExampleStore_Split() {
	dir, err := os.MkdirTemp("", "store")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s, err := simstore.Create(dir, 1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 10 { // ten jobs of 100 simulations each
		if err := s.Append(mat.NewDense(100, 1, nil), mat.NewDense(100, 1, nil)); err != nil {
			fmt.Println(err)
			return
		}
	}

	s, err = simstore.Open(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	train, val, err := s.Split(0.2, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, apart := simstore.Shared(train, val)
	_, inStore := simstore.Shared(s, val)
	fmt.Println(s.Len(), "pairs in", s.Chunks(), "chunks")
	fmt.Println("every pair in one part:", train.Len()+val.Len() == s.Len(),
		"whole chunks held out:", val.Len() >= 100 && val.Len()%100 == 0)
	fmt.Println("parts share a chunk:", apart, "validation within the store:", inStore)
	// Output:
	// 1000 pairs in 10 chunks
	// every pair in one part: true whole chunks held out: true
	// parts share a chunk: false validation within the store: true
}

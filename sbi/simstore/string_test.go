package simstore

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestStoreString checks that a store, a part of one and an iterator, shown as a notebook
// cell's value, read as what they hold instead of a dump of their fields (a store's dump
// holds a mutex and a list of every chunk).
func TestStoreString(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sims")
	s, err := Create(dir, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	one, err := Create(filepath.Join(t.TempDir(), "one"), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	empty := fmt.Sprint(s)
	for i, n := range []int{3, 2, 4} {
		if err := s.Append(pairs(10*i, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := one.Append(mat.NewDense(1, 1, []float64{1}), mat.NewDense(1, 1, []float64{2})); err != nil {
		t.Fatal(err)
	}
	// the chunks' names, and so Split's draws, differ from run to run: a seed that leaves a
	// chunk for training (each seed fails with probability 1/8)
	var train, val Source
	for seed := uint64(1); train == nil && seed <= 64; seed++ {
		train, val, err = s.Split(0.5, seed)
	}
	if err != nil {
		t.Fatal(err)
	}
	it := s.Batches(4, 1)
	defer it.Close()
	bad := s.Batches(0, 1)
	defer bad.Close()
	quoted := fmt.Sprintf("%q", s.Dir())
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"empty store", empty, "simstore " + quoted + ": 0 pairs (θ of 2 values, x of 3) in 0 chunks"},
		{"store", fmt.Sprint(s), "simstore " + quoted + ": 9 pairs (θ of 2 values, x of 3) in 3 chunks"},
		{"one of each", fmt.Sprint(one), fmt.Sprintf("simstore %q: 1 pair (θ of 1 value, x of 1) in 1 chunk", one.Dir())},
		{"training part", fmt.Sprint(train), fmt.Sprintf("part of simstore %s: %d pairs (θ of 2 values, x of 3) in %s",
			quoted, train.Len(), count(len(train.(*part).chunks), "chunk"))},
		{"validation part", fmt.Sprint(val), fmt.Sprintf("part of simstore %s: %d pairs (θ of 2 values, x of 3) in %s",
			quoted, val.Len(), count(len(val.(*part).chunks), "chunk"))},
		{"iterator", fmt.Sprint(it), "simstore iterator: batches of 4 rows over 3 chunks"},
		{"failed iterator", fmt.Sprint(bad), "simstore iterator: batches of 0 rows over 3 chunks (failed: Err says why)"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: shown as %q, want %q", c.name, c.got, c.want)
		}
		if strings.Contains(c.got, "{") {
			t.Errorf("%s: shown as a dump of fields: %q", c.name, c.got)
		}
	}
}

package sbi

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gosbi/gosbi/internal/diskfull"
)

// TestSaveFileFailsMidway saves a second estimator over a saved one with a writer that fails
// part-way through the weights: the first file must stay complete and loadable, and no
// temporary file may be left.
func TestSaveFileFailsMidway(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	prior, theta, x := gaussianPairs(rng, 200)
	train := func(seed uint64) *NPE {
		e := NewNPE(prior, NPEConfig{Hidden: 32, Transforms: 2})
		if _, err := e.Train(theta, x, TrainConfig{Epochs: 1, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		return e
	}
	first, second := train(1), train(2)
	path := filepath.Join(t.TempDir(), "npe.gosbi")
	if err := first.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var full bytes.Buffer
	if err := second.Save(&full); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 64, full.Len() / 2, full.Len() - 1} {
		err := saveFile(path, func(w io.Writer) error { return second.Save(&diskfull.Writer{W: w, Room: n}) })
		if !errors.Is(err, diskfull.ErrFull) {
			t.Fatalf("save failing after %d of %d bytes: error %v, want the writer's", n, full.Len(), err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
			t.Fatalf("save failing after %d of %d bytes left %d bytes, want the old %d", n, full.Len(), len(got), len(old))
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Errorf("save failing after %d bytes left %d files, want 1", n, len(entries))
		}
	}
	loaded, err := LoadNPEFile(path, prior)
	if err != nil {
		t.Fatalf("the old file no longer loads: %v", err)
	}
	a, b := first.LogProbPairs(theta, x), loaded.LogProbPairs(theta, x)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("the file kept after failed saves gives %v at pair %d, the first estimator %v", b[i], i, a[i])
		}
	}
	if err := second.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, full.Bytes()) {
		t.Errorf("a successful SaveFile wrote %d bytes, want the %d of Save", len(got), full.Len())
	}
}

// Command storebench trains NPE from a simulation store on disk and reports the process's
// peak resident memory, to show that training from a store needs memory independent of the
// number of simulations.
//
//	go run ./tools/storebench [-n 1000000] [-dim 100] [-chunk 10000] [-epochs 1] [-dir DIR] [-json]
//
// It simulates n pairs of a linear-Gaussian model with 2 parameters and a dim-dimensional x
// (x = A·θ + noise, A fixed), appends them to a new store in chunks of chunk rows (in a
// temporary directory, removed at the end, unless -dir is given), trains a small NPE from
// the store for the given epochs (about 10% of the chunks held out for validation, by
// simstore.Split) and prints the peak resident set size (getrusage's ru_maxrss) after
// simulating and after training, with the times. go run ./tools/benchmarks runs it at two sizes for BENCHMARKS.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/simstore"
	"gonum.org/v1/gonum/mat"
)

// Result is what the command measures; -json prints it as one JSON object.
type Result struct {
	N, Dim, Chunk  int
	StoreBytes     int64
	SimulateSec    float64
	TrainSec       float64
	Epochs         int
	PeakRSSSimMB   float64 // after simulating and writing the store
	PeakRSSTrainMB float64 // after training
	ValLoss        float64
}

func main() {
	n := flag.Int("n", 1000000, "simulations")
	dim := flag.Int("dim", 100, "values of x per simulation")
	chunk := flag.Int("chunk", 10000, "simulations per appended chunk")
	epochs := flag.Int("epochs", 1, "training epochs")
	dir := flag.String("dir", "", "store directory (default: a temporary one, removed at the end)")
	asJSON := flag.Bool("json", false, "print the result as JSON")
	memprofile := flag.String("memprofile", "", "write an allocation profile to this file")
	flag.Parse()
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			runtime.GC()
			f, err := os.Create(*memprofile)
			if err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	res, err := run(*n, *dim, *chunk, *epochs, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "storebench:", err)
		os.Exit(1)
	}
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(res)
		return
	}

	fmt.Printf("%d simulations of %d values in chunks of %d (%.0f MB on disk): simulated in %.1f s, peak RSS %.0f MB\n",
		res.N, res.Dim, res.Chunk, float64(res.StoreBytes)/1e6, res.SimulateSec, res.PeakRSSSimMB)
	fmt.Printf("NPE trained %d epoch(s) from the store in %.1f s (validation loss %.3f), peak RSS %.0f MB\n",
		res.Epochs, res.TrainSec, res.ValLoss, res.PeakRSSTrainMB)
}

func run(n, dim, chunk, epochs int, dir string) (*Result, error) {
	if n < 2*chunk || dim < 1 || chunk < 2 {
		return nil, fmt.Errorf("-n %d, -dim %d, -chunk %d: expected at least two chunks of two rows and dim ≥ 1", n, dim, chunk)
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "storebench-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	res := &Result{N: n, Dim: dim, Chunk: chunk, Epochs: epochs}
	store, err := simstore.Create(dir, 2, dim)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, 2*dim) // the fixed linear map
	for i := range a {
		a[i] = rng.NormFloat64() / 2
	}
	prior := dist.NewStandardNormal(2)
	start := time.Now()
	theta, x := mat.NewDense(chunk, 2, nil), mat.NewDense(chunk, dim, nil)
	for done := 0; done < n; done += chunk {
		k := min(chunk, n-done)
		th, xx := theta.Slice(0, k, 0, 2).(*mat.Dense), x.Slice(0, k, 0, dim).(*mat.Dense)
		for i := 0; i < k; i++ {
			t0, t1 := rng.NormFloat64(), rng.NormFloat64()
			th.Set(i, 0, t0)
			th.Set(i, 1, t1)
			row := xx.RawRowView(i)
			for j := range row {
				row[j] = a[j]*t0 + a[dim+j]*t1 + 0.3*rng.NormFloat64()
			}
		}
		if err := store.Append(th, xx); err != nil {
			return nil, err
		}
	}
	res.SimulateSec = time.Since(start).Seconds()
	res.PeakRSSSimMB = peakRSSMB()
	res.StoreBytes = dirSize(dir)

	train, val, err := store.Split(0.1, 1)
	if err != nil {
		return nil, err
	}
	e := sbi.NewNPE(prior, sbi.NPEConfig{Hidden: 32, Transforms: 2})
	start = time.Now()
	tr, err := e.TrainStream(train, val, sbi.TrainConfig{Epochs: epochs, BatchSize: 256, LearningRate: 1e-3, Seed: 1})
	if err != nil {
		return nil, err
	}
	res.TrainSec = time.Since(start).Seconds()
	res.PeakRSSTrainMB = peakRSSMB()
	res.ValLoss = tr.ValLoss[len(tr.ValLoss)-1]
	return res, nil
}

func dirSize(dir string) int64 {
	var total int64
	ents, _ := os.ReadDir(dir + "/chunks")
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			total += info.Size()
		}
	}
	return total
}

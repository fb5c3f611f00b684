package calib

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/dist"
)

// TestScoreCalibrateProgressCountsFinished: the bar of the refits counts a dataset once its
// refit has run (or it was dropped), not as it starts. The first refit lasts longer than
// sbi.MinInterval, so that the next event is sent; while the refit of dataset m runs, the bar
// must show at most m datasets done, and at the end all of them, the dropped one included.
func TestScoreCalibrateProgressCountsFinished(t *testing.T) {
	const label = "score calibration refits"
	var mu sync.Mutex
	var last runenv.ProgressEvent
	runenv.SetProgress(func(e runenv.ProgressEvent) {
		mu.Lock()
		defer mu.Unlock()
		if e.Label == label {
			last = e
		}
	})
	defer runenv.SetProgress(nil)
	shown := func() runenv.ProgressEvent {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
	rng := rand.New(rand.NewPCG(3, 4))
	simulate := func(rng *rand.Rand, th *mat.Dense) *mat.Dense {
		r, _ := th.Dims()
		x := mat.NewDense(r, 1, nil)
		for i := range r {
			x.Set(i, 0, th.At(i, 0)+rng.NormFloat64())
		}
		x.Set(3, 0, math.NaN()) // a failed simulation: dataset 3 is dropped
		return x
	}
	refitted := []int{0, 1, 2} // the datasets refitted, in order
	calls := 0
	refit := func(rng *rand.Rand, x []float64, n int) (*mat.Dense, error) {
		m := refitted[calls]
		if ev := shown(); ev.Done > m {
			t.Errorf("during the refit of dataset %d the bar shows %d done, want at most %d", m, ev.Done, m)
		}
		if calls++; calls == 1 {
			time.Sleep(sbi.MinInterval + 10*time.Millisecond) // the next Add is sent
		}
		return dist.NewStandardNormal(1).Sample(rng, n), nil
	}
	obs := dist.NewStandardNormal(1).Sample(rng, 50)
	if _, err := ScoreCalibrate(rng, obs, simulate, refit, ScoreCalConfig{M: 4, N: 20}); err != nil {
		t.Fatal(err)
	}
	if ev := shown(); !ev.Finished || ev.Done != 4 {
		t.Errorf("last event %q (Done %d, Finished %v), want 4 of 4 done", ev, ev.Done, ev.Finished)
	}
}

//go:build unix

// The benchmarks report CPU time from getrusage(2).

package study_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/task"
	"github.com/gosbi/gosbi/study"
)

// benchTrainings is the number of trainings in one study of BenchmarkLocalThroughput.
const benchTrainings = 4

func init() {
	// one small training: NRE with a 2×64 SELU MLP (the balanced-nre notebook's quick network)
	// on 4096 two_moons pairs, 10 epochs
	study.Register("bench-train", func(j *study.Job) error {
		t := task.TwoMoons()
		rng := rand.New(rand.NewPCG(j.Seed, 0))
		theta := t.Prior().Sample(rng, 4096)
		x := t.Simulate(rng, theta)
		e := sbi.NewNRE(t.Prior(), sbi.NREConfig{Hidden: []int{64, 64}, Activation: "selu"})
		res, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 10, Patience: 10, BatchSize: 128, LearningRate: 1e-3, Seed: j.Seed})
		if err != nil {
			return err
		}
		j.Set("val_loss", res.ValLoss[len(res.ValLoss)-1])
		return nil
	})
}

// BenchmarkLocalThroughput measures trainings per hour of the local executor running the
// trainings of a study one after another (workers=1, each training using every core) and one
// per core side by side (the default). It reports the CPU time per training too: on a shared
// machine the wall time depends on the other processes' load, the CPU time much less.
func BenchmarkLocalThroughput(b *testing.B) {
	spec := &study.Spec{Name: "bench", Axes: []study.Axis{{Name: "seed", Values: study.Ints(1, 2, 3, 4)}},
		Stages: []study.Stage{{Name: "train", Func: "bench-train"}}}
	benchThroughput(b, spec)
}

// benchScript is bench-train as a script stage: each training in its own `gosbi script`
// process, as the notebooks' studies run.
const benchScript = `j, err := study.Current()
if err != nil {
	panic(err)
}
t := task.TwoMoons()
rng := rand.New(rand.NewPCG(j.Seed, 0))
theta := t.Prior().Sample(rng, 4096)
x := t.Simulate(rng, theta)
e := sbi.NewNRE(t.Prior(), sbi.NREConfig{Hidden: []int{64, 64}, Activation: "selu"})
res, err := e.Train(theta, x, sbi.TrainConfig{Epochs: 10, Patience: 10, BatchSize: 128, LearningRate: 1e-3, Seed: j.Seed})
if err != nil {
	panic(err)
}
j.Set("val_loss", res.ValLoss[len(res.ValLoss)-1])
`

// BenchmarkLocalThroughputScript is BenchmarkLocalThroughput with the trainings in child
// processes (script stages; GOMAXPROCS shared out among the jobs side by side). CPU time
// counts the children.
func BenchmarkLocalThroughputScript(b *testing.B) {
	b.Setenv("GOSBI_STUDY_GOSBI", gosbiForBench(b))
	spec := &study.Spec{Name: "bench", Axes: []study.Axis{{Name: "seed", Values: study.Ints(1, 2, 3, 4)}},
		Stages: []study.Stage{{Name: "train", Source: benchScript}}}
	benchThroughput(b, spec)
}

// benchThroughput runs spec on the local executor with one worker and with one per core, and
// reports trainings per hour and the CPU time per training, of this process and of the
// children it waited for (script stages run in child processes).
func benchThroughput(b *testing.B, spec *study.Spec) {
	for _, w := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, err := study.Create(b.TempDir(), spec, "")
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Run(context.Background(), &study.Local{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			n := float64(b.N * benchTrainings)
			b.ReportMetric(n/b.Elapsed().Hours(), "trainings/h")
			b.ReportMetric((cpuSeconds()-cpu0)/n, "cpu-s/training")
		})
	}
}

// cpuSeconds is the CPU time of this process and of its waited-for children.
func cpuSeconds() float64 {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	ns := self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano()
	return float64(ns) / 1e9
}

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
	for _, w := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			var r0, r1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
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
			syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			n := float64(b.N * benchTrainings)
			cpu := float64(r1.Utime.Nano()-r0.Utime.Nano()+r1.Stime.Nano()-r0.Stime.Nano()) / 1e9
			b.ReportMetric(n/b.Elapsed().Hours(), "trainings/h")
			b.ReportMetric(cpu/n, "cpu-s/training")
		})
	}
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
	for _, w := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			var r0, r1, c0, c1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c0)
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
			syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c1)
			n := float64(b.N * benchTrainings)
			cpu := float64(r1.Utime.Nano()-r0.Utime.Nano()+r1.Stime.Nano()-r0.Stime.Nano()+
				c1.Utime.Nano()-c0.Utime.Nano()+c1.Stime.Nano()-c0.Stime.Nano()) / 1e9
			b.ReportMetric(n/b.Elapsed().Hours(), "trainings/h")
			b.ReportMetric(cpu/n, "cpu-s/training")
		})
	}
}

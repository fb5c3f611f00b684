//go:build unix

// The benchmarks report CPU time from getrusage(2).

package calib_test

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/task"
)

// The training-step benchmarks use the shapes of the reference measurements (lampe on PyTorch
// CPU with 2 threads, two_moons, batch 128, L = 16: DCP-NRE 4.5 ms/step, DCP-NPE with prior
// importance sampling 42.8 ms/step, BNRE 1.64 ms/step) with lampe's default architectures: a
// classifier MLP of 2×64 ReLU units (lampe's MLP default) and a MAF of 3 transforms with 2×64
// hidden ReLU units (zuko's MAF and MaskedMLP defaults; gosbi's MAF defaults to tanh, as
// Python sbi's does). Each reports ms/step (wall) and cpu-ms/step; the plain steps give each
// regularizer's overhead as a ratio.

// benchSteps is the number of batches of 128 in an epoch, and benchEpochs the epochs of one
// Train call: a call also does work once (setting up, and after training the reservoir of the
// observation check, a few milliseconds), which a real training spreads over hundreds of
// epochs; benchEpochs spreads it over 200 steps, so that ms/step measures the steps.
const (
	benchSteps  = 20
	benchEpochs = 10
)

func benchData(b *testing.B) (task.Task, *mat.Dense, *mat.Dense) {
	b.Helper()
	tk, err := task.Get("two_moons")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := tk.Prior().Sample(rng, 128*benchSteps)
	return tk, theta, tk.Simulate(rng, theta)
}

type trainer interface {
	Train(theta, x *mat.Dense, cfg sbi.TrainConfig) (*sbi.TrainResult, error)
}

func benchTrain(b *testing.B, est trainer, theta, x *mat.Dense, reg sbi.Regularizer) {
	cfg := sbi.TrainConfig{Epochs: benchEpochs, BatchSize: 128, LearningRate: 1e-3, ValidationFraction: -1, Seed: 1, Regularizer: reg}
	if _, err := est.Train(theta, x, cfg); err != nil { // sizes the buffers
		b.Fatal(err)
	}
	cfg.Resume = true
	var r0, r1 syscall.Rusage
	b.ResetTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for i := 0; i < b.N; i++ {
		if _, err := est.Train(theta, x, cfg); err != nil {
			b.Fatal(err)
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	b.StopTimer()
	steps := float64(b.N * benchSteps * benchEpochs)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/steps, "ms/step")
	// Process CPU time (summed over threads): on a shared machine the wall time grows with
	// the load of other processes, the CPU time much less.
	cpu := r1.Utime.Nano() - r0.Utime.Nano() + r1.Stime.Nano() - r0.Stime.Nano()
	b.ReportMetric(float64(cpu)/1e6/steps, "cpu-ms/step")
}

// benchNRE times NRE steps with an MLP of 3×64, the architecture of the plain NRE and BNRE
// references; the *MLP2x64 benchmarks use lampe's default classifier, 2×64, since the
// architecture behind the CalNRE reference is not stated.
func benchNRE(b *testing.B, reg sbi.Regularizer) { benchNREHidden(b, reg, []int{64, 64, 64}) }

func benchNREHidden(b *testing.B, reg sbi.Regularizer, hidden []int) {
	tk, theta, x := benchData(b)
	benchTrain(b, sbi.NewNRE(tk.Prior(), sbi.NREConfig{Hidden: hidden}), theta, x, reg)
}

// BenchmarkNREStepMLP2x64 is BenchmarkNREStep with lampe's default classifier.
func BenchmarkNREStepMLP2x64(b *testing.B) { benchNREHidden(b, nil, []int{64, 64}) }

// BenchmarkCalNREStepMLP2x64 is BenchmarkCalNREStep with lampe's default classifier.
func BenchmarkCalNREStepMLP2x64(b *testing.B) {
	benchNREHidden(b, calib.NewCoverageRegularizer(calib.CoverageRegularizerConfig{Lambda: 5, Samples: 16}), []int{64, 64})
}

func benchNPE(b *testing.B, reg sbi.Regularizer) {
	tk, theta, x := benchData(b)
	benchTrain(b, sbi.NewNPE(tk.Prior(), sbi.NPEConfig{Flow: "maf", Transforms: 3, Hidden: 64, Layers: 2, Activation: "relu"}), theta, x, reg)
}

// BenchmarkNREStep is one plain NRE training step (joint and marginal pairs).
func BenchmarkNREStep(b *testing.B) { benchNRE(b, nil) }

// BenchmarkBNREStep is one NRE step with calib.NewBalanceRegularizer(100) (reference 1.64 ms).
func BenchmarkBNREStep(b *testing.B) { benchNRE(b, calib.NewBalanceRegularizer(100)) }

// BenchmarkCalNREStep is one NRE step with the coverage regularizer, λ = 5 and L = 16
// (reference 4.5 ms).
func BenchmarkCalNREStep(b *testing.B) {
	benchNRE(b, calib.NewCoverageRegularizer(calib.CoverageRegularizerConfig{Lambda: 5, Samples: 16}))
}

// BenchmarkCalNREStepAllActive is CalNREStep with the two-sided calibration objective, whose
// gradient reaches every pair, so that every draw is evaluated with gradients: the cost of a
// step in which every rank lies below its quantile.
func BenchmarkCalNREStepAllActive(b *testing.B) {
	benchNRE(b, calib.NewCoverageRegularizer(calib.CoverageRegularizerConfig{Lambda: 5, Samples: 16, Mixture: 1}))
}

// BenchmarkNPEStep is one plain NPE (MAF) training step.
func BenchmarkNPEStep(b *testing.B) { benchNPE(b, nil) }

// BenchmarkCalNPEStep is one NPE step with the coverage regularizer, λ = 5 and L = 16
// (reference 42.8 ms).
func BenchmarkCalNPEStep(b *testing.B) {
	benchNPE(b, calib.NewCoverageRegularizer(calib.CoverageRegularizerConfig{Lambda: 5, Samples: 16}))
}

// BenchmarkCalNPEStepAllActive is CalNPEStep with the calibration objective (see
// BenchmarkCalNREStepAllActive).
func BenchmarkCalNPEStepAllActive(b *testing.B) {
	benchNPE(b, calib.NewCoverageRegularizer(calib.CoverageRegularizerConfig{Lambda: 5, Samples: 16, Mixture: 1}))
}

// BenchmarkKCCSDNPEStep is one NPE step with the KCCSD regularizer, λ = 1 (10 base points).
func BenchmarkKCCSDNPEStep(b *testing.B) {
	benchNPE(b, calib.NewKCCSDRegularizer(calib.KCCSDRegularizerConfig{Lambda: 1}))
}

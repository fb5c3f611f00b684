package calib

import (
	"math"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/diag"
	"github.com/gosbi/gosbi/sbi/task"
)

// pairTol bounds the per-seed difference between the arms under a null penalty.
const pairTol = 1e-3

// tinyStudy is a CompareRegularizer setting small enough for a unit test.
func tinyStudy(seeds int) RegularizerStudyConfig {
	return RegularizerStudyConfig{Seeds: seeds, TrainPairs: 60, TestPairs: 40,
		NPE: sbi.NPEConfig{Transforms: 1, Hidden: 8}, Train: sbi.TrainConfig{Epochs: 2, BatchSize: 30},
		Test: diag.KernelTestConfig{Bootstrap: 50}}
}

// TestCompareRegularizerArmsArePaired: with a penalty of weight 10⁻³⁰⁰ the two arms see the same
// data, initial weights, batches and kernel, so every per-seed statistic and log density must
// agree to within the float-level differences of the regularized training path (about 10⁻⁴
// here; a real penalty moves the log density by far more, see TestCompareRegularizerSeesThePenalty),
// and the intervals are diag.MeanInterval of the per-seed values. It fails if the arms drew
// different data or seeds, or measured with different bandwidths.
func TestCompareRegularizerArmsArePaired(t *testing.T) {
	tk := task.TwoMoons()
	st, err := CompareRegularizer(tk.Prior(), tk.Simulate, NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1e-300, BasePoints: 2}), tinyStudy(3))
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "kccsd" || len(st.Statistic[0]) != 3 || len(st.LogProb[1]) != 3 {
		t.Fatalf("study %+v: want 3 seeds of the kccsd regularizer", st)
	}
	for s := range 3 {
		if math.Abs(st.Statistic[0][s]-st.Statistic[1][s]) > pairTol || math.Abs(st.LogProb[0][s]-st.LogProb[1][s]) > pairTol {
			t.Errorf("seed %d: arms differ (statistic %v / %v, log q %v / %v) under a null penalty", s+1, st.Statistic[0][s], st.Statistic[1][s], st.LogProb[0][s], st.LogProb[1][s])
		}
	}
	if math.Abs(st.StatDiff.Mean) > pairTol || math.Abs(st.LogDiff.Mean) > pairTol {
		t.Errorf("paired differences %v, %v, want 0 within %v", st.StatDiff.Mean, st.LogDiff.Mean, pairTol)
	}
	m, se, lo, hi, err := diag.MeanInterval(st.LogProb[0], 0.95)
	if err != nil || st.LogMean[0] != (Interval{m, se, lo, hi}) {
		t.Errorf("LogMean[0] = %+v, diag.MeanInterval gives %v %v %v %v (%v)", st.LogMean[0], m, se, lo, hi, err)
	}
	if math.IsNaN(st.StatMean[0].SE) || st.StatMean[0].SE <= 0 {
		t.Errorf("standard error over seeds %v, want a positive value", st.StatMean[0].SE)
	}
}

// TestCompareRegularizerSeesThePenalty: with λ = 1 the regularized arm trains on another loss,
// so its held-out log density differs from the unregularized arm's by more than pairTol at
// every seed (10 epochs; ten times the tolerance).
func TestCompareRegularizerSeesThePenalty(t *testing.T) {
	tk := task.TwoMoons()
	cfg := tinyStudy(2)
	cfg.Train.Epochs = 10
	st, err := CompareRegularizer(tk.Prior(), tk.Simulate, NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1, BasePoints: 2}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		t.Logf("seed %d: log q %.4f → %.4f, statistic %.4f → %.4f", s+1, st.LogProb[0][s], st.LogProb[1][s], st.Statistic[0][s], st.Statistic[1][s])
		if math.Abs(st.LogProb[0][s]-st.LogProb[1][s]) <= 3*pairTol {
			t.Errorf("seed %d: the regularized arm has the unregularized log density %v", s+1, st.LogProb[0][s])
		}
	}
}

func TestCompareRegularizerBadInput(t *testing.T) {
	tk := task.TwoMoons()
	reg := NewKCCSDRegularizer(KCCSDRegularizerConfig{Lambda: 1})
	for _, c := range []struct {
		reg  sbi.Regularizer
		cfg  RegularizerStudyConfig
		want string
	}{
		{nil, RegularizerStudyConfig{}, "required"},
		{reg, RegularizerStudyConfig{Seeds: 1}, "Seeds = 1"},
		{reg, RegularizerStudyConfig{TrainPairs: 1}, "TrainPairs = 1"},
		{reg, RegularizerStudyConfig{Confidence: 1.5}, "Confidence = 1.5"},
		{NewKCCSDRegularizer(KCCSDRegularizerConfig{}), tinyStudy(2), "Lambda = 0"},
	} {
		_, err := CompareRegularizer(tk.Prior(), tk.Simulate, c.reg, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}

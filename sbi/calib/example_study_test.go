package calib_test

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/task"
)

// An NPE with and without the KCCSD penalty, two seeds of a small setting: per-seed held-out
// KCCSD statistics and log densities, with intervals over seeds.
func ExampleCompareRegularizer() {
	tk := task.TwoMoons()
	cfg := calib.RegularizerStudyConfig{Seeds: 2, TrainPairs: 100, TestPairs: 50,
		NPE: sbi.NPEConfig{Transforms: 1, Hidden: 8}, Train: sbi.TrainConfig{Epochs: 2, BatchSize: 50}}
	st, err := calib.CompareRegularizer(tk.Prior(), tk.Simulate, calib.NewKCCSDRegularizer(calib.KCCSDRegularizerConfig{Lambda: 1}), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Name, len(st.Statistic[0]), "seeds,", st.TestPairs, "held-out pairs each")
	// Output: kccsd 2 seeds, 50 held-out pairs each
}

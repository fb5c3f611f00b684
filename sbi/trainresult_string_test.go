package sbi

import (
	"strings"
	"testing"
	"time"
)

// TestTrainResultStringInterrupted checks that the summary of an interrupted training names
// its best epoch once, with the loss, and still says where it stopped.
func TestTrainResultStringInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    TrainResult
		want []string
	}{
		{"best epoch kept", TrainResult{Estimator: "NPE", Interrupted: true, Epochs: 29, BestEpoch: 21, BestLoss: 1.25, Duration: time.Second, TrainRows: 90, ValRows: 10},
			[]string{"stopped at epoch 30 by interrupt", "29 epochs", "best epoch 21 kept (loss 1.2500)", "90 training / 10 validation pairs"}},
		{"no epoch", TrainResult{Estimator: "NPE", Interrupted: true, Duration: time.Second, TrainRows: 90, ValRows: 10},
			[]string{"stopped at epoch 1 by interrupt; no epoch finished, the estimator is not trained", "0 epochs"}},
		{"not interrupted", TrainResult{Estimator: "NPE", Epochs: 29, BestEpoch: 21, BestLoss: 1.25, Duration: time.Second, TrainRows: 90, ValRows: 10},
			[]string{"29 epochs", "best epoch 21 (loss 1.2500)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.r.String()
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("String() = %q, want it to contain %q", s, w)
				}
			}
			if n := strings.Count(s, "best epoch"); n > 1 {
				t.Errorf("String() = %q names the best epoch %d times, want once", s, n)
			}
		})
	}
}

package pairs_test

import (
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/pairs"
)

// The estimator that pads its observations is the one Finite reads the padding of.
var _ pairs.Unpadder = (*sbi.AmortizedTrials)(nil)

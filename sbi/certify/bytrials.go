package certify

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/calib"
	"github.com/gosbi/gosbi/sbi/diag"
)

// trialsReader is an estimator of observations of 1 to Trials() i.i.d. trials side by side,
// NaN trials after them (sbi.AmortizedTrials).
type trialsReader interface {
	calib.Unpadder
	Trials() int
}

// coverageByTrials says the final test's coverage among its pairs of each number of trials,
// with their counts, for an estimator of i.i.d. trials: the verdict is on the coverage over
// the simulator's mix of trial counts, and these numbers show how it splits. It returns ""
// for other estimators, and where cov holds no rank per pair of x (conformal regions).
func coverageByTrials(est any, x *mat.Dense, cov *diag.CoverageResult) string {
	tr, ok := est.(trialsReader)
	n, dx := x.Dims()
	if !ok || tr.Trials() < 1 || len(cov.Ranks) != n {
		return ""
	}
	perTrial := dx / tr.Trials()
	ranks := map[int][]float64{}
	for i := range n {
		p, err := tr.Unpadded(x.RawRowView(i))
		if err != nil || perTrial == 0 {
			return "" // the test pairs were read before; a pair unread here leaves no split
		}
		k := len(p) / perTrial
		ranks[k] = append(ranks[k], cov.Ranks[i])
	}
	ks := make([]int, 0, len(ranks))
	for k := range ranks {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	parts := make([]string, 0, len(ks))
	for _, k := range ks {
		c, err := diag.CoverageFromRanks(ranks[k], cov.Levels)
		if err != nil {
			return ""
		}
		vals := make([]string, len(c.Coverage))
		for j, v := range c.Coverage {
			vals[j] = fmt.Sprintf("%.3f", v)
		}
		parts = append(parts, fmt.Sprintf("%d trials: %s on %d pairs", k, strings.Join(vals, "/"), c.N))
	}
	return fmt.Sprintf("final test coverage by number of trials (at levels %v; the verdict is on all %d pairs together, the simulator's mix of trial counts): %s",
		cov.Levels, n, strings.Join(parts, "; "))
}

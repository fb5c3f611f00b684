// Package collapse finds the draws of a normalizing flow that collapsed numerically. A flow is
// a bijection of its base draws, which are distinct, so n ≥ 2 draws that share one value in a
// column mean that its transforms lost all resolution there (weights so large that distinct
// inputs round to one output), unless the flow learned a point mass for that column.
package collapse

import "fmt"

// Column returns the first column of the rows×cols values held row-major in data (rows stride
// values apart), not listed in skip, whose values are all equal, when there are at least two
// rows. The values must be finite (check that first): NaN never equals itself and ±Inf is not a
// draw.
func Column(data []float64, rows, cols, stride int, skip []int) (int, bool) {
	if rows < 2 {
		return 0, false
	}
	skipped := make([]bool, cols)
	for _, j := range skip {
		skipped[j] = true
	}
	for j := range cols {
		if skipped[j] {
			continue
		}
		v, same := data[j], true
		for i := 1; i < rows && same; i++ {
			same = data[i*stride+j] == v
		}
		if same {
			return j, true
		}
	}
	return 0, false
}

// Describe says that all n draws of θ column j equal v and why that is wrong: varied, when not
// empty, says that column varied where the flow was fitted. The caller adds what to do.
func Describe(n, j int, v float64, varied string) string {
	though := "the flow maps distinct base draws to distinct points"
	if varied != "" {
		though = varied + " and " + though
	}
	return fmt.Sprintf("all %d draws of θ column %d equal %v, though %s; its weights are so large that its transforms lost all resolution (was training diverging?)", n, j, v, though)
}

package viz_test

import (
	"fmt"

	"github.com/gosbi/gosbi/study"
	"github.com/gosbi/gosbi/viz"
)

// The coverage of one method pooled over the seeds that a study trained it with: each job
// recorded the HPD ranks of its test pairs and the credibility levels.
func ExampleStudyCoverage() {
	tab := &study.Table{}
	for seed, ranks := range [][]float64{{0.1, 0.5, 0.9}, {0.3, 0.7, 0.95}} {
		tab.Records = append(tab.Records, &study.Record{
			Params: map[string]string{"method": "NRE", "seed": fmt.Sprint(seed + 1)},
			Series: map[string][]float64{"ranks": ranks, "levels": {0.25, 0.5, 0.75}},
		})
	}
	c, err := viz.StudyCoverage(tab.Where("method", "NRE"), "NRE")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Label, len(c.Ranks), c.Levels, c.Coverage)
	// Output: NRE 6 [0.25 0.5 0.75] [0.3333333333333333 0.6666666666666666 0.8333333333333334]
}

package study_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/gosbi/gosbi/study"
)

// tempStudy creates a study of spec in a new temporary directory, which remove deletes.
func tempStudy(spec *study.Spec) (s *study.Study, remove func()) {
	dir, err := os.MkdirTemp("", spec.Name+"-")
	if err != nil {
		panic(err)
	}
	if s, err = study.Create(dir, spec, ""); err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	return s, func() { os.RemoveAll(dir) }
}

// The JSON form of a spec, as `gosbi study run SPEC.json` reads it: a simulate stage per seed,
// a train stage per seed and budget (a Go script each), and one aggregate job.
func ExampleParseSpec() {
	spec, err := study.ParseSpec([]byte(`{
	  "name": "sweep",
	  "axes": [{"name": "seed", "values": ["1", "2"]}, {"name": "budget", "values": ["1024", "4096"]}],
	  "stages": [
	    {"name": "simulate", "over": ["seed"], "script": "simulate.go"},
	    {"name": "train", "script": "train.go"},
	    {"name": "aggregate", "all": true, "script": "aggregate.go"}
	  ],
	  "params": {"epochs": "200"}
	}`))
	fmt.Println(spec.Name, len(spec.Stages), err)
	// Output: sweep 3 <nil>
}

// The HPD ranks of one method pooled over the seeds that a study trained it with: each job
// recorded the ranks of its test pairs and the credibility levels (viz.StudyCoverage makes the
// curve of them).
func ExampleTable_PooledRanks() {
	tab := &study.Table{}
	for seed, ranks := range [][]float64{{0.1, 0.5, 0.9}, {0.3, 0.7, 0.95}} {
		tab.Records = append(tab.Records, &study.Record{
			Params: map[string]string{"method": "NRE", "seed": fmt.Sprint(seed + 1)},
			Series: map[string][]float64{"ranks": ranks, "levels": {0.25, 0.5, 0.75}},
		})
	}
	ranks, levels, err := tab.Where("method", "NRE").PooledRanks()
	fmt.Println(ranks, levels, err)
	// Output: [0.1 0.5 0.9 0.3 0.7 0.95] [0.25 0.5 0.75] <nil>
}

// MustResults panics with Results' error when a stage is not complete: the notebook shows it
// as the cell's error, naming the jobs that have no record.
func ExampleStudy_MustResults() {
	study.Register("halve", func(j *study.Job) error {
		j.Set("y", j.Float("x")/2)
		return nil
	})
	s, remove := tempStudy(&study.Spec{
		Name:   "halves",
		Axes:   []study.Axis{{Name: "x", Values: study.Ints(1, 2)}},
		Stages: []study.Stage{{Name: "halve", Func: "halve"}},
	})
	defer remove()
	defer func() {
		msg := fmt.Sprint(recover())
		fmt.Println(msg[:strings.Index(msg, ";")])
	}()
	s.MustResults("halve") // not run yet
	// Output:
	// study halves: stage "halve" has records of 0 of its 2 jobs
}

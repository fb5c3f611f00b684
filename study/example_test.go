package study_test

import (
	"context"
	"fmt"
	"os"

	"github.com/gosbi/gosbi/study"
)

// A study of one stage: a job per value of x, run on this machine, its records read back as a
// table.
func Example() {
	study.Register("square", func(j *study.Job) error {
		x := j.Float("x")
		j.Set("y", x*x)
		return nil
	})
	spec := &study.Spec{
		Name:   "squares",
		Axes:   []study.Axis{{Name: "x", Values: study.Ints(1, 2, 3)}},
		Stages: []study.Stage{{Name: "square", Func: "square"}},
	}
	dir, err := os.MkdirTemp("", "squares-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	s, err := study.Create(dir, spec, "")
	if err != nil {
		panic(err)
	}
	if err := s.Run(context.Background(), &study.Local{}); err != nil {
		panic(err)
	}
	tab, err := s.Results("square")
	if err != nil {
		panic(err)
	}
	ys, err := tab.Values("y")
	fmt.Println(ys, err)
	fmt.Println(s.Status().Line())
	// Output:
	// [1 4 9] <nil>
	// square 3/3 done
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

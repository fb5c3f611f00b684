//go:build unix

// These examples run studies, which Windows, Plan 9, js and wasip1 refuse (see Run), and an
// example cannot skip.

package study_test

import (
	"context"
	"fmt"
	"strings"

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
	s, remove := tempStudy(&study.Spec{
		Name:   "squares",
		Axes:   []study.Axis{{Name: "x", Values: study.Ints(1, 2, 3)}},
		Stages: []study.Stage{{Name: "square", Func: "square"}},
	})
	defer remove()
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

// A notebook names its executor in a parameter cell ("local", "slurm" or "read") and runs the
// study with it; the error says what is missing when the study does not complete.
func ExampleStudy_RunNamed() {
	study.Register("cube", func(j *study.Job) error {
		x := j.Float("x")
		j.Set("y", x*x*x)
		return nil
	})
	s, remove := tempStudy(&study.Spec{
		Name:   "cubes",
		Axes:   []study.Axis{{Name: "x", Values: study.Ints(1, 2, 3)}},
		Stages: []study.Stage{{Name: "cube", Func: "cube"}},
	})
	defer remove()
	if _, err := s.RunNamed(context.Background(), "read", nil); err != nil {
		fmt.Println(strings.ReplaceAll(err.Error(), s.Dir, "DIR"))
	}
	var last string
	if _, err := s.RunNamed(context.Background(), "local", func(st *study.Status) { last = st.Line() }); err != nil {
		panic(err)
	}
	fmt.Println(last)
	// Output:
	// study: the study in DIR is not complete (cube 0/3 done, 3 missing); run: gosbi study run DIR --executor slurm
	// cube 3/3 done
}

// A notebook cell opens a study that a run has filled and reads a stage's records, without an
// error to check after each call: MustOpen and MustResults panic with the error of Open and
// Results, which the notebook reports as the cell's error.
func ExampleMustOpen() {
	study.Register("cube", func(j *study.Job) error {
		j.Set("y", j.Float("x")*j.Float("x")*j.Float("x"))
		return nil
	})
	s, remove := tempStudy(&study.Spec{
		Name:   "cubes",
		Axes:   []study.Axis{{Name: "x", Values: study.Ints(1, 2, 3)}},
		Stages: []study.Stage{{Name: "cube", Func: "cube"}},
	})
	defer remove()
	if err := s.Run(context.Background(), &study.Local{}); err != nil {
		panic(err)
	}

	st := study.MustOpen(s.Dir)
	ys, err := st.MustResults("cube").Values("y")
	fmt.Println(ys, err)
	// Output:
	// [1 8 27] <nil>
}

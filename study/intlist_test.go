package study

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestJobIntList(t *testing.T) {
	j := &Job{Index: 3, Stage: "train", Key: "seed=1", Params: map[string]string{
		"hidden": "64,64,32", "one": "7", "spaced": "1, 2", "bad": "64,x", "empty": "", "trailing": "64,",
	}}
	for _, c := range []struct {
		name string
		want []int
		err  string // what the panic, which fails the job, says
	}{
		{"hidden", []int{64, 64, 32}, ""},
		{"one", []int{7}, ""},
		{"spaced", []int{1, 2}, ""},
		{"bad", nil, `parameter bad = "64,x", expected integers separated by commas`},
		{"empty", nil, "expected integers"},
		{"trailing", nil, "expected integers"},
		{"missing", nil, `has no parameter "missing"`},
	} {
		got, err := func() (v []int, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%v", r)
				}
			}()
			return j.IntList(c.name), nil
		}()
		switch {
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("IntList(%q) = %v, %v; want %v", c.name, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("IntList(%q) = %v, %v; want a failure that says %q", c.name, got, err, c.err)
		}
	}
}

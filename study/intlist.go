package study

import (
	"fmt"
	"strconv"
	"strings"
)

// IntList returns a parameter that holds integers separated by commas ("64,64": the widths
// of hidden layers, say), the form in which strings.Join(Ints(v...), ",") puts a list into
// the spec's params; a missing, empty or malformed one fails the job.
func (j *Job) IntList(name string) []int {
	v := j.String(name)
	fields := strings.Split(v, ",")
	out := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			panic(fmt.Sprintf("%s: parameter %s = %q, expected integers separated by commas", j.label(), name, v))
		}
		out[i] = n
	}
	return out
}

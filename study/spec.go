package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/internal/text"
)

// Spec describes a study: the axes of its grid and its stages. It is what `gosbi study run`
// reads (as JSON) and what Create stores in the study directory.
type Spec struct {
	Name   string            `json:"name"`             // the study's name: letters, digits, '-', '_', '.'
	Axes   []Axis            `json:"axes"`             // the grid; every combination of values is a point
	Stages []Stage           `json:"stages"`           // run in order; each stage's jobs may read the previous stages' records
	Params map[string]string `json:"params,omitempty"` // constants every job sees (epochs, sizes, …)
}

// Axis is one dimension of the grid. Values are strings (a JSON spec may write numbers, which
// keep their spelling); Job.Int and Job.Float parse them.
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// UnmarshalJSON reads an axis whose values are JSON strings or numbers.
func (a *Axis) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name   string            `json:"name"`
		Values []json.RawMessage `json:"values"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("axis: %w", err)
	}
	a.Name, a.Values = raw.Name, make([]string, len(raw.Values))
	for i, v := range raw.Values {
		var s string
		if json.Unmarshal(v, &s) == nil {
			a.Values[i] = s
			continue
		}
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("axis %q: values[%d] = %s, expected a string or a number", raw.Name, i, v)
		}
		a.Values[i] = n.String()
	}
	return nil
}

// Stage is one step of a study. Its jobs are the combinations of the values of the axes in
// Over (all of the grid when Over is empty and All is false, a single job when All is true).
// A job runs Func, a function registered with Register in the running binary, or a Go script
// that `gosbi script` runs and that reads its job with Current: Script names its file (relative
// to the spec file, or absolute), Source holds its text.
type Stage struct {
	Name   string   `json:"name"`
	Over   []string `json:"over,omitempty"`
	All    bool     `json:"all,omitempty"`    // one job for the whole grid (an aggregate step)
	Func   string   `json:"func,omitempty"`   // the name given to Register
	Script string   `json:"script,omitempty"` // a Go file run with `gosbi script`, at most 16 MiB
	Source string   `json:"source,omitempty"` // the Go source of a script, instead of a file
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ParseSpec decodes a JSON spec and validates it. Unknown fields are errors.
func ParseSpec(data []byte) (*Spec, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("study spec: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// maxSpecSize bounds a spec file (16 MiB): it is read whole, and a larger file is refused
// before it is read (a data file or a device named by mistake).
const maxSpecSize = 16 << 20

// ReadSpec reads and validates a JSON spec file of at most 16 MiB; a larger one (a file named
// by mistake) is refused before it is read.
func ReadSpec(path string) (*Spec, error) {
	data, err := readlimit.File(path, "a study spec", maxSpecSize)
	if err != nil {
		return nil, fmt.Errorf("study spec: %w", err)
	}
	s, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Validate checks the spec and names the first offending field and value. It refuses, before
// any job is listed, a grid of more than MaxJobs jobs and one whose jobs' keys and parameters
// (each job holds the values of its axes) would alone take more than the 1 GiB a study
// manifest may hold.
func (s *Spec) Validate() error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("study spec: name = %q, expected letters, digits, '-', '_' or '.'", s.Name)
	}
	axes := map[string]bool{}
	for i, a := range s.Axes {
		field := fmt.Sprintf("axes[%d]", i)
		switch {
		case !nameRE.MatchString(a.Name):
			return fmt.Errorf("study spec: %s.name = %q, expected letters, digits, '-', '_' or '.'", field, a.Name)
		case axes[a.Name]:
			return fmt.Errorf("study spec: %s.name = %q is used by two axes", field, a.Name)
		case len(a.Values) == 0:
			return fmt.Errorf("study spec: %s.values of axis %q is empty, expected at least one value", field, a.Name)
		}
		seen := map[string]bool{}
		for j, v := range a.Values {
			if v == "" || strings.ContainsAny(v, ",=\n") || seen[v] {
				return fmt.Errorf("study spec: %s.values[%d] = %q, expected distinct non-empty values without ',', '=' or newlines", field, j, v)
			}
			seen[v] = true
		}
		axes[a.Name] = true
	}
	for k := range s.Params {
		if axes[k] {
			return fmt.Errorf("study spec: params.%s is also an axis; a job's parameter must have one source", k)
		}
	}
	if len(s.Stages) == 0 {
		return fmt.Errorf("study spec: stages is empty, expected at least one stage")
	}
	stages := map[string]bool{}
	for i, st := range s.Stages {
		if err := st.validate(fmt.Sprintf("stages[%d]", i), axes, stages); err != nil {
			return err
		}
		stages[st.Name] = true
	}
	if n := s.size(); n.Cmp(big.NewInt(MaxJobs)) > 0 {
		return fmt.Errorf("study spec: the grid has %s jobs (%s), more than the %d a study may hold; split it into several studies or give the axes fewer values",
			n, s.sizeTerms(), MaxJobs)
	}
	if b := s.jobListBytes(); b > maxManifestSize {
		return fmt.Errorf("study spec: the jobs' keys and parameters alone would take at least %.4g bytes of the manifest, more than the %d (%d MiB) it may hold; "+
			"give the axes shorter values or fewer of them, or split the study", b, maxManifestSize, maxManifestSize>>20)
	}
	return nil
}

// jobListBytes is a lower bound of the bytes the manifest's job list takes, counted from the
// axes without listing the jobs: every job holds each value of its axes twice (in its key and
// its parameters) with the axis's name, and an axis value v appears in N/len(values) of the
// N jobs of a stage.
func (s *Spec) jobListBytes() float64 {
	var total float64
	for _, st := range s.Stages {
		axes := s.over(st)
		jobs := 1.0
		for _, a := range axes {
			jobs *= float64(len(a.Values))
		}
		for _, a := range axes {
			per := 0
			for _, v := range a.Values {
				per += len(a.Name) + len(v)
			}
			total += 2 * jobs / float64(len(a.Values)) * float64(per)
		}
	}
	return total
}

// MaxJobs is the most jobs a study may have, over all its stages. Validate refuses a larger
// grid before anything is allocated: the manifest lists every job, and Status reads them all.
const MaxJobs = 1_000_000

// size counts the jobs of the spec: the sum over the stages of the product of the numbers of
// values of the axes each varies over (exactly, whatever its size).
func (s *Spec) size() *big.Int {
	n := new(big.Int)
	for _, st := range s.Stages {
		k := big.NewInt(1)
		for _, a := range s.over(st) {
			k.Mul(k, big.NewInt(int64(len(a.Values))))
		}
		n.Add(n, k)
	}
	return n
}

// sizeTerms writes the count of each stage, "train 10×10×10 + aggregate 1".
func (s *Spec) sizeTerms() string {
	var terms []string
	for _, st := range s.Stages {
		var f []string
		for _, a := range s.over(st) {
			f = append(f, strconv.Itoa(len(a.Values)))
		}
		if len(f) == 0 {
			f = []string{"1"}
		}
		terms = append(terms, st.Name+" "+strings.Join(f, "×"))
	}
	return strings.Join(terms, " + ")
}

func (st Stage) validate(field string, axes, stages map[string]bool) error {
	switch {
	case !nameRE.MatchString(st.Name):
		return fmt.Errorf("study spec: %s.name = %q, expected letters, digits, '-', '_' or '.'", field, st.Name)
	case stages[st.Name]:
		return fmt.Errorf("study spec: %s.name = %q is used by two stages", field, st.Name)
	case btoi(st.Func != "")+btoi(st.Script != "")+btoi(st.Source != "") != 1:
		return fmt.Errorf("study spec: %s (%q) has func = %q, script = %q and %s of source, expected exactly one of them", field, st.Name, st.Func, st.Script, text.Count(len(st.Source), "byte"))
	case st.All && len(st.Over) > 0:
		return fmt.Errorf("study spec: %s (%q) has all = true and over = %v, expected one of them", field, st.Name, st.Over)
	}
	seen := map[string]bool{}
	for j, a := range st.Over {
		if !axes[a] || seen[a] {
			return fmt.Errorf("study spec: %s.over[%d] = %q, expected the name of an axis, once", field, j, a)
		}
		seen[a] = true
	}
	return nil
}

// over returns the axes a stage varies over, in the order of the spec's axes.
func (s *Spec) over(st Stage) []Axis {
	if st.All {
		return nil
	}
	if len(st.Over) == 0 {
		return s.Axes
	}
	var out []Axis
	for _, a := range s.Axes {
		for _, o := range st.Over {
			if a.Name == o {
				out = append(out, a)
			}
		}
	}
	return out
}

// jobs expands the grid of a stage into its jobs' parameters, the last axis varying fastest.
func (s *Spec) jobs(st Stage) []map[string]string {
	axes := s.over(st)
	out := []map[string]string{{}}
	for _, a := range axes {
		var next []map[string]string
		for _, p := range out {
			for _, v := range a.Values {
				q := make(map[string]string, len(p)+1)
				for k, w := range p {
					q[k] = w
				}
				q[a.Name] = v
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// key is the canonical form of a job's parameters: "axis=value" in the order of the axes.
func (s *Spec) key(params map[string]string) string {
	var parts []string
	for _, a := range s.Axes {
		if v, ok := params[a.Name]; ok {
			parts = append(parts, a.Name+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// Ints formats integers as axis values.
func Ints(v ...int) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.Itoa(x)
	}
	return out
}

// Floats formats numbers as axis values (shortest representation that parses back exactly).
func Floats(v ...float64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return out
}

// finite reports whether all values are finite.
func finite(m map[string]float64) (string, bool) {
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return k, false
		}
	}
	return "", true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

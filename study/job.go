package study

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/gosbi/gosbi/internal/text"
)

// Func is the work of one job: it reads its parameters and inputs from j, writes files under
// j.Dir and metrics with j.Set, and returns an error when it fails. A panic is caught and
// becomes the job's error.
type Func func(j *Job) error

var (
	registryMu sync.Mutex
	registry   = map[string]Func{}
)

// Register makes f the function of the stages whose Func is name, in this process. A worker
// (`gosbi study worker`, or a test binary acting as one) must register the same functions.
// So a function registered in a notebook cell or a `gosbi script` program runs with the Local
// executor only: the Slurm executor's workers are new processes that do not have it, and fail
// its jobs; a study that a notebook sends to Slurm gives its stages as scripts
// (Stage.Script or Stage.Source), as the balanced-nre notebook does.
func Register(name string, f Func) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = f
}

func registered(name string) (Func, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	f, ok := registry[name]
	return f, ok
}

// Job is one job while it runs.
type Job struct {
	Index  int
	Stage  string
	Key    string            // canonical "axis=value,…" of its grid point
	Params map[string]string // its axis values and the spec's constants
	Seed   uint64            // derived from the study name, the stage and the key only
	Dir    string            // where the job writes its files; it becomes the record directory
	Log    io.Writer         // the job's log (DIR/logs/NNNNN.log): the first 1 MiB and the last 4 MiB of each attempt are kept

	study   *Study
	mu      sync.Mutex
	metrics map[string]float64
	series  map[string][]float64
	persist bool // script jobs save metrics at once: the worker reads them from Dir
}

// JobSeed is the seed of the job with a key in a stage of a study: FNV-1a (64 bits) of
// "name/stage/key". It depends on nothing else, so results do not depend on which executor
// ran a job or when.
func JobSeed(name, stage, key string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%s", name, stage, key)
	return h.Sum64()
}

func (s *Study) newJob(i int, dir string, log io.Writer) *Job {
	info := s.Jobs[i]
	params := map[string]string{}
	for k, v := range s.Spec.Params {
		params[k] = v
	}
	for k, v := range info.Params {
		params[k] = v
	}
	return &Job{Index: i, Stage: info.Stage, Key: info.Key, Params: params,
		Seed: JobSeed(s.Spec.Name, info.Stage, info.Key), Dir: dir, Log: log, study: s,
		metrics: map[string]float64{}, series: map[string][]float64{}}
}

func (j *Job) label() string { return label(j.Index, j.Stage, j.Key) }

// String returns a parameter; a missing one panics, which fails the job with that message.
func (j *Job) String(name string) string {
	v, ok := j.Params[name]
	if !ok {
		panic(fmt.Sprintf("%s has no parameter %q: add it to the axes or to params of the spec", j.label(), name))
	}
	return v
}

// Int returns an integer parameter; a missing or malformed one fails the job.
func (j *Job) Int(name string) int {
	v := j.String(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		panic(fmt.Sprintf("%s: parameter %s = %q, expected an integer", j.label(), name, v))
	}
	return n
}

// Float returns a numeric parameter; a missing or malformed one fails the job.
func (j *Job) Float(name string) float64 {
	v := j.String(name)
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		panic(fmt.Sprintf("%s: parameter %s = %q, expected a number", j.label(), name, v))
	}
	return x
}

// Path returns the path of a file in the job's directory (for Save and the like).
func (j *Job) Path(name string) string { return filepath.Join(j.Dir, name) }

// RecordDir returns the directory that becomes the job's record when it succeeds
// (STUDY/jobs/STAGE/NNNNN): the worker renames Dir to it. A failed attempt's Dir is removed; a
// file that must outlive the failure can go beside the record, named RecordDir() followed by
// an extension, which the study leaves as it is.
func (j *Job) RecordDir() string { return j.study.recordDir(j.Index) }

// Logf writes a line to the job's log.
func (j *Job) Logf(format string, args ...any) {
	if j.Log != nil {
		fmt.Fprintf(j.Log, format+"\n", args...)
	}
}

// Set records a metric of the job.
func (j *Job) Set(name string, v float64) {
	j.mu.Lock()
	j.metrics[name] = v
	j.mu.Unlock()
	j.save()
}

// SetSeries records a vector metric of the job (ranks, a curve). The record holds each value
// as text (up to 25 bytes) and may hold at most 256 MiB: a longer series fails the job, so
// write one of millions of values to a file in the job's directory (Path).
func (j *Job) SetSeries(name string, v []float64) {
	j.mu.Lock()
	j.series[name] = append([]float64(nil), v...)
	j.mu.Unlock()
	j.save()
}

// Input returns the record of the job of an earlier stage that shares this job's values on
// that stage's axes (the simulations a training uses, say).
func (j *Job) Input(stage string) (*Record, error) {
	rs, err := j.Inputs(stage)
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("study: %s matches %d jobs of stage %q, expected one: use Inputs", j.label(), len(rs), stage)
	}
	return rs[0], nil
}

// Inputs returns the records of the jobs of an earlier stage whose parameters agree with this
// job's on the axes both vary over (all of them for an aggregate stage). A job without a
// record is an error.
func (j *Job) Inputs(stage string) ([]*Record, error) {
	s := j.study
	_, k := s.stage(stage)
	_, self := s.stage(j.Stage)
	if k < 0 || k >= self {
		return nil, fmt.Errorf("study: job %d (%s) asks for stage %q, expected an earlier stage of the spec", j.Index, j.Stage, stage)
	}
	own := s.Jobs[j.Index].Params
	var out []*Record
	for _, i := range s.StageJobs(stage) {
		match := true
		for a, v := range s.Jobs[i].Params {
			if w, ok := own[a]; ok && w != v {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		r, err := s.Record(i)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// partialFile holds the metrics of a script job until its record is written.
const partialFile = ".metrics.json"

type partial struct {
	Metrics map[string]float64   `json:"metrics"`
	Series  map[string][]float64 `json:"series"`
}

// save writes the metrics of a script job to its directory (the worker process reads them).
func (j *Job) save() {
	if !j.persist {
		return
	}
	j.mu.Lock()
	p := partial{j.metrics, j.series}
	data, err := json.Marshal(p)
	j.mu.Unlock()
	if err == nil {
		err = writeFileAtomic(j.Path(partialFile), data)
	}
	if err != nil {
		panic(fmt.Sprintf("job %d: saving metrics: %v", j.Index, err))
	}
}

// Current returns the job a script stage runs for: the worker starts `gosbi script` with the
// study directory, the job index and the job's directory in the environment.
func Current() (*Job, error) {
	dir, idx, out := os.Getenv(envDir), os.Getenv(envIndex), os.Getenv(envOut)
	if dir == "" || idx == "" || out == "" {
		return nil, fmt.Errorf("study: no current job: this script runs as a stage of a study (gosbi study run), which sets %s, %s and %s", envDir, envIndex, envOut)
	}
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(s.Jobs) {
		return nil, fmt.Errorf("study: %s = %q, expected a job index below %d", envIndex, idx, len(s.Jobs))
	}
	j := s.newJob(i, out, os.Stderr)
	j.persist = true
	return j, nil
}

// RunCurrent runs the current job (see Current) with the function that stages gives for the
// job's stage: the main function of a script that serves several stages of a study is
//
//	if err := study.RunCurrent(map[string]study.Func{"train": train, "summary": summary}); err != nil {
//		panic(err)
//	}
//
// It returns Current's error, an error naming the stages it has when the job's stage is not
// among them, or the function's error.
func RunCurrent(stages map[string]Func) error {
	j, err := Current()
	if err != nil {
		return err
	}
	f, ok := stages[j.Stage]
	if !ok {
		names := make([]string, 0, len(stages))
		for name := range stages {
			names = append(names, strconv.Quote(name))
		}
		sort.Strings(names)
		have := "no stage"
		if len(names) > 0 {
			have = text.List(names, "or")
		}
		return fmt.Errorf("study: job %d is of stage %q, which this script does not run: it has a function for %s; give the stage one, or give it another script in the spec", j.Index, j.Stage, have)
	}
	return f(j)
}

const (
	envDir   = "GOSBI_STUDY_DIR"
	envIndex = "GOSBI_STUDY_INDEX"
	envOut   = "GOSBI_STUDY_OUT"
)

// files lists the files a job left in its directory, sorted.
func files(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != partialFile && rel != "record.json" {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

package study

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/internal/text"
)

// manifestVersion is the layout version of a study directory.
const manifestVersion = 1

// The bounds of the files a study reads whole. Create refuses a manifest larger than its
// bound, commit a record larger than its bound, and a failure note keeps at most noteErrorLen
// bytes of the error, so that what a study writes it can read back.
const (
	maxManifestSize = 1 << 30 // manifest.json: the spec, the scripts and every job
	maxRecordSize   = 256 << 20
	maxNoteSize     = 1 << 20 // a running marker or a failure note
	noteErrorLen    = 64 << 10
)

// Study is a study directory: the manifest written by Create (the spec and the list of its
// jobs), one record directory per finished job, failure notes and logs.
//
//	DIR/manifest.json          spec and jobs (index, stage, key, parameters)
//	DIR/lock                   the lock of the process that runs the study (Run), and who it is
//	DIR/scripts/STAGE.go       the Go source of a script stage
//	DIR/jobs/STAGE/NNNNN/      a finished job: record.json and the files the job wrote
//	DIR/failed/NNNNN.json      the last failure of a job that has no record
//	DIR/running/NNNNN.json     a job some worker has started
//	DIR/logs/NNNNN.log         what a job wrote to its log, all attempts (of each, the first 1 MiB and the last 4 MiB)
//	DIR/slurm/                 batch scripts and per-task logs of the Slurm executor
type Study struct {
	Dir  string
	Spec *Spec
	Jobs []JobInfo

	verified sync.Map // job index → recordStamp of a record.json whose checksum matched

	// probeHeld, when set, is called each time a run of this Study finds the lock held by
	// shared locks only, before it waits to try again (awaitProbe): tests end their probe there.
	probeHeld func()
}

// recordStamp identifies a version of a record file: a record verified once is not read again
// while its size and modification time stay the same.
type recordStamp struct {
	size, modTime int64 // bytes, Unix nanoseconds
}

// JobInfo identifies one job of a study: its index in the manifest (the Slurm array index is
// derived from it), its stage and its parameters.
type JobInfo struct {
	Index  int               `json:"index"`
	Stage  string            `json:"stage"`
	Key    string            `json:"key"`
	Params map[string]string `json:"params"`
}

// String names the job: "job 4 (train seed=2,budget=200)".
func (j JobInfo) String() string { return label(j.Index, j.Stage, j.Key) }

func label(i int, stage, key string) string {
	if key == "" {
		return fmt.Sprintf("job %d (%s)", i, stage)
	}
	return fmt.Sprintf("job %d (%s %s)", i, stage, key)
}

type manifest struct {
	Version int       `json:"version"`
	Spec    *Spec     `json:"spec"`
	Scripts []string  `json:"scripts,omitempty"` // the source of each script stage, to tell a changed script
	Jobs    []JobInfo `json:"jobs"`
}

// Create makes dir a study directory for spec, or opens it when it already holds the same
// spec (so that running a study again resumes it). A directory holding a different spec is an
// error: results of two studies never mix. So is a directory without a manifest that holds
// records, failure notes, running markers or logs (its manifest was deleted): nothing tells
// which spec they belong to. Script stages are copied into dir/scripts; a
// relative Script is resolved against base (the spec file's directory; "" for the current
// directory). The manifest, which lists every job with its parameters, may hold at most
// 1 GiB: a larger one is refused.
func Create(dir string, spec *Spec, base string) (*Study, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(dir) // workers and scripts run in other directories
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	stored := *spec
	stored.Stages = append([]Stage(nil), spec.Stages...)
	var sources []string
	for i, st := range stored.Stages {
		if st.Script == "" && st.Source == "" {
			continue
		}
		src := []byte(st.Source)
		if st.Script != "" {
			path := st.Script
			if !filepath.IsAbs(path) {
				path = filepath.Join(base, path)
			}
			var err error
			if src, err = readlimit.File(path, "a stage script", readlimit.MaxScript); err != nil {
				return nil, fmt.Errorf("study spec: stages[%d].script = %q: %w", i, st.Script, err)
			}
		}
		stored.Stages[i].Script, stored.Stages[i].Source = filepath.Join("scripts", st.Name+".go"), ""
		sources = append(sources, string(src))
	}
	m := &manifest{Version: manifestVersion, Spec: &stored, Scripts: sources, Jobs: expand(&stored)}
	if old, err := readManifest(dir); err == nil {
		if same, err := sameStudy(old, m); err != nil {
			return nil, err
		} else if !same {
			return nil, fmt.Errorf("study: %s holds a different study (%s): a directory holds one spec, and its records stay there; "+
				"run this spec in a new directory, run the study there as it is (gosbi study run %s), or delete the directory to start over (losing its records)",
				dir, specDiff(old, m), dir)
		}
		return &Study{Dir: dir, Spec: old.Spec, Jobs: old.Jobs}, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if left := leftover(dir); left != "" {
		return nil, fmt.Errorf("study: %s has no manifest.json but holds what a run of a study left (%s); nothing tells which spec it belongs to, so it is not taken as this one's: restore its manifest.json, use a new directory, or delete it to start over", dir, left)
	}
	for _, sub := range []string{"jobs", "failed", "running", "logs", "scripts"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	k := 0
	for _, st := range stored.Stages {
		if st.Script != "" {
			if err := writeFileAtomic(filepath.Join(dir, st.Script), []byte(sources[k])); err != nil {
				return nil, err
			}
			k++
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	if len(data)+1 > maxManifestSize {
		return nil, fmt.Errorf("study: the manifest of %s takes %d bytes, more than the %d (%d MiB) a study manifest may hold: "+
			"give the axes shorter values or fewer of them, or split the study", text.Count(len(m.Jobs), "job"), len(data)+1, maxManifestSize, maxManifestSize>>20)
	}
	if err := writeFileAtomic(filepath.Join(dir, "manifest.json"), append(data, '\n')); err != nil {
		return nil, err
	}
	return &Study{Dir: dir, Spec: m.Spec, Jobs: m.Jobs}, nil
}

// MustCreate is Create for notebook cells: it panics with Create's error.
func MustCreate(dir string, spec *Spec, base string) *Study { return must(Create(dir, spec, base)) }

// MustOpen is Open for notebook cells: it panics with Open's error.
func MustOpen(dir string) *Study { return must(Open(dir)) }

// must returns v, or panics with err itself, so that a recovered panic still answers
// errors.Is: the Must forms of the package, for notebook cells.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Open opens an existing study directory.
func Open(dir string) (*Study, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	m, err := readManifest(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("study: %s has no manifest.json; is it a study directory?", dir)
		}
		return nil, err
	}
	return &Study{Dir: dir, Spec: m.Spec, Jobs: m.Jobs}, nil
}

// sameStudy reports whether two manifests hold the same spec and scripts, compared as they
// are stored (JSON), so that an empty field and an absent one, which are stored alike, agree.
func sameStudy(a, b *manifest) (bool, error) {
	var enc [2][]byte
	for k, m := range []*manifest{a, b} {
		data, err := json.Marshal([]any{m.Spec, m.Scripts})
		if err != nil {
			return false, fmt.Errorf("study: %w", err)
		}
		enc[k] = data
	}
	return bytes.Equal(enc[0], enc[1]), nil
}

// leftover returns the path of a record, failure note, running marker or log in dir, or ""
// when it has none: what a run left, which a directory without a manifest must not hold.
func leftover(dir string) string {
	for _, pattern := range []string{"jobs/*/*", "failed/*", "running/*", "logs/*"} {
		if m, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern))); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

func readManifest(dir string) (*manifest, error) {
	data, err := readlimit.File(filepath.Join(dir, "manifest.json"), "a study manifest", maxManifestSize)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("study: %s/manifest.json: %w", dir, err)
	}
	if m.Version != manifestVersion || m.Spec == nil {
		return nil, fmt.Errorf("study: %s/manifest.json has version %d, expected %d", dir, m.Version, manifestVersion)
	}
	return &m, nil
}

// expand lists the jobs of every stage, stage after stage.
func expand(s *Spec) []JobInfo {
	var out []JobInfo
	for _, st := range s.Stages {
		for _, p := range s.jobs(st) {
			out = append(out, JobInfo{Index: len(out), Stage: st.Name, Key: s.key(p), Params: p})
		}
	}
	return out
}

// stage returns the stage of a name.
func (s *Study) stage(name string) (Stage, int) {
	for i, st := range s.Spec.Stages {
		if st.Name == name {
			return st, i
		}
	}
	return Stage{}, -1
}

// StageJobs returns the indices of a stage's jobs.
func (s *Study) StageJobs(stage string) []int {
	var out []int
	for _, j := range s.Jobs {
		if j.Stage == stage {
			out = append(out, j.Index)
		}
	}
	return out
}

func (s *Study) recordDir(i int) string {
	return filepath.Join(s.Dir, "jobs", s.Jobs[i].Stage, fmt.Sprintf("%05d", i))
}
func (s *Study) failedPath(i int) string {
	return filepath.Join(s.Dir, "failed", fmt.Sprintf("%05d.json", i))
}
func (s *Study) runningPath(i int) string {
	return filepath.Join(s.Dir, "running", fmt.Sprintf("%05d.json", i))
}

// LogPath is the log file of job i (all attempts, appended).
func (s *Study) LogPath(i int) string {
	return filepath.Join(s.Dir, "logs", fmt.Sprintf("%05d.log", i))
}

// Done reports whether job i has a valid record: a record.json that parses, whose checksum
// matches and that names this job (index, stage, key and seed), in a directory that held
// every file it lists when the record was first checked (a process checks a record again only
// when record.json changes). A job with an invalid record runs again (Status says why).
func (s *Study) Done(i int) bool {
	return s.recordError(i) == nil
}

// errNoRecord is the error of recordError for a job without a record directory.
var errNoRecord = errors.New("no record")

// recordError checks the record of job i: nil for a valid record, errNoRecord when the job has
// none, else an error saying what is wrong with it.
func (s *Study) recordError(i int) error {
	path := filepath.Join(s.recordDir(i), "record.json")
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		if _, derr := os.Stat(s.recordDir(i)); derr == nil {
			return errors.New("its record directory has no record.json")
		}
		return errNoRecord
	}
	if err != nil {
		return err
	}
	stamp := recordStamp{fi.Size(), fi.ModTime().UnixNano()}
	if v, ok := s.verified.Load(i); ok && v.(recordStamp) == stamp {
		return nil
	}
	data, err := readlimit.File(path, "a job record", maxRecordSize)
	if err != nil {
		return err
	}
	r, err := parseRecord(data)
	if err != nil {
		return err
	}
	if err := s.checkRecord(i, r); err != nil {
		return err
	}
	s.verified.Store(i, stamp)
	return nil
}

// parseRecord decodes a record.json and checks its checksum.
func parseRecord(data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("record.json does not parse (truncated or corrupt): %w", err)
	}
	if r.Checksum == "" {
		return nil, errors.New("record.json has no checksum (written by an older gosbi, or edited)")
	}
	sum, err := r.checksum()
	if err != nil {
		return nil, err
	}
	if sum != r.Checksum {
		return nil, fmt.Errorf("record.json does not match its checksum (corrupt or edited): SHA-256 %s, recorded %s", sum, r.Checksum)
	}
	return &r, nil
}

// checkRecord checks that r, read from the record directory of job i, is that job's record
// (not one copied or moved there from another job or study) and that the directory holds the
// files it lists.
func (s *Study) checkRecord(i int, r *Record) error {
	job := s.Jobs[i]
	if r.Index != i || r.Stage != job.Stage || r.Key != job.Key {
		return fmt.Errorf("record.json is the record of %s (copied or moved?)", label(r.Index, r.Stage, r.Key))
	}
	if want := JobSeed(s.Spec.Name, job.Stage, job.Key); r.Seed != want {
		return fmt.Errorf("record.json has seed %d, expected %d: it is the record of another study's job (copied or moved?)", r.Seed, want)
	}
	return r.checkFiles(s.recordDir(i))
}

// checkFiles checks that the record directory dir holds every file the record lists: a
// record whose file was deleted (by hand, say) is invalid, and its job runs again.
func (r *Record) checkFiles(dir string) error {
	for _, f := range r.Files {
		if _, err := os.Lstat(filepath.Join(dir, f)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("its file %s, listed in record.json, is missing (deleted?)", f)
			}
			return fmt.Errorf("its file %s: %w", f, err)
		}
	}
	return nil
}

// checksum is the SHA-256 of the record's JSON with an empty Checksum field, in hex.
func (r Record) checksum() (string, error) {
	r.Checksum = ""
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("study: %w", err)
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

// encodeRecord returns the record.json of r, its checksum filled in.
func encodeRecord(r Record) ([]byte, error) {
	sum, err := r.checksum()
	if err != nil {
		return nil, err
	}
	r.Checksum = sum
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	return append(data, '\n'), nil
}

// Missing returns the jobs of a stage without a record.
func (s *Study) Missing(stage string) []int {
	var out []int
	for _, i := range s.StageJobs(stage) {
		if !s.Done(i) {
			out = append(out, i)
		}
	}
	return out
}

// Record is what a finished job left: its parameters, seed, metrics and files.
type Record struct {
	Index    int                  `json:"index"`
	Stage    string               `json:"stage"`
	Key      string               `json:"key"`
	Params   map[string]string    `json:"params"`
	Seed     uint64               `json:"seed"`
	Metrics  map[string]float64   `json:"metrics,omitempty"`
	Series   map[string][]float64 `json:"series,omitempty"`
	Files    []string             `json:"files,omitempty"`
	Attempt  int                  `json:"attempt"`
	Host     string               `json:"host"`
	Started  time.Time            `json:"started"`
	Finished time.Time            `json:"finished"`
	// Checksum is the SHA-256 of the record's JSON written with an empty Checksum: a record
	// whose file does not parse or does not match it is not done, and its job runs again.
	Checksum string `json:"checksum"`
	Dir      string `json:"-"` // the record's directory
}

// Path returns the path of a file the job wrote.
func (r *Record) Path(name string) string { return filepath.Join(r.Dir, name) }

// Metric returns a metric of the record, with an error naming the job when it is missing.
func (r *Record) Metric(name string) (float64, error) {
	v, ok := r.Metrics[name]
	if !ok {
		return 0, fmt.Errorf("study: %s has no metric %q (%s; a job records a metric with Job.Set)",
			label(r.Index, r.Stage, r.Key), name, recordedNames(r.Metrics, "metrics"))
	}
	return v, nil
}

// recordedNames says which names of m a record holds, sorted: "its metrics: [a b]", or
// "it recorded none" when m is empty.
func recordedNames[V any](m map[string]V, what string) string {
	if len(m) == 0 {
		return "it recorded none"
	}
	return fmt.Sprintf("its %s: %v", what, slices.Sorted(maps.Keys(m)))
}

// Record reads the record of job i, with an error when it has none or it is invalid.
func (s *Study) Record(i int) (*Record, error) {
	if i < 0 || i >= len(s.Jobs) {
		return nil, fmt.Errorf("study: job %d does not exist (the study has %s)", i, text.Count(len(s.Jobs), "job"))
	}
	dir := s.recordDir(i)
	data, err := readlimit.File(filepath.Join(dir, "record.json"), "a job record", maxRecordSize)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("study: %s has not finished", s.Jobs[i])
		}
		return nil, fmt.Errorf("study: %w", err)
	}
	r, err := parseRecord(data)
	if err == nil {
		err = s.checkRecord(i, r)
	}
	if err != nil {
		return nil, fmt.Errorf("study: %s: %s: %w; run the study again to re-run the job", s.Jobs[i], dir, err)
	}
	r.Dir = dir
	return r, nil
}

// Failure is the note a failed attempt leaves.
type Failure struct {
	Index   int       `json:"index"`
	Error   string    `json:"error"`
	Attempt int       `json:"attempt"`
	Host    string    `json:"host"`
	Time    time.Time `json:"time"`
}

// Failure returns the last failure of job i, or nil when it has none or its failure note is
// damaged (Status names a damaged note, in Damaged).
func (s *Study) Failure(i int) *Failure {
	f, _ := s.failureNote(i)
	return f
}

// failureNote reads the failure note of job i: nil, nil when it has none, and a *damagedFile
// when the note cannot be read or holds no attempt.
func (s *Study) failureNote(i int) (*Failure, error) {
	path := s.failedPath(i)
	data, err := readlimit.File(path, "a failure note", maxNoteSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &damagedFile{job: s.Jobs[i], what: noteKind, path: path, reason: "cannot be read: " + err.Error()}
	}
	var f Failure
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &damagedFile{job: s.Jobs[i], what: noteKind, path: path, reason: "does not parse: " + err.Error()}
	}
	if f.Attempt < 1 {
		return nil, &damagedFile{job: s.Jobs[i], what: noteKind, path: path, reason: fmt.Sprintf("attempt %d, expected 1 or more", f.Attempt)}
	}
	return &f, nil
}

// The kinds of a damagedFile.
const (
	noteKind   = "failure note"
	markerKind = "running marker"
)

// damagedFile is the error of a job's failure note or running marker that cannot be read or
// does not hold what gosbi writes there: the job does not run until the file is removed.
type damagedFile struct {
	job                JobInfo
	what, path, reason string
}

func (d *damagedFile) Error() string {
	return fmt.Sprintf("its %s %s is damaged (%s); %s", d.what, d.path, d.reason, d.advice())
}

// advice says what a damaged file stops and what to do.
func (d *damagedFile) advice() string {
	if d.what == markerKind {
		return "nobody can tell whether a worker still runs the job, so the job does not run and its temporary directories are kept: once no worker runs it, remove the file to let the job run again"
	}
	return "the job's attempt count is lost, so the job does not run: remove the file to let the job run again"
}

// writeFileAtomic writes data to path through a synced temporary file in the same directory
// (internal/atomicfile), so that readers see the old file or the whole new one.
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("study: writing %s: %w", path, err)
	}
	return nil
}

func writeJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("study: %s: %w", path, err)
	}
	return writeFileAtomic(path, append(data, '\n'))
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sanitize makes s usable in a Slurm job name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

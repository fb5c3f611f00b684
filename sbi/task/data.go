package task

import (
	"bufio"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/gosbi/gosbi/sbi/internal/safe"
	"gonum.org/v1/gonum/mat"
)

// ErrNotAvailable is wrapped by the errors of Observation, TrueParameters and
// ReferencePosterior when the data is not there: a file missing from the data directory, or a
// task that has no stored observations.
var ErrNotAvailable = errors.New("not available")

// DataDir is the directory holding the sbibm files: $GOSBI_DATA if set, else
// os.UserCacheDir()/gosbi/sbibm. Its layout is <task>/num_observation_<k>/<file>, as in sbibm.
func DataDir() (string, error) {
	if d := os.Getenv("GOSBI_DATA"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: set GOSBI_DATA (%w)", err)
	}
	return filepath.Join(c, "gosbi", "sbibm"), nil
}

func (b *base) checkK(what string, k int) error {
	if b.files == "" {
		return fmt.Errorf("task %s has no stored %s: it is not an sbibm task; simulate data from chosen parameters instead: %w", b.name, what, ErrNotAvailable)
	}
	if k < 1 || k > NumObservations {
		return fmt.Errorf("task %s: observation number %d out of range, expected 1 to %d", b.name, k, NumObservations)
	}
	return nil
}

// Observation: see Task.
func (b *base) Observation(k int) ([]float64, error) {
	if err := b.checkK("observations", k); err != nil {
		return nil, err
	}
	x, err := b.readVector(k, b.obsFile, "observation", b.dataDim)
	if err != nil {
		return nil, err
	}
	return x, nil
}

// MustObservation is Observation for notebook cells: it returns the result alone and panics with
// Observation's error.
func (b *base) MustObservation(k int) []float64 {
	return safe.Must(b.Observation(k))
}

// TrueParameters: see Task.
func (b *base) TrueParameters(k int) ([]float64, error) {
	if err := b.checkK("true parameters", k); err != nil {
		return nil, err
	}
	return b.readVector(k, "true_parameters.csv", "true parameters", b.ParamDim())
}

// MustTrueParameters is TrueParameters for notebook cells: it returns the result alone and panics
// with TrueParameters's error.
func (b *base) MustTrueParameters(k int) []float64 {
	return safe.Must(b.TrueParameters(k))
}

// ReferencePosterior: see Task.
func (b *base) ReferencePosterior(k int) (*mat.Dense, error) {
	if err := b.checkK("reference posterior samples", k); err != nil {
		return nil, err
	}
	rows, err := b.readTable(k, "reference_posterior_samples.csv.bz2", "reference posterior samples")
	if err != nil {
		return nil, err
	}
	m := mat.NewDense(len(rows), b.ParamDim(), nil)
	for i, r := range rows {
		if len(r) != b.ParamDim() {
			return nil, b.damaged(k, "reference_posterior_samples.csv.bz2", "reference posterior samples",
				fmt.Errorf("sample %d has %d values, expected %d", i+1, len(r), b.ParamDim()))
		}
		copy(m.RawRowView(i), r)
	}
	return m, nil
}

// MustReferencePosterior is ReferencePosterior for notebook cells: it returns the result alone and
// panics with ReferencePosterior's error.
func (b *base) MustReferencePosterior(k int) *mat.Dense {
	return safe.Must(b.ReferencePosterior(k))
}

func (b *base) readVector(k int, file, what string, want int) ([]float64, error) {
	rows, err := b.readTable(k, file, what)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, b.damaged(k, file, what, fmt.Errorf("%d rows, expected one row of %d values", len(rows), want))
	}
	if len(rows[0]) != want {
		return nil, b.damaged(k, file, what, fmt.Errorf("%d values, expected %d", len(rows[0]), want))
	}
	return rows[0], nil
}

// damaged is the error of a data file that is there but unusable: it names the file and how to
// replace it (Fetch downloads again a file that differs from its recorded hash), and drops the
// file's table from the cache so that the replaced file is read. It does not wrap
// ErrNotAvailable: the data is there, and wrong.
func (b *base) damaged(k int, file, what string, err error) error {
	dir, derr := DataDir()
	if derr != nil {
		return fmt.Errorf("task %s: %s of observation %d: %w", b.name, what, k, err)
	}
	path := b.path(dir, k, file)
	tables.Delete(path)
	return fmt.Errorf("task %s: %s of observation %d: %s: %w; the file is damaged: run `gosbi data fetch` to download it again",
		b.name, what, k, path, err)
}

// path is the path of a task's file for observation k in data directory dir.
func (b *base) path(dir string, k int, file string) string {
	return filepath.Join(dir, b.files, fmt.Sprintf("num_observation_%d", k), file)
}

// openData opens a data file (a variable, so that a test can list the files the tasks read).
var openData = os.Open

// tables caches the tables read, by path: a notebook asks for the same reference samples
// often, and decompressing one costs the whole file's work again each time.
var tables sync.Map // path → [][]float64

func (b *base) readTable(k int, file, what string) ([][]float64, error) {
	dir, err := DataDir()
	if err != nil {
		return nil, fmt.Errorf("task %s: %s: %w", b.name, what, err)
	}
	path := b.path(dir, k, file)
	if t, ok := tables.Load(path); ok {
		return copyTable(t.([][]float64)), nil
	}
	f, err := openData(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("task %s: %s of observation %d are %w in %s (no %s): run `gosbi data fetch` to download the sbibm files, or set GOSBI_DATA to a directory holding them",
			b.name, what, k, ErrNotAvailable, dir, filepath.Join(b.files, fmt.Sprintf("num_observation_%d", k), file))
	}
	if err != nil {
		return nil, fmt.Errorf("task %s: %s: %w", b.name, what, err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(file, ".bz2") {
		r = bzip2.NewReader(f)
	}
	rows, err := readCSV(r)
	if err != nil {
		return nil, b.damaged(k, file, what, err)
	}
	tables.Store(path, rows)
	return copyTable(rows), nil
}

func copyTable(t [][]float64) [][]float64 {
	c := make([][]float64, len(t))
	for i, r := range t {
		c[i] = append([]float64(nil), r...)
	}
	return c
}

// readCSV reads a numeric CSV table with one header line.
func readCSV(r io.Reader) ([][]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	var rows [][]float64
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue // header
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		fields := strings.Split(text, ",")
		row := make([]float64, len(fields))
		for j, f := range fields {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d, column %d: %w", line, j+1, err)
			}
			row[j] = v
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("no data rows")
	}
	return rows, nil
}

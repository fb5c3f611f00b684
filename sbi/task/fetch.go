package task

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// DefaultDataURL is where sbibm keeps its task files (the MIT-licensed sbibm repository); a
// file's address is <base>/<task>/files/num_observation_<k>/<file>.
const DefaultDataURL = "https://raw.githubusercontent.com/sbi-benchmark/sbibm/main/sbibm/tasks"

// sbibmFiles lists the task directories of sbibm and the files each observation folder holds.
var sbibmFiles = []struct {
	task  string
	files []string
}{
	{"two_moons", nil}, {"slcp", nil}, {"gaussian_linear", nil}, {"gaussian_linear_uniform", nil},
	{"gaussian_mixture", nil}, {"sir", nil}, {"lotka_volterra", nil},
	{"bernoulli_glm", []string{"observation_raw.csv"}},
}

var commonFiles = []string{"observation.csv", "true_parameters.csv", "observation_seed.csv", "reference_posterior_samples.csv.bz2"}

// torchFiles are the fixed inputs of bernoulli_glm, which sbibm stores as tensors saved by
// torch.save (<task>/files/<pt>); Fetch writes them as CSV files without a header line,
// <task>/<csv>, one row of cols values per line.
var torchFiles = []struct {
	task, pt, csv string
	rows, cols    int
}{
	{"bernoulli_glm", "stimulus_I.pt", "stimulus.csv", glmSteps, 1},
	{"bernoulli_glm", "design_matrix.pt", "design_matrix.csv", glmSteps, glmParams},
}

// DataMain is the `gosbi data` command: `gosbi data fetch [--dir DIR] [--url BASE]` downloads
// the sbibm observations, true parameters and reference posterior samples (about 18 MB) into
// DIR (default: DataDir()). Files already present are kept.
func DataMain(args []string) error {
	if len(args) == 0 || args[0] != "fetch" {
		return errors.New("usage: gosbi data fetch [--dir DIR] [--url BASE]")
	}
	fs := flag.NewFlagSet("data fetch", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory to fill (default $GOSBI_DATA, else the user cache directory)")
	base := fs.String("url", DefaultDataURL, "base URL of the sbibm task files")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("fetch: unexpected arguments %q; usage: gosbi data fetch [--dir DIR] [--url BASE]", fs.Args())
	}
	if *dir == "" {
		d, err := DataDir()
		if err != nil {
			return err
		}
		*dir = d
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	n, err := Fetch(context.Background(), client, *base, *dir, os.Stdout)
	if err != nil {
		return fmt.Errorf("fetch: downloading the sbibm files from %s into %s: %w\n"+
			"Rerun to resume (files already downloaded are kept), give a mirror of sbibm's task folder with --url BASE, "+
			"or another folder with --dir DIR (then set GOSBI_DATA to it). "+
			"The tutorials work without these files: they simulate their observations instead", *base, *dir, err)
	}
	fmt.Printf("%d files downloaded into %s; set GOSBI_DATA=%s if it is not the default directory\n", n, *dir, *dir)
	return nil
}

// Fetch downloads every sbibm file missing from dir from base and reports each download on
// log. It returns the number of files downloaded.
func Fetch(ctx context.Context, client *http.Client, base, dir string, log io.Writer) (int, error) {
	type job struct {
		url, path string
		convert   func([]byte) ([]byte, error)
	}
	var jobs []job
	base = strings.TrimRight(base, "/")
	for _, t := range sbibmFiles {
		for k := 1; k <= NumObservations; k++ {
			sub := fmt.Sprintf("num_observation_%d", k)
			for _, f := range append(append([]string(nil), commonFiles...), t.files...) {
				path := filepath.Join(dir, t.task, sub, f)
				if st, err := os.Stat(path); err == nil && st.Size() > 0 {
					continue
				}
				jobs = append(jobs, job{base + "/" + t.task + "/files/" + sub + "/" + f, path, nil})
			}
		}
	}
	for _, t := range torchFiles {
		path := filepath.Join(dir, t.task, t.csv)
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			continue
		}
		rows, cols := t.rows, t.cols
		jobs = append(jobs, job{base + "/" + t.task + "/files/" + t.pt, path, func(b []byte) ([]byte, error) {
			return torchCSV(b, rows, cols)
		}})
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		done  int
		next  = make(chan job)
	)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				err := safe.Call("data fetch "+j.path, func() error { return download(ctx, client, j.url, j.path, j.convert) })
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if err == nil {
					done++
					fmt.Fprintf(log, "[%d/%d] %s\n", done, len(jobs), j.path)
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
	if first != nil {
		return done, first
	}
	return done, nil
}

// download writes the body of url, passed through convert unless it is nil, to path through a
// synced temporary file (atomicfile), so that an interrupted download never leaves a partial
// file behind.
func download(ctx context.Context, client *http.Client, url, path string, convert func([]byte) ([]byte, error)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	if convert != nil {
		if body, err = convert(body); err != nil {
			return fmt.Errorf("%s: %w", url, err)
		}
	}
	return writeFileAtomic(path, body)
}

// writeFileAtomic writes b to path through a temporary file in the same directory, synced
// before it is renamed over path.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}

// torchCSV converts a rows×cols float32 tensor saved by torch.save in its legacy format
// (a pickle stream, protocol 2) to CSV lines. The legacy format ends with the tensor's storage:
// an int64 element count followed by the elements, little-endian, in row-major order for a
// contiguous tensor; the pickle before it names the storage type.
func torchCSV(b []byte, rows, cols int) ([]byte, error) {
	n := rows * cols
	if len(b) < 2 || b[0] != 0x80 || b[1] != 0x02 {
		return nil, errors.New("not a tensor saved by torch.save in the legacy format (no pickle protocol 2 header)")
	}
	if !bytes.Contains(b, []byte("FloatStorage")) {
		return nil, errors.New("the tensor is not float32 (no FloatStorage)")
	}
	off := len(b) - 4*n - 8
	if off < 2 || binary.LittleEndian.Uint64(b[off:]) != uint64(n) {
		return nil, fmt.Errorf("expected a storage of %d×%d = %d float32 values at the end of the file", rows, cols, n)
	}
	var out bytes.Buffer
	data := b[off+8:]
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				out.WriteByte(',')
			}
			v := math.Float32frombits(binary.LittleEndian.Uint32(data[4*(i*cols+j):]))
			out.WriteString(strconv.FormatFloat(float64(v), 'g', 9, 32))
		}
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

package task

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // the manifest of the sbibm files
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi/internal/safe"
)

// DefaultDataURL is where sbibm keeps its task files (the MIT-licensed sbibm repository), at
// the commit whose files sbibm.sum records; a file's address is
// <base>/<task>/files/num_observation_<k>/<file>.
const DefaultDataURL = "https://raw.githubusercontent.com/sbi-benchmark/sbibm/f0bc44039e6b7e095c18d4e9e64819d75be76587/sbibm/tasks"

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

// sbibmSums is the size and SHA-256 of every file Fetch downloads or writes (sbibm.sum).
//
//go:embed sbibm.sum
var sbibmSums string

// fileSum is the recorded size and SHA-256 of a file.
type fileSum struct {
	size int64
	sha  [sha256.Size]byte
}

// maxFetchSize bounds the size a manifest may record for one file: Fetch holds a file in memory
// until its hash is checked.
const maxFetchSize = 64 << 20

// parseSums reads a manifest: lines "SHA256 SIZE PATH", with '#' comments and blank lines.
func parseSums(text string) (map[string]fileSum, error) {
	out := map[string]fileSum{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: %q, expected SHA256 SIZE PATH", n+1, line)
		}
		var sum fileSum
		h, err := hex.DecodeString(f[0])
		if err != nil || len(h) != sha256.Size {
			return nil, fmt.Errorf("line %d: %q is not a SHA-256 in hex", n+1, f[0])
		}
		copy(sum.sha[:], h)
		if sum.size, err = strconv.ParseInt(f[1], 10, 64); err != nil || sum.size < 0 || sum.size > maxFetchSize {
			return nil, fmt.Errorf("line %d: size %q, expected 0 to %d bytes", n+1, f[1], maxFetchSize)
		}
		if _, dup := out[f[2]]; dup {
			return nil, fmt.Errorf("line %d: %s is listed twice", n+1, f[2])
		}
		out[f[2]] = sum
	}
	return out, nil
}

// Fetch downloads the sbibm files from base into dir (the layout of DataDir) and reports each
// download on log; it returns the number of files downloaded. Every file is checked against
// the size and SHA-256 recorded in the repository (sbi/task/sbibm.sum): a response is read no
// further than the recorded size, and a file is written (atomically) only when its size and hash
// match, so a server that answers with something else (a login page, an endless body) leaves
// nothing behind and Fetch returns an error naming the file. A file already in dir is kept when
// it matches and downloaded again when it does not; a dir that is a file, or a folder of it
// that takes no new file where one is missing, is an error before anything is downloaded.
// bernoulli_glm's stimulus and design matrix, which sbibm stores as torch tensors, are checked
// as downloaded and again as converted to CSV.
func Fetch(ctx context.Context, client *http.Client, base, dir string, log io.Writer) (int, error) {
	sums, err := parseSums(sbibmSums)
	if err != nil {
		return 0, fmt.Errorf("the embedded sbibm.sum: %w", err)
	}
	return fetch(ctx, client, base, dir, log, sums)
}

// fetchJob is one file to download: from url to path (name relative to the data directory),
// through convert when the download is a source in another format (src names its sum).
type fetchJob struct {
	url, path, name string
	src             string
	convert         func([]byte) ([]byte, error)
}

// fetchPlan lists the files Fetch writes, with the sums they must match.
func fetchPlan(base, dir string) []fetchJob {
	var jobs []fetchJob
	base = strings.TrimRight(base, "/")
	for _, t := range sbibmFiles {
		for k := 1; k <= NumObservations; k++ {
			sub := fmt.Sprintf("num_observation_%d", k)
			for _, f := range append(append([]string(nil), commonFiles...), t.files...) {
				name := t.task + "/" + sub + "/" + f
				jobs = append(jobs, fetchJob{url: base + "/" + t.task + "/files/" + sub + "/" + f, path: filepath.Join(dir, filepath.FromSlash(name)), name: name})
			}
		}
	}
	for _, t := range torchFiles {
		rows, cols := t.rows, t.cols
		src := t.task + "/files/" + t.pt
		jobs = append(jobs, fetchJob{url: base + "/" + src, path: filepath.Join(dir, t.task, t.csv), name: t.task + "/" + t.csv, src: src,
			convert: func(b []byte) ([]byte, error) { return torchCSV(b, rows, cols) }})
	}
	return jobs
}

// fetch is Fetch with the manifest sums.
func fetch(ctx context.Context, client *http.Client, base, dir string, log io.Writer, sums map[string]fileSum) (int, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return 0, fmt.Errorf("the data directory %s is a file, not a directory", dir)
	}
	var jobs []fetchJob
	for _, j := range fetchPlan(base, dir) {
		want, ok := sums[j.name]
		_, srcOK := sums[j.src]
		if !ok || j.src != "" && !srcOK {
			return 0, fmt.Errorf("no size and SHA-256 recorded for %s in sbibm.sum", j.name)
		}
		switch err := checkFile(j.path, want); {
		case err == nil:
			continue
		case !errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(log, "%s: %v; downloading it again\n", j.path, err)
		}
		jobs = append(jobs, j)
	}
	if err := checkWritable(jobs); err != nil {
		return 0, err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		done  int
		next  = make(chan fetchJob)
	)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				err := safe.Call("data fetch "+j.path, func() error { return download(ctx, client, j, sums) })
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
	return done, first
}

// checkWritable checks, before anything is downloaded, that each file of jobs can be written
// where it goes, creating the folders it needs.
func checkWritable(jobs []fetchJob) error {
	for _, j := range jobs {
		if err := os.MkdirAll(filepath.Dir(j.path), 0o755); err != nil {
			return fmt.Errorf("%s cannot be written: %w", j.path, err)
		}
		if err := atomicfile.Writable(j.path); err != nil {
			return fmt.Errorf("%s cannot be written: %w", j.path, err)
		}
	}
	return nil
}

// checkFile compares a file with its recorded size and hash: nil when it matches, an error
// wrapping fs.ErrNotExist when it is absent, else an error saying how it differs.
func checkFile(path string, want fileSum) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if st.Size() != want.size {
		return fmt.Errorf("%d bytes, expected %d", st.Size(), want.size)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := h.Sum(nil); !bytes.Equal(got, want.sha[:]) {
		return fmt.Errorf("SHA-256 %x, expected %x", got, want.sha)
	}
	return nil
}

// checkBytes compares data with a recorded size and hash.
func checkBytes(data []byte, want fileSum) error {
	if int64(len(data)) != want.size {
		return fmt.Errorf("%d bytes, expected %d", len(data), want.size)
	}
	if got := sha256.Sum256(data); got != want.sha {
		return fmt.Errorf("SHA-256 %x, expected %x", got, want.sha)
	}
	return nil
}

// download fetches one file, reading no more than its recorded size (one byte more, to tell a
// longer body), checks its size and hash (and those of its conversion), and only then writes
// it to its path through a synced temporary file (atomicfile): a download that does not match,
// or is interrupted, leaves nothing behind.
func download(ctx context.Context, client *http.Client, j fetchJob, sums map[string]fileSum) error {
	want := sums[j.name]
	if j.src != "" {
		want = sums[j.src]
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", j.url, resp.Status)
	}
	notIt := "it is not sbibm's file (a login or error page of a proxy?); nothing was written"
	if resp.ContentLength > want.size {
		return fmt.Errorf("GET %s: the server announces %d bytes, expected %d: %s", j.url, resp.ContentLength, want.size, notIt)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, want.size+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", j.url, err)
	}
	if int64(len(body)) > want.size {
		return fmt.Errorf("GET %s: the body is longer than the %d bytes recorded: %s", j.url, want.size, notIt)
	}
	if err := checkBytes(body, want); err != nil {
		return fmt.Errorf("GET %s: received %v: %s", j.url, err, notIt)
	}
	if j.convert != nil {
		if body, err = j.convert(body); err != nil {
			return fmt.Errorf("%s: %w", j.url, err)
		}
		if err := checkBytes(body, sums[j.name]); err != nil {
			return fmt.Errorf("%s converted to %s: %v; nothing was written", j.url, j.name, err)
		}
	}
	return writeFileAtomic(j.path, body)
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

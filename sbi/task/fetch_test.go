package task

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeContent is what the fake sbibm server serves at a path under /tasks/: small CSV files,
// and bernoulli_glm's tensors in torch's legacy format.
func fakeContent(path string) []byte {
	switch path {
	case "bernoulli_glm/files/stimulus_I.pt":
		return legacyTorch(seq(glmSteps))
	case "bernoulli_glm/files/design_matrix.pt":
		return legacyTorch(seq(glmSteps * glmParams))
	}
	return []byte("data_1,data_2\n0.5,-0.25\n")
}

// fakeSums is the manifest of the fake server's files: the sums of what it serves and of the
// CSV files the tensors convert to.
func fakeSums(t *testing.T) map[string]fileSum {
	t.Helper()
	sums := map[string]fileSum{}
	add := func(name string, data []byte) {
		sums[name] = fileSum{size: int64(len(data)), sha: sha256.Sum256(data)}
	}
	for _, j := range fetchPlan("", "") {
		if j.convert == nil {
			add(j.name, fakeContent(j.name))
			continue
		}
		add(j.src, fakeContent(j.src))
		csv, err := j.convert(fakeContent(j.src))
		if err != nil {
			t.Fatal(err)
		}
		add(j.name, csv)
	}
	return sums
}

// fakeServer serves fakeContent under /tasks/ over HTTPS, counting requests; a path under
// /missing/ is not found. serve, when set, answers instead for the paths it returns true for.
func fakeServer(t *testing.T, serve func(w http.ResponseWriter, path string) bool) (*httptest.Server, *atomic.Int64) {
	var requests atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		path, ok := strings.CutPrefix(r.URL.Path, "/tasks/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		if !strings.Contains(path, "/files/") {
			http.Error(w, "bad path "+r.URL.Path, http.StatusBadRequest)
			return
		}
		if serve != nil && serve(w, path) {
			return
		}
		w.Write(fakeContent(path))
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

// TestFetch serves a fake sbibm tree over HTTPS with its own manifest and checks that every
// file lands in the layout the tasks read, that a second run downloads nothing, and that a
// missing file on the server gives an error while keeping the files already fetched.
func TestFetch(t *testing.T) {
	srv, requests := fakeServer(t, nil)
	sums := fakeSums(t)
	dir := t.TempDir()
	n, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks/", dir, io.Discard, sums)
	if err != nil {
		t.Fatal(err)
	}
	if want := 8*10*4 + 10 + 2; n != want {
		t.Errorf("downloaded %d files, want %d", n, want)
	}
	t.Setenv("GOSBI_DATA", dir)
	x, err := TwoMoons().Observation(7)
	if err != nil || len(x) != 2 || x[0] != 0.5 || x[1] != -0.25 {
		t.Errorf("reading a fetched observation: %v %v", x, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bernoulli_glm", "num_observation_3", "observation_raw.csv")); err != nil {
		t.Error(err)
	}
	// The GLM's fixed inputs, converted from torch files to the CSV files the tests read.
	if rows := readShared(t, "design_matrix.csv"); len(rows) != glmSteps || len(rows[1]) != glmParams || rows[1][2] != 3 || rows[99][9] != 249.75 {
		t.Errorf("design_matrix.csv: %d rows, row 2 %v", len(rows), rows[1])
	}
	if rows := readShared(t, "stimulus.csv"); len(rows) != glmSteps || rows[2][0] != 0.5 {
		t.Errorf("stimulus.csv: %d rows, row 3 %v", len(rows), rows[2])
	}
	before := requests.Load()
	if n, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", dir, io.Discard, sums); err != nil || n != 0 || requests.Load() != before {
		t.Errorf("second fetch: %d files, %v, %d requests", n, err, requests.Load()-before)
	}
	_, err = fetch(context.Background(), srv.Client(), srv.URL+"/missing/", t.TempDir(), io.Discard, sums)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing files: error %v", err)
	}
}

// TestFetchRefuses: a body that is not the recorded file — a login page, an endless stream, a
// body announced or sent longer or shorter than recorded, a tensor that converts to another
// CSV — is an error naming the URL, and nothing of it is written to the data directory.
func TestFetchRefuses(t *testing.T) {
	const victim = "two_moons/files/num_observation_1/observation.csv"
	glm := "bernoulli_glm/files/design_matrix.pt"
	for _, tc := range []struct {
		name, path string
		serve      func(w http.ResponseWriter)
		want       string
	}{
		{"login page", victim, func(w http.ResponseWriter) {
			io.WriteString(w, "<html>Please log in</html>")
		}, "the server announces 26 bytes, expected 24"},
		{"same size", victim, func(w http.ResponseWriter) {
			io.WriteString(w, "data_1,data_2\n0.5,-0.75\n")
		}, "received SHA-256"},
		{"endless", victim, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/csv") // no Content-Length: chunked, without end
			chunk := []byte(strings.Repeat("1,2\n", 1024))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "the body is longer than the 24 bytes recorded"},
		{"short", victim, func(w http.ResponseWriter) {
			io.WriteString(w, "data_1\n")
		}, "received 7 bytes, expected 24"},
		{"tensor", glm, func(w http.ResponseWriter) {
			b := legacyTorch(seq(glmSteps * glmParams))
			b[len(b)-1] ^= 1
			w.Write(b)
		}, "received SHA-256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fakeServer(t, func(w http.ResponseWriter, path string) bool {
				if path != tc.path {
					return false
				}
				tc.serve(w)
				return true
			})
			dir := t.TempDir()
			done := make(chan error, 1)
			go func() {
				_, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", dir, io.Discard, fakeSums(t))
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("fetch did not return within a minute")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "nothing was written") {
				t.Fatalf("fetch = %v, want an error naming %s and %q", err, tc.path, tc.want)
			}
			bad := filepath.Join(dir, "two_moons", "num_observation_1", "observation.csv")
			if tc.path == glm {
				bad = filepath.Join(dir, "bernoulli_glm", "design_matrix.csv")
			}
			if _, err := os.Stat(bad); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s was written: %v", bad, err)
			}
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.Contains(d.Name(), ".tmp") {
					t.Errorf("left %s", p)
				}
				return nil
			})
		})
	}
}

// TestFetchReplacesDamaged: a file of the data directory that differs from its recorded size or
// hash (a page saved by an earlier fetch, a changed digit) is downloaded again; the intact
// files are not.
func TestFetchReplacesDamaged(t *testing.T) {
	srv, requests := fakeServer(t, nil)
	sums := fakeSums(t)
	dir := t.TempDir()
	if _, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", dir, io.Discard, sums); err != nil {
		t.Fatal(err)
	}
	damaged := map[string]string{
		filepath.Join(dir, "sir", "num_observation_2", "observation.csv"):      "<html>captive portal</html>",
		filepath.Join(dir, "slcp", "num_observation_9", "true_parameters.csv"): "data_1,data_2\n0.5,-0.75\n",
		filepath.Join(dir, "bernoulli_glm", "stimulus.csv"):                    "0\n",
	}
	for p, text := range damaged {
		os.WriteFile(p, []byte(text), 0o644)
	}
	before := requests.Load()
	var log strings.Builder
	n, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", dir, &log, sums)
	if err != nil || n != len(damaged) || requests.Load()-before != int64(len(damaged)) {
		t.Fatalf("fetch over damaged files: %d files, %d requests, %v; want %d", n, requests.Load()-before, err, len(damaged))
	}
	for p := range damaged {
		if err := checkFile(p, sums[filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))]); err != nil {
			t.Errorf("%s after the second fetch: %v", p, err)
		}
		if !strings.Contains(log.String(), p+": ") || !strings.Contains(log.String(), "downloading it again") {
			t.Errorf("the log does not say why %s is downloaded again:\n%s", p, log.String())
		}
	}
}

// TestEmbeddedManifest: sbibm.sum parses, records a size and hash for every file Fetch writes
// and every file the tasks read, and agrees with the sbibm files of the repository
// (testdata/sbibm) and of the data directory in use.
func TestEmbeddedManifest(t *testing.T) {
	sums, err := parseSums(sbibmSums)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range fetchPlan("", "") {
		if _, ok := sums[j.name]; !ok {
			t.Errorf("sbibm.sum has no entry for %s", j.name)
		}
		if _, ok := sums[j.src]; j.src != "" && !ok {
			t.Errorf("sbibm.sum has no entry for %s", j.src)
		}
	}
	inUse := os.Getenv("GOSBI_DATA") // set by TestMain (sbibmtest)
	// every file every task reads, as the tasks name them
	empty := t.TempDir()
	t.Setenv("GOSBI_DATA", empty)
	read := map[string]bool{}
	defer func(f func(string) (*os.File, error)) { openData = f }(openData)
	openData = func(path string) (*os.File, error) {
		rel, _ := filepath.Rel(empty, path)
		read[filepath.ToSlash(rel)] = true
		return nil, fs.ErrNotExist
	}
	for _, name := range Names() {
		tk, _ := Get(name)
		for k := 1; k <= NumObservations; k++ {
			tk.Observation(k)
			tk.TrueParameters(k)
			tk.ReferencePosterior(k)
		}
	}
	if len(read) < 8*10*3 {
		t.Fatalf("the tasks read only %d files: %v", len(read), read)
	}
	for name := range read {
		if _, ok := sums[name]; !ok {
			t.Errorf("the tasks read %s, which sbibm.sum does not record", name)
		}
	}
	// the files of the repository and of the data directory match their sums
	check := func(dir string, all bool) (n int) {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			sum, ok := sums[filepath.ToSlash(rel)]
			switch {
			case !ok && all && !strings.Contains(rel, string(filepath.Separator)):
			case !ok && all:
				t.Errorf("%s is not recorded in sbibm.sum", p)
			case ok:
				if err := checkFile(p, sum); err != nil {
					t.Errorf("%s: %v", p, err)
				}
				n++
			}
			return nil
		})
		return n
	}
	if n := check(filepath.Join("..", "..", "testdata", "sbibm"), true); n < 100 {
		t.Errorf("only %d files of testdata/sbibm checked", n)
	}
	if inUse != "" {
		t.Logf("%d files of %s match sbibm.sum", check(inUse, false), inUse)
	}
}

// seq returns 0, 0.25, 0.5, … (n values, exact in float32).
func seq(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i) / 4
	}
	return v
}

// legacyTorch returns a file shaped like torch.save's legacy format for a float32 tensor:
// a protocol-2 pickle naming the storage type, then the element count and the elements.
func legacyTorch(v []float32) []byte {
	b := []byte("\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.ctorch\nFloatStorage\nq\x02.")
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func TestTorchCSV(t *testing.T) {
	got, err := torchCSV(legacyTorch([]float32{1, -0.5, 0.0675282031, 3}), 2, 2)
	if err != nil || string(got) != "1,-0.5\n0.0675282031,3\n" {
		t.Errorf("torchCSV = %q, %v", got, err)
	}
	for name, b := range map[string][]byte{
		"too few values": legacyTorch([]float32{1, 2, 3}),
		"not a pickle":   []byte("data_1\n0.5\n"),
		"not float32":    []byte("\x80\x02ctorch\nDoubleStorage\n" + strings.Repeat("\x00", 40)),
	} {
		if _, err := torchCSV(b, 2, 2); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestFetchDirIsAFile: a data directory that is a file is refused at once with an error naming
// it, before any request, instead of a line per file saying it will be downloaded again.
func TestFetchDirIsAFile(t *testing.T) {
	srv, requests := fakeServer(t, nil)
	file := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	n, err := fetch(context.Background(), srv.Client(), srv.URL+"/tasks", file, &log, fakeSums(t))
	if n != 0 || err == nil || !strings.Contains(err.Error(), file+" is a file, not a directory") || requests.Load() != 0 || log.Len() != 0 {
		t.Errorf("fetch into a file: %d files, %d requests, error %v, log of %d bytes; want an error naming the file, no request and no log",
			n, requests.Load(), err, log.Len())
	}
}

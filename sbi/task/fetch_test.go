package task

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFetch serves a fake sbibm tree over HTTPS and checks that every file lands in the
// layout the tasks read, that a second run downloads nothing, and that a missing file on the
// server gives an error while keeping the files already fetched.
func TestFetch(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if strings.Contains(r.URL.Path, "/missing/") {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/tasks/bernoulli_glm/files/stimulus_I.pt" {
			w.Write(legacyTorch(seq(glmSteps)))
			return
		}
		if r.URL.Path == "/tasks/bernoulli_glm/files/design_matrix.pt" {
			w.Write(legacyTorch(seq(glmSteps * glmParams)))
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/tasks/") || !strings.Contains(r.URL.Path, "/files/num_observation_") {
			http.Error(w, "bad path "+r.URL.Path, http.StatusBadRequest)
			return
		}
		io.WriteString(w, "data_1,data_2\n0.5,-0.25\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	n, err := Fetch(context.Background(), srv.Client(), srv.URL+"/tasks/", dir, io.Discard)
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
	if n, err := Fetch(context.Background(), srv.Client(), srv.URL+"/tasks", dir, io.Discard); err != nil || n != 0 || requests.Load() != before {
		t.Errorf("second fetch: %d files, %v, %d requests", n, err, requests.Load()-before)
	}
	_, err = Fetch(context.Background(), srv.Client(), srv.URL+"/missing/", t.TempDir(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing files: error %v", err)
	}
	if err := DataMain([]string{"pull"}); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("bad sub-command: %v", err)
	}
	// A failed download names the folder, the URL and the flag that changes it, and says that
	// the tutorials do not need the files.
	bad := t.TempDir()
	err = DataMain([]string{"fetch", "--dir", bad, "--url", "http://127.0.0.1:1/tasks"})
	if err == nil {
		t.Fatal("fetch from a closed port: no error")
	}
	for _, want := range []string{bad, "http://127.0.0.1:1/tasks", "--url", "--dir", "Rerun to resume", "tutorials work without"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("fetch error %q does not name %q", err, want)
		}
	}
	if c := strings.Count(err.Error(), "fetch:"); c != 1 {
		t.Errorf("fetch error %q says \"fetch:\" %d times", err, c)
	}
	// The command itself, with its flags, against a plain-HTTP server.
	plain := httptest.NewServer(srv.Config.Handler)
	defer plain.Close()
	dir2 := t.TempDir()
	if err := DataMain([]string{"fetch", "--dir", dir2, "--url", plain.URL + "/tasks"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir2, "sir", "num_observation_10", "reference_posterior_samples.csv.bz2")); err != nil {
		t.Error(err)
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

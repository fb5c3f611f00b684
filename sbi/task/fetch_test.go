package task

import (
	"context"
	"io"
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
	if want := 8*10*4 + 10; n != want {
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
	before := requests.Load()
	if n, err := Fetch(context.Background(), srv.Client(), srv.URL+"/tasks", dir, io.Discard); err != nil || n != 0 || requests.Load() != before {
		t.Errorf("second fetch: %d files, %v, %d requests", n, err, requests.Load()-before)
	}
	_, err = Fetch(context.Background(), srv.Client(), srv.URL+"/missing/", t.TempDir(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "rerun") {
		t.Errorf("missing files: error %v", err)
	}
	if err := DataMain([]string{"pull"}); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("bad sub-command: %v", err)
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

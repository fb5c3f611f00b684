package task

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
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
		return fmt.Errorf("data fetch: unexpected arguments %q", fs.Args())
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
		return err
	}
	fmt.Printf("%d files downloaded into %s; set GOSBI_DATA=%s if it is not the default directory\n", n, *dir, *dir)
	return nil
}

// Fetch downloads every sbibm file missing from dir from base and reports each download on
// log. It returns the number of files downloaded.
func Fetch(ctx context.Context, client *http.Client, base, dir string, log io.Writer) (int, error) {
	type job struct{ url, path string }
	var jobs []job
	for _, t := range sbibmFiles {
		for k := 1; k <= NumObservations; k++ {
			sub := fmt.Sprintf("num_observation_%d", k)
			for _, f := range append(append([]string(nil), commonFiles...), t.files...) {
				path := filepath.Join(dir, t.task, sub, f)
				if st, err := os.Stat(path); err == nil && st.Size() > 0 {
					continue
				}
				jobs = append(jobs, job{strings.TrimRight(base, "/") + "/" + t.task + "/files/" + sub + "/" + f, path})
			}
		}
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
				err := safe.Call("data fetch "+j.path, func() error { return download(ctx, client, j.url, j.path) })
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
		return done, fmt.Errorf("data fetch: %w (rerun to resume; files already downloaded are kept)", first)
	}
	return done, nil
}

// download writes the body of url to path through a synced temporary file (atomicfile), so
// that an interrupted download never leaves a partial file behind.
func download(ctx context.Context, client *http.Client, url, path string) error {
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
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if _, err := io.Copy(w, resp.Body); err != nil {
			return fmt.Errorf("GET %s: %w", url, err)
		}
		return nil
	})
}

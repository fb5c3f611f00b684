package kernel_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/internal/syncbuf"
)

// The browser test's own files: the notebook it runs, the puppeteer-core script that drives
// the page, and the npm project that pins puppeteer-core.
const browserDir = "testdata/browser"

// The browser test's bounds. Every wait is on a condition; a bound only turns a hang into a
// failure, so each is several times what its step was seen to take on a machine loaded far
// beyond its cores (load 10 to 14 on 2 cores): about 6 s for the slowest step (starting Chromium
// and opening the page), under 20 s for a whole run, about 3 s for the server to stop.
const (
	browserServerStart = 60 * time.Second  // jupyter notebook answers its API
	browserServerStop  = 30 * time.Second  // it stops after SIGTERM, shutting its kernels down
	browserStepWait    = 45 * time.Second  // one step of the driver script (GOSBI_WAIT_MS)
	browserRunWait     = 180 * time.Second // the whole driver script (GOSBI_TOTAL_MS)
)

// browserNeed stops the test when a piece it needs is missing: a skip that names the piece, or a
// failure where CI=true, since CI has every piece.
func browserNeed(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: every piece of the browser test must be there)", msg)
	}
	t.Skip(msg)
}

// puppeteerModules returns the node_modules directory of the browser test's npm project, installed
// with `npm ci` from its lockfile into the user's cache directory and reused while the lockfile
// stays the same. It is never inside the repository.
func puppeteerModules(t *testing.T) string {
	t.Helper()
	var key []byte
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(browserDir, name))
		if err != nil {
			t.Fatal(err)
		}
		key = append(key, b...)
	}
	sum := sha256.Sum256(key)
	cache, err := os.UserCacheDir()
	if err != nil {
		browserNeed(t, "no cache directory for puppeteer-core: %v", err)
	}
	root := filepath.Join(cache, "gosbi", "browsertest")
	dir := filepath.Join(root, hex.EncodeToString(sum[:8]))
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "puppeteer-core", "package.json")); err == nil {
		return modules
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// Install into a fresh directory and rename it into place, so that a concurrent run sees
	// either no installation or a whole one.
	tmp, err := os.MkdirTemp(root, "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, _ := os.ReadFile(filepath.Join(browserDir, name))
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--prefix", tmp, "--ignore-scripts", "--prefer-offline",
		"--no-audit", "--no-fund")
	cmd.Env = append(os.Environ(), "PUPPETEER_SKIP_DOWNLOAD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		browserNeed(t, "cannot install puppeteer-core from the npm registry (`npm ci` in %s: %v; is the registry reachable?):\n%s",
			browserDir, err, browserTail(string(out), 8))
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(modules, "puppeteer-core", "package.json")); statErr != nil {
			t.Fatalf("install puppeteer-core into %s: %v", dir, err)
		}
	}
	return modules
}

// requireBrowserTools checks for Debian's jupyter-notebook and chromium and for Node ≥ 18
// (puppeteer-core 24), and returns the paths of jupyter-notebook and chromium.
func requireBrowserTools(t *testing.T) (notebook, chrome string) {
	t.Helper()
	notebook, err := exec.LookPath("jupyter-notebook")
	if err != nil {
		browserNeed(t, "needs Debian's jupyter-notebook (Notebook 6; scripts/setup.sh installs it)")
	}
	if chrome = nbtest.Chromium(); chrome == "" {
		browserNeed(t, "needs Debian's chromium (scripts/setup.sh installs it)")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			browserNeed(t, "needs Node.js ≥ 18 and npm on PATH: %s is missing", tool)
		}
	}
	out, err := exec.Command("node", "--version").Output()
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 2)[0])
	if err != nil || major < 18 {
		browserNeed(t, "needs Node.js ≥ 18 for puppeteer-core; node --version says %q (%v)", strings.TrimSpace(string(out)), err)
	}
	return notebook, chrome
}

// notebookServer is a running `jupyter notebook`.
type notebookServer struct {
	url   string // http://127.0.0.1:PORT
	token string
	log   *syncbuf.Buffer // its output
}

// startNotebookServer starts Debian's Jupyter Notebook on a free loopback port with a fresh
// token, serving dir, and stops it (and its kernels) when the test ends.
func startNotebookServer(t *testing.T, notebook, dir string, env []string) *notebookServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	tok := make([]byte, 16)
	rand.Read(tok)
	s := &notebookServer{url: fmt.Sprintf("http://127.0.0.1:%d", port), token: hex.EncodeToString(tok), log: new(syncbuf.Buffer)}
	args := []string{"--no-browser", "--ip=127.0.0.1", "--port=" + strconv.Itoa(port), "--port-retries=0",
		"--NotebookApp.token=" + s.token, "--notebook-dir=" + dir}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-root")
	}
	cmd := exec.Command(notebook, args...)
	cmd.Env = append(env, "JUPYTER_CONFIG_DIR="+t.TempDir(), "JUPYTER_RUNTIME_DIR="+t.TempDir(), "IPYTHONDIR="+t.TempDir())
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// SIGTERM makes the server shut its kernels down; the group kill catches what is left.
		cmd.Process.Signal(syscall.SIGTERM)
		stop := time.Now()
		select {
		case <-exited:
			t.Logf("jupyter notebook stopped %v after SIGTERM", time.Since(stop).Round(time.Millisecond))
		case <-time.After(browserServerStop):
			t.Errorf("jupyter notebook did not stop within %v of SIGTERM", browserServerStop)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	deadline := time.Now().Add(browserServerStart)
	for {
		req, _ := http.NewRequest("GET", s.url+"/api/status", nil)
		req.Header.Set("Authorization", "token "+s.token)
		resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-exited:
			t.Fatalf("jupyter notebook exited before serving:\n%s", s.log)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("jupyter notebook did not answer on %s within %v:\n%s", s.url, browserServerStart, s.log)
		}
	}
}

// pageSeen is what the driver script saw in the page (see testdata/browser/run.js).
type pageSeen struct {
	Kernel  struct{ Name, Indicator string }
	Cells   []pageCell
	Console []string   // the page's console errors
	Offhost []string   // requests beyond the notebook server, refused
	Dialogs []string   // the dialogs it showed at the end
	Steps   []pageStep // the steps it finished, in order
	Step    string     // the step it reached
	Failure string     // why it stopped early, if it did
}

// pageStep is one step of the driver script and how long it took.
type pageStep struct {
	Step string
	MS   int
}

// pageCell is one code cell as the page showed it after it ran.
type pageCell struct {
	Index     int // in the notebook, from 0
	Role      string
	Prompt    string
	Outputs   []pageOutput
	MS        int // from pressing Run to the end
	Interrupt *struct {
		RunningBefore bool // the cell was still running when the button was pressed
		RanMS         int  `json:"ranMs"`
		StopMS        int  `json:"stopMs"` // from pressing the button to the cell's end
	}
	Updates *struct {
		Texts    []string // every text the display showed, in order
		MaxAreas int      // the most output areas at any time
	}
}

// pageOutput is one output area.
type pageOutput struct {
	Prompt string
	Kind   []string // its output_* classes
	Text   string
	Imgs   []struct {
		Src           string // the first 22 characters
		SrcLen        int
		Width, Height int // natural size
	}
	Svgs  []struct{ Width, Height, Texts int }
	Probe []string // the elements of class gosbi-probe, as "TAG:text"
}

// runBrowserPage opens the notebook page of srv in headless Chromium with the driver script and
// returns what it saw, also as indented JSON.
func runBrowserPage(t *testing.T, chrome, modules string, srv *notebookServer, page string) (*pageSeen, string) {
	t.Helper()
	flags, _ := json.Marshal(nbtest.ChromiumFlags(t.TempDir()))
	// The script stops itself after browserRunWait and prints what it saw; the context is the
	// backstop for a script that cannot.
	ctx, cancel := context.WithTimeout(context.Background(), browserRunWait+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(browserDir, "run.js"))
	url := srv.url + "/notebooks/" + page + "?token=" + srv.token
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "GOSBI_NB_URL="+url, "GOSBI_KERNEL=gosbi",
		"GOSBI_CHROMIUM="+chrome, "GOSBI_CHROMIUM_FLAGS="+string(flags), "GOSBI_WAIT_MS="+strconv.FormatInt(browserStepWait.Milliseconds(), 10),
		"GOSBI_TOTAL_MS="+strconv.FormatInt(browserRunWait.Milliseconds(), 10))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Node and the browser it starts share a process group, killed as one.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	raw := strings.TrimSpace(stdout.String())
	var seen pageSeen
	if jerr := json.Unmarshal([]byte(raw), &seen); jerr != nil {
		t.Fatalf("the driver script printed no JSON (%v; exit: %v):\nstdout:\n%s\nstderr:\n%s\nserver log:\n%s",
			jerr, err, raw, browserTail(stderr.String(), 30), browserTail(srv.log.String(), 30))
	}
	pretty, _ := json.MarshalIndent(&seen, "", "  ")
	if err != nil || seen.Failure != "" {
		t.Fatalf("the browser run failed (%v): %s\nthe page showed:\n%s\nstderr:\n%s\nserver log:\n%s",
			err, seen.Failure, pretty, browserTail(stderr.String(), 30), browserTail(srv.log.String(), 30))
	}
	return &seen, string(pretty)
}

// TestNotebookInBrowser runs a notebook live in Jupyter Notebook, driven by headless Chromium
// as a user would drive it (testdata/browser/run.js), and checks what the page renders: the
// kernel chosen from the Kernel menu, an Out[n] prompt with the value, HTML, a plot and a PNG
// image, a display updated in place, an error naming its cell and line, and a long loop
// stopped by the toolbar's interrupt button, after which the kernel still answers and keeps
// the session's definitions.
func TestNotebookInBrowser(t *testing.T) {
	notebook, chrome := requireBrowserTools(t)
	modules := puppeteerModules(t)
	bin := gosbiBinary(t)
	env := installSpec(t, bin)
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(browserDir, "browser.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "browser.ipynb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startNotebookServer(t, notebook, dir, env)
	start := time.Now()
	seen, pretty := runBrowserPage(t, chrome, modules, srv, "browser.ipynb")
	t.Logf("the browser run took %v; console errors: %q", time.Since(start).Round(time.Millisecond), seen.Console)
	if len(seen.Steps) > 0 {
		slowest := slices.MaxFunc(seen.Steps, func(a, b pageStep) int { return a.MS - b.MS })
		t.Logf("its slowest step took %d ms: %s", slowest.MS, slowest.Step)
	}
	for _, c := range seen.Cells {
		if c.Interrupt != nil {
			t.Logf("the interrupt button stopped the loop in %d ms", c.Interrupt.StopMS)
		}
	}
	if errs := checkBrowserPage(seen); len(errs) > 0 {
		t.Errorf("the page does not show what the notebook should:\n- %s\nthe page showed:\n%s\nserver log:\n%s",
			strings.Join(errs, "\n- "), pretty, browserTail(srv.log.String(), 30))
	}
}

// checkBrowserPage returns what is wrong in what the page showed, one sentence each.
func checkBrowserPage(seen *pageSeen) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if seen.Kernel.Name != "gosbi" || seen.Kernel.Indicator != "Go (gosbi)" {
		fail("the kernel is %q, shown as %q; want gosbi, shown as \"Go (gosbi)\"", seen.Kernel.Name, seen.Kernel.Indicator)
	}
	if len(seen.Dialogs) > 0 {
		fail("the page shows the dialogs %q; want none", seen.Dialogs)
	}
	if len(seen.Offhost) > 0 {
		fail("the page requested %q; want nothing beyond the notebook server on 127.0.0.1", seen.Offhost)
	}
	roles := map[string]bool{}
	inPrompt := regexp.MustCompile(`^In \[(\d+)\]:$`)
	for i, c := range seen.Cells {
		roles[c.Role] = true
		m := inPrompt.FindStringSubmatch(c.Prompt)
		if m == nil {
			fail("cell %d (%s): prompt %q, want In [n]:", c.Index, c.Role, c.Prompt)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n != i+1 {
			fail("cell %d (%s): prompt %q, want In [%d]: (one execution per cell)", c.Index, c.Role, c.Prompt, i+1)
		}
		out := c.Outputs
		one := func(what string) bool {
			if len(out) != 1 {
				fail("cell %d (%s): %d output areas, want one with %s", c.Index, c.Role, len(out), what)
				return false
			}
			return true
		}
		result := func(text string) {
			if one("Out["+m[1]+"]: "+text) && (out[0].Prompt != "Out["+m[1]+"]:" || out[0].Text != text) {
				fail("cell %d (%s): output %q %q, want Out[%s]: %q", c.Index, c.Role, out[0].Prompt, out[0].Text, m[1], text)
			}
		}
		switch c.Role {
		case "value":
			result("49")
		case "after":
			// square was defined before the interrupt: the session survived it.
			result("144")
		case "html":
			if one("the HTML") && (!slices.Contains(out[0].Kind, "output_html") || len(out[0].Probe) != 1 || out[0].Probe[0] != "B:bold from gosbi") {
				fail("cell %d (html): kind %v with probe %v, want rendered HTML: a <b> holding \"bold from gosbi\"", c.Index, out[0].Kind, out[0].Probe)
			}
		case "plot":
			if !one("the plot") {
				break
			}
			o := out[0]
			svg := len(o.Svgs) == 1 && o.Svgs[0].Width > 100 && o.Svgs[0].Height > 100 && o.Svgs[0].Texts > 0
			png := len(o.Imgs) == 1 && o.Imgs[0].Src == "data:image/png;base64," && o.Imgs[0].Width > 100 && o.Imgs[0].Height > 100
			if o.Prompt != "Out["+m[1]+"]:" || !(svg || png) {
				fail("cell %d (plot): %q with %d <svg> and %d <img>, want Out[%s]: and one plot over 100×100 px (an <svg> with text, or a PNG <img>)",
					c.Index, o.Prompt, len(o.Svgs), len(o.Imgs), m[1])
			}
		case "png":
			if !one("the image") {
				break
			}
			imgs := out[0].Imgs
			if len(imgs) != 1 || imgs[0].Src != "data:image/png;base64," || imgs[0].SrcLen <= len(imgs[0].Src) || imgs[0].Width != 48 || imgs[0].Height != 24 {
				fail("cell %d (png): images %+v, want one <img> of a data:image/png, 48×24 px as drawn", c.Index, imgs)
			}
		case "update":
			u := c.Updates
			if !one("the last update") || out[0].Text != "step 4 of 4" {
				fail("cell %d (update): the display ends as %q, want \"step 4 of 4\"", c.Index, browserTexts(out))
			}
			if u == nil || u.MaxAreas != 1 || len(u.Texts) < 3 || u.Texts[0] != "step 0 of 4" {
				fail("cell %d (update): the display showed %+v; want one output area whose text went from \"step 0 of 4\" through at least one other step (updated in place)", c.Index, u)
			}
		case "error":
			want := fmt.Sprintf("cell [%d] line 2", n)
			if !one("the error") || !slices.Contains(out[0].Kind, "output_error") || !strings.Contains(out[0].Text, want) || !strings.Contains(out[0].Text, "assignment to entry in nil map") {
				fail("cell %d (error): %q, want an error output naming the nil map and %q", c.Index, browserTexts(out), want)
			}
		case "loop":
			// The loop never ends by itself, so its end proves that something stopped it. That
			// it was the interrupt, stopping the running cell inside the worker, and not the
			// kernel's fallback of killing a worker that outlives the grace period after an
			// interrupt (which resets the session), is proven by the interpreter's own message,
			// the absence of the restart notice, and the next cell finding the session intact.
			// How fast the stop reaches the page is a speed claim about the notebook server and
			// the machine's load, not a check of the kernel; how fast the interpreter stops this
			// loop is bounded by interp's TestInterruptStopsLoop.
			it := c.Interrupt
			if it == nil || !it.RunningBefore {
				fail("cell %d (loop): interrupt %+v; want the loop running when the button is pressed", c.Index, it)
			}
			want := fmt.Sprintf("cell [%d] interrupted", n)
			if !one("the interruption") || !slices.Contains(out[0].Kind, "output_error") || !strings.Contains(out[0].Text, want) ||
				strings.Contains(out[0].Text, "restarted") {
				fail("cell %d (loop): %q, want an error output saying %q, the worker not restarted", c.Index, browserTexts(out), want)
			}
		}
	}
	for _, r := range []string{"value", "html", "plot", "png", "update", "error", "loop", "after"} {
		if !roles[r] {
			fail("no cell %q ran", r)
		}
	}
	return errs
}

func browserTexts(out []pageOutput) []string {
	var s []string
	for _, o := range out {
		s = append(s, o.Text)
	}
	return s
}

// browserTail returns the last n lines of s.
func browserTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

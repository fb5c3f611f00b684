package nbtest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
)

// Config configures the execution of a notebook.
type Config struct {
	// Kernel is the command line that starts a kernel, with "{connection_file}" standing for
	// the connection file. Empty means this executable's "kernel -f {connection_file}".
	Kernel []string
	// Env is added to the kernel's environment.
	Env []string
	// Params override the defaults of the cell tagged "parameters" (name → Go expression).
	Params map[string]string
	// Full runs the full version: the parameter quick is set to false (GOSBI_FULL=1).
	Full bool
	// CellTimeout bounds each cell (0: no limit). A cell that runs longer is interrupted and
	// counts as failed.
	CellTimeout time.Duration
	// Log receives progress lines and the kernel's own diagnostics (nil: discarded).
	Log io.Writer
}

// Result is an executed notebook.
type Result struct {
	Path     string
	Notebook *Notebook
	// Errors lists the cells that failed (at most one unless cells are tagged
	// "raises-exception", whose expected errors are not listed).
	Errors   []CellError
	Warnings []string
	Duration time.Duration
}

// CellError is a cell that ended with an error.
type CellError struct {
	Index     int // position in the executed notebook
	ID        string
	Source    string
	Ename     string
	Evalue    string
	Traceback []string
}

func (e CellError) Error() string {
	return fmt.Sprintf("cell %d (id %s) failed: %s: %s", e.Index+1, e.ID, e.Ename, e.Evalue)
}

// Report is a human-readable account of the failure: the cell's source and its traceback,
// with terminal colour codes removed.
func (e CellError) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- cell %d (id %s) failed ---\n", e.Index+1, e.ID)
	for i, l := range strings.Split(strings.TrimRight(e.Source, "\n"), "\n") {
		fmt.Fprintf(&b, "%4d | %s\n", i+1, l)
	}
	b.WriteString("---\n")
	if len(e.Traceback) > 0 {
		b.WriteString(StripANSI(strings.Join(e.Traceback, "\n")))
	} else {
		fmt.Fprintf(&b, "%s: %s", e.Ename, e.Evalue)
	}
	b.WriteString("\n")
	return b.String()
}

// Err returns the first cell error, or nil when every cell ran.
func (r *Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", r.Path, r.Errors[0])
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// StripANSI removes terminal escape sequences (colours) from s.
func StripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

// Execute runs every code cell of the notebook at path, in order, in a fresh kernel and returns
// the notebook with its outputs. Execution stops at the first failing cell, except for cells
// tagged "raises-exception". The error is for failures to run at all (no kernel, a bad
// notebook); cell errors are in the Result.
func Execute(ctx context.Context, path string, o Config) (*Result, error) {
	nb, err := ReadNotebook(path)
	if err != nil {
		return nil, err
	}
	return ExecuteNotebook(ctx, nb, path, o)
}

// ExecuteNotebook is Execute for a notebook already read; path names it in messages.
func ExecuteNotebook(ctx context.Context, nb *Notebook, path string, o Config) (*Result, error) {
	start := time.Now()
	res := &Result{Path: path, Notebook: nb}
	warnings, err := applyParameters(nb, o.Params, o.Full)
	res.Warnings = warnings
	if err != nil {
		return nil, fmt.Errorf("nbtest: %s: %w", path, err)
	}
	if abs, err := filepath.Abs(path); err == nil {
		// the notebook's go.work or go.mod resolves the packages its cells import
		o.Env = append(slices.Clip(o.Env), "GOSBI_NOTEBOOK_DIR="+filepath.Dir(abs))
	}
	argv := o.Kernel
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("nbtest: find the gosbi executable: %w", err)
		}
		argv = []string{exe, "kernel", "-f", "{connection_file}"}
	}
	// Cells that do not run in this execution keep no outputs of an earlier one.
	for _, cell := range nb.Cells {
		if cell.CellType == "code" {
			cell.Outputs = nil
			cell.ExecutionCount = nil
		}
	}
	p, err := StartKernel(ctx, argv, o.Env, o.Log)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	// Waiting for a kernel that has died would last forever: its end cancels every wait.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.Exited():
			cancel()
		case <-ctx.Done():
		}
	}()
	info, err := p.Request(ctx, "shell", "kernel_info_request", map[string]any{})
	if err == nil {
		var c struct {
			LanguageInfo map[string]any `json:"language_info"`
		}
		json.Unmarshal(info.Content, &c)
		if c.LanguageInfo != nil {
			nb.Metadata["language_info"] = c.LanguageInfo
		}
	}
	if _, ok := nb.Metadata["kernelspec"]; !ok {
		nb.Metadata["kernelspec"] = map[string]any{"name": "gosbi", "display_name": "Go (gosbi)", "language": "go"}
	}
	for i, cell := range nb.Cells {
		if cell.CellType != "code" {
			continue
		}
		if strings.TrimSpace(cell.Source) == "" {
			continue
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "gosbi run: %s: cell %d/%d\n", filepath.Base(path), i+1, len(nb.Cells))
		}
		cerr, err := runCell(ctx, p.Client, nb, i, o.CellTimeout)
		if err != nil {
			select {
			case <-p.Exited():
				err = fmt.Errorf("the kernel exited while the cell ran (%v)", p.ExitErr())
				cell.Outputs = append(cell.Outputs, &Output{OutputType: "error", Ename: "KernelDied", Evalue: err.Error(),
					Traceback: []string{"KernelDied: " + err.Error()}})
				res.Duration = time.Since(start)
				return res, fmt.Errorf("nbtest: %s: cell %d: %w\nkernel output:\n%s", path, i+1, err, p.Stderr())
			default:
			}
			res.Duration = time.Since(start)
			return res, fmt.Errorf("nbtest: %s: cell %d: %w", path, i+1, err)
		}
		if cerr != nil && !cell.HasTag("raises-exception") {
			res.Errors = append(res.Errors, *cerr)
			break
		}
	}
	res.Duration = time.Since(start)
	return res, nil
}

// runCell executes cell i and records its outputs; it returns the cell's error, if any.
func runCell(ctx context.Context, c *Client, nb *Notebook, i int, timeout time.Duration) (*CellError, error) {
	cell := nb.Cells[i]
	cctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	acc := newAccumulator(cell)
	req, err := c.Send("shell", "execute_request", map[string]any{
		"code": cell.Source, "silent": false, "store_history": true, "user_expressions": map[string]any{},
		"allow_stdin": false, "stop_on_error": true,
	})
	if err != nil {
		return nil, err
	}
	ex, err := c.Collect(cctx, req, ExecuteConfig{OnOutput: acc.add})
	timedOut := false
	if err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		// Interrupt the cell, then wait (boundedly) for the kernel to finish it.
		timedOut = true
		ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
		c.Request(ictx, "control", "interrupt_request", map[string]any{})
		ex, err = c.Collect(ictx, req, ExecuteConfig{OnOutput: acc.add})
		cancel()
	}
	if err != nil {
		return nil, err
	}
	var reply struct {
		Status         string   `json:"status"`
		ExecutionCount *int     `json:"execution_count"`
		Ename          string   `json:"ename"`
		Evalue         string   `json:"evalue"`
		Traceback      []string `json:"traceback"`
	}
	json.Unmarshal(ex.Reply.Content, &reply)
	cell.ExecutionCount = reply.ExecutionCount
	if timedOut {
		reply.Status = "error"
		reply.Ename, reply.Evalue = "Timeout", fmt.Sprintf("the cell did not finish within %v (use --timeout to allow more)", timeout)
		reply.Traceback = append(reply.Traceback, reply.Ename+": "+reply.Evalue)
		acc.addOutput(&Output{OutputType: "error", Ename: reply.Ename, Evalue: reply.Evalue, Traceback: reply.Traceback})
	}
	if reply.Status == "ok" {
		return nil, nil
	}
	if reply.Ename == "" {
		reply.Ename, reply.Evalue = reply.Status, "the cell did not run"
	}
	return &CellError{Index: i, ID: cell.ID, Source: cell.Source, Ename: reply.Ename, Evalue: reply.Evalue, Traceback: reply.Traceback}, nil
}

// accumulator turns the iopub messages of a cell into its outputs as a notebook front-end
// does: streams of the same name merge, clear_output (with wait) empties the cell, and
// update_display_data replaces the outputs that carry the same display_id.
type accumulator struct {
	cell      *Cell
	clearNext bool
	displays  map[string][]*Output
}

func newAccumulator(cell *Cell) *accumulator {
	return &accumulator{cell: cell, displays: map[string][]*Output{}}
}

func (a *accumulator) add(m *kernel.Message) {
	var c struct {
		Name           string         `json:"name"`
		Text           string         `json:"text"`
		Data           map[string]any `json:"data"`
		Metadata       map[string]any `json:"metadata"`
		Transient      map[string]any `json:"transient"`
		ExecutionCount *int           `json:"execution_count"`
		Ename          string         `json:"ename"`
		Evalue         string         `json:"evalue"`
		Traceback      []string       `json:"traceback"`
		Wait           bool           `json:"wait"`
	}
	if err := json.Unmarshal(m.Content, &c); err != nil {
		return
	}
	displayID, _ := c.Transient["display_id"].(string)
	switch m.Header.MsgType {
	case "stream":
		a.addOutput(&Output{OutputType: "stream", Name: c.Name, Text: c.Text})
	case "display_data":
		o := &Output{OutputType: "display_data", Data: c.Data, Metadata: c.Metadata}
		a.addOutput(o)
		if displayID != "" {
			a.displays[displayID] = append(a.displays[displayID], o)
		}
	case "update_display_data":
		for _, o := range a.displays[displayID] {
			o.Data, o.Metadata = c.Data, c.Metadata
		}
	case "execute_result":
		a.addOutput(&Output{OutputType: "execute_result", Data: c.Data, Metadata: c.Metadata, ExecutionCount: c.ExecutionCount})
	case "error":
		a.addOutput(&Output{OutputType: "error", Ename: c.Ename, Evalue: c.Evalue, Traceback: c.Traceback})
	case "clear_output":
		if c.Wait {
			a.clearNext = true
		} else {
			a.clear()
		}
	}
}

func (a *accumulator) clear() {
	a.cell.Outputs = nil
	a.displays = map[string][]*Output{}
	a.clearNext = false
}

func (a *accumulator) addOutput(o *Output) {
	if a.clearNext {
		a.clear()
	}
	outs := a.cell.Outputs
	if o.OutputType == "stream" && len(outs) > 0 {
		last := outs[len(outs)-1]
		if last.OutputType == "stream" && last.Name == o.Name {
			last.Text += o.Text
			return
		}
	}
	a.cell.Outputs = append(outs, o)
}

// paramFlag collects --param name=value flags.
type paramFlag map[string]string

func (p paramFlag) String() string { return fmt.Sprint(map[string]string(p)) }

func (p paramFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	p[name] = value
	return nil
}

// RunMain is `gosbi run NOTEBOOK.ipynb... [--out DIR] [--html] [--param name=value] [--timeout D]`.
func RunMain(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "write the executed notebooks into `DIR` (default: update them in place)")
	html := fs.Bool("html", false, "also write a standalone HTML page next to each executed notebook")
	timeout := fs.Duration("timeout", 0, "fail a cell that runs longer than `D` (e.g. 10m; default no limit)")
	params := paramFlag{}
	fs.Var(params, "param", "set a parameter of the cell tagged \"parameters\": `name=value` (repeatable)")
	quiet := fs.Bool("quiet", false, "do not print progress")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gosbi run NOTEBOOK.ipynb... [--out DIR] [--html] [--param name=value] [--timeout D]\n\nGOSBI_FULL=1 runs the full version (sets the parameter quick to false).")
		fs.PrintDefaults()
	}
	// Accept flags after the notebook names too.
	var paths []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(paths) == 0 {
		fs.Usage()
		return errors.New("no notebook given")
	}
	var log io.Writer = os.Stderr
	if *quiet {
		log = nil
	}
	o := Config{Params: params, Full: os.Getenv("GOSBI_FULL") == "1", CellTimeout: *timeout, Log: log}
	failed := 0
	for _, path := range paths {
		res, err := Execute(context.Background(), path, o)
		if err != nil && res == nil {
			return err
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(os.Stderr, "gosbi run: %s: warning: %s\n", path, w)
		}
		dest := path
		if *out != "" {
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
			dest = filepath.Join(*out, filepath.Base(path))
		}
		if err := WriteNotebook(dest, res.Notebook); err != nil {
			return err
		}
		written := dest
		if *html {
			hp := strings.TrimSuffix(dest, filepath.Ext(dest)) + ".html"
			if err := WriteHTML(hp, res.Notebook, filepath.Base(path)); err != nil {
				return err
			}
			written += ", " + hp
		}
		if err != nil {
			// The notebook could not run to its end (its kernel died): what ran is saved.
			failed++
			fmt.Fprintf(os.Stderr, "gosbi run: %s FAILED (wrote %s)\n%v\n", path, written, err)
			continue
		}
		if len(res.Errors) > 0 {
			failed++
			fmt.Fprintf(os.Stderr, "gosbi run: %s FAILED (wrote %s)\n%s", path, written, res.Errors[0].Report())
			continue
		}
		fmt.Fprintf(os.Stderr, "gosbi run: %s ok in %.1fs (wrote %s)\n", path, res.Duration.Seconds(), written)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d notebooks failed", failed, len(paths))
	}
	return nil
}

// WriteNotebook writes nb to path (through a temporary file, so a failed write leaves the old
// file whole).
func WriteNotebook(path string, nb *Notebook) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("nbtest: write notebook: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("nbtest: write notebook: %w", err)
	}
	return nil
}

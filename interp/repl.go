package interp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/runenv"
)

const (
	prompt     = "go> "
	contPrompt = "... "
)

// runREPL is an interactive session: a line editor with history (kept in ~/.gosbi_history,
// or $GOSBI_HISTORY) and Tab completion; a cell ends when it is complete Go. Without a
// terminal it reads cells from standard input.
func runREPL(args []string) error {
	runenv.SetDisplay(func(o runenv.Output) { fmt.Println(display.PlainText(o.Data)) })
	defer runenv.SetDisplay(nil)
	// Long library calls draw a one-line progress bar on the terminal (on standard error);
	// printResult ends a line an unfinished call left.
	replProgress = runenv.NewProgressLine(os.Stderr)
	runenv.SetProgress(replProgress.Report)
	defer runenv.SetProgress(nil)
	sess, err := NewSession(Config{Args: append([]string{"gosbi"}, args...)})
	if err != nil {
		return err
	}
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return replLines(sess, os.Stdin, os.Stdout, os.Stderr, true, args)
	}
	// extension.go: a cell that imports a package this program lacks moves the REPL to one
	// that links it
	sess.enableSwitching(notebookDir(), replSwitcher(args, nil))
	sess.ext.ask = askTerminal
	r, err := resumeREPL(sess, os.Stdout, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Printf("gosbi Go session — %%help for magics, Tab completes, Ctrl-D quits\n")
	hist, err := loadHistory()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gosbi repl: the history was not loaded: %v\n", err)
	}
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{os.Stdin, os.Stdout}, prompt)
	t.History = hist
	t.AutoCompleteCallback = func(line string, pos int, key rune) (string, int, bool) {
		if key != '\t' {
			return "", 0, false
		}
		return completeLine(sess, t, line, pos)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	// A cell stuck in a call into compiled code ends only when the call returns (the session
	// waits for it, see abandon.go): a second Ctrl-C on the same cell ends the REPL.
	var running atomic.Int64 // the count of the cell being run, 0 between cells
	go func() {
		interrupted := int64(0)
		for range sigs {
			c := running.Load()
			if c != 0 && c == interrupted {
				fmt.Fprintln(os.Stderr, "\r\nthe cell is still in a call into compiled code: exiting")
				os.Exit(130)
			}
			interrupted = c
			sess.Interrupt()
			if c != 0 {
				fmt.Fprintln(os.Stderr, "\r\ninterrupting (press Ctrl-C again to exit if the cell is stuck in compiled code)")
			}
		}
	}()
	count := 0
	if r != nil {
		count = r.Pending.Count
	}
	var cell []string
	for {
		if len(cell) == 0 {
			t.SetPrompt(prompt)
		} else {
			t.SetPrompt(contPrompt)
		}
		old, err := term.MakeRaw(fd)
		if err != nil {
			return fmt.Errorf("terminal: %w", err)
		}
		line, err := t.ReadLine()
		_ = term.Restore(fd, old)
		if err == io.EOF {
			fmt.Println()
			return nil
		}
		if err != nil && err != term.ErrPasteIndicator {
			return err
		}
		if len(cell) == 0 && (strings.TrimSpace(line) == "exit" || strings.TrimSpace(line) == "quit") {
			return nil
		}
		cell = append(cell, line)
		code := strings.Join(cell, "\n")
		if status, _ := IsComplete(code); status == "incomplete" {
			continue
		}
		cell = nil
		if strings.TrimSpace(code) == "" {
			continue
		}
		count++
		running.Store(int64(count))
		printResult(sess.Execute(context.Background(), code, count), os.Stdout, os.Stderr)
		running.Store(0)
	}
}

// replLines runs cells read from in: lines are joined until they form complete Go. When
// switch is set, a cell that imports a package this program lacks moves the session to one
// that links it (extension.go), which reads the rest of the input; args are the REPL's.
func replLines(sess *Session, in io.Reader, stdout, stderr io.Writer, switching bool, args []string) error {
	count := 0
	br := bufio.NewReaderSize(in, 64<<10)
	if switching {
		sess.enableSwitching(notebookDir(), replSwitcher(args, func() string {
			rest, _ := io.ReadAll(br)
			return string(rest)
		}))
		r, err := resumeREPL(sess, stdout, stderr)
		if err != nil {
			return err
		}
		if r != nil {
			count = r.Pending.Count
			br.Reset(io.MultiReader(strings.NewReader(r.Input), in))
		}
	}
	var cell []string
	for {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		if line == "" && err == io.EOF {
			return nil
		}
		cell = append(cell, strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
		code := strings.Join(cell, "\n")
		if status, _ := IsComplete(code); status == "incomplete" {
			if err == io.EOF {
				return nil // an unfinished cell at the end of the input is not run
			}
			continue
		}
		cell = nil
		if strings.TrimSpace(code) == "" {
			continue
		}
		count++
		printResult(sess.Execute(context.Background(), code, count), stdout, stderr)
	}
}

// replProgress is the REPL's progress line; nil in other programs.
var replProgress *runenv.ProgressLine

// printResult prints what a cell gave, after the progress line of its calls, if any.
func printResult(res Result, stdout, stderr io.Writer) {
	if replProgress != nil {
		replProgress.End()
	}
	if res.Err != nil {
		fmt.Fprintln(stderr, strings.Join(res.Err.Traceback, "\n"))
		return
	}
	if res.Page != nil {
		page := display.PlainText(res.Page)
		if !strings.HasSuffix(page, "\n") {
			page += "\n" // the prompt starts on a line of its own
		}
		fmt.Fprint(stdout, page)
	}
	if res.Data != nil {
		fmt.Fprintln(stdout, display.PlainText(res.Data))
	}
}

// completeLine completes the word before pos; with several candidates it inserts their
// common prefix, or lists them when there is nothing to insert.
func completeLine(sess *Session, t *term.Terminal, line string, pos int) (string, int, bool) {
	cursor := utf8.RuneCountInString(line[:pos])
	matches, start, _ := sess.Complete(line, cursor)
	if len(matches) == 0 {
		return "", 0, false
	}
	bstart := byteOffset(line, start)
	typed := line[bstart:pos]
	common := matches[0]
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) > len(typed) {
		newLine := line[:bstart] + common + line[pos:]
		return newLine, bstart + len(common), true
	}
	if len(matches) > 1 {
		shown := matches
		if len(shown) > 60 {
			shown = append(shown[:60:60], fmt.Sprintf("… (%d more)", len(matches)-60))
		}
		fmt.Fprintf(t, "\n%s\n", strings.Join(shown, "  "))
	}
	return "", 0, false
}

// fileHistory is the REPL's history, appended to a file as lines are entered.
type fileHistory struct {
	lines []string // oldest first
	path  string
}

// maxHistorySize bounds the history file the REPL reads (16 MiB, some 400,000 lines of
// typical length; the REPL keeps the last 1000).
const maxHistorySize = 16 << 20

// loadHistory returns the history of GOSBI_HISTORY, or else ~/.gosbi_history: its last 1000
// lines, none when the file does not exist yet. A file that cannot be read or holds more than
// maxHistorySize bytes is an error, with an empty history that still appends to the file
// when it can be opened to append, and saves nothing otherwise (the error says which).
func loadHistory() (*fileHistory, error) {
	h := &fileHistory{path: os.Getenv("GOSBI_HISTORY")}
	if h.path == "" {
		if home, err := os.UserHomeDir(); err == nil {
			h.path = filepath.Join(home, ".gosbi_history")
		}
	}
	if h.path == "" {
		return h, nil
	}
	b, err := readlimit.File(h.path, "the REPL history", maxHistorySize)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, h.unread(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			h.lines = append(h.lines, l)
		}
	}
	const keep = 1000
	if len(h.lines) > keep {
		h.lines = h.lines[len(h.lines)-keep:]
	}
	return h, nil
}

// unread returns the error of a history file that could not be read (err), saying whether the
// lines entered now are appended to it: when the file cannot be opened to append either, h
// forgets its path so that Add does not try at every line.
func (h *fileHistory) unread(err error) error {
	if tl := (*readlimit.TooLargeError)(nil); errors.As(err, &tl) {
		err = fmt.Errorf("%w (keep its last lines, as tail -n 1000 does, or set GOSBI_HISTORY to another file)", err)
	}
	f, aerr := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND, 0)
	if aerr != nil {
		h.path = ""
		return fmt.Errorf("%w; lines entered now are not saved (set GOSBI_HISTORY to a file you can write)", err)
	}
	f.Close()
	return fmt.Errorf("%w; lines entered now are still appended to it", err)
}

// Add records a line and appends it to the history file (errors writing it are ignored:
// history is a convenience).
func (h *fileHistory) Add(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	h.lines = append(h.lines, line)
	if h.path == "" {
		return
	}
	if f, err := os.OpenFile(h.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
}

// Len returns the number of lines.
func (h *fileHistory) Len() int { return len(h.lines) }

// At returns the idx-th most recent line.
func (h *fileHistory) At(idx int) string { return h.lines[len(h.lines)-1-idx] }

package explain

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"regexp"
	"strconv"
	"strings"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/stdlib"
)

// Item is one top-level import, declaration or statement of the failed cell, as the session
// split it.
type Item struct {
	Node ast.Node       // the declaration or statement (Env.SourceAt's: nil, Text is parsed)
	Fset *token.FileSet // its positions, in the interpreter's lines (see Env.Where)
	Text string         // its source as written in the cell
	Line int            // the cell's line of its first byte
	Col  int            // the column of its first byte (0 for 1)
	Stmt bool           // a statement (not an import or declaration)
	// Cell is the cell of the item (Env.Cell for the failed cell's items), and Base the
	// interpreter's line of that cell's line 0, so that line Base+l of the interpreter is the
	// cell's line l. A Base of 0, or an item of the failed cell without Node, leaves the
	// item's positions unknown: frames of function literals are not found in it (see
	// closureFrame).
	Cell, Base int
}

// Source is a function or method of the session, for the call-site explainer.
type Source struct {
	Text       string // its declaration
	Cell, Line int    // where it was declared
}

// Env is what explainers may ask of the session. Nil functions answer "unknown".
type Env struct {
	Cell  int    // the number of the failed cell
	File  string // a script's file name; positions then read "file.go:2:5"
	Items []Item // the failed cell's items
	// Where formats a position of the interpreter (a line of its source "_.go", col 0 for
	// none) as the user reads it, e.g. "cell [3] line 2:5".
	Where func(line, col int) string
	// IsLine reports whether line, a number of the interpreter's source "_.go", is a line of a
	// cell the session ran. A bare run of digits in a message (no "_.go:" before it) is taken
	// for a position only where it is, so that a count of a library's message stays a
	// number; nil takes every such run for a position.
	IsLine func(line int) bool
	// Signature returns the declaration of a function ("diag.C2ST", "f", "x.Method") as its
	// documentation gives it, e.g. "func C2ST(x, y *mat.Dense, seed uint64) float64", or "".
	Signature func(fn string) string
	// Undefined reports whether nothing defines name: not the cell, the session, an
	// importable package or the universe.
	Undefined func(name string) bool
	// Source returns a function or method of the session by the name a panic frame gives it
	// ("f"; a method by its name alone).
	Source func(fn string) (Source, bool)
	// Restarted says that the session replaced one whose process died.
	Restarted bool
	// Package reports whether name is a package the session imported.
	Package func(name string) bool
	// Symbols returns the exported names of the package the session imported as name.
	Symbols func(name string) []string
	// VarType returns the type of the session's variable name as Go writes it
	// ("sbi.TrainResult", "*T", "dist.Distribution"; "" when unknown) and the names of the
	// fields and methods of its type; ok is false when name is no variable of the session.
	VarType func(name string) (typ string, members []string, ok bool)
	// VarSource returns the statement or declaration that defined a variable of the session,
	// as written, or "".
	VarSource func(name string) string
	// SourceAt returns the declaration or defining statement of the session that holds the
	// interpreter's line, with its Cell and Base, for a frame of a function literal that a
	// function or a variable of an earlier cell holds.
	SourceAt func(line int) (Item, bool)
}

// Report is a failed cell's error as the user reads it.
type Report struct {
	Name      string   // "error" (compile), "panic", "CheckFailed", "Exit"
	Value     string   // e.g. "cell [3] line 2:5: undefined: foo"
	Traceback []string // the lines shown
	ExitCode  int      // for Name "Exit": the code passed to os.Exit
}

// Failure is a failed cell on its way through the explainers.
type Failure struct {
	// Msg is the message, with the interpreter's positions ("_.go:1300002:5: …").
	Msg string
	// Note is appended to the message once it is complete (after Msg has been given the
	// cell's name when it names no position).
	Note string
	// Compile is set when the cell did not run: the interpreter refused it, or its compiler
	// panicked (then CompilerPanic is set too).
	Compile, CompilerPanic bool
	// Frames are a panic's frames of the user's code, innermost first.
	Frames []Frame
}

// Frame is one frame of a panic.
type Frame struct {
	Func      string     // "f", "T.M" as the interpreter names it without "main.", or "main" for the cell
	Line, Col int        // the interpreter's position
	At        string     // the position as shown; when empty, Env.Where of Line and Col
	code      *frameCode // the code of a function literal's frame, or of a statement of the cell (see closureFrame)
}

// Explainer is one behaviour of the interpreter that this package explains.
type Explainer struct {
	Name string
	// Upstream is the behaviour of yaegi that the explainer covers, with its upstream issue,
	// or a sentence saying that none was found.
	Upstream string
	// Explain changes the failure; it leaves it as it is when its cause is not confirmed.
	Explain func(env Env, f *Failure)
}

// Pipeline is the explainers in the order Compile and Panic apply them. compiler-panic comes
// first, as undefined-name and index-define read the message it may wrap; undefined-selector
// comes after missing-generic, which reads the message it rewrites (its hint is kept);
// closure-frame comes before the explainers that read the code of a panic's frames.
var Pipeline = []Explainer{compilerPanic, undefinedName, indexDefine, missingGeneric, undefinedSelector, callArity, closureFrame, reflectIndex, reflectSlice, reflectNil, bareValue, methodValue, callSite, panicSite}

// Compile reports a cell that the interpreter refused to compile, from its error message.
func Compile(env Env, msg string) Report {
	f := &Failure{Msg: msg, Compile: true}
	run(env, f)
	return compileReport(env, f)
}

// Panic reports a panic of a cell with value, the panic's value, and frames, the lines that
// Stderr captured while the cell ran. A panic without frames comes from the interpreter's
// compiler: the cell did not run.
func Panic(env Env, value any, frames []string) Report {
	if msg, ok := display.IsCheckError(value); ok {
		r := Report{Name: "CheckFailed", Value: "check failed: " + msg}
		r.Traceback = append([]string{r.Value}, userFrames(env, frames)...)
		return r
	}
	if ex, ok := value.(stdlib.Exit); ok {
		return Report{Name: "Exit", Value: ex.Error() + ": a notebook cell cannot end the session (use %reset to start afresh)",
			Traceback: append([]string{ex.Error()}, userFrames(env, frames)...), ExitCode: ex.Code}
	}
	if err, ok := value.(error); ok {
		value = err.Error()
	}
	f := &Failure{Msg: fmt.Sprint(value), Frames: parseFrames(frames)}
	if len(f.Frames) == 0 {
		f.Compile, f.CompilerPanic = true, true
		run(env, f)
		return compileReport(env, f)
	}
	run(env, f)
	r := Report{Name: "panic", Value: Positions(f.Msg, env.Where, env.IsLine) + Positions(f.Note, env.Where, env.IsLine)}
	r.Traceback = append([]string{"panic: " + r.Value}, formatFrames(env, f.Frames)...)
	return r
}

// Located reports an error of the session itself whose message starts with the interpreter's
// position ("_.go:1300002: …").
func Located(env Env, msg string) Report {
	msg = Positions(msg, env.Where, env.IsLine)
	return Report{Name: "error", Value: msg, Traceback: []string{msg}}
}

func run(env Env, f *Failure) {
	for _, e := range Pipeline {
		e.Explain(env, f)
	}
}

// compileReport finishes a failure of a cell that did not run.
func compileReport(env Env, f *Failure) Report {
	msg := f.Msg
	if !posRE.MatchString(msg) {
		msg = fmt.Sprintf("cell [%d]: %s", env.Cell, msg)
	}
	msg = Positions(msg, env.Where, env.IsLine) + Positions(f.Note, env.Where, env.IsLine)
	tb := []string{msg}
	if env.Restarted && strings.Contains(msg, "undefined: ") {
		tb = append(tb, restartNote)
	}
	return Report{Name: "error", Value: msg, Traceback: tb}
}

// restartNote explains an undefined name in a session that replaced one whose process died.
const restartNote = "note: the interpreter was restarted after its process died, and all state " +
	"(variables, functions, imports) was reset: re-run the cells that define what this cell uses"

// posRE matches a position of the interpreter: "_.go:1300002:5: ", or a bare "1300002:5".
// A run of more than maxPosDigits digits is a number of the message, not a position.
var posRE = regexp.MustCompile(`(?:_\.go:)?(\d{7,})(?::(\d+))?(: )?`)

// maxPosDigits is the most digits of an interpreter position's line, which is below 2³⁰
// (Go's scanner's limit, within which the session places its cells).
const maxPosDigits = 10

// Positions rewrites the interpreter's positions in msg ("_.go:1300002:5") with where (nil
// leaves msg as it is). A bare run of digits is a position only where it stands alone: the
// digits inside a word, a path or a version (v0.0.0-20261125091747-…) are left as they are,
// and so is a run that isLine, when not nil, does not accept (a count such as "13 of 1049677
// draws").
func Positions(msg string, where func(line, col int) string, isLine func(line int) bool) string {
	if where == nil {
		return msg
	}
	var b strings.Builder
	last := 0
	for _, m := range posRE.FindAllStringSubmatchIndex(msg, -1) {
		start, end := m[0], m[1]
		prefixed := strings.HasPrefix(msg[start:], "_.go:")
		if !prefixed && (start > 0 && !posBoundary(msg[start-1]) || end < len(msg) && m[5] < 0 && !posBoundary(msg[end])) {
			continue
		}
		line, err := strconv.Atoi(msg[m[2]:m[3]])
		if err != nil || m[3]-m[2] > maxPosDigits {
			continue // a number of the message (a constant), longer than any position
		}
		if !prefixed && isLine != nil && !isLine(line) {
			continue // a number of the message that names no line of a cell
		}
		col := 0
		if m[4] >= 0 {
			col, _ = strconv.Atoi(msg[m[4]:m[5]])
		}
		b.WriteString(msg[last:start])
		b.WriteString(where(line, col))
		if m[6] >= 0 {
			b.WriteString(msg[m[6]:m[7]])
		}
		last = end
	}
	b.WriteString(msg[last:])
	return b.String()
}

// posBoundary reports whether c may stand next to a bare position in a message.
func posBoundary(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == ':' || c == '(' || c == ')' || c == '[' || c == ']' || c == ','
}

// place formats a line of a cell as positions are shown.
func place(env Env, cell, line int) string {
	if env.File != "" {
		return env.File + ":" + strconv.Itoa(line)
	}
	return "cell [" + strconv.Itoa(cell) + "] line " + strconv.Itoa(line)
}

// where formats an interpreter position with env.Where, or as it is without one.
func where(env Env, line, col int) string {
	if env.Where != nil {
		return env.Where(line, col)
	}
	if col > 0 {
		return fmt.Sprintf("_.go:%d:%d", line, col)
	}
	return fmt.Sprintf("_.go:%d", line)
}

func printNode(n ast.Node) string {
	var b strings.Builder
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 4}
	if err := cfg.Fprint(&b, token.NewFileSet(), n); err != nil {
		return ""
	}
	return b.String()
}

package explain

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Stderr is the interpreter's standard error: it forwards what the interpreter writes, except
// its panic frame lines ("_.go:1300002:5: panic: main.f(...)", one per frame of a panic,
// innermost first), which it keeps for Panic. It is safe for concurrent use.
type Stderr struct {
	w     io.Writer
	mu    sync.Mutex
	lines []string
}

// NewStderr returns a Stderr that forwards to w.
func NewStderr(w io.Writer) *Stderr { return &Stderr{w: w} }

var panicLineRE = regexp.MustCompile(`^\S*:\d+(:\d+)?: panic: `)

func (f *Stderr) Write(p []byte) (int, error) {
	if panicLineRE.Match(p) {
		f.mu.Lock()
		f.lines = append(f.lines, strings.Split(strings.TrimSpace(string(p)), "\n")...)
		f.mu.Unlock()
		return len(p), nil
	}
	return f.w.Write(p)
}

// Reset forgets the frames kept so far; a session calls it before each evaluation.
func (f *Stderr) Reset() {
	f.mu.Lock()
	f.lines = nil
	f.mu.Unlock()
}

// Frames returns the frame lines kept since the last Reset.
func (f *Stderr) Frames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

var frameRE = regexp.MustCompile(`^(?:_\.go:)?(\d{7,})(?::(\d+))?: panic: (.*)$`)

// parseFrames reads the frame lines of the user's code (those at a cell's position).
func parseFrames(lines []string) []Frame {
	var res []Frame
	for _, l := range lines {
		sm := frameRE.FindStringSubmatch(l)
		if sm == nil {
			continue
		}
		line, _ := strconv.Atoi(sm[1])
		col, _ := strconv.Atoi(sm[2])
		fn := strings.TrimPrefix(strings.TrimSuffix(sm[3], "(...)"), "main.")
		res = append(res, Frame{Func: fn, Line: line, Col: col})
	}
	return res
}

// userFrames is the traceback lines of captured frame lines of a panic of a call (a failed
// check, os.Exit), with their call sites.
func userFrames(env Env, lines []string) []string {
	f := &Failure{Frames: resolveFrames(env, parseFrames(lines))}
	callSite.Explain(env, f)
	panicSite.Explain(env, f)
	return formatFrames(env, f.Frames)
}

// formatFrames returns the traceback lines of frames: "    in f, cell [2] line 3" for a
// function, "    at cell [3] line 1" for the cell's own code.
func formatFrames(env Env, frames []Frame) []string {
	var res []string
	for _, fr := range frames {
		at := fr.At
		if at == "" {
			at = where(env, fr.Line, fr.Col)
		}
		if fr.Func == "main" {
			res = append(res, "    at "+at)
		} else {
			res = append(res, "    in "+fr.Func+", "+at)
		}
	}
	return res
}

// callSite: the interpreter reports each frame of a panic at the first statement of its
// function instead of the statement that was running (its runCfg reads a variable that a loop
// shadows), so a caller's frame would name the wrong line. The explainer finds the line from
// the source instead: the call of the callee in the caller's code, when there is only one; for
// a function literal's callee, which may be called under any name or by compiled code, the
// caller's one line with calls. Otherwise the frame names the lines of its function, or only
// the cell.
var callSite = Explainer{
	Name:     "call-site",
	Upstream: "yaegi reports each frame of a panic at the first statement of its function, not at the running call; no upstream issue found",
	Explain: func(env Env, f *Failure) {
		for i := 1; i < len(f.Frames); i++ {
			f.Frames[i].At = panicPlace(env, f.Frames[i], callOf(f.Frames[i-1]))
		}
	},
}

// callOf is the kind of expression that calls the function of frame callee: a call of its
// name, or any call for a function literal's frame.
func callOf(callee Frame) func(ast.Node, bool) bool {
	name := callee.Func[strings.LastIndexByte(callee.Func, '.')+1:]
	if callee.code != nil || isClosureName(callee.Func) || name == "" {
		return isCall
	}
	return func(n ast.Node, _ bool) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		switch fun := ast.Unparen(c.Fun).(type) {
		case *ast.Ident:
			return fun.Name == name
		case *ast.SelectorExpr:
			return fun.Sel.Name == name
		}
		return false
	}
}

// isCall reports whether n is a call (or a conversion, which the syntax does not tell apart).
func isCall(n ast.Node, _ bool) bool {
	_, ok := n.(*ast.CallExpr)
	return ok
}

// parseSnippet parses text, a declaration or, when stmt is set, a statement, as the body of a
// file (and of a function); skip is the number of lines put before text, so that a node's line
// in text is its line in fset less skip. ok is false when text does not parse.
func parseSnippet(text string, stmt bool) (fset *token.FileSet, f *ast.File, skip int, ok bool) {
	prefix := "package p\n"
	if stmt {
		prefix += "func _() {\n"
	}
	src := prefix + text
	if stmt {
		src += "\n}"
	}
	fset = token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	if err != nil {
		return nil, nil, 0, false
	}
	return fset, f, strings.Count(prefix, "\n"), true
}

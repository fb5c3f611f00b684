package interp

import (
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/internal/atomicfile"
)

// segment is a part of a cell: Go source, or one magic with its arguments (and, for a cell
// magic, the rest of the cell in code).
type segment struct {
	magic string // "" for Go source; otherwise the magic line, e.g. "%time f()" or "!ls"
	code  string
	line  int
}

// splitMagics cuts a cell into Go source and magic lines (lines starting with % or !, outside a
// raw string or block comment). A cell magic (%%name) must be the first line and takes the
// whole cell. With goBang nil, every line "!rest" is a shell command. Otherwise such a line is
// Go when the Go line above it leaves an expression open (see exprOpen), or when goBang says so,
// given rest and a function that returns the cell's Go source above the line. ok is false when
// the cell has no magics.
func splitMagics(code string, goBang func(rest string, above func() string) bool) (segs []segment, ok bool) {
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "%%") {
			return []segment{{magic: t, code: strings.Join(lines[i+1:], "\n"), line: i + 1}}, true
		}
		break
	}
	var goLines, above []string // the Go lines of the segment, and of the cell so far
	goStart := 0
	flushGo := func() {
		if len(goLines) > 0 && strings.TrimSpace(strings.Join(goLines, "")) != "" {
			segs = append(segs, segment{code: strings.Repeat("\n", goStart) + strings.Join(goLines, "\n"), line: goStart + 1})
		}
		goLines = nil
	}
	joined, joinedLines := "", 0
	aboveText := func() string { // joined only when goBang asks, and once for each Go line added
		if joinedLines != len(above) {
			joined, joinedLines = strings.Join(above, "\n"), len(above)
		}
		return joined
	}
	open := notOpen    // a raw string or block comment that a Go line left open
	continues := false // whether the last Go line with tokens leaves an expression open
	isGo := func(t string) bool {
		return goBang != nil && (continues || goBang(t[1:], aboveText))
	}
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if open == notOpen && (strings.HasPrefix(t, "%") || strings.HasPrefix(t, "!") && !strings.HasPrefix(t, "!=") && !isGo(t)) {
			flushGo()
			segs = append(segs, segment{magic: strings.TrimSpace(t), line: i + 1})
			ok = true
			continues = false
			continue
		}
		if len(goLines) == 0 {
			goStart = i
		}
		goLines = append(goLines, l)
		above = append(above, l)
		if after := openAfter(l, open); after == notOpen {
			if c, hasTokens := exprOpen(l, open); hasTokens {
				continues = c
			}
			open = after
		} else {
			open, continues = after, false
		}
	}
	flushGo()
	return segs, ok
}

// literal is what a line of Go leaves open for the next: nothing, a raw string or a block
// comment. A line inside one is Go, even when it starts with % or !.
type literal int

const (
	notOpen literal = iota
	rawString
	blockComment
)

// openAfter returns what is open after line, given what was open before it. Interpreted
// strings, runes and line comments end with their line, so only what they hide matters.
func openAfter(line string, open literal) literal {
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch open {
		case rawString:
			if c == '`' {
				open = notOpen
			}
			continue
		case blockComment:
			if c == '*' && i+1 < len(line) && line[i+1] == '/' {
				open, i = notOpen, i+1
			}
			continue
		}
		switch {
		case c == '`':
			open = rawString
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return notOpen
		case c == '/' && i+1 < len(line) && line[i+1] == '*':
			open, i = blockComment, i+1
		case c == '"' || c == '\'':
			i = quoteEnd(line, i)
		}
	}
	return open
}

// quoteEnd returns the index of the quote that closes the string or rune opened at line[i]
// (the end of the line if none does).
func quoteEnd(line string, i int) int {
	q := line[i]
	for i++; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return len(line)
}

// exprOpen reports whether line, which ends outside any raw string or block comment, leaves an
// expression open: it ends with a binary operator, an assignment, "<-", "(", "[" or ",", so
// that the next line continues it. open is what was open before the line. hasTokens is false
// when the line holds no Go tokens outside what was open (blank, or only comments).
func exprOpen(line string, open literal) (continues, hasTokens bool) {
	switch open {
	case rawString:
		line = line[strings.IndexByte(line, '`')+1:]
	case blockComment:
		line = line[strings.Index(line, "*/")+2:]
	}
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(line)), []byte(line), func(token.Position, string) {}, 0)
	var last token.Token
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		hasTokens = true
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at the end of the line: the line ends a statement
		}
		last = tok
	}
	switch {
	case last.Precedence() > 0, last == token.ARROW, last == token.LPAREN, last == token.LBRACK, last == token.COMMA,
		last == token.ASSIGN, last == token.DEFINE, last >= token.ADD_ASSIGN && last <= token.AND_NOT_ASSIGN:
		return true, hasTokens
	}
	return false, hasTokens
}

// runSegments runs the parts of a cell in order; it stops at the first failure.
func (s *Session) runSegments(ctx context.Context, segs []segment, count int) Result {
	var res Result
	var page map[string]any
	for _, sg := range segs {
		if sg.magic == "" {
			res = s.runGo(ctx, sg.code, count)
		} else {
			res = s.runMagic(ctx, sg, count)
		}
		if res.Page != nil {
			page = res.Page
		}
		if res.Err != nil {
			return res
		}
		if sg.magic != "" {
			s.done.addLine(sg.line)
		}
	}
	if res.Page == nil {
		res.Page = page
	}
	return res
}

// magicHelp documents every magic; %help prints it.
const magicHelp = `gosbi notebook magics (a line starting with % or ! in a cell):

  %help                 this text; %help NAME is ?NAME
  %time STATEMENTS      run Go statements and print how long they took
  %%time                (first line of a cell) run the cell and print how long it took
  %reset                forget all variables, declarations and imports (a fresh interpreter)
  %who                  list the variables, constants, functions, types and imports of the
                        session, with the packages imported automatically
  ?NAME or NAME?        show the documentation of NAME in the pager: a package (its doc's
                        opening and its names: ?npy), a package's function, type (with its
                        methods) or method (?diag.C2ST, ?sbi.NRE, ?mat.Dense.Mul, or
                        ?Dense.Mul when one package has a type Dense) or your own declaration
  %env                  list environment variables; %env NAME shows one;
                        %env NAME=VALUE (or %env NAME VALUE) sets one
  !COMMAND              run a shell command; its output is streamed into the cell. A line
                        !EXPR is Go instead when the line above leaves an expression open
                        (it ends with an operator, "(" or ","), or when EXPR is a Go
                        expression whose ! applies to a bool: a bool variable or constant
                        of the session or of the cell above, a call of a function that
                        returns a bool, or a bool expression in parentheses. !done negates
                        a bool variable done, while !ls -la, !date and !nproc run the shell
                        even when the session has variables of those names of other types
  %%writefile [-a] PATH (first line of a cell) write the rest of the cell to PATH (-a appends)
  %%compile             (first line of a cell) compile the cell's declarations natively; later
                        cells use them as if declared in a cell (see interp/README.md)
  %go get MODULE@VER    add a module for imports: a cell may import any package; one the
                        worker lacks is linked natively into a new worker (see interp/README.md)

Cells are Go: imports, declarations, statements and a last expression, whose value is shown.
Packages of the standard library, gonum, gonum/plot and gosbi are imported automatically when
a cell uses them (quietly: %who lists them). Display rich output with the display package (display.HTML, display.PNG, …).
`

func (s *Session) runMagic(ctx context.Context, sg segment, count int) Result {
	name, arg, _ := strings.Cut(sg.magic, " ")
	arg = strings.TrimSpace(arg)
	if strings.HasPrefix(name, "!") {
		return s.shell(ctx, strings.TrimSpace(sg.magic[1:]))
	}
	out := s.opts.Stdout
	switch name {
	case "%help", "%?":
		if arg != "" {
			return s.helpName(arg, count)
		}
		// shown in the front-end's pager, like IPython's help
		return Result{Page: map[string]any{display.MIMEText: magicHelp}}
	case "%time":
		start := time.Now()
		res := s.runGo(ctx, strings.Repeat("\n", sg.line-1)+arg, count)
		fmt.Fprintf(out, "time: %v\n", time.Since(start).Round(time.Microsecond))
		return res
	case "%%time":
		start := time.Now()
		res := s.runGo(ctx, "\n"+sg.code, count)
		fmt.Fprintf(out, "time: %v\n", time.Since(start).Round(time.Microsecond))
		return res
	case "%reset":
		if err := s.reset(); err != nil {
			return s.fail(err)
		}
		fmt.Fprintln(out, "session reset: all variables, declarations and imports are gone")
	case "%who":
		fmt.Fprint(out, s.who())
	case "%env":
		return s.env(arg)
	case "%%writefile":
		return s.writeFile(arg, sg.code)
	case "%go":
		return s.goMagic(ctx, arg)
	case "%%compile":
		return s.compileCell(ctx, sg.code, count)
	default:
		msg := fmt.Sprintf("cell [%d] line %d: unknown magic %s; %%help lists the magics", count, sg.line, name)
		return Result{Err: &Error{Name: "error", Value: msg, Traceback: []string{msg}}}
	}
	return Result{}
}

// helpRequest recognises a cell that asks for documentation, "?name" or "name?" (as in
// IPython), and returns the name, e.g. "strings.Split" or "myFunc".
func helpRequest(code string) (string, bool) {
	t := strings.TrimSpace(code)
	var name string
	switch {
	case strings.HasPrefix(t, "?"):
		name = strings.TrimSpace(t[1:])
	case strings.HasSuffix(t, "?"):
		name = strings.TrimSpace(t[:len(t)-1])
	default:
		return "", false
	}
	if name == "" {
		return "", false
	}
	for _, part := range strings.Split(name, ".") {
		if !token.IsIdentifier(part) {
			return "", false
		}
	}
	return name, true
}

// helpName answers "%help NAME" as "?NAME".
func (s *Session) helpName(arg string, count int) Result {
	name, ok := helpRequest("?" + arg)
	if !ok {
		msg := fmt.Sprintf("cell [%d]: %%help %s: want one name, such as npy, sbi.NPE or mat.Dense.Mul (%%help alone lists the magics)", count, arg)
		return Result{Err: &Error{Name: "error", Value: msg, Traceback: []string{msg}}}
	}
	return s.helpPage(name)
}

// helpPage answers "?name" with the documentation of name in the pager or, when name has
// none, a line in the cell's output that says so. Either way the cell succeeds, as in IPython,
// so that a notebook run goes on past a question that has no answer.
func (s *Session) helpPage(name string) Result {
	text, found := s.Inspect(name, utf8.RuneCountInString(name))
	if !found {
		fmt.Fprintf(s.opts.Stdout, "no documentation found for %s: is it defined or imported?\n", name)
		return Result{}
	}
	return Result{Page: map[string]any{display.MIMEText: text}}
}

// who lists the session's declarations by kind.
func (s *Session) who() string {
	byKind := map[declKind][]string{}
	globals := s.globalValues() // once: each call builds the map of all of them
	for _, d := range s.decls {
		entry := d.name
		if d.kind == varDecl || d.kind == constDecl {
			if v, ok := globalIn(globals, d.name); ok {
				entry += " " + v.Type().String()
			}
		}
		byKind[d.kind] = append(byKind[d.kind], entry)
	}
	var b strings.Builder
	for _, k := range []declKind{varDecl, constDecl, funcDecl, typeDecl, methodDecl} {
		if len(byKind[k]) == 0 {
			continue
		}
		sort.Strings(byKind[k])
		fmt.Fprintf(&b, "%-7s %s\n", string(k)+"s:", strings.Join(byKind[k], ", "))
	}
	if len(s.imports) > 0 {
		var imps, auto []string
		for n, p := range s.imports {
			switch {
			case n == "cmp" && p == "cmp":
			case s.auto[p]:
				auto = append(auto, p)
			default:
				imps = append(imps, p)
			}
		}
		sort.Strings(imps)
		sort.Strings(auto)
		if len(imps) > 0 {
			fmt.Fprintf(&b, "imports: %s\n", strings.Join(imps, ", "))
		}
		if len(auto) > 0 {
			fmt.Fprintf(&b, "auto-imports: %s (imported when a cell used them)\n", strings.Join(auto, ", "))
		}
	}
	if b.Len() == 0 {
		return "the session is empty\n"
	}
	return b.String()
}

func (s *Session) env(arg string) Result {
	out := s.opts.Stdout
	if arg == "" {
		env := os.Environ()
		sort.Strings(env)
		fmt.Fprintln(out, strings.Join(env, "\n"))
		return Result{}
	}
	name, val, set := strings.Cut(arg, "=")
	if !set {
		name, val, set = strings.Cut(arg, " ")
	}
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !set {
		v, ok := os.LookupEnv(name)
		if !ok {
			return s.fail(fmt.Errorf("%%env: %s is not set (%%env %s=VALUE sets it)", name, name))
		}
		fmt.Fprintln(out, v)
		return Result{}
	}
	if err := os.Setenv(name, val); err != nil {
		return s.fail(fmt.Errorf("%%env: %w", err))
	}
	fmt.Fprintf(out, "env: %s=%s\n", name, val)
	return Result{}
}

// writeFile runs %%writefile: the file is replaced atomically (package atomicfile), so a write
// that fails part-way, on a full disk say, leaves the old file as it was; -a writes the old
// content followed by the body the same way.
func (s *Session) writeFile(arg, body string) Result {
	appendMode := false
	if rest, ok := strings.CutPrefix(arg, "-a"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		appendMode, arg = true, strings.TrimSpace(rest)
	}
	if arg == "" {
		return s.fail(errors.New("%%writefile needs a file name: %%writefile [-a] PATH"))
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	verb := "Writing"
	if appendMode {
		verb = "Appending to"
	}
	err := atomicfile.Write(arg, 0o644, func(w io.Writer) error {
		if appendMode {
			if err := copyFile(w, arg); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, body)
		return err
	})
	if err != nil {
		return s.fail(fmt.Errorf("%%%%writefile: %w (the file is unchanged)", err))
	}
	fmt.Fprintf(s.opts.Stdout, "%s %s\n", verb, arg)
	return Result{}
}

// copyFile writes the content of the file at path to w; a missing file has none.
func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// shell runs a command with sh; its output goes to the cell as it is produced.
func (s *Session) shell(ctx context.Context, command string) Result {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdout, cmd.Stderr = s.opts.Stdout, s.opts.Stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return s.fail(ctx.Err())
		}
		fmt.Fprintf(s.opts.Stderr, "!%s: %v\n", command, err)
	}
	return Result{}
}

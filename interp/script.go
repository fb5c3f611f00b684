package interp

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/interp/rewrite"
	"github.com/gosbi/gosbi/runenv"
)

var packageClause = regexp.MustCompile(`(?m)^package\s+\w+\s*(;|$)`)

// runScript runs a Go file (or standard input for "-") with the notebook's packages and
// auto-imports. The file may be a program (package main with func main) or a list of
// statements like a cell; a first line starting with #! is ignored. A script larger than
// readlimit.MaxScript is refused before it is read whole.
func runScript(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: gosbi script FILE.go [args] (use - to read standard input)")
	}
	name := args[0]
	var src []byte
	r, err := takeResume() // a script continued by a program that links its imports
	if err != nil {
		return err
	}
	if r != nil {
		src = []byte(r.Script)
		if name == "-" {
			name = "stdin"
		}
	} else if name == "-" {
		src, err = readlimit.Reader(stdin, "standard input", "a Go script", readlimit.MaxScript)
		name = "stdin"
	} else {
		src, err = readlimit.File(name, "a Go script", readlimit.MaxScript)
	}
	if err != nil {
		return fmt.Errorf("reading the script: %w", err)
	}
	code := string(src)
	if strings.HasPrefix(code, "#!") {
		code = "//" + code[2:]
	}
	isProgram := false
	if loc := packageClause.FindStringIndex(code); loc != nil && strings.TrimSpace(stripComments(code[:loc[0]])) == "" {
		isProgram = true
		code = code[:loc[0]] + "//" + code[loc[0]+2:] // keep line numbers: comment the clause out
	}
	runenv.SetDisplay(func(o runenv.Output) { fmt.Fprintln(stdout, display.PlainText(o.Data)) })
	defer runenv.SetDisplay(nil)
	sess, err := NewSession(Config{Stdout: stdout, Stderr: stderr, Stdin: stdin, Args: args})
	if err != nil {
		return err
	}
	sess.fileName = name
	enableScriptSwitching(sess, args[0], src, args, r)
	res := sess.Execute(context.Background(), code, 1)
	if res.Err == nil && isProgram {
		if d, ok := sess.decls["main"]; ok && d.kind == funcDecl {
			res = sess.Execute(context.Background(), rewrite.MainName+"()", 1)
		}
	}
	if res.Err != nil {
		if res.Err.Name == "Exit" {
			os.Exit(res.Err.ExitCode)
		}
		fmt.Fprintln(stderr, strings.Join(res.Err.Traceback, "\n"))
		return fmt.Errorf("%s failed", name)
	}
	return nil
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "//") {
			b.WriteString(t)
		}
	}
	return b.String()
}

package interp

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gosbiCommand runs the test binary as `gosbi PROGRAM args...`.
func gosbiCommand(program string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GOSBI_TEST_MAIN="+program)
	return cmd
}

func TestScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name     string
		args     func() []string
		stdin    string
		stdout   string
		stderr   string
		exitCode int
	}{
		{name: "program with main and arguments", args: func() []string {
			return []string{write("prog.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Println(\"args:\", os.Args[1:])\n}\n"), "a", "b"}
		}, stdout: "args: [a b]\n"},
		{name: "statements with auto-import", args: func() []string {
			return []string{write("stmts.go", "m := mat.NewDense(2, 2, []float64{1, 0, 0, 1})\nfmt.Println(mat.Det(m))\n")}
		}, stdout: "1\n"},
		{name: "standard input", args: func() []string { return []string{"-"} }, stdin: "fmt.Println(strings.ToUpper(\"piped\"))", stdout: "PIPED\n"},
		{name: "error at the file's position", args: func() []string {
			return []string{write("bad.go", "package main\n\nfunc main() {\n\tx := foo\n}\n")}
		}, stderr: "bad.go:4:7: undefined: foo", exitCode: 1},
		{name: "panic shows the frames", args: func() []string {
			return []string{write("panic.go", "func f() {\n\tpanic(\"no\")\n}\nf()\n")}
		}, stderr: "panic: no", exitCode: 1},
		{name: "panic names the caller's line", args: func() []string {
			return []string{write("caller.go", "package main\n\nfunc f() {\n\tpanic(\"no\")\n}\n\nfunc g() {\n\tx := 1\n\t_ = x\n\tf()\n}\n\nfunc main() {\n\tg()\n}\n")}
		}, stderr: "caller.go:10\n    in _main, ", exitCode: 1},
		{name: "top-level index of a compiled package's slice", args: func() []string {
			return []string{write("index.go", "func f() int { return len(regexp.MustCompile(\"b\").FindStringIndex(\"abc\")) }\n"+
				"q := regexp.MustCompile(\"b\").FindStringIndex(\"abc\")\np := q[1]\nprintln(p, f())\n")}
		}, stderr: "index.go:3:1: p := q[1]: the interpreter cannot infer the type", exitCode: 1},
		{name: "a later part that does not compile says what ran", args: func() []string {
			return []string{write("later.go", "fmt.Println(\"first\")\nvar y int = \"no\"\n")}
		}, stdout: "first\n", stderr: "later.go:2:13: cannot convert \"no\" to int\n(line 1 of this file ran before this error was found, and what it did stays: a file runs in parts", exitCode: 1},
		{name: "os.Exit code", args: func() []string { return []string{write("exit.go", "os.Exit(3)\n")} }, exitCode: 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := gosbiCommand("script", c.args()...)
			var out, errOut bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(c.stdin), &out, &errOut
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.exitCode {
				t.Errorf("exit code %d, want %d; stderr %q", code, c.exitCode, errOut.String())
			}
			if c.stdout != "" && out.String() != c.stdout {
				t.Errorf("stdout %q, want %q", out.String(), c.stdout)
			}
			if !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("stderr %q lacks %q", errOut.String(), c.stderr)
			}
		})
	}
}

// TestScriptShebang runs a script file directly, through its #! line.
func TestScriptShebang(t *testing.T) {
	envPath, err := exec.LookPath("env")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "hello.go")
	src := "#!" + envPath + " -S GOSBI_TEST_MAIN=script " + os.Args[0] + "\nfmt.Println(\"hello from\", len(os.Args), \"args\")\n"
	if err := os.WriteFile(p, []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(p, "x").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if string(out) != "hello from 2 args\n" {
		t.Errorf("output %q", out)
	}
}

// TestScriptProgressOptIn: a script shows the progress of a long call on standard error only
// when GOSBI_PROGRESS=stderr asks for it; standard error being a pipe, only the call's final
// line is written.
func TestScriptProgressOptIn(t *testing.T) {
	script := filepath.Join(t.TempDir(), "train.go")
	src := "p := sbi.NewProgress(\"train NPE\", 12)\nfor i := range 12 {\n\ttime.Sleep(100 * time.Millisecond)\n\tp.Set(i+1, \"\")\n}\np.Finish()\nfmt.Println(\"trained\")\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ env, stderr string }{
		{"GOSBI_PROGRESS=stderr", "train NPE [##############################] 12/12 done\n"},
		{"GOSBI_PROGRESS=", ""},
	} {
		cmd := gosbiCommand("script", script)
		cmd.Env = append(cmd.Env, c.env)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", c.env, err, stderr.String())
		}
		if stdout.String() != "trained\n" || stderr.String() != c.stderr {
			t.Errorf("%s: stdout %q, stderr %q; want stderr %q", c.env, stdout.String(), stderr.String(), c.stderr)
		}
	}
}

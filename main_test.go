package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestMain runs the command itself when the test binary is started with GOSBI_MAIN_TEST=1.
func TestMain(m *testing.M) {
	if os.Getenv("GOSBI_MAIN_TEST") == "1" {
		os.Args = append([]string{"gosbi"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// gosbi runs the command with args and returns its exit status and outputs.
func gosbi(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GOSBI_MAIN_TEST=1")
	cmd.Stdin = strings.NewReader("")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// TestHelpAndExitCodes checks cobra's conventions: help, asked for in any of its forms, goes
// to standard output with exit status 0; an unknown command or a usage error goes to standard
// error with exit status 1.
func TestHelpAndExitCodes(t *testing.T) {
	for _, c := range []struct {
		args    []string
		code    int
		stdout  string // substring of standard output; "" for none at all
		stderr  string // substring of standard error; "" for none at all
		comment string
	}{
		{nil, 0, "usage: gosbi COMMAND", "", "no arguments"},
		{[]string{"--help"}, 0, "usage: gosbi COMMAND", "", ""},
		{[]string{"-h"}, 0, "usage: gosbi COMMAND", "", ""},
		{[]string{"help"}, 0, "usage: gosbi COMMAND", "", ""},
		{[]string{"run", "--help"}, 0, "usage: gosbi run NOTEBOOK.ipynb", "", "a command with flags"},
		{[]string{"help", "run"}, 0, "-timeout D", "", ""},
		{[]string{"install", "-h"}, 0, "--sys-prefix", "", ""},
		{[]string{"kernel", "--help"}, 0, "connection file", "", ""},
		{[]string{"script", "--help"}, 0, "usage: gosbi script FILE.go", "", "a command without flags"},
		{[]string{"repl", "--help"}, 0, "Ctrl-C stops the running cell", "", ""},
		{[]string{"data", "--help"}, 0, "usage: gosbi data fetch", "", ""},
		{[]string{"data", "fetch", "-h"}, 0, "base URL of the sbibm task files", "", ""},
		{[]string{"data", "pull"}, 1, "", "usage: gosbi data fetch", "an unknown sub-command"},
		{[]string{"data", "fetch", "extra"}, 1, "", `unexpected arguments ["extra"]`, ""},
		{[]string{"study", "run", "--help"}, 0, "--wait ", "", "the options of study run"},
		{[]string{"study", "run", "spec.json", "-h"}, 0, "--workers N", "", ""},
		{[]string{"help", "study"}, 0, "gosbi study status DIR", "", ""},
		{[]string{"version"}, 0, "gosbi ", "", ""},
		{[]string{"version", "extra"}, 1, "", `version takes no arguments, got ["extra"]`, ""},
		{[]string{"help", "help"}, 0, "usage: gosbi COMMAND", "", "help is a command of the list"},
		{[]string{"nosuch"}, 1, "", `unknown command "nosuch" for "gosbi"`, ""},
		{[]string{"help", "nosuch"}, 1, "", `unknown command "nosuch"`, ""},
		{[]string{"run"}, 1, "", "no notebook given", "a usage error"},
		{[]string{"run", "--nosuchflag", "x.ipynb"}, 1, "", "flag provided but not defined", ""},
	} {
		code, out, errOut := gosbi(t, c.args...)
		if code != c.code {
			t.Errorf("gosbi %q: exit status %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
		if c.stdout == "" && out != "" || !strings.Contains(out, c.stdout) {
			t.Errorf("gosbi %q: stdout %q, want %q", c.args, out, c.stdout)
		}
		if c.stderr == "" && errOut != "" || !strings.Contains(errOut, c.stderr) {
			t.Errorf("gosbi %q: stderr %q, want %q", c.args, errOut, c.stderr)
		}
	}
}

// TestBashCompletion sources the completion script in bash and completes a command name and
// a flag of run.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	code, script, errOut := gosbi(t, "completion", "bash")
	if code != 0 || errOut != "" {
		t.Fatalf("gosbi completion bash: exit status %d, %s", code, errOut)
	}
	for _, c := range []struct{ words, want string }{
		{"gosbi r", "run repl"},
		{"gosbi run --h", "--html --help"},
		{"gosbi data ", "fetch"},
		{"gosbi help ins", "install"},
	} {
		n := len(strings.Fields(c.words)) - 1
		if strings.HasSuffix(c.words, " ") {
			n++
		}
		prog := script + "\nCOMP_WORDS=(" + c.words + ")\n"
		if strings.HasSuffix(c.words, " ") {
			prog += "COMP_WORDS+=('')\n"
		}
		prog += "COMP_CWORD=" + strconv.Itoa(n) + "\n_gosbi\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command(bash, "-c", prog).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("completing %q: %q, %v; want %q", c.words, out, err, c.want)
		}
	}
	if code, _, errOut := gosbi(t, "completion", "fish"); code != 1 || !strings.Contains(errOut, "bash") {
		t.Errorf("gosbi completion fish: exit status %d, %q", code, errOut)
	}
}

// TestCompletionListsEveryFlag: the completion of "gosbi CMD --" offers every flag that
// "gosbi CMD --help" lists, and no other (besides --help).
func TestCompletionListsEveryFlag(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	_, script, _ := gosbi(t, "completion", "bash")
	flagRE := regexp.MustCompile(`(?m)^  --?([a-z][a-z-]*)`)
	for _, cmd := range []string{"run", "install", "data fetch", "study run", "certify"} {
		_, help, _ := gosbi(t, append(strings.Fields(cmd), "--help")...)
		want := []string{"--help"}
		for _, m := range flagRE.FindAllStringSubmatch(help, -1) {
			want = append(want, "--"+m[1])
		}
		if len(want) == 1 {
			t.Fatalf("gosbi %s --help lists no flags:\n%s", cmd, help)
		}
		words := "gosbi " + cmd + " --"
		prog := script + "\nCOMP_WORDS=(" + words + ")\nCOMP_CWORD=" + strconv.Itoa(len(strings.Fields(words))-1) +
			"\n_gosbi\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command(bash, "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("completing %q: %v\n%s", words, err, out)
		}
		got := strings.Fields(string(out))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("completing %q: %q; gosbi %s --help lists %q", words, got, cmd, want)
		}
	}
}

// TestLicences: the module carries the BSD 3-Clause licence (what pkg.go.dev needs to show its
// documentation), and the sbibm files shipped in testdata carry sbibm's MIT notice.
func TestLicences(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"LICENSE", []string{
			"Copyright ©2026 The gosbi Authors",
			"Redistributions of source code must retain the above copyright",
			"Redistributions in binary form must reproduce the above copyright",
			"Neither the name of the gosbi project nor the names of its authors",
		}},
		{"testdata/sbibm/LICENSE", []string{
			"Jan-Matthis Lueckmann",
			"Permission is hereby granted, free of charge",
			"The above copyright notice and this permission notice shall be included",
		}},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s does not say %q", c.file, w)
			}
		}
	}
}

// TestDataFetch runs `gosbi data fetch` against servers that do not serve sbibm's files: a
// closed port, and a server that answers every request with a login page. The error names the
// folder, the URL, the flags that change them and that the tutorials do not need the files;
// the login pages are refused by their checksums and nothing is written.
func TestDataFetch(t *testing.T) {
	bad := t.TempDir()
	code, out, errOut := gosbi(t, "data", "fetch", "--dir", bad, "--url", "http://127.0.0.1:1/tasks")
	if code != 1 || out != "" {
		t.Errorf("fetch from a closed port: exit status %d, stdout %q", code, out)
	}
	for _, want := range []string{bad, "http://127.0.0.1:1/tasks", "--url", "--dir", "Rerun to resume", "tutorials work without"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("fetch error %q does not name %q", errOut, want)
		}
	}
	if c := strings.Count(errOut, "fetch:"); c != 1 {
		t.Errorf("fetch error %q says \"fetch:\" %d times", errOut, c)
	}

	portal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html><body>Welcome! Please log in to use the Wi-Fi.</body></html>")
	}))
	defer portal.Close()
	dir := t.TempDir()
	code, _, errOut = gosbi(t, "data", "fetch", "--dir", dir, "--url", portal.URL+"/tasks")
	if code != 1 || !strings.Contains(errOut, "it is not sbibm's file") || !strings.Contains(errOut, "nothing was written") || !strings.Contains(errOut, portal.URL+"/tasks/") {
		t.Errorf("fetch from a captive portal: exit status %d:\n%s", code, errOut)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("fetch from a captive portal wrote %s", p)
		}
		return nil
	})
}

// TestDataHelpSize: the size that gosbi help data and the README announce is the total of the
// files recorded in sbi/task/sbibm.sum, in MB rounded to the nearest.
func TestDataHelpSize(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("sbi", "task", "sbibm.sum"))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatalf("sbibm.sum: %q: %v", line, err)
		}
		total += n
	}
	want := fmt.Sprintf("about %d MB", (total+500_000)/1_000_000)
	for _, args := range [][]string{{"help", "data"}, {"data", "fetch", "--help"}} {
		if _, out, _ := gosbi(t, args...); !strings.Contains(out, want) {
			t.Errorf("gosbi %s does not say %q (%d bytes):\n%s", strings.Join(args, " "), want, total, out)
		}
	}
	if readme, err := os.ReadFile("README.md"); err != nil || !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not say %q (%v)", want, err)
	}
}

// TestFlagErrorOnce: a flag error of any command is written once, on standard error, with
// the command's usage, and exits with status 1 (a usage error).
func TestFlagErrorOnce(t *testing.T) {
	for _, c := range []struct {
		args  []string
		err   string // the flag error, which must appear once
		usage string
	}{
		{[]string{"data", "fetch", "--bogus"}, "flag provided but not defined: -bogus", "usage: gosbi data fetch"},
		{[]string{"data", "fetch", "--dir"}, "flag needs an argument: -dir", "usage: gosbi data fetch"},
		{[]string{"install", "--bogus"}, "flag provided but not defined: -bogus", "usage: gosbi install"},
		{[]string{"certify", "--bogus"}, "flag provided but not defined: -bogus", "usage: gosbi certify"},
		{[]string{"certify", "spec.json", "--workers", "x"}, `invalid value "x" for flag -workers`, "usage: gosbi certify"},
		{[]string{"run", "--bogus", "x.ipynb"}, "flag provided but not defined: -bogus", "usage: gosbi run"},
		{[]string{"run", "x.ipynb", "--max-output", "5zz"}, `invalid value "5zz" for flag -max-output`, "usage: gosbi run"},
		{[]string{"kernel", "--bogus"}, "flag provided but not defined: -bogus", "usage: gosbi kernel"},
		{[]string{"kernel", "--interrupt-grace", "soon"}, `invalid value "soon" for flag -interrupt-grace`, "usage: gosbi kernel"},
	} {
		code, out, errOut := gosbi(t, c.args...)
		if code != 1 || out != "" {
			t.Errorf("gosbi %q: exit status %d, stdout %q; want 1 and nothing", c.args, code, out)
		}
		if n := strings.Count(errOut, c.err); n != 1 {
			t.Errorf("gosbi %q: stderr says %q %d times, want once:\n%s", c.args, c.err, n, errOut)
		}
		if n := strings.Count(errOut, c.usage); n != 1 {
			t.Errorf("gosbi %q: stderr says %q %d times, want once:\n%s", c.args, c.usage, n, errOut)
		}
	}
}

// TestHelpLayout: the help of every command has one layout: its usage line, a blank line, what
// it does, and for a command with flags a blank line and the flags.
func TestHelpLayout(t *testing.T) {
	for _, c := range commands() {
		if c.name == "study" { // its help lists the sub-commands' synopses and options itself
			continue
		}
		_, out, _ := gosbi(t, "help", c.name)
		lines := strings.Split(out, "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "usage: gosbi "+c.name) || lines[1] != "" || lines[2] == "" {
			t.Errorf("gosbi help %s does not begin with its usage line, a blank line and its description:\n%s", c.name, out)
			continue
		}
		if n := strings.Count(out, "usage:"); n != 1 {
			t.Errorf("gosbi help %s says usage: %d times:\n%s", c.name, n, out)
		}
		if !c.flags {
			continue
		}
		first := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "  -") })
		if first < 3 || lines[first-1] != "" {
			t.Errorf("gosbi help %s: its flags do not follow a blank line:\n%s", c.name, out)
		}
	}
}

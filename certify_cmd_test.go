package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/certify"
)

// TestCertifyCommand runs `gosbi certify` on a small two-moons budget with an observation far
// outside the simulator's range: the printed certificate refuses it, and the files of --out and
// --html hold the same certificate as the one printed.
func TestCertifyCommand(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(`{"task": "two_moons", "simulations": 1500, "test": 500, "check": 300,
		"epochs": 10, "remedies": [], "samples": 100, "sbc_samples": -1, "seed": 1,
		"observations": [[-0.3, 0.1], [40, 40]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, page := filepath.Join(dir, "cert.json"), filepath.Join(dir, "cert.html")
	code, stdout, stderr := gosbi(t, "certify", spec, "--out", out, "--html", page)
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "Certificate: ") {
		t.Errorf("the output does not start with the verdict:\n%s", stdout)
	}
	if !strings.Contains(stdout, "observation 1: not certified: refused") {
		t.Errorf("the observation at (40, 40) is not refused:\n%s", stdout)
	}
	cert, err := certify.LoadFile(out)
	if err != nil {
		t.Fatalf("loading the certificate written by --out: %v", err)
	}
	if !strings.Contains(stdout, cert.Sentence()) {
		t.Errorf("the saved certificate says %q, not in the printed one:\n%s", cert.Sentence(), stdout)
	}
	if len(cert.Observations) != 2 || cert.Observations[1].Verdict != certify.NotCertified {
		t.Errorf("saved observations: %+v, want 2 with the second not certified", cert.Observations)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	body, _ := cert.MIMEBundle()["text/html"].(string)
	if !strings.HasPrefix(h, "<!DOCTYPE html>") || body == "" || !strings.Contains(h, body) {
		t.Errorf("the page of --html is not a standalone page holding the certificate's display:\n%.400s", h)
	}
}

// TestCertifySpecErrors checks that a bad spec is refused before anything runs, with a message
// that says what was expected.
func TestCertifySpecErrors(t *testing.T) {
	for _, c := range []struct{ name, spec, want string }{
		{"unknown field", `{"task": "two_moons", "simulation": 100}`, `unknown field "simulation"`},
		{"no task", `{"simulations": 100}`, `set "task" to one of`},
		{"unknown task", `{"task": "three_moons"}`, `task "three_moons"`},
		{"estimator", `{"task": "two_moons", "estimator": "abc"}`, "want npe, npe-nsf, nre, nle or fmpe"},
		{"remedy", `{"task": "two_moons", "remedies": ["prayer"]}`, `remedy "prayer"`},
		{"observation length", `{"task": "two_moons", "observations": [[1, 2, 3]]}`, "observation 1 has 3 values; task two_moons has 2"},
		{"two values", `{"task": "two_moons"} {}`, "more than one JSON value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := parseCertifySpec([]byte(c.spec))
			if err == nil {
				_, _, _, err = s.config()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	t.Run("command", func(t *testing.T) {
		code, _, stderr := gosbi(t, "certify")
		if code != 1 || !strings.Contains(stderr, "usage: gosbi certify SPEC.json") {
			t.Errorf("no spec: exit %d, stderr %q; want 1 and the usage", code, stderr)
		}
	})
}

// TestCertifySpecConfig checks that the fields of a spec reach certify.Config.
func TestCertifySpecConfig(t *testing.T) {
	s, err := parseCertifySpec([]byte(`{"task": "two_moons", "estimator": "nre", "simulations": 3000, "test": 700,
		"check": 400, "conformal": 900, "epochs": 7, "levels": [0.9], "tolerance": 0.03, "alpha": 0.1, "conservative": true,
		"remedies": ["conformal regions"], "samples": 50, "sbc_samples": 9, "seed": 4, "observations": [[0, 0]]}`))
	if err != nil {
		t.Fatal(err)
	}
	tk, obs, cfg, err := s.config()
	if err != nil {
		t.Fatal(err)
	}
	if tk.Name() != "two_moons" || obs == nil || obs.RawMatrix().Rows != 1 {
		t.Errorf("task %s, observations %v", tk.Name(), obs)
	}
	want := certify.Target{Levels: []float64{0.9}, Tolerance: 0.03, Alpha: 0.1, Conservative: true}
	got := cfg.Target
	if len(got.Levels) != 1 || got.Levels[0] != 0.9 || got.Tolerance != want.Tolerance || got.Alpha != want.Alpha || !got.Conservative {
		t.Errorf("target %+v, want %+v", got, want)
	}
	if cfg.Simulations != 3000 || cfg.TestSimulations != 700 || cfg.CheckSimulations != 400 || cfg.ConformalSimulations != 900 || cfg.Train.Epochs != 7 ||
		cfg.Samples != 50 || cfg.SBCSamples != 9 || cfg.Seed != 4 {
		t.Errorf("config %+v", cfg)
	}
	if len(cfg.Remedies) != 1 || cfg.Remedies[0] != certify.RemedyConformal {
		t.Errorf("remedies %v, want [conformal regions]", cfg.Remedies)
	}
	if _, ok := cfg.New().(*sbi.NRE); !ok {
		t.Errorf("estimator %T, want *sbi.NRE", cfg.New())
	}
}

// TestCertifyExampleSpecs checks that the specs of examples/certify are valid.
func TestCertifyExampleSpecs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("examples", "certify", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example specs (%v)", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseCertifySpec(data)
		if err == nil {
			_, _, _, err = s.config()
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestCertifySpecEstimators checks that each estimator name of a spec makes that estimator.
func TestCertifySpecEstimators(t *testing.T) {
	for name, want := range map[string]string{"": "*sbi.NPE", "npe": "*sbi.NPE", "npe-nsf": "*sbi.NPE", "nre": "*sbi.NRE", "nle": "*sbi.NLE", "fmpe": "*sbi.FMPE"} {
		s, err := parseCertifySpec([]byte(`{"task": "two_moons", "estimator": "` + name + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _, cfg, err := s.config()
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if got := fmt.Sprintf("%T", cfg.New()); got != want {
			t.Errorf("estimator %q makes %s, want %s", name, got, want)
		}
	}
}

// TestCertifySpecEveryRemedy: every remedy of package certify can be named in a spec, in the
// order given, and the reserve and L-C2ST sizes reach the configuration.
func TestCertifySpecEveryRemedy(t *testing.T) {
	s, err := parseCertifySpec([]byte(`{"task": "two_moons", "remedies": ["score calibration", "more simulations",
		"coverage regularizer", "conformal regions"], "more_simulations": 700, "local_simulations": -1}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _, cfg, err := s.config()
	if err != nil {
		t.Fatal(err)
	}
	want := []certify.Remedy{certify.RemedyScoreCalibration, certify.RemedyMoreSimulations, certify.RemedyRegularizer, certify.RemedyConformal}
	if !slices.Equal(cfg.Remedies, want) {
		t.Errorf("remedies %v, want %v", cfg.Remedies, want)
	}
	if cfg.MoreSimulations != 700 || cfg.LocalSimulations != -1 {
		t.Errorf("MoreSimulations %d, LocalSimulations %d; want 700 and -1", cfg.MoreSimulations, cfg.LocalSimulations)
	}
}

// TestCertifyUnwritableOutput: an --out or --html path that cannot be written (a directory, a
// file in a directory that does not exist) is refused before the certification runs, not
// after it, when the work would be lost.
func TestCertifyUnwritableOutput(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(`{"task": "two_moons", "simulations": 1500, "test": 500, "check": 300,
		"epochs": 10, "remedies": [], "samples": 100, "sbc_samples": -1, "seed": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ flag, path string }{
		{"--out", dir},
		{"--html", filepath.Join(dir, "no", "such", "dir", "cert.html")},
	} {
		code, stdout, stderr := gosbi(t, "certify", spec, c.flag, c.path)
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.flag+" "+c.path) {
			t.Errorf("gosbi certify SPEC %s %s: exit status %d, stdout %q, stderr %q; want status 1, nothing run and an error naming the flag and path",
				c.flag, c.path, code, stdout, stderr)
		}
	}
}

// TestCertifyHelpNamesEveryField: gosbi help certify, which describes SPEC, names every field
// that a spec may hold, and shows the default order of the remedies as the default.
func TestCertifyHelpNamesEveryField(t *testing.T) {
	defaults, err := json.Marshal(certify.DefaultRemedies())
	if err != nil {
		t.Fatal(err)
	}
	if want := `"remedies": ` + strings.ReplaceAll(string(defaults), ",", ", "); !strings.Contains(certifyHelp, want) {
		t.Errorf("gosbi help certify does not show the default order of the remedies, %s", want)
	}
	typ := reflect.TypeFor[certifySpec]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if !strings.Contains(certifyHelp, `"`+name+`"`) {
			t.Errorf("gosbi help certify does not describe the spec field %q", name)
		}
	}
}

// TestCertifySpecTooLarge names a 17 MiB file (sparse: no disk used) as the spec: the command
// refuses it with the limit before reading it.
func TestCertifySpecTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, maxCertifySpecSize+1); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := gosbi(t, "certify", p)
	if code != 1 || !strings.Contains(stderr, "larger than the 16777216 bytes (16 MiB) a certify spec may hold") {
		t.Fatalf("exit %d, stderr %q; want 1 and the spec's limit", code, stderr)
	}
}

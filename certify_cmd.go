package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/cmdflag"
	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/certify"
	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/task"
	"github.com/gosbi/gosbi/study"
)

// certifyUsage is the synopsis of `gosbi certify`.
const certifyUsage = "usage: gosbi certify SPEC.json [--out FILE] [--html FILE] [--study DIR [--executor local|slurm] [options]]"

// maxCertifySpecSize bounds the SPEC file of `gosbi certify` (16 MiB): it is read whole, and a
// larger file is refused before it is read (a data file or a device named by mistake).
const maxCertifySpecSize = 16 << 20

// certifyHelp says what `gosbi certify` does and what SPEC holds.
const certifyHelp = `Certifies a posterior for a task of package sbi/task (certify.Certify): trains an estimator,
diagnoses its coverage on held-out simulations, applies remedies while needed, judges once on a
final test set, and prints the certificate. SPEC is a JSON object (a file of at most 16 MiB):

  {"task": "weinberg",             a name of task.Names()
   "estimator": "npe",             npe (default), npe-nsf, nre, nle or fmpe
   "trained": "FILE",              instead of estimator: an estimator saved by the library (its
                                   prior the task's), certified without training; relative to SPEC
   "simulations": 10000,           the whole budget (0: 10,000)
   "test": 2000, "check": 1000,    final test and check set sizes (0: certify's defaults)
   "conformal": 8000,              calibration set of the conformal remedy (0: 4 × test where affordable)
   "epochs": 100,                  training epochs (0: sbi's default)
   "levels": [0.5, 0.8, 0.9, 0.95], "tolerance": 0.05, "alpha": 0.05, "conservative": false,
   "remedies": ["more simulations", "coverage regularizer", "conformal regions", "score calibration"],
                                   tried in this order; omitted: this order (the default); []: none
   "more_simulations": 0,          reserve for the more-simulations remedy (0: certify's default; -1: none)
   "local_simulations": 0,         L-C2ST set per observation (0: where affordable; -1: off)
   "samples": 1000,                posterior draws per test pair (0: 1000)
   "sbc_samples": 199,             draws per test pair of the SBC and TARP shown (0: 199; -1: none)
   "seed": 1,
   "seeds": [1, 2, 3],             instead of seed: one certification per seed (needs --study)
   "observations": [[...], ...],   observations given as data rows
   "task_observations": [1, 2]}    sbibm observations by number (needs gosbi data fetch)

--out writes the certificate with its estimator (certify.LoadFile reads it back); --html writes the
certificate as a standalone page. A run that stops with an error after it trained an estimator
saves that estimator (not certified) in FILE.estimator beside --out, or without --out in a new
file certify-TASK-*.estimator in the current directory; with --study, a seed's job that stops so
saves it beside the job's record, in DIR/jobs/certify/NNNNN.estimator, which running the study
again removes once it has recorded the seed's certificate (it says so). The error names the file:
give it as "trained" to certify it without training again. The exit status is
0 whatever the verdict, which the first line of the output states; an error (bad SPEC, a failed run) exits with status 1.

--study DIR runs the certification as a study (package study) in DIR: one job per seed, which
runs the whole certification of that seed and records its certificate, and a summary job that
counts the verdicts. The jobs of several seeds run side by side (--executor local, --workers) or
as one Slurm array (--executor slurm); the steps of one certification run in sequence, since each
remedy is chosen by the diagnosis before it. Running the same command again resumes the study:
seeds whose certificate is recorded are not certified again (gosbi study status DIR shows where it
stands). A seed's certificate is the one that the run without --study gives for that seed. Its
record's metric tried counts the remedies taken up before the final test, those skipped included;
remedies_run and remedies_skipped count the two apart, as the certificate's first line does.`

// certifySpec is the JSON of `gosbi certify SPEC`.
type certifySpec struct {
	Task             string      `json:"task"`
	Estimator        string      `json:"estimator"`
	Trained          string      `json:"trained"`
	Simulations      int         `json:"simulations"`
	Test             int         `json:"test"`
	Check            int         `json:"check"`
	Conformal        int         `json:"conformal"`
	Epochs           int         `json:"epochs"`
	Levels           []float64   `json:"levels"`
	Tolerance        float64     `json:"tolerance"`
	Alpha            float64     `json:"alpha"`
	Conservative     bool        `json:"conservative"`
	Remedies         *[]string   `json:"remedies"`
	MoreSimulations  int         `json:"more_simulations"`
	LocalSimulations int         `json:"local_simulations"`
	Samples          int         `json:"samples"`
	SBCSamples       int         `json:"sbc_samples"`
	Seed             uint64      `json:"seed"`
	Seeds            []uint64    `json:"seeds,omitempty"`
	Observations     [][]float64 `json:"observations"`
	TaskObservations []int       `json:"task_observations"`
}

// parseCertifySpec reads a spec strictly: an unknown field is an error, not a silent default.
func parseCertifySpec(data []byte) (*certifySpec, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s certifySpec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("reading the spec: %w (see gosbi help certify for its fields)", err)
	}
	if dec.More() {
		return nil, errors.New("reading the spec: more than one JSON value")
	}
	if s.Task == "" {
		return nil, fmt.Errorf("the spec names no task: set \"task\" to one of %v", task.Names())
	}
	if len(s.Seeds) > 0 && s.Seed != 0 {
		return nil, fmt.Errorf("the spec sets both seed (%d) and seeds (%v); give one of them", s.Seed, s.Seeds)
	}
	seen := map[uint64]bool{}
	for _, sd := range s.Seeds {
		if seen[sd] {
			return nil, fmt.Errorf("seeds %v holds %d twice; give distinct seeds", s.Seeds, sd)
		}
		seen[sd] = true
	}
	return &s, nil
}

// config turns the spec into the task, its observations and certify's configuration.
func (s *certifySpec) config() (task.Task, *mat.Dense, certify.Config, error) {
	var cfg certify.Config
	t, err := task.Get(s.Task)
	if err != nil {
		return nil, nil, cfg, fmt.Errorf("task %q: %w", s.Task, err)
	}
	prior := t.Prior()
	switch {
	case s.Trained != "" && s.Estimator != "":
		return nil, nil, cfg, fmt.Errorf("the spec sets both estimator (%q) and trained (%q); give one of them", s.Estimator, s.Trained)
	case s.Trained != "":
		if cfg.Trained, err = loadTrained(s.Trained, prior); err != nil {
			return nil, nil, cfg, err
		}
	}
	switch s.Estimator {
	case "", "npe": // with "trained" (estimator "" then) nothing is trained
		if s.Trained == "" {
			cfg.New = func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{}) }
		}
	case "npe-nsf":
		cfg.New = func() sbi.Estimator { return sbi.NewNPE(prior, sbi.NPEConfig{Flow: "nsf"}) }
	case "nre":
		cfg.New = func() sbi.Estimator { return sbi.NewNRE(prior, sbi.NREConfig{}) }
	case "fmpe":
		cfg.New = func() sbi.Estimator { return sbi.NewFMPE(prior, sbi.FMPEConfig{}) }
	case "nle":
		cfg.New = func() sbi.Estimator { return sbi.NewNLE(prior, sbi.NLEConfig{}) }
	default:
		return nil, nil, cfg, fmt.Errorf("estimator %q: want npe, npe-nsf, nre, nle or fmpe", s.Estimator)
	}
	if s.Remedies != nil {
		cfg.Remedies = certify.NoRemedies()
		for _, r := range *s.Remedies {
			if !slices.Contains(certify.DefaultRemedies(), certify.Remedy(r)) { // the default order names every remedy
				return nil, nil, cfg, fmt.Errorf("remedy %q: want one of %q", r, certify.DefaultRemedies())
			}
			cfg.Remedies = append(cfg.Remedies, certify.Remedy(r))
		}
	}
	cfg.Target = certify.Target{Levels: s.Levels, Tolerance: s.Tolerance, Alpha: s.Alpha, Conservative: s.Conservative}
	cfg.Simulations, cfg.TestSimulations, cfg.CheckSimulations, cfg.ConformalSimulations = s.Simulations, s.Test, s.Check, s.Conformal
	cfg.Train = sbi.TrainConfig{Epochs: s.Epochs}
	cfg.Samples, cfg.SBCSamples, cfg.Seed = s.Samples, s.SBCSamples, s.Seed
	cfg.MoreSimulations, cfg.LocalSimulations = s.MoreSimulations, s.LocalSimulations

	var rows [][]float64
	for i, o := range s.Observations {
		if len(o) != t.DataDim() {
			return nil, nil, cfg, fmt.Errorf("observation %d has %d values; task %s has %d", i+1, len(o), s.Task, t.DataDim())
		}
		rows = append(rows, o)
	}
	for _, k := range s.TaskObservations {
		o, err := t.Observation(k)
		if err != nil {
			return nil, nil, cfg, fmt.Errorf("task observation %d: %w (gosbi data fetch downloads the sbibm observations)", k, err)
		}
		rows = append(rows, o)
	}
	var obs *mat.Dense
	if len(rows) > 0 {
		obs = mat.NewDense(len(rows), t.DataDim(), nil)
		for i, r := range rows {
			obs.SetRow(i, r)
		}
	}
	return t, obs, cfg, nil
}

// loadTrained reads the estimator of the spec's "trained" file, which must be one Certify can
// take (sbi.Amortized) and built for prior.
func loadTrained(path string, prior dist.Distribution) (sbi.Amortized, error) {
	e, err := sbi.LoadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trained: %w", err)
	}
	want, err := dist.SpecOf(prior)
	if err != nil {
		return nil, fmt.Errorf("trained %s: the task's prior: %w", path, err)
	}
	got, err := dist.SpecOf(e.Prior())
	if err != nil {
		return nil, fmt.Errorf("trained %s: its prior: %w", path, err)
	}
	if d, differ := want.Diff(got); differ {
		return nil, fmt.Errorf("trained %s: the estimator's prior is not the task's: they differ at %s (the task's %s, the estimator's %s): give an estimator trained for this task", path, d.Path, d.A, d.B)
	}
	if m, ok := e.(interface{ TrainingProposal() string }); ok && m.TrainingProposal() != "" {
		p := m.TrainingProposal()
		return nil, fmt.Errorf("trained %s: the estimator was trained on parameters drawn from a proposal, not from the prior (%s), and gosbi certify judges coverage over the task's whole prior, where its posterior was never trained: certify it in a notebook over the region it was trained for (certify.Certify with Sequential's Region as the prior), or give an estimator trained on the prior", path, p)
	}
	return e, nil
}

// keepIncomplete saves the estimator that a certification stopped by err after training kept
// (a *certify.IncompleteError), so that the training is not lost with the run: beside out as
// out.estimator, or without out in a new file of the current directory. It returns err with
// the file's name, or with why the estimator could not be saved.
func keepIncomplete(err error, out, taskName string) error {
	path := ""
	if out != "" {
		path = out + ".estimator"
	}
	saved, serr := saveKept(err, path, "certify-"+taskName+"-*.estimator")
	switch {
	case serr != nil:
		return fmt.Errorf("%w\nits trained estimator could not be saved: %v", err, serr)
	case saved == "":
		return err
	}
	return fmt.Errorf("%w\nits estimator, trained but not certified, is saved in %s: add \"trained\": %q to the spec to certify it without training again", err, saved, saved)
}

// saveKept saves the estimator that a certification stopped by err after training kept (a
// *certify.IncompleteError) in path, or, when path is "", in a new file of the current
// directory named by pattern (os.CreateTemp). It returns the file's absolute path ("trained"
// is relative to the spec, not to the current directory), or "" when err kept no estimator
// that can be saved, and why the estimator could not be saved.
func saveKept(err error, path, pattern string) (string, error) {
	var inc *certify.IncompleteError
	if !errors.As(err, &inc) || inc.Estimator == nil {
		return "", nil
	}
	saver, ok := inc.Estimator.(interface{ SaveFile(string) error })
	if !ok {
		return "", nil
	}
	temp := path == ""
	if temp {
		f, err := os.CreateTemp(".", pattern)
		if err != nil {
			return "", err
		}
		path = f.Name()
		f.Close()
	}
	if err := saver.SaveFile(path); err != nil {
		if temp {
			os.Remove(path)
		}
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// certifyMain is the `gosbi certify` command.
func certifyMain(args []string) error {
	fs := flag.NewFlagSet("certify", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\n", certifyUsage)
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "write the certificate with its estimator to `FILE`")
	page := fs.String("html", "", "write the certificate as a standalone HTML page to `FILE`")
	var opts studyOptions
	fs.StringVar(&opts.dir, "study", "", "run as a resumable study in `DIR`: one job per seed (see above)")
	fs.StringVar(&opts.executor, "executor", "local", "with --study: local (this machine) or slurm (one sbatch array)")
	fs.IntVar(&opts.workers, "workers", 0, "with --study, local: seeds certified at once (default: one per core)")
	fs.StringVar(&opts.partition, "partition", "", "with --study, slurm: partition")
	fs.StringVar(&opts.time, "time", "", "with --study, slurm: time limit per seed (e.g. 2:00:00)")
	fs.StringVar(&opts.mem, "mem", "", "with --study, slurm: memory per seed (e.g. 4G)")
	fs.IntVar(&opts.cpus, "cpus", 0, "with --study, slurm: CPUs per seed")
	var spec string
	// the spec may come before or after the flags
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		spec, args = args[0], args[1:]
	}
	if err := cmdflag.Parse(fs, args); err != nil {
		return err
	}
	if spec == "" && fs.NArg() > 0 {
		spec = fs.Arg(0)
		if err := cmdflag.Parse(fs, fs.Args()[1:]); err != nil {
			return err
		}
	}
	if spec == "" || fs.NArg() > 0 {
		return errors.New(certifyUsage)
	}
	data, err := readlimit.File(spec, "a certify spec", maxCertifySpecSize)
	if err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	s, err := parseCertifySpec(data)
	if err != nil {
		return fmt.Errorf("certify %s: %w", spec, err)
	}
	if s.Trained != "" && !filepath.IsAbs(s.Trained) { // relative to the spec, also for a study's jobs
		if s.Trained, err = filepath.Abs(filepath.Join(filepath.Dir(spec), s.Trained)); err != nil {
			return fmt.Errorf("certify %s: trained: %w", spec, err)
		}
	}
	if err := checkStudyFlags(fs, s, opts.dir, *out, *page); err != nil {
		return fmt.Errorf("certify %s: %w", spec, err)
	}
	if err := checkOutputs(*out, *page); err != nil {
		return fmt.Errorf("certify %s: %w", spec, err)
	}
	one := *s
	if len(one.Seeds) == 1 {
		one.Seed, one.Seeds = one.Seeds[0], nil
	}
	t, obs, cfg, err := one.config() // checks the spec before a study is created
	if err != nil {
		return fmt.Errorf("certify %s: %w", spec, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM) // Ctrl-C stops the run
	defer stop()
	var certs []*certify.Certificate
	if opts.dir != "" {
		runenv.SetContext(ctx) // the jobs run certify.Certify, which the host's context stops
		opts.progress = os.Stderr
		var st *study.Study
		certs, st, err = runCertifyStudy(ctx, s, opts)
		if err != nil {
			return fmt.Errorf("certify %s: %w", spec, err)
		}
		defer fmt.Printf("study %s: %s\n", st.Dir, st.Status().Line())
	} else {
		runenv.ProgressToStderr()
		cert, err := certify.CertifyContext(ctx, t.Prior(), t, obs, cfg)
		if err != nil {
			return fmt.Errorf("certify %s: %w", spec, keepIncomplete(err, *out, t.Name()))
		}
		certs = []*certify.Certificate{cert}
	}
	for k, cert := range certs {
		if len(certs) > 1 {
			fmt.Printf("seed %d of %d — ", k+1, len(certs))
		}
		fmt.Println(cert.String())
	}
	cert := certs[0]
	if *out != "" {
		if err := cert.SaveFile(*out); err != nil {
			return fmt.Errorf("certify: saving the certificate: %w", err)
		}
		fmt.Println("certificate and estimator written to", *out)
	}
	if *page != "" {
		if err := atomicfile.Write(*page, 0o644, func(w io.Writer) error { return certificatePage(w, cert, t.Name()) }); err != nil {
			return fmt.Errorf("certify: writing the HTML page: %w", err)
		}
		fmt.Println("certificate page written to", *page)
	}
	return nil
}

// checkStudyFlags refuses the flags that do not go together: study options without --study,
// several seeds without --study, and --out or --html with several seeds (each seed's
// certificate is kept in its record of the study).
func checkStudyFlags(fs *flag.FlagSet, s *certifySpec, dir, out, page string) error {
	if dir == "" {
		var set []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "executor", "workers", "partition", "time", "mem", "cpus":
				set = append(set, "--"+f.Name)
			}
		})
		if len(set) > 0 {
			return fmt.Errorf("%v only go with --study DIR", set)
		}
		if len(s.Seeds) > 1 {
			return fmt.Errorf("the spec has %d seeds: certifying several seeds needs --study DIR (one job per seed)", len(s.Seeds))
		}
	}
	if len(s.Seeds) > 1 && (out != "" || page != "") {
		return fmt.Errorf("--out and --html write one certificate, and the spec has %d seeds: each seed's certificate is kept in its record of the study (%s under jobs/certify)", len(s.Seeds), certificateFile)
	}
	return nil
}

// checkOutputs checks, before the certification runs, that the files of --out and --html can
// be written, so that a path that cannot does not lose the work of a whole certification.
func checkOutputs(out, page string) error {
	for _, f := range []struct{ flag, path string }{{"--out", out}, {"--html", page}} {
		if f.path == "" {
			continue
		}
		if err := atomicfile.Writable(f.path); err != nil {
			return fmt.Errorf("%s %s cannot be written (%w); give a file in a writable directory", f.flag, f.path, err)
		}
	}
	return nil
}

// certificatePage writes the certificate's HTML display as a standalone page.
func certificatePage(w io.Writer, cert *certify.Certificate, name string) error {
	body, ok := cert.MIMEBundle()["text/html"].(string)
	if !ok {
		return errors.New("the certificate has no HTML display")
	}
	_, err := fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Certificate: %s</title></head>\n<body style=\"font-family:sans-serif;max-width:60em;margin:2em auto\">\n%s\n</body></html>\n",
		html.EscapeString(name), body)
	return err
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/sbi/certify"
	"github.com/gosbi/gosbi/study"
)

// A certification as a study (gosbi certify SPEC --study DIR).
//
// One certification is sequential: the remedies are tried in order because each one is chosen
// by the diagnosis before it, the final test judges the candidate those diagnoses chose, and
// every step draws from streams of the one seed. Its steps are therefore not independent jobs;
// what is independent is a certification per seed. The study has one job per seed of the spec
// (stage "certify", run side by side locally or as one Slurm array) and an aggregate job
// (stage "summary") that counts the verdicts. A job's record holds the certificate with its
// estimator (certify.LoadFile reads it), its text, as metrics the verdict, test_pairs,
// simulations_used and the remedies before the final test (tried: all those taken up, the
// skipped included, as Certificate.Tried; remedies_run and remedies_skipped: the two apart), and
// as series the levels with their coverage and its bounds;
// a job that stops after training saves its estimator beside its record (NNNNN.estimator in
// jobs/certify: a failed job's own directory is removed), which a later run of the study
// removes once the job's record is written (removeSupersededEstimators); an interrupted study
// resumes with the seeds that have no record, and a job is the same computation, giving the
// same certificate, as `gosbi certify` run alone with that seed.

// The names of the study's functions, registered in every gosbi binary so that `gosbi study
// worker` (a Slurm array task) and `gosbi study run DIR` can run them.
const (
	certifyJobFunc     = "gosbi.certify"
	certifySummaryFunc = "gosbi.certify-summary"
	certificateFile    = "certificate.json" // in a certify job's record
	certificateText    = "certificate.txt"
)

func init() {
	study.Register(certifyJobFunc, certifyJob)
	study.Register(certifySummaryFunc, certifySummary)
}

// seeds returns the seeds of the spec: Seeds, or the one Seed.
func (s *certifySpec) seeds() []uint64 {
	if len(s.Seeds) > 0 {
		return s.Seeds
	}
	return []uint64{s.Seed}
}

// studySpec is the study of a certify spec: an axis of its seeds and the spec itself, without
// its seeds, as the constant every job reads.
func (s *certifySpec) studySpec() (*study.Spec, error) {
	one := *s
	one.Seed, one.Seeds = 0, nil
	data, err := json.Marshal(&one)
	if err != nil {
		return nil, err
	}
	var values []string
	for _, sd := range s.seeds() {
		values = append(values, strconv.FormatUint(sd, 10))
	}
	sp := &study.Spec{
		Name:   "certify-" + s.Task,
		Axes:   []study.Axis{{Name: "seed", Values: values}},
		Params: map[string]string{"spec": string(data)},
		Stages: []study.Stage{
			{Name: "certify", Over: []string{"seed"}, Func: certifyJobFunc},
			{Name: "summary", All: true, Func: certifySummaryFunc},
		},
	}
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	return sp, nil
}

// verdictCode is the verdict as a metric: 1 certified, 0 inconclusive, −1 not certified.
func verdictCode(v certify.Verdict) float64 {
	switch v {
	case certify.Certified:
		return 1
	case certify.NotCertified:
		return -1
	}
	return 0
}

// certifyRun is the certification of a certify job: certify.Certify, which tests replace by
// one that stops as they need.
var certifyRun = certify.Certify

// certifyJob runs the certification of one seed and records its certificate.
func certifyJob(j *study.Job) error {
	s, err := parseCertifySpec([]byte(j.String("spec")))
	if err != nil {
		return err
	}
	seed, err := strconv.ParseUint(j.String("seed"), 10, 64)
	if err != nil {
		return fmt.Errorf("seed %q: expected an unsigned integer", j.String("seed"))
	}
	s.Seed, s.Seeds = seed, nil
	t, obs, cfg, err := s.config()
	if err != nil {
		return err
	}
	j.Logf("certifying %s with seed %d", s.Task, seed)
	cert, err := certifyRun(t.Prior(), t, obs, cfg) // stopped by runenv.Context()
	if err != nil {
		return keepJobEstimator(err, j)
	}
	if err := cert.SaveFile(j.Path(certificateFile)); err != nil {
		return err
	}
	text := cert.String()
	if err := atomicfile.Write(j.Path(certificateText), 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}); err != nil {
		return err
	}
	j.Logf("%s", text)
	j.Set("verdict", verdictCode(cert.Verdict()))
	// tried is the certificate's Tried: the remedies taken up before the final test, those
	// skipped for a stated reason included. remedies_run and remedies_skipped count the two
	// apart, as the certificate's sentence does (RemediesRun, SkippedRemedies).
	j.Set("tried", float64(cert.Tried))
	j.Set("remedies_run", float64(cert.RemediesRun()))
	j.Set("remedies_skipped", float64(len(cert.SkippedRemedies())))
	j.Set("test_pairs", float64(cert.Final.N))
	j.Set("simulations_used", float64(cert.Budget.Used))
	var levels, coverage, lower, upper []float64
	for _, c := range cert.Final.Checks {
		levels = append(levels, c.Level)
		coverage = append(coverage, c.Coverage)
		lower = append(lower, c.Lower)
		upper = append(upper, c.Upper)
	}
	j.SetSeries("levels", levels)
	j.SetSeries("coverage", coverage)
	j.SetSeries("lower", lower)
	j.SetSeries("upper", upper)
	return nil
}

// keepJobEstimator saves the estimator that job j's certification, stopped by err after
// training, kept (a *certify.IncompleteError) beside the job's record, as NNNNN.estimator in
// the stage's directory: the job's own directory is removed with its failure. It returns err
// with the file's name, on the line that the study's error shows, or with why the estimator
// could not be saved.
func keepJobEstimator(err error, j *study.Job) error {
	path := j.RecordDir() + keptEstimatorExt
	saved, serr := saveKept(err, path, "")
	switch {
	case serr != nil:
		return fmt.Errorf("%w; its trained estimator could not be saved: %v", err, serr)
	case saved == "":
		return err
	}
	return fmt.Errorf("%w; its estimator, trained but not certified, is saved in %s: add \"trained\": %q to a spec (run without --study or in a new study directory) to certify it without training again; running this study again certifies the seed anew and removes the file once its certificate is recorded, so copy the file to keep it", err, saved, saved)
}

// keptEstimatorExt ends the name of the file, beside a certify job's record directory, where
// keepJobEstimator saves the estimator of a job that stopped after training.
const keptEstimatorExt = ".estimator"

// removeSupersededEstimators removes the estimators that certify jobs saved beside their
// records when they stopped after training (keepJobEstimator), once a later attempt of the job
// has recorded its certificate: the job is the same computation with the same seed, and its
// record holds its result, the certificate with the estimator it certified. A file is removed
// only after its job's record is written and found valid, never before; each removal is said on
// w. A job whose record is missing or invalid keeps its file.
func removeSupersededEstimators(st *study.Study, w io.Writer) {
	if w == nil {
		w = io.Discard
	}
	for _, i := range st.StageJobs("certify") {
		r, err := st.Record(i)
		if err != nil {
			continue
		}
		path := r.Dir + keptEstimatorExt
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(path); err != nil {
			fmt.Fprintf(w, "gosbi certify: %s is certified, but the estimator it saved when it stopped after training could not be removed: %v\n", st.Jobs[i], err)
			continue
		}
		fmt.Fprintf(w, "gosbi certify: removed %s, the estimator %s saved when it stopped after training: the seed is certified now, and %s holds its certificate with the estimator it certified\n",
			path, st.Jobs[i], r.Path(certificateFile))
	}
}

// certifySummary counts the verdicts of the seeds.
func certifySummary(j *study.Job) error {
	rs, err := j.Inputs("certify")
	if err != nil {
		return err
	}
	counts := map[float64]float64{}
	for _, r := range rs {
		v, err := r.Metric("verdict")
		if err != nil {
			return err
		}
		counts[v]++
	}
	j.Set("seeds", float64(len(rs)))
	j.Set("certified", counts[1])
	j.Set("inconclusive", counts[0])
	j.Set("not_certified", counts[-1])
	return nil
}

// studyOptions are the flags of `gosbi certify --study`.
type studyOptions struct {
	dir, executor         string
	workers               int
	partition, time, mem  string
	cpus                  int
	progress, certificate io.Writer
}

// runCertifyStudy creates the study of the spec in opts.dir (or opens it: a directory that
// holds the study of another spec is refused), runs the jobs that have no record and returns
// the certificates, one per seed in the order of the spec.
func runCertifyStudy(ctx context.Context, s *certifySpec, opts studyOptions) ([]*certify.Certificate, *study.Study, error) {
	sp, err := s.studySpec()
	if err != nil {
		return nil, nil, err
	}
	progress := study.TextProgress(opts.progress)
	var e study.Executor
	switch opts.executor {
	case "", "local":
		e = &study.Local{Workers: opts.workers, Progress: progress}
	case "slurm":
		e = &study.Slurm{Partition: opts.partition, Time: opts.time, Memory: opts.mem, CPUsPerTask: opts.cpus,
			Retries: 1, Progress: progress}
	default:
		return nil, nil, fmt.Errorf("--executor = %q, expected local or slurm", opts.executor)
	}
	st, err := study.Create(opts.dir, sp, ".")
	if err != nil {
		return nil, nil, err
	}
	err = st.Run(ctx, e)
	if !errors.Is(err, study.ErrLocked) { // another process runs the study: its jobs are its own
		removeSupersededEstimators(st, opts.progress)
	}
	if err != nil {
		fmt.Fprint(opts.progress, st.Status())
		return nil, st, err
	}
	if status := st.Status(); !status.Complete() {
		return nil, st, fmt.Errorf("the study in %s is not complete (%s); run the same command again to resume it", st.Dir, status.Line())
	}
	return studyCertificates(st)
}

// studyCertificates loads the certificate of every seed of a complete certify study.
func studyCertificates(st *study.Study) ([]*certify.Certificate, *study.Study, error) {
	var certs []*certify.Certificate
	for _, i := range st.StageJobs("certify") {
		r, err := st.Record(i)
		if err != nil {
			return nil, st, err
		}
		c, err := certify.LoadFile(r.Path(certificateFile))
		if err != nil {
			return nil, st, fmt.Errorf("the certificate of %s: %w", st.Jobs[i], err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, st, errors.New("the study holds no certificate")
	}
	return certs, st, nil
}

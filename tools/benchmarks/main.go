// Command benchmarks measures gosbi against its peers and writes BENCHMARKS.md.
//
//	go run ./tools/benchmarks [-benchtime 1s] [-count 3] [-out FILE] [-rows REGEXP]
//
// The table goes to -out, BENCHMARKS.md by default; -out - writes it on standard output.
//
// -rows measures only the rows whose benchmark name matches the regular expression (and their
// twins), and skips the simulation store; the table then holds those rows alone, for comparing
// a few operations side by side while working on them. Without -out it goes to standard
// output, so that a partial table never replaces the full one of BENCHMARKS.md (give -out
// BENCHMARKS.md to replace it anyway).
//
// It runs the Go benchmarks named in rows (the default build, and the openblas build where
// cgo and libopenblas are present), times the PyTorch twins in torch_reference.py in the same
// run when Debian's python3-torch is installed, and writes one table with the date, commit,
// CPU, Go version and the matrix-product implementation of each build (nn.Backend, printed
// by ./tools/benchmarks/backend). The table's section names the CPU its gosbi columns were
// measured on, and every row the CPU of its peer's time: this run's for a twin run here, the
// CPU recorded in peers.tsv for a recorded time (and the table marks those: only
// side-by-side ratios are measured in this run). A second table gives the peak memory of
// training from a simulation store at two sizes (tools/storebench), on the same CPU.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// row is one line of the table: a Go benchmark and the peer it is compared with.
type row struct {
	label  string // what is measured
	pkg    string // Go package of the benchmark
	bench  string // benchmark name, without "Benchmark"
	metric string // unit read from the benchmark output: "ns/op" or "ms/step"
	peer   string // key of the PyTorch twin (torch_reference.py) or of peers.tsv
}

var rows = []row{
	{"NRE step, MLP 3×64, BCE, Adam", "./sbi", "NREStep", "ns/op", "nre-step-3x64"},
	{"NRE step, MLP 2×64 (lampe's default)", "./sbi/calib", "NREStepMLP2x64", "ms/step", "nre-step-2x64"},
	{"BNRE step (λ = 100), MLP 3×64", "./sbi/calib", "BNREStep", "ms/step", "bnre-step-3x64"},
	{"NPE step, NSF 5 × (2×64), 8 bins", "./sbi", "NPENSFStep", "ns/op", "npe-nsf-step"},
	{"NPE epoch over 10,000 pairs (NSF as above)", "./sbi", "NPEEpoch", "ns/op", "npe-nsf-epoch"},
	{"NPE log-density of 10,000 (θ, x) pairs", "./sbi", "NPELogProb10k", "ns/op", "npe-nsf-logprob-10k"},
	{"NPE, 10,000 posterior samples", "./sbi", "NPESample10k", "ns/op", "npe-nsf-sample-10k"},
	{"NLE step, MAF 5 × (2×50) tanh (sbi's default)", "./sbi", "NLEStep", "ns/op", "nle-maf-step"},
	{"NLE, 10,000 slice-sampler draws (100 chains, MAF as above)", "./sbi", "NLESlice10k", "ns/op", "nle-maf-slice-10k"},
	{"FMPE step, field MLP 5×64 (ELU), sbi's default", "./sbi", "FMPEStep", "ns/op", "fmpe-step"},
	{"FMPE, 10,000 posterior samples (ODE, the field above with fixed weights)", "./sbi", "FMPESample10k", "ns/op", "fmpe-sample-10k"},
	{"CalNRE step (L = 16), MLP 3×64", "./sbi/calib", "CalNREStep", "ms/step", "calnre-step"},
	{"CalNRE step (L = 16), MLP 2×64", "./sbi/calib", "CalNREStepMLP2x64", "ms/step", "calnre-step"},
	{"CalNPE step (L = 16), MAF 3 × (2×64)", "./sbi/calib", "CalNPEStep", "ms/step", "calnpe-step"},
	{"MLP 512×8 → 128 → 128 → 1, Adam", "./sbi/nn", "MLPStep", "ns/op", "mlp-step"},
	{"Conv1D 2 → 16 channels, k 5, 200 series × 100 steps, forward", "./sbi/nn", "Conv1DForward", "ns/op", "conv1d-fwd"},
	{"Conv1D as above, forward + backward", "./sbi/nn", "Conv1DForwardBackward", "ns/op", "conv1d-fwdbwd"},
	{"Conv1D 16 → 32 channels, k 5, 200 × 100, forward", "./sbi/nn", "Conv1DLayer2Forward", "ns/op", "conv1d-l2-fwd"},
	{"Conv1D as above, forward + backward", "./sbi/nn", "Conv1DLayer2ForwardBackward", "ns/op", "conv1d-l2-fwdbwd"},
	{"Conv2D 1 → 16 channels, 3×3, 64 images 28×28, forward", "./sbi/nn", "Conv2DForward", "ns/op", "conv2d-fwd"},
	{"Conv2D as above, forward + backward", "./sbi/nn", "Conv2DForwardBackward", "ns/op", "conv2d-fwdbwd"},
	{"Conv2D 16 → 32 channels, 3×3, 64 × 28×28, forward", "./sbi/nn", "Conv2DLayer2Forward", "ns/op", "conv2d-l2-fwd"},
	{"Conv2D as above, forward + backward", "./sbi/nn", "Conv2DLayer2ForwardBackward", "ns/op", "conv2d-l2-fwdbwd"},
	// the same convolutions on gosbi's float32 path (Conv1D32, Conv2D32), against PyTorch's
	// float32 twins above
	{"Conv1D 2 → 16, forward, float32 (Conv1D32)", "./sbi/nn", "Conv1D32Forward", "ns/op", "conv1d-fwd"},
	{"Conv1D 2 → 16, forward + backward, float32", "./sbi/nn", "Conv1D32ForwardBackward", "ns/op", "conv1d-fwdbwd"},
	{"Conv1D 16 → 32, forward, float32", "./sbi/nn", "Conv1D32Layer2Forward", "ns/op", "conv1d-l2-fwd"},
	{"Conv1D 16 → 32, forward + backward, float32", "./sbi/nn", "Conv1D32Layer2ForwardBackward", "ns/op", "conv1d-l2-fwdbwd"},
	{"Conv2D 1 → 16, forward, float32 (Conv2D32)", "./sbi/nn", "Conv2D32Forward", "ns/op", "conv2d-fwd"},
	{"Conv2D 1 → 16, forward + backward, float32", "./sbi/nn", "Conv2D32ForwardBackward", "ns/op", "conv2d-fwdbwd"},
	{"Conv2D 16 → 32, forward, float32", "./sbi/nn", "Conv2D32Layer2Forward", "ns/op", "conv2d-l2-fwd"},
	{"Conv2D 16 → 32, forward + backward, float32", "./sbi/nn", "Conv2D32Layer2ForwardBackward", "ns/op", "conv2d-l2-fwdbwd"},
	// the floor of the first layers' forward passes in float64: writing their output alone,
	// against PyTorch's whole float32 forward pass
	{"Conv1D 2 → 16 forward's floor in float64: writing its output alone (2.56 MB)", "./sbi/nn", "Conv1DOutputFill", "ns/op", "conv1d-fwd"},
	{"Conv2D 1 → 16 forward's floor in float64: writing its output alone (6.4 MB)", "./sbi/nn", "Conv2DOutputFill", "ns/op", "conv2d-fwd"},
	// the same convolutions against PyTorch in float64, gosbi's precision (PyTorch's float64
	// convolutions do not use its float32 kernels)
	{"Conv1D 2 → 16, forward, against PyTorch in float64", "./sbi/nn", "Conv1DForward", "ns/op", "conv1d-fwd-f64"},
	{"Conv1D 2 → 16, forward + backward, against PyTorch in float64", "./sbi/nn", "Conv1DForwardBackward", "ns/op", "conv1d-fwdbwd-f64"},
	{"Conv1D 16 → 32, forward, against PyTorch in float64", "./sbi/nn", "Conv1DLayer2Forward", "ns/op", "conv1d-l2-fwd-f64"},
	{"Conv1D 16 → 32, forward + backward, against PyTorch in float64", "./sbi/nn", "Conv1DLayer2ForwardBackward", "ns/op", "conv1d-l2-fwdbwd-f64"},
	{"Conv2D 1 → 16, forward, against PyTorch in float64", "./sbi/nn", "Conv2DForward", "ns/op", "conv2d-fwd-f64"},
	{"Conv2D 1 → 16, forward + backward, against PyTorch in float64", "./sbi/nn", "Conv2DForwardBackward", "ns/op", "conv2d-fwdbwd-f64"},
	{"Conv2D 16 → 32, forward, against PyTorch in float64", "./sbi/nn", "Conv2DLayer2Forward", "ns/op", "conv2d-l2-fwd-f64"},
	{"Conv2D 16 → 32, forward + backward, against PyTorch in float64", "./sbi/nn", "Conv2DLayer2ForwardBackward", "ns/op", "conv2d-l2-fwdbwd-f64"},
	{"C2ST, 1,000 vs 1,000 joint samples (θ, x ∈ R²×R²)", "./sbi/diag", "C2ST1kJoint", "ns/op", "c2st-1k-joint"},
	{"L-C2ST at one observation, same 1,000 pairs, 100 null classifiers", "./sbi/diag", "LC2ST1k", "ns/op", "lc2st-1k"},
	{"NPE step, MAF 5 × (2×50) + sbi's CNNEmbedding, series 100 × 2, batch 128", "./sbi", "NPECNNStep", "ns/op", "npe-cnn-step"},
	{"NPE step as above, the CNN's convolutions in float32 (CNN1DEmbedding.Float32)", "./sbi", "NPECNNStep32", "ns/op", "npe-cnn-step"},
}

// peerTime is a peer's time for one operation and where it comes from.
type peerTime struct {
	ms     float64
	source string
	cpu    string // the CPU it was measured on
	side   bool   // measured in this run
}

func main() {
	benchtime := flag.String("benchtime", "1s", "go test -benchtime for each benchmark")
	count := flag.Int("count", 3, "runs of each benchmark (the table gives the median)")
	torchSeconds := flag.Float64("torch-seconds", 2, "seconds each PyTorch twin is timed")
	out := flag.String("out", "", "`file` to write the table to, - for standard output (default BENCHMARKS.md; with -rows, standard output: a partial table does not replace the full one)")
	only := flag.String("rows", "", "measure only the rows whose benchmark name matches this regular expression, and no simulation store")
	flag.Parse()
	*out = outPath(*out, *only)
	if err := checkArgs(*out, *count, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		os.Exit(2)
	}
	if *only != "" {
		if err := selectRows(*only); err != nil {
			fmt.Fprintln(os.Stderr, "benchmarks:", err)
			os.Exit(2)
		}
	}
	if err := run(*benchtime, *count, *torchSeconds, *out, *only == ""); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		os.Exit(1)
	}
}

// outPath returns where the table goes, given -out and -rows: out when given ("-" for
// standard output), else BENCHMARKS.md for the full table and standard output for a partial one
// (only not empty), so that a partial run never replaces the full table.
func outPath(out, only string) string {
	switch {
	case out != "":
		return out
	case only != "":
		return "-"
	}
	return "BENCHMARKS.md"
}

// checkArgs checks, before anything is measured, that the table can be written to out ("-" is
// standard output), that count is at least 1 and that no argument follows the flags (the rows
// are chosen with -rows).
func checkArgs(out string, count int, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments %q: choose rows with -rows REGEXP", args)
	}
	if count < 1 {
		return fmt.Errorf("-count %d, expected 1 or more runs of each benchmark", count)
	}
	if out == "-" {
		return nil
	}
	if err := atomicfile.Writable(out); err != nil {
		return fmt.Errorf("-out %s cannot be written: %w", out, err)
	}
	return nil
}

// selectRows keeps the rows whose benchmark name matches the regular expression expr.
func selectRows(expr string) error {
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("-rows: %w", err)
	}
	var kept []row
	for _, r := range rows {
		if re.MatchString(r.bench) {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("-rows %q matches no benchmark", expr)
	}
	rows = kept
	return nil
}

func run(benchtime string, count int, torchSeconds float64, out string, withStore bool) error {
	loadStart := loadAverage()
	dir, err := toolDir()
	if err != nil {
		return err
	}
	peers, err := readPeers(filepath.Join(dir, "peers.tsv"))
	if err != nil {
		return err
	}
	var twins []string
	for _, r := range rows {
		twins = append(twins, r.peer)
	}
	torch, torchVersion, err := runTorch(filepath.Join(dir, "torch_reference.py"), torchSeconds, twins)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks: PyTorch twins not run:", err)
	}
	cpu := cpuModel()
	for k, v := range torch {
		peers[k] = peerTime{ms: v, source: "PyTorch " + torchVersion + ", this run", cpu: cpu, side: true}
	}
	builds := []string{""}
	if openblasAvailable() {
		builds = append(builds, "openblas")
	}
	times := map[string]map[string]float64{} // build → bench → ms
	backends := map[string]string{}          // build → nn.Backend()
	for _, tags := range builds {
		if backends[tags], err = backend(tags); err != nil {
			return err
		}
		t, err := runGoBenchmarks(tags, benchtime, count)
		if err != nil {
			return err
		}
		times[tags] = t
	}
	var store []storeResult
	if withStore {
		if store, err = runStore(); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	writeReport(&buf, report{cpu: cpu, builds: builds, backends: backends, times: times, peers: peers,
		benchtime: benchtime, count: count, loadStart: loadStart, loadEnd: loadAverage()})
	if withStore {
		writeStore(&buf, store, cpu)
	}
	if out == "-" {
		_, err := os.Stdout.Write(buf.Bytes())
		return err
	}
	return atomicfile.WriteFile(out, buf.Bytes(), 0o644)
}

// toolDir is the folder of this command's files, found from the module root.
func toolDir() (string, error) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module root (run from inside the gosbi checkout): %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(root)), "tools", "benchmarks"), nil
}

// readPeers reads peers.tsv: key, milliseconds, source, CPU; '#' starts a comment.
func readPeers(path string) (map[string]peerTime, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading recorded peer times: %w", err)
	}
	defer f.Close()
	peers := map[string]peerTime{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 4 || strings.TrimSpace(fields[3]) == "" {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields (key, ms, source, CPU), got %d", path, n, len(fields))
		}
		ms, err := strconv.ParseFloat(fields[1], 64)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s:%d: milliseconds %q is not a positive number", path, n, fields[1])
		}
		peers[fields[0]] = peerTime{ms: ms, source: fields[2], cpu: fields[3]}
	}
	return peers, sc.Err()
}

// runTorch times the PyTorch twins named (those the script knows) with Debian's Python; it
// fails when torch is missing.
func runTorch(script string, seconds float64, twins []string) (map[string]float64, string, error) {
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		python = "python3"
	}
	cmd := exec.Command(python, append([]string{script, strconv.FormatFloat(seconds, 'g', -1, 64)}, twins...)...)
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w (install python3-torch to time them)", python, script, err)
	}
	var res struct {
		Torch string             `json:"torch"`
		MS    map[string]float64 `json:"ms"`
	}
	if err := json.Unmarshal(outb, &res); err != nil {
		return nil, "", fmt.Errorf("reading the twins' output: %w", err)
	}
	return res.MS, res.Torch, nil
}

// backend returns nn.Backend() in the build with the given tags.
func backend(tags string) (string, error) {
	args := []string{"run"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	out, err := exec.Command("go", append(args, "./tools/benchmarks/backend")...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go run ./tools/benchmarks/backend (tags %q): %w\n%s", tags, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// openblasAvailable reports whether the openblas build links here.
func openblasAvailable() bool {
	cmd := exec.Command("go", "build", "-tags", "openblas", "-o", os.DevNull, "./sbi/nn")
	return cmd.Run() == nil
}

// runGoBenchmarks runs every row's benchmark in one build and returns the median time in ms.
func runGoBenchmarks(tags, benchtime string, count int) (map[string]float64, error) {
	byPkg := map[string][]string{}
	var pkgs []string
	for _, r := range rows {
		if _, ok := byPkg[r.pkg]; !ok {
			pkgs = append(pkgs, r.pkg)
		}
		byPkg[r.pkg] = append(byPkg[r.pkg], r.bench)
	}
	samples := map[string][]float64{}
	for _, pkg := range pkgs {
		pattern := "^Benchmark(" + strings.Join(byPkg[pkg], "|") + ")$"
		args := []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, "-count", strconv.Itoa(count)}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		args = append(args, pkg)
		fmt.Fprintln(os.Stderr, "benchmarks: go", strings.Join(args, " "))
		outb, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, outb)
		}
		for key, v := range parseBench(pkg, outb) {
			samples[key] = append(samples[key], v...)
		}
	}
	med := map[string]float64{}
	for k, v := range samples {
		med[k] = median(v)
	}
	return med, nil
}

// parseBench reads `go test -bench` output into pkg/name → times in ms, using each row's metric.
func parseBench(pkg string, out []byte) map[string][]float64 {
	metric := map[string]string{}
	for _, r := range rows {
		if r.pkg == pkg {
			metric[r.bench] = r.metric
		}
	}
	res := map[string][]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // GOMAXPROCS suffix
		}
		unit, ok := metric[name]
		if !ok {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] != unit {
				continue
			}
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			if unit == "ns/op" {
				v /= 1e6
			}
			res[pkg+"/"+name] = append(res[pkg+"/"+name], v)
		}
	}
	return res
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// report is what BENCHMARKS.md shows.
type report struct {
	cpu                string
	builds             []string
	backends           map[string]string             // build → nn.Backend()
	times              map[string]map[string]float64 // build → pkg/bench → ms
	peers              map[string]peerTime
	benchtime          string
	count              int
	loadStart, loadEnd string
}

func writeReport(w *bytes.Buffer, r report) {
	fmt.Fprintf(w, "# Benchmarks\n\n")
	fmt.Fprintf(w, "Written by `go run ./tools/benchmarks` (benchtime %s, median of %d runs); do not edit by hand.\n\n", r.benchtime, r.count)
	fmt.Fprintf(w, "| | |\n| --- | --- |\n")
	fmt.Fprintf(w, "| date | %s |\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "| commit | %s |\n", commit())
	fmt.Fprintf(w, "| CPU | %s, %d logical cores |\n", r.cpu, runtime.NumCPU())
	fmt.Fprintf(w, "| Go | %s |\n", runtime.Version())
	for _, b := range r.builds {
		fmt.Fprintf(w, "| matrix products, %s build | %s |\n", buildName(b), r.backends[b])
	}
	fmt.Fprintf(w, "| load average (1 min) | %s at the start, %s at the end (other work on the machine slows both sides) |\n\n", r.loadStart, r.loadEnd)
	fmt.Fprintf(w, "## gosbi on %s\n\n", r.cpu)
	fmt.Fprintf(w, "Times are wall time of one operation; gosbi's columns were measured on %s in this run. The speed-up is the peer's time over gosbi's: side by side where the peer ran in this run, else against the recorded number (marked †), measured on the CPU its row names.\n\n", r.cpu)
	fmt.Fprintf(w, "| operation | peer | peer's CPU | gosbi (%s) |", buildName(r.builds[0]))
	for _, b := range r.builds[1:] {
		fmt.Fprintf(w, " gosbi (%s) |", buildName(b))
	}
	fmt.Fprintf(w, "\n| --- | --- | --- |%s\n", strings.Repeat(" --- |", len(r.builds)))
	sources := map[string]string{} // source → CPU
	for _, row := range rows {
		p, hasPeer := r.peers[row.peer]
		peerCell, cpuCell := "—", "—"
		if hasPeer {
			mark := ""
			if !p.side {
				mark = " †"
			}
			peerCell, cpuCell = fmtMS(p.ms)+mark, p.cpu
			if p.side {
				cpuCell = "this run's"
			}
			sources[p.source] = p.cpu
		}
		fmt.Fprintf(w, "| %s | %s | %s |", row.label, peerCell, cpuCell)
		for _, b := range r.builds {
			t, ok := r.times[b][row.pkg+"/"+row.bench]
			cell := "not measured"
			if ok {
				cell = fmtMS(t)
				if hasPeer {
					cell += fmt.Sprintf(" (%.1f×)", p.ms/t)
				}
			}
			fmt.Fprintf(w, " %s |", cell)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nPeers:\n")
	var src []string
	for s := range sources {
		src = append(src, s)
	}
	sort.Strings(src)
	for _, s := range src {
		fmt.Fprintf(w, "- %s (CPU: %s)\n", s, sources[s])
	}
}

// buildName names a build by its tags for the table.
func buildName(tags string) string {
	if tags == "" {
		return "default"
	}
	return "`" + tags + "`"
}

func fmtMS(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%.2f s", ms/1000)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.2f ms", ms)
	}
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown (not a git checkout)"
	}
	c := strings.TrimSpace(string(out))
	if exec.Command("git", "diff", "--quiet", "HEAD").Run() != nil {
		c += " with uncommitted changes"
	}
	return c
}

// loadAverage is the one-minute load average, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
